/* rt_mve.h - Helium (M-profile Vector Extension) kernels for Armv8.1-M (Cortex-M55/M85; mpcc
 * --isa armv81m, docs/cortex-m.md), chosen by pass schedule where they take the op. Each gives
 * the reference's results bit for bit (TFLite's requantization included). Built with the rest of
 * runtime/cortex_m; on a core without MVE each falls back to the DSP kernel (rt_cm.h). */
#ifndef MPCC_RT_MVE_H
#define MPCC_RT_MVE_H

#include "../rt_cm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when rt_mve_conv_s8 takes a 1x1 stride-1 int8 convolution whose n channels requantize with
 * these shifts (TFLite's doubling-high-multiply then a rounding right shift of 1..31 bits, which
 * VQRDMULH and VRSHL do four lanes at a time). Pass schedule asks it, and then lays the weights
 * out in groups of 4 channels of 16-byte chunks (sched_pack_mve_s8: N padded to 4, K to 16, the
 * padding leading) with the input offset folded into the bias. */
static inline int rt_mve_conv_ok(const int32_t *shift, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (shift[i] > -1 || shift[i] < -31) return 0;
    return n > 0;
}

/* A 1x1 stride-1 int8 convolution (p->direct) on Helium: w is sched_pack_mve_s8's groups, bias the
 * bias plus in_offset x the sum of each channel's weights (pass schedule folds it), so a sum is
 * bias + a . w over int8 lanes: VMLADAVA.S8 takes 16 products a step, 2 rows x 4 channels at a
 * time, the first chunk's loads of A predicated; each row's four sums requantize as one vector and
 * one store writes them.
 * post (or NULL): a fused residual ADD with other, elementwise over the whole output. */
void rt_mve_conv_s8(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                    int8_t *out, const rt_opt_post_add *post, const int8_t *other);

/* 1 when rt_mve_dwconv_s8 takes int8 depthwise p: depth multiplier 1 and rt_mve_conv_ok's shifts. */
static inline int rt_mve_dwconv_ok(const rt_dwconv_params *p) {
    return p->depth_mult == 1 && p->mult && p->shift && rt_mve_conv_ok(p->shift, p->in_c);
}

/* int8 depthwise convolution (rt_dwconv_params, depth multiplier 1, any filter, stride, dilation and
 * padding) on Helium: four channels a vector in 32-bit lanes, each tap a widening load of the input
 * (VLDRB.S32) and of the weights, the input offset added, VMUL and VADD; the taps outside the image
 * are skipped like the reference's; the requantization four lanes at a time (rt_mve_conv_s8's),
 * the last C % 4 channels predicated. */
void rt_mve_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out);

#ifdef __cplusplus
}
#endif

#endif
