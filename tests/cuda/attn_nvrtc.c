/* attn_nvrtc.c - compile runtime/cuda/mpcc_cuda_attention.cuh with NVRTC, the way the
 * runtime JIT will: the headers are handed over as in-memory sources (no include path, no
 * host headers), every MODE x D instantiated, for each architecture given on the command
 * line. Built and run by tests/cuda/check_attn.sh.
 *   attn_nvrtc <runtime/cuda dir> sm_80 [sm_90 ...] */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    s[n] = 0;
    fclose(f);
    return s;
}

static const char *source =
    "#include \"mpcc_cuda_attention.cuh\"\n"
    "#define K(M, D) extern \"C\" __global__ void __launch_bounds__(128) attn_m##M##_d##D(mpcc_attn_args p) "
    "{ mpcc_attn_body<M, D>(p); } extern \"C\" __global__ void __launch_bounds__(128) "
    "attn_m##M##_d##D##_bool(mpcc_attn_args p) { mpcc_attn_body<M, D, true>(p); }\n"
    "#define KS(M) K(M, 16) K(M, 32) K(M, 64) K(M, 128)\n"
    "KS(0) KS(1) KS(2) KS(3)\n";

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s <runtime/cuda dir> sm_XX...\n", argv[0]);
        return 2;
    }
    const char *names[7] = {"mpcc_cuda.cuh", "mpcc_cuda_args.h", "mpcc_cuda_args_s16.h", "mpcc_cuda_attention.cuh",
                            "mpcc_cuda_args_misc.h", "mpcc_cuda_args_rnn.h", "mpcc_cuda_args_hybrid.h"};
    const char *headers[7] = {slurp(argv[1], names[0]), slurp(argv[1], names[1]), slurp(argv[1], names[2]),
                              slurp(argv[1], names[3]), slurp(argv[1], names[4]), slurp(argv[1], names[5]),
                              slurp(argv[1], names[6])};
    int failed = 0;
    for (int a = 2; a < argc; a++) {
        nvrtcProgram prog;
        if (nvrtcCreateProgram(&prog, source, "attn_nvrtc.cu", 7, headers, names) != NVRTC_SUCCESS) return 2;
        char arch[64];
        snprintf(arch, sizeof arch, "--gpu-architecture=%s", argv[a]);
        const char *opts[] = {arch, "-std=c++17"};
        nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
        size_t log_n = 0, ptx_n = 0;
        nvrtcGetProgramLogSize(prog, &log_n);
        char *log = malloc(log_n + 1);
        nvrtcGetProgramLog(prog, log);
        log[log_n] = 0;
        if (r == NVRTC_SUCCESS) nvrtcGetPTXSize(prog, &ptx_n);
        /* any diagnostic (a warning too) counts as a failure */
        int ok = r == NVRTC_SUCCESS && strlen(log) == 0;
        printf("nvrtc %s: %s (%zu bytes of PTX)\n", argv[a], ok ? "ok" : "FAILED", ptx_n);
        if (strlen(log)) printf("%s\n", log);
        if (!ok) failed++;
        free(log);
        nvrtcDestroyProgram(&prog);
    }
    return failed ? 1 : 0;
}
