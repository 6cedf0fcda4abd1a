/* tfl_file.c - reading a model file (see tfl_import.h). On POSIX systems the
 * file is mapped read-only: nothing is copied, constant data is read straight
 * from the page cache, and pages the compiler is done with can be dropped
 * (tfl_drop_pages), so compiling a 400 MB model does not hold 400 MB of
 * private copies. Elsewhere, or where mapping fails, it is read into memory. */
#if defined(__unix__) || defined(__APPLE__)
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED */
#define TFL_POSIX 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfl_import.h"

static const uint8_t empty_file[1];

static int read_whole(const char *path, size_t len, TflFile *f, Diag *d) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return diag_user(d, "%s: cannot open file (%s)", path, strerror(errno));
    uint8_t *buf = malloc(len + 1);
    if (!buf) {
        fclose(fp);
        return diag_user(d, "%s: out of memory reading %zu bytes", path, len);
    }
    size_t got = fread(buf, 1, len, fp);
    fclose(fp);
    if (got != len) {
        free(buf);
        return diag_user(d, "%s: read %zu of %zu bytes", path, got, len);
    }
    f->data = buf;
    f->size = len;
    f->owned = buf;
    return 0;
}

int tfl_open_file(const char *path, TflFile *f, Diag *d) {
    memset(f, 0, sizeof *f);
#ifdef TFL_POSIX
    /* stat before open: a directory opens fine but reads as garbage, and a FIFO would block. */
    struct stat st;
    if (stat(path, &st) != 0) return diag_user(d, "%s: cannot open file (%s)", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return diag_user(d, "%s: is a directory, expected a model file", path);
    if (!S_ISREG(st.st_mode)) return diag_user(d, "%s: not a regular file", path);
    if ((unsigned long long)st.st_size > TFL_MAX_FILE_BYTES)
        return diag_user(d, "%s: file is %lld bytes, larger than the %zu-byte limit", path, (long long)st.st_size,
                         TFL_MAX_FILE_BYTES);
    size_t len = (size_t)st.st_size;
    if (len == 0) {
        f->data = empty_file;
        return 0;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) return diag_user(d, "%s: cannot open file (%s)", path, strerror(errno));
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
        f->data = p;
        f->size = len;
        f->mapped = 1;
        return 0;
    }
    return read_whole(path, len, f, d); /* a file system without mmap */
#else
    FILE *fp = fopen(path, "rb");
    if (!fp) return diag_user(d, "%s: cannot open file (%s)", path, strerror(errno));
    long len = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    fclose(fp);
    if (len < 0) return diag_user(d, "%s: cannot determine the file size (not a regular file?)", path);
    if ((unsigned long)len > TFL_MAX_FILE_BYTES)
        return diag_user(d, "%s: file is %ld bytes, larger than the %zu-byte limit", path, len, TFL_MAX_FILE_BYTES);
    if (len == 0) {
        f->data = empty_file;
        return 0;
    }
    return read_whole(path, (size_t)len, f, d);
#endif
}

void tfl_close_file(TflFile *f) {
#ifdef TFL_POSIX
    if (f->mapped) munmap((void *)(uintptr_t)f->data, f->size);
#endif
    free(f->owned);
    memset(f, 0, sizeof *f);
}

void tfl_drop_pages(void *file, const void *p, size_t n) {
#if defined(TFL_POSIX) && defined(MADV_DONTNEED)
    const TflFile *f = file;
    uintptr_t lo = (uintptr_t)p, hi = lo + n, start = (uintptr_t)f->data, end = start + f->size;
    long page = sysconf(_SC_PAGESIZE);
    if (!f->mapped || page <= 0 || lo < start || hi > end || hi < lo) return;
    /* Only whole pages inside [p, p + n): a neighbour's bytes stay resident. */
    lo = (lo + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    hi = hi / (uintptr_t)page * (uintptr_t)page;
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
#else
    (void)file, (void)p, (void)n;
#endif
}
