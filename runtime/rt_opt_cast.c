/* rt_opt_cast.c - per-tensor float <-> int8 conversions without libm calls
 * or branches (AVX-512/AVX2 written out for quantize). Bit-identical to the reference: roundf is the int32
 * truncation plus one step away from zero when the (exactly computed)
 * fraction is at least one half; a NaN lands on the low clamp as
 * the reference's INT32_MIN does; scale * (q - zp) in float equals the
 * reference's double product rounded to float (a 24-bit scale times a
 * 9-bit integer is exact in double, so both round the same exact value). */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

/* One value, as the vector paths compute it: beyond +-1e7 every result saturates, so the clamp keeps
 * the int32 conversion defined and sends a NaN to the low end; below 2^24 the fraction v - k is exact. */
static int8_t quantize_one(float x, float scale, int32_t zp) {
    float v = x / scale;
    v = v >= -1.0e7f ? v : -1.0e7f;
    v = v <= 1.0e7f ? v : 1.0e7f;
    int32_t k = (int32_t)v;
    float f = v - (float)k;
    int32_t q = k + (f >= 0.5f) - (f <= -0.5f) + zp;
    q = q < -128 ? -128 : q;
    return (int8_t)(q > 127 ? 127 : q);
}

void rt_opt_quantize_f32_s8(const rt_quant_params *p, const float *in, int8_t *out) {
    const float scale = p->scale;
    const int32_t zp = p->zero_point;
    const int64_t n = p->n;
    int64_t i = 0;
    if (p->inv_scale != 0.0f) { /* mpcc's float quantization: no division */
        const float inv = p->inv_scale;
#if defined(RT_OPT_AVX512)
        const __m512 vi = _mm512_set1_ps(inv), vz = _mm512_set1_ps((float)zp);
        const __m512 lo = _mm512_set1_ps(-128.0f), hi = _mm512_set1_ps(127.0f);
        for (; i + 16 <= n; i += 16) { /* max_ps gives its second operand (-128) for a NaN */
            const __m512 y = _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(_mm512_loadu_ps(in + i), vi, vz), lo), hi);
            _mm_storeu_si128((__m128i *)(void *)(out + i), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(y)));
        }
#elif defined(RT_OPT_AVX2) && defined(__FMA__)
        const __m256 vi = _mm256_set1_ps(inv), vz = _mm256_set1_ps((float)zp);
        const __m256 lo = _mm256_set1_ps(-128.0f), hi = _mm256_set1_ps(127.0f);
        for (; i + 8 <= n; i += 8) {
            const __m256 y = _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(_mm256_loadu_ps(in + i), vi, vz), lo), hi);
            _mm_storel_epi64((__m128i *)(void *)(out + i), pack8(_mm256_cvtps_epi32(y)));
        }
#endif
        for (; i < n; i++) out[i] = (int8_t)rt_quantize_float(in[i], inv, zp);
        return;
    }
    /* gcc does not if-convert the float compares under its default -ftrapping-math, so the vector
     * paths are written out (max/min_ps return their second operand for a NaN, as the clamp above). */
#if defined(RT_OPT_AVX512)
    /* Half away from zero as the truncation of v + copysign(0.5 - 2^-25, v): in round-to-nearest the sum
     * reaches the next integer exactly when |v|'s fraction is at least one half (a fraction of 1/2 - ulp
     * stays below it, 1/2 meets the tie at 1 - 2^-25 and goes to the even side, the integer), and from
     * 2^23 on v is an integer that the sum rounds back to; the narrowing saturates (vpmovsdb), which is
     * the clamp to [-128, 127]. 8 vector operations per 16 values where the fraction test took 14. */
    const __m512 vs = _mm512_set1_ps(scale), lo = _mm512_set1_ps(-1.0e7f), hi = _mm512_set1_ps(1.0e7f);
    const __m512i c = _mm512_castps_si512(_mm512_set1_ps(0.49999997f)), sign = _mm512_set1_epi32((int32_t)0x80000000u);
    const __m512i vzp = _mm512_set1_epi32(zp);
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(_mm512_loadu_ps(in + i), vs), lo), hi);
        const __m512 h = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(v), sign, c, 0xEA));
        const __m512i k = _mm512_add_epi32(_mm512_cvttps_epi32(_mm512_add_ps(v, h)), vzp);
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm512_cvtsepi32_epi8(k));
    }
#elif defined(RT_OPT_AVX2)
    const __m256 vs = _mm256_set1_ps(scale), lo = _mm256_set1_ps(-1.0e7f), hi = _mm256_set1_ps(1.0e7f);
    const __m256 half = _mm256_set1_ps(0.5f), nhalf = _mm256_set1_ps(-0.5f);
    const __m256i vzp = _mm256_set1_epi32(zp), qlo = _mm256_set1_epi32(-128), qhi = _mm256_set1_epi32(127);
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(_mm256_loadu_ps(in + i), vs), lo), hi);
        __m256i k = _mm256_cvttps_epi32(v);
        __m256 f = _mm256_sub_ps(v, _mm256_cvtepi32_ps(k));
        /* the compare masks are -1 where true */
        k = _mm256_sub_epi32(k, _mm256_castps_si256(_mm256_cmp_ps(f, half, _CMP_GE_OQ)));
        k = _mm256_add_epi32(k, _mm256_castps_si256(_mm256_cmp_ps(f, nhalf, _CMP_LE_OQ)));
        k = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(k, vzp), qlo), qhi);
        __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
        _mm_storel_epi64((__m128i *)(void *)(out + i), _mm_packs_epi16(w, w));
    }
#endif
    for (; i < n; i++) out[i] = quantize_one(in[i], scale, zp);
}

void rt_opt_dequantize_s8_f32(const rt_quant_params *p, const int8_t *in, float *out) {
    const float scale = p->scale;
    const int32_t zp = p->zero_point;
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = scale * (float)((int32_t)in[i] - zp);
}

/* CAST complex64 -> float32: the real part of each (re, im) pair, as the reference's generic loop takes
 * it, in a loop the compiler vectorizes (BirdNET's spectrogram, 511 x 1025 values: 1.4 ms by element). */
void rt_opt_cast_c64_f32(const rt_quant_params *p, const float *in, float *out) {
    const int64_t n = p->n;
    int64_t i;
    for (i = 0; i < n; i++) out[i] = in[2 * i];
}
