/* rt_opt_softmax_s8.c - int8 SOFTMAX with int8 output (scale 1/256, zero point -128: BERT's and ViT's int8
 * attention), bit for bit the reference rt_softmax_i8: the same fixed-point algorithm (TFLite's reference,
 * gemmlowp's exp and reciprocal), row by row, its per-element work vectorized with AVX-512:
 * - the row's max over 16 lanes;
 * - the sum of the rescaled exponentials exp(beta scale (x - max)) in Q12.19, one table look-up per element
 *   (the 256 possible differences' terms made once per call from the exponentials table; the reference adds
 *   the same terms with wrapping int32 additions, which any order gives alike);
 * - each output: the exponential (a gather from the table) times the row's reciprocal, rounded as the
 *   reference rounds it (SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT: rq16_apply's double
 *   rounding with multiplier = the reciprocal and shift = -exponent), plus -128, clamped. Differences below
 *   diff_min have a zero in the table, so they give -128 as in the reference.
 * A row whose exponent leaves 0..31 (the reference's float-table rows of 512 classes and more) runs the
 * reference row. Without AVX-512: the reference kernel. */
#include <stdint.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX512)
static void ref_row(const rt_softmax_params *p, const int8_t *x, int8_t *y) {
    rt_softmax_params q = *p;
    q.outer = 1;
    rt_softmax_i8(&q, x, y);
}
#endif

void rt_opt_softmax_i8(const rt_softmax_params *p, const int8_t *in, int8_t *out) {
#if defined(RT_OPT_AVX512)
    int32_t tab[256], acc[256], i, c;
    const int32_t d = p->depth;
    const int32_t *e0 = p->exp_q0;
    if (!e0) rt_softmax_exp_table_q0(p, tab), e0 = tab;
    for (c = 0; c < 256; c++) acc[c] = -c >= p->diff_min ? rt_fp_rescale(e0[c], 0, 12) : 0;
    for (i = 0; i < p->outer; i++) {
        const int8_t *x = in + (int64_t)i * d;
        int8_t *y = out + (int64_t)i * d;
        int32_t max = -128, scale, exponent;
        uint32_t sum = 0;
        int nbou;
        __m512i vmax = _mm512_set1_epi32(-128);
        for (c = 0; c + 16 <= d; c += 16)
            vmax = _mm512_max_epi32(vmax, _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + c))));
        max = _mm512_reduce_max_epi32(vmax);
        for (; c < d; c++) max = x[c] > max ? x[c] : max;
        for (c = 0; c < d; c++) sum += (uint32_t)acc[max - x[c]];
        scale = rt_fp_reciprocal((int32_t)sum, 12, &nbou);
        exponent = nbou + 31 - 8;
        if (exponent < 0 || exponent > 31 || scale == INT32_MIN) {
            ref_row(p, x, y);
            continue;
        }
        {
            const rq16 k = rq16_prepare(_mm512_set1_epi32(scale), _mm512_set1_epi32(-exponent));
            const __m512i vm = _mm512_set1_epi32(max), zp = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
            for (c = 0; c + 16 <= d; c += 16) {
                const __m512i v = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + c)));
                const __m512i e = _mm512_i32gather_epi32(_mm512_sub_epi32(vm, v), (const void *)e0, 4);
                const __m512i r = _mm512_max_epi32(_mm512_min_epi32(_mm512_add_epi32(rq16_apply(e, &k), zp), hi), zp);
                _mm_storeu_si128((__m128i *)(void *)(y + c), _mm512_cvtepi32_epi8(r));
            }
            for (; c < d; c++) {
                const int32_t v = rt_rounding_divide_by_pot(rt_fp_mul(scale, e0[max - x[c]]), exponent) - 128;
                y[c] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
            }
        }
    }
#else
    rt_softmax_i8(p, in, out);
#endif
}
