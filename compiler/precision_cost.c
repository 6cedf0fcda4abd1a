/* precision_cost.c - what --precision bf16|fp16 buys on the CPU the code is built for: a small table of
 * measured speeds (the 16-bit mode against fp32 of the same model, one thread), keyed by the x86 ISA
 * features the 16-bit kernels pick their path by, so --report and a warning can say when a 16-bit mode
 * saves memory but not time. The target is --isa's; with --isa generic (the default: the C compiler's
 * target picks the paths) it is taken to be the CPU mpcc runs on (Linux /proc/cpuinfo), and the report
 * says so. The generated code depends only on --isa (never on the CPU mpcc runs on): pass half_storage asks
 * precision_cost_arith16 whether the target has 16-bit arithmetic and, where it has none (avx2) or is planned
 * as having none (generic), keeps the activations f32 (16-bit weights only) unless --half-activations. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "precision_cost.h"


typedef enum CostClass {
    COST_UNKNOWN = 0, COST_AMX, COST_AVX512_BF16, COST_AVX512, COST_AVX2, COST_A64, COST_COUNT
} CostClass;

typedef struct PrecCost {
    const char *features;          /* the ISA features of the row */
    int arith16;                   /* 1: 16-bit products faster than f32 (bf16 at least); 0: 16-bit storage only */
    float bf16_lo, bf16_hi;        /* measured speed vs fp32 (fp32 time / bf16 time) over the bench models */
    float fp16_lo, fp16_hi;
    float act16_lo[2], act16_hi[2]; /* arith16 0: the same with 16-bit activations ([0] bf16, [1] fp16); 0: none */
    const char *how;               /* how the 16-bit modes run there */
} PrecCost;

/* docs/precision-modes.md ("Speed by CPU") and docs/precision-avx2.md have the measurements behind each row.
 * AVX2: the code of --isa generic and avx2 (f32 activations: no 16-bit arithmetic) against fp32 of the same
 * --isa; act16: the 16-bit activations of --half-activations against fp32 (AMD EPYC Zen 3; digits, ResNet, ViT,
 * BERT; interleaved A/B in one process, thread CPU time, medians of 21, 2026-11-29 22:30, load ~12). With the
 * widened panels (branch prec16) an AVX2 build on an Intel Xeon gave bf16 0.93-1.00x, fp16 0.91-1.00x (before:
 * 0.79-0.93x, 0.86-0.96x; docs/precision-avx2.md); Zen 3 not measured since, so its lower ends stay. */
static const PrecCost cost_table[COST_COUNT] = {
    /* Intel Xeon Emerald Rapids (CPUID 6/207/2: AMX-BF16/INT8, AVX512-BF16, AVX512-FP16), 16 cores, one thread,
     * gcc 13 -O3 -march=native, make bench's precision table (digits, ResNet, ViT, BERT, MobileNetV2 1.0/224),
     * 2026-11-30, two runs of 11 rounds (docs/precision-modes.md, "Speed by CPU"). Before: the f32-activation plan
     * sent such builds to 16-bit products on rounded inputs, or to fc_half_lean where it gave no scratch: bf16
     * 0.02-0.54x, fp16 0.00x. Since: the AVX-512 widened-weight kernels for f32 inputs, bf16 0.55-1.03x (BERT
     * 0.55/0.62: its bf16-output FCs still rounded their f32 inputs then, changed since, not measured there),
     * fp16 0.82-1.00x. --half-activations (16-bit activations, AMX / vdpbf16ps products): bf16 0.47-0.72x,
     * fp16 0.60-0.78x. */
    [COST_AMX] = {"AMX-BF16 (Sapphire / Emerald Rapids class)", 0, 0.55f, 1.03f, 0.82f, 1.00f, {0.47f, 0.60f},
                  {0.72f, 0.78f},
                  "16-bit weights stored, widened in zmm registers (or once per panel) for f32 FMAs on the f32 "
                  "inputs; the AMX and vdpbf16ps products only for 16-bit activations"},
    /* Not measured on such a CPU (a Xeon with AVX512-BF16/FP16 and no AMX gave 0.39-0.78x bf16 before the
     * widened-weight kernels): the same kernels as the AMX row for f32 inputs, so its figures. */
    [COST_AVX512_BF16] = {"AVX512-BF16 without AMX (Zen 4/5, Cooper Lake class; not measured here)", 0, 0.55f, 1.03f,
                          0.82f, 1.00f, {0}, {0},
                          "16-bit weights stored, widened for f32 FMAs on the f32 inputs (as with AMX, where it "
                          "was measured); vdpbf16ps products only for 16-bit activations"},
    /* Intel Xeon (Ice Lake class, AVX-512 + VNNI, no BF16/AMX), generic, f32 activations, rt_opt_gemm16_avx512.c
     * with the widened panels (branch prec16): digits, ResNet, ViT, BERT, interleaved A/B in one process, thread
     * CPU time, medians of 15, 3-6 runs, 2026-11-30, load 13-16 (docs/precision-avx512.md, "Widened panels");
     * before them 0.93-1.10x / 0.85-1.02x. Since the K chunks (docs/precision-avx512.md, "Deep K"): make bench's
     * precision table, idle, medians of 11, with MobileNetV2 1.0/224 and BERT-base, two runs: bf16 0.99-1.08x
     * (ResNet 1.00 and 0.99), fp16 0.96-1.05x */
    [COST_AVX512] = {"AVX-512 without BF16", 0, 0.99f, 1.08f, 0.96f, 1.05f, {0}, {0},
                     "no 16-bit arithmetic: 16-bit weights stored; with many rows widened once (deep K: a chunk "
                     "at a time) to f32 panels for the f32 GEMM's tiles, else widened in zmm registers; f32 FMAs "
                     "on the f32 inputs"},
    [COST_AVX2] = {"AVX2+FMA+F16C without AVX-512 (Zen 3, Haswell to Alder Lake class)", 0, 0.82f, 1.00f, 0.81f, 1.00f,
                   {0.61f, 0.63f}, {0.84f, 0.76f},
                   "no 16-bit arithmetic: 16-bit weights stored, widened in registers, f32 FMAs on the f32 "
                   "inputs (convolutions read their patch rows in place, as fp32's do); --isa generic and avx2 "
                   "keep the activations f32"},
    /* AArch64 (--isa armv8a, armv8.2a+dotprod), rt_opt_gemm16_a64.c: instructions retired per inference under
     * qemu-aarch64 (TCG plugin, a proxy for time, not time; Cortex-A53 and Neoverse N1 models), fp32's / the
     * 16-bit mode's: digits 0.99, ResNet 0.99, ViT 0.95, BERT 0.99, bf16 and fp16 alike (docs/arm64.md,
     * "16-bit weights", 2026-11-30; before: fp16 0.03-0.05, bf16 0.13-0.29 on the portable scalar code) */
    [COST_A64] = {"AArch64 without 16-bit products (Armv8-A, Armv8.2-A)", 0, 0.95f, 0.99f, 0.95f, 0.99f, {0}, {0},
                  "no 16-bit arithmetic: 16-bit weights stored, widened once per call into f32 panels for the f32 "
                  "GEMM's tiles (one row: widened in NEON registers), f32 FMAs on the f32 inputs; the "
                  "activations f32; measured as instructions retired under QEMU, not time"},
};

/* generic is planned as a CPU without 16-bit arithmetic: the C compiler's target picks the kernels, and on one
 * without 16-bit products (AVX2, AVX-512 without BF16) 16-bit activations cost a widening and a rounding
 * around every op (0.62-0.96x fp32 on AMD Zen 3, docs/precision-avx2.md); with f32 activations the AVX512-BF16
 * and AMX kernels of such a build still run, rounding their f32 inputs per block. --half-activations (or
 * --isa avx512) stores them in 16 bits for the arena saving. */
int precision_cost_arith16(IrIsa isa) {
    if (isa == IR_ISA_AVX2 || isa == IR_ISA_GENERIC) return cost_table[COST_AVX2].arith16;
    if (isa == IR_ISA_ARMV8A || isa == IR_ISA_ARMV82A_DOT) return cost_table[COST_A64].arith16;
    return -1; /* avx512: with or without BF16/AMX; neon and Cortex-M: unmeasured */
}

/* The row of the CPU mpcc runs on, from /proc/cpuinfo's flags (COST_UNKNOWN elsewhere). */
static CostClass host_class(void) {
    char line[8192];
    CostClass c = COST_UNKNOWN;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return COST_UNKNOWN;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            c = strstr(line, " amx_bf16") ? COST_AMX
                : strstr(line, " avx512_bf16") ? COST_AVX512_BF16
                : strstr(line, " avx512f") ? COST_AVX512
                : strstr(line, " avx2") && strstr(line, " fma") && strstr(line, " f16c") ? COST_AVX2
                                                                                       : COST_UNKNOWN;
            break;
        }
    fclose(f);
    return c;
}

/* The row for the code's target; *host: taken from the CPU mpcc runs on. */
static CostClass target_class(IrIsa isa, int *host) {
    *host = 0;
    if (isa == IR_ISA_AVX2) return COST_AVX2;
    if (isa == IR_ISA_ARMV8A || isa == IR_ISA_ARMV82A_DOT) return COST_A64;
    if (isa != IR_ISA_GENERIC) return COST_UNKNOWN; /* avx512: with or without BF16 unknown; neon: unmeasured */
    *host = 1;
    return host_class();
}

void precision_cost_note(const Graph *g, FILE *report) {
    const IrPrecision *pr = g->precision;
    int host, bf16, act16 = 0;
    CostClass c;
    const PrecCost *row;
    float lo, hi;
    if (!pr || (pr->mode != IR_PREC_BF16 && pr->mode != IR_PREC_FP16) || g->target_cuda) return;
    c = target_class(g->isa, &host);
    if (c == COST_UNKNOWN) {
        if (report)
            fprintf(report, "precision %s: speed against fp32 not known for this target (--isa %s)\n",
                    ir_prec_name(pr->mode), ir_isa_name(g->isa));
        return;
    }
    row = &cost_table[c];
    bf16 = pr->mode == IR_PREC_BF16;
    lo = bf16 ? row->bf16_lo : row->fp16_lo;
    hi = bf16 ? row->bf16_hi : row->fp16_hi;
    /* --isa generic on a CPU without 16-bit arithmetic: the activations are 16-bit (pass half_storage) */
    for (int t = 0; row->act16_hi[!bf16] > 0.0f && t < g->n_tensors; t++)
        if (!g->tensors[t].data && (g->tensors[t].dtype == IR_BF16 || g->tensors[t].dtype == IR_F16)) {
            lo = row->act16_lo[!bf16], hi = row->act16_hi[!bf16], act16 = 1;
            break;
        }
    if (report)
        fprintf(report, "precision %s on %s%s: %s; measured %.2f-%.2fx the speed of fp32%s%s\n", ir_prec_name(pr->mode),
                row->features, host ? " (the CPU mpcc runs on; --isa names another target)" : "", row->how,
                (double)lo, (double)hi, act16 ? " with these 16-bit activations (--half-activations; without it f32 ones)" : "",
                hi <= 1.0f  ? " (it saves weight memory, not time)"
                : lo < 1.0f ? " (some models slower than fp32: it saves weight memory, not always time)"
                            : "");
    else if (lo < 1.0f && !host) /* an explicit --isa: warn at compile time too */
        fprintf(stderr, "mpcc: warning: --precision %s on %s runs at %.2f-%.2fx the speed of fp32 (%s): it saves "
                        "weight memory, %s\n",
                ir_prec_name(pr->mode), row->features, (double)lo, (double)hi, row->how,
                hi <= 1.0f ? "not time" : "not always time");
}
