/* rt_a64_act_f32.h - the AArch64 f32 row loops of rt_opt_act.c (runtime/arm64, docs/arm64.md; not
 * API): the exponential rows of softmax and attention, the row sums and the normalization of
 * LayerNorm, and the exact GELU, in NEON lanes. Included by that file after its lane count
 * (ROW_LANES, 32) and the GELU's coefficients are known. The same operations lane for lane as the
 * portable loops there (the sums in the same 32 lanes, added in the same order: the same values),
 * the GELU as the x86 vector paths' gelu8 / gelu_rational (the portable loop takes the erfc form).
 * GCC 12 at -O2 left these loops scalar on AArch64 (a libm-free exponential and a division per
 * value, one value at a time). */
#ifndef MPCC_RT_A64_ACT_F32_H
#define MPCC_RT_A64_ACT_F32_H

#include "rt_a64.h"

#if defined(RT_A64)
/* rt_opt_expf on four lanes, operation for operation (the multiply-adds fused, as RT_FMAF is here);
 * a NaN stays a NaN (FMAX / FMIN pass it on). */
static inline float32x4_t rt_a64_expf4(float32x4_t x) {
    const float32x4_t big = vdupq_n_f32(12582912.0f);
    float32x4_t n, r, p;
    x = vminq_f32(vdupq_n_f32(88.0f), vmaxq_f32(vdupq_n_f32(-87.0f), x));
    n = vsubq_f32(vfmaq_f32(big, x, vdupq_n_f32(1.44269504088896341f)), big);
    r = vfmaq_f32(x, n, vdupq_n_f32(-0.693359375f));
    r = vfmaq_f32(r, n, vdupq_n_f32(2.12194440e-4f));
    p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), vdupq_n_f32(1.9875691500e-4f), r);
    p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
    p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
    p = vaddq_f32(vfmaq_f32(r, vmulq_f32(p, r), r), vdupq_n_f32(1.0f));
    return vmulq_f32(p, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23)));
}

/* exp(beta (x[c] - sub)) into y[c] (y may alias x) for the whole 32-value chunks of a row, their
 * partial sums into the 32 lanes s[] (lane l: the values c + l, as exp_row's loop); returns the
 * values done. */
static int32_t rt_a64_exp_row(int32_t d, float beta, float sub, const float *x, float *y, float *s) {
    const float32x4_t vb = vdupq_n_f32(beta), vs = vdupq_n_f32(sub);
    float32x4_t acc[8];
    int32_t c, j;
    RT_A64_UNROLL for (j = 0; j < 8; j++) acc[j] = vld1q_f32(s + 4 * j);
    for (c = 0; c + 32 <= d; c += 32) {
        RT_A64_UNROLL for (j = 0; j < 8; j++) {
            const float32x4_t e = rt_a64_expf4(vmulq_f32(vsubq_f32(vld1q_f32(x + c + 4 * j), vs), vb));
            acc[j] = vaddq_f32(acc[j], e);
            vst1q_f32(y + c + 4 * j, e);
        }
    }
    RT_A64_UNROLL for (j = 0; j < 8; j++) vst1q_f32(s + 4 * j, acc[j]);
    return c;
}

/* sum (x - m)^2 (sq) or sum (x - m) of a row's whole 32-value chunks into the 32 lanes s[] (lane l:
 * the values c + l; the square rounded, then added, as the portable loop under -std=c99);
 * returns the values done. */
static int32_t rt_a64_row_sum(int32_t d, const float *x, float m, int sq, float *s) {
    const float32x4_t vm = vdupq_n_f32(m);
    float32x4_t acc[8];
    int32_t c, j;
    RT_A64_UNROLL for (j = 0; j < 8; j++) acc[j] = vld1q_f32(s + 4 * j);
    for (c = 0; c + 32 <= d; c += 32) {
        RT_A64_UNROLL for (j = 0; j < 8; j++) {
            const float32x4_t v = vsubq_f32(vld1q_f32(x + c + 4 * j), vm);
            acc[j] = vaddq_f32(acc[j], sq ? vmulq_f32(v, v) : v);
        }
    }
    RT_A64_UNROLL for (j = 0; j < 8; j++) vst1q_f32(s + 4 * j, acc[j]);
    return c;
}

/* One LayerNorm row: y[c] = x[c] inv + (-mean inv + b) with inv = rstd gamma[c] (or rstd), b = beta[c]
 * (or 0), both multiply-adds fused as RT_FMAF is here; returns the values done (whole vectors). */
static int32_t rt_a64_ln_row(int32_t n, const float *x, const float *gamma, const float *beta, float mean, float rstd,
                             float *y) {
    const float32x4_t vr = vdupq_n_f32(rstd), vm = vdupq_n_f32(-mean);
    int32_t c;
    for (c = 0; c + 4 <= n; c += 4) {
        const float32x4_t inv = gamma ? vmulq_f32(vr, vld1q_f32(gamma + c)) : vr;
        const float32x4_t b = beta ? vld1q_f32(beta + c) : vdupq_n_f32(0.0f);
        vst1q_f32(y + c, vfmaq_f32(vfmaq_f32(b, vm, inv), vld1q_f32(x + c), inv));
    }
    return c;
}

/* The exact GELU of four lanes: gelu_rational(x, 3.925, p5, q5, 5) of rt_opt_act.c, operation for
 * operation (p5, q5: its degree-5 P and Q, highest first). */
static inline float32x4_t rt_a64_gelu4(float32x4_t x, const float *p5, const float *q5) {
    const float32x4_t zmax = vdupq_n_f32(3.925f);
    const float32x4_t z = vmaxq_f32(vsubq_f32(vdupq_n_f32(0.0f), zmax),
                                    vminq_f32(vmulq_f32(x, vdupq_n_f32(0.707106781186547524400844f)), zmax));
    const float32x4_t u = vmulq_f32(z, z), h = vmulq_f32(x, vdupq_n_f32(0.5f));
    float32x4_t pp = vdupq_n_f32(p5[0]), qq = vdupq_n_f32(q5[0]);
    int i;
    RT_A64_UNROLL for (i = 1; i <= 5; i++) {
        pp = vfmaq_f32(vdupq_n_f32(p5[i]), pp, u);
        qq = vfmaq_f32(vdupq_n_f32(q5[i]), qq, u);
    }
    return vfmaq_f32(h, h, vdivq_f32(vmulq_f32(z, pp), qq));
}

/* rt_a64_gelu4 over n values, 16 at a time (four independent chains); returns the values done. */
static int64_t rt_a64_gelu_erf(int64_t n, const float *in, float *out, const float *p5, const float *q5) {
    int64_t i;
    int j;
    for (i = 0; i + 16 <= n; i += 16) {
        float32x4_t v[4];
        RT_A64_UNROLL for (j = 0; j < 4; j++) v[j] = rt_a64_gelu4(vld1q_f32(in + i + 4 * j), p5, q5);
        RT_A64_UNROLL for (j = 0; j < 4; j++) vst1q_f32(out + i + 4 * j, v[j]);
    }
    return i;
}
/* rt_opt_max_f32 on lanes: x > m ? x : m (FCMGT and BSL, not FMAX: a NaN in x is passed over) in 32
 * lanes over the 32-value blocks, then four values a step, the lanes folded the same way and the last
 * values one by one. The same maximum as the scalar loop (only a tie of -0 and +0 may come out with
 * the other sign). */
static float rt_a64_max_f32(int32_t d, const float *x) {
    float32x4_t acc[8];
    float r;
    int32_t c, j;
    RT_A64_UNROLL for (j = 0; j < 8; j++) acc[j] = vdupq_n_f32(-3.40282347e+38f);
    for (c = 0; c + 32 <= d; c += 32) {
        RT_A64_UNROLL for (j = 0; j < 8; j++) {
            const float32x4_t v = vld1q_f32(x + c + 4 * j);
            acc[j] = vbslq_f32(vcgtq_f32(v, acc[j]), v, acc[j]);
        }
    }
    for (j = 0; c + 4 <= d; c += 4, j++) {
        const float32x4_t v = vld1q_f32(x + c);
        acc[j] = vbslq_f32(vcgtq_f32(v, acc[j]), v, acc[j]);
    }
    RT_A64_UNROLL for (j = 0; j < 4; j++) acc[j] = vbslq_f32(vcgtq_f32(acc[j + 4], acc[j]), acc[j + 4], acc[j]);
    RT_A64_UNROLL for (j = 0; j < 2; j++) acc[j] = vbslq_f32(vcgtq_f32(acc[j + 2], acc[j]), acc[j + 2], acc[j]);
    acc[0] = vbslq_f32(vcgtq_f32(acc[1], acc[0]), acc[1], acc[0]);
    r = vmaxvq_f32(acc[0]); /* no NaN in the lanes */
    for (; c < d; c++) r = x[c] > r ? x[c] : r;
    return r;
}
#endif

#endif
