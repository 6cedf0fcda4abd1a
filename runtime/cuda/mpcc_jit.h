/* mpcc_jit.h - run-time NVRTC JIT for mpcc-generated CUDA kernels.
 *
 * An application embeds mpcc's CUDA kernel source as a string. At first use
 * this loader compiles it with NVRTC for the GPU the application runs on
 * (a real cubin, sm_<major><minor>), keeps the cubin in an on-disk cache, and
 * loads and launches kernels through the CUDA driver API.
 *
 * The application does not link CUDA: libnvrtc and libcuda are dlopen()ed at
 * run time and nothing here includes a CUDA header. Build the loader with
 *     cc -std=c11 -c mpcc_jit.c        and link the application with -ldl.
 *
 * Libraries searched:
 *   NVRTC:  $MPCC_NVRTC_LIB if set (only that), else "libnvrtc.so",
 *           "libnvrtc.so.13", "libnvrtc.so.12", then the same names under
 *           /usr/local/cuda/lib64/.
 *   driver: $MPCC_CUDA_LIB if set (only that), else "libcuda.so.1".
 *
 * Source: the caller passes ONE self-contained source string. NVRTC is given
 * no headers, so a kernel that uses runtime/cuda/mpcc_cuda.cuh must have it
 * pasted in (mpcc's generator emits it that way) rather than #include it.
 * Kernels meant to be looked up by name should be declared extern "C".
 * Every compile uses --gpu-architecture=sm_<arch> and -std=c++17, then the
 * caller's options in order (--use_fast_math is NOT implied).
 *
 * Disk cache: one file per (format version, program name, source, arch,
 * options, NVRTC version, driver version), named <dir>/<32 hex digits>.cubin.
 * Entries are written atomically (temporary file, fsync, rename) and fully
 * verified when read (magic, key, size, payload hash); a damaged entry is
 * never used: it is counted in stats.cache_rejected, recompiled and
 * rewritten. A cache directory that cannot be created or written is not an
 * error: compiles still succeed (stats.cache_write_failures counts them).
 *
 * Errors are values: every int function returns MPCC_JIT_OK (0) or a negative
 * MPCC_JIT_E* code and leaves a message readable with mpcc_jit_error().
 *
 * Handles: mpcc_jit, mpcc_jit_module and mpcc_jit_fn are opaque and allocated
 * here. Modules belong to the mpcc_jit that loaded them, functions to their
 * module: mpcc_jit_unload frees the module's functions, mpcc_jit_close
 * unloads any module still loaded.
 *
 * Threads: not thread-safe. One mpcc_jit (and its modules and functions) must
 * be used by one thread at a time; separate mpcc_jit handles are independent
 * (no global state besides what dlopen itself keeps).
 *
 * Example:
 *
 *     static const char src[] =
 *         "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, int n) {\n"
 *         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
 *         "    if (i < n) y[i] = a * x[i] + y[i];\n"
 *         "}\n";
 *     mpcc_jit *j; mpcc_jit_module *m; mpcc_jit_fn *f;
 *     if (mpcc_jit_open(&j, NULL, 0) != MPCC_JIT_OK) {
 *         fprintf(stderr, "%s\n", mpcc_jit_error(j));
 *         mpcc_jit_close(j);
 *         return -1;
 *     }
 *     if (mpcc_jit_load(j, src, "saxpy.cu", NULL, 0, &m) ||
 *         mpcc_jit_function(m, "saxpy", &f)) { ...report mpcc_jit_error(j)... }
 *     void *args[] = {&a, &d_x, &d_y, &n};     // d_x, d_y: CUdeviceptr values
 *     mpcc_jit_launch(j, f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args);
 *     mpcc_jit_unload(m);
 *     mpcc_jit_close(j);
 */
#ifndef MPCC_JIT_H
#define MPCC_JIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MPCC_JIT_OK = 0,
    MPCC_JIT_EINVAL = -1,     /* bad argument (NULL pointer, arch 0 without a device, ...) */
    MPCC_JIT_ENOMEM = -2,     /* out of memory */
    MPCC_JIT_ENOLIB = -3,     /* libnvrtc / libcuda missing, or a symbol missing from it */
    MPCC_JIT_ECOMPILE = -4,   /* NVRTC rejected the source: the message holds its log */
    MPCC_JIT_ENVRTC = -5,     /* another NVRTC call failed */
    MPCC_JIT_ECUDA = -6,      /* a CUDA driver call failed (the message names it) */
    MPCC_JIT_ENODEVICE = -7,  /* no CUDA device, device index out of range, or a stub libcuda */
    MPCC_JIT_ENOTDEVICE = -8, /* needs a device, but the handle was opened compiler-only */
    MPCC_JIT_ENOTFOUND = -9   /* no kernel of that name in the module */
};

typedef struct mpcc_jit mpcc_jit;
typedef struct mpcc_jit_module mpcc_jit_module;
typedef struct mpcc_jit_fn mpcc_jit_fn;

typedef struct mpcc_jit_stats {
    int compiles;             /* NVRTC compilations run */
    int cache_hits;           /* images served from the disk cache */
    int cache_rejected;       /* cache files found but rejected (damaged, wrong key/size/hash) */
    int cache_writes;         /* cache entries written */
    int cache_write_failures; /* entries that could not be written (not an error) */
} mpcc_jit_stats;

/* Opens NVRTC and the CUDA driver: cuInit, device `device`, its compute
 * capability, and its primary context (retained and made current on the
 * calling thread). cache_dir: the cache directory; NULL means
 * $MPCC_JIT_CACHE (set but empty: no cache), else $XDG_CACHE_HOME/mpcc, else
 * $HOME/.cache/mpcc (no HOME: no cache); "" disables the cache. A missing
 * directory is created with mode 0700 (parents too).
 * *j is set to a handle even when the call fails (so that the message can be
 * read with mpcc_jit_error); the caller always calls mpcc_jit_close(*j).
 * Only when the handle itself cannot be allocated is *j NULL (ENOMEM). */
int mpcc_jit_open(mpcc_jit **j, const char *cache_dir, int device);

/* As mpcc_jit_open, NVRTC only: compile (mpcc_jit_compile with an explicit
 * arch) without a GPU or libcuda, e.g. for tests or offline cache warming.
 * The driver version in the cache key is 0. */
int mpcc_jit_open_compiler(mpcc_jit **j, const char *cache_dir);

/* Compiles `source` (program name `name`, NULL: "mpcc_jit.cu") for sm_<arch>
 * (80, 86, 90, ...; 0: the open device's) with the caller's n_options extra
 * NVRTC options, through the disk cache. On success *cubin and *size hold a new
 * copy of the cubin, freed by the caller with mpcc_jit_free_image. On failure
 * *cubin is NULL and *size 0; a compile error (ECOMPILE) carries the start of
 * the NVRTC log (about 4 KiB, non-printable bytes escaped) in the message. */
int mpcc_jit_compile(mpcc_jit *j, const char *source, const char *name, int arch, const char *const *options,
                     int n_options, void **cubin, size_t *size);

/* Frees an image from mpcc_jit_compile (NULL is fine). */
void mpcc_jit_free_image(void *cubin);

/* Compiles (through the cache) for the open device's arch and loads the
 * image with cuModuleLoadData into the primary context. If a cached image
 * does not load, it is recompiled once, bypassing the cache, and retried.
 * Needs a handle from mpcc_jit_open (ENOTDEVICE otherwise). */
int mpcc_jit_load(mpcc_jit *j, const char *source, const char *name, const char *const *options, int n_options,
                  mpcc_jit_module **m);

/* Looks up kernel `kernel_name` (its extern "C" name, or the mangled one) in
 * module m. *f stays valid until the module is unloaded; looking the same
 * name up twice gives the same handle. Errors go to the module's mpcc_jit. */
int mpcc_jit_function(mpcc_jit_module *m, const char *kernel_name, mpcc_jit_fn **f);

/* cuLaunchKernel(f, grid, block, smem_bytes, stream, args): args is the usual
 * array of pointers to each kernel argument; stream is a CUstream (NULL: the
 * legacy default stream). When smem_bytes is over 48 KiB the function's
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is raised first (once per
 * new maximum). The launch is asynchronous; launch errors are reported,
 * errors during execution surface at the caller's next synchronization. */
int mpcc_jit_launch(mpcc_jit *j, mpcc_jit_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                    unsigned bz, unsigned smem_bytes, void *stream, void **args);

/* mpcc_jit_load with the source given as n_lines strings, concatenated (generated code holds
 * its kernels as an array of lines: C99 string literals are limited to 4095 bytes). */
int mpcc_jit_load_lines(mpcc_jit *j, const char *const *lines, int n_lines, const char *name,
                        const char *const *options, int n_options, mpcc_jit_module **m);

/* Device memory for host code that runs through the JIT (mpcc --target cuda --jit), in the
 * handle's context: cuMemAlloc (0 bytes allocates 1), cuMemFree (NULL and errors ignored),
 * cuMemcpy{HtoD,DtoH,DtoD}Async on `stream` (a CUstream; NULL: the legacy default stream; the
 * host side of a copy must stay valid until the stream reaches it), cuStreamSynchronize. */
enum { MPCC_JIT_H2D = 1, MPCC_JIT_D2H = 2, MPCC_JIT_D2D = 3 };
int mpcc_jit_alloc(mpcc_jit *j, size_t bytes, void **dptr);
void mpcc_jit_free(mpcc_jit *j, void *dptr);
int mpcc_jit_copy(mpcc_jit *j, void *dst, const void *src, size_t bytes, int kind, void *stream);
int mpcc_jit_sync(mpcc_jit *j, void *stream);

/* The value of a module's `extern "C" __device__ const int NAME` (generated kernels publish
 * their launch configuration this way: threads, shared memory bytes, rows per block). */
int mpcc_jit_global_i32(mpcc_jit_module *m, const char *name, int *value);

/* Unloads the module and frees its functions (NULL is fine). */
void mpcc_jit_unload(mpcc_jit_module *m);

/* Unloads remaining modules, releases the primary context, closes the
 * libraries and frees the handle (NULL is fine). The libraries are opened
 * with RTLD_NODELETE: dlclose balances the dlopen but they stay mapped, as
 * libnvrtc's embedded C++ runtime would leak its load-time allocations on
 * every unload and libcuda does not support unloading. */
void mpcc_jit_close(mpcc_jit *j);

/* The message of the last failure on j ("" if none; a fixed message for a
 * NULL handle). Valid until the next call on j. */
const char *mpcc_jit_error(const mpcc_jit *j);

/* Counters since open (all zero for a NULL handle). */
void mpcc_jit_get_stats(const mpcc_jit *j, mpcc_jit_stats *s);

/* The loaded NVRTC's version (nvrtcVersion). */
int mpcc_jit_nvrtc_version(const mpcc_jit *j, int *major, int *minor);

#ifdef __cplusplus
}
#endif
#endif
