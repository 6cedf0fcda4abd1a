/* rt_opt_lstm.c - float UNIDIRECTIONAL_SEQUENCE_LSTM: the reference's step
 * (rt_lstm_f32_run, lstm_eval's LstmStepFloat order) with primitives the
 * compiler vectorizes: dot products in 8 independent lanes (AVX2: 8 rows at a time), and sigmoid /
 * tanh on a vectorizable exp (rt_opt_expf) instead of libm calls. Results
 * differ from the reference by rounding only (summation order, exp). */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

static float dot8(const float *a, const float *b, int32_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t c, l;
    for (c = 0; c + 8 <= n; c += 8)
        for (l = 0; l < 8; l++) s[l] += a[c + l] * b[c + l];
    for (; c < n; c++) s[0] += a[c] * b[c];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* gate[b][r] += m[r] . v[b]; with AVX2, 8 rows at a time (8 FMA chains, one horizontal reduction
 * for the 8 sums). */
static void mat_vec_acc(const float *m, int32_t rows, int32_t cols, const float *v, int32_t n_batch, float *gate) {
    int32_t b, r;
    for (b = 0; b < n_batch; b++) {
        const float *x = v + (int64_t)b * cols;
        float *g = gate + (int64_t)b * rows;
        r = 0;
#if RT_OPT_AVX2 && defined(__FMA__)
        for (; r + 8 <= rows; r += 8) {
            const float *w = m + (int64_t)r * cols;
            __m256 a[8], h0123, h4567, s;
            float sum[8];
            int32_t c, k;
            for (k = 0; k < 8; k++) a[k] = _mm256_setzero_ps();
            for (c = 0; c + 8 <= cols; c += 8) {
                const __m256 xv = _mm256_loadu_ps(x + c);
                for (k = 0; k < 8; k++) a[k] = _mm256_fmadd_ps(_mm256_loadu_ps(w + (int64_t)k * cols + c), xv, a[k]);
            }
            h0123 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
            h4567 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
            s = _mm256_add_ps(_mm256_permute2f128_ps(h0123, h4567, 0x20), _mm256_permute2f128_ps(h0123, h4567, 0x31));
            _mm256_storeu_ps(sum, s);
            for (k = 0; k < 8; k++) {
                int32_t cc;
                for (cc = c; cc < cols; cc++) sum[k] = RT_FMAF(w[(int64_t)k * cols + cc], x[cc], sum[k]);
                g[r + k] += sum[k];
            }
        }
#endif
        for (; r < rows; r++) g[r] += dot8(m + (int64_t)r * cols, x, cols);
    }
}

/* x[i] = act(x[i]) for n values, vectorizable (sigmoid: 1 / (1 + e^-x); tanh: 1 - 2 / (e^2x + 1)). */
static void activate_row(float *x, int32_t n, int32_t act, int sigmoid) {
    int32_t i;
    if (sigmoid) {
        for (i = 0; i < n; i++) x[i] = 1.0f / (1.0f + rt_opt_expf(-x[i]));
        return;
    }
    switch (act) {
    case RT_LSTM_ACT_RELU:
        for (i = 0; i < n; i++) x[i] = x[i] < 0.0f ? 0.0f : x[i];
        break;
    case RT_LSTM_ACT_RELU_N1_TO_1:
        for (i = 0; i < n; i++) x[i] = x[i] < -1.0f ? -1.0f : (x[i] > 1.0f ? 1.0f : x[i]);
        break;
    case RT_LSTM_ACT_RELU6:
        for (i = 0; i < n; i++) x[i] = x[i] < 0.0f ? 0.0f : (x[i] > 6.0f ? 6.0f : x[i]);
        break;
    case RT_LSTM_ACT_TANH:
        for (i = 0; i < n; i++) x[i] = 1.0f - 2.0f / (rt_opt_expf(2.0f * x[i]) + 1.0f);
        break;
    default: break;
    }
}

void rt_opt_lstm_f32(const rt_lstm_params *p, const float *const *t, float *output_state, float *cell_state,
                     float *out, float *scratch) {
    static const rt_lstm_f32_ops ops = {mat_vec_acc, activate_row};
    rt_lstm_f32_run(p, &ops, t, output_state, cell_state, out, scratch);
}
