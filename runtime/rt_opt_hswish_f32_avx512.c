/* rt_opt_hswish_f32_avx512.c - the f32 HARD_SWISH epilogue (x * clamp(x + 3, 0, 6) / 6, the reference's
 * expression, rt_hard_swish.c) on AVX-512, 16 lanes at a time, with the same bits as the reference.
 *
 * The division was the cost: VDIVPS on a zmm issues once per ~10 cycles on Ice Lake, three times the rest
 * of the expression (MediaPipe pose's fused expansion + depthwise blocks spent a tenth of their time in
 * it). Here y / 6 is y * (1/6) corrected once by the exact remainder: q0 = y * (1/6), r = y - 6 * q0 (one
 * FMA, exact), q = q0 + r * (1/6) (one FMA). Checked against y / 6.0f for all 2^32 bit patterns of y:
 * equal whenever |y| >= 2^-120 (and for +-0, +-inf and NaN, where q0 itself is y / 6); a lane with
 * 0 < |y| < 2^-120 (a subnormal quotient, where q0's remainder is not exact) takes the division. */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX512)
#include <immintrin.h>

RT_OPT_INLINE __m512 hswish16(__m512 x) {
    const __m512 six = _mm512_set1_ps(6.0f), sixth = _mm512_set1_ps(1.0f / 6.0f);
    /* clamp: max/min operand order as the reference's comparisons (x + 3 NaN stays NaN) */
    const __m512 r = _mm512_min_ps(six, _mm512_max_ps(_mm512_setzero_ps(), _mm512_add_ps(x, _mm512_set1_ps(3.0f))));
    const __m512 y = _mm512_mul_ps(x, r), ay = _mm512_abs_ps(y);
    const __m512 q0 = _mm512_mul_ps(y, sixth);
    const __m512 q = _mm512_fmadd_ps(_mm512_fnmadd_ps(q0, six, y), sixth, q0);
    const __mmask16 ok = _mm512_cmp_ps_mask(ay, _mm512_set1_ps(0x1p-120f), _CMP_GE_OQ) &
                         _mm512_cmp_ps_mask(ay, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
    const __mmask16 tiny = _mm512_cmp_ps_mask(ay, _mm512_set1_ps(0x1p-120f), _CMP_LT_OQ) &
                           _mm512_cmp_ps_mask(ay, _mm512_setzero_ps(), _CMP_NEQ_OQ);
    __m512 o = _mm512_mask_blend_ps(ok, q0, q);
    if (tiny) o = _mm512_mask_div_ps(o, tiny, y, six);
    return o;
}

void rt_opt_hard_swish_rows_f32_512(float *o, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, hswish16(_mm512_loadu_ps(o + i)));
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        _mm512_mask_storeu_ps(o + i, m, hswish16(_mm512_maskz_loadu_ps(m, o + i)));
    }
}
#endif
