/* jit_check.c - checks a `mpcc --target cuda --jit` output without a GPU (tests/test_cuda.py):
 *  1. NVRTC compiles the kernel source embedded in model.c for sm_80 and sm_90 (through the JIT
 *     loader's cache, in the directory argv[1]), and every kernel the host code names is in it;
 *  2. model_cuda_init fails cleanly when no device is there (or succeeds when one is, and then
 *     runs the model once on the input files argv[2..]: see tests/gpu/run.sh).
 * Built as C99 with model.c #included: the source array is static there. */
#include "model.c"

#include <stdlib.h>

static int compile_for(mpcc_jit *j, int arch) {
    size_t total = 1;
    int i, n = (int)(sizeof model_source / sizeof model_source[0]);
    char *src, *at;
    void *cubin = NULL;
    size_t size = 0;
    for (i = 0; i < n; i++) total += strlen(model_source[i]);
    src = malloc(total);
    if (!src) return 1;
    for (at = src, i = 0; i < n; i++) {
        size_t len = strlen(model_source[i]);
        memcpy(at, model_source[i], len);
        at += len;
    }
    *at = '\0';
    /* every kernel name the host code looks up is defined in the source */
    for (i = 0; model_kernels[i][0]; i++) {
        char pat[96];
        snprintf(pat, sizeof pat, " %s(", model_kernels[i]);
        if (!strstr(src, pat)) {
            printf("FAIL kernel %s not in the source\n", model_kernels[i]);
            free(src);
            return 1;
        }
    }
    if (mpcc_jit_compile(j, src, "model.cu", arch, NULL, 0, &cubin, &size)) {
        printf("FAIL NVRTC sm_%d: %s\n", arch, mpcc_jit_error(j));
        free(src);
        return 1;
    }
    printf("ok NVRTC sm_%d: %d source lines, %d kernels, cubin %zu bytes\n", arch, n, i, size);
    mpcc_jit_free_image(cubin);
    free(src);
    return 0;
}

int main(int argc, char **argv) {
    mpcc_jit *j = NULL;
    model_cuda_ctx ctx;
    int bad = 0, rc;
    if (argc < 2) return 2;
    if (mpcc_jit_open_compiler(&j, argv[1])) {
        printf("FAIL open_compiler: %s\n", mpcc_jit_error(j));
        return 1;
    }
    bad += compile_for(j, 80);
    bad += compile_for(j, 90);
    mpcc_jit_close(j);
    rc = model_cuda_init(&ctx);
    if (rc != 0) {
        /* No GPU here: the message must say so (and name the loader), never crash. */
        printf("%s init without a device: rc %d: %s\n", strstr(ctx.error, "mpcc jit") ? "ok" : "FAIL", rc, ctx.error);
        bad += strstr(ctx.error, "mpcc jit") == NULL;
    } else {
        printf("ok init on a device\n");
    }
    model_cuda_free(&ctx);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad != 0;
}
