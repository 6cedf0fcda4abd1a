/* rt_a64_mean_s8.h - the AArch64 lanes of the int8 MEAN over adjacent axes (global average pooling)
 * for rt_opt_elementwise.c's rt_opt_mean_i8 (runtime/arm64, docs/arm64.md; not API): 16 kept
 * channels at a time, their sums in registers (up to 256 rows added in int16 lanes, exact: |sum| <=
 * 256 * 128, then widened into int32 lanes; an exact sum is the reference's wrapped uint32 sum), then
 * rt_mean_q on the lanes: the sum minus n * in_zp (wrapping), TFLite's requantization
 * (rt_a64_rq_double), plus out_zp (wrapping) and the clamp to int8 by the saturating narrowings. */
#ifndef MPCC_RT_A64_MEAN_S8_H
#define MPCC_RT_A64_MEAN_S8_H

#include "rt_a64.h"

#if defined(RT_A64)
/* 1 when rt_a64_mean_s8 applies: some values averaged, the shift in [-31, 31]. */
static inline int rt_a64_mean_s8_ok(const rt_reduce_params *p) {
    return p->reduce_count > 0 && p->shift >= -31 && p->shift <= 31;
}

/* The means of the first channels of src (red rows of inner channels) into out, 16 at a time; returns
 * how many it wrote (the rest: the scalar loop). */
static int64_t rt_a64_mean_s8(const rt_reduce_params *p, const int8_t *src, int64_t red, int64_t inner,
                              int8_t *out) {
    const int32x4_t zc = vdupq_n_s32((int32_t)((uint32_t)p->in_zp * (uint32_t)p->reduce_count));
    const int32x4_t m = vdupq_n_s32(p->mult), s = vdupq_n_s32(p->shift), oz = vdupq_n_s32(p->out_zp);
    int64_t i, r, r1;
    for (i = 0; i + 16 <= inner; i += 16) {
        int32x4_t a[4];
        int j;
        for (j = 0; j < 4; j++) a[j] = vdupq_n_s32(0);
        for (r = 0; r < red; r = r1) {
            int16x8_t h0 = vdupq_n_s16(0), h1 = vdupq_n_s16(0);
            r1 = red - r > 256 ? r + 256 : red;
            for (; r < r1; r++) {
                const int8x16_t x = vld1q_s8(src + r * inner + i);
                h0 = vaddw_s8(h0, vget_low_s8(x)), h1 = vaddw_high_s8(h1, x);
            }
            a[0] = vaddw_s16(a[0], vget_low_s16(h0)), a[1] = vaddw_high_s16(a[1], h0);
            a[2] = vaddw_s16(a[2], vget_low_s16(h1)), a[3] = vaddw_high_s16(a[3], h1);
        }
        for (j = 0; j < 4; j++) a[j] = vaddq_s32(rt_a64_rq_double(vsubq_s32(a[j], zc), m, s), oz);
        vst1q_s8(out + i, vqmovn_high_s16(vqmovn_s16(vqmovn_high_s32(vqmovn_s32(a[0]), a[1])),
                                          vqmovn_high_s32(vqmovn_s32(a[2]), a[3])));
    }
    return i;
}
#endif

#endif
