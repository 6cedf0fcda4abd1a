/* precision_cost.c - what --precision bf16|fp16 buys on the CPU the code is built for: a small table of
 * measured speeds (the 16-bit mode against fp32 of the same model, one thread), keyed by the x86 ISA
 * features the 16-bit kernels pick their path by, so --report and a warning can say when a 16-bit mode
 * saves memory but not time. The target is --isa's; with --isa generic (the default: the C compiler's
 * target picks the paths) it is taken to be the CPU mpcc runs on (Linux /proc/cpuinfo), and the report
 * says so. Only what is printed depends on this: the generated code is the same on every machine. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef enum CostClass { COST_UNKNOWN = 0, COST_AMX, COST_AVX512_BF16, COST_AVX512, COST_AVX2, COST_COUNT } CostClass;

typedef struct PrecCost {
    const char *features;          /* the ISA features of the row */
    float bf16_lo, bf16_hi;        /* measured speed vs fp32 (fp32 time / bf16 time) over the bench models */
    float fp16_lo, fp16_hi;
    const char *how;               /* how the 16-bit modes run there */
} PrecCost;

/* docs/precision-modes.md ("Speed by CPU") has the measurements behind each row. */
static const PrecCost cost_table[COST_COUNT] = {
    [COST_AMX] = {"AMX-BF16 (Sapphire Rapids class)", 1.5f, 2.2f, 1.1f, 1.4f,
                  "bf16 and fp16 products on the tile unit (fp16 as two bf16 halves)"},
    [COST_AVX512_BF16] = {"AVX512-BF16 without AMX (Zen 4/5 class)", 1.5f, 1.8f, 0.9f, 1.2f,
                          "bf16 products on vdpbf16ps; fp16 weights widened to f32 FMAs"},
    [COST_AVX512] = {"AVX-512 without BF16", 0.9f, 1.1f, 0.9f, 1.1f,
                     "16-bit weights widened in registers, f32 FMAs"},
    [COST_AVX2] = {"AVX2+FMA+F16C without AVX-512 (Zen 3, Haswell to Alder Lake class)", 0.9f, 1.0f, 0.9f, 1.0f,
                   "no 16-bit arithmetic: 16-bit weights stored, widened in registers, f32 FMAs"},
};

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
    if (isa != IR_ISA_GENERIC) return COST_UNKNOWN; /* avx512: with or without BF16 unknown; Arm: unmeasured */
    *host = 1;
    return host_class();
}

void precision_cost_note(const Graph *g, FILE *report) {
    const IrPrecision *pr = g->precision;
    int host, bf16;
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
    if (report)
        fprintf(report, "precision %s on %s%s: %s; measured %.1f-%.1fx the speed of fp32%s\n", ir_prec_name(pr->mode),
                row->features, host ? " (the CPU mpcc runs on; --isa names another target)" : "", row->how,
                (double)lo, (double)hi, hi <= 1.0f ? " (it saves weight memory, not time)" : "");
    else if (hi <= 1.0f && !host) /* an explicit --isa: warn at compile time too */
        fprintf(stderr, "mpcc: warning: --precision %s on %s runs at %.1f-%.1fx the speed of fp32 (%s): it saves "
                        "weight memory, not time\n",
                ir_prec_name(pr->mode), row->features, (double)lo, (double)hi, row->how);
}
