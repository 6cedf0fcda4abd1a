/* rt_opt_act_f32.c - LOGISTIC and TANH f32 without libm calls (rt_opt_expf_clamped), so that the compiler
 * vectorizes the loops; the references call expf/tanhf per element. Both results are computed and
 * blended bitwise (blend): a select whose arm does float arithmetic is not if-converted by GCC 12
 * under the default -ftrapping-math, and the loop would stay scalar.
 *
 * LOGISTIC: the reference's cut-offs (1 above 16.62, exp(x) below -9, else 1 / (1 + exp(-x))).
 * TANH: sign(x) (1 - e) / (1 + e) with e = exp(-2|x|) (|x| clamped at 10, where tanh is 1 in float),
 * and an odd polynomial below |x| = 1/8, where 1 - e cancels (truncation error under 1e-9 relative).
 * Both within a few ulp of the reference (the exponential: about 2 ulp), not bit-identical; NaN in,
 * NaN out. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

/* c ? a : b on the bits. */
static inline float blend(int c, float a, float b) {
    uint32_t ua, ub, m = 0u - (uint32_t)(c != 0), r;
    float f;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    r = (ua & m) | (ub & ~m);
    memcpy(&f, &r, sizeof f);
    return f;
}

void rt_opt_logistic_f32(const rt_act_params *p, const float *in, float *out) {
#if !defined(RT_OPT_AVX2)
    /* Without 8-lane vectors the loop below stays scalar (or 4 lanes wide) and its polynomial is slower than
     * libm's expf: half the reference's speed at plain -O2 on x86-64. There the reference is the fast path. */
    rt_logistic_f32(p, in, out);
#else
    const float cutoff_upper = 16.619047164916992188f, cutoff_lower = -9.0f;
    int64_t i;
    for (i = 0; i < p->n; i++) {
        const float v = in[i];
        const int low = v < cutoff_lower;
        const float e = rt_opt_expf_clamped(blend(low, v, -v));
        const float s = 1.0f / (1.0f + e);
        out[i] = blend(v != v, v, blend(v > cutoff_upper, 1.0f, blend(low, e, s)));
    }
#endif
}

void rt_opt_tanh_f32(const rt_act_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) {
        const float x = in[i], a = fabsf(x), x2 = x * x;
        const float e = rt_opt_expf_clamped(-2.0f * blend(a < 10.0f, a, 10.0f));
        const float t = (1.0f - e) / (1.0f + e);
        const float poly = RT_FMAF(RT_FMAF(RT_FMAF(-17.0f / 315.0f, x2, 2.0f / 15.0f), x2, -1.0f / 3.0f), x2, 1.0f) * x;
        out[i] = blend(a < 0.125f, poly, blend(x != x, x, blend(x < 0.0f, -t, t)));
    }
}
