/* rt_opt_fc_hybrid.c - hybrid FULLY_CONNECTED (float in and out, int8 weights; TFLite's
 * EvalHybridDense, litert-torch's dynamic_int8 decoders), bit-identical to the reference
 * rt_fully_connected_hybrid: each input row is quantized by the same rt_hybrid_quantize_row, the
 * int32 dot products are exact (any summation order gives the same sum modulo 2^32, as the
 * reference's wrapping adds do), and the float steps are the reference's.
 *
 * A decode step is a GEMV (one input row) over weights used once: the kernel streams the weight
 * rows in their stored [out][in] order, four at a time, each 16 bytes widened to 16 bits and
 * multiplied with the row's widened input (AVX2 vpmaddwd), so the weights are read once per call
 * whatever the number of input rows (four weight rows stay in L1 while every input row passes). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define KPAD(k) (((int64_t)(k) + 15) / 16 * 16)

size_t rt_opt_fc_hybrid_scratch(int32_t batches, int32_t in_depth) {
    return (size_t)(batches * KPAD(in_depth) * 2 + KPAD(in_depth) + (int64_t)batches * 8 + 64);
}

/* dots[r] = sum_k w[r * k_stride + k] * x[k], r < nr, over k < kn (multiple of 16) and the scalar rest < k_all. */
static inline void dot_rows(const int8_t *w, int64_t k_stride, int nr, int32_t kn, int32_t k_all, const int16_t *x,
                            int32_t *dots) {
    int r;
    int32_t k = 0;
#if RT_OPT_AVX2
    __m256i acc[4];
    for (r = 0; r < 4; r++) acc[r] = _mm256_setzero_si256();
    for (; k < kn; k += 16) {
        const __m256i xv = _mm256_loadu_si256((const __m256i *)(x + k));
        for (r = 0; r < nr; r++) {
            const __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + r * k_stride + k)));
            acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(wv, xv));
        }
    }
    for (r = 0; r < nr; r++) {
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc[r]), _mm256_extracti128_si256(acc[r], 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
        dots[r] = _mm_cvtsi128_si32(s);
    }
#else
    (void)kn;
    for (r = 0; r < nr; r++) dots[r] = 0;
#endif
    for (r = 0; r < nr; r++) {
        uint32_t s = (uint32_t)dots[r];
        int32_t j;
        for (j = k; j < k_all; j++) s += (uint32_t)(w[r * k_stride + j] * x[j]);
        dots[r] = (int32_t)s;
    }
}

void rt_opt_fc_hybrid(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias, float *out,
                      void *scratch) {
    const int32_t K = p->in_depth, N = p->out_depth, B = p->batches;
    const int64_t kp = KPAD(K);
    unsigned char *s = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    int16_t *xw = (int16_t *)s;
    int8_t *q = (int8_t *)(s + (size_t)(B * kp * 2));
    float *row_scale = (float *)(q + kp);
    int32_t *zp = (int32_t *)(row_scale + B);
    int32_t b, n, k, kn, asym = 0;
#if RT_OPT_AVX2
    kn = K / 16 * 16;
#else
    kn = 0;
#endif
    for (b = 0; b < B; b++) {
        rt_hybrid_quantize_row(in + (int64_t)b * K, K, p->asymmetric, q, &row_scale[b], &zp[b]);
        for (k = 0; k < K; k++) xw[b * kp + k] = q[k];
        asym |= zp[b] != 0;
    }
    for (n = 0; n < N; n += 4) {
        const int nr = N - n < 4 ? N - n : 4;
        const int8_t *wn = w + (int64_t)n * K;
        int32_t row_sum[4] = {0, 0, 0, 0};
        int r;
        for (r = 0; r < nr && asym; r++)
            for (k = 0; k < K; k++) row_sum[r] += wn[(int64_t)r * K + k];
        for (b = 0; b < B; b++) {
            int32_t dots[4];
            dot_rows(wn, K, nr, kn, K, xw + b * kp, dots);
            for (r = 0; r < nr; r++) {
                const float scale = row_scale[b] * (p->w_scales ? p->w_scales[n + r] : p->w_scale);
                const int32_t dot = (int32_t)((uint32_t)dots[r] + (uint32_t)row_sum[r] * (uint32_t)-zp[b]);
                /* Rounded to float before the bias is added, as the reference (no fused multiply-add). */
                volatile float prod = (float)dot * scale;
                out[(int64_t)b * N + n + r] = rt_clamp_f32((bias ? bias[n + r] : 0.0f) + prod, p->act_min, p->act_max);
            }
        }
    }
}
