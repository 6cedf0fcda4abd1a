/* rt_opt_lstm.c - float UNIDIRECTIONAL_SEQUENCE_LSTM: the reference's step
 * (rt_lstm_f32_run, lstm_eval's LstmStepFloat order) with primitives the
 * compiler vectorizes: dot products in 8 independent lanes, and sigmoid /
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

/* gate[b][r] += m[r] . v[b] */
static void mat_vec_acc(const float *m, int32_t rows, int32_t cols, const float *v, int32_t n_batch, float *gate) {
    int32_t b, r;
    for (b = 0; b < n_batch; b++)
        for (r = 0; r < rows; r++) gate[(int64_t)b * rows + r] += dot8(m + (int64_t)r * cols, v + (int64_t)b * cols, cols);
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
