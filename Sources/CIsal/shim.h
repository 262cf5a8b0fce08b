#ifndef LOCAUDIT_CISAL_SHIM_H
#define LOCAUDIT_CISAL_SHIM_H
// ISA-L's igzip (Debian: libisal-dev): inflates gzip members about 2.5x faster than zlib.
#include <isa-l/igzip_lib.h>
#endif
