/* mpcc_jit.c - run-time NVRTC JIT with a disk cache (see mpcc_jit.h).
 *
 * No CUDA header is included: the few NVRTC and driver types and entry points
 * used are declared here and resolved with dlsym. Links with -ldl only.
 */
#define _POSIX_C_SOURCE 200809L

#include "mpcc_jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- the slice of the NVRTC and driver APIs used here ---- */

typedef int nvrtc_result; /* nvrtcResult: 0 = NVRTC_SUCCESS */
typedef void *nvrtc_program;
typedef int cu_result; /* CUresult: 0 = CUDA_SUCCESS */
typedef int cu_device;
typedef void *cu_context;
typedef void *cu_module;
typedef void *cu_function;
typedef void *cu_stream;

enum {
    CU_ERROR_STUB_LIBRARY = 34,
    CU_ERROR_NO_DEVICE = 100,
    CU_ERROR_NOT_FOUND = 500,
    CU_ATTR_CC_MAJOR = 75, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    CU_ATTR_CC_MINOR = 76,
    CU_FUNC_MAX_DYN_SMEM = 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

typedef void (*generic_fn)(void);

typedef struct nvrtc_api {
    nvrtc_result (*version)(int *, int *);
    const char *(*error_string)(nvrtc_result);
    nvrtc_result (*create)(nvrtc_program *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtc_result (*compile)(nvrtc_program, int, const char *const *);
    nvrtc_result (*log_size)(nvrtc_program, size_t *);
    nvrtc_result (*log)(nvrtc_program, char *);
    nvrtc_result (*cubin_size)(nvrtc_program, size_t *);
    nvrtc_result (*cubin)(nvrtc_program, char *);
    nvrtc_result (*destroy)(nvrtc_program *);
} nvrtc_api;

typedef struct cu_api {
    cu_result (*init)(unsigned);
    cu_result (*driver_version)(int *);
    cu_result (*error_name)(cu_result, const char **);
    cu_result (*error_string)(cu_result, const char **);
    cu_result (*device_count)(int *);
    cu_result (*device_get)(cu_device *, int);
    cu_result (*device_attribute)(int *, int, cu_device);
    cu_result (*primary_retain)(cu_context *, cu_device);
    cu_result (*primary_release)(cu_device);
    cu_result (*ctx_set_current)(cu_context);
    cu_result (*module_load_data)(cu_module *, const void *);
    cu_result (*module_unload)(cu_module);
    cu_result (*module_get_function)(cu_function *, cu_module, const char *);
    cu_result (*func_set_attribute)(cu_function, int, int);
    cu_result (*launch)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, cu_stream,
                        void **, void **);
    /* memory, for generated host code that runs through the JIT (mpcc --target cuda --jit) */
    cu_result (*mem_alloc)(unsigned long long *, size_t);
    cu_result (*mem_free)(unsigned long long);
    cu_result (*copy_htod)(unsigned long long, const void *, size_t, cu_stream);
    cu_result (*copy_dtoh)(void *, unsigned long long, size_t, cu_stream);
    cu_result (*copy_dtod)(unsigned long long, unsigned long long, size_t, cu_stream);
    cu_result (*module_get_global)(unsigned long long *, size_t *, cu_module, const char *);
    cu_result (*stream_sync)(cu_stream);
} cu_api;

/* ---- handles ---- */

#define ERR_CAP 6144
#define LOG_CAP 4096 /* bytes of NVRTC log quoted in a compile error */
#define CACHE_HEADER 40u
#define CACHE_MAX_PAYLOAD ((uint64_t)1 << 31)
static const char CACHE_MAGIC[8] = {'m', 'p', 'c', 'c', 'j', 'i', 't', '1'};
static const char FORMAT_VERSION[] = "mpcc-jit-cache-format-1";

struct mpcc_jit_fn {
    struct mpcc_jit_fn *next;
    cu_function fn;
    unsigned smem_max; /* dynamic shared memory limit set on fn (0: default 48 KiB) */
    char name[];
};

struct mpcc_jit_module {
    struct mpcc_jit_module *next;
    mpcc_jit *j;
    cu_module mod;
    mpcc_jit_fn *fns;
};

struct mpcc_jit {
    void *nvrtc_lib, *cuda_lib;
    nvrtc_api nv;
    cu_api cu;
    int nvrtc_major, nvrtc_minor;
    int has_device; /* driver opened, context retained */
    int driver_version;
    cu_device dev;
    cu_context ctx;
    int arch; /* 10 * major + minor of the open device */
    char *cache_dir; /* NULL: no cache */
    unsigned tmp_counter;
    mpcc_jit_module *modules;
    mpcc_jit_stats stats;
    char err[ERR_CAP];
};

static int fail(mpcc_jit *j, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof j->err, fmt, ap);
    va_end(ap);
    return code;
}

/* dlsym's object pointer to a function pointer without a pedantic-unclean cast. */
static generic_fn sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    generic_fn f = NULL;
    _Static_assert(sizeof p == sizeof f, "function and object pointers differ in size");
    if (p) memcpy(&f, &p, sizeof f);
    return f;
}

#define RESOLVE(j, lib, slot, name, libname)                                                                     \
    do {                                                                                                         \
        generic_fn g_ = sym((lib), (name));                                                                      \
        if (!g_) return fail((j), MPCC_JIT_ENOLIB, "mpcc jit: %s has no symbol %s", (libname), (name));         \
        _Static_assert(sizeof(slot) == sizeof g_, "function pointer sizes differ");                         \
        memcpy(&(slot), &g_, sizeof g_);                                                                         \
    } while (0)

/* ---- hashing: two independent 64-bit streams over the same bytes ---- */

typedef struct hash2 {
    uint64_t a, b;
} hash2;

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t mix64(uint64_t x) { /* a strong 64-bit finalizer (splitmix64's) */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static void hash_init(hash2 *h) {
    h->a = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
    h->b = 0x9e3779b97f4a7c15ull;
}

static void hash_bytes(hash2 *h, const void *data, size_t n) {
    const unsigned char *p = data;
    uint64_t a = h->a, b = h->b;
    for (size_t i = 0; i < n; i++) {
        a = (a ^ p[i]) * 0x100000001b3ull; /* FNV-1a */
        b = rotl64((b ^ p[i]) * 0xc2b2ae3d27d4eb4full, 29) + 0x165667b19e3779f9ull;
    }
    h->a = a;
    h->b = b;
}

static void hash_u64(hash2 *h, uint64_t v) {
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(v >> (8 * i));
    hash_bytes(h, le, 8);
}

/* A field: its length first, so that field boundaries are part of the key. */
static void hash_field(hash2 *h, const void *data, size_t n) {
    hash_u64(h, (uint64_t)n);
    hash_bytes(h, data, n);
}

static void hash_final(const hash2 *h, unsigned char out[16]) {
    uint64_t a = mix64(h->a), b = mix64(h->b ^ rotl64(h->a, 17));
    for (int i = 0; i < 8; i++) {
        out[i] = (unsigned char)(a >> (8 * i));
        out[8 + i] = (unsigned char)(b >> (8 * i));
    }
}

static uint64_t payload_hash(const void *data, size_t n) {
    hash2 h;
    hash_init(&h);
    h.b ^= 0x5bd1e9955bd1e995ull; /* a different stream than the key's */
    hash_u64(&h, (uint64_t)n);
    hash_bytes(&h, data, n);
    return mix64(h.b) ^ rotl64(mix64(h.a), 32);
}

static void put_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* ---- the cache directory ---- */

static char *str_dup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static char *path_join(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    char *p = malloc(na + nb + 2);
    if (!p) return NULL;
    memcpy(p, a, na);
    p[na] = '/';
    memcpy(p + na + 1, b, nb + 1);
    return p;
}

/* mkdir -p with mode 0700 for what is created; existing directories are left as they are. */
static void make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        (void)mkdir(path, 0700);
        *p = '/';
    }
    (void)mkdir(path, 0700);
}

/* Resolves and creates the cache directory; 0, or ENOMEM. j->cache_dir NULL: no cache. */
static int setup_cache(mpcc_jit *j, const char *cache_dir) {
    char *dir = NULL;
    if (cache_dir) {
        if (!cache_dir[0]) return MPCC_JIT_OK;
        dir = str_dup(cache_dir);
    } else {
        const char *env = getenv("MPCC_JIT_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (env) {
            if (!env[0]) return MPCC_JIT_OK;
            dir = str_dup(env);
        } else if (xdg && xdg[0] == '/') { /* the XDG spec ignores relative paths */
            dir = path_join(xdg, "mpcc");
        } else if (home && home[0]) {
            dir = path_join(home, ".cache/mpcc");
        } else {
            return MPCC_JIT_OK;
        }
    }
    if (!dir) return fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory");
    make_dirs(dir);
    j->cache_dir = dir;
    return MPCC_JIT_OK;
}

static void key_hex(const unsigned char key[16], char hex[33]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        hex[2 * i] = digits[key[i] >> 4];
        hex[2 * i + 1] = digits[key[i] & 15];
    }
    hex[32] = '\0';
}

static int read_all(int fd, void *buf, size_t n) {
    unsigned char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t n) {
    const unsigned char *p = buf;
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

enum { CACHE_MISS, CACHE_HIT, CACHE_BAD };

/* Reads and verifies the entry at path. CACHE_HIT: *out (malloc'd) and *n hold the payload. */
static int cache_read(const char *path, const unsigned char key[16], void **out, size_t *n) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return CACHE_MISS; /* absent (or unreadable: treated the same) */
    struct stat st;
    unsigned char hdr[CACHE_HEADER];
    void *payload = NULL;
    int verdict = CACHE_BAD;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)CACHE_HEADER) goto done;
    if (read_all(fd, hdr, CACHE_HEADER) != 0) goto done;
    if (memcmp(hdr, CACHE_MAGIC, 8) != 0 || memcmp(hdr + 8, key, 16) != 0) goto done;
    uint64_t size = get_le64(hdr + 24), want = get_le64(hdr + 32);
    if (size == 0 || size > CACHE_MAX_PAYLOAD || (uint64_t)st.st_size != CACHE_HEADER + size) goto done;
    payload = malloc((size_t)size);
    if (!payload) {
        verdict = CACHE_MISS; /* out of memory: compile instead; not the entry's fault */
        goto done;
    }
    if (read_all(fd, payload, (size_t)size) != 0 || payload_hash(payload, (size_t)size) != want) goto done;
    *out = payload;
    *n = (size_t)size;
    payload = NULL;
    verdict = CACHE_HIT;
done:
    free(payload);
    close(fd);
    return verdict;
}

/* Writes an entry atomically: <dir>/.<key>.<pid>.<counter>.tmp, fsync, rename. 0 or -1. */
static int cache_write(mpcc_jit *j, const char *hex, const unsigned char key[16], const void *data, size_t n) {
    char name[96];
    snprintf(name, sizeof name, ".%s.%ld.%u.tmp", hex, (long)getpid(), j->tmp_counter++);
    char *tmp = path_join(j->cache_dir, name);
    snprintf(name, sizeof name, "%s.cubin", hex);
    char *final = path_join(j->cache_dir, name);
    int ok = 0, fd = -1;
    if (!tmp || !final) goto done;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) goto done;
    unsigned char hdr[CACHE_HEADER];
    memcpy(hdr, CACHE_MAGIC, 8);
    memcpy(hdr + 8, key, 16);
    put_le64(hdr + 24, (uint64_t)n);
    put_le64(hdr + 32, payload_hash(data, n));
    if (write_all(fd, hdr, sizeof hdr) != 0 || write_all(fd, data, n) != 0 || fsync(fd) != 0) goto done;
    if (close(fd) != 0) {
        fd = -1;
        goto done;
    }
    fd = -1;
    if (rename(tmp, final) != 0) goto done;
    ok = 1;
    int dfd = open(j->cache_dir, O_RDONLY); /* make the rename itself durable; best effort */
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
done:
    if (fd >= 0) close(fd);
    if (!ok && tmp) (void)unlink(tmp);
    free(tmp);
    free(final);
    return ok ? 0 : -1;
}

/* ---- opening ---- */

/* The libraries are dlclose()d by mpcc_jit_close but never unmapped: libnvrtc
 * carries its own C++ runtime, whose load-time allocations (the exception
 * emergency pool, ~71 KiB) would otherwise be lost on every open/close cycle,
 * and libcuda does not support being unloaded. A later open reuses them. */
#ifdef RTLD_NODELETE
#define NODELETE RTLD_NODELETE
#else
#define NODELETE 0
#endif

static void *open_lib(const char *env_name, const char *const *names, int n_names, char *why, size_t why_cap,
                      const char **tried) {
    const char *env = getenv(env_name);
    why[0] = '\0';
    if (env && env[0]) {
        names = &env;
        n_names = 1;
    }
    for (int i = 0; i < n_names; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | NODELETE);
        if (h) return h;
        const char *e = dlerror();
        if (i == 0) { /* report the first (preferred) name's failure */
            snprintf(why, why_cap, "%s", e ? e : "unknown dlopen error");
            *tried = names[0];
        }
    }
    return NULL;
}

static int load_nvrtc(mpcc_jit *j) {
    static const char *const names[] = {"libnvrtc.so",
                                        "libnvrtc.so.13",
                                        "libnvrtc.so.12",
                                        "/usr/local/cuda/lib64/libnvrtc.so",
                                        "/usr/local/cuda/lib64/libnvrtc.so.13",
                                        "/usr/local/cuda/lib64/libnvrtc.so.12"};
    char why[1024];
    const char *tried = names[0];
    j->nvrtc_lib = open_lib("MPCC_NVRTC_LIB", names, (int)(sizeof names / sizeof names[0]), why, sizeof why, &tried);
    if (!j->nvrtc_lib)
        return fail(j, MPCC_JIT_ENOLIB,
                    "mpcc jit: cannot load %s (%s); install the CUDA toolkit's NVRTC or set MPCC_NVRTC_LIB", tried,
                    why);
    const char *lib = "libnvrtc";
    RESOLVE(j, j->nvrtc_lib, j->nv.version, "nvrtcVersion", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.error_string, "nvrtcGetErrorString", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.create, "nvrtcCreateProgram", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.compile, "nvrtcCompileProgram", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.log_size, "nvrtcGetProgramLogSize", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.log, "nvrtcGetProgramLog", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.cubin_size, "nvrtcGetCUBINSize", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.cubin, "nvrtcGetCUBIN", lib);
    RESOLVE(j, j->nvrtc_lib, j->nv.destroy, "nvrtcDestroyProgram", lib);
    nvrtc_result r = j->nv.version(&j->nvrtc_major, &j->nvrtc_minor);
    if (r != 0) return fail(j, MPCC_JIT_ENVRTC, "mpcc jit: nvrtcVersion failed (%d)", r);
    return MPCC_JIT_OK;
}

static const char *cu_error_text(const mpcc_jit *j, cu_result r) {
    /* Used when the driver cannot name its own error (the toolkit's stub libcuda cannot). */
    static const struct {
        int code;
        const char *name;
    } known[] = {{1, "CUDA_ERROR_INVALID_VALUE"},        {2, "CUDA_ERROR_OUT_OF_MEMORY"},
                 {3, "CUDA_ERROR_NOT_INITIALIZED"},      {4, "CUDA_ERROR_DEINITIALIZED"},
                 {34, "CUDA_ERROR_STUB_LIBRARY"},        {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
                 {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},  {100, "CUDA_ERROR_NO_DEVICE"},
                 {101, "CUDA_ERROR_INVALID_DEVICE"},     {200, "CUDA_ERROR_INVALID_IMAGE"},
                 {201, "CUDA_ERROR_INVALID_CONTEXT"},    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
                 {218, "CUDA_ERROR_INVALID_PTX"},        {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
                 {500, "CUDA_ERROR_NOT_FOUND"},          {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
                 {719, "CUDA_ERROR_LAUNCH_FAILED"},      {999, "CUDA_ERROR_UNKNOWN"}};
    const char *name = NULL;
    if (j->cu.error_name && j->cu.error_name(r, &name) == 0 && name) return name;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].code == r) return known[i].name;
    return "unknown CUresult";
}

static int cu_fail(mpcc_jit *j, const char *call, cu_result r) {
    const char *desc = NULL;
    if (!j->cu.error_string || j->cu.error_string(r, &desc) != 0 || !desc) desc = "";
    return fail(j, MPCC_JIT_ECUDA, "mpcc jit: %s failed: %s (%d)%s%s", call, cu_error_text(j, r), r,
                desc[0] ? ": " : "", desc);
}

static int load_driver(mpcc_jit *j, int device) {
    static const char *const names[] = {"libcuda.so.1"};
    char why[1024];
    const char *tried = names[0];
    j->cuda_lib = open_lib("MPCC_CUDA_LIB", names, 1, why, sizeof why, &tried);
    if (!j->cuda_lib)
        return fail(j, MPCC_JIT_ENOLIB,
                    "mpcc jit: cannot load %s (%s); install the NVIDIA driver or set MPCC_CUDA_LIB", tried, why);
    const char *lib = "libcuda";
    RESOLVE(j, j->cuda_lib, j->cu.error_name, "cuGetErrorName", lib);
    RESOLVE(j, j->cuda_lib, j->cu.error_string, "cuGetErrorString", lib);
    RESOLVE(j, j->cuda_lib, j->cu.init, "cuInit", lib);
    RESOLVE(j, j->cuda_lib, j->cu.driver_version, "cuDriverGetVersion", lib);
    RESOLVE(j, j->cuda_lib, j->cu.device_count, "cuDeviceGetCount", lib);
    RESOLVE(j, j->cuda_lib, j->cu.device_get, "cuDeviceGet", lib);
    RESOLVE(j, j->cuda_lib, j->cu.device_attribute, "cuDeviceGetAttribute", lib);
    RESOLVE(j, j->cuda_lib, j->cu.primary_retain, "cuDevicePrimaryCtxRetain", lib);
    if (!sym(j->cuda_lib, "cuDevicePrimaryCtxRelease_v2"))
        RESOLVE(j, j->cuda_lib, j->cu.primary_release, "cuDevicePrimaryCtxRelease", lib);
    else
        RESOLVE(j, j->cuda_lib, j->cu.primary_release, "cuDevicePrimaryCtxRelease_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.ctx_set_current, "cuCtxSetCurrent", lib);
    RESOLVE(j, j->cuda_lib, j->cu.module_load_data, "cuModuleLoadData", lib);
    RESOLVE(j, j->cuda_lib, j->cu.module_unload, "cuModuleUnload", lib);
    RESOLVE(j, j->cuda_lib, j->cu.module_get_function, "cuModuleGetFunction", lib);
    RESOLVE(j, j->cuda_lib, j->cu.func_set_attribute, "cuFuncSetAttribute", lib);
    RESOLVE(j, j->cuda_lib, j->cu.launch, "cuLaunchKernel", lib);
    RESOLVE(j, j->cuda_lib, j->cu.mem_alloc, "cuMemAlloc_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.mem_free, "cuMemFree_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.copy_htod, "cuMemcpyHtoDAsync_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.copy_dtoh, "cuMemcpyDtoHAsync_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.copy_dtod, "cuMemcpyDtoDAsync_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.module_get_global, "cuModuleGetGlobal_v2", lib);
    RESOLVE(j, j->cuda_lib, j->cu.stream_sync, "cuStreamSynchronize", lib);

    cu_result r = j->cu.init(0);
    if (r == CU_ERROR_NO_DEVICE)
        return fail(j, MPCC_JIT_ENODEVICE, "mpcc jit: no CUDA device (cuInit: %s)", cu_error_text(j, r));
    if (r == CU_ERROR_STUB_LIBRARY)
        return fail(j, MPCC_JIT_ENODEVICE,
                    "mpcc jit: no CUDA device: the libcuda loaded is the CUDA toolkit's stub, not the NVIDIA driver "
                    "(cuInit: %s)",
                    cu_error_text(j, r));
    if (r != 0) return cu_fail(j, "cuInit", r);
    if ((r = j->cu.driver_version(&j->driver_version)) != 0) return cu_fail(j, "cuDriverGetVersion", r);
    int count = 0;
    if ((r = j->cu.device_count(&count)) != 0) return cu_fail(j, "cuDeviceGetCount", r);
    if (count <= 0) return fail(j, MPCC_JIT_ENODEVICE, "mpcc jit: no CUDA device");
    if (device < 0 || device >= count)
        return fail(j, MPCC_JIT_ENODEVICE, "mpcc jit: no CUDA device %d (%d present)", device, count);
    if ((r = j->cu.device_get(&j->dev, device)) != 0) return cu_fail(j, "cuDeviceGet", r);
    int major = 0, minor = 0;
    if ((r = j->cu.device_attribute(&major, CU_ATTR_CC_MAJOR, j->dev)) != 0 ||
        (r = j->cu.device_attribute(&minor, CU_ATTR_CC_MINOR, j->dev)) != 0)
        return cu_fail(j, "cuDeviceGetAttribute(compute capability)", r);
    j->arch = major * 10 + minor;
    if ((r = j->cu.primary_retain(&j->ctx, j->dev)) != 0) return cu_fail(j, "cuDevicePrimaryCtxRetain", r);
    j->has_device = 1;
    if ((r = j->cu.ctx_set_current(j->ctx)) != 0) return cu_fail(j, "cuCtxSetCurrent", r);
    return MPCC_JIT_OK;
}

static int open_common(mpcc_jit **out, const char *cache_dir, int with_device, int device) {
    if (!out) return MPCC_JIT_EINVAL;
    mpcc_jit *j = calloc(1, sizeof *j);
    *out = j;
    if (!j) return MPCC_JIT_ENOMEM;
    int rc = load_nvrtc(j);
    if (rc == MPCC_JIT_OK && with_device) rc = load_driver(j, device);
    if (rc == MPCC_JIT_OK) rc = setup_cache(j, cache_dir);
    if (rc == MPCC_JIT_OK) j->err[0] = '\0';
    return rc;
}

int mpcc_jit_open(mpcc_jit **j, const char *cache_dir, int device) { return open_common(j, cache_dir, 1, device); }

int mpcc_jit_open_compiler(mpcc_jit **j, const char *cache_dir) { return open_common(j, cache_dir, 0, 0); }

/* ---- compiling ---- */

/* Copies at most LOG_CAP bytes of log into dst, escaping non-printable bytes (newlines and tabs kept). */
static void escape_log(char *dst, size_t cap, const char *log, size_t n) {
    size_t o = 0;
    int cut = n > LOG_CAP;
    if (cut) n = LOG_CAP;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)log[i];
        if (c == '\0') break;
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
            dst[o++] = (char)c;
        } else {
            snprintf(dst + o, cap - o, "\\x%02x", c);
            o += 4;
        }
    }
    if (cut && o + 5 < cap) {
        memcpy(dst + o, "\n...", 4);
        o += 4;
    }
    dst[o] = '\0';
}

static int nvrtc_fail(mpcc_jit *j, const char *call, nvrtc_result r) {
    const char *s = j->nv.error_string ? j->nv.error_string(r) : NULL;
    return fail(j, MPCC_JIT_ENVRTC, "mpcc jit: %s failed: %s (%d)", call, s ? s : "?", r);
}

static int nvrtc_compile(mpcc_jit *j, const char *source, const char *name, const char *const *opts, int n_opts,
                         void **cubin, size_t *size) {
    nvrtc_program prog = NULL;
    nvrtc_result r = j->nv.create(&prog, source, name, 0, NULL, NULL);
    if (r != 0) return nvrtc_fail(j, "nvrtcCreateProgram", r);
    j->stats.compiles++;
    int rc = MPCC_JIT_OK;
    nvrtc_result cr = j->nv.compile(prog, n_opts, opts);
    if (cr != 0) {
        size_t log_n = 0;
        char *log = NULL;
        if (j->nv.log_size(prog, &log_n) == 0 && log_n > 0 && (log = malloc(log_n)) != NULL &&
            j->nv.log(prog, log) != 0) {
            free(log);
            log = NULL;
        }
        const char *s = j->nv.error_string(cr);
        int at = snprintf(j->err, sizeof j->err, "mpcc jit: NVRTC could not compile %s (%s):\n", name, s ? s : "?");
        if (at > 0 && (size_t)at < sizeof j->err)
            escape_log(j->err + at, sizeof j->err - (size_t)at, log ? log : "(no log)", log ? log_n : 8);
        free(log);
        rc = MPCC_JIT_ECOMPILE;
        goto done;
    }
    size_t n = 0;
    if ((r = j->nv.cubin_size(prog, &n)) != 0) {
        rc = nvrtc_fail(j, "nvrtcGetCUBINSize", r);
        goto done;
    }
    if (n == 0) {
        rc = fail(j, MPCC_JIT_ENVRTC, "mpcc jit: NVRTC produced an empty cubin for %s", name);
        goto done;
    }
    void *img = malloc(n);
    if (!img) {
        rc = fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory (%zu-byte cubin)", n);
        goto done;
    }
    if ((r = j->nv.cubin(prog, img)) != 0) {
        free(img);
        rc = nvrtc_fail(j, "nvrtcGetCUBIN", r);
        goto done;
    }
    *cubin = img;
    *size = n;
done:
    j->nv.destroy(&prog);
    return rc;
}

/* The full compile: cache lookup (unless skip_read), NVRTC, cache write. */
static int compile_cached(mpcc_jit *j, const char *source, const char *name, int arch, const char *const *options,
                          int n_options, int skip_read, void **cubin, size_t *size) {
    if (!j) return MPCC_JIT_EINVAL;
    if (!cubin || !size) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: compile: cubin and size must not be NULL");
    *cubin = NULL;
    *size = 0;
    if (!source) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: compile: source is NULL");
    if (n_options < 0 || (n_options > 0 && !options))
        return fail(j, MPCC_JIT_EINVAL, "mpcc jit: compile: bad option list (%d options)", n_options);
    for (int i = 0; i < n_options; i++)
        if (!options[i]) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: compile: option %d is NULL", i);
    if (!name) name = "mpcc_jit.cu";
    if (arch == 0) {
        if (!j->has_device)
            return fail(j, MPCC_JIT_EINVAL, "mpcc jit: compile: arch 0 (the device's) needs mpcc_jit_open");
        arch = j->arch;
    }
    if (arch < 10 || arch > 9999) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: compile: bad arch %d", arch);

    char arch_opt[48];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d", arch);
    int n_opts = 2 + n_options;
    const char **opts = malloc(sizeof *opts * (size_t)n_opts);
    if (!opts) return fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory");
    opts[0] = arch_opt;
    opts[1] = "-std=c++17";
    for (int i = 0; i < n_options; i++) opts[2 + i] = options[i];

    unsigned char key[16];
    char hex[33];
    hash2 h;
    hash_init(&h);
    hash_field(&h, FORMAT_VERSION, sizeof FORMAT_VERSION - 1);
    hash_field(&h, name, strlen(name));
    hash_field(&h, source, strlen(source));
    hash_u64(&h, (uint64_t)arch);
    hash_u64(&h, (uint64_t)n_opts);
    for (int i = 0; i < n_opts; i++) hash_field(&h, opts[i], strlen(opts[i]));
    hash_u64(&h, (uint64_t)(int64_t)j->nvrtc_major);
    hash_u64(&h, (uint64_t)(int64_t)j->nvrtc_minor);
    hash_u64(&h, (uint64_t)(int64_t)j->driver_version);
    hash_final(&h, key);
    key_hex(key, hex);

    char *path = NULL;
    if (j->cache_dir) {
        char file[48];
        snprintf(file, sizeof file, "%s.cubin", hex);
        path = path_join(j->cache_dir, file);
        if (!path) {
            free(opts);
            return fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory");
        }
        if (!skip_read) {
            int v = cache_read(path, key, cubin, size);
            if (v == CACHE_HIT) {
                j->stats.cache_hits++;
                free(path);
                free(opts);
                return MPCC_JIT_OK;
            }
            if (v == CACHE_BAD) j->stats.cache_rejected++;
        }
    }
    int rc = nvrtc_compile(j, source, name, opts, n_opts, cubin, size);
    if (rc == MPCC_JIT_OK && path) {
        if (cache_write(j, hex, key, *cubin, *size) == 0) j->stats.cache_writes++;
        else j->stats.cache_write_failures++;
    }
    free(path);
    free(opts);
    return rc;
}

int mpcc_jit_compile(mpcc_jit *j, const char *source, const char *name, int arch, const char *const *options,
                     int n_options, void **cubin, size_t *size) {
    int rc = compile_cached(j, source, name, arch, options, n_options, 0, cubin, size);
    if (rc == MPCC_JIT_OK) j->err[0] = '\0';
    return rc;
}

void mpcc_jit_free_image(void *cubin) { free(cubin); }

/* ---- modules, functions, launches ---- */

int mpcc_jit_load(mpcc_jit *j, const char *source, const char *name, const char *const *options, int n_options,
                  mpcc_jit_module **m) {
    if (!j) return MPCC_JIT_EINVAL;
    if (!m) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: load: m is NULL");
    *m = NULL;
    if (!j->has_device)
        return fail(j, MPCC_JIT_ENOTDEVICE, "mpcc jit: load needs a device (handle opened with mpcc_jit_open_compiler)");
    mpcc_jit_module *mod = calloc(1, sizeof *mod);
    if (!mod) return fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory");
    cu_result r = j->cu.ctx_set_current(j->ctx);
    if (r != 0) {
        free(mod);
        return cu_fail(j, "cuCtxSetCurrent", r);
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        void *img = NULL;
        size_t n = 0;
        int hits = j->stats.cache_hits;
        int rc = compile_cached(j, source, name, 0, options, n_options, attempt, &img, &n);
        if (rc != MPCC_JIT_OK) {
            free(mod);
            return rc;
        }
        r = j->cu.module_load_data(&mod->mod, img);
        free(img);
        if (r == 0) break;
        /* A cached image that verifies but does not load (e.g. written by a
         * different NVRTC build with the same version): compile afresh once. */
        if (attempt == 0 && j->stats.cache_hits > hits) continue;
        free(mod);
        return cu_fail(j, "cuModuleLoadData", r);
    }
    mod->j = j;
    mod->next = j->modules;
    j->modules = mod;
    *m = mod;
    j->err[0] = '\0';
    return MPCC_JIT_OK;
}

int mpcc_jit_load_lines(mpcc_jit *j, const char *const *lines, int n_lines, const char *name,
                        const char *const *options, int n_options, mpcc_jit_module **m) {
    if (!j) return MPCC_JIT_EINVAL;
    if (!lines || n_lines < 0) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: load_lines: no source");
    size_t total = 1;
    for (int i = 0; i < n_lines; i++) total += strlen(lines[i]);
    char *src = malloc(total), *at = src;
    if (!src) return fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory");
    for (int i = 0; i < n_lines; i++) {
        size_t n = strlen(lines[i]);
        memcpy(at, lines[i], n);
        at += n;
    }
    *at = '\0';
    int rc = mpcc_jit_load(j, src, name, options, n_options, m);
    free(src);
    return rc;
}

static int need_device(mpcc_jit *j, const char *what) {
    if (!j->has_device) return fail(j, MPCC_JIT_ENOTDEVICE, "mpcc jit: %s needs a device", what);
    cu_result r = j->cu.ctx_set_current(j->ctx);
    return r ? cu_fail(j, "cuCtxSetCurrent", r) : MPCC_JIT_OK;
}

int mpcc_jit_alloc(mpcc_jit *j, size_t bytes, void **dptr) {
    if (!j || !dptr) return j ? fail(j, MPCC_JIT_EINVAL, "mpcc jit: alloc: NULL argument") : MPCC_JIT_EINVAL;
    *dptr = NULL;
    int rc = need_device(j, "alloc");
    if (rc) return rc;
    unsigned long long p = 0;
    cu_result r = j->cu.mem_alloc(&p, bytes ? bytes : 1);
    if (r) return cu_fail(j, "cuMemAlloc", r);
    *dptr = (void *)(uintptr_t)p;
    return MPCC_JIT_OK;
}

void mpcc_jit_free(mpcc_jit *j, void *dptr) {
    if (j && dptr && j->has_device && !j->cu.ctx_set_current(j->ctx)) (void)j->cu.mem_free((unsigned long long)(uintptr_t)dptr);
}

int mpcc_jit_copy(mpcc_jit *j, void *dst, const void *src, size_t bytes, int kind, void *stream) {
    if (!j) return MPCC_JIT_EINVAL;
    int rc = need_device(j, "copy");
    if (rc) return rc;
    cu_result r;
    switch (kind) {
    case MPCC_JIT_H2D: r = j->cu.copy_htod((unsigned long long)(uintptr_t)dst, src, bytes, stream); break;
    case MPCC_JIT_D2H: r = j->cu.copy_dtoh(dst, (unsigned long long)(uintptr_t)src, bytes, stream); break;
    case MPCC_JIT_D2D:
        r = j->cu.copy_dtod((unsigned long long)(uintptr_t)dst, (unsigned long long)(uintptr_t)src, bytes, stream);
        break;
    default: return fail(j, MPCC_JIT_EINVAL, "mpcc jit: copy: unknown kind %d", kind);
    }
    return r ? cu_fail(j, "cuMemcpyAsync", r) : MPCC_JIT_OK;
}

int mpcc_jit_sync(mpcc_jit *j, void *stream) {
    if (!j) return MPCC_JIT_EINVAL;
    int rc = need_device(j, "sync");
    if (rc) return rc;
    cu_result r = j->cu.stream_sync(stream);
    return r ? cu_fail(j, "cuStreamSynchronize", r) : MPCC_JIT_OK;
}

int mpcc_jit_global_i32(mpcc_jit_module *m, const char *name, int *value) {
    if (!m || !name || !value) return m ? fail(m->j, MPCC_JIT_EINVAL, "mpcc jit: global: NULL argument") : MPCC_JIT_EINVAL;
    mpcc_jit *j = m->j;
    int rc = need_device(j, "global");
    if (rc) return rc;
    unsigned long long p = 0;
    size_t n = 0;
    cu_result r = j->cu.module_get_global(&p, &n, m->mod, name);
    if (r == CU_ERROR_NOT_FOUND) return fail(j, MPCC_JIT_ENOTFOUND, "mpcc jit: no global %s in the module", name);
    if (r) return cu_fail(j, "cuModuleGetGlobal", r);
    if (n != sizeof(int)) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: global %s has %zu bytes, not an int", name, n);
    if ((r = j->cu.copy_dtoh(value, p, sizeof(int), NULL)) != 0) return cu_fail(j, "cuMemcpyDtoH", r);
    if ((r = j->cu.stream_sync(NULL)) != 0) return cu_fail(j, "cuStreamSynchronize", r);
    return MPCC_JIT_OK;
}

int mpcc_jit_function(mpcc_jit_module *m, const char *kernel_name, mpcc_jit_fn **f) {
    if (!m) return MPCC_JIT_EINVAL;
    mpcc_jit *j = m->j;
    if (!f || !kernel_name) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: function: NULL argument");
    *f = NULL;
    for (mpcc_jit_fn *p = m->fns; p; p = p->next)
        if (strcmp(p->name, kernel_name) == 0) {
            *f = p;
            return MPCC_JIT_OK;
        }
    cu_function fn = NULL;
    cu_result r = j->cu.module_get_function(&fn, m->mod, kernel_name);
    if (r == CU_ERROR_NOT_FOUND)
        return fail(j, MPCC_JIT_ENOTFOUND,
                    "mpcc jit: no kernel %s in the module (cuModuleGetFunction: %s; declare it extern \"C\")",
                    kernel_name, cu_error_text(j, r));
    if (r != 0) return cu_fail(j, "cuModuleGetFunction", r);
    size_t n = strlen(kernel_name) + 1;
    mpcc_jit_fn *p = malloc(sizeof *p + n);
    if (!p) return fail(j, MPCC_JIT_ENOMEM, "mpcc jit: out of memory");
    p->fn = fn;
    p->smem_max = 0;
    memcpy(p->name, kernel_name, n);
    p->next = m->fns;
    m->fns = p;
    *f = p;
    j->err[0] = '\0';
    return MPCC_JIT_OK;
}

int mpcc_jit_launch(mpcc_jit *j, mpcc_jit_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                    unsigned bz, unsigned smem_bytes, void *stream, void **args) {
    if (!j) return MPCC_JIT_EINVAL;
    if (!f) return fail(j, MPCC_JIT_EINVAL, "mpcc jit: launch: f is NULL");
    if (!j->has_device) return fail(j, MPCC_JIT_ENOTDEVICE, "mpcc jit: launch needs a device");
    cu_result r = j->cu.ctx_set_current(j->ctx);
    if (r != 0) return cu_fail(j, "cuCtxSetCurrent", r);
    if (smem_bytes > 48u * 1024u && smem_bytes > f->smem_max) {
        if (smem_bytes > (unsigned)INT32_MAX)
            return fail(j, MPCC_JIT_EINVAL, "mpcc jit: launch: %u bytes of shared memory", smem_bytes);
        r = j->cu.func_set_attribute(f->fn, CU_FUNC_MAX_DYN_SMEM, (int)smem_bytes);
        if (r != 0) {
            cu_fail(j, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
            size_t at = strlen(j->err);
            snprintf(j->err + at, sizeof j->err - at, " (kernel %s, %u bytes)", f->name, smem_bytes);
            return MPCC_JIT_ECUDA;
        }
        f->smem_max = smem_bytes;
    }
    r = j->cu.launch(f->fn, gx, gy, gz, bx, by, bz, smem_bytes, stream, args, NULL);
    if (r != 0) {
        cu_fail(j, "cuLaunchKernel", r);
        size_t at = strlen(j->err);
        snprintf(j->err + at, sizeof j->err - at, " (kernel %s, grid %ux%ux%u, block %ux%ux%u, smem %u)", f->name, gx,
                 gy, gz, bx, by, bz, smem_bytes);
        return MPCC_JIT_ECUDA;
    }
    j->err[0] = '\0';
    return MPCC_JIT_OK;
}

static void module_free(mpcc_jit_module *m) {
    mpcc_jit *j = m->j;
    if (j->has_device) {
        (void)j->cu.ctx_set_current(j->ctx);
        (void)j->cu.module_unload(m->mod);
    }
    for (mpcc_jit_fn *p = m->fns, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(m);
}

void mpcc_jit_unload(mpcc_jit_module *m) {
    if (!m) return;
    for (mpcc_jit_module **pp = &m->j->modules; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    module_free(m);
}

void mpcc_jit_close(mpcc_jit *j) {
    if (!j) return;
    for (mpcc_jit_module *m = j->modules, *next; m; m = next) {
        next = m->next;
        module_free(m);
    }
    if (j->has_device) (void)j->cu.primary_release(j->dev);
    if (j->cuda_lib) dlclose(j->cuda_lib);
    if (j->nvrtc_lib) dlclose(j->nvrtc_lib);
    free(j->cache_dir);
    free(j);
}

const char *mpcc_jit_error(const mpcc_jit *j) {
    return j ? j->err : "mpcc jit: no handle (out of memory, or a NULL handle was passed)";
}

void mpcc_jit_get_stats(const mpcc_jit *j, mpcc_jit_stats *s) {
    if (!s) return;
    if (j) *s = j->stats;
    else memset(s, 0, sizeof *s);
}

int mpcc_jit_nvrtc_version(const mpcc_jit *j, int *major, int *minor) {
    if (!j || !j->nvrtc_lib || !major || !minor) return MPCC_JIT_EINVAL;
    *major = j->nvrtc_major;
    *minor = j->nvrtc_minor;
    return MPCC_JIT_OK;
}
