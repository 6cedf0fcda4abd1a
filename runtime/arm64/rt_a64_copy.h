/* rt_a64_copy.h - AArch64 lanes for rt_opt_copy.c (runtime/arm64, docs/arm64.md; not API): 2..4 planes
 * of bytes interleaved into pixels (a PyTorch export's NCHW image transposed to NHWC) by ST2/ST3/ST4,
 * 16 pixels a step (GCC 12 at -O2 had left the loop a byte at a time: about 20 instructions a pixel of
 * mobilenet_v2 224's 224 x 224 x 3 input, 1 M an inference). */
#ifndef MPCC_RT_A64_COPY_H
#define MPCC_RT_A64_COPY_H

#include "rt_a64.h"

#if defined(RT_A64)
/* d[i * c + k] = s[k * plane + i] for the first pixels i (c in 2..4); returns how many it did (a multiple
 * of 16; the rest: the scalar loop). */
static int64_t rt_a64_interleave_u8(const uint8_t *s, uint8_t *d, int64_t len, int64_t c, int64_t plane) {
    int64_t i = 0;
    if (c == 2) {
        for (; i + 16 <= len; i += 16) {
            uint8x16x2_t v;
            v.val[0] = vld1q_u8(s + i), v.val[1] = vld1q_u8(s + plane + i);
            vst2q_u8(d + 2 * i, v);
        }
    } else if (c == 3) {
        for (; i + 16 <= len; i += 16) {
            uint8x16x3_t v;
            v.val[0] = vld1q_u8(s + i), v.val[1] = vld1q_u8(s + plane + i), v.val[2] = vld1q_u8(s + 2 * plane + i);
            vst3q_u8(d + 3 * i, v);
        }
    } else if (c == 4) {
        for (; i + 16 <= len; i += 16) {
            uint8x16x4_t v;
            v.val[0] = vld1q_u8(s + i), v.val[1] = vld1q_u8(s + plane + i);
            v.val[2] = vld1q_u8(s + 2 * plane + i), v.val[3] = vld1q_u8(s + 3 * plane + i);
            vst4q_u8(d + 4 * i, v);
        }
    }
    return i;
}
#endif

#endif
