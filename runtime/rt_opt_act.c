/* rt_opt_act.c - f32 GELU and SOFTMAX with a vectorizable exp/erfc
 * (rt_opt_internal.h): the row loops have no libm calls, so the compiler
 * turns them into vector code (the softmax/attention row max and exp are
 * also written out for AVX-512, bit-identical to the portable loops).
 * Results differ from the reference kernels by a few ulp (exp) and 1.5e-7
 * absolute (erfc), not in summation order. The int8 table activations
 * (rt_opt_lut_i8) are exact. LayerNorm: see rt_opt.h. */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

void rt_opt_lut_i8(const int8_t *lut, int64_t n, const int8_t *in, int8_t *out) {
    int64_t i = 0;
#if defined(RT_OPT_AVX512) && defined(__AVX512VBMI__)
    /* the table in four vectors: vpermi2b picks from a 128-entry half by the low 7 bits of each byte, the
     * sign bit (index bit 7) picks the half; the byte loop ran one lookup per cycle at best */
    const __m512i t0 = _mm512_loadu_si512((const void *)lut), t1 = _mm512_loadu_si512((const void *)(lut + 64));
    const __m512i t2 = _mm512_loadu_si512((const void *)(lut + 128)), t3 = _mm512_loadu_si512((const void *)(lut + 192));
    for (; i < n; i += 64) {
        const __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        const __m512i x = _mm512_maskz_loadu_epi8(m, (const void *)(in + i));
        const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1), hi = _mm512_permutex2var_epi8(t2, x, t3);
        _mm512_mask_storeu_epi8((void *)(out + i), m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
    }
#endif
    for (; i < n; i++) out[i] = lut[(uint8_t)in[i]];
}

/* Max and sums of a row in 32 independent lanes, so the loops vectorize without reassociation
 * flags into several vector accumulators (the lanes are combined at the end): with 8 lanes
 * (one vector) each row was a chain of dependent adds, and the 128-wide rows of BERT's
 * LayerNorms and attention softmax ran at the add latency (LayerNorm [128, 128] 9.1 -> 3.8 us). */
#define ROW_LANES 32
#define NR_LN 16 /* LayerNorm rows summed together (AVX-512), and lanes of a vector */

#if defined(RT_OPT_AVX2)
/* 0 + lane 0 + lane 1 + ... + lane 7, one after another (the last step of lanes_total, in registers) */
static inline float total8(__m256 q) {
    const __m128 a = _mm256_castps256_ps128(q), b = _mm256_extractf128_ps(q, 1);
    float t = 0.0f + _mm_cvtss_f32(a);
    t += _mm_cvtss_f32(_mm_shuffle_ps(a, a, 1));
    t += _mm_cvtss_f32(_mm_shuffle_ps(a, a, 2));
    t += _mm_cvtss_f32(_mm_shuffle_ps(a, a, 3));
    t += _mm_cvtss_f32(b);
    t += _mm_cvtss_f32(_mm_shuffle_ps(b, b, 1));
    t += _mm_cvtss_f32(_mm_shuffle_ps(b, b, 2));
    return t + _mm_cvtss_f32(_mm_shuffle_ps(b, b, 3));
}
#endif

#if !(defined(RT_OPT_AVX512) && defined(__FMA__) && defined(__AVX512VL__)) /* else total16 */
/* The ROW_LANES partial sums of a row, added up (one order for every row sum). */
static float lanes_total(float *s) {
    float t = 0.0f;
    int32_t l;
    for (l = 0; l < ROW_LANES / 2; l++) s[l] += s[l + ROW_LANES / 2];
    for (l = 0; l < ROW_LANES / 4; l++) s[l] += s[l + ROW_LANES / 4];
    for (l = 0; l < ROW_LANES / 4; l++) t += s[l];
    return t;
}

#if defined(RT_OPT_AVX2)
/* lanes_total of the 32 lanes in four vectors (lane l of q_k: lane 8 k + l), in registers: the same additions
 * in the same order, without the round trip through memory */
static inline float lanes_total8(__m256 q0, __m256 q1, __m256 q2, __m256 q3) {
    return total8(_mm256_add_ps(_mm256_add_ps(q0, q2), _mm256_add_ps(q1, q3)));
}
#endif
#endif

#if defined(RT_OPT_AVX512) && defined(__FMA__) && defined(__AVX512VL__)
/* lanes_total of the 32 lanes lo (0..15) and hi (16..31), in registers: the same additions in the same
 * order (the two halves, the two quarters, then lanes 0..7 one after another); storing the lanes to add
 * them from memory cost a short row (ViT's 17 keys) more than its exponentials. */
static inline float total16(__m512 lo, __m512 hi) {
    const __m512 s = _mm512_add_ps(lo, hi);
    return total8(_mm256_add_ps(_mm512_castps512_ps256(s), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1))));
}

/* total16 of 16 rows at once, v[r] = row r's lo + hi: the lanes transposed in registers, then the same
 * additions in the same order, lane r for row r (16 chains of eight dependent scalar adds were most of a
 * 17-key attention's exponential rows). v is clobbered. */
static inline __m512 totals16(__m512 *v) {
    __m512 t = _mm512_setzero_ps();
    int32_t l;
    transpose16(v);
    for (l = 0; l < 8; l++) t = _mm512_add_ps(t, _mm512_add_ps(v[l], v[l + 8]));
    return t;
}
#endif

#if (defined(RT_OPT_AVX2) && defined(__FMA__)) || defined(RT_A64)
/* The exact GELU's rational erf (gelu_rational, AVX-512, AVX2 and AArch64): P and Q of degree 5, highest first. */
static const float gelu_p5[6] = {2.044547056e-06f, 2.858743374e-04f, 3.803278530e-03f,
                                 5.286066530e-02f, 1.912648744e-01f, 1.128379086e+00f};
static const float gelu_q5[6] = {3.808806902e-05f, 1.172046372e-03f, 1.504271425e-02f,
                                 1.144631494e-01f, 5.028363131e-01f, 1.0f};
#endif

#include "arm64/rt_a64_act_f32.h" /* the AArch64 row loops (RT_A64) */

#if defined(RT_OPT_AVX512) && defined(__FMA__) && defined(__AVX512VL__)
/* The row loops written out for AVX-512, the same arithmetic lane for lane (outputs bit-identical to the
 * portable loops below): what GCC made of those kept the 32 partial sums on the stack (a store and a
 * reload each step) and reduced the lanes one scalar at a time, half the time of a 128-wide attention row. */
static inline __m512 expf16(__m512 x) { /* rt_opt_expf, operation for operation */
    const __m512 big = _mm512_set1_ps(12582912.0f);
    __m512 n, r, p;
    x = _mm512_max_ps(_mm512_set1_ps(-87.0f), x); /* a NaN stays (max/min return their second operand) */
    x = _mm512_min_ps(_mm512_set1_ps(88.0f), x);
    n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), big), big);
    r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), x);
    r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
    p = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
    return _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(
                                _mm512_add_epi32(_mm512_cvttps_epi32(n), _mm512_set1_epi32(127)), 23)));
}

/* 0.5 x (1 + erf(z)), z = x / sqrt(2) held in [-zc, zc], erf(z) = z P(z^2) / Q(z^2): P and Q of degree `deg`,
 * coefficients highest first (Q's last is 1), evaluated by Horner's rule side by side. */
static inline __m512 gelu_rational(__m512 x, float zc, const float *pc, const float *qc, int deg) {
    const __m512 zmax = _mm512_set1_ps(zc);
    const __m512 z = _mm512_max_ps(_mm512_sub_ps(_mm512_setzero_ps(), zmax),
                                   _mm512_min_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.707106781186547524400844f)), zmax));
    const __m512 u = _mm512_mul_ps(z, z), h = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
    __m512 pp = _mm512_set1_ps(pc[0]), qq = _mm512_set1_ps(qc[0]);
    int i;
    for (i = 1; i <= deg; i++) {
        pp = _mm512_fmadd_ps(pp, u, _mm512_set1_ps(pc[i]));
        qq = _mm512_fmadd_ps(qq, u, _mm512_set1_ps(qc[i]));
    }
    return _mm512_fmadd_ps(h, _mm512_div_ps(_mm512_mul_ps(z, pp), qq), h);
}

/* Exact GELU of 16 lanes: P and Q of degree 5 fitted here (least squares on Chebyshev points of [0, 3.925],
 * reweighted toward the largest errors; 1.9e-8 in exact arithmetic, 3.4e-7 evaluated in f32, against
 * rt_opt_erfcf's 1.5e-7 and f32 rounding), z held in [-3.925, 3.925] where erf rounds to +-1 in f32. 12
 * multiply-adds and a division where the erfc form took an exponential too: ViT's 17 x 128 GELU 0.53 -> 0.28 us. */
static inline __m512 gelu1(__m512 x) { return gelu_rational(x, 3.925f, gelu_p5, gelu_q5, 5); }
/* Exact GELU of n values, 64 at a time (four independent chains: 0.54 -> 0.50 us for ViT's 17 x 128), then
 * 16; what GCC made of the scalar loop ran 0.76 us (the tanh form's loop, vectorized by GCC, ran faster
 * than written out: left to it). Returns the values done (whole vectors). */
static int64_t gelu_erf16(int64_t n, const float *in, float *out) {
    int64_t i;
    for (i = 0; i + 64 <= n; i += 64) {
        const __m512 a = gelu1(_mm512_loadu_ps(in + i)), b = gelu1(_mm512_loadu_ps(in + i + 16));
        const __m512 c = gelu1(_mm512_loadu_ps(in + i + 32)), d = gelu1(_mm512_loadu_ps(in + i + 48));
        _mm512_storeu_ps(out + i, a);
        _mm512_storeu_ps(out + i + 16, b);
        _mm512_storeu_ps(out + i + 32, c);
        _mm512_storeu_ps(out + i + 48, d);
    }
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, gelu1(_mm512_loadu_ps(in + i)));
    return i;
}

#if defined(__AVX512BF16__)
/* GELU for a bf16 result: P and Q of degree 3 (fitted as gelu1's on [0, 3.5], z held there), 6 multiply-adds
 * where gelu1 takes 10. Against the exact GELU, 2.6e-5 absolute at most (evaluated in f32 over [-12, 12];
 * 2e-6 relative where |GELU| > 1), a hundredth of bf16's rounding step: computing the f32 function to 3e-7
 * and then dropping 16 bits of it was a third of the work. 0 where z was held at -3.5 (|GELU| < 2e-6 there,
 * while 1 + erf is the fit's error, up to 5e-6, times |x| / 2), NaN kept (an unordered compare). */
static const float gelu_p3[4] = {7.080759925e-04f, 4.257013009e-02f, 1.586248049e-01f, 1.128349899e+00f};
static const float gelu_q3[4] = {8.966539754e-03f, 9.581197125e-02f, 4.737777906e-01f, 1.0f};
static inline __m512 gelu1_bf16(__m512 x) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-4.94974747f), _CMP_NLE_UQ),
                               gelu_rational(x, 3.5f, gelu_p3, gelu_q3, 3));
}
#endif

/* gelu1_bf16 of n values rounded to bf16 (vcvtneps2bf16, as rt_opt_from_f32 rounds), the last vector masked.
 * Returns n (0 without AVX512-BF16). */
static int64_t gelu_erf16_bf16(int64_t n, const float *in, uint16_t *out) {
#if defined(__AVX512BF16__)
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 a = gelu1_bf16(_mm512_loadu_ps(in + i)), b = gelu1_bf16(_mm512_loadu_ps(in + i + 16));
        _mm512_storeu_si512((void *)(out + i), (__m512i)_mm512_cvtne2ps_pbh(b, a));
    }
    for (; i < n; i += 16) {
        const __mmask16 k = (__mmask16)(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1u);
        rt_store16_bf16(out + i, k, gelu1_bf16(rt_load16(k, in + i)));
    }
    return n;
#else
    (void)in, (void)out, (void)n;
    return 0;
#endif
}

float rt_opt_max_f32(int32_t d, const float *x) {
    const __m512 lowest = _mm512_set1_ps(-3.40282347e+38f);
    __m512 m0 = lowest, m1 = lowest;
    int32_t c;
    for (c = 0; c + ROW_LANES <= d; c += ROW_LANES) { /* a NaN in x is passed over, as x > m ? x : m */
        m0 = _mm512_max_ps(_mm512_loadu_ps(x + c), m0);
        m1 = _mm512_max_ps(_mm512_loadu_ps(x + c + 16), m1);
    }
    if (c < d) {
        const int32_t rem = d - c;
        const __mmask16 k0 = (__mmask16)(rem >= 16 ? 0xFFFF : (1u << rem) - 1u);
        const __mmask16 k1 = (__mmask16)(rem > 16 ? (1u << (rem - 16)) - 1u : 0u);
        m0 = _mm512_mask_max_ps(m0, k0, _mm512_maskz_loadu_ps(k0, x + c), m0);
        m1 = _mm512_mask_max_ps(m1, k1, _mm512_maskz_loadu_ps(k1, x + c + 16), m1);
    }
    return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

/* 2^t for probabilities stored in bf16 (the attention's P.V operand): 2^f 2^n with n = round(t), f = t - n
 * in [-1/2, 1/2], 2^f by a degree-4 polynomial fitted here for relative error (at most 2.7e-6, under a
 * hundredth of bf16's 2^-9 rounding step) and 2^n applied by vscalefps (0 below float's range); 9 vector
 * operations where expf16 takes 17. t is held in [-200, 88 log2(e)] (a mask's fill, -3e38 once scaled,
 * would make f = -inf - -inf, NaN; expf16 stops at e^88 too) and a NaN stays. */
/* s 2^f for f in [-1/2, 1/2]: the polynomial, its coefficients times s (a constant once inlined). */
static inline __m512 exp2_poly(__m512 f, float s) {
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(s * 0.009570068679749966f), f, _mm512_set1_ps(s * 0.055917806923389435f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(s * 0.240247443318367f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(s * 0.6931218504905701f));
    return _mm512_fmadd_ps(p, f, _mm512_set1_ps(s * 0.9999992847442627f));
}

static inline __m512 exp2_bf16(__m512 t) {
    __m512 n;
    t = _mm512_min_ps(_mm512_set1_ps(126.957164f), _mm512_max_ps(_mm512_set1_ps(-200.0f), t));
    n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_scalef_ps(exp2_poly(_mm512_sub_ps(t, n), 1.0f), n);
}

/* exp(beta (x - sub)) of 16 lanes (the masked ones of a tail loaded as zeros, not summed); with `fast`
 * (vb then beta log2(e)) by exp2_bf16. */
static inline __m512 exp_step(const float *x, __mmask16 k, __m512 vb, __m512 vs, int fast) {
    const __m512 t = _mm512_mul_ps(_mm512_sub_ps(rt_load16(k, x), vs), vb);
    return fast ? exp2_bf16(t) : expf16(t);
}

/* y = exp(beta (x - sub)) as f32 (y16 NULL) or bf16 into y16 (bf16 set; AVX512-BF16 builds): returns the sum. */
static float exp_row(int32_t d, float beta, float sub, const float *x, float *y, uint16_t *y16) {
    const int fast = y16 != NULL;
    const __m512 vb = _mm512_set1_ps(fast ? beta * 1.44269504088896341f : beta), vs = _mm512_set1_ps(sub);
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    int32_t c;
    for (c = 0; c < d; c += ROW_LANES) {
        const int32_t rem = d - c;
        const __mmask16 k0 = (__mmask16)(rem >= 16 ? 0xFFFF : (1u << rem) - 1u);
        const __mmask16 k1 = (__mmask16)(rem >= 32 ? 0xFFFF : rem > 16 ? (1u << (rem - 16)) - 1u : 0u);
        const __m512 e0 = exp_step(x + c, k0, vb, vs, fast), e1 = exp_step(x + c + 16, k1, vb, vs, fast);
        s0 = _mm512_mask_add_ps(s0, k0, s0, e0);
        s1 = _mm512_mask_add_ps(s1, k1, s1, e1);
        if (y16) {
#if defined(__AVX512BF16__)
            rt_store16_bf16(y16 + c, k0, e0);
            rt_store16_bf16(y16 + c + 16, k1, e1);
#else
            float t[ROW_LANES];
            int32_t l;
            _mm512_storeu_ps(t, e0);
            _mm512_storeu_ps(t + 16, e1);
            for (l = 0; l < ROW_LANES && c + l < d; l++) y16[c + l] = rt_f32_to_bf16(t[l]);
#endif
            continue;
        }
        rt_store16(y + c, k0, e0);
        rt_store16(y + c + 16, k1, e1);
    }
    return total16(s0, s1);
}

/* exp_row on two rows at once, their exponentials interleaved (a 32-key row's two vectors alone were one
 * latency-bound chain of ~20 operations, most of an attention row's time at ViT's 17 keys): the same
 * operations on each row as exp_row, so the same values and sums. */
static void exp_row_pair(int32_t d, float beta, const float *sub, const float *const *x, float *const *y,
                         uint16_t *const *y16, float *sum, __m512 *part) {
    const int fast = y16[0] != NULL;
    const __m512 vb = _mm512_set1_ps(fast ? beta * 1.44269504088896341f : beta);
    const __m512 vs0 = _mm512_set1_ps(sub[0]), vs1 = _mm512_set1_ps(sub[1]);
    __m512 s00 = _mm512_setzero_ps(), s01 = s00, s10 = s00, s11 = s00;
    int32_t c;
    for (c = 0; c < d; c += ROW_LANES) {
        const int32_t rem = d - c;
        const __mmask16 k0 = (__mmask16)(rem >= 16 ? 0xFFFF : (1u << rem) - 1u);
        const __mmask16 k1 = (__mmask16)(rem >= 32 ? 0xFFFF : rem > 16 ? (1u << (rem - 16)) - 1u : 0u);
        const __m512 e00 = exp_step(x[0] + c, k0, vb, vs0, fast), e01 = exp_step(x[0] + c + 16, k1, vb, vs0, fast);
        const __m512 e10 = exp_step(x[1] + c, k0, vb, vs1, fast), e11 = exp_step(x[1] + c + 16, k1, vb, vs1, fast);
        s00 = _mm512_mask_add_ps(s00, k0, s00, e00), s01 = _mm512_mask_add_ps(s01, k1, s01, e01);
        s10 = _mm512_mask_add_ps(s10, k0, s10, e10), s11 = _mm512_mask_add_ps(s11, k1, s11, e11);
        if (fast) {
#if defined(__AVX512BF16__)
            rt_store16_bf16(y16[0] + c, k0, e00);
            rt_store16_bf16(y16[0] + c + 16, k1, e01);
            rt_store16_bf16(y16[1] + c, k0, e10);
            rt_store16_bf16(y16[1] + c + 16, k1, e11);
#else
            float t[2 * ROW_LANES];
            int32_t l;
            _mm512_storeu_ps(t, e00), _mm512_storeu_ps(t + 16, e01);
            _mm512_storeu_ps(t + 32, e10), _mm512_storeu_ps(t + 48, e11);
            for (l = 0; l < ROW_LANES && c + l < d; l++)
                y16[0][c + l] = rt_f32_to_bf16(t[l]), y16[1][c + l] = rt_f32_to_bf16(t[ROW_LANES + l]);
#endif
            continue;
        }
        rt_store16(y[0] + c, k0, e00), rt_store16(y[0] + c + 16, k1, e01);
        rt_store16(y[1] + c, k0, e10), rt_store16(y[1] + c + 16, k1, e11);
    }
    if (part) { /* the rows' lo + hi, for totals16 */
        part[0] = _mm512_add_ps(s00, s01), part[1] = _mm512_add_ps(s10, s11);
        return;
    }
    sum[0] = total16(s00, s01), sum[1] = total16(s10, s11);
}
#else
#if defined(RT_OPT_AVX2) && defined(__FMA__)
/* AVX2 + FMA without AVX-512 (16 ymm registers): the exact GELU and the exponential rows written out in
 * 8 lanes, the same operations lane for lane as their AVX-512 twins (gelu_rational, expf16), so the same
 * values. GCC's code for the portable loops below ran the erfc form (an exponential and a division per
 * value) and kept the 32 row sums on the stack. */
static inline __m256 gelu8(__m256 x) { /* gelu_rational(x, 3.925, gelu_p5, gelu_q5, 5) in 8 lanes */
    const __m256 zmax = _mm256_set1_ps(3.925f);
    const __m256 z = _mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), zmax),
                                   _mm256_min_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.707106781186547524400844f)), zmax));
    const __m256 u = _mm256_mul_ps(z, z), h = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
    __m256 pp = _mm256_set1_ps(gelu_p5[0]), qq = _mm256_set1_ps(gelu_q5[0]);
    int i;
    for (i = 1; i <= 5; i++) {
        pp = _mm256_fmadd_ps(pp, u, _mm256_set1_ps(gelu_p5[i]));
        qq = _mm256_fmadd_ps(qq, u, _mm256_set1_ps(gelu_q5[i]));
    }
    return _mm256_fmadd_ps(h, _mm256_div_ps(_mm256_mul_ps(z, pp), qq), h);
}

/* gelu8 over n values, 32 at a time (four independent chains), then 8; returns the values done. */
static int64_t gelu_erf8(int64_t n, const float *in, float *out) {
    int64_t i;
    for (i = 0; i + 32 <= n; i += 32) {
        const __m256 a = gelu8(_mm256_loadu_ps(in + i)), b = gelu8(_mm256_loadu_ps(in + i + 8));
        const __m256 c = gelu8(_mm256_loadu_ps(in + i + 16)), d = gelu8(_mm256_loadu_ps(in + i + 24));
        _mm256_storeu_ps(out + i, a);
        _mm256_storeu_ps(out + i + 8, b);
        _mm256_storeu_ps(out + i + 16, c);
        _mm256_storeu_ps(out + i + 24, d);
    }
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, gelu8(_mm256_loadu_ps(in + i)));
    return i;
}

#define RT_OPT_EXP8 1
#endif

float rt_opt_max_f32(int32_t d, const float *x) {
    float m[ROW_LANES];
    int32_t c = 0, l;
#if defined(RT_OPT_AVX2)
    { /* the same 32 lanes in four vectors (lane l of vector q: m[8 q + l]), the tail's lanes past d kept; GCC
       * left the tail (all of a short row: ViT's 17 keys) scalar */
        const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        __m256 m0 = _mm256_set1_ps(-3.40282347e+38f), m1 = m0, m2 = m0, m3 = m0;
        __m256 *const mq[4] = {&m0, &m1, &m2, &m3};
        int32_t q;
        for (; c + ROW_LANES <= d; c += ROW_LANES) { /* max(x, m): x > m ? x : m, so a NaN in x is passed over */
            m0 = _mm256_max_ps(_mm256_loadu_ps(x + c), m0);
            m1 = _mm256_max_ps(_mm256_loadu_ps(x + c + 8), m1);
            m2 = _mm256_max_ps(_mm256_loadu_ps(x + c + 16), m2);
            m3 = _mm256_max_ps(_mm256_loadu_ps(x + c + 24), m3);
        }
        for (q = 0; q < 4 && c + 8 * q < d; q++) {
            const __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(d - c - 8 * q), iota);
            *mq[q] = _mm256_blendv_ps(*mq[q], _mm256_max_ps(_mm256_maskload_ps(x + c + 8 * q, k), *mq[q]),
                                      _mm256_castsi256_ps(k));
        }
        c = d;
        _mm256_storeu_ps(m, m0), _mm256_storeu_ps(m + 8, m1);
        _mm256_storeu_ps(m + 16, m2), _mm256_storeu_ps(m + 24, m3);
    }
#elif defined(RT_A64)
    (void)m, (void)l;
    return rt_a64_max_f32(d, x);
#else
    for (l = 0; l < ROW_LANES; l++) m[l] = -3.40282347e+38f;
#endif
    for (; c + ROW_LANES <= d; c += ROW_LANES)
        for (l = 0; l < ROW_LANES; l++) m[l] = x[c + l] > m[l] ? x[c + l] : m[l];
    for (l = 0; c + l < d; l++) m[l] = x[c + l] > m[l] ? x[c + l] : m[l]; /* the tail in lanes too */
    for (l = 1; l < ROW_LANES; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}

static float exp_row(int32_t d, float beta, float sub, const float *x, float *y, uint16_t *y16) {
    float s[ROW_LANES];
    int32_t c = 0, l;
#if defined(RT_OPT_EXP8)
    /* the 32 lanes in four vectors (s[8 q ..] in s_q), the tail too, totalled in registers: no zeroing of s
     * (its rep stos cost a short row 9 % of its time) */
    if (!y16) {
        const __m256 vb = _mm256_set1_ps(beta), vs = _mm256_set1_ps(sub);
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        for (; c + ROW_LANES <= d; c += ROW_LANES) {
            const __m256 e0 = rt_opt_expf8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c), vs), vb));
            const __m256 e1 = rt_opt_expf8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c + 8), vs), vb));
            const __m256 e2 = rt_opt_expf8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c + 16), vs), vb));
            const __m256 e3 = rt_opt_expf8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c + 24), vs), vb));
            s0 = _mm256_add_ps(s0, e0), s1 = _mm256_add_ps(s1, e1), s2 = _mm256_add_ps(s2, e2), s3 = _mm256_add_ps(s3, e3);
            _mm256_storeu_ps(y + c, e0), _mm256_storeu_ps(y + c + 8, e1);
            _mm256_storeu_ps(y + c + 16, e2), _mm256_storeu_ps(y + c + 24, e3);
        }
        if (c < d) { /* the tail (all of a short row: ViT's 17 keys, 12 % of its time in scalar exps) in the
                      * same lanes: lane l of vector q is s[8 q + l]; lanes past d load 0 and add nothing */
            const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            __m256 *const sq[4] = {&s0, &s1, &s2, &s3};
            int32_t q;
            for (q = 0; q < 4 && c + 8 * q < d; q++) {
                const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(d - c - 8 * q), iota);
                const __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_maskload_ps(x + c + 8 * q, m), vs), vb);
                const __m256 e = _mm256_and_ps(rt_opt_expf8(t), _mm256_castsi256_ps(m));
                *sq[q] = _mm256_add_ps(*sq[q], e);
                _mm256_maskstore_ps(y + c + 8 * q, m, e);
            }
            c = d;
        }
        return lanes_total8(s0, s1, s2, s3);
    } else
#endif
        for (l = 0; l < ROW_LANES; l++) s[l] = 0.0f;
#if defined(RT_A64)
    if (!y16) c = rt_a64_exp_row(d, beta, sub, x, y, s);
#endif
    for (; c + ROW_LANES <= d; c += ROW_LANES)
        for (l = 0; l < ROW_LANES; l++) {
            const float e = rt_opt_expf((x[c + l] - sub) * beta);
            if (y16) y16[c + l] = rt_f32_to_bf16(e);
            else y[c + l] = e;
            s[l] += e;
        }
    /* the tail (short rows: all of a 17-token ViT's) in lanes too, so it vectorizes */
    for (l = 0; c + l < d; l++) {
        const float e = rt_opt_expf((x[c + l] - sub) * beta);
        if (y16) y16[c + l] = rt_f32_to_bf16(e);
        else y[c + l] = e;
        s[l] += e;
    }
    return lanes_total(s);
}
#endif

/* y[c] = exp(beta (x[c] - sub)); y may alias x. Returns the sum of y, made in the same pass. */
float rt_opt_exp_row_f32(int32_t d, float beta, float sub, const float *x, float *y) {
    return exp_row(d, beta, sub, x, y, NULL);
}

/* The same exponentials rounded to bf16 into y (the sum is of the f32 values); with AVX-512 by exp2_bf16,
 * within 2.7e-6 relative of the f32 row's before the rounding. */
float rt_opt_exp_row_bf16(int32_t d, float beta, float sub, const float *x, uint16_t *y) {
    return exp_row(d, beta, sub, x, NULL, y);
}

/* n rows of exp_row, row r: x + r ldx -> y + r ldy (f32; y16 NULL) or y16 + r ldy (bf16), sub[r] and
 * sum[r]; two rows at a time where the vector path has exp_row_pair. y may alias x. */
void rt_opt_exp_rows(int32_t n, int32_t d, float beta, const float *sub, const float *x, int64_t ldx, float *y,
                     uint16_t *y16, int64_t ldy, float *sum) {
    int32_t r = 0;
#if defined(RT_OPT_AVX512) && defined(__FMA__) && defined(__AVX512VL__) /* exp_row's vector path */
    __m512 part[16];
    for (; r + 2 <= n; r += 2) {
        const float *const xr[2] = {x + r * ldx, x + (r + 1) * ldx};
        float *const yr[2] = {y16 ? NULL : y + r * ldy, y16 ? NULL : y + (r + 1) * ldy};
        uint16_t *const hr[2] = {y16 ? y16 + r * ldy : NULL, y16 ? y16 + (r + 1) * ldy : NULL};
        const int32_t g = r % 16, whole = n - (r - g) >= 16; /* rows of a whole group of 16: summed together */
        exp_row_pair(d, beta, sub + r, xr, yr, hr, sum + r, whole ? part + g : NULL);
        if (whole && g == 14) _mm512_storeu_ps(sum + r - 14, totals16(part));
    }
#endif
    for (; r < n; r++)
        sum[r] = exp_row(d, beta, sub[r], x + r * ldx, y16 ? NULL : y + r * ldy, y16 ? y16 + r * ldy : NULL);
}

#if defined(RT_OPT_S8_PV)
/* 255 2^t for t <= 0 (rt_opt_exp_rows_s8's probabilities): exp2_bf16's polynomial times 255, t held at -30
 * or above (255 2^-30 rounds to 0 either way) so 2^n goes into the exponent bits as an integer, n rounded by
 * the 1.5 2^23 addition: here vrndscaleps and vscalefps cost more than the operations they save. */
static inline __m512 exp2_u8(__m512 t) {
    const __m512 big = _mm512_set1_ps(12582912.0f);
    __m512 n;
    t = _mm512_max_ps(_mm512_set1_ps(-30.0f), t);
    n = _mm512_sub_ps(_mm512_add_ps(t, big), big);
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(exp2_poly(_mm512_sub_ps(t, n), 255.0f)),
                                                _mm512_slli_epi32(_mm512_cvtps_epi32(n), 23)));
}

void rt_opt_exp_rows_s8(int32_t n, int32_t d, float beta, const float *sub, const float *x, int64_t ldx, int8_t *y,
                        int64_t ldy, int32_t *sum) {
    const __m512 vb = _mm512_set1_ps(beta * 1.44269504088896341f);
    const __m512i flip = _mm512_set1_epi32(128), top = _mm512_set1_epi32(255);
    const int32_t d4 = RT_OPT_K4(d);
    int32_t r, c;
    for (r = 0; r < n; r++) {
        const float *xr = x + r * ldx;
        int8_t *yr = y + r * ldy;
        const __m512 vs = _mm512_set1_ps(sub[r]);
        __m512i acc = _mm512_setzero_si512();
        for (c = 0; c < d4; c += 16) { /* c < d here: d4 <= d + 3 and c is a multiple of 16 */
            const __mmask16 k = (__mmask16)(d - c >= 16 ? 0xFFFF : (1u << (d - c)) - 1u);
            const __mmask16 kst = (__mmask16)(d4 - c >= 16 ? 0xFFFF : (1u << (d4 - c)) - 1u);
            const __m512 e = exp2_u8(_mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + c), vs), vb));
            /* lanes past d held to 0 (a NaN: the conversion's 0x80000000, then 255 by the unsigned min) */
            const __m512i q = _mm512_maskz_mov_epi32(k, _mm512_min_epu32(_mm512_cvtps_epi32(e), top));
            acc = _mm512_add_epi32(acc, q);
            _mm_mask_storeu_epi8(yr + c, kst, _mm512_cvtepi32_epi8(_mm512_xor_si512(q, flip)));
        }
        sum[r] = _mm512_reduce_add_epi32(acc);
    }
}
#endif

/* One row: y = exp(beta (x - max)) / sum; y may alias x. */
static void softmax_row(int32_t d, float beta, const float *x, float *y) {
    float inv;
    int32_t c;
    inv = 1.0f / rt_opt_exp_row_f32(d, beta, rt_opt_max_f32(d, x), x, y);
    for (c = 0; c < d; c++) y[c] *= inv;
}

void rt_opt_softmax_f32(const rt_softmax_params *p, const float *in, float *out) {
    int32_t i;
    for (i = 0; i < p->outer; i++)
        softmax_row(p->depth, p->beta, in + (int64_t)i * p->depth, out + (int64_t)i * p->depth);
}

/* In place (y == x) is fine: a row is read fully before it is written. */
#if !defined(RT_OPT_AVX512)
/* sum (x - m)^2 (sq) or sum (x - m) over a row. */
static float row_sum(int32_t d, const float *x, float m, int sq) {
    float s[ROW_LANES];
    int32_t c = 0, l;
#if defined(RT_OPT_AVX2)
    { /* the same lanes in four vectors, totalled in registers where there is no tail (GCC kept the 32 sums on
       * the stack: 7 % of ViT's time in its LayerNorms) */
        const __m256 vm = _mm256_set1_ps(m);
        __m256 q0 = _mm256_setzero_ps(), q1 = q0, q2 = q0, q3 = q0;
        for (; c + ROW_LANES <= d; c += ROW_LANES) {
            const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + c), vm);
            const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + c + 8), vm);
            const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(x + c + 16), vm);
            const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(x + c + 24), vm);
            q0 = _mm256_add_ps(q0, sq ? _mm256_mul_ps(d0, d0) : d0);
            q1 = _mm256_add_ps(q1, sq ? _mm256_mul_ps(d1, d1) : d1);
            q2 = _mm256_add_ps(q2, sq ? _mm256_mul_ps(d2, d2) : d2);
            q3 = _mm256_add_ps(q3, sq ? _mm256_mul_ps(d3, d3) : d3);
        }
        if (c == d) return lanes_total8(q0, q1, q2, q3);
        _mm256_storeu_ps(s, q0), _mm256_storeu_ps(s + 8, q1);
        _mm256_storeu_ps(s + 16, q2), _mm256_storeu_ps(s + 24, q3);
    }
#else
    for (l = 0; l < ROW_LANES; l++) s[l] = 0.0f;
#endif
#if defined(RT_A64)
    c = rt_a64_row_sum(d, x, m, sq, s);
#endif
    for (; c + ROW_LANES <= d; c += ROW_LANES)
        for (l = 0; l < ROW_LANES; l++) s[l] += sq ? (x[c + l] - m) * (x[c + l] - m) : x[c + l] - m;
    for (; c < d; c++) s[0] += sq ? (x[c] - m) * (x[c] - m) : x[c] - m;
    return lanes_total(s);
}
#endif

#if defined(RT_OPT_AVX512)
/* a + b, or (mx) their max, as rt_opt_max_f32 takes it (a NaN passed over where b is a number). */
static inline __m512 fold16(__m512 a, __m512 b, int mx) { return mx ? _mm512_max_ps(a, b) : _mm512_add_ps(a, b); }

/* Lane r of the result: v[r]'s 16 lanes summed (mx: their max), for 16 vectors at once (a transpose-and-
 * fold tree: pairs of lanes, then of quads, then of 128-bit blocks; every row's lanes in one fixed order). */
static inline __m512 tree16(const __m512 *v, int mx) {
    __m512 u[8], w[4], z[2];
    int32_t j;
    for (j = 0; j < 8; j++)
        u[j] = fold16(_mm512_unpacklo_ps(v[2 * j], v[2 * j + 1]), _mm512_unpackhi_ps(v[2 * j], v[2 * j + 1]), mx);
    for (j = 0; j < 4; j++)
        w[j] = fold16(_mm512_shuffle_ps(u[2 * j], u[2 * j + 1], 0x44), _mm512_shuffle_ps(u[2 * j], u[2 * j + 1], 0xEE), mx);
    for (j = 0; j < 2; j++)
        z[j] = fold16(_mm512_shuffle_f32x4(w[2 * j], w[2 * j + 1], 0x88),
                      _mm512_shuffle_f32x4(w[2 * j], w[2 * j + 1], 0xDD), mx);
    return fold16(_mm512_shuffle_f32x4(z[0], z[1], 0x88), _mm512_shuffle_f32x4(z[0], z[1], 0xDD), mx);
}
static inline __m512 sums16(const __m512 *v) { return tree16(v, 0); }

/* tree16's sum for one vector alone (its lane 0): the same additions in the same order (within each 128-bit
 * block lanes 0 + 2 and 1 + 3, then those two, then blocks 0 + 1 and 2 + 3, then those two), 4 shuffles where
 * tree16 with 15 zero rows costs 45. */
static inline float sum1(__m512 v) {
    v = _mm512_add_ps(v, _mm512_permute_ps(v, 0x4E));
    v = _mm512_add_ps(v, _mm512_permute_ps(v, 0xB1));
    v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0xB1));
    return _mm_cvtss_f32(_mm512_castps512_ps128(_mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4E))));
}

/* One row's sum of (x - m) (sq: of its squares) as 16 partial lanes (32-lane chunks in two accumulators,
 * then 16- and tail chunks), for sums16. */
static inline __m512 row_part16(int32_t d, const float *x, __m512 vm, int sq) {
    __m512 lo = _mm512_setzero_ps(), hi = lo, a;
    int32_t c;
    for (c = 0; c + 2 * NR_LN <= d; c += 2 * NR_LN) {
        const __m512 b = _mm512_sub_ps(_mm512_loadu_ps(x + c + NR_LN), vm);
        a = _mm512_sub_ps(_mm512_loadu_ps(x + c), vm);
        lo = sq ? _mm512_fmadd_ps(a, a, lo) : _mm512_add_ps(lo, a);
        hi = sq ? _mm512_fmadd_ps(b, b, hi) : _mm512_add_ps(hi, b);
    }
    if (c + NR_LN <= d) {
        a = _mm512_sub_ps(_mm512_loadu_ps(x + c), vm);
        lo = sq ? _mm512_fmadd_ps(a, a, lo) : _mm512_add_ps(lo, a);
        c += NR_LN;
    }
    if (c < d) {
        const __mmask16 k = (__mmask16)((1u << (d - c)) - 1u);
        a = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + c), vm);
        hi = sq ? _mm512_fmadd_ps(a, a, hi) : _mm512_add_ps(hi, a);
    }
    return _mm512_add_ps(lo, hi);
}
#endif

/* n rows of d values (ldx apart) scaled in place by `scale` (1: left as they are), their maxima into mx
 * (as rt_opt_max_f32 takes them). With AVX-512 16 rows at a time, their maxima by one transpose-and-max
 * tree: an attention row of 17 keys spent more time in its own reduction than in its two vectors. */
void rt_opt_scale_max_rows(int32_t n, int32_t d, float scale, float *x, int64_t ldx, float *mx) {
    int32_t r = 0;
#if defined(RT_OPT_AVX512)
    const __m512 vs = _mm512_set1_ps(scale), lowest = _mm512_set1_ps(-3.40282347e+38f);
    for (; r < n && d > 0; r += 16) {
        const int32_t nr = n - r < 16 ? n - r : 16;
        __m512 v[16];
        int32_t i, c;
        for (i = 0; i < 16; i++) {
            float *row = x + (int64_t)(r + i) * ldx;
            v[i] = lowest;
            for (c = 0; i < nr && c < d; c += 16) {
                const __mmask16 k = (__mmask16)(d - c >= 16 ? 0xFFFF : (1u << (d - c)) - 1u);
                __m512 y = rt_load16(k, row + c);
                if (scale != 1.0f) {
                    y = _mm512_mul_ps(y, vs);
                    rt_store16(row + c, k, y);
                }
                v[i] = _mm512_mask_max_ps(v[i], k, y, v[i]);
            }
        }
        _mm512_mask_storeu_ps(mx + r, (__mmask16)(nr >= 16 ? 0xFFFF : (1u << nr) - 1u), tree16(v, 1));
    }
#endif
    for (; r < n; r++) {
        float *row = x + (int64_t)r * ldx;
        int32_t c;
        for (c = 0; c < d && scale != 1.0f; c++) row[c] *= scale;
        mx[r] = rt_opt_max_f32(d, row);
    }
}

void rt_opt_layer_norm_f32(const rt_opt_ln_params *p, const float *x, const float *gamma, const float *beta, float *y) {
    const int32_t n = p->cols;
    int32_t i, c;
#if defined(RT_OPT_AVX512)
    /* 16 rows at a time: their means, then their variances, summed together by sums16 (a row at a time,
     * each row's sums ended in a chain of dependent scalar adds, then a square root and a division: ViT's
     * 17 x 64 LayerNorm ran ~60 cycles a row) */
    for (i = 0; i < p->rows; i += NR_LN) {
        const int32_t nr = p->rows - i < NR_LN ? p->rows - i : NR_LN;
        const __m512 vn = _mm512_set1_ps((float)n);
        float mean[NR_LN], rstd[NR_LN];
        __m512 v[NR_LN];
        int32_t r;
        if (nr < 4) { /* a few rows left (ViT's 17th): each alone, the same sums as the group's */
            for (r = 0; r < nr; r++) {
                const float *xr = x + (int64_t)(i + r) * n;
                mean[r] = sum1(row_part16(n, xr, _mm512_setzero_ps(), 0)) / (float)n;
                rstd[r] = 1.0f / sqrtf(sum1(row_part16(n, xr, _mm512_set1_ps(mean[r]), 1)) / (float)n + p->eps);
            }
            goto normalize;
        }
        for (r = 0; r < NR_LN; r++)
            v[r] = r < nr ? row_part16(n, x + (int64_t)(i + r) * n, _mm512_setzero_ps(), 0) : _mm512_setzero_ps();
        _mm512_storeu_ps(mean, _mm512_div_ps(sums16(v), vn));
        for (r = 0; r < NR_LN; r++)
            v[r] = r < nr ? row_part16(n, x + (int64_t)(i + r) * n, _mm512_set1_ps(mean[r]), 1) : _mm512_setzero_ps();
        _mm512_storeu_ps(rstd, _mm512_div_ps(_mm512_set1_ps(1.0f),
                                             _mm512_sqrt_ps(_mm512_add_ps(_mm512_div_ps(sums16(v), vn),
                                                                          _mm512_set1_ps(p->eps)))));
    normalize:
        for (r = 0; r < nr; r++) {
            const float *xr = x + (int64_t)(i + r) * n, m = mean[r], rs = rstd[r];
            float *yr = y + (int64_t)(i + r) * n;
            for (c = 0; c < n; c++) {
                float inv = gamma ? rs * gamma[c] : rs, b = beta ? beta[c] : 0.0f;
                yr[c] = RT_FMAF(xr[c], inv, RT_FMAF(-m, inv, b));
            }
        }
    }
#else
    for (i = 0; i < p->rows; i++) {
        const float *xr = x + (int64_t)i * n;
        float *yr = y + (int64_t)i * n, mean, var, r;
        mean = row_sum(n, xr, 0.0f, 0) / (float)n;
        var = row_sum(n, xr, mean, 1) / (float)n;
        r = 1.0f / sqrtf(var + p->eps);
        c = 0;
#if defined(RT_A64)
        c = rt_a64_ln_row(n, xr, gamma, beta, mean, r, yr);
#endif
        for (; c < n; c++) {
            float inv = gamma ? r * gamma[c] : r, b = beta ? beta[c] : 0.0f;
            yr[c] = RT_FMAF(xr[c], inv, RT_FMAF(-mean, inv, b));
        }
    }
#endif
}

int64_t rt_opt_gelu_f32_bf16(const rt_act_params *p, const float *in, uint16_t *out) {
#if defined(RT_OPT_AVX512) && defined(__FMA__) && defined(__AVX512VL__)
    if (!p->approximate) return gelu_erf16_bf16(p->n, in, out);
#endif
    (void)p, (void)in, (void)out;
    return 0;
}

void rt_opt_gelu_f32(const rt_act_params *p, const float *in, float *out) {
    const float k_sqrt_2_over_pi = 0.797884560802865355879892f, k_sqrt1_2 = 0.707106781186547524400844f;
    int64_t i = 0;
#if defined(RT_OPT_AVX512) && defined(__FMA__) && defined(__AVX512VL__)
    if (!p->approximate) i = gelu_erf16(p->n, in, out);
#elif defined(RT_OPT_EXP8)
    if (!p->approximate) i = gelu_erf8(p->n, in, out);
#elif defined(RT_A64)
    if (!p->approximate) i = rt_a64_gelu_erf(p->n, in, out, gelu_p5, gelu_q5);
#endif
    if (p->approximate) {
        /* 0.5 x (1 + tanh(y)) = x - x / (exp(2y) + 1) */
        for (; i < p->n; i++) {
            float x = in[i], y = k_sqrt_2_over_pi * (x + 0.044715f * x * x * x);
            out[i] = x - x / (rt_opt_expf(2.0f * y) + 1.0f);
        }
    } else {
        for (; i < p->n; i++) {
            float x = in[i];
            out[i] = 0.5f * x * rt_opt_erfcf(x * -k_sqrt1_2);
        }
    }
}
