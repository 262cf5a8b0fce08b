#ifndef LOCAUDIT_CZLIB_SHIM_H
#define LOCAUDIT_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro; Swift cannot call it, so wrap it.
static inline int locaudit_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
/// `deflateInit2` is a macro too (capture writes gzip members).
static inline int locaudit_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
