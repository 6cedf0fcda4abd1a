/* rt_a64_gemm_s8.h - AArch64 int8 GEMM tiles for rt_opt_gemm_s8.c (runtime/arm64, docs/arm64.md;
 * not API, included by that file only).
 *
 * The panels are pass schedule's (rt_opt.h): panel j holds column j*16 + c, k-quad q at
 * [q][c][0..3], K padded to a multiple of 4 with zero weights. The activations come as a + 128
 * bytes (0..255); the kernels flip the top bit back (a, int8), multiply int8 by int8 and add
 * 128 * (the column's weight sum) once: the sums of (a + 128) * w exactly, wrapping like TFLite's
 * int32 sums. With the dot product (__ARM_FEATURE_DOTPROD: --isa armv8.2a+dotprod) one SDOT
 * multiplies one row's quad by four columns (16 MACs); without it (--isa armv8a) SMULL/SMULL2
 * make the sixteen int16 products and two SADALP add them pairwise into int32 lanes (exact: a pair
 * of int8 products can reach 32768, one alone cannot leave int16). The tile is 4 rows x 16
 * columns: with the dot product 16 accumulators, 4 weight vectors and 4 activation vectors of
 * the 32 NEON registers. */
#ifndef MPCC_RT_A64_GEMM_S8_H
#define MPCC_RT_A64_GEMM_S8_H

#include <string.h>

#include "rt_a64.h"

#if defined(RT_A64)
#define RT_A64_MR 4 /* rows of an int8 tile */

static inline int8x16_t rt_a64_flip(uint8x16_t a) { return vreinterpretq_s8_u8(veorq_u8(a, vdupq_n_u8(0x80))); }

/* One quad of a + 128 bytes (unaligned), flipped to int8 and repeated in the four lanes. */
static inline int8x16_t rt_a64_quad(const uint8_t *a) {
    uint32_t w;
    memcpy(&w, a, 4);
    return vreinterpretq_s8_u32(vdupq_n_u32(w ^ 0x80808080u));
}

/* colsum[c] = 128 * (sum of panel b's column c over kq quads), wrapping. */
static void rt_a64_s8_colsum(int32_t kq, const int8_t *b, int32_t colsum[16]) {
    int32x4_t s[4];
    int32_t kk, q;
    for (q = 0; q < 4; q++) s[q] = vdupq_n_s32(0);
    for (kk = 0; kk < kq; kk++, b += 64)
        for (q = 0; q < 4; q++) {
#if defined(__ARM_FEATURE_DOTPROD)
            s[q] = vdotq_s32(s[q], vld1q_s8(b + 16 * q), vdupq_n_s8(1));
#else
            s[q] = vpadalq_s16(s[q], vpaddlq_s8(vld1q_s8(b + 16 * q)));
#endif
        }
    for (q = 0; q < 4; q++) vst1q_s32(colsum + 4 * q, vshlq_n_s32(s[q], 7));
}

#if defined(__ARM_FEATURE_DOTPROD)
/* acc[r][c] = sum over kq quads of a + 128 row r (r < mr <= 4, rows lda bytes apart) times panel
 * b's column c, given the panel's rt_a64_s8_colsum. Rows past mr repeat row 0 (never stored). */
static void rt_a64_s8_tile(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b,
                           const int32_t colsum[16], int32_t acc[RT_A64_MR][16]) {
    const uint8_t *ap[RT_A64_MR];
    int32x4_t c[RT_A64_MR][4];
    int32_t r, q, kk = 0;
    for (r = 0; r < RT_A64_MR; r++) {
        ap[r] = a + (int64_t)(r < mr ? r : 0) * lda;
        for (q = 0; q < 4; q++) c[r][q] = vld1q_s32(colsum + 4 * q);
    }
    /* four quads of each row in one vector: SDOT by lane */
#define RT_A64_DOT_LANE(L)                                                                                           \
    do {                                                                                                               \
        const int8x16_t b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16), b2 = vld1q_s8(b + 32), b3 = vld1q_s8(b + 48);        \
        for (r = 0; r < RT_A64_MR; r++) {                                                                              \
            c[r][0] = vdotq_laneq_s32(c[r][0], b0, av[r], L);                                                          \
            c[r][1] = vdotq_laneq_s32(c[r][1], b1, av[r], L);                                                          \
            c[r][2] = vdotq_laneq_s32(c[r][2], b2, av[r], L);                                                          \
            c[r][3] = vdotq_laneq_s32(c[r][3], b3, av[r], L);                                                          \
        }                                                                                                              \
        b += 64;                                                                                                       \
    } while (0)
    for (; kk + 4 <= kq; kk += 4) {
        int8x16_t av[RT_A64_MR];
        for (r = 0; r < RT_A64_MR; r++) av[r] = rt_a64_flip(vld1q_u8(ap[r] + 4 * kk));
        RT_A64_DOT_LANE(0);
        RT_A64_DOT_LANE(1);
        RT_A64_DOT_LANE(2);
        RT_A64_DOT_LANE(3);
    }
#undef RT_A64_DOT_LANE
    for (; kk < kq; kk++, b += 64)
        for (r = 0; r < RT_A64_MR; r++) {
            const int8x16_t av = rt_a64_quad(ap[r] + 4 * kk);
            for (q = 0; q < 4; q++) c[r][q] = vdotq_s32(c[r][q], vld1q_s8(b + 16 * q), av);
        }
    for (r = 0; r < mr; r++)
        for (q = 0; q < 4; q++) vst1q_s32(acc[r] + 4 * q, c[r][q]);
}
#else
/* The same without the dot product, two rows at a time (eight accumulators a row: columns
 * (c, k01) and (c, k23) of each pair of columns, added pairwise at the end). */
static void rt_a64_s8_tile(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b,
                           const int32_t colsum[16], int32_t acc[RT_A64_MR][16]) {
    int32_t r0, r, q, kk;
    for (r0 = 0; r0 < mr; r0 += 2) {
        const uint8_t *ap[2];
        const int8_t *bp = b;
        int32x4_t c[2][8];
        ap[0] = a + (int64_t)r0 * lda;
        ap[1] = r0 + 1 < mr ? ap[0] + lda : ap[0];
        for (r = 0; r < 2; r++)
            for (q = 0; q < 8; q++) c[r][q] = vdupq_n_s32(0);
        for (kk = 0; kk < kq; kk++, bp += 64)
            for (r = 0; r < 2; r++) {
                const int8x16_t av = rt_a64_quad(ap[r] + 4 * kk);
                for (q = 0; q < 4; q++) {
                    const int8x16_t w = vld1q_s8(bp + 16 * q);
                    c[r][2 * q] = vpadalq_s16(c[r][2 * q], vmull_s8(vget_low_s8(w), vget_low_s8(av)));
                    c[r][2 * q + 1] = vpadalq_s16(c[r][2 * q + 1], vmull_high_s8(w, av));
                }
            }
        for (r = 0; r < 2 && r0 + r < mr; r++)
            for (q = 0; q < 4; q++)
                vst1q_s32(acc[r0 + r] + 4 * q,
                          vaddq_s32(vpaddq_s32(c[r][2 * q], c[r][2 * q + 1]), vld1q_s32(colsum + 4 * q)));
    }
}
#endif

/* Requantizes mr rows of a 16-column tile: acc + bias, then rt_a64_rq_single or _double with the
 * columns' mult and shift (every shift in [-31, 0]), + offset, clamped to [qmin, qmax]; stores nr
 * bytes of each row, rows ldc bytes apart. */
static void rt_a64_requant_tile(const int32_t (*acc)[16], int32_t mr, const int32_t *bias, const int32_t *mult,
                                const int32_t *shift, int single, int32_t offset, int32_t qmin, int32_t qmax,
                                int8_t *c, int64_t ldc, int32_t nr) {
    const int32x4_t off = vdupq_n_s32(offset), lo = vdupq_n_s32(qmin), hi = vdupq_n_s32(qmax);
    int32x4_t m[4], s[4], bi[4], v[4];
    int32_t r, q;
    for (q = 0; q < 4; q++) {
        m[q] = vld1q_s32(mult + 4 * q);
        s[q] = vld1q_s32(shift + 4 * q);
        bi[q] = vld1q_s32(bias + 4 * q);
    }
    for (r = 0; r < mr; r++) {
        int8x16_t packed;
        for (q = 0; q < 4; q++) {
            const int32x4_t x = vaddq_s32(vld1q_s32(acc[r] + 4 * q), bi[q]);
            v[q] = single ? rt_a64_rq_single(x, m[q], s[q]) : rt_a64_rq_double(x, m[q], s[q]);
            v[q] = vminq_s32(vmaxq_s32(vaddq_s32(v[q], off), lo), hi);
        }
        packed = rt_a64_narrow16(v[0], v[1], v[2], v[3]);
        if (nr == 16) {
            vst1q_s8(c + (int64_t)r * ldc, packed);
        } else {
            int8_t t[16];
            vst1q_s8(t, packed);
            memcpy(c + (int64_t)r * ldc, t, (size_t)nr);
        }
    }
}
#endif

#endif
