/* The bench's in-process reference: inflate a gzip file (every member) with zlib and count its
 * lines, the least any reader of the file must do. Built by scripts/bench.sh at bench time:
 *   gcc -O2 scripts/bench/zcount.c -lz -o zcount && ./zcount FILE.gz   -> "LINES BYTES" */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: zcount FILE.gz\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    static unsigned char in[1 << 20], out[1 << 20];
    z_stream z; memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return 1;
    unsigned long long lines = 0, bytes = 0;
    int rc = Z_OK;
    size_t n;
    while ((n = fread(in, 1, sizeof in, f)) > 0) {
        z.next_in = in; z.avail_in = (uInt)n;
        while (z.avail_in > 0) {
            z.next_out = out; z.avail_out = sizeof out;
            rc = inflate(&z, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) { fprintf(stderr, "corrupt gzip\n"); return 1; }
            size_t got = sizeof out - z.avail_out;
            bytes += got;
            for (unsigned char *p = out, *end = out + got; (p = memchr(p, '\n', end - p)); p++) lines++;
            if (rc == Z_STREAM_END) inflateReset(&z);  /* the next member, as gzip -dc does */
            if (rc == Z_BUF_ERROR) break;
        }
    }
    printf("%llu %llu\n", lines, bytes);
    return 0;
}
