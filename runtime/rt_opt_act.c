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

/* Max and sums of a row in 32 independent lanes, so the loops vectorize without reassociation
 * flags into several vector accumulators (the lanes are combined at the end): with 8 lanes
 * (one vector) each row was a chain of dependent adds, and the 128-wide rows of BERT's
 * LayerNorms and attention softmax ran at the add latency (LayerNorm [128, 128] 9.1 -> 3.8 us). */
#define ROW_LANES 32
float rt_opt_max_f32(int32_t d, const float *x) {
    float m[ROW_LANES];
    int32_t c, l;
    for (l = 0; l < ROW_LANES; l++) m[l] = -3.40282347e+38f;
    for (c = 0; c + ROW_LANES <= d; c += ROW_LANES)
        for (l = 0; l < ROW_LANES; l++) m[l] = x[c + l] > m[l] ? x[c + l] : m[l];
    for (; c < d; c++) m[0] = x[c] > m[0] ? x[c] : m[0];
    for (l = 1; l < ROW_LANES; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}

/* sum (x - m)^2 (sq) or sum (x - m) over a row. */
static float row_sum(int32_t d, const float *x, float m, int sq) {
    float s[ROW_LANES], t = 0.0f;
    int32_t c, l;
    for (l = 0; l < ROW_LANES; l++) s[l] = 0.0f;
    for (c = 0; c + ROW_LANES <= d; c += ROW_LANES)
        for (l = 0; l < ROW_LANES; l++) s[l] += sq ? (x[c + l] - m) * (x[c + l] - m) : x[c + l] - m;
    for (; c < d; c++) s[0] += sq ? (x[c] - m) * (x[c] - m) : x[c] - m;
    for (l = 0; l < ROW_LANES / 2; l++) s[l] += s[l + ROW_LANES / 2];
    for (l = 0; l < ROW_LANES / 4; l++) s[l] += s[l + ROW_LANES / 4];
    for (l = 0; l < ROW_LANES / 4; l++) t += s[l];
    return t;
}

float rt_opt_sum_f32(int32_t d, const float *x) { return row_sum(d, x, 0.0f, 0); }

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

/* In place (y == x) is fine: a row is read fully before it is written. */
void rt_opt_layer_norm_f32(const rt_opt_ln_params *p, const float *x, const float *gamma, const float *beta, float *y) {
    const int32_t n = p->cols;
    int32_t i, c;
    for (i = 0; i < p->rows; i++) {
        const float *xr = x + (int64_t)i * n;
        float *yr = y + (int64_t)i * n, mean, var, r;
        mean = row_sum(n, xr, 0.0f, 0) / (float)n;
        var = row_sum(n, xr, mean, 1) / (float)n;
        r = 1.0f / sqrtf(var + p->eps);
        for (c = 0; c < n; c++) {
            float inv = gamma ? r * gamma[c] : r, b = beta ? beta[c] : 0.0f;
            yr[c] = xr[c] * inv + (b - mean * inv);
        }
    }
}
