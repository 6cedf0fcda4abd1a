/* sched.c - names of the scheduling decisions recorded on ops (IrSched). */
#include "ir.h"

const char *ir_sched_name(SchedKind k) {
    static const char *const names[SCHED_KIND_COUNT] = {"ref", "gemm", "conv-gemm", "dwconv", "bmm", "binary", "row-mean", "copy", "act", "softmax", "attention", "layer-norm", "cast", "pool", "lstm", "mean-blocks", "concat", "lut", "resize", "prelu", "pad", "tconv", "fc-hybrid", "sdpa", "rms-norm", "select", "fft", "gather-rows", "reduce"};
    return (unsigned)k < SCHED_KIND_COUNT ? names[k] : "?";
}

const char *ir_isa_name(IrIsa isa) {
    static const char *const names[IR_ISA_COUNT] = {"generic", "avx2",    "avx512",  "neon",
                                                    "armv8a",  "armv8.2a+dotprod",
                                                    "armv6m",  "armv7m",  "armv7em", "armv8m", "armv81m"};
    return (unsigned)isa < IR_ISA_COUNT ? names[isa] : "?";
}

int ir_isa_is_mcu(IrIsa isa) { return isa >= IR_ISA_ARMV6M && isa < IR_ISA_COUNT; }

int ir_f16_weights_as_stored(const Graph *g, const IrOp *op) {
    const Graph *r = g->root ? g->root : g;
    return op->kind == OP_FULLY_CONNECTED && op->n_in > 1 && op->in[1] >= 0 && g->tensors[op->in[1]].dtype == IR_F16 &&
           !(r->precision && (r->precision->mode == IR_PREC_FP16 || r->precision->mode == IR_PREC_BF16));
}

const char *ir_prec_name(IrPrecMode m) {
    static const char *const names[] = {"fp32", "int8", "bf16", "fp16"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "?";
}
