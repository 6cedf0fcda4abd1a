/* test_jit.c - the run-time NVRTC JIT (runtime/cuda/mpcc_jit.c) and its disk cache.
 *
 * Compiler-only handles compile a small kernel for sm_80/sm_90 (ELF cubins);
 * the cache serves the same key again byte for byte, keys differ by source,
 * arch and options, damaged entries (flipped payload byte, truncation, wrong
 * magic/key/size/hash, empty file) are rejected, recompiled and rewritten; no
 * temporary file is left behind; NVRTC's log reaches the error message; the
 * cache directory comes from the argument or the environment and an
 * unwritable one is not an error; opening the driver on a machine without a
 * GPU (or without libcuda) fails with a message, and a missing
 * MPCC_NVRTC_LIB is named. With a GPU, a kernel is loaded and launched.
 *
 * Without NVRTC (no CUDA toolkit) the whole test prints a SKIP line and
 * counts as skipped.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpcc_jit.h"

static int failures, passes, skips;

static void check(int ok, const char *what, const char *detail) {
    if (ok) passes++;
    else failures++;
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail && detail[0] ? ": " : "", detail ? detail : "");
}

static void skip(const char *what, const char *why) {
    skips++;
    printf("SKIP %s: %s\n", what, why);
}

static const char SAXPY[] = "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, int n) {\n"
                            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "    if (i < n) y[i] = a * x[i] + y[i];\n"
                            "}\n";

/* ---- temp directories ---- */

static char *make_tmp(void) {
    char tmpl[] = "/tmp/mpcc_jit_test_XXXXXX";
    char *d = mkdtemp(tmpl);
    if (!d) return NULL;
    char *out = malloc(strlen(d) + 1);
    if (out) strcpy(out, d);
    return out;
}

/* Removes dir and everything under it (the tests make at most two levels). */
static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
            else unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Files in dir whose name ends in suffix; the last one's path goes to last (if not NULL). */
static int count_files(const char *dir, const char *suffix, char *last, size_t last_cap) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    struct dirent *e;
    size_t ns = strlen(suffix);
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl < ns || strcmp(e->d_name + nl - ns, suffix) != 0) continue;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        n++;
        if (last) snprintf(last, last_cap, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return n;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int is_elf(const void *p, size_t n) { return n > 4 && memcmp(p, "\x7f" "ELF", 4) == 0; }

static int stats_eq(const mpcc_jit *j, int compiles, int hits, int rejected, int writes) {
    mpcc_jit_stats s;
    mpcc_jit_get_stats(j, &s);
    return s.compiles == compiles && s.cache_hits == hits && s.cache_rejected == rejected && s.cache_writes == writes;
}

static void stats_str(const mpcc_jit *j, char *buf, size_t cap) {
    mpcc_jit_stats s;
    mpcc_jit_get_stats(j, &s);
    snprintf(buf, cap, "compiles %d, hits %d, rejected %d, writes %d, write failures %d", s.compiles, s.cache_hits,
             s.cache_rejected, s.cache_writes, s.cache_write_failures);
}

/* ---- compile and cache ---- */

static void test_compile_and_cache(void) {
    char *dir = make_tmp();
    if (!dir) {
        check(0, "cache: mkdtemp", "");
        return;
    }
    char detail[600];
    mpcc_jit *j = NULL;
    int rc = mpcc_jit_open_compiler(&j, dir);
    check(rc == MPCC_JIT_OK, "open_compiler with a cache directory", mpcc_jit_error(j));
    if (rc != MPCC_JIT_OK) goto out;
    int major = -1, minor = -1;
    rc = mpcc_jit_nvrtc_version(j, &major, &minor);
    snprintf(detail, sizeof detail, "NVRTC %d.%d", major, minor);
    check(rc == MPCC_JIT_OK && major >= 11, "nvrtc_version", detail);

    void *c80 = NULL, *c90 = NULL, *again = NULL;
    size_t n80 = 0, n90 = 0, nagain = 0;
    int rc80 = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &c80, &n80);
    int rc90 = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 90, NULL, 0, &c90, &n90);
    snprintf(detail, sizeof detail, "sm_80 %zu bytes, sm_90 %zu bytes; %s", n80, n90, mpcc_jit_error(j));
    check(rc80 == MPCC_JIT_OK && rc90 == MPCC_JIT_OK && is_elf(c80, n80) && is_elf(c90, n90),
          "compile saxpy for sm_80 and sm_90: ELF cubins", detail);
    stats_str(j, detail, sizeof detail);
    check(stats_eq(j, 2, 0, 0, 2) && count_files(dir, ".cubin", NULL, 0) == 2,
          "two compiles, two cache entries", detail);

    rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &again, &nagain);
    stats_str(j, detail, sizeof detail);
    check(rc == MPCC_JIT_OK && nagain == n80 && again && memcmp(again, c80, n80) == 0 && stats_eq(j, 2, 1, 0, 2),
          "same source and arch again: a cache hit, the same bytes, no compile", detail);
    mpcc_jit_free_image(again);
    again = NULL;

    /* A second handle on the same directory (a later run of the app) hits too. */
    mpcc_jit *j2 = NULL;
    if (mpcc_jit_open_compiler(&j2, dir) == MPCC_JIT_OK) {
        rc = mpcc_jit_compile(j2, SAXPY, "saxpy.cu", 90, NULL, 0, &again, &nagain);
        stats_str(j2, detail, sizeof detail);
        check(rc == MPCC_JIT_OK && nagain == n90 && memcmp(again, c90, n90) == 0 && stats_eq(j2, 0, 1, 0, 0),
              "a new handle on the same directory: a cache hit", detail);
        mpcc_jit_free_image(again);
        again = NULL;
    } else {
        check(0, "a new handle on the same directory", mpcc_jit_error(j2));
    }
    mpcc_jit_close(j2);

    /* Each part of the key gives a new entry. */
    static const char SAXPY2[] = "// another revision\n"
                                 "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, int n) {\n"
                                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "    if (i < n) y[i] = a * x[i] + y[i];\n"
                                 "}\n";
    const char *opts1[] = {"-DMPCC_TEST=1"};
    const char *opts2[] = {"-DMPCC_TEST=1", "--use_fast_math"};
    int ok = 1, files[4];
    ok &= mpcc_jit_compile(j, SAXPY2, "saxpy.cu", 80, NULL, 0, &again, &nagain) == MPCC_JIT_OK;
    mpcc_jit_free_image(again);
    files[0] = count_files(dir, ".cubin", NULL, 0);
    ok &= mpcc_jit_compile(j, SAXPY, "saxpy.cu", 86, NULL, 0, &again, &nagain) == MPCC_JIT_OK;
    mpcc_jit_free_image(again);
    files[1] = count_files(dir, ".cubin", NULL, 0);
    ok &= mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, opts1, 1, &again, &nagain) == MPCC_JIT_OK;
    mpcc_jit_free_image(again);
    files[2] = count_files(dir, ".cubin", NULL, 0);
    ok &= mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, opts2, 2, &again, &nagain) == MPCC_JIT_OK;
    mpcc_jit_free_image(again);
    again = NULL;
    files[3] = count_files(dir, ".cubin", NULL, 0);
    snprintf(detail, sizeof detail, "entries after new source %d, new arch %d, an option %d, two options %d; %s",
             files[0], files[1], files[2], files[3], mpcc_jit_error(j));
    check(ok && files[0] == 3 && files[1] == 4 && files[2] == 5 && files[3] == 6,
          "different source / arch / options: a different cache file each", detail);
    stats_str(j, detail, sizeof detail);
    check(stats_eq(j, 6, 1, 0, 6), "four more compiles, four more writes", detail);
    check(count_files(dir, ".tmp", NULL, 0) == 0, "no temporary files left after the writes", "");

    /* Mode of a cache entry: private to the user. */
    char path[1024];
    count_files(dir, ".cubin", path, sizeof path);
    struct stat st;
    check(stat(path, &st) == 0 && (st.st_mode & 077) == 0, "cache entries are mode 0600", path);

    mpcc_jit_free_image(c80);
    mpcc_jit_free_image(c90);
out:
    mpcc_jit_close(j);
    remove_tree(dir);
    free(dir);
}

/* ---- damaged entries ---- */

typedef enum { FLIP_PAYLOAD, TRUNCATE, BAD_MAGIC, EMPTY, BAD_KEY, BAD_SIZE, BAD_HASH, EXTRA_BYTES } Damage;
static const char *const DAMAGE_NAMES[] = {"a flipped payload byte", "a truncated file", "a wrong magic",
                                           "a zero-length file", "a wrong key",  "a wrong size field",
                                           "a wrong payload hash", "trailing bytes"};

static int damage(const char *path, Damage how) {
    long n = file_size(path);
    if (n < 48) return -1;
    FILE *f = fopen(path, how == EXTRA_BYTES ? "ab" : "r+b");
    if (!f) return -1;
    long at = how == FLIP_PAYLOAD ? 40 + (n - 40) / 2 : how == BAD_MAGIC ? 3 : how == BAD_KEY ? 8 + 7
            : how == BAD_SIZE ? 24 : 32;
    int rc = 0;
    if (how == TRUNCATE || how == EMPTY) {
        fclose(f);
        return truncate(path, how == EMPTY ? 0 : n - 9);
    }
    if (how == EXTRA_BYTES) {
        rc = fputs("junk", f) < 0 ? -1 : 0;
    } else {
        int c;
        if (fseek(f, at, SEEK_SET) != 0 || (c = fgetc(f)) == EOF || fseek(f, at, SEEK_SET) != 0 ||
            fputc(c ^ 0x10, f) == EOF)
            rc = -1;
    }
    if (fclose(f) != 0) rc = -1;
    return rc;
}

static void test_damaged_entries(void) {
    char *dir = make_tmp();
    if (!dir) {
        check(0, "damage: mkdtemp", "");
        return;
    }
    char detail[600], path[1024];
    mpcc_jit *j = NULL;
    void *good = NULL, *img = NULL;
    size_t ngood = 0, nimg = 0;
    if (mpcc_jit_open_compiler(&j, dir) != MPCC_JIT_OK ||
        mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &good, &ngood) != MPCC_JIT_OK ||
        count_files(dir, ".cubin", path, sizeof path) != 1) {
        check(0, "damage: the first compile", mpcc_jit_error(j));
        goto out;
    }
    long good_size = file_size(path);
    check(good_size == 40 + (long)ngood, "an entry is a 40-byte header and the cubin", "");
    for (int d = 0; d <= EXTRA_BYTES; d++) {
        mpcc_jit_stats before, after, later;
        mpcc_jit_get_stats(j, &before);
        if (damage(path, (Damage)d) != 0) {
            check(0, DAMAGE_NAMES[d], "could not damage the file");
            continue;
        }
        int rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &nimg);
        mpcc_jit_get_stats(j, &after);
        int same = rc == MPCC_JIT_OK && nimg == ngood && memcmp(img, good, ngood) == 0;
        mpcc_jit_free_image(img);
        img = NULL;
        /* The rewritten entry is whole again: the next compile is a hit. */
        rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &nimg);
        mpcc_jit_get_stats(j, &later);
        same &= rc == MPCC_JIT_OK && nimg == ngood && memcmp(img, good, ngood) == 0;
        mpcc_jit_free_image(img);
        img = NULL;
        char what[160];
        snprintf(what, sizeof what, "cache entry with %s: rejected, recompiled, rewritten", DAMAGE_NAMES[d]);
        snprintf(detail, sizeof detail, "rejected +%d, compiles +%d, writes +%d, then hits +%d; file %ld bytes",
                 after.cache_rejected - before.cache_rejected, after.compiles - before.compiles,
                 after.cache_writes - before.cache_writes, later.cache_hits - after.cache_hits, file_size(path));
        check(same && after.cache_rejected == before.cache_rejected + 1 && after.compiles == before.compiles + 1 &&
                  after.cache_writes == before.cache_writes + 1 && after.cache_hits == before.cache_hits &&
                  later.cache_hits == after.cache_hits + 1 && file_size(path) == good_size,
              what, detail);
    }
    check(count_files(dir, ".tmp", NULL, 0) == 0 && count_files(dir, ".cubin", NULL, 0) == 1,
          "damage: one entry, no temporary files left", "");
out:
    mpcc_jit_free_image(good);
    mpcc_jit_close(j);
    remove_tree(dir);
    free(dir);
}

/* ---- the device prelude, pasted in front of a kernel (how mpcc emits JIT source) ---- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

static void test_prelude(void) {
    /* Run from the repository root (make, pytest); MPCC_ROOT overrides. */
    char path[1024];
    const char *root = getenv("MPCC_ROOT");
    snprintf(path, sizeof path, "%s/runtime/cuda/mpcc_cuda.cuh", root && root[0] ? root : ".");
    char *prelude = read_text(path);
    if (!prelude) {
        skip("mpcc_cuda.cuh through NVRTC", "runtime/cuda/mpcc_cuda.cuh not found (run from the repository root)");
        return;
    }
    static const char KERNEL[] = "\nextern \"C\" __global__ void row_sum(const float *x, float *y, int n) {\n"
                                 "    float v = 0.0f;\n"
                                 "    for (int i = threadIdx.x; i < n; i += 32) v += x[blockIdx.x * n + i];\n"
                                 "    v = mpcc_warp_sum(v);\n"
                                 "    if (threadIdx.x == 0) y[blockIdx.x] = v;\n"
                                 "}\n";
    size_t np = strlen(prelude);
    char *src = malloc(np + sizeof KERNEL);
    mpcc_jit *j = NULL;
    if (src && mpcc_jit_open_compiler(&j, "") == MPCC_JIT_OK) {
        memcpy(src, prelude, np);
        memcpy(src + np, KERNEL, sizeof KERNEL);
        for (int arch = 80; arch <= 90; arch += 10) {
            void *img = NULL;
            size_t n = 0;
            int rc = mpcc_jit_compile(j, src, "row_sum.cu", arch, NULL, 0, &img, &n);
            char what[120], detail[1200];
            snprintf(what, sizeof what, "mpcc_cuda.cuh + a kernel compiles through the JIT for sm_%d", arch);
            snprintf(detail, sizeof detail, "%zu bytes; %.1000s", n, mpcc_jit_error(j));
            check(rc == MPCC_JIT_OK && is_elf(img, n), what, detail);
            mpcc_jit_free_image(img);
        }
    } else {
        check(0, "mpcc_cuda.cuh through NVRTC: setup", mpcc_jit_error(j));
    }
    mpcc_jit_close(j);
    free(src);
    free(prelude);
}

/* ---- errors ---- */

static int printable(const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!(c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))) return 0;
    }
    return 1;
}

static void test_errors(void) {
    char *dir = make_tmp();
    if (!dir) {
        check(0, "errors: mkdtemp", "");
        return;
    }
    mpcc_jit *j = NULL;
    void *img = (void *)&img;
    size_t n = 1;
    char detail[800];
    if (mpcc_jit_open_compiler(&j, dir) != MPCC_JIT_OK) {
        check(0, "errors: open_compiler", mpcc_jit_error(j));
        goto out;
    }
    static const char BAD[] = "extern \"C\" __global__ void broken(float *y) {\n"
                              "    y[0] = undeclared_thing + 1.0f\n"
                              "}\n";
    int rc = mpcc_jit_compile(j, BAD, "broken.cu", 80, NULL, 0, &img, &n);
    const char *msg = mpcc_jit_error(j);
    snprintf(detail, sizeof detail, "rc %d: %.600s", rc, msg);
    check(rc == MPCC_JIT_ECOMPILE && img == NULL && n == 0 && strstr(msg, "error") && strstr(msg, "broken.cu") &&
              strstr(msg, "undeclared_thing") && printable(msg),
          "a syntax error: ECOMPILE, the NVRTC log in the message", detail);
    mpcc_jit_stats s;
    mpcc_jit_get_stats(j, &s);
    check(s.cache_writes == 0 && count_files(dir, ".cubin", NULL, 0) == 0 && count_files(dir, ".tmp", NULL, 0) == 0,
          "a failed compile writes no cache entry", "");

    /* A huge log is cut to about 4 KiB and stays printable. */
    char *big = malloc(64 * 1024);
    if (big) {
        size_t at = 0;
        for (int i = 0; i < 400; i++)
            at += (size_t)snprintf(big + at, 64 * 1024 - at, "__global__ void k%d() { int x = nope%d; }\n", i, i);
        rc = mpcc_jit_compile(j, big, "big.cu", 80, NULL, 0, &img, &n);
        msg = mpcc_jit_error(j);
        snprintf(detail, sizeof detail, "rc %d, message %zu bytes", rc, strlen(msg));
        check(rc == MPCC_JIT_ECOMPILE && strlen(msg) < 6000 && strlen(msg) > 1000 && printable(msg),
              "a long NVRTC log is cut to about 4 KiB", detail);
        free(big);
    }

    rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 0, NULL, 0, &img, &n);
    check(rc == MPCC_JIT_EINVAL && strstr(mpcc_jit_error(j), "arch 0"), "arch 0 without a device: EINVAL",
          mpcc_jit_error(j));
    rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 2, &img, &n);
    check(rc == MPCC_JIT_EINVAL, "options NULL with n_options 2: EINVAL", mpcc_jit_error(j));
    mpcc_jit_module *m = (mpcc_jit_module *)&m;
    rc = mpcc_jit_load(j, SAXPY, "saxpy.cu", NULL, 0, &m);
    check(rc == MPCC_JIT_ENOTDEVICE && m == NULL, "load on a compiler-only handle: ENOTDEVICE", mpcc_jit_error(j));
    rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &n);
    check(rc == MPCC_JIT_OK && mpcc_jit_error(j)[0] == '\0', "a success after failures clears the message", "");
    mpcc_jit_free_image(img);
    check(mpcc_jit_error(NULL)[0] != '\0' && mpcc_jit_nvrtc_version(NULL, NULL, NULL) == MPCC_JIT_EINVAL,
          "NULL handle: a message, EINVAL", "");
out:
    mpcc_jit_close(j);
    remove_tree(dir);
    free(dir);
}

/* ---- where the cache goes ---- */

static void test_cache_dirs(void) {
    char *dir = make_tmp();
    if (!dir) {
        check(0, "cache dirs: mkdtemp", "");
        return;
    }
    char p[1024], detail[800];
    void *img = NULL;
    size_t n = 0;
    mpcc_jit *j = NULL;

    /* "" disables the cache. */
    int rc = mpcc_jit_open_compiler(&j, "");
    for (int i = 0; i < 2 && rc == MPCC_JIT_OK; i++) {
        rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &n);
        mpcc_jit_free_image(img);
        img = NULL;
    }
    stats_str(j, detail, sizeof detail);
    check(rc == MPCC_JIT_OK && stats_eq(j, 2, 0, 0, 0), "cache_dir \"\": no cache, both compiles run", detail);
    mpcc_jit_close(j);

    /* A directory that cannot be made (a regular file is in the way): still compiles. */
    snprintf(p, sizeof p, "%s/afile", dir);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
    snprintf(p, sizeof p, "%s/afile/cache", dir);
    rc = mpcc_jit_open_compiler(&j, p);
    if (rc == MPCC_JIT_OK) rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &n);
    mpcc_jit_free_image(img);
    img = NULL;
    mpcc_jit_stats s;
    mpcc_jit_get_stats(j, &s);
    stats_str(j, detail, sizeof detail);
    check(rc == MPCC_JIT_OK && s.compiles == 1 && s.cache_writes == 0 && s.cache_write_failures == 1,
          "an unusable cache directory is not an error", detail);
    mpcc_jit_close(j);

    /* NULL: $MPCC_JIT_CACHE, then $XDG_CACHE_HOME/mpcc (created, mode 0700, parents too), then $HOME/.cache/mpcc. */
    char *old_env = getenv("MPCC_JIT_CACHE"), *old_xdg = getenv("XDG_CACHE_HOME"), *old_home = getenv("HOME");
    old_env = old_env ? strdup(old_env) : NULL;
    old_xdg = old_xdg ? strdup(old_xdg) : NULL;
    old_home = old_home ? strdup(old_home) : NULL;
    static const char *const where[] = {"env/jit", "xdg/deep/mpcc", "home/.cache/mpcc"};
    for (int k = 0; k < 3; k++) {
        unsetenv("MPCC_JIT_CACHE");
        unsetenv("XDG_CACHE_HOME");
        if (k == 0) {
            snprintf(p, sizeof p, "%s/env/jit", dir);
            setenv("MPCC_JIT_CACHE", p, 1);
        } else if (k == 1) {
            snprintf(p, sizeof p, "%s/xdg/deep", dir);
            setenv("XDG_CACHE_HOME", p, 1);
        } else {
            snprintf(p, sizeof p, "%s/home", dir);
            setenv("HOME", p, 1);
        }
        rc = mpcc_jit_open_compiler(&j, NULL);
        if (rc == MPCC_JIT_OK) rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &n);
        mpcc_jit_free_image(img);
        img = NULL;
        mpcc_jit_close(j);
        snprintf(p, sizeof p, "%s/%s", dir, where[k]);
        struct stat st;
        int made = stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700;
        char what[200];
        snprintf(what, sizeof what, "cache_dir NULL: the entry goes to %s (mode 0700)", where[k]);
        check(rc == MPCC_JIT_OK && made && count_files(p, ".cubin", NULL, 0) == 1, what, "");
    }
    /* MPCC_JIT_CACHE set but empty: no cache. */
    setenv("MPCC_JIT_CACHE", "", 1);
    rc = mpcc_jit_open_compiler(&j, NULL);
    if (rc == MPCC_JIT_OK) rc = mpcc_jit_compile(j, SAXPY, "saxpy.cu", 80, NULL, 0, &img, &n);
    mpcc_jit_free_image(img);
    img = NULL;
    mpcc_jit_get_stats(j, &s);
    check(rc == MPCC_JIT_OK && s.cache_writes == 0 && s.cache_write_failures == 0, "MPCC_JIT_CACHE=\"\": no cache",
          "");
    mpcc_jit_close(j);
    unsetenv("MPCC_JIT_CACHE");
    if (old_env) setenv("MPCC_JIT_CACHE", old_env, 1);
    if (old_xdg) setenv("XDG_CACHE_HOME", old_xdg, 1);
    if (old_home) setenv("HOME", old_home, 1);
    else unsetenv("HOME");
    free(old_env);
    free(old_xdg);
    free(old_home);
    remove_tree(dir);
    free(dir);
}

/* ---- libraries and the device ---- */

typedef int (*mem_alloc_fn)(unsigned long long *, size_t);
typedef int (*mem_free_fn)(unsigned long long);
typedef int (*htod_fn)(unsigned long long, const void *, size_t);
typedef int (*dtoh_fn)(void *, unsigned long long, size_t);
typedef int (*sync_fn)(void);

static void (*sym_fn(void *lib, const char *name))(void) {
    void *p = dlsym(lib, name);
    void (*f)(void) = NULL;
    if (p) memcpy(&f, &p, sizeof f);
    return f;
}

/* With a GPU: load saxpy, launch it on device memory, check y. */
static void test_on_device(mpcc_jit *j) {
    char detail[800];
    mpcc_jit_module *m = NULL;
    mpcc_jit_fn *f = NULL, *f2 = NULL, *none = NULL;
    int rc = mpcc_jit_load(j, SAXPY, "saxpy.cu", NULL, 0, &m);
    check(rc == MPCC_JIT_OK, "device: load saxpy", mpcc_jit_error(j));
    if (rc != MPCC_JIT_OK) return;
    rc = mpcc_jit_function(m, "saxpy", &f);
    check(rc == MPCC_JIT_OK && f && mpcc_jit_function(m, "saxpy", &f2) == MPCC_JIT_OK && f2 == f,
          "device: function saxpy (the same handle twice)", mpcc_jit_error(j));
    rc = mpcc_jit_function(m, "no_such_kernel", &none);
    check(rc == MPCC_JIT_ENOTFOUND && none == NULL && strstr(mpcc_jit_error(j), "no_such_kernel"),
          "device: a missing kernel is ENOTFOUND", mpcc_jit_error(j));

    const char *libname = getenv("MPCC_CUDA_LIB") ? getenv("MPCC_CUDA_LIB") : "libcuda.so.1";
    void *lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
    mem_alloc_fn alloc = NULL;
    mem_free_fn mfree = NULL;
    htod_fn htod = NULL;
    dtoh_fn dtoh = NULL;
    sync_fn sync = NULL;
    if (lib) {
        void (*g)(void);
        if ((g = sym_fn(lib, "cuMemAlloc_v2"))) alloc = (mem_alloc_fn)g;
        if ((g = sym_fn(lib, "cuMemFree_v2"))) mfree = (mem_free_fn)g;
        if ((g = sym_fn(lib, "cuMemcpyHtoD_v2"))) htod = (htod_fn)g;
        if ((g = sym_fn(lib, "cuMemcpyDtoH_v2"))) dtoh = (dtoh_fn)g;
        if ((g = sym_fn(lib, "cuCtxSynchronize"))) sync = (sync_fn)g;
    }
    if (f && alloc && mfree && htod && dtoh && sync) {
        enum { N = 1000 };
        static float x[N], y[N], out[N];
        for (int i = 0; i < N; i++) {
            x[i] = (float)i;
            y[i] = 1.0f;
        }
        unsigned long long dx = 0, dy = 0;
        int ok = alloc(&dx, sizeof x) == 0 && alloc(&dy, sizeof y) == 0 && htod(dx, x, sizeof x) == 0 &&
                 htod(dy, y, sizeof y) == 0;
        float a = 2.0f;
        int nn = N;
        void *args[] = {&a, &dx, &dy, &nn};
        rc = ok ? mpcc_jit_launch(j, f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args) : -100;
        ok = ok && rc == MPCC_JIT_OK && sync() == 0 && dtoh(out, dy, sizeof out) == 0;
        int bad = -1;
        for (int i = 0; ok && i < N && bad < 0; i++)
            if (out[i] != 2.0f * (float)i + 1.0f) bad = i;
        snprintf(detail, sizeof detail, "rc %d, first wrong element %d; %s", rc, bad, mpcc_jit_error(j));
        check(ok && bad < 0, "device: launch saxpy, y = 2x + 1", detail);
        /* More than 48 KiB of dynamic shared memory: the attribute is raised first. */
        rc = mpcc_jit_launch(j, f, 1, 1, 1, 32, 1, 1, 64 * 1024, NULL, args);
        check(rc == MPCC_JIT_OK && sync() == 0, "device: launch with 64 KiB of dynamic shared memory",
              mpcc_jit_error(j));
        if (dx) mfree(dx);
        if (dy) mfree(dy);
    } else {
        skip("device: launch saxpy", "the test could not resolve cuMemAlloc/cuMemcpy from libcuda");
    }
    if (lib) dlclose(lib);
    mpcc_jit_unload(m);
}

static void test_libraries(void) {
    char detail[1200];
    mpcc_jit *j = NULL;
    int rc = mpcc_jit_open(&j, "", 0);
    const char *msg = mpcc_jit_error(j);
    if (rc == MPCC_JIT_OK) {
        check(1, "open with a device", "");
        test_on_device(j);
    } else {
        snprintf(detail, sizeof detail, "rc %d: %s", rc, msg);
        check(j != NULL && (rc == MPCC_JIT_ENOLIB || rc == MPCC_JIT_ENODEVICE || rc == MPCC_JIT_ECUDA) &&
                  (strstr(msg, "libcuda") || strstr(msg, "no CUDA device") || strstr(msg, "cuInit")),
              "open without a usable GPU fails cleanly with a message", detail);
    }
    mpcc_jit_close(j);

    /* A libcuda that loads but has no device (the toolkit's stub library), when present. */
    static const char STUB[] = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (access(STUB, R_OK) == 0 && rc != MPCC_JIT_OK) {
        setenv("MPCC_CUDA_LIB", STUB, 1);
        j = NULL;
        rc = mpcc_jit_open(&j, "", 0);
        snprintf(detail, sizeof detail, "rc %d: %s", rc, mpcc_jit_error(j));
        check(rc != MPCC_JIT_OK && (strstr(mpcc_jit_error(j), "cuInit") || strstr(mpcc_jit_error(j), "no CUDA")),
              "MPCC_CUDA_LIB = the stub libcuda: open fails at cuInit", detail);
        mpcc_jit_close(j);
        unsetenv("MPCC_CUDA_LIB");
    }

    static const char MISSING[] = "/nonexistent/mpcc/libnvrtc-missing.so";
    setenv("MPCC_NVRTC_LIB", MISSING, 1);
    j = NULL;
    rc = mpcc_jit_open_compiler(&j, "");
    msg = mpcc_jit_error(j);
    snprintf(detail, sizeof detail, "rc %d: %s", rc, msg);
    check(rc == MPCC_JIT_ENOLIB && strstr(msg, MISSING) && strstr(msg, "MPCC_NVRTC_LIB") &&
              strstr(msg, "cannot load"),
          "MPCC_NVRTC_LIB naming a missing file: ENOLIB naming it", detail);
    mpcc_jit_close(j);
    unsetenv("MPCC_NVRTC_LIB");
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    mpcc_jit *probe = NULL;
    int rc = mpcc_jit_open_compiler(&probe, "");
    if (rc == MPCC_JIT_ENOLIB) {
        skip("test_jit (all)", mpcc_jit_error(probe));
        mpcc_jit_close(probe);
        printf("0 passed, 0 failed, %d skipped\n", skips);
        return 0;
    }
    mpcc_jit_close(probe);
    test_compile_and_cache();
    test_damaged_entries();
    test_errors();
    test_prelude();
    test_cache_dirs();
    test_libraries();
    printf("%d passed, %d failed, %d skipped\n", passes, failures, skips);
    return failures != 0;
}
