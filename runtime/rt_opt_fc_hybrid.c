/* rt_opt_fc_hybrid.c - hybrid FULLY_CONNECTED (float in and out, int8 weights; TFLite's
 * EvalHybridDense, litert-torch's dynamic_int8 decoders), bit-identical to the reference
 * rt_fully_connected_hybrid: each input row is quantized by the same rt_hybrid_quantize_row, the
 * int32 dot products are exact (any summation order gives the same sum modulo 2^32, as the
 * reference's wrapping adds do), and the float steps are the reference's.
 *
 * A decode step is a GEMV (one input row) over weights used once: the kernel streams the weight
 * rows in their stored [out][in] order, four at a time, each 16 bytes widened to 16 bits and
 * multiplied with the row's widened input (AVX2 vpmaddwd), prefetching the next four rows one cache
 * line per step (four short interleaved streams train the hardware prefetcher late); the weights
 * are read once per call whatever the number of input rows (four weight rows stay in L1 while
 * every input row passes). With several input rows (prefill) a block of four weight rows with no
 * -128 takes 8-bit products instead (dot_rows_u8). On Zen 3 this beat a register tile of 16-bit
 * products reusing each widened weight vector for 4-6 input rows (4x2, 6x2, 3x3 tiles: 5-15% slower,
 * vpmaddwd-bound). The int32 dots are parked in the output (4 bytes each, memcpy) and turned into
 * floats a row at a time, eight lanes at once where the row's zero point is 0. AVX512-VNNI builds take
 * rt_opt_fc_hybrid_vnni.c's GEMM (several rows), GEMV (one row, K >= 128) and vector quantizer instead. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

/* Input rows padded to whole 64 bytes (the VNNI path's quads, rt_opt_fc_hybrid_vnni.c). */
#define KPAD(k) (((int64_t)(k) + 63) / 64 * 64)

/* The same on every build (the compiler sizes it): the rows (16 and 8 bits), one quantized row, the rows'
 * scales and zero points, the weight row sums, and the VNNI path's 32 packed weight rows and their bias. */
size_t rt_opt_fc_hybrid_scratch(int32_t batches, int32_t in_depth, int32_t out_depth) {
    return (size_t)(batches * KPAD(in_depth) * 3 + KPAD(in_depth) + (int64_t)batches * 8 + (int64_t)out_depth * 4 + 64 +
                    32 * KPAD(in_depth) + 128 + 64);
}

#if RT_OPT_AVX2
/* The sum of v's eight int32 lanes (wrapping, as every order of exact int32 adds). */
static inline int32_t sum_i32x8(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

/* Several input rows (prefill): dots[r] over k < kn32 (multiple of 32) with 8-bit products, vpmaddubsw
 * on |x| and w * sign(x): exact while no weight is -128 (the caller checks the block) since a pair
 * sums to at most 2 * 128 * 127 < 32768; then the scalar rest from the 16-bit row x16. */
static inline void dot_rows_u8(const int8_t *w, int64_t k_stride, int nr, int32_t kn32, int32_t k_all,
                               const int8_t *x8, const int16_t *x16, int32_t *dots) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[4];
    int r;
    int32_t k;
    for (r = 0; r < 4; r++) acc[r] = _mm256_setzero_si256();
    for (k = 0; k < kn32; k += 32) {
        const __m256i xv = _mm256_loadu_si256((const __m256i *)(x8 + k)), xa = _mm256_abs_epi8(xv);
        for (r = 0; r < nr; r++) {
            const __m256i ws = _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *)(w + r * k_stride + k)), xv);
            acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(_mm256_maddubs_epi16(xa, ws), ones));
        }
    }
    for (r = 0; r < nr; r++) {
        uint32_t t = (uint32_t)sum_i32x8(acc[r]);
        int32_t j;
        for (j = kn32; j < k_all; j++) t += (uint32_t)(w[r * k_stride + j] * x16[j]);
        dots[r] = (int32_t)t;
    }
}

/* Whether nr rows of k bytes hold no -128. */
static int no_min_weight(const int8_t *w, int64_t n) {
    int64_t i, c = 0;
    for (i = 0; i < n; i++) c += w[i] == -128; /* no early exit: the loop vectorizes */
    return c == 0;
}
#endif

/* dots[r] = sum_k w[r * k_stride + k] * x[k], r < nr, over k < kn (multiple of 16) and the scalar rest < k_all;
 * prefetches pf (the next rows) at one cache line per 16 k. */
static inline void dot_rows(const int8_t *w, int64_t k_stride, int nr, int32_t kn, int32_t k_all, const int16_t *x,
                            const int8_t *pf, int32_t *dots) {
    int r;
    int32_t k = 0;
#if RT_OPT_AVX2
    __m256i acc[4];
    for (r = 0; r < 4; r++) acc[r] = _mm256_setzero_si256();
    for (; k < kn; k += 16) {
        const __m256i xv = _mm256_loadu_si256((const __m256i *)(x + k));
        _mm_prefetch((const char *)(pf + 4 * k), _MM_HINT_T0);
        for (r = 0; r < nr; r++) {
            const __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + r * k_stride + k)));
            acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(wv, xv));
        }
    }
    for (r = 0; r < nr; r++) dots[r] = sum_i32x8(acc[r]);
#else
    (void)kn, (void)pf;
    for (r = 0; r < nr; r++) dots[r] = 0;
#endif
    for (r = 0; r < nr; r++) {
        uint32_t s = (uint32_t)dots[r];
        int32_t j;
        for (j = k; j < k_all; j++) s += (uint32_t)(w[r * k_stride + j] * x[j]);
        dots[r] = (int32_t)s;
    }
}

/* Row b's outputs from the int32 dots parked in o (as the reference: the dot corrected by the zero point,
 * times row_scale * w_scale rounded to float on its own, then the bias, then the clamp). */
static void finish_row(const rt_fc_params *p, float row_scale, int32_t zp, const int32_t *row_sum, const float *bias,
                       float *o) {
    const int32_t N = p->out_depth;
    int32_t n = 0;
#if RT_OPT_AVX2
    if (!zp) {
        const __m256 rs = _mm256_set1_ps(row_scale), lo = _mm256_set1_ps(p->act_min), hi = _mm256_set1_ps(p->act_max);
        for (; n + 8 <= N; n += 8) {
            const __m256 ws = p->w_scales ? _mm256_loadu_ps(p->w_scales + n) : _mm256_set1_ps(p->w_scale);
            const __m256 b = bias ? _mm256_loadu_ps(bias + n) : _mm256_setzero_ps();
            __m256 prod = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(o + n))),
                                        _mm256_mul_ps(rs, ws));
            __asm__("" : "+x"(prod)); /* rounded to float before the bias is added: no fused multiply-add */
            _mm256_storeu_ps(o + n, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(b, prod), lo), hi));
        }
    }
#endif
    for (; n < N; n++) {
        const float scale = row_scale * (p->w_scales ? p->w_scales[n] : p->w_scale);
        int32_t dot;
        memcpy(&dot, o + n, sizeof dot);
        dot = (int32_t)((uint32_t)dot + (uint32_t)(row_sum ? row_sum[n] : 0) * (uint32_t)-zp);
        {
            /* Rounded to float before the bias is added, as the reference (no fused multiply-add). */
            volatile float prod = (float)dot * scale;
            o[n] = rt_clamp_f32((bias ? bias[n] : 0.0f) + prod, p->act_min, p->act_max);
        }
    }
}

void rt_opt_fc_hybrid(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias, float *out,
                      void *scratch) {
    const int32_t K = p->in_depth, N = p->out_depth, B = p->batches;
    const int64_t kp = KPAD(K);
    unsigned char *s = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    int16_t *xw = (int16_t *)s;
    int8_t *x8 = (int8_t *)(s + (size_t)(B * kp * 2));
    int8_t *q = x8 + B * kp;
    float *row_scale = (float *)(q + kp);
    int32_t *zp = (int32_t *)(row_scale + B), *row_sum = NULL;
    int32_t b, n = 0, k, kn;
#if RT_OPT_AVX2
    kn = K / 16 * 16;
#else
    kn = 0;
#endif
    /* The int32 dots, parked in the output rows: on AVX512-VNNI several rows as a GEMM over whole blocks of 32
     * weight rows, one row (decode) 64 products per vpdpbusd (~10% faster from DRAM; shorter rows: slower), the
     * rows quantized 16 values a step; the rest as below. */
#if defined(RT_OPT_S8_VNNI)
    if (B >= RT_OPT_FC_HYBRID_VNNI_ROWS || K >= 128) {
        for (b = 0; b < B; b++)
            rt_opt_hybrid_quantize_row_vnni(in + (int64_t)b * K, K, p->asymmetric, x8 + b * kp, kp, &row_scale[b], &zp[b]);
        if (B >= RT_OPT_FC_HYBRID_VNNI_ROWS) {
            n = rt_opt_fc_hybrid_vnni(B, K, N, x8, kp, w, (int32_t *)(void *)out, (void *)(zp + B + N));
        } else {
            rt_opt_flip_s8((uint8_t *)q, x8, (int32_t)kp);
            rt_opt_fc_hybrid_vnni_gemv(K, N, (const uint8_t *)q, w, (int32_t *)(void *)out);
            n = N;
        }
        for (b = 0; n < N && b < B; b++) /* the 16-bit rows of the rest */
            for (k = 0; k < kp; k++) xw[b * kp + k] = x8[b * kp + k];
    } else
#endif
        for (b = 0; b < B; b++) {
            rt_hybrid_quantize_row(in + (int64_t)b * K, K, p->asymmetric, q, &row_scale[b], &zp[b]);
            for (k = 0; k < K; k++) xw[b * kp + k] = x8[b * kp + k] = q[k];
            for (; k < kp; k++) xw[b * kp + k] = x8[b * kp + k] = 0;
        }
    for (; n < N; n += 4) {
        const int nr = N - n < 4 ? N - n : 4;
        const int8_t *wn = w + (int64_t)n * K;
        /* The next block's rows (this block's own in the last one: no read past the weights). */
        const int8_t *pf = N - n - nr >= 4 ? wn + (int64_t)nr * K : wn;
#if RT_OPT_AVX2
        const int u8 = B >= 2 && K >= 32 && no_min_weight(wn, (int64_t)nr * K);
#endif
        for (b = 0; b < B; b++) {
            int32_t dots[4];
            int r;
#if RT_OPT_AVX2
            if (u8)
                dot_rows_u8(wn, K, nr, K / 32 * 32, K, x8 + b * kp, xw + b * kp, dots);
            else
#endif
                dot_rows(wn, K, nr, kn, K, xw + b * kp, pf, dots);
            for (r = 0; r < nr; r++) memcpy(out + (int64_t)b * N + n + r, &dots[r], sizeof dots[r]);
        }
    }
    for (b = 0; b < B; b++) {
        if (zp[b] && !row_sum) { /* asymmetric rows: sum_k w * (q - zp) = dot - zp * sum_k w, the sums once */
            row_sum = zp + B;
            for (n = 0; n < N; n++) {
                uint32_t t = 0;
                for (k = 0; k < K; k++) t += (uint32_t)w[(int64_t)n * K + k];
                row_sum[n] = (int32_t)t;
            }
        }
        finish_row(p, row_scale[b], zp[b], row_sum, bias, out + (int64_t)b * N);
    }
}

/* ---- 4-bit weights (TFLite INT4: AI Edge Quantizer's dynamic_wi4) ----------------------------------
 * The weights stay packed (rt_opt.h: w + 8 in a nibble, each row in 64-value blocks of 32 bytes, byte j
 * holding values j and 32 + j of its block), so a decode step streams half the bytes of int8 weights.
 * With u = w + 8 in [0, 15], sum_k w * q = sum_k u * q - 8 * sum_k q: unsigned 4-bit times signed 8-bit
 * is what vpmaddubsw multiplies, and a pair of its products sums to at most 2 * 15 * 128 < 32768, two
 * pairs to 7680: exact, like the int8 kernel's sums. The padding of a row holds u = 8 (w = 0) and meets
 * zero inputs. Several input rows (prefill): each block of four weight rows is unpacked once into scratch
 * (u bytes in k order) and every input row runs over it. */

#define KPAD64(k) (((int64_t)(k) + 63) / 64 * 64)

size_t rt_opt_fc_hybrid_w4_scratch(int32_t batches, int32_t in_depth, int32_t out_depth) {
    return (size_t)(((int64_t)batches + 5) * KPAD64(in_depth) + (int64_t)batches * 16 + (int64_t)out_depth * 4 + 64);
}

#if RT_OPT_AVX2
/* dots[r] = sum_k u[r][k] * x[k] over kp values (multiple of 64); packed: u as rt_opt.h's nibble blocks
 * (row stride kp / 2 bytes), prefetching the four rows at pf (two cache lines a 64-value step); else one u
 * byte a value (row stride kp). */
static inline void dot_rows_w4(const uint8_t *u, int packed, int nr, int64_t kp, const int8_t *x, const uint8_t *pf,
                               int32_t *dots) {
    const __m256i ones = _mm256_set1_epi16(1), m4 = _mm256_set1_epi8(15);
    const int64_t stride = packed ? kp / 2 : kp;
    __m256i acc[4];
    int64_t k;
    int r;
    for (r = 0; r < 4; r++) acc[r] = _mm256_setzero_si256();
    for (k = 0; k < kp; k += 64) {
        const __m256i x0 = _mm256_loadu_si256((const __m256i *)(x + k)), x1 = _mm256_loadu_si256((const __m256i *)(x + k + 32));
        if (packed) {
            _mm_prefetch((const char *)(pf + 2 * k), _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + 2 * k + 64), _MM_HINT_T0);
        }
        for (r = 0; r < nr; r++) {
            __m256i lo, hi;
            if (packed) {
                const __m256i b = _mm256_loadu_si256((const __m256i *)(u + r * stride + k / 2));
                lo = _mm256_and_si256(b, m4);
                hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), m4);
            } else {
                lo = _mm256_loadu_si256((const __m256i *)(u + r * stride + k));
                hi = _mm256_loadu_si256((const __m256i *)(u + r * stride + k + 32));
            }
            acc[r] = _mm256_add_epi32(
                acc[r], _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(lo, x0), _mm256_maddubs_epi16(hi, x1)), ones));
        }
    }
    for (r = 0; r < nr; r++) dots[r] = sum_i32x8(acc[r]);
}
#endif

/* Value k of packed row `row` (rt_opt.h's layout), as u = w + 8. */
static inline int32_t w4_at(const uint8_t *row, int64_t k) {
    return (row[k / 64 * 32 + k % 32] >> (k % 64 / 32 * 4)) & 15;
}

void rt_opt_fc_hybrid_w4(const rt_fc_params *p, const float *in, const uint8_t *w, const float *bias, float *out,
                         void *scratch) {
    const int32_t K = p->in_depth, N = p->out_depth, B = p->batches;
    const int64_t kp = KPAD64(K), rb = kp / 2;
    unsigned char *s = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    int8_t *x8 = (int8_t *)s;              /* B rows of kp, zero-padded */
    uint8_t *ub = (uint8_t *)(x8 + B * kp); /* four unpacked weight rows (prefill) */
    float *row_scale = (float *)(ub + 4 * kp);
    int32_t *zp = (int32_t *)(row_scale + B), *xsum = zp + B, *row_sum = NULL;
    int32_t b, n;
    int64_t k;
    if (p->block) {
        rt_opt_fc_hybrid_w4_blockwise(p, in, w, bias, out, scratch);
        return;
    }
    for (b = 0; b < B; b++) {
        uint32_t t = 0;
        rt_hybrid_quantize_row(in + (int64_t)b * K, K, p->asymmetric, x8 + b * kp, &row_scale[b], &zp[b]);
        for (k = K; k < kp; k++) x8[b * kp + k] = 0;
        for (k = 0; k < K; k++) t += (uint32_t)x8[b * kp + k];
        xsum[b] = (int32_t)t;
    }
    /* The int32 dots, parked in the output rows. */
    for (n = 0; n < N; n += 4) {
        const int nr = N - n < 4 ? N - n : 4;
        const uint8_t *wn = w + (int64_t)n * rb;
        /* Decode prefetches the block after next (every cache line of it; one block ahead was 1-3% slower),
         * in the last two blocks this block's own (a last block under four rows: prefetch hints past the
         * weights, which never fault). */
        const uint8_t *pf = N - n - nr >= 8 ? wn + (int64_t)2 * nr * rb : wn;
        int r;
#if RT_OPT_AVX2
        const int unpack = B >= 2;
        if (unpack)
            for (r = 0; r < nr; r++)
                for (k = 0; k < kp; k += 64) {
                    const __m256i b = _mm256_loadu_si256((const __m256i *)(wn + r * rb + k / 2)), m4 = _mm256_set1_epi8(15);
                    _mm256_storeu_si256((__m256i *)(ub + r * kp + k), _mm256_and_si256(b, m4));
                    _mm256_storeu_si256((__m256i *)(ub + r * kp + k + 32), _mm256_and_si256(_mm256_srli_epi16(b, 4), m4));
                }
#endif
        for (b = 0; b < B; b++) {
            int32_t dots[4];
#if RT_OPT_AVX2
            dot_rows_w4(unpack ? ub : wn, !unpack, nr, kp, x8 + b * kp, pf, dots);
#else
            (void)pf;
            for (r = 0; r < nr; r++) {
                uint32_t t = 0;
                for (k = 0; k < K; k++) t += (uint32_t)(w4_at(wn + r * rb, k) * x8[b * kp + k]);
                dots[r] = (int32_t)t;
            }
#endif
            for (r = 0; r < nr; r++) {
                const int32_t dot = (int32_t)((uint32_t)dots[r] - 8u * (uint32_t)xsum[b]);
                memcpy(out + (int64_t)b * N + n + r, &dot, sizeof dot);
            }
        }
    }
    for (b = 0; b < B; b++) {
        if (zp[b] && !row_sum) { /* asymmetric rows: the weight row sums, once (the padding's w is 0) */
            row_sum = xsum + B;
            for (n = 0; n < N; n++) {
                int32_t t = 0;
                for (k = 0; k < K; k++) t += w4_at(w + (int64_t)n * rb, k) - 8;
                row_sum[n] = t;
            }
        }
        finish_row(p, row_scale[b], zp[b], row_sum, bias, out + (int64_t)b * N);
    }
}
