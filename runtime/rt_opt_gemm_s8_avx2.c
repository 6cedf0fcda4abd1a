/* rt_opt_gemm_s8_avx2.c - the int8 GEMM on AVX2 without VNNI (rt_opt_gemm_s8.c's rt_opt_s8_gemm_u8 and
 * the int8 convolution call it where no VNNI kernel is built), and (without AVX-512) the im2col
 * convolution's patch rows widened to its int16 rows straight from the image (rt_opt_s8_avx2_conv).
 *
 * Exact products through vpmaddwd (int16 pairs summed into int32 lanes; no vpmaddubsw, which saturates):
 * a block of up to S8A_MR rows of A is widened once to int16 (+ 128 added: 0..255) in a buffer on the
 * stack, K padded to whole quads with zeros; then every 8-column half of every 16-column panel of the
 * packed weights ([N/16][K4/4][16][4] int8, as packed at compile time for every x86 int8 kernel) runs
 * against it: per quad of K, the half's 32 weight bytes are sign-extended to two int16 vectors (columns
 * 0-3 and 4-7, four k each) and each row's quad, broadcast as four int16 by vpbroadcastq from the buffer,
 * meets each in one vpmaddwd: 2 widenings per 2 R vpmaddwd (the earlier 2 x 16 kernel widened 4 weight
 * vectors and 2 rows of bytes per 8). The rows go through the first vector, then again (broadcast once
 * more: a load) through the second, so that the loop needs 15 ymm registers, not 16 (S8A_ASM1). Lanes
 * hold (column, k0 + k1) and (column, k2 + k3), the bias starting them off; one hadd per row leaves the
 * columns as [0 1 4 5 | 2 3 6 7], the order the panel's multipliers and shifts are loaded in, and the
 * requantization (TFLite's double or single rounding, every shift in [-31, 0]; rq8k: one 64-bit shift per
 * product) runs in registers before two rows are packed and stored together. The sums
 * wrap like TFLite's int32 accumulators (each product pair is at most 2 x 255 x 128). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX2) && !defined(RT_OPT_S8_VNNI)

#define NR RT_OPT_NR
#define S8A_MR 6         /* rows per block: 12 accumulators, 2 weight vectors and a broadcast in 16 ymm */
#define S8A_MAX_K4 2048 /* the int16 rows on the stack: 6 x 2048 x 2 = 24 KiB (more rows when K is shorter) */

int rt_opt_s8_avx2_applies(const rt_opt_gemm_params *p) {
    return p->rounding != RT_OPT_ROUND_FLOAT && !p->out_f32 && RT_OPT_K4(p->k) <= S8A_MAX_K4 &&
           rt_opt_shifts_vec(p->shift, (p->n + NR - 1) / NR * NR);
}

/* One half panel's bias (as the accumulators' start: [b0 0 b1 0 | b2 0 b3 0] and the same of b4..b7, so
 * that the hadd leaves each column's bias in its sum) and requantization constants (hadd order [0 1 4 5 |
 * 2 3 6 7]). corr: how the double rounding's correction for products below -2^30 is made (rq8k): 0 none
 * (single rounding, or the lower bound at or above the zero point), 1 by the sign of the sum (every
 * multiplier 0 or in [2^30, 2^31), as TFLite's QuantizeMultiplier makes them), 2 by rq8k's 64-bit compares. */
typedef struct s8a_q {
    __m256i b0, b1, k_e_neg, k_o_neg;
    rq8k k;
    int corr, clamp;
} s8a_q;

static inline __m256i s8a_order(const int32_t *src) {
    return _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)(const void *)src), 0xD8);
}

static void s8a_q_init(const rt_opt_gemm_params *p, const int32_t *bias, int32_t col, s8a_q *q) {
    const __m256i m = s8a_order(p->mult + col);
    const __m256i low = _mm256_cmpgt_epi32(_mm256_set1_epi32(1 << 30), m); /* m < 2^30 (or negative) */
    q->b0 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)(bias + col)));
    q->b1 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)(bias + col + 4)));
    q->k = rq8k_prepare(m, s8a_order(p->shift + col), p->out_offset, p->rounding == RT_OPT_ROUND_SINGLE);
    q->k_e_neg = _mm256_sub_epi64(q->k.k_e, q->k.c_e);
    q->k_o_neg = _mm256_sub_epi64(q->k.k_o, q->k.c_o);
    q->corr = p->rounding == RT_OPT_ROUND_SINGLE || p->act_qmin >= p->out_offset ? 0
              : _mm256_testz_si256(_mm256_andnot_si256(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()), low),
                                   _mm256_set1_epi32(-1))
                  ? 1
                  : 2;
    q->clamp = p->act_qmin > -128 || p->act_qmax < 127;
}

/* rq8k_apply with the correction chosen by corr (s8a_q): with a multiplier m in [2^30, 2^31) a product
 * x m is below -2^30 exactly when x < 0, except x = -1, m = 2^30, where the correction changes nothing
 * (floor((2^(e-1) - 1) / 2^e) = 0 = floor(2^(e-1) / 2^e) for e >= 1; for e = 0 it is 0); with m = 0 it
 * changes nothing either. So the constant added before the shift is picked by the sign bit of the odd
 * lane (blendv on bit 63) and of the even lane moved up, 3 instructions instead of 6. */
static inline __m256i s8a_rq_apply(__m256i x, const s8a_q *q, int corr) {
    const rq8k *k = &q->k;
    __m256i e, o, ke = k->k_e, ko = k->k_o;
    if (corr == 2) return rq8k_apply(x, k, 0);
    e = _mm256_mul_epi32(x, k->m), o = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), k->m_o);
    if (corr) {
        ke = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(ke), _mm256_castsi256_pd(q->k_e_neg),
                                                  _mm256_castsi256_pd(_mm256_slli_epi64(x, 32))));
        ko = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(ko), _mm256_castsi256_pd(q->k_o_neg),
                                                  _mm256_castsi256_pd(x)));
    }
    e = _mm256_srlv_epi64(_mm256_add_epi64(e, ke), k->t_e);
    o = _mm256_srlv_epi64(_mm256_add_epi64(o, ko), k->t_o);
    return _mm256_add_epi32(_mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xAA), k->post);
}

/* Rows rows of k bytes (lda apart) as int16 rows of k4 values at d (k4 apart), + 128 added (flip: the
 * bytes are int8) or zero-extended (+ 128 bytes already); the padding k..k4 zero. */
static void s8a_widen(const uint8_t *a, int64_t lda, int32_t rows, int32_t k, int32_t k4, int flip, int16_t *d) {
    const __m256i off = _mm256_set1_epi16(flip ? 128 : 0);
    int32_t r, i;
    for (r = 0; r < rows; r++, a += lda, d += k4) {
        for (i = 0; i + 16 <= k; i += 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
            const __m256i w = flip ? _mm256_add_epi16(_mm256_cvtepi8_epi16(x), off) : _mm256_cvtepu8_epi16(x);
            _mm256_storeu_si256((__m256i *)(void *)(d + i), w);
        }
        if (i + 8 <= k) { /* K = 8, 24, 56, ...: the last 8 not one by one */
            const __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)(a + i));
            const __m128i w = flip ? _mm_add_epi16(_mm_cvtepi8_epi16(x), _mm256_castsi256_si128(off))
                                   : _mm_cvtepu8_epi16(x);
            _mm_storeu_si128((__m128i *)(void *)(d + i), w);
            i += 8;
        }
        for (; i < k; i++) d[i] = (int16_t)(flip ? (int32_t)(int8_t)a[i] + 128 : (int32_t)a[i]);
        for (; i < k4; i++) d[i] = 0;
    }
}

/* The requantized row x (hadd order, the bias in it) with the zero point; clamped to [lo, hi] where
 * q->clamp (else the saturating packs apply the int8 range). */
static inline __m256i s8a_rq(__m256i x, const s8a_q *q, int corr, int clamp, __m256i lo, __m256i hi) {
    x = s8a_rq_apply(x, q, corr);
    return clamp ? _mm256_min_epi32(_mm256_max_epi32(x, lo), hi) : x;
}

/* Two requantized rows (hadd order) as 8 bytes each in column order: row a low, row b high. */
static inline __m128i s8a_pack2(__m256i a, __m256i b) {
    const __m256i t = _mm256_packs_epi32(a, b); /* [a0 a1 a4 a5 b0 b1 b4 b5 | a2 a3 a6 a7 b2 b3 b6 b7] */
    const __m256i u = _mm256_packs_epi16(t, t);
    return _mm_unpacklo_epi16(_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1));
}

static inline void s8a_store8(int8_t *d, __m128i v, int hi, int32_t nr) {
    if (hi) v = _mm_unpackhi_epi64(v, v);
    if (nr == 8) _mm_storel_epi64((__m128i *)(void *)d, v);
    else {
        int8_t t[16];
        _mm_storeu_si128((__m128i *)(void *)t, v);
        memcpy(d, t, (size_t)nr);
    }
}

/* R rows (a: int16, lda16 apart) x one 8-column half (b: its first quad's 32 bytes, 64 apart), kq quads;
 * the nr <= 8 results of each row requantized and stored at c + r ldc. */
/* Rows c and c + ldc (the second only when two) of a tile requantized from their sum pairs, packed
 * together and stored. */
RT_OPT_INLINE void s8a_store_rows(int8_t *c, int64_t ldc, int two, __m256i a0, __m256i a1, __m256i b0,
                                  __m256i b1, const s8a_q *q, int corr, int clamp, __m256i lo, __m256i hi,
                                  int32_t nr) {
    const __m256i r0 = s8a_rq(_mm256_hadd_epi32(a0, a1), q, corr, clamp, lo, hi);
    const __m256i r1 = two ? s8a_rq(_mm256_hadd_epi32(b0, b1), q, corr, clamp, lo, hi) : r0;
    const __m128i t = s8a_pack2(r0, r1);
    s8a_store8(c, t, 0, nr);
    if (two) s8a_store8(c + ldc, t, 1, nr);
}

/* d = insn (n bytes at p), emitted after the last update of prev: the order makes the kernel's loop run
 * through 15 ymm registers (12 accumulators, a weight vector, a broadcast row quad and a product); left
 * to themselves gcc 12 and clang 14 load the quads of all six rows first and spill accumulators to the
 * stack (9 of 12 with gcc: a store and a reload per accumulator and quad). */
#define S8A_ASM1(insn, d, p, n, prev)                                                                                 \
    __asm__(insn " %2, %0" : "=x"(d), "+x"(prev) : "m"(*(const int8_t(*)[n])(const void *)(p)))

/* d = vpbroadcastq of the 8 bytes at base + ls * SC (S8A_BQ0: base), after the last update of prev as
 * S8A_ASM1: the rows' addresses as two bases and a scaled stride, so that the loop steps two pointers and
 * computes no addresses (gcc made a chain of five lea per quad, 47 instructions per 12 vpmaddwd). The
 * int16 rows were written before the kernel was called (through a pointer): the memory clobber says that
 * the asm reads them. */
#define S8A_BQ0(d, base, ls, prev) __asm__("vpbroadcastq (%2), %0" : "=x"(d), "+x"(prev) : "r"(base) : "memory")
#define S8A_BQ1(d, base, ls, prev)                                                                                    \
    __asm__("vpbroadcastq (%2,%3,1), %0" : "=x"(d), "+x"(prev) : "r"(base), "r"(ls) : "memory")
#define S8A_BQ2(d, base, ls, prev)                                                                                    \
    __asm__("vpbroadcastq (%2,%3,2), %0" : "=x"(d), "+x"(prev) : "r"(base), "r"(ls) : "memory")

/* One quad of K for six rows in all 16 ymm registers, written out so that no compiler spills: both weight
 * vectors live, each row broadcast once (into v) and multiplied by both (the second product into v), the
 * first product in t. Per quad 2 widenings, 6 broadcasts, 12 vpmaddwd and 12 vpaddd: 32 instructions
 * against 38 of the S8A_ASM1 order, which needs one register less (Zen 3 ran that loop at about its
 * instruction rate, ~7 cycles a quad for 6 of vpmaddwd). AT&T operand order: src2, src1, dst. */
#define S8A_Q6ROW(a, c0, c1) "vpbroadcastq " a ", %[v]\n\tvpmaddwd %[v], %[w0], %[t]\n\tvpaddd %[t], %[" #c0 "], %[" \
    #c0 "]\n\tvpmaddwd %[v], %[w1], %[v]\n\tvpaddd %[v], %[" #c1 "], %[" #c1 "]\n\t"
/* Three rows (base, base + ls, base + 2 ls) of the quad; w0 and w1 as S8A_ASM1 made them. */
#define S8A_ROWS3(ca0, ca1, cb0, cb1, cc0, cc1, w0, w1, v, t, base, ls)                                           \
    __asm__(S8A_Q6ROW("(%[a])", ca0, ca1) S8A_Q6ROW("(%[a],%[ls],1)", cb0, cb1) S8A_Q6ROW("(%[a],%[ls],2)", cc0, cc1) \
            : [ca0] "+x"(ca0), [ca1] "+x"(ca1), [cb0] "+x"(cb0), [cb1] "+x"(cb1), [cc0] "+x"(cc0), [cc1] "+x"(cc1), \
              [v] "=&x"(v), [t] "=&x"(t)                                                                             \
            : [w0] "x"(w0), [w1] "x"(w1), [a] "r"(base), [ls] "r"(ls)                                                \
            : "memory")

RT_OPT_INLINE void s8a_kernel(const int R, const int16_t *a, int64_t lda16, int32_t kq, const int8_t *b,
                              const s8a_q *q, const rt_opt_gemm_params *p, int8_t *c, int64_t ldc, int32_t nr) {
    const int16_t *a0 = a, *a3 = a + 3 * lda16; /* rows 0-2 and 3-5: base, base + ls, base + 2 ls */
    const int64_t ls = lda16 * (int64_t)sizeof(int16_t);
    const int8_t *const b_end = b + (int64_t)kq * 4 * NR;
    __m256i c00 = q->b0, c01 = q->b1, c10 = c00, c11 = c01, c20 = c00, c21 = c01, c30 = c00, c31 = c01, c40 = c00,
            c41 = c01, c50 = c00, c51 = c01;
    if (R == 6) /* S8A_ROWS3 */
        for (; b < b_end; b += 4 * NR, a0 += 4, a3 += 4) {
            __m256i w0, w1, v, t;
            __asm__("vpmovsxbw (%2), %0\n\tvpmovsxbw 16(%2), %1" : "=x"(w0), "=x"(w1) : "r"(b) : "memory");
            S8A_ROWS3(c00, c01, c10, c11, c20, c21, w0, w1, v, t, a0, ls);
            S8A_ROWS3(c30, c31, c40, c41, c50, c51, w0, w1, v, t, a3, ls);
        }
    for (; R < 6 && b < b_end; b += 4 * NR, a0 += 4, a3 += 4) {
        __m256i w, v;
#define S8A_ROW(r, h, base, SC, prev)                                                                                 \
    if ((r) < R) {                                                                                                    \
        S8A_BQ##SC(v, base, ls, prev);                                                                                \
        c##r##h = _mm256_add_epi32(c##r##h, _mm256_madd_epi16(v, w));                                                 \
    }
        S8A_ASM1("vpmovsxbw", w, b, 16, c51);
        S8A_ROW(0, 0, a0, 0, w) S8A_ROW(1, 0, a0, 1, c00) S8A_ROW(2, 0, a0, 2, c10) S8A_ROW(3, 0, a3, 0, c20)
        S8A_ROW(4, 0, a3, 1, c30) S8A_ROW(5, 0, a3, 2, c40)
        S8A_ASM1("vpmovsxbw", w, b + 16, 16, c50);
        S8A_ROW(0, 1, a0, 0, w) S8A_ROW(1, 1, a0, 1, c01) S8A_ROW(2, 1, a0, 2, c11) S8A_ROW(3, 1, a3, 0, c21)
        S8A_ROW(4, 1, a3, 1, c31) S8A_ROW(5, 1, a3, 2, c41)
#undef S8A_ROW
    }
    {
        const int corr = q->corr, clamp = q->clamp;
        const __m256i lo = _mm256_set1_epi32(p->act_qmin), hi = _mm256_set1_epi32(p->act_qmax);
        s8a_store_rows(c, ldc, R > 1, c00, c01, c10, c11, q, corr, clamp, lo, hi, nr);
        if (R > 2) s8a_store_rows(c + 2 * ldc, ldc, R > 3, c20, c21, c30, c31, q, corr, clamp, lo, hi, nr);
        if (R > 4) s8a_store_rows(c + 4 * ldc, ldc, R > 5, c40, c41, c50, c51, q, corr, clamp, lo, hi, nr);
    }
}

#define S8A_K(R)                                                                                                      \
    static void s8a_kernel_##R(const int16_t *a, int64_t lda16, int32_t kq, const int8_t *b, const s8a_q *q,       \
                               const rt_opt_gemm_params *p, int8_t *c, int64_t ldc, int32_t nr) {                  \
        s8a_kernel(R, a, lda16, kq, b, q, p, c, ldc, nr);                                                            \
    }
S8A_K(1)
S8A_K(2)
S8A_K(3)
S8A_K(4)
S8A_K(5)
S8A_K(6)
#undef S8A_K

typedef void (*s8a_fn)(const int16_t *, int64_t, int32_t, const int8_t *, const s8a_q *, const rt_opt_gemm_params *,
                       int8_t *, int64_t, int32_t);

/* gm rows of int16 A (k4 apart, K's padding zero) x every column of p: each half panel's weights read
 * from L2 once, then from L1 for every block of S8A_MR rows. */
static void s8a_gemm16(const rt_opt_gemm_params *p, int32_t gm, const int16_t *a16, int32_t k4,
                       const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    static const s8a_fn kern[S8A_MR + 1] = {NULL,          s8a_kernel_1, s8a_kernel_2, s8a_kernel_3,
                                            s8a_kernel_4, s8a_kernel_5, s8a_kernel_6};
    const int32_t kq = k4 / 4;
    int32_t i, j, h;
    for (j = 0; j * NR < p->n; j++)
        for (h = 0; h < 2 && j * NR + 8 * h < p->n; h++) {
            const int32_t col = j * NR + 8 * h, nr = p->n - col < 8 ? p->n - col : 8;
            const int8_t *b = packed_b + (int64_t)j * kq * 4 * NR + 32 * h;
            s8a_q q;
            s8a_q_init(p, bias, col, &q);
            for (i = 0; i < gm; i += S8A_MR) {
                const int32_t mr = gm - i < S8A_MR ? gm - i : S8A_MR;
                kern[mr](a16 + (int64_t)i * k4, k4, kq, b, &q, p, c + (int64_t)i * p->ldc + col, p->ldc, nr);
            }
        }
}

/* As many whole blocks of rows as the int16 buffer holds, so that each half panel's weights stay in L1
 * across the group's blocks. */
static int32_t s8a_group(int32_t k4) { return S8A_MAX_K4 / k4 * S8A_MR; }

void rt_opt_s8_avx2_gemm(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a, int64_t lda, int flip,
                         const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    const int32_t k4 = RT_OPT_K4(p->k), group = s8a_group(k4);
    int16_t a16[S8A_MR * S8A_MAX_K4];
    int32_t g;
    for (g = 0; g < m; g += group) {
        const int32_t gm = m - g < group ? m - g : group;
        s8a_widen(a + (int64_t)g * lda, lda, gm, p->k, k4, flip, a16);
        s8a_gemm16(p, gm, a16, k4, packed_b, bias, c + (int64_t)g * p->ldc);
    }
}

#if !defined(RT_OPT_AVX512)
#define S8A_SLACK 16 /* int16 values a widened run may write past its end (overwritten by what follows) */

/* n int8 values at s as int16 + 128 at d, 16 at a time (the last 16 may end up to 15 values past d + n);
 * 16-byte loads only where they end at or before `end`, the end of the image. */
static inline void s8a_widen_run(int16_t *d, const int8_t *s, int32_t n, const int8_t *end) {
    const __m256i off = _mm256_set1_epi16(128);
    int32_t i = 0;
    for (; i < n && end - (s + i) >= 16; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(d + i),
                            _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(s + i))),
                                             off));
    for (; i < n; i++) d[i] = (int16_t)(s[i] + 128);
}

/* One patch row's int16 values from its filter rows (fh runs of `run` bytes at src, step apart), widened 16
 * at a time (the last chunk of a run overhangs into the next), K's padding k..k4 zeroed after them. FH,
 * CH: the filter rows and chunks a run when constant (0: fh and (run + 15) / 16), so that the loops unroll
 * for 3x3 filters. The caller makes sure the 16-byte loads stay inside the image. */
RT_OPT_INLINE void s8a_patch(const int32_t FH, const int32_t CH, int32_t fh, const int8_t *src, int64_t step,
                             int32_t run, int32_t k, int32_t k4, int16_t *d) {
    const __m256i off = _mm256_set1_epi16(128);
    const int32_t rows = FH ? FH : fh, chunks = CH ? CH : (run + 15) / 16;
    int32_t fy, c;
    for (fy = 0; fy < rows; fy++)
        for (c = 0; c < chunks; c++)
            _mm256_storeu_si256(
                (__m256i *)(void *)(d + fy * run + 16 * c),
                _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + fy * step + 16 * c))),
                                 off));
    if (k < k4) _mm_storel_epi64((__m128i *)(void *)(d + k), _mm_setzero_si128()); /* <= 3 values, overhanging */
}

/* Patch rows m0..m0+rows of convolution p over image `in` as int16 + 128 rows of k4 values at d (K's
 * padding zero), straight from the image: the byte im2col rows and their widening in the GEMM were two
 * passes, and IM2COL copied a 3-channel image's 9-byte runs byte by byte (the first convolution of a
 * network: a fifth of MobileNetV2 0.35 int8's time). The rows whose patch lies inside the image go along
 * an output row in one stretch (s8a_patch: no per-tap or per-chunk checks; ResNet int8's 3x3
 * convolutions spent a quarter of their time in a per-tap version of this); a row cut by an edge goes
 * tap by tap. Values are written in increasing order, each run overwriting the previous one's overhang,
 * so d needs S8A_SLACK values after its last row. */
static void s8a_im2col(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, int16_t *d,
                       int32_t k4) {
    const int32_t inc = p->in_c, fh = p->filter_h, fw = p->filter_w, run = fw * inc, k = p->gemm.k;
    const int32_t chunks = (run + 15) / 16;
    const int64_t rs = (int64_t)p->in_w * inc, step = (int64_t)p->dil_h * rs, sstep = (int64_t)p->stride_w * inc;
    const int8_t *end = in + (int64_t)p->in_h * rs;
    const int16_t fill = (int16_t)(p->pad_value + 128);
    /* the last output column whose patch ends inside the image */
    const int32_t ox_in = p->in_w - fw + p->pad_w >= 0 ? (p->in_w - fw + p->pad_w) / p->stride_w : -1;
    int32_t r, fy, fx, c, oy = m0 / p->out_w, ox = m0 % p->out_w;
    for (r = 0; r < rows;) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        int32_t n = 1;
        if (p->dil_w == 1 && y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h && x0 >= 0 && x0 + fw <= p->in_w) {
            const int8_t *src = in + (int64_t)y0 * rs + (int64_t)x0 * inc;
            n = ox_in - ox + 1;
            n = n < p->out_w - ox ? n : p->out_w - ox;
            n = n < rows - r ? n : rows - r;
            /* the stretch's last 16-byte load inside the image (else the rows go one by one, checked) */
            if (end - (src + (n - 1) * sstep + (fh - 1) * step) >= 16 * chunks) {
                int32_t i;
                for (i = 0; i < n; i++, src += sstep, d += k4) {
                    if (fh == 3 && chunks == 1) s8a_patch(3, 1, fh, src, step, run, k, k4, d);
                    else if (fh == 3 && chunks == 3) s8a_patch(3, 3, fh, src, step, run, k, k4, d);
                    else s8a_patch(0, 0, fh, src, step, run, k, k4, d);
                }
                r += n, ox += n;
                if (ox == p->out_w) ox = 0, oy++;
                continue;
            }
            n = 1;
        }
        {
            int16_t *t = d;
            for (fy = 0; fy < fh; fy++) {
                const int32_t y = y0 + fy * p->dil_h;
                const int8_t *srow = y >= 0 && y < p->in_h ? in + (int64_t)y * rs : NULL;
                for (fx = 0; fx < fw; fx++, t += inc) {
                    const int32_t x = x0 + fx * p->dil_w;
                    if (srow && x >= 0 && x < p->in_w) s8a_widen_run(t, srow + (int64_t)x * inc, inc, end);
                    else
                        for (c = 0; c < inc; c++) t[c] = fill;
                }
            }
            for (c = k; c < k4; c++) d[c] = 0;
        }
        r++, d += k4;
        if (++ox == p->out_w) ox = 0, oy++;
    }
}

#define S8A_IMG16 4096 /* int16 values of the padded image s8a_im2col_img takes (8 KiB on the stack) */

/* The image inside its padding as int16 + 128 (pad_value + 128 around it) at d, hp x wp pixels, and
 * S8A_SLACK values after it that the patch copies' last 16-value loads may read. */
static void s8a_pad16(const rt_opt_conv_params *p, const int8_t *in, int64_t hp, int64_t wp, int16_t *d) {
    const int32_t inc = p->in_c;
    const int64_t row = wp * inc, left = (int64_t)p->pad_w * inc, n = hp * row + S8A_SLACK;
    const int16_t fill = (int16_t)(p->pad_value + 128);
    int64_t i, y;
    for (i = 0; i < n; i++) d[i] = fill;
    for (y = 0; y < p->in_h; y++) { /* a row's last 16 values may overhang: the padding after it refilled */
        int16_t *t = d + (y + p->pad_h) * row + left + (int64_t)p->in_w * inc;
        s8a_widen_run(t - (int64_t)p->in_w * inc, in + y * (int64_t)p->in_w * inc, p->in_w * inc,
                      in + (int64_t)p->in_h * p->in_w * inc);
        for (i = 0; i < 15; i++) t[i] = fill;
    }
}

/* s8a_im2col from the padded int16 image (s8a_pad16, hp x wp pixels, no padding left): every patch row
 * is fh runs of fw in_c values copied 16 at a time (the last chunk overhanging into the next run, which
 * overwrites it), then K's padding. digits' 8 x 8 images had 28 of their 64 patch rows cut by an edge
 * (tap by tap), and every pixel was widened once for each patch holding it. */
RT_OPT_INLINE void s8a_im2col_img_n(const int32_t FH, const int32_t CH, const rt_opt_conv_params *p,
                                    const int16_t *img, int64_t wp, int32_t m0, int32_t rows, int16_t *d, int32_t k4) {
    const int32_t inc = p->in_c, fh = FH ? FH : p->filter_h, run = p->filter_w * inc, k = p->gemm.k;
    const int32_t chunks = CH ? CH : (run + 15) / 16;
    const int64_t step = (int64_t)p->dil_h * wp * inc, ys = (int64_t)p->stride_h * wp * inc,
                  xs = (int64_t)p->stride_w * inc;
    int32_t r, fy, ch, oy = m0 / p->out_w, ox = m0 % p->out_w;
    for (r = 0; r < rows; r++, d += k4) {
        const int16_t *s = img + oy * ys + ox * xs;
        for (fy = 0; fy < fh; fy++, s += step)
            for (ch = 0; ch < chunks; ch++)
                _mm256_storeu_si256((__m256i *)(void *)(d + fy * run + 16 * ch),
                                    _mm256_loadu_si256((const __m256i *)(const void *)(s + 16 * ch)));
        if (k < k4) _mm_storel_epi64((__m128i *)(void *)(d + k), _mm_setzero_si128()); /* <= 3 values, overhanging */
        if (++ox == p->out_w) ox = 0, oy++;
    }
}

/* 3x3 filters with runs of 1..3 chunks have their loops unrolled (as a loop gcc made them memcpy calls). */
static void s8a_im2col_img(const rt_opt_conv_params *p, const int16_t *img, int64_t wp, int32_t m0, int32_t rows,
                           int16_t *d, int32_t k4) {
    const int32_t chunks = (p->filter_w * p->in_c + 15) / 16;
    if (p->filter_h == 3 && chunks == 1) s8a_im2col_img_n(3, 1, p, img, wp, m0, rows, d, k4);
    else if (p->filter_h == 3 && chunks == 2) s8a_im2col_img_n(3, 2, p, img, wp, m0, rows, d, k4);
    else if (p->filter_h == 3 && chunks == 3) s8a_im2col_img_n(3, 3, p, img, wp, m0, rows, d, k4);
    else s8a_im2col_img_n(0, 0, p, img, wp, m0, rows, d, k4);
}

void rt_opt_s8_avx2_conv(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows,
                         const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    const int32_t k4 = RT_OPT_K4(p->gemm.k), group = s8a_group(k4);
    int16_t a16[S8A_MR * S8A_MAX_K4 + S8A_SLACK];
    int16_t img[S8A_IMG16 + S8A_SLACK];
    int64_t hp = 0, wp = 0;
    int32_t g, padded = 0;
    if (p->dil_h == 1 && p->dil_w == 1 && p->pad_h >= 0 && p->pad_w >= 0 && (p->pad_h > 0 || p->pad_w > 0)) {
        /* a small padded image that these rows cover about as many values of as their patches hold */
        rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                           p->pad_h, p->pad_w, &hp, &wp);
        padded = hp * wp * p->in_c <= S8A_IMG16 && hp * wp * p->in_c <= (int64_t)rows * p->gemm.k;
        if (padded) s8a_pad16(p, in, hp, wp, img);
    }
    for (g = 0; g < rows; g += group) {
        const int32_t gm = rows - g < group ? rows - g : group;
        if (padded) s8a_im2col_img(p, img, wp, m0 + g, gm, a16, k4);
        else s8a_im2col(p, in, m0 + g, gm, a16, k4);
        s8a_gemm16(&p->gemm, gm, a16, k4, packed_b, bias, c + (int64_t)g * p->gemm.ldc);
    }
}
#endif

#endif
