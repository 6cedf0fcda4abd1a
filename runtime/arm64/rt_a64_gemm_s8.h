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

/* The requantization stages of rt_a64_s8_panel4_rq / rt_a64_s8_panel2_rq (inline assembly on fixed
 * registers): OP applied to each vector of sums (OP(its register, its multipliers' register, its shifts'
 * register)) or to each row (OP(the row's four registers)). */
#define RT_A64_ALL16(OP)                                                                                            \
    OP(16, 4, 0) OP(17, 5, 1) OP(18, 6, 2) OP(19, 7, 3) OP(20, 4, 0) OP(21, 5, 1) OP(22, 6, 2) OP(23, 7, 3)        \
    OP(24, 4, 0) OP(25, 5, 1) OP(26, 6, 2) OP(27, 7, 3) OP(28, 4, 0) OP(29, 5, 1) OP(30, 6, 2) OP(31, 7, 3)
#define RT_A64_ROWS4(OP) OP(16, 17, 18, 19) OP(20, 21, 22, 23) OP(24, 25, 26, 27) OP(28, 29, 30, 31)
#define RT_A64_RQ_MUL(C, M, S) "sqrdmulh v" #C ".4s, v" #C ".4s, v" #M ".4s\n"
#define RT_A64_RQ_SIGN(C, M, S) "ssra v" #C ".4s, v" #C ".4s, #31\n"
#define RT_A64_RQ_SHIFT(C, M, S) "srshl v" #C ".4s, v" #C ".4s, v" #S ".4s\n"
#define RT_A64_RQ_N16(C0, C1, C2, C3)                                                                               \
    "sqxtn v" #C0 ".4h, v" #C0 ".4s\n" "sqxtn2 v" #C0 ".8h, v" #C1 ".4s\n" "sqxtn v" #C2 ".4h, v" #C2 ".4s\n"       \
    "sqxtn2 v" #C2 ".8h, v" #C3 ".4s\n"
#define RT_A64_RQ_OFF(C0, C1, C2, C3)                                                                               \
    "sqadd v" #C0 ".8h, v" #C0 ".8h, %[off].8h\n" "sqadd v" #C2 ".8h, v" #C2 ".8h, %[off].8h\n"
#define RT_A64_RQ_N8(C0, C1, C2, C3) "sqxtn v" #C0 ".8b, v" #C0 ".8h\n" "sqxtn2 v" #C0 ".16b, v" #C2 ".8h\n"
#define RT_A64_RQ_CLAMP(C0, C1, C2, C3)                                                                             \
    "smax v" #C0 ".16b, v" #C0 ".16b, %[lo].16b\n" "smin v" #C0 ".16b, v" #C0 ".16b, %[hi].16b\n"
#define RT_A64_RQ_NOCLAMP(C0, C1, C2, C3) ""
#define RT_A64_RQ_ST16(C0, C1, C2, C3) "st1 {v" #C0 ".16b}, [x15], %[ldc]\n"
#define RT_A64_RQ_ST8(C0, C1, C2, C3) "st1 {v" #C0 ".8b}, [x15], %[ldc]\n"
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

/* The panel's 4 x 16 tiles with the requantization in assembly too (rt_a64_s8_panel_rq's usual case:
 * double rounding, every shift of the panel a right shift, 16 or 8 columns stored). In C (intrinsics
 * around rt_a64_s8_sums4) GCC 12 at -O2 reloaded the constants and re-tested the rounding kind and
 * the width every tile, and spilled a row of sums: at K of 8..64 (mobilenetv2's 1x1 convolutions) that
 * outweighed the SDOTs. Here: the sums start at init (four LD1 of four vectors), row r in v16+4r..v19+4r,
 * rows v0..v3, weights v4..v7 (as rt_a64_s8_sums4); then the multipliers (v4..v7) and shifts (v0..v3)
 * are loaded (two LD1) and the 64 sums requantized by stages: rt_a64_rq_right (SQRDMULH, SSRA of the
 * sign, SRSHL), SQXTN/SQXTN2 to int16, the offset added (SQADD), SQXTN/SQXTN2 to int8 (16 bytes a row),
 * the clamp only where it is not [-128, 127] (the saturating narrowings already give that), one ST1 a row
 * (post-indexed by ldc): 21 instructions a row of 16 outputs, as rt_a64_rq_row's bytes. */
#define RT_A64_SDX(C, W, A, L) "sdot v" #C ".4s, v" #W ".16b, v" #A ".4b[" #L "]\n"
#define RT_A64_SDX_ROW(C0, C1, C2, C3, A, L)                                                                        \
    RT_A64_SDX(C0, 4, A, L) RT_A64_SDX(C1, 5, A, L) RT_A64_SDX(C2, 6, A, L) RT_A64_SDX(C3, 7, A, L)
#define RT_A64_SDX_LANE(L)                                                                                          \
    "ld1 {v4.16b-v7.16b}, [x13], #64\n" RT_A64_SDX_ROW(16, 17, 18, 19, 0, L) RT_A64_SDX_ROW(20, 21, 22, 23, 1, L)  \
    RT_A64_SDX_ROW(24, 25, 26, 27, 2, L) RT_A64_SDX_ROW(28, 29, 30, 31, 3, L)
/* PTRS sets the rows' pointers x9..x12 (RT_A64_PTRS_LDA: a + r * lda; RT_A64_PTRS_TABLE: the next four of
 * a table); RUN0 / RUN1 around the k loops: K as nrun runs (RT_A64_RUNS0 / 1, rt_a64_s8_sums4's) or one. */
#define RT_A64_PTRS_LDA                                                                                               \
    "mov x9, %[a]\n" "add x10, x9, %[lda]\n" "add x11, x10, %[lda]\n" "add x12, x11, %[lda]\n"                      \
    "add %[a], x12, %[lda]\n"
#define RT_A64_PTRS_TABLE "ldp x9, x10, [%[a]], #16\n" "ldp x11, x12, [%[a]], #16\n"
#define RT_A64_RUNS0 "mov w16, %w[nrun]\n" "6:\n"
#define RT_A64_RUNS1                                                                                                  \
    "add x9, x9, %[lda]\n" "add x10, x10, %[lda]\n" "add x11, x11, %[lda]\n" "add x12, x12, %[lda]\n"              \
    "subs w16, w16, #1\n" "b.ne 6b\n"
#define RT_A64_PANEL4_ASM(EOR, CLAMP, ST, PTRS, RUN0, RUN1)                                                         \
    "mov x15, %[c]\n"                                                                                                 \
    "1:\n"                                                                                                            \
    PTRS                                                                                                              \
    "ld1 {v16.4s-v19.4s}, [%[init]]\n" "ld1 {v20.4s-v23.4s}, [%[init]]\n" "ld1 {v24.4s-v27.4s}, [%[init]]\n"         \
    "ld1 {v28.4s-v31.4s}, [%[init]]\n"                                                                                \
    "mov x13, %[b]\n"                                                                                                 \
    RUN0                                                                                                              \
    "lsr w14, %w[kq], #2\n"                                                                                           \
    "cbz w14, 3f\n"                                                                                                   \
    "2:\n"                                                                                                            \
    "ldr q0, [x9], #16\n" "ldr q1, [x10], #16\n" "ldr q2, [x11], #16\n" "ldr q3, [x12], #16\n"                       \
    EOR RT_A64_SDX_LANE(0) RT_A64_SDX_LANE(1) RT_A64_SDX_LANE(2) RT_A64_SDX_LANE(3)                                  \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 2b\n"                                                                                                       \
    "3:\n"                                                                                                            \
    "ands w14, %w[kq], #3\n"                                                                                          \
    "b.eq 5f\n"                                                                                                       \
    "4:\n"                                                                                                            \
    "ldr s0, [x9], #4\n" "ldr s1, [x10], #4\n" "ldr s2, [x11], #4\n" "ldr s3, [x12], #4\n"                           \
    EOR RT_A64_SDX_LANE(0)                                                                                            \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 4b\n"                                                                                                       \
    "5:\n"                                                                                                            \
    RUN1                                                                                                              \
    "ld1 {v4.4s-v7.4s}, [%[mult]]\n" "ld1 {v0.4s-v3.4s}, [%[shift]]\n"                                               \
    RT_A64_ALL16(RT_A64_RQ_MUL) RT_A64_ALL16(RT_A64_RQ_SIGN) RT_A64_ALL16(RT_A64_RQ_SHIFT)                           \
    RT_A64_ROWS4(RT_A64_RQ_N16) RT_A64_ROWS4(RT_A64_RQ_OFF) RT_A64_ROWS4(RT_A64_RQ_N8) RT_A64_ROWS4(CLAMP)           \
    RT_A64_ROWS4(ST)                                                                                                  \
    "subs %w[t], %w[t], #1\n"                                                                                         \
    "b.ne 1b\n"

/* The assembly is one string of about 6 KB (its k loops and requantization unrolled), over C99's minimum
 * of 4095 that -pedantic warns about; GCC and Clang take it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
/* Rows 0..4t of a panel at a + r * lda (flip: a + 128 bytes, else int8) times panel b from init,
 * requantized (double rounding, every shift a right shift) into nr (16 or 8) bytes a row at c, rows ldc
 * bytes apart. */
static inline __attribute__((always_inline)) void rt_a64_s8_panel4_rq(int32_t t, int32_t kq, const uint8_t *a,
                                                                      int64_t lda, int flip, const int8_t *b,
                                                                      const int32_t init[16],
                                                                      const rt_a64_rq_cols *q, int8_t *c,
                                                                      int64_t ldc, int32_t nr) {
    const uint8x16_t fl = vdupq_n_u8(0x80);
    const int16x8_t off = vdupq_n_s16((int16_t)q->offset);
    const int8x16_t lo = vdupq_n_s8((int8_t)q->qmin), hi = vdupq_n_s8((int8_t)q->qmax);
    const int clamp = q->qmin > -128 || q->qmax < 127;
#define RT_A64_PANEL4_CASE(EOR, CLAMP, ST)                                                                          \
    __asm__ volatile(RT_A64_PANEL4_ASM(EOR, CLAMP, ST, RT_A64_PTRS_LDA, "", "")                                     \
                     : [a] "+r"(a), [t] "+r"(t)                                                                       \
                     : [lda] "r"(lda), [b] "r"(b), [init] "r"(init), [kq] "r"(kq), [mult] "r"(q->mult),           \
                       [shift] "r"(q->shift), [c] "r"(c), [ldc] "r"(ldc), [off] "w"(off), [lo] "w"(lo),           \
                       [hi] "w"(hi), [fl] "w"(fl)                                                                     \
                     : "x9", "x10", "x11", "x12", "x13", "x14", "x15", "v0", "v1", "v2", "v3", "v4", "v5", "v6",    \
                       "v7", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27",      \
                       "v28", "v29", "v30", "v31", "cc", "memory")
    switch (flip * 4 + clamp * 2 + (nr == 8)) {
    case 0: RT_A64_PANEL4_CASE("", RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST16); break;
    case 1: RT_A64_PANEL4_CASE("", RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST8); break;
    case 2: RT_A64_PANEL4_CASE("", RT_A64_RQ_CLAMP, RT_A64_RQ_ST16); break;
    case 3: RT_A64_PANEL4_CASE("", RT_A64_RQ_CLAMP, RT_A64_RQ_ST8); break;
    case 4: RT_A64_PANEL4_CASE(RT_A64_EOR4, RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST16); break;
    case 5: RT_A64_PANEL4_CASE(RT_A64_EOR4, RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST8); break;
    case 6: RT_A64_PANEL4_CASE(RT_A64_EOR4, RT_A64_RQ_CLAMP, RT_A64_RQ_ST16); break;
    default: RT_A64_PANEL4_CASE(RT_A64_EOR4, RT_A64_RQ_CLAMP, RT_A64_RQ_ST8); break;
    }
#undef RT_A64_PANEL4_CASE
}

/* Rows 0..4t of a convolution read from its image (int8, rt_a64_s8_rows_rq_runs: rows at ptr[r], K as
 * nrun runs of kq quads `step` bytes apart), requantized as rt_a64_s8_panel4_rq does. */
static inline __attribute__((always_inline)) void rt_a64_s8_runs4_rq(int32_t t, int32_t nrun, int32_t kq,
                                                                     int64_t step, const uint8_t *const *ptr,
                                                                     const int8_t *b, const int32_t init[16],
                                                                     const rt_a64_rq_cols *q, int8_t *c,
                                                                     int64_t ldc, int32_t nr) {
    const int64_t adv = step - 4 * (int64_t)kq; /* after a run, as rt_a64_s8_sums4 */
    const int16x8_t off = vdupq_n_s16((int16_t)q->offset);
    const int8x16_t lo = vdupq_n_s8((int8_t)q->qmin), hi = vdupq_n_s8((int8_t)q->qmax);
    const int clamp = q->qmin > -128 || q->qmax < 127;
#define RT_A64_RUNS4_CASE(CLAMP, ST)                                                                                \
    __asm__ volatile(RT_A64_PANEL4_ASM("", CLAMP, ST, RT_A64_PTRS_TABLE, RT_A64_RUNS0, RT_A64_RUNS1)                \
                     : [a] "+r"(ptr), [t] "+r"(t)                                                                     \
                     : [lda] "r"(adv), [nrun] "r"(nrun), [b] "r"(b), [init] "r"(init), [kq] "r"(kq),               \
                       [mult] "r"(q->mult), [shift] "r"(q->shift), [c] "r"(c), [ldc] "r"(ldc), [off] "w"(off),      \
                       [lo] "w"(lo), [hi] "w"(hi)                                                                     \
                     : "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "v0", "v1", "v2", "v3", "v4", "v5",   \
                       "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",       \
                       "v27", "v28", "v29", "v30", "v31", "cc", "memory")
    switch (clamp * 2 + (nr == 8)) {
    case 0: RT_A64_RUNS4_CASE(RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST16); break;
    case 1: RT_A64_RUNS4_CASE(RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST8); break;
    case 2: RT_A64_RUNS4_CASE(RT_A64_RQ_CLAMP, RT_A64_RQ_ST16); break;
    default: RT_A64_RUNS4_CASE(RT_A64_RQ_CLAMP, RT_A64_RQ_ST8); break;
    }
#undef RT_A64_RUNS4_CASE
}

/* A panel of 8 columns (mobilenetv2's projections) in 8 x 8 tiles: half the 4 x 16 tile's SDOTs were
 * on zero weights. Row r's sums in v16+2r, v17+2r, its rows' quads in v0..v7 (pointers x9..x12, x16,
 * x17, x3, x4), a quad's two weight vectors in v8, v9 (LDP, the panel's next 32 bytes skipped); the
 * multipliers v0, v1 and shifts v2, v3; two rows narrowed into one vector and stored by halves. */
#define RT_A64_SD8_ROW(R, C0, C1, L)                                                                                \
    "sdot v" #C0 ".4s, v8.16b, v" #R ".4b[" #L "]\n" "sdot v" #C1 ".4s, v9.16b, v" #R ".4b[" #L "]\n"
#define RT_A64_SD8_LANE(L)                                                                                          \
    "ldp q8, q9, [x13], #64\n" RT_A64_SD8_ROW(0, 16, 17, L) RT_A64_SD8_ROW(1, 18, 19, L)                             \
    RT_A64_SD8_ROW(2, 20, 21, L) RT_A64_SD8_ROW(3, 22, 23, L) RT_A64_SD8_ROW(4, 24, 25, L)                           \
    RT_A64_SD8_ROW(5, 26, 27, L) RT_A64_SD8_ROW(6, 28, 29, L) RT_A64_SD8_ROW(7, 30, 31, L)
#define RT_A64_EOR8                                                                                                   \
    RT_A64_EOR4 "eor v4.16b, v4.16b, %[fl].16b\n" "eor v5.16b, v5.16b, %[fl].16b\n"                                  \
    "eor v6.16b, v6.16b, %[fl].16b\n" "eor v7.16b, v7.16b, %[fl].16b\n"
#define RT_A64_ALL16_8(OP)                                                                                          \
    OP(16, 0, 2) OP(17, 1, 3) OP(18, 0, 2) OP(19, 1, 3) OP(20, 0, 2) OP(21, 1, 3) OP(22, 0, 2) OP(23, 1, 3)        \
    OP(24, 0, 2) OP(25, 1, 3) OP(26, 0, 2) OP(27, 1, 3) OP(28, 0, 2) OP(29, 1, 3) OP(30, 0, 2) OP(31, 1, 3)
#define RT_A64_RQ_ST8X2(C0, C1, C2, C3) "st1 {v" #C0 ".d}[0], [x15], %[ldc]\n" "st1 {v" #C0 ".d}[1], [x15], %[ldc]\n"
#define RT_A64_PANEL8_ASM(EOR, CLAMP)                                                                               \
    "mov x15, %[c]\n"                                                                                                 \
    "1:\n"                                                                                                            \
    "mov x9, %[a]\n" "add x10, x9, %[lda]\n" "add x11, x10, %[lda]\n" "add x12, x11, %[lda]\n"                      \
    "add x16, x12, %[lda]\n" "add x17, x16, %[lda]\n" "add x3, x17, %[lda]\n" "add x4, x3, %[lda]\n"                \
    "add %[a], x4, %[lda]\n"                                                                                          \
    "ld1 {v16.4s, v17.4s}, [%[init]]\n" "ld1 {v18.4s, v19.4s}, [%[init]]\n" "ld1 {v20.4s, v21.4s}, [%[init]]\n"      \
    "ld1 {v22.4s, v23.4s}, [%[init]]\n" "ld1 {v24.4s, v25.4s}, [%[init]]\n" "ld1 {v26.4s, v27.4s}, [%[init]]\n"      \
    "ld1 {v28.4s, v29.4s}, [%[init]]\n" "ld1 {v30.4s, v31.4s}, [%[init]]\n"                                          \
    "mov x13, %[b]\n"                                                                                                 \
    "lsr w14, %w[kq], #2\n"                                                                                           \
    "cbz w14, 3f\n"                                                                                                   \
    "2:\n"                                                                                                            \
    "ldr q0, [x9], #16\n" "ldr q1, [x10], #16\n" "ldr q2, [x11], #16\n" "ldr q3, [x12], #16\n"                       \
    "ldr q4, [x16], #16\n" "ldr q5, [x17], #16\n" "ldr q6, [x3], #16\n" "ldr q7, [x4], #16\n"                        \
    EOR RT_A64_SD8_LANE(0) RT_A64_SD8_LANE(1) RT_A64_SD8_LANE(2) RT_A64_SD8_LANE(3)                                  \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 2b\n"                                                                                                       \
    "3:\n"                                                                                                            \
    "ands w14, %w[kq], #3\n"                                                                                          \
    "b.eq 5f\n"                                                                                                       \
    "4:\n"                                                                                                            \
    "ldr s0, [x9], #4\n" "ldr s1, [x10], #4\n" "ldr s2, [x11], #4\n" "ldr s3, [x12], #4\n"                           \
    "ldr s4, [x16], #4\n" "ldr s5, [x17], #4\n" "ldr s6, [x3], #4\n" "ldr s7, [x4], #4\n"                            \
    EOR RT_A64_SD8_LANE(0)                                                                                            \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 4b\n"                                                                                                       \
    "5:\n"                                                                                                            \
    "ld1 {v0.4s, v1.4s}, [%[mult]]\n" "ld1 {v2.4s, v3.4s}, [%[shift]]\n"                                             \
    RT_A64_ALL16_8(RT_A64_RQ_MUL) RT_A64_ALL16_8(RT_A64_RQ_SIGN) RT_A64_ALL16_8(RT_A64_RQ_SHIFT)                     \
    RT_A64_ROWS4(RT_A64_RQ_N16) RT_A64_ROWS4(RT_A64_RQ_OFF) RT_A64_ROWS4(RT_A64_RQ_N8) RT_A64_ROWS4(CLAMP)           \
    RT_A64_ROWS4(RT_A64_RQ_ST8X2)                                                                                     \
    "subs %w[t], %w[t], #1\n"                                                                                         \
    "b.ne 1b\n"

/* Rows 0..8t of a panel of 8 columns, as rt_a64_s8_panel4_rq. */
static inline __attribute__((always_inline)) void rt_a64_s8_panel8_rq(int32_t t, int32_t kq, const uint8_t *a,
                                                                      int64_t lda, int flip, const int8_t *b,
                                                                      const int32_t init[16],
                                                                      const rt_a64_rq_cols *q, int8_t *c,
                                                                      int64_t ldc) {
    const uint8x16_t fl = vdupq_n_u8(0x80);
    const int16x8_t off = vdupq_n_s16((int16_t)q->offset);
    const int8x16_t lo = vdupq_n_s8((int8_t)q->qmin), hi = vdupq_n_s8((int8_t)q->qmax);
    const int clamp = q->qmin > -128 || q->qmax < 127;
#define RT_A64_PANEL8_CASE(EOR, CLAMP)                                                                              \
    __asm__ volatile(RT_A64_PANEL8_ASM(EOR, CLAMP)                                                                  \
                     : [a] "+r"(a), [t] "+r"(t)                                                                       \
                     : [lda] "r"(lda), [b] "r"(b), [init] "r"(init), [kq] "r"(kq), [mult] "r"(q->mult),           \
                       [shift] "r"(q->shift), [c] "r"(c), [ldc] "r"(ldc), [off] "w"(off), [lo] "w"(lo),           \
                       [hi] "w"(hi), [fl] "w"(fl)                                                                     \
                     : "x3", "x4", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "v0", "v1", "v2",  \
                       "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v16", "v17", "v18", "v19", "v20", "v21", "v22",     \
                       "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory")
    switch (flip * 2 + clamp) {
    case 0: RT_A64_PANEL8_CASE("", RT_A64_RQ_NOCLAMP); break;
    case 1: RT_A64_PANEL8_CASE("", RT_A64_RQ_CLAMP); break;
    case 2: RT_A64_PANEL8_CASE(RT_A64_EOR8, RT_A64_RQ_NOCLAMP); break;
    default: RT_A64_PANEL8_CASE(RT_A64_EOR8, RT_A64_RQ_CLAMP); break;
    }
#undef RT_A64_PANEL8_CASE
}
#pragma GCC diagnostic pop

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
/* A panel's 2 x 16 tiles with the requantization in assembly (rt_a64_s8_panel_rq's usual case, as
 * rt_a64_s8_panel4_rq with the dot product; GCC 12 at -O2 spilled the tile's sums in its k loop and
 * reloaded the constants every tile). Row r's sums in v16+8r..v23+8r (lanes: column pairs' k01 and
 * k23, started at init2: init's columns interleaved with zeros), a quad of each row in all four
 * lanes (LD1R, post-indexed), the weights v4..v7 (one LD1), SMULL/SMULL2 into v2/v3 and SADALP; ADDP
 * makes the 16 sums of a row (v16, v18, v20, v22), requantized as rt_a64_s8_panel4_rq does. */
#define RT_A64_MP(R0, R1, W, A)                                                                                       \
    "smull v2.8h, v" #W ".8b, v" #A ".8b\n" "smull2 v3.8h, v" #W ".16b, v" #A ".16b\n"                             \
    "sadalp v" #R0 ".4s, v2.8h\n" "sadalp v" #R1 ".4s, v3.8h\n"
#define RT_A64_MP_QUAD(EOR)                                                                                           \
    "ld1 {v4.16b-v7.16b}, [x13], #64\n" "ld1r {v0.4s}, [x9], #4\n" "ld1r {v1.4s}, [x10], #4\n" EOR                   \
    RT_A64_MP(16, 17, 4, 0) RT_A64_MP(18, 19, 5, 0) RT_A64_MP(20, 21, 6, 0) RT_A64_MP(22, 23, 7, 0)                  \
    RT_A64_MP(24, 25, 4, 1) RT_A64_MP(26, 27, 5, 1) RT_A64_MP(28, 29, 6, 1) RT_A64_MP(30, 31, 7, 1)
#define RT_A64_EOR2 "eor v0.16b, v0.16b, %[fl].16b\n" "eor v1.16b, v1.16b, %[fl].16b\n"
#define RT_A64_ALL8(OP)                                                                                             \
    OP(16, 4, 0) OP(18, 5, 1) OP(20, 6, 2) OP(22, 7, 3) OP(24, 4, 0) OP(26, 5, 1) OP(28, 6, 2) OP(30, 7, 3)
#define RT_A64_ROWS2(OP) OP(16, 18, 20, 22) OP(24, 26, 28, 30)
/* PTRS: the two rows' pointers x9, x10 (a + r * lda, or the next two of a table); RUN0 / RUN1 around the k
 * loop: K as nrun runs, or one. */
#define RT_A64_PTRS2_LDA "mov x9, %[a]\n" "add x10, x9, %[lda]\n" "add %[a], x10, %[lda]\n"
#define RT_A64_PTRS2_TABLE "ldp x9, x10, [%[a]], #16\n"
#define RT_A64_RUNS2_0 "mov w16, %w[nrun]\n" "6:\n"
#define RT_A64_RUNS2_1 "add x9, x9, %[lda]\n" "add x10, x10, %[lda]\n" "subs w16, w16, #1\n" "b.ne 6b\n"
#define RT_A64_PANEL2_ASM(EOR, CLAMP, ST, PTRS, RUN0, RUN1)                                                         \
    "mov x15, %[c]\n"                                                                                                 \
    "1:\n"                                                                                                            \
    PTRS                                                                                                              \
    "ld1 {v16.4s-v19.4s}, [%[init2]]\n" "ld1 {v20.4s-v23.4s}, [%[init4]]\n" "ld1 {v24.4s-v27.4s}, [%[init2]]\n"      \
    "ld1 {v28.4s-v31.4s}, [%[init4]]\n"                                                                               \
    "mov x13, %[b]\n"                                                                                                 \
    RUN0                                                                                                              \
    "mov w14, %w[kq]\n"                                                                                               \
    "2:\n"                                                                                                            \
    RT_A64_MP_QUAD(EOR)                                                                                               \
    "subs w14, w14, #1\n"                                                                                             \
    "b.ne 2b\n"                                                                                                       \
    RUN1                                                                                                              \
    "addp v16.4s, v16.4s, v17.4s\n" "addp v18.4s, v18.4s, v19.4s\n" "addp v20.4s, v20.4s, v21.4s\n"                  \
    "addp v22.4s, v22.4s, v23.4s\n" "addp v24.4s, v24.4s, v25.4s\n" "addp v26.4s, v26.4s, v27.4s\n"                  \
    "addp v28.4s, v28.4s, v29.4s\n" "addp v30.4s, v30.4s, v31.4s\n"                                                  \
    "ld1 {v4.4s-v7.4s}, [%[mult]]\n" "ld1 {v0.4s-v3.4s}, [%[shift]]\n"                                               \
    RT_A64_ALL8(RT_A64_RQ_MUL) RT_A64_ALL8(RT_A64_RQ_SIGN) RT_A64_ALL8(RT_A64_RQ_SHIFT)                              \
    RT_A64_ROWS2(RT_A64_RQ_N16) RT_A64_ROWS2(RT_A64_RQ_OFF) RT_A64_ROWS2(RT_A64_RQ_N8) RT_A64_ROWS2(CLAMP)           \
    RT_A64_ROWS2(ST)                                                                                                  \
    "subs %w[t], %w[t], #1\n"                                                                                         \
    "b.ne 1b\n"

/* Rows 0..2t of a panel at a + r * lda (flip: a + 128 bytes, else int8) times panel b (kq >= 1 quads)
 * from init, requantized (double rounding, every shift a right shift) into nr (16 or 8) bytes a row at
 * c, rows ldc bytes apart. */
static inline __attribute__((always_inline)) void rt_a64_s8_panel2_rq(int32_t t, int32_t kq, const uint8_t *a,
                                                                      int64_t lda, int flip, const int8_t *b,
                                                                      const int32_t init[16],
                                                                      const rt_a64_rq_cols *q, int8_t *c,
                                                                      int64_t ldc, int32_t nr) {
    const uint8x16_t fl = vdupq_n_u8(0x80);
    const int16x8_t off = vdupq_n_s16((int16_t)q->offset);
    const int8x16_t lo = vdupq_n_s8((int8_t)q->qmin), hi = vdupq_n_s8((int8_t)q->qmax);
    const int clamp = q->qmin > -128 || q->qmax < 127;
    int32_t init2[32], i;
    const int32_t *init4 = init2 + 16;
    /* s[2i] (columns 4i, 4i+1) starts at (init[4i], 0, init[4i+1], 0), s[2i+1] at (init[4i+2], 0, ...) */
    for (i = 0; i < 4; i++) {
        const int32x4_t v = vld1q_s32(init + 4 * i), z = vdupq_n_s32(0);
        vst1q_s32(init2 + 8 * i, vzip1q_s32(v, z));
        vst1q_s32(init2 + 8 * i + 4, vzip2q_s32(v, z));
    }
#define RT_A64_PANEL2_CASE(EOR, CLAMP, ST)                                                                          \
    __asm__ volatile(RT_A64_PANEL2_ASM(EOR, CLAMP, ST, RT_A64_PTRS2_LDA, "", "")                                    \
                     : [a] "+r"(a), [t] "+r"(t)                                                                       \
                     : [lda] "r"(lda), [b] "r"(b), [init2] "r"(init2), [init4] "r"(init4), [kq] "r"(kq),           \
                       [mult] "r"(q->mult), [shift] "r"(q->shift), [c] "r"(c), [ldc] "r"(ldc), [off] "w"(off),      \
                       [lo] "w"(lo), [hi] "w"(hi), [fl] "w"(fl)                                                       \
                     : "x9", "x10", "x13", "x14", "x15", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16",     \
                       "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29",     \
                       "v30", "v31", "cc", "memory")
    switch (flip * 4 + clamp * 2 + (nr == 8)) {
    case 0: RT_A64_PANEL2_CASE("", RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST16); break;
    case 1: RT_A64_PANEL2_CASE("", RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST8); break;
    case 2: RT_A64_PANEL2_CASE("", RT_A64_RQ_CLAMP, RT_A64_RQ_ST16); break;
    case 3: RT_A64_PANEL2_CASE("", RT_A64_RQ_CLAMP, RT_A64_RQ_ST8); break;
    case 4: RT_A64_PANEL2_CASE(RT_A64_EOR2, RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST16); break;
    case 5: RT_A64_PANEL2_CASE(RT_A64_EOR2, RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST8); break;
    case 6: RT_A64_PANEL2_CASE(RT_A64_EOR2, RT_A64_RQ_CLAMP, RT_A64_RQ_ST16); break;
    default: RT_A64_PANEL2_CASE(RT_A64_EOR2, RT_A64_RQ_CLAMP, RT_A64_RQ_ST8); break;
    }
#undef RT_A64_PANEL2_CASE
}

/* Rows 0..2t of a convolution read from its image (rt_a64_s8_rows_rq_runs: rows at ptr[r], K as nrun
 * runs of kq quads `step` bytes apart), as rt_a64_s8_panel2_rq. */
static inline __attribute__((always_inline)) void rt_a64_s8_runs2_rq(int32_t t, int32_t nrun, int32_t kq,
                                                                     int64_t step, const uint8_t *const *ptr,
                                                                     const int8_t *b, const int32_t init[16],
                                                                     const rt_a64_rq_cols *q, int8_t *c,
                                                                     int64_t ldc, int32_t nr) {
    const int64_t adv = step - 4 * (int64_t)kq; /* after a run, as rt_a64_s8_sums4 */
    const int16x8_t off = vdupq_n_s16((int16_t)q->offset);
    const int8x16_t lo = vdupq_n_s8((int8_t)q->qmin), hi = vdupq_n_s8((int8_t)q->qmax);
    const int clamp = q->qmin > -128 || q->qmax < 127;
    int32_t init2[32], i;
    const int32_t *init4 = init2 + 16;
    for (i = 0; i < 4; i++) {
        const int32x4_t v = vld1q_s32(init + 4 * i), z = vdupq_n_s32(0);
        vst1q_s32(init2 + 8 * i, vzip1q_s32(v, z));
        vst1q_s32(init2 + 8 * i + 4, vzip2q_s32(v, z));
    }
#define RT_A64_RUNS2_CASE(CLAMP, ST)                                                                                \
    __asm__ volatile(RT_A64_PANEL2_ASM("", CLAMP, ST, RT_A64_PTRS2_TABLE, RT_A64_RUNS2_0, RT_A64_RUNS2_1)          \
                     : [a] "+r"(ptr), [t] "+r"(t)                                                                     \
                     : [lda] "r"(adv), [nrun] "r"(nrun), [b] "r"(b), [init2] "r"(init2), [init4] "r"(init4),       \
                       [kq] "r"(kq), [mult] "r"(q->mult), [shift] "r"(q->shift), [c] "r"(c), [ldc] "r"(ldc),        \
                       [off] "w"(off), [lo] "w"(lo), [hi] "w"(hi)                                                     \
                     : "x9", "x10", "x13", "x14", "x15", "x16", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",     \
                       "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",     \
                       "v29", "v30", "v31", "cc", "memory")
    switch (clamp * 2 + (nr == 8)) {
    case 0: RT_A64_RUNS2_CASE(RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST16); break;
    case 1: RT_A64_RUNS2_CASE(RT_A64_RQ_NOCLAMP, RT_A64_RQ_ST8); break;
    case 2: RT_A64_RUNS2_CASE(RT_A64_RQ_CLAMP, RT_A64_RQ_ST16); break;
    default: RT_A64_RUNS2_CASE(RT_A64_RQ_CLAMP, RT_A64_RQ_ST8); break;
    }
#undef RT_A64_RUNS2_CASE
}

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
#if defined(__ARM_FEATURE_DOTPROD)
    const int32_t tr = RT_A64_MR; /* rows of the assembly's tiles */
#else
    const int32_t tr = 2;
#endif
    if (!q->single && (nr == 16 || nr == 8) && m >= tr) {
        int32x4_t s = vld1q_s32(q->shift);
        int32_t i, mt = m / tr * tr;
        for (i = 4; i < 16; i += 4) s = vmaxq_s32(s, vld1q_s32(q->shift + i));
        if (vmaxvq_s32(s) < 0) {
#if defined(__ARM_FEATURE_DOTPROD)
            if (nr == 8 && m >= 8) {
                const int32_t m8 = m / 8 * 8;
                rt_a64_s8_panel8_rq(m8 / 8, kq, a, lda, flip, b, init, q, c, ldc);
                if (m8 == m) return;
                a += (int64_t)m8 * lda, c += (int64_t)m8 * ldc, m -= m8, mt -= m8;
            }
            if (mt) rt_a64_s8_panel4_rq(mt / tr, kq, a, lda, flip, b, init, q, c, ldc, nr);
#else
            rt_a64_s8_panel2_rq(mt / tr, kq, a, lda, flip, b, init, q, c, ldc, nr);
#endif
            if (mt == m) return;
            a += (int64_t)mt * lda, c += (int64_t)mt * ldc, m -= mt;
        }
    }
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
#if defined(__ARM_FEATURE_DOTPROD)
    const int32_t tr = RT_A64_MR; /* rows of the assembly's tiles */
#else
    const int32_t tr = 2;
#endif
    if (!q->single && (nr == 16 || nr == 8) && n >= tr) {
        int32x4_t s = vld1q_s32(q->shift);
        const int32_t nt = n / tr * tr;
        for (i = 4; i < 16; i += 4) s = vmaxq_s32(s, vld1q_s32(q->shift + i));
        if (vmaxvq_s32(s) < 0) {
#if defined(__ARM_FEATURE_DOTPROD)
            rt_a64_s8_runs4_rq(nt / tr, nrun, kq, step, ptr, b, init, q, c, ldc, nr);
#else
            rt_a64_s8_runs2_rq(nt / tr, nrun, kq, step, ptr, b, init, q, c, ldc, nr);
#endif
            if (nt == n) return;
            ptr += nt, c += (int64_t)nt * ldc, n -= nt;
        }
    }
    for (i = 0; i < n; i += RT_A64_MR)
        rt_a64_s8_tile_mr(RT_A64_MR, nrun, kq, step, NULL, 0, ptr + i, n - i < RT_A64_MR ? n - i : RT_A64_MR, 0, b,
                          init, q, c + (int64_t)i * ldc, ldc, nr, NULL);
}
#endif

#endif
