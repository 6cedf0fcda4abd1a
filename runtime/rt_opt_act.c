/* rt_opt_act.c - f32 GELU and SOFTMAX with a vectorizable exp/erfc
 * (rt_opt_internal.h): the row loops have no libm calls, so the compiler
 * turns them into vector code. Results differ from the reference kernels
 * by a few ulp (exp) and 1.5e-7 absolute (erfc), not in summation order.
 * LayerNorm: see rt_opt.h. */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

void rt_opt_gelu_f32(const rt_act_params *p, const float *in, float *out) {
    const float k_sqrt_2_over_pi = 0.797884560802865355879892f, k_sqrt1_2 = 0.707106781186547524400844f;
    int64_t i;
    if (p->approximate) {
        /* 0.5 x (1 + tanh(y)) = x - x / (exp(2y) + 1) */
        for (i = 0; i < p->n; i++) {
            float x = in[i], y = k_sqrt_2_over_pi * (x + 0.044715f * x * x * x);
            out[i] = x - x / (rt_opt_expf(2.0f * y) + 1.0f);
        }
    } else {
        for (i = 0; i < p->n; i++) {
            float x = in[i];
            out[i] = 0.5f * x * rt_opt_erfcf(x * -k_sqrt1_2);
        }
    }
}

/* Max and sum of a row in 8 independent lanes, so the loops vectorize
 * without reassociation flags (the lanes are combined at the end). */
float rt_opt_max_f32(int32_t d, const float *x) {
    float m[8] = {-3.40282347e+38f, -3.40282347e+38f, -3.40282347e+38f, -3.40282347e+38f,
                  -3.40282347e+38f, -3.40282347e+38f, -3.40282347e+38f, -3.40282347e+38f};
    int32_t c, l;
    for (c = 0; c + 8 <= d; c += 8)
        for (l = 0; l < 8; l++) m[l] = x[c + l] > m[l] ? x[c + l] : m[l];
    for (; c < d; c++) m[0] = x[c] > m[0] ? x[c] : m[0];
    for (l = 1; l < 8; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}

float rt_opt_sum_f32(int32_t d, const float *x) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t c, l;
    for (c = 0; c + 8 <= d; c += 8)
        for (l = 0; l < 8; l++) s[l] += x[c + l];
    for (; c < d; c++) s[0] += x[c];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* y[c] = exp(beta (x[c] - sub)); y may alias x. */
void rt_opt_exp_row_f32(int32_t d, float beta, float sub, const float *x, float *y) {
    int32_t c;
    for (c = 0; c < d; c++) y[c] = rt_opt_expf((x[c] - sub) * beta);
}

/* One row: y = exp(beta (x - max)) / sum; y may alias x. */
static void softmax_row(int32_t d, float beta, const float *x, float *y) {
    float inv;
    int32_t c;
    rt_opt_exp_row_f32(d, beta, rt_opt_max_f32(d, x), x, y);
    inv = 1.0f / rt_opt_sum_f32(d, y);
    for (c = 0; c < d; c++) y[c] *= inv;
}

void rt_opt_softmax_f32(const rt_softmax_params *p, const float *in, float *out) {
    int32_t i;
    for (i = 0; i < p->outer; i++)
        softmax_row(p->depth, p->beta, in + (int64_t)i * p->depth, out + (int64_t)i * p->depth);
}

/* sum (x - m)^2 in 8 lanes */
static float sum_sq_diff(int32_t d, const float *x, float m) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t c, l;
    for (c = 0; c + 8 <= d; c += 8)
        for (l = 0; l < 8; l++) s[l] += (x[c + l] - m) * (x[c + l] - m);
    for (; c < d; c++) s[0] += (x[c] - m) * (x[c] - m);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* In place (y == x) is fine: a row is read fully before it is written. */
void rt_opt_layer_norm_f32(const rt_opt_ln_params *p, const float *x, const float *gamma, const float *beta, float *y) {
    const int32_t n = p->cols;
    int32_t i, c;
    for (i = 0; i < p->rows; i++) {
        const float *xr = x + (int64_t)i * n;
        float *yr = y + (int64_t)i * n, mean, var, r;
        mean = rt_opt_sum_f32(n, xr) / (float)n;
        var = sum_sq_diff(n, xr, mean) / (float)n;
        r = 1.0f / sqrtf(var + p->eps);
        for (c = 0; c < n; c++) {
            float inv = gamma ? r * gamma[c] : r, b = beta ? beta[c] : 0.0f;
            yr[c] = xr[c] * inv + (b - mean * inv);
        }
    }
}
