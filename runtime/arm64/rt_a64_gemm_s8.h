/* rt_a64_gemm_s8.h - AArch64 int8 GEMM tiles for rt_opt_gemm_s8.c (runtime/arm64, docs/arm64.md;
 * not API, included by that file only).
 *
 * The panels are pass schedule's (rt_opt.h): panel j holds column j*16 + c, k-quad q at
 * [q][c][0..3], K padded to a multiple of 4 with zero weights. The activations come either as
 * a + 128 bytes (0..255; flip set: the widened rows and im2col blocks), which the kernels flip
 * back to int8 (EOR of the top bit), or as the int8 rows themselves (read in place). The kernels
 * multiply int8 by int8 and start the accumulators at the panel's init = bias + 128 * (the column's
 * weight sum): the sums of (a + 128) * w exactly, wrapping like TFLite's int32 sums. With the dot
 * product (__ARM_FEATURE_DOTPROD: --isa armv8.2a+dotprod) one SDOT multiplies one row's quad by
 * four columns (16 MACs); without it (--isa armv8a) SMULL/SMULL2 make the sixteen int16 products
 * and two SADALP add them pairwise into int32 lanes (exact: a pair of int8 products can reach
 * 32768, one alone cannot leave int16). The tile is 4 rows x 16 columns (1 x 16 for a single row):
 * with the dot product 16 accumulators, 4 weight vectors and 4 activation vectors of the 32 NEON
 * registers. The loops over rows and columns are unrolled (RT_A64_UNROLL) so that the
 * accumulators stay in registers; the requantization runs on them in registers (rt_a64_s8_panel_rq)
 * or they are stored as int32 (rt_a64_s8_tile, for the per-row terms and float outputs). */
#ifndef MPCC_RT_A64_GEMM_S8_H
#define MPCC_RT_A64_GEMM_S8_H

#include <string.h>

#include "rt_a64.h"

#if defined(RT_A64)
#define RT_A64_MR 4 /* rows of an int8 tile */

/* init[c] = bias[c] (0 where bias is NULL) + 128 * (sum of panel b's column c over kq quads), wrapping. */
static void rt_a64_s8_init(int32_t kq, const int8_t *b, const int32_t *bias, int32_t init[16]) {
    int32x4_t s[4];
    int32_t kk, q;
    RT_A64_UNROLL for (q = 0; q < 4; q++) s[q] = vdupq_n_s32(0);
    for (kk = 0; kk < kq; kk++, b += 64)
        RT_A64_UNROLL for (q = 0; q < 4; q++) {
#if defined(__ARM_FEATURE_DOTPROD)
            s[q] = vdotq_s32(s[q], vld1q_s8(b + 16 * q), vdupq_n_s8(1));
#else
            s[q] = vpadalq_s16(s[q], vpaddlq_s8(vld1q_s8(b + 16 * q)));
#endif
        }
    RT_A64_UNROLL for (q = 0; q < 4; q++)
        vst1q_s32(init + 4 * q, vaddq_s32(vshlq_n_s32(s[q], 7), bias ? vld1q_s32(bias + 4 * q) : vdupq_n_s32(0)));
}

/* One quad of row bytes (unaligned) xor fl, repeated in the four lanes. */
static inline int8x16_t rt_a64_quad(const uint8_t *a, uint32_t fl) {
    uint32_t w;
    memcpy(&w, a, 4);
    return vreinterpretq_s8_u32(vdupq_n_u32(w ^ fl));
}

/* Stores row r's four sums as int32 at d. */
static inline __attribute__((always_inline)) void rt_a64_acc_row(const int32x4_t v[4], int32_t *d) {
    int32_t i;
    RT_A64_UNROLL for (i = 0; i < 4; i++) vst1q_s32(d + 4 * i, v[i]);
}

#if defined(__ARM_FEATURE_DOTPROD)
/* The sums of rows 0..MR (at a + r * lda, rows past mr repeating row 0, or at rows[r]) times panel
 * b, started at init, into c; K as nrun runs of kq quads, run s
 * of a row `step` bytes after run s - 1 (a GEMM: one run; a convolution read from its image: one run
 * of filter_w x in_c bytes per filter row), b's quads contiguous across the runs; flip: the rows are
 * a + 128 bytes. MR is a constant (the callers below), so that the unrolled loops index c with
 * constants: registers. */
static inline __attribute__((always_inline)) void rt_a64_s8_sums(const int32_t MR, int32_t nrun, int32_t kq,
                                                                 int64_t step, const uint8_t *a, int32_t lda,
                                                                 const uint8_t *const *rows, int32_t mr, int flip,
                                                                 const int8_t *b, const int32_t init[16],
                                                                 int32x4_t c[RT_A64_MR][4]) {
    const uint8_t *ap[RT_A64_MR];
    const uint8x16_t fl = vdupq_n_u8(flip ? 0x80 : 0);
    int32_t r, q, kk, run;
    RT_A64_UNROLL for (r = 0; r < MR; r++) {
        ap[r] = rows ? rows[r] : a + (int64_t)(r < mr ? r : 0) * lda;
        RT_A64_UNROLL for (q = 0; q < 4; q++) c[r][q] = vld1q_s32(init + 4 * q);
    }
    /* four quads of each row in one vector: SDOT by lane */
#define RT_A64_DOT_LANE(L)                                                                                           \
    do {                                                                                                               \
        const int8x16_t b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16), b2 = vld1q_s8(b + 32), b3 = vld1q_s8(b + 48);        \
        RT_A64_UNROLL for (r = 0; r < MR; r++) {                                                                       \
            c[r][0] = vdotq_laneq_s32(c[r][0], b0, av[r], L);                                                          \
            c[r][1] = vdotq_laneq_s32(c[r][1], b1, av[r], L);                                                          \
            c[r][2] = vdotq_laneq_s32(c[r][2], b2, av[r], L);                                                          \
            c[r][3] = vdotq_laneq_s32(c[r][3], b3, av[r], L);                                                          \
        }                                                                                                              \
        b += 64;                                                                                                       \
    } while (0)
    for (run = 0; run < nrun; run++) {
        for (kk = 0; kk + 4 <= kq; kk += 4) {
            int8x16_t av[RT_A64_MR];
            RT_A64_UNROLL for (r = 0; r < MR; r++) av[r] = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(ap[r] + 4 * kk), fl));
            RT_A64_DOT_LANE(0);
            RT_A64_DOT_LANE(1);
            RT_A64_DOT_LANE(2);
            RT_A64_DOT_LANE(3);
        }
        for (; kk < kq; kk++, b += 64) {
            const int8x16_t b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16), b2 = vld1q_s8(b + 32), b3 = vld1q_s8(b + 48);
            RT_A64_UNROLL for (r = 0; r < MR; r++) {
                const int8x16_t av = rt_a64_quad(ap[r] + 4 * kk, flip ? 0x80808080u : 0);
                c[r][0] = vdotq_s32(c[r][0], b0, av);
                c[r][1] = vdotq_s32(c[r][1], b1, av);
                c[r][2] = vdotq_s32(c[r][2], b2, av);
                c[r][3] = vdotq_s32(c[r][3], b3, av);
            }
        }
        RT_A64_UNROLL for (r = 0; r < MR; r++) ap[r] += step;
    }
#undef RT_A64_DOT_LANE
}

/* One SDOT lane L of the 4 x 16 tile: the four weight vectors of a quad (v4..v7, one LD1) times quad L
 * of each row's activations (v0..v3) into the accumulators %[cRQ] (row R, columns 4Q..4Q+3). */
#define RT_A64_SD(C, W, A, L) "sdot %[" #C "].4s, v" #W ".16b, v" #A ".4b[" #L "]\n"
#define RT_A64_SD_ROW(R, L)                                                                                          \
    RT_A64_SD(c##R##0, 4, R, L) RT_A64_SD(c##R##1, 5, R, L) RT_A64_SD(c##R##2, 6, R, L) RT_A64_SD(c##R##3, 7, R, L)
#define RT_A64_SD_LANE(L)                                                                                             \
    "ld1 {v4.16b-v7.16b}, [x13], #64\n" RT_A64_SD_ROW(0, L) RT_A64_SD_ROW(1, L) RT_A64_SD_ROW(2, L) RT_A64_SD_ROW(3, L)
#define RT_A64_EOR4                                                                                                   \
    "eor v0.16b, v0.16b, %[fl].16b\n" "eor v1.16b, v1.16b, %[fl].16b\n" "eor v2.16b, v2.16b, %[fl].16b\n"          \
    "eor v3.16b, v3.16b, %[fl].16b\n"
/* The 4 x 16 tile's sums in assembly (with intrinsics GCC 12 at -O2 kept a spill and a load per
 * weight vector in its k loop: about 85 instructions per 64 SDOT, 74 here): the accumulators start at
 * init; the rows' pointers (x9..x12) from ap; nrun runs (w15) of kq quads, the pointers advancing by
 * adv after each run; four quads of each row a step (LDR q), then the last kq % 4 one at a time (LDR s:
 * lane 0). EOR: the rows are a + 128 bytes, flipped back. */
#define RT_A64_SUMS4_ASM(EOR)                                                                                         \
    "ldr %q[c00], [%[init]]\n" "ldr %q[c01], [%[init], #16]\n" "ldr %q[c02], [%[init], #32]\n"                      \
    "ldr %q[c03], [%[init], #48]\n"                                                                                  \
    "mov %[c10].16b, %[c00].16b\n" "mov %[c11].16b, %[c01].16b\n" "mov %[c12].16b, %[c02].16b\n"                    \
    "mov %[c13].16b, %[c03].16b\n" "mov %[c20].16b, %[c00].16b\n" "mov %[c21].16b, %[c01].16b\n"                    \
    "mov %[c22].16b, %[c02].16b\n" "mov %[c23].16b, %[c03].16b\n" "mov %[c30].16b, %[c00].16b\n"                    \
    "mov %[c31].16b, %[c01].16b\n" "mov %[c32].16b, %[c02].16b\n" "mov %[c33].16b, %[c03].16b\n"                    \
    "ldp x9, x10, [%[ap]]\n" "ldp x11, x12, [%[ap], #16]\n"                                                         \
    "mov x13, %[b]\n"                                                                                                 \
    "mov w15, %w[nrun]\n"                                                                                             \
    "1:\n"                                                                                                            \
    "lsr w14, %w[kq], #2\n"                                                                                           \
    "cbz w14, 3f\n"                                                                                                   \
    "2:\n"                                                                                                            \
    "ldr q0, [x9], #16\n" "ldr q1, [x10], #16\n" "ldr q2, [x11], #16\n" "ldr q3, [x12], #16\n"                       \
    EOR RT_A64_SD_LANE(0) RT_A64_SD_LANE(1) RT_A64_SD_LANE(2) RT_A64_SD_LANE(3)                                      \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 2b\n"                                                                                                       \
    "3:\n"                                                                                                            \
    "ands w14, %w[kq], #3\n"                                                                                          \
    "b.eq 5f\n"                                                                                                       \
    "4:\n"                                                                                                            \
    "ldr s0, [x9], #4\n" "ldr s1, [x10], #4\n" "ldr s2, [x11], #4\n" "ldr s3, [x12], #4\n"                           \
    EOR RT_A64_SD_LANE(0)                                                                                             \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 4b\n"                                                                                                       \
    "5:\n"                                                                                                            \
    "add x9, x9, %[adv]\n" "add x10, x10, %[adv]\n" "add x11, x11, %[adv]\n" "add x12, x12, %[adv]\n"              \
    "subs w15, w15, #1\n"                                                                                             \
    "b.ne 1b\n"
#define RT_A64_SUMS4_OUT                                                                                              \
    [c00] "=&w"(c[0][0]), [c01] "=&w"(c[0][1]), [c02] "=&w"(c[0][2]), [c03] "=&w"(c[0][3]), [c10] "=&w"(c[1][0]),   \
        [c11] "=&w"(c[1][1]), [c12] "=&w"(c[1][2]), [c13] "=&w"(c[1][3]), [c20] "=&w"(c[2][0]),                      \
        [c21] "=&w"(c[2][1]), [c22] "=&w"(c[2][2]), [c23] "=&w"(c[2][3]), [c30] "=&w"(c[3][0]),                      \
        [c31] "=&w"(c[3][1]), [c32] "=&w"(c[3][2]), [c33] "=&w"(c[3][3])
#define RT_A64_SUMS4_IN [ap] "r"(ap), [b] "r"(b), [init] "r"(init), [kq] "r"(kq), [nrun] "r"(nrun), [adv] "r"(adv)
#define RT_A64_SUMS4_CLOBBER                                                                                          \
    "x9", "x10", "x11", "x12", "x13", "x14", "x15", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "cc", "memory"

/* The sums of four rows at ap[0..3] times panel b, started at init, into c: K as nrun (>= 1) runs of kq
 * quads, run s of a row `step` bytes after run s - 1 (rt_a64_s8_sums); flip: the rows are a + 128 bytes. */
static inline __attribute__((always_inline)) void rt_a64_s8_sums4(int32_t nrun, int32_t kq, int64_t step,
                                                                  const uint8_t *const ap[RT_A64_MR], int flip,
                                                                  const int8_t *b, const int32_t init[16],
                                                                  int32x4_t c[RT_A64_MR][4]) {
    const int64_t adv = step - 4 * (int64_t)kq;
    if (flip) {
        const uint8x16_t fl = vdupq_n_u8(0x80);
        __asm__ volatile(RT_A64_SUMS4_ASM(RT_A64_EOR4)
                         : RT_A64_SUMS4_OUT
                         : RT_A64_SUMS4_IN, [fl] "w"(fl)
                         : RT_A64_SUMS4_CLOBBER);
    } else {
        __asm__ volatile(RT_A64_SUMS4_ASM("") : RT_A64_SUMS4_OUT : RT_A64_SUMS4_IN : RT_A64_SUMS4_CLOBBER);
    }
}

/* The tile of rows 0..mr (rows past mr repeat row 0) at a + r * lda or, rows set, at rows[r]
 * (rt_a64_s8_sums' K runs), requantized (q) into mr rows of nr bytes at c, ldc bytes apart, or
 * (q NULL) stored as int32 into acc. */
static inline __attribute__((always_inline)) void rt_a64_s8_tile_mr(const int32_t MR, int32_t nrun, int32_t kq,
                                                                    int64_t step, const uint8_t *a, int32_t lda,
                                                                    const uint8_t *const *rows, int32_t mr, int flip,
                                                                    const int8_t *b,
                                                                    const int32_t init[16], const rt_a64_rq_cols *q,
                                                                    int8_t *c, int64_t ldc, int32_t nr,
                                                                    int32_t (*acc)[16]) {
    int32x4_t v[RT_A64_MR][4];
    rt_a64_rq_regs k;
    int32_t r;
    if (MR == RT_A64_MR) {
        const uint8_t *ap[RT_A64_MR];
        RT_A64_UNROLL for (r = 0; r < RT_A64_MR; r++) ap[r] = rows ? rows[r] : a + (int64_t)(r < mr ? r : 0) * lda;
        rt_a64_s8_sums4(nrun, kq, step, ap, flip, b, init, v);
    } else {
        rt_a64_s8_sums(MR, nrun, kq, step, a, lda, rows, mr, flip, b, init, v);
    }
    if (q) rt_a64_rq_load(q, &k);
    RT_A64_UNROLL for (r = 0; r < MR; r++) {
        if (r >= mr) break;
        if (q) rt_a64_rq_row(v[r], &k, c + (int64_t)r * ldc, nr);
        else rt_a64_acc_row(v[r], acc[r]);
    }
}
#else
/* The same without the dot product, two rows at a time (eight accumulators a row: columns
 * (c, k01) and (c, k23) of each pair of columns, added pairwise at the end). */
static inline __attribute__((always_inline)) void rt_a64_s8_tile_mr(const int32_t MR, int32_t nrun, int32_t kq,
                                                                    int64_t step, const uint8_t *a, int32_t lda,
                                                                    const uint8_t *const *rows, int32_t mr, int flip,
                                                                    const int8_t *b,
                                                                    const int32_t init[16], const rt_a64_rq_cols *q,
                                                                    int8_t *c, int64_t ldc, int32_t nr,
                                                                    int32_t (*acc)[16]) {
    const uint32_t fl = flip ? 0x80808080u : 0;
    rt_a64_rq_regs k;
    int32_t r0, r, i, kk, run;
    if (q) rt_a64_rq_load(q, &k);
    for (r0 = 0; r0 < mr; r0 += 2) {
        const uint8_t *ap[2];
        const int8_t *bp = b;
        int32x4_t s[2][8], v[2][4];
        ap[0] = rows ? rows[r0] : a + (int64_t)r0 * lda;
        ap[1] = r0 + 1 < mr ? (rows ? rows[r0 + 1] : ap[0] + lda) : ap[0];
        RT_A64_UNROLL for (r = 0; r < 2; r++)
            RT_A64_UNROLL for (i = 0; i < 8; i++) s[r][i] = vdupq_n_s32(0);
        for (run = 0; run < nrun; run++) {
            for (kk = 0; kk < kq; kk++, bp += 64) {
                const int8x16_t w0 = vld1q_s8(bp), w1 = vld1q_s8(bp + 16), w2 = vld1q_s8(bp + 32), w3 = vld1q_s8(bp + 48);
                RT_A64_UNROLL for (r = 0; r < 2; r++) {
                    const int8x16_t av = rt_a64_quad(ap[r] + 4 * kk, fl);
                    s[r][0] = vpadalq_s16(s[r][0], vmull_s8(vget_low_s8(w0), vget_low_s8(av)));
                    s[r][1] = vpadalq_s16(s[r][1], vmull_high_s8(w0, av));
                    s[r][2] = vpadalq_s16(s[r][2], vmull_s8(vget_low_s8(w1), vget_low_s8(av)));
                    s[r][3] = vpadalq_s16(s[r][3], vmull_high_s8(w1, av));
                    s[r][4] = vpadalq_s16(s[r][4], vmull_s8(vget_low_s8(w2), vget_low_s8(av)));
                    s[r][5] = vpadalq_s16(s[r][5], vmull_high_s8(w2, av));
                    s[r][6] = vpadalq_s16(s[r][6], vmull_s8(vget_low_s8(w3), vget_low_s8(av)));
                    s[r][7] = vpadalq_s16(s[r][7], vmull_high_s8(w3, av));
                }
            }
            ap[0] += step, ap[1] += step;
        }
        RT_A64_UNROLL for (r = 0; r < 2; r++)
            RT_A64_UNROLL for (i = 0; i < 4; i++)
                v[r][i] = vaddq_s32(vpaddq_s32(s[r][2 * i], s[r][2 * i + 1]), vld1q_s32(init + 4 * i));
        RT_A64_UNROLL for (r = 0; r < 2; r++) {
            if (r0 + r >= mr) break;
            if (q) rt_a64_rq_row(v[r], &k, c + (int64_t)(r0 + r) * ldc, nr);
            else rt_a64_acc_row(v[r], acc[r0 + r]);
        }
    }
    (void)MR;
}
#endif

/* acc[r][c] = the sums of rows 0..mr (at most 4; a + 128 bytes with flip, else int8) times panel b, from
 * init (int32). */
static __attribute__((noinline)) void rt_a64_s8_tile(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, int flip,
                                                     const int8_t *b, const int32_t init[16],
                                                     int32_t acc[RT_A64_MR][16]) {
    rt_a64_s8_tile_mr(RT_A64_MR, 1, kq, 0, a, lda, NULL, mr, flip, b, init, NULL, NULL, 0, 16, acc);
}

/* A panel's m rows at a + r * lda (flip: a + 128 bytes, else int8), requantized (q) into nr bytes a row at
 * c (rows ldc bytes apart): 4-row tiles while two or more rows remain, a last single row on the 1 x 16
 * tile, all in one call (its set-up and the requantization constants once a panel, not once a tile). */
static inline __attribute__((always_inline)) void rt_a64_s8_panel_rq_f(int flip, int32_t kq, const uint8_t *a,
                                                                       int32_t lda, int32_t m, const int8_t *b,
                                                                       const int32_t init[16],
                                                                       const rt_a64_rq_cols *q, int8_t *c,
                                                                       int64_t ldc, int32_t nr) {
    int32_t i;
    for (i = 0; i + RT_A64_MR <= m || (i < m && m - i > 1); i += RT_A64_MR)
        rt_a64_s8_tile_mr(RT_A64_MR, 1, kq, 0, a + (int64_t)i * lda, lda, NULL, m - i < RT_A64_MR ? m - i : RT_A64_MR,
                          flip, b, init, q, c + (int64_t)i * ldc, ldc, nr, NULL);
    if (i < m) rt_a64_s8_tile_mr(1, 1, kq, 0, a + (int64_t)i * lda, 0, NULL, 1, flip, b, init, q, c + (int64_t)i * ldc, 0,
                                 nr, NULL);
}

static __attribute__((noinline)) void rt_a64_s8_panel_rq(int32_t kq, const uint8_t *a, int32_t lda, int32_t m,
                                                         int flip, const int8_t *b, const int32_t init[16],
                                                         const rt_a64_rq_cols *q, int8_t *c, int64_t ldc,
                                                         int32_t nr) {
    if (flip) rt_a64_s8_panel_rq_f(1, kq, a, lda, m, b, init, q, c, ldc, nr);
    else rt_a64_s8_panel_rq_f(0, kq, a, lda, m, b, init, q, c, ldc, nr);
}

/* A convolution's rows read from its image (int8, padding in it): rows 0..n at ptr[r] (ptr holds 3 more
 * valid pointers past n, for the last tile's repeated rows), K as nrun runs of kq quads `step` bytes
 * apart, requantized (q) into nr bytes a row at c (rows ldc bytes apart): 4-row tiles in one call (the
 * call's set-up and the requantization constants once, not per tile). */
static __attribute__((noinline)) void rt_a64_s8_rows_rq_runs(int32_t nrun, int32_t kq, int64_t step,
                                                             const uint8_t *const *ptr, int32_t n, const int8_t *b,
                                                             const int32_t init[16], const rt_a64_rq_cols *q,
                                                             int8_t *c, int64_t ldc, int32_t nr) {
    int32_t i;
    for (i = 0; i < n; i += RT_A64_MR)
        rt_a64_s8_tile_mr(RT_A64_MR, nrun, kq, step, NULL, 0, ptr + i, n - i < RT_A64_MR ? n - i : RT_A64_MR, 0, b,
                          init, q, c + (int64_t)i * ldc, ldc, nr, NULL);
}
#endif

#endif
