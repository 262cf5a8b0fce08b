#ifndef LOCAUDIT_CZLIB_SHIM_H
#define LOCAUDIT_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro; Swift cannot call it, so wrap it.
static inline int locaudit_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
