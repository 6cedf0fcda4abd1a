/* rt_opt_gemm_bf16.c - the bf16 pair kernels (AVX512-BF16): FULLY_CONNECTED and the convolutions' GEMM
 * with bf16 weights on vdpbf16ps, A as bf16 pairs (rows of K / 2 words, or a convolution's row table of
 * filter-row segments), C stored f32 or bf16 by the kernels. Split from rt_opt_gemm_half.c (the 16-bit
 * weights' other paths: widened f32 FMAs, AMX tiles, the convolution driver), which calls
 * rt_opt_fc_bf16_pairs for its convolutions and rt_opt_fc_bf16_to for f32 inputs. Packed weights as there:
 * panel j holds W[n = j*NR + c][k] at [j][k/2][c][k%2]. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define NR RT_OPT_NR
#define HALF_ROWS RT_OPT_HALF_ROWS

#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
#define HALF_MR 8
/* acc += a . b over bf16 pairs, in place (as RT_DPBUSD: GCC copied every
 * accumulator of the intrinsic's result each K step). */
#if defined(__GNUC__) && !defined(__clang__)
#define RT_DPBF16(acc, a, b) __asm__("vdpbf16ps %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))
#else
#define RT_DPBF16(acc, a, b) ((acc) = _mm512_dpbf16_ps((acc), (__m512bh)(a), (__m512bh)(b)))
#endif

/* Stores the lanes m of v at element off of C, f32 or (tc RT_BF16) rounded to bf16 as rt_f32_to_bf16. */
static inline void put16(void *c, int64_t off, int32_t tc, __mmask16 m, __m512 v) {
    if (tc == RT_BF16) {
        const __m256i h = (__m256i)_mm512_cvtneps_pbh(v);
#if defined(__AVX512VL__)
        _mm256_mask_storeu_epi16((void *)((uint16_t *)c + off), m, h);
#else
        uint16_t t[NR];
        int32_t i;
        _mm256_storeu_si256((__m256i *)(void *)t, h);
        for (i = 0; i < NR; i++)
            if ((m >> i) & 1) ((uint16_t *)c)[off + i] = t[i];
#endif
    } else
        _mm512_mask_storeu_ps((float *)c + off, m, v);
}

/* C[0..mr)[0..nr) = clamp(bias + A . panels b0, b1) with A as bf16 pairs given by a row table: row r's
 * K is nseg segments of seg2 words, segment g at tab[r * nseg + g] (an im2col block: one segment of K / 2
 * words per row; a convolution reading its bf16 image in place: one per filter row); R <= 9 rows (rows
 * past mr repeat row 0 and are not stored); the accumulators in named registers. C is f32 or (tc
 * RT_BF16) bf16, ldc elements a row. (R 9: 18 accumulators, 21 of the 32 registers.) */
RT_OPT_INLINE void ukr_bf16_r(const int32_t R, const int TAB, const uint32_t *a2, const uint32_t *const *tab,
                              int32_t nseg, int32_t seg2, int32_t mr, const uint16_t *b0, const uint16_t *b1,
                              const float *bias, float lo, float hi, void *c, int32_t tc, int32_t ldc, int32_t nr) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __mmask16 m0 = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
    const __mmask16 m1 = (__mmask16)(nr >= 2 * NR ? 0xFFFF : nr > NR ? (1u << (nr - NR)) - 1 : 0);
    int32_t kk, g;
#define BF_DECL(r) __m512 c##r##0 = _mm512_loadu_ps(bias), c##r##1 = _mm512_loadu_ps(bias + NR);
    RT_R9(BF_DECL)
    for (g = 0; g < (TAB ? nseg : 1); g++, b0 += (int64_t)seg2 * NR * 2, b1 += (int64_t)seg2 * NR * 2) {
#define BF_ROW(r)                                                                                                   \
    const uint32_t *ar##r = TAB ? tab[(int64_t)((r) < mr ? (r) : 0) * nseg + g] : a2 + (int64_t)((r) < mr ? (r) : 0) * seg2;
        RT_R9(BF_ROW)
        for (kk = 0; kk < seg2; kk++) {
            const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * NR * 2));
            const __m512i x1 = _mm512_loadu_si512((const void *)(b1 + (int64_t)kk * NR * 2));
#define BF_STEP(r)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512i s = _mm512_set1_epi32((int32_t)ar##r[kk]);                                                   \
        RT_DPBF16(c##r##0, s, x0);                                                                                  \
        RT_DPBF16(c##r##1, s, x1);                                                                                  \
    }
            RT_R9(BF_STEP)
        }
    }
#define BF_STORE(r)                                                                                                 \
    if ((r) < R && (r) < mr) {                                                                                      \
        put16(c, (int64_t)(r) * ldc, tc, m0, _mm512_min_ps(vhi, _mm512_max_ps(vlo, c##r##0)));                     \
        put16(c, (int64_t)(r) * ldc + NR, tc, m1, _mm512_min_ps(vhi, _mm512_max_ps(vlo, c##r##1)));                \
    }
    RT_R9(BF_STORE)
#undef BF_DECL
#undef BF_ROW
#undef BF_STEP
#undef BF_STORE
}
#define RT_BF16_R(R)                                                                                                \
    static void ukr_bf16_x##R(const uint32_t *a2, const uint32_t *const *tab, int32_t nseg, int32_t seg2,          \
                             int32_t mr, const uint16_t *b0, const uint16_t *b1, const float *bias, float lo,    \
                             float hi, void *c, int32_t tc, int32_t ldc, int32_t nr) {                            \
        if (a2) ukr_bf16_r(R, 0, a2, tab, nseg, seg2, mr, b0, b1, bias, lo, hi, c, tc, ldc, nr);                  \
        else ukr_bf16_r(R, 1, a2, tab, nseg, seg2, mr, b0, b1, bias, lo, hi, c, tc, ldc, nr);                     \
    }
RT_BF16_R(1)
RT_BF16_R(2)
RT_BF16_R(4)
RT_BF16_R(8)
RT_BF16_R(9)
/* The two-panel kernel for mr rows: the smallest of 1, 2, 4, 8 or 9 rows that holds them (a GEMV does not
 * pay for 8; 9 takes a block's last 9 rows in one pass, where 8 + 1 left the last row to the GEMV: ViT's 17
 * tokens, its 17 x 64 x 64 products 0.34 -> 0.31 us). */
static void ukr_bf16(const uint32_t *a2, const uint32_t *const *tab, int32_t nseg, int32_t seg2, int32_t mr,
                     const uint16_t *b0, const uint16_t *b1, const float *bias, float lo, float hi, void *c, int32_t tc,
                     int32_t ldc, int32_t nr) {
    (mr <= 1   ? ukr_bf16_x1
     : mr <= 2 ? ukr_bf16_x2
     : mr <= 4 ? ukr_bf16_x4
     : mr <= 8 ? ukr_bf16_x8
               : ukr_bf16_x9)(a2, tab, nseg, seg2, mr, b0, b1, bias, lo, hi, c, tc, ldc, nr);
}

/* ukr_bf16 for a lone last panel (nr <= 16), not a second panel computed for nothing: 8 rows, each summed in
 * two accumulators (even and odd pairs of K, added at the end), 16 independent vdpbf16ps chains from 8 row
 * pointers. 16 rows of one accumulator took 16 pointers that did not fit the registers (a reload from the
 * stack before each broadcast): ResNet bf16's 16-channel 3x3 convolutions ran ~9 % slower. */
RT_OPT_INLINE void ukr_bf16_k2r(const int TAB, const uint32_t *a2, const uint32_t *const *tab, int32_t nseg,
                                int32_t seg2, int32_t mr, const uint16_t *b0, const float *bias, float lo, float hi,
                                void *c, int32_t tc, int32_t ldc, int32_t nr) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __mmask16 m0 = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
    int32_t kk, g;
#define BF_DECL(r) __m512 c##r = _mm512_loadu_ps(bias), e##r = _mm512_setzero_ps();
    RT_R8(BF_DECL)
    for (g = 0; g < (TAB ? nseg : 1); g++, b0 += (int64_t)seg2 * NR * 2) {
#define BF_ROW(r)                                                                                                   \
    const uint32_t *ar##r = TAB ? tab[(int64_t)((r) < mr ? (r) : 0) * nseg + g] : a2 + (int64_t)((r) < mr ? (r) : 0) * seg2;
        RT_R8(BF_ROW)
        kk = 0;
        if ((g * seg2) & 1) { /* a segment starting at an odd pair of K: that pair to the odd sums, so each pair
                               * meets the same accumulator as through im2col (one segment), same results */
            const __m512i x1 = _mm512_loadu_si512((const void *)b0);
#define BF_STEP(r) RT_DPBF16(e##r, _mm512_set1_epi32((int32_t)ar##r[0]), x1);
            RT_R8(BF_STEP)
#undef BF_STEP
            kk = 1;
        }
        for (; kk + 2 <= seg2; kk += 2) {
            const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * NR * 2));
            const __m512i x1 = _mm512_loadu_si512((const void *)(b0 + (int64_t)(kk + 1) * NR * 2));
#define BF_STEP(r)                                                                                                  \
    {                                                                                                               \
        RT_DPBF16(c##r, _mm512_set1_epi32((int32_t)ar##r[kk]), x0);                                                \
        RT_DPBF16(e##r, _mm512_set1_epi32((int32_t)ar##r[kk + 1]), x1);                                            \
    }
            RT_R8(BF_STEP)
#undef BF_STEP
        }
        if (kk < seg2) {
            const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * NR * 2));
#define BF_STEP(r) RT_DPBF16(c##r, _mm512_set1_epi32((int32_t)ar##r[kk]), x0);
            RT_R8(BF_STEP)
#undef BF_STEP
        }
    }
#define BF_STORE(r)                                                                                                 \
    if ((r) < mr) put16(c, (int64_t)(r) * ldc, tc, m0, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(c##r, e##r))));
    RT_R8(BF_STORE)
#undef BF_ROW
#undef BF_DECL
#undef BF_STORE
}
static void ukr_bf16_k2(const uint32_t *a2, const uint32_t *const *tab, int32_t nseg, int32_t seg2, int32_t mr,
                        const uint16_t *b0, const float *bias, float lo, float hi, void *c, int32_t tc, int32_t ldc,
                        int32_t nr) {
    if (a2) ukr_bf16_k2r(0, a2, tab, nseg, seg2, mr, b0, bias, lo, hi, c, tc, ldc, nr);
    else ukr_bf16_k2r(1, a2, tab, nseg, seg2, mr, b0, bias, lo, hi, c, tc, ldc, nr);
}

/* One row of C (M = 1) against panels b0 and b1 (b1 NULL: b0 alone, nr <= 16): four partial sums per panel
 * over interleaved pairs (pair kk of K into sum kk % 4, the last K / 2 % 4 into sum 0), added at the end.
 * The 1-row micro-kernel had one accumulator per panel, a chain of dependent vdpbf16ps at their latency
 * (digits' 256 x 128 layer ran 0.67 us). The row is K / 2 contiguous pairs at a (TAB 0) or the nseg segments
 * of seg2 pairs that tab lists (TAB 1: a convolution's row table), the same sums in the same order either way,
 * so a patch read in place gives what its im2col copy gives. */
RT_OPT_INLINE void gemv_bf16_r(const int TAB, const uint32_t *a, const uint32_t *const *tab, int32_t seg2, int32_t k2,
                               const uint16_t *b0, const uint16_t *b1, const float *bias, float lo, float hi, void *c,
                               int32_t tc, int32_t nr) {
    const __mmask16 m0 = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
    const __mmask16 m1 = (__mmask16)(nr >= 2 * NR ? 0xFFFF : nr > NR ? (1u << (nr - NR)) - 1 : 0);
    const uint32_t *seg = TAB ? tab[0] : a;
    int32_t left = TAB ? seg2 : k2; /* pairs left in seg */
    __m512 s[4][2];
    int32_t kk, u;
#define NEXT_PAIR(x)                                                                                                   do {                                                                                                                   if (TAB && left == 0) seg = *++tab, left = seg2;                                                                   left--;                                                                                                            x = _mm512_set1_epi32((int32_t)*seg++);                                                                        } while (0)
    for (u = 0; u < 4; u++) s[u][0] = s[u][1] = _mm512_setzero_ps();
    for (kk = 0; kk + 4 <= k2; kk += 4)
        for (u = 0; u < 4; u++) {
            __m512i x;
            NEXT_PAIR(x);
            RT_DPBF16(s[u][0], x, _mm512_loadu_si512((const void *)(b0 + (int64_t)(kk + u) * NR * 2)));
            if (b1) RT_DPBF16(s[u][1], x, _mm512_loadu_si512((const void *)(b1 + (int64_t)(kk + u) * NR * 2)));
        }
    for (; kk < k2; kk++) {
        __m512i x;
        NEXT_PAIR(x);
        RT_DPBF16(s[0][0], x, _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * NR * 2)));
        if (b1) RT_DPBF16(s[0][1], x, _mm512_loadu_si512((const void *)(b1 + (int64_t)kk * NR * 2)));
    }
#undef NEXT_PAIR
    for (u = 0; u < 2; u++) {
        const __m512 t = _mm512_add_ps(_mm512_add_ps(s[0][u], s[1][u]), _mm512_add_ps(s[2][u], s[3][u]));
        const __m512 v = _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), _mm512_add_ps(_mm512_loadu_ps(bias + u * NR), t)));
        if (u == 0 || b1) put16(c, u * NR, tc, u ? m1 : m0, v);
    }
}
static void gemv_bf16(const uint32_t *a, const uint32_t *const *tab, int32_t seg2, int32_t k2, const uint16_t *b0,
                      const uint16_t *b1, const float *bias, float lo, float hi, void *c, int32_t tc, int32_t nr) {
    if (a) gemv_bf16_r(0, a, tab, seg2, k2, b0, b1, bias, lo, hi, c, tc, nr);
    else gemv_bf16_r(1, a, tab, seg2, k2, b0, b1, bias, lo, hi, c, tc, nr);
}

/* Rows of A as bf16 pairs, ld words apart (the odd K's last pair zero-padded), rounded as rt_f32_to_bf16. */
static void pairs_bf16(const float *a, int32_t lda, int32_t rows, int32_t k, uint32_t *dst, int32_t ld) {
    int32_t r, i;
    for (r = 0; r < rows; r++) {
        const float *src = a + (int64_t)r * lda;
        uint16_t *out = (uint16_t *)(void *)(dst + (int64_t)r * ld);
        for (i = 0; i + 32 <= k; i += 32) {
            __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
            _mm512_storeu_si512((void *)(out + i), (__m512i)v);
        }
        for (; i < k; i++) out[i] = rt_f32_to_bf16(src[i]);
        if (k & 1) out[k] = 0;
    }
}

/* C rows 0..rows of p from A already as bf16 pairs, 32 rows at a time against each pair of panels: rows
 * of (k + 1) / 2 words at a2, or (a2 NULL) the row table tab of nseg segments of seg2 words a row (see
 * ukr_bf16_r). one_row: the whole product (or image) is this one row: gemv_bf16, whose partial sums differ
 * from the micro-kernels'; a row left alone at the end of a block takes the 1-row micro-kernel, so that a
 * row's value does not depend on how the rows were blocked (the row-table and im2col paths block them
 * differently). */
void rt_opt_fc_bf16_pairs(const rt_opt_gemm_params *p, int32_t rows, const uint32_t *a2, const uint32_t *const *tab,
                          int32_t nseg, int32_t seg2, const uint16_t *packed_b, const float *bias, void *cv, int32_t tc,
                          int one_row) {
    const int32_t k2 = (p->k + 1) / 2;
    char *c = cv;
    const int64_t es = tc == RT_F32 ? 4 : 2;
    int32_t i0, i, j;
    if (a2) seg2 = k2; /* contiguous rows: K / 2 words each (the kernels ignore nseg then) */
    for (i0 = 0; i0 < rows; i0 += HALF_ROWS) {
        const int32_t n0 = rows - i0 < HALF_ROWS ? rows - i0 : HALF_ROWS;
        for (j = 0; j * NR < p->n; j += 2) {
            const uint16_t *b0, *b1;
            float bias2[2 * NR];
            int32_t nr = rt_opt_panel_pair(packed_b, bias, p->n, k2, j, &b0, &b1, bias2);
            const int lone = nr <= NR; /* a lone last panel: 8 rows in two accumulators each (ukr_bf16_k2) */
            int32_t mr;
            for (i = i0; i < i0 + n0; i += mr) {
                mr = rt_opt_next_rows(i0 + n0 - i, HALF_MR, lone ? HALF_MR : HALF_MR + 1);
                const uint32_t *ai = a2 ? a2 + (int64_t)i * k2 : NULL, *const *ti = a2 ? NULL : tab + (int64_t)i * nseg;
                void *ci = c + ((int64_t)i * p->ldc + j * NR) * es;
                if (one_row)
                    gemv_bf16(ai, ti, seg2, k2, b0, nr <= NR ? NULL : b1, bias2, p->act_min, p->act_max, ci, tc, nr);
                else if (lone) ukr_bf16_k2(ai, ti, nseg, seg2, mr, b0, bias2, p->act_min, p->act_max, ci, tc, p->ldc, nr);
                else ukr_bf16(ai, ti, nseg, seg2, mr, b0, b1, bias2, p->act_min, p->act_max, ci, tc, p->ldc, nr);
            }
        }
    }
}

#endif


int rt_opt_fc_bf16_rows(const rt_opt_gemm_params *p, const uint16_t *a, const uint16_t *packed_b, const float *bias,
                        float *c, void *scratch) {
    return rt_opt_fc_bf16_rows_to(p, a, packed_b, bias, c, RT_F32, scratch);
}

/* The bf16 FC over blocks of HALF_ROWS rows of A, stored as ta: f32 rows rounded into pairs in scratch; bf16
 * rows used as the pairs themselves when packed (even K, lda K, 4-byte aligned), else copied with the odd K's
 * last pair zero-padded. C of type tc. Returns 0 when built without AVX512-BF16 (p NULL: only answers). */
static int fc_bf16_blocks(const rt_opt_gemm_params *p, int32_t ta, const void *a, const uint16_t *packed_b,
                          const float *bias, void *c, int32_t tc, void *scratch) {
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
    int32_t k, k2, i0, r;
    if (!p) return 1; /* the question: is the path built in? */
    k = p->k, k2 = (k + 1) / 2;
    for (i0 = 0; i0 < p->m; i0 += HALF_ROWS) {
        const int32_t rows = p->m - i0 < HALF_ROWS ? p->m - i0 : HALF_ROWS;
        const uint32_t *a2 = scratch;
        if (ta == RT_F32) {
            pairs_bf16((const float *)a + (int64_t)i0 * p->lda, p->lda, rows, k, scratch, k2);
        } else {
            const uint16_t *src = (const uint16_t *)a + (int64_t)i0 * p->lda;
            a2 = (const uint32_t *)(const void *)src; /* even K, packed rows: the pairs themselves */
            if ((k & 1) || p->lda != k || ((uintptr_t)src & 3u)) {
                uint16_t *d = scratch;
                for (r = 0; r < rows; r++) {
                    memcpy(d + (int64_t)r * 2 * k2, src + (int64_t)r * p->lda, sizeof(uint16_t) * (size_t)k);
                    if (k & 1) d[(int64_t)r * 2 * k2 + k] = 0;
                }
                a2 = scratch;
            }
        }
        rt_opt_fc_bf16_pairs(p, rows, a2, NULL, 0, 0, packed_b, bias, (char *)c + (int64_t)i0 * p->ldc * (tc == RT_F32 ? 4 : 2), tc,
                      p->m == 1);
    }
    return 1;
#else
    (void)p, (void)ta, (void)a, (void)packed_b, (void)bias, (void)c, (void)tc, (void)scratch;
    return 0;
#endif
}

int rt_opt_fc_bf16_rows_to(const rt_opt_gemm_params *p, const uint16_t *a, const uint16_t *packed_b,
                           const float *bias, void *c, int32_t tc, void *scratch) {
    return fc_bf16_blocks(p, RT_BF16, a, packed_b, bias, c, tc, scratch);
}

int rt_opt_fc_bf16_to(const rt_opt_gemm_params *p, const float *a, const uint16_t *packed_b, const float *bias, void *c,
                      int32_t tc, void *scratch) {
    return fc_bf16_blocks(p, RT_F32, a, packed_b, bias, c, tc, scratch);
}

