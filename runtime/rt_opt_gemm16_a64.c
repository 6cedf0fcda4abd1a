/* rt_opt_gemm16_a64.c - FULLY_CONNECTED and CONV_2D with 16-bit float weights (--precision bf16 / fp16) on
 * AArch64 (docs/arm64.md, "16-bit weights"): the weights stay 16-bit in memory (half the bytes of f32) and the
 * arithmetic is f32, as on x86 without 16-bit products (docs/precision-avx2.md, docs/precision-avx512.md).
 * Armv8.0 has no 16-bit arithmetic; Armv8.2-A's FP16 products would round every product to fp16.
 *
 * The packed panels (rt_opt_gemm_half.c): panel j holds W[j*16 + c][k] at [k/2][c][k%2], a pair of k per
 * column. One LD2 of 32 bytes splits 8 columns' pairs into their k0 and k1 halves; FCVTL/FCVTL2 (fp16) or
 * SHLL/SHLL2 #16 (bf16: the high half of a float) widen each to 4 floats. So:
 * - one row (GEMV): the panels widened in registers, one FMLA by element a product, two panels (8
 *   accumulators) at a time: 2 LD2, 8 widenings and 8 FMLA per panel and pair of k, where the f32 GEMV (the
 *   2 x 16 tile with its second row a copy of the first) runs 2 LD1 and 16 FMLA;
 * - more rows: a group of panels widened once into the f32 GEMM's layout (K x 16 floats a panel) on the stack,
 *   and the f32 GEMM's own tiles (rt_opt_gemm_f32_rows_a64: 5 x 16, inline assembly) over it, plain rows or a
 *   convolution's row table; about 12 instructions per 32 weights once per call, against about 21 per 16
 *   weights and 5 rows in the tiles;
 * - a panel too deep for the stack copy (K > WIDE_FLOATS / 16): every row by the GEMV, K in its segments.
 * Every column's sum runs from the bias through K in order, one fused multiply-add a step, then the clamp: the
 * f32 GEMM's results on the widened weights, bit for bit, for both types (tests/arm64/gemm16_check.c). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_HALF_F32_A64)

#define NR RT_OPT_NR
#if defined(RT_OPT_SMALL_STACK)
#define WIDE_FLOATS NR /* no widened copies: the GEMV for every row */
#else
#define WIDE_FLOATS 16384 /* the stack copy: 64 KiB, a panel of K up to 1024 */
#endif

/* Four 16-bit values (the low or high half of h) as floats: bf16 the high half of a float, fp16 converted. */
RT_OPT_INLINE float32x4_t wide_lo(int bf, uint16x8_t h) {
    return bf ? vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16))
              : vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h)));
}
RT_OPT_INLINE float32x4_t wide_hi(int bf, uint16x8_t h) {
    return bf ? vreinterpretq_f32_u32(vshll_high_n_u16(h, 16)) : vcvt_high_f32_f16(vreinterpretq_f16_u16(h));
}

/* One panel's 16 columns (w: its pair kk) times x's lane L for the pair's k0 (H 0) or k1 (H 1) into S0..S3: two
 * LD2, four widenings, four FMLA by element. (Named accumulators, not arrays: GCC 12 kept arrays of vectors, and
 * the LD2 pairs, on the stack.) */
#define GEMV_PANEL(w, H, L, S0, S1, S2, S3)                                                                        \
    do {                                                                                                           \
        const uint16x8x2_t l_ = vld2q_u16(w), h_ = vld2q_u16((w) + NR);                                            \
        S0 = vfmaq_lane_f32(S0, wide_lo(bf, l_.val[H]), x, L);                                                     \
        S1 = vfmaq_lane_f32(S1, wide_hi(bf, l_.val[H]), x, L);                                                     \
        S2 = vfmaq_lane_f32(S2, wide_lo(bf, h_.val[H]), x, L);                                                     \
        S3 = vfmaq_lane_f32(S3, wide_hi(bf, h_.val[H]), x, L);                                                     \
    } while (0)
/* both halves of a pair: k0 by lane 0, k1 by lane 1 */
#define GEMV_PAIR(w, S0, S1, S2, S3)                                                                               \
    do {                                                                                                           \
        const uint16x8x2_t l_ = vld2q_u16(w), h_ = vld2q_u16((w) + NR);                                            \
        S0 = vfmaq_lane_f32(S0, wide_lo(bf, l_.val[0]), x, 0);                                                     \
        S1 = vfmaq_lane_f32(S1, wide_hi(bf, l_.val[0]), x, 0);                                                     \
        S2 = vfmaq_lane_f32(S2, wide_lo(bf, h_.val[0]), x, 0);                                                     \
        S3 = vfmaq_lane_f32(S3, wide_hi(bf, h_.val[0]), x, 0);                                                     \
        S0 = vfmaq_lane_f32(S0, wide_lo(bf, l_.val[1]), x, 1);                                                     \
        S1 = vfmaq_lane_f32(S1, wide_hi(bf, l_.val[1]), x, 1);                                                     \
        S2 = vfmaq_lane_f32(S2, wide_lo(bf, h_.val[1]), x, 1);                                                     \
        S3 = vfmaq_lane_f32(S3, wide_hi(bf, h_.val[1]), x, 1);                                                     \
    } while (0)

/* acc[0..16 panels) += a[k] w[k] for k in [k0, k1) (a: the values of those k), panels 1 or 2 (pk halves apart),
 * in k order, fused. k0 may be odd (a convolution's segment): that k alone first, then whole pairs, then a last k
 * alone. */
RT_OPT_INLINE void gemv_c(int bf, int32_t k0, int32_t k1, const float *a, const uint16_t *b, int64_t pk,
                          int32_t panels, float *acc) {
    const int two = panels == 2;
    float32x4_t s0 = vld1q_f32(acc), s1 = vld1q_f32(acc + 4), s2 = vld1q_f32(acc + 8), s3 = vld1q_f32(acc + 12);
    float32x4_t s4 = vdupq_n_f32(0.0f), s5 = s4, s6 = s4, s7 = s4;
    const uint16_t *w = b + (int64_t)(k0 / 2) * 2 * NR, *end;
    float32x2_t x;
    if (two) s4 = vld1q_f32(acc + 16), s5 = vld1q_f32(acc + 20), s6 = vld1q_f32(acc + 24), s7 = vld1q_f32(acc + 28);
    if (k0 & 1) { /* k0's pair: its k1 half */
        x = vdup_n_f32(a[0]);
        GEMV_PANEL(w, 1, 0, s0, s1, s2, s3);
        if (two) GEMV_PANEL(w + pk, 1, 0, s4, s5, s6, s7);
        a++, k0++, w += 2 * NR;
    }
    end = w + (int64_t)((k1 - k0) / 2) * 2 * NR;
    if (two)
        for (; w < end; w += 2 * NR, a += 2) {
            x = vld1_f32(a);
            GEMV_PAIR(w, s0, s1, s2, s3);
            GEMV_PAIR(w + pk, s4, s5, s6, s7);
        }
    else
        for (; w < end; w += 2 * NR, a += 2) {
            x = vld1_f32(a);
            GEMV_PAIR(w, s0, s1, s2, s3);
        }
    if ((k1 - k0) & 1) { /* the last k: its pair's k0 half */
        x = vdup_n_f32(a[0]);
        GEMV_PANEL(w, 0, 0, s0, s1, s2, s3);
        if (two) GEMV_PANEL(w + pk, 0, 0, s4, s5, s6, s7);
    }
    vst1q_f32(acc, s0), vst1q_f32(acc + 4, s1), vst1q_f32(acc + 8, s2), vst1q_f32(acc + 12, s3);
    if (two) vst1q_f32(acc + 16, s4), vst1q_f32(acc + 20, s5), vst1q_f32(acc + 24, s6), vst1q_f32(acc + 28, s7);
}
#undef GEMV_PANEL
#undef GEMV_PAIR

/* Two panels' k loop in assembly, four k a step (two pairs): one LDR of the four inputs (v0), 8 LD2 (the two
 * panels' pairs: v16..v23), 32 widenings (v1..v7) and 32 FMLA by element into the accumulators v24..v31 (acc:
 * loaded first, stored after): 75 instructions per 128 products, where the intrinsics above made 88 (GCC 12
 * recomputed the second panel's addresses every pair). steps > 0; a, b0, b1 at a pair's start. */
#define A64_FCVTL(d, s) "fcvtl " d ".4s, " s ".4h\n"
#define A64_FCVTL2(d, s) "fcvtl2 " d ".4s, " s ".8h\n"
#define A64_SHLL(d, s) "shll " d ".4s, " s ".4h, #16\n"
#define A64_SHLL2(d, s) "shll2 " d ".4s, " s ".8h, #16\n"
/* one panel's pair (k0 halves in R0 (columns 0..7) and R2 (8..15), k1 halves in R1 and R3) into S0..S3, k0 by
 * lane L0 of v0, k1 by lane L1 */
#define A64_PAIR(LO, HI, R0, R1, R2, R3, S0, S1, S2, S3, L0, L1)                                                  \
    LO("v1", R0) HI("v2", R0) LO("v3", R2) HI("v4", R2)                                                          \
    "fmla " S0 ".4s, v1.4s, v0.s[" L0 "]\n" "fmla " S1 ".4s, v2.4s, v0.s[" L0 "]\n"                             \
    "fmla " S2 ".4s, v3.4s, v0.s[" L0 "]\n" "fmla " S3 ".4s, v4.4s, v0.s[" L0 "]\n"                             \
    LO("v5", R1) HI("v6", R1) LO("v7", R3) HI("v1", R3)                                                          \
    "fmla " S0 ".4s, v5.4s, v0.s[" L1 "]\n" "fmla " S1 ".4s, v6.4s, v0.s[" L1 "]\n"                             \
    "fmla " S2 ".4s, v7.4s, v0.s[" L1 "]\n" "fmla " S3 ".4s, v1.4s, v0.s[" L1 "]\n"
#define A64_GEMV2(LO, HI)                                                                                         \
    __asm__ volatile("ld1 {v24.4s-v27.4s}, [%[acc]]\n"                                                           \
                     "add %[t], %[acc], #64\n"                                                                  \
                     "ld1 {v28.4s-v31.4s}, [%[t]]\n"                                                             \
                     "1:\n"                                                                                     \
                     "ldr q0, [%[a]], #16\n"                                                                     \
                     "ld2 {v16.8h, v17.8h}, [%[b0]], #32\n"                                                      \
                     "ld2 {v18.8h, v19.8h}, [%[b0]], #32\n"                                                      \
                     "ld2 {v20.8h, v21.8h}, [%[b1]], #32\n"                                                      \
                     "ld2 {v22.8h, v23.8h}, [%[b1]], #32\n"                                                      \
                     A64_PAIR(LO, HI, "v16", "v17", "v18", "v19", "v24", "v25", "v26", "v27", "0", "1")         \
                     A64_PAIR(LO, HI, "v20", "v21", "v22", "v23", "v28", "v29", "v30", "v31", "0", "1")         \
                     "ld2 {v16.8h, v17.8h}, [%[b0]], #32\n"                                                      \
                     "ld2 {v18.8h, v19.8h}, [%[b0]], #32\n"                                                      \
                     "ld2 {v20.8h, v21.8h}, [%[b1]], #32\n"                                                      \
                     "ld2 {v22.8h, v23.8h}, [%[b1]], #32\n"                                                      \
                     A64_PAIR(LO, HI, "v16", "v17", "v18", "v19", "v24", "v25", "v26", "v27", "2", "3")         \
                     A64_PAIR(LO, HI, "v20", "v21", "v22", "v23", "v28", "v29", "v30", "v31", "2", "3")         \
                     "subs %[n], %[n], #1\n"                                                                    \
                     "b.ne 1b\n"                                                                                \
                     "st1 {v24.4s-v27.4s}, [%[acc]]\n"                                                           \
                     "st1 {v28.4s-v31.4s}, [%[t]]\n"                                                             \
                     : [a] "+r"(a), [b0] "+r"(b0), [b1] "+r"(b1), [n] "+r"(n), [t] "=&r"(t)                      \
                     : [acc] "r"(acc)                                                                           \
                     : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21", \
                       "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory")
static void gemv2_f16(int64_t n, const float *a, const uint16_t *b0, const uint16_t *b1, float *acc) {
    float *t;
    A64_GEMV2(A64_FCVTL, A64_FCVTL2);
}
static void gemv2_bf16(int64_t n, const float *a, const uint16_t *b0, const uint16_t *b1, float *acc) {
    float *t;
    A64_GEMV2(A64_SHLL, A64_SHLL2);
}
#undef A64_GEMV2
#undef A64_PAIR

/* gemv_c's sums, two panels' whole steps of four k (from an even k) in assembly */
RT_OPT_INLINE void gemv_run(int bf, int32_t k0, int32_t k1, const float *a, const uint16_t *b, int64_t pk,
                            int32_t panels, float *acc) {
    if (panels == 2 && k1 - k0 >= 4 + (k0 & 1)) {
        const int32_t e = k0 + (k0 & 1), steps = (k1 - e) / 4, done = e + 4 * steps;
        const uint16_t *w = b + (int64_t)(e / 2) * 2 * NR;
        if (k0 & 1) gemv_c(bf, k0, e, a, b, pk, 2, acc);
        if (bf) gemv2_bf16(steps, a + (e - k0), w, w + pk, acc);
        else gemv2_f16(steps, a + (e - k0), w, w + pk, acc);
        if (done < k1) gemv_c(bf, done, k1, a + (done - k0), b, pk, 2, acc);
        return;
    }
    gemv_c(bf, k0, k1, a, b, pk, panels, acc);
}

/* 1 when [lo, hi] bounds anything (the f32 tiles' test: they skip the clamp for -inf..inf) */
static int clamps(float lo, float hi) { return !(lo < -3.4028235e38f && hi > 3.4028235e38f); }

/* C row = clamp(bias + row . W) for the panels from j (all of them), the row's K as nseg segments (row r's
 * segment s at ap[s]), two panels at a time. */
static void gemv_row(int bf, const rt_opt_gemm_params *p, const float *const *ap, int32_t nseg,
                     const uint16_t *packed_b, const float *bias, float *c) {
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR;
    const int32_t seg = p->k / nseg, clamp = clamps(p->act_min, p->act_max);
    const float32x4_t vlo = vdupq_n_f32(p->act_min), vhi = vdupq_n_f32(p->act_max);
    float acc[2 * NR];
    int32_t j, s, panels, cols, i;
    for (j = 0; j * NR < p->n; j += panels) {
        panels = (j + 1) * NR < p->n ? 2 : 1;
        cols = p->n - j * NR < panels * NR ? p->n - j * NR : panels * NR;
        memcpy(acc, bias + j * NR, sizeof(float) * (size_t)(panels * NR));
        for (s = 0; s < nseg; s++)
            if (bf) gemv_run(1, s * seg, (s + 1) * seg, ap[s], packed_b + j * pk, pk, panels, acc);
            else gemv_run(0, s * seg, (s + 1) * seg, ap[s], packed_b + j * pk, pk, panels, acc);
        if (clamp) /* FMAX then FMIN, as the tiles (a NaN passes) */
            for (i = 0; i < panels * NR; i += 4) vst1q_f32(acc + i, vminq_f32(vmaxq_f32(vld1q_f32(acc + i), vlo), vhi));
        memcpy(c + j * NR, acc, sizeof(float) * (size_t)cols);
    }
}

/* Four k of a panel (two pairs) widened a step in assembly: 4 LD2, 16 widenings, 4 ST1 of four vectors (26
 * instructions per 64 weights; GCC 12 made 20 per 32 of the loop below). steps > 0. */
#define A64_WIDEN(LO, HI)                                                                                         \
    __asm__ volatile("1:\n"                                                                                     \
                     "ld2 {v0.8h, v1.8h}, [%[s]], #32\n"                                                         \
                     "ld2 {v2.8h, v3.8h}, [%[s]], #32\n"                                                         \
                     "ld2 {v4.8h, v5.8h}, [%[s]], #32\n"                                                         \
                     "ld2 {v6.8h, v7.8h}, [%[s]], #32\n"                                                         \
                     LO("v16", "v0") HI("v17", "v0") LO("v18", "v2") HI("v19", "v2")                              \
                     "st1 {v16.4s-v19.4s}, [%[d]], #64\n"                                                        \
                     LO("v20", "v1") HI("v21", "v1") LO("v22", "v3") HI("v23", "v3")                              \
                     "st1 {v20.4s-v23.4s}, [%[d]], #64\n"                                                        \
                     LO("v24", "v4") HI("v25", "v4") LO("v26", "v6") HI("v27", "v6")                              \
                     "st1 {v24.4s-v27.4s}, [%[d]], #64\n"                                                        \
                     LO("v28", "v5") HI("v29", "v5") LO("v30", "v7") HI("v31", "v7")                              \
                     "st1 {v28.4s-v31.4s}, [%[d]], #64\n"                                                        \
                     "subs %[n], %[n], #1\n"                                                                    \
                     "b.ne 1b\n"                                                                                \
                     : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n)                                                \
                     :                                                                                          \
                     : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21", \
                       "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory")
static void widen4_f16(int64_t n, const uint16_t *src, float *dst) { A64_WIDEN(A64_FCVTL, A64_FCVTL2); }
static void widen4_bf16(int64_t n, const uint16_t *src, float *dst) { A64_WIDEN(A64_SHLL, A64_SHLL2); }
#undef A64_WIDEN

/* Panel `src` widened into the f32 GEMM's panel layout dst [k][16]. */
RT_OPT_INLINE void widen_panel(int bf, int32_t k, const uint16_t *src, float *dst) {
    int32_t kk = k / 4 * 4;
    if (kk) {
        if (bf) widen4_bf16(kk / 4, src, dst);
        else widen4_f16(kk / 4, src, dst);
        src += (int64_t)kk * NR, dst += (int64_t)kk * NR;
    }
    for (; kk + 2 <= k; kk += 2, src += 2 * NR, dst += 2 * NR) {
        const uint16x8x2_t l = vld2q_u16(src), h = vld2q_u16(src + NR);
        vst1q_f32(dst, wide_lo(bf, l.val[0]));
        vst1q_f32(dst + 4, wide_hi(bf, l.val[0]));
        vst1q_f32(dst + 8, wide_lo(bf, h.val[0]));
        vst1q_f32(dst + 12, wide_hi(bf, h.val[0]));
        vst1q_f32(dst + 16, wide_lo(bf, l.val[1]));
        vst1q_f32(dst + 20, wide_hi(bf, l.val[1]));
        vst1q_f32(dst + 24, wide_lo(bf, h.val[1]));
        vst1q_f32(dst + 28, wide_hi(bf, h.val[1]));
    }
    if (k & 1) { /* the last pair's k0 (its k1 is padding) */
        const uint16x8x2_t l = vld2q_u16(src), h = vld2q_u16(src + NR);
        vst1q_f32(dst, wide_lo(bf, l.val[0]));
        vst1q_f32(dst + 4, wide_hi(bf, l.val[0]));
        vst1q_f32(dst + 8, wide_lo(bf, h.val[0]));
        vst1q_f32(dst + 12, wide_hi(bf, h.val[0]));
    }
}

/* `panels` panels from packed_b widened into dst (K x 16 floats each). */
static void widen_panels(int32_t type, int32_t k, int32_t panels, const uint16_t *packed_b, float *dst) {
    const int64_t pk = (int64_t)(k + 1) / 2 * 2 * NR;
    int32_t q;
    for (q = 0; q < panels; q++)
        if (type == RT_BF16) widen_panel(1, k, packed_b + q * pk, dst + (int64_t)q * k * NR);
        else widen_panel(0, k, packed_b + q * pk, dst + (int64_t)q * k * NR);
}

int rt_opt_gemm16_widen_all(int32_t type, int32_t k, int32_t n, const uint16_t *packed_b, float *dst, int64_t floats) {
    const int32_t panels = (n + NR - 1) / NR;
    if ((int64_t)panels * k * NR > floats) return 0;
    widen_panels(type, k, panels, packed_b, dst);
    return 1;
}

void rt_opt_gemm16_widened_rows(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                                int32_t nseg, const float *wide, const float *bias, float *c) {
    rt_opt_gemm_f32_rows_a64(p, m, a, tab, nseg, wide, bias, c);
}

int rt_opt_gemm16_rows_a64(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                           const float *const *tab, int32_t nseg, const uint16_t *packed_b, const float *bias,
                           float *c) {
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR;
    const int32_t group = WIDE_FLOATS / (p->k * NR > 0 ? p->k * NR : 1), bf = type == RT_BF16;
    int32_t j, r, s, panels, np = (p->n + NR - 1) / NR;
    if (m <= 0 || p->n <= 0) return 1;
    if (p->k <= 0 || m == 1 || group == 0) { /* one row, or too deep for the stack copy: the GEMV */
        const float *rows[1];
        for (r = 0; r < m; r++) {
            const float *const *ap = tab ? tab + (int64_t)r * nseg : rows;
            if (!tab) rows[0] = a + (int64_t)r * p->lda;
            if (p->k <= 0) { /* no K: the bias, clamped */
                for (s = 0; s < p->n; s++) c[(int64_t)r * p->ldc + s] = rt_clamp_f32(bias[s], p->act_min, p->act_max);
                continue;
            }
            gemv_row(bf, p, ap, tab ? nseg : 1, packed_b, bias, c + (int64_t)r * p->ldc);
        }
        return 1;
    }
    {
        float wide[WIDE_FLOATS] __attribute__((aligned(16)));
        rt_opt_gemm_params q = *p;
        for (j = 0; j < np; j += panels) {
            panels = np - j < group ? np - j : group;
            widen_panels(type, p->k, panels, packed_b + j * pk, wide);
            q.n = p->n - j * NR < panels * NR ? p->n - j * NR : panels * NR;
            rt_opt_gemm_f32_rows_a64(&q, m, a, tab, nseg, wide, bias + j * NR, c + j * NR);
        }
    }
    return 1;
}

int rt_opt_fc_half_a64(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                       const float *bias, float *c) {
    return rt_opt_gemm16_rows_a64(p, type, p->m, a, NULL, 1, packed_b, bias, c);
}

#else
typedef int rt_opt_gemm16_a64_unused; /* ISO C: a translation unit is not empty */
#endif
