/* rt_a64_binary_f32.h - the AArch64 f32 ADD / SUB / MUL / SQUARED_DIFFERENCE lanes for
 * rt_opt_elementwise.c (runtime/arm64, docs/arm64.md; not API). Included by that file after
 * rt_binary_params is known. The reference's arithmetic on four lanes, the clamp as its selects
 * (a NaN passes, a -0 stays -0: FMAX / FMIN would differ there): the same values. GCC 12 at -O2
 * left the clamped loops scalar on AArch64. */
#ifndef MPCC_RT_A64_BINARY_F32_H
#define MPCC_RT_A64_BINARY_F32_H

#include "rt_a64.h"

#if defined(RT_A64)
enum { RT_A64_ADD, RT_A64_SUB, RT_A64_MUL, RT_A64_SQDIFF };

/* o[i] = op(a[i sa], b[i sb]), clamped to [act_min, act_max] but for SQUARED_DIFFERENCE, for i below
 * n rounded down to 8, strides 0 or 1; returns that count (0 for other strides). */
static inline int64_t rt_a64_binary_f32(int op, const rt_binary_params *p, const float *a, int64_t sa, const float *b,
                                        int64_t sb, float *o, int64_t n) {
    const float32x4_t lo = vdupq_n_f32(p->act_min), hi = vdupq_n_f32(p->act_max);
    const float32x4_t xa = vdupq_n_f32(a[0]), xb = vdupq_n_f32(b[0]);
    int64_t i;
    int h;
    if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1)) return 0;
    for (i = 0; i + 8 <= n; i += 8) {
        float32x4_t v[2];
        for (h = 0; h < 2; h++) {
            const float32x4_t x = sa ? vld1q_f32(a + i + 4 * h) : xa, y = sb ? vld1q_f32(b + i + 4 * h) : xb;
            if (op == RT_A64_SQDIFF) {
                const float32x4_t d = vsubq_f32(x, y);
                v[h] = vmulq_f32(d, d);
            } else {
                const float32x4_t r = op == RT_A64_ADD ? vaddq_f32(x, y) : op == RT_A64_SUB ? vsubq_f32(x, y)
                                                                                             : vmulq_f32(x, y);
                v[h] = vbslq_f32(vcltq_f32(r, lo), lo, vbslq_f32(vcgtq_f32(r, hi), hi, r));
            }
        }
        vst1q_f32(o + i, v[0]);
        vst1q_f32(o + i + 4, v[1]);
    }
    return i;
}
#define RT_A64_BINARY_F32(op, p, a, sa, b, sb, o, n) rt_a64_binary_f32(op, p, a, sa, b, sb, o, n)
#else
#define RT_A64_BINARY_F32(op, p, a, sa, b, sb, o, n) 0
#endif

#endif
