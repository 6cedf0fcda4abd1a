/* rt_unidirectional_sequence_lstm.c - float LSTM, following the operation
 * order of TFLite's lstm_eval.cc (LstmStepFloat), and the integer 8x8->16
 * LSTM (LstmStepInteger8x8_16), layer norm included. */
#include "mpcc_rt.h"


static float activate(float x, int32_t act) {
    switch (act) {
    case RT_LSTM_ACT_RELU: return x < 0.0f ? 0.0f : x;
    case RT_LSTM_ACT_RELU_N1_TO_1: return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
    case RT_LSTM_ACT_RELU6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case RT_LSTM_ACT_TANH: return tanhf(x);
    default: return x;
    }
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* gate[b][r] += sum_c m[r][c] * v[b][c] (the dot product is formed first). */
static void mat_vec_acc(const float *m, int32_t rows, int32_t cols, const float *v, int32_t n_batch, float *gate) {
    int32_t b, r, c;
    for (b = 0; b < n_batch; b++)
        for (r = 0; r < rows; r++) {
            float dot = 0.0f;
            for (c = 0; c < cols; c++) dot += m[(int64_t)r * cols + c] * v[(int64_t)b * cols + c];
            gate[(int64_t)b * rows + r] += dot;
        }
}

static void activate_row(float *x, int32_t n, int32_t act, int sigmoid_act) {
    int32_t i;
    for (i = 0; i < n; i++) x[i] = sigmoid_act ? sigmoid(x[i]) : activate(x[i], act);
}

/* One gate: act(W x + R h + P .* c + bias), with optional layer norm. */
static void gate_f32(const rt_lstm_params *p, const rt_lstm_f32_ops *ops, int32_t n_batch, const float *x,
                     const float *w, const float *h, const float *r, const float *c, const float *peep,
                     const float *ln, const float *bias, int sigmoid_act, float *gate) {
    int32_t b, i, n = p->n_cell;
    for (b = 0; b < n_batch; b++)
        for (i = 0; i < n; i++) gate[b * n + i] = ln ? 0.0f : bias[i];
    ops->mat_vec(w, n, p->n_input, x, n_batch, gate);
    ops->mat_vec(r, n, p->n_output, h, n_batch, gate);
    if (peep)
        for (b = 0; b < n_batch; b++)
            for (i = 0; i < n; i++) gate[b * n + i] += peep[i] * c[b * n + i];
    if (ln) {
        for (b = 0; b < n_batch; b++) {
            float *g = gate + b * n, sum = 0.0f, sum_sq = 0.0f, mean, inv;
            for (i = 0; i < n; i++) sum += g[i];
            mean = sum / (float)n;
            for (i = 0; i < n; i++) sum_sq += (g[i] - mean) * (g[i] - mean);
            inv = 1.0f / sqrtf(sum_sq / (float)n + 1e-8f);
            for (i = 0; i < n; i++) g[i] = (g[i] - mean) * inv * ln[i] + bias[i];
        }
    }
    ops->activate(gate, n_batch * n, p->act, sigmoid_act);
}

/* One time step for n_batch rows; h/c are the states, out gets h. */
static void step_f32(const rt_lstm_params *p, const rt_lstm_f32_ops *ops, const float *const *t, int32_t n_batch,
                     const float *x, float *h, float *c, float *out, int64_t out_stride, float *scratch) {
    int32_t n = p->n_cell, no = p->n_output, i, b;
    int cifg = t[RT_LSTM_W_I] == NULL;
    float *ig = scratch, *fg = ig + n_batch * n, *cg = fg + n_batch * n, *og = cg + n_batch * n, *tmp = og + n_batch * n;
    if (!cifg)
        gate_f32(p, ops, n_batch, x, t[RT_LSTM_W_I], h, t[RT_LSTM_R_I], c, t[RT_LSTM_P_I], t[RT_LSTM_LN_I],
                 t[RT_LSTM_B_I], 1, ig);
    gate_f32(p, ops, n_batch, x, t[RT_LSTM_W_F], h, t[RT_LSTM_R_F], c, t[RT_LSTM_P_F], t[RT_LSTM_LN_F], t[RT_LSTM_B_F],
             1, fg);
    gate_f32(p, ops, n_batch, x, t[RT_LSTM_W_C], h, t[RT_LSTM_R_C], NULL, NULL, t[RT_LSTM_LN_C], t[RT_LSTM_B_C], 0, cg);
    /* c = f .* c + i .* g, i = 1 - f with CIFG; then clip. */
    for (i = 0; i < n_batch * n; i++) {
        float in_gate = cifg ? 1.0f - fg[i] : ig[i];
        c[i] = fg[i] * c[i];
        c[i] += cg[i] * in_gate;
        if (p->cell_clip > 0.0f) c[i] = c[i] < -p->cell_clip ? -p->cell_clip : (c[i] > p->cell_clip ? p->cell_clip : c[i]);
    }
    gate_f32(p, ops, n_batch, x, t[RT_LSTM_W_O], h, t[RT_LSTM_R_O], c, t[RT_LSTM_P_O], t[RT_LSTM_LN_O], t[RT_LSTM_B_O],
             1, og);
    /* h = o .* act(c), optionally projected. */
    for (i = 0; i < n_batch * n; i++) tmp[i] = c[i];
    ops->activate(tmp, n_batch * n, p->act, 0);
    for (i = 0; i < n_batch * n; i++) tmp[i] = og[i] * tmp[i];
    if (t[RT_LSTM_PROJ_W]) {
        for (b = 0; b < n_batch; b++)
            for (i = 0; i < no; i++) h[b * no + i] = t[RT_LSTM_PROJ_B] ? t[RT_LSTM_PROJ_B][i] : 0.0f;
        ops->mat_vec(t[RT_LSTM_PROJ_W], no, n, tmp, n_batch, h);
        if (p->proj_clip > 0.0f)
            for (i = 0; i < n_batch * no; i++)
                h[i] = h[i] < -p->proj_clip ? -p->proj_clip : (h[i] > p->proj_clip ? p->proj_clip : h[i]);
    } else {
        for (i = 0; i < n_batch * no; i++) h[i] = tmp[i];
    }
    for (b = 0; b < n_batch; b++)
        for (i = 0; i < no; i++) out[b * out_stride + i] = h[b * no + i];
}

void rt_lstm_f32_run(const rt_lstm_params *p, const rt_lstm_f32_ops *ops, const float *const *t, float *output_state,
                     float *cell_state, float *out, float *scratch) {
    int32_t tt, b;
    if (p->time_major) {
        for (tt = 0; tt < p->max_time; tt++)
            step_f32(p, ops, t, p->n_batch, t[RT_LSTM_INPUT] + (int64_t)tt * p->n_batch * p->n_input, output_state,
                     cell_state, out + (int64_t)tt * p->n_batch * p->n_output, p->n_output, scratch);
        return;
    }
    /* Batch-major: TFLite runs each batch row through the whole sequence. */
    for (b = 0; b < p->n_batch; b++)
        for (tt = 0; tt < p->max_time; tt++) {
            int64_t off = (int64_t)b * p->max_time + tt;
            step_f32(p, ops, t, 1, t[RT_LSTM_INPUT] + off * p->n_input, output_state + (int64_t)b * p->n_output,
                     cell_state + (int64_t)b * p->n_cell, out + off * p->n_output, p->n_output, scratch);
        }
}

void rt_unidirectional_sequence_lstm_f32(const rt_lstm_params *p, const float *const *t, float *output_state,
                                         float *cell_state, float *out, float *scratch) {
    static const rt_lstm_f32_ops ref = {mat_vec_acc, activate_row};
    rt_lstm_f32_run(p, &ref, t, output_state, cell_state, out, scratch);
}

/* ---- Integer (8x8->16) LSTM: TFLite lstm_eval LstmStepInteger8x8_16 with
 * the portable tensor_utils kernels. ---- */

/* gemmlowp FixedPoint<int16_t, N> arithmetic on raw int16 values held in
 * int32: plain add/sub/neg/shift wrap to 16 bits as the C++ int16 code does. */
static int32_t w16(int32_t x) { return (int32_t)((uint32_t)x & 0xFFFFu) - (((uint32_t)x & 0x8000u) ? 0x10000 : 0); }
static int32_t add16(int32_t a, int32_t b) { return w16(a + b); }
static int32_t sub16(int32_t a, int32_t b) { return w16(a - b); }
static int32_t sat16(int32_t x) { return x < -32768 ? -32768 : (x > 32767 ? 32767 : x); }

static int32_t srdhm16(int32_t a, int32_t b) {
    int32_t ab = a * b, nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    if (a == b && a == -32768) return 32767;
    return w16((ab + nudge) / (1 << 15));
}

static int32_t rdbpot16(int32_t x, int e) {
    int32_t mask = (1 << e) - 1, remainder = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return w16((x >> e) + (remainder > threshold ? 1 : 0));
}

/* SaturatingRoundingMultiplyByPOT<e> for int16. */
static int32_t srmpot16(int32_t x, int e) {
    if (e > 0) {
        int32_t threshold = (1 << (15 - e)) - 1;
        if (x > threshold) return 32767;
        if (x < -threshold) return -32768;
        return w16(x * (1 << e));
    }
    return e < 0 ? rdbpot16(x, -e) : x;
}

/* GEMMLOWP_CHECKED_FIXEDPOINT_CONSTANT for int16: the int32 raw constant
 * rounding-shifted right by 16. */
static int32_t const16(int32_t c32) { return rt_rounding_divide_by_pot(c32, 16); }

/* exp(a) for a in [-1/4, 0), Q0.15 in and out. */
static int32_t exp_quarter16(int32_t a) {
    int32_t c = const16(1895147668), third = const16(715827883);
    int32_t x = add16(a, 1 << 12), x2 = srdhm16(x, x), x3 = srdhm16(x2, x), x4 = srdhm16(x2, x2);
    int32_t poly = srmpot16(add16(srdhm16(add16(srmpot16(x4, -2), x3), third), x2), -1);
    return sat16(c + srdhm16(c, add16(x, poly)));
}

/* exp(a) for a <= 0, a in Q<ibits>, result Q0.15. */
static int32_t exp_neg16(int32_t a, int ibits) {
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    int fbits = 15 - ibits, k;
    int32_t quarter = 1 << (fbits - 2), amq = sub16(a & sub16(quarter, 1), quarter);
    int32_t result = exp_quarter16(srmpot16(amq, ibits)), remainder = sub16(amq, a);
    for (k = -2; k <= 4; k++)
        if (ibits > k && (remainder & (1 << (fbits + k)))) result = srdhm16(result, const16(barrel[k + 2]));
    if (ibits > 5 && a < const16(-(1 << (36 - ibits)))) result = 0;
    return a == 0 ? 32767 : result;
}

/* Newton-Raphson 1/(1+x) (or (1-x)/(1+x)) for x in Q0.15 [0, 1). */
static int32_t nr_recip16(int32_t a, int one_minus) {
    int32_t half_den = (a + 32767 + ((a + 32767) >= 0 ? 1 : -1)) / 2;
    int32_t x = add16(const16(1515870810), srdhm16(half_den, const16(-1010580540)));
    int i;
    for (i = 0; i < 3; i++) {
        int32_t one_minus_hdx = sub16(1 << 13, srdhm16(half_den, x)); /* F2 one */
        x = add16(x, srmpot16(srdhm16(x, one_minus_hdx), 2));
    }
    return one_minus ? srmpot16(sub16(x, 1 << 13), 2) : srmpot16(x, 1);
}

/* gemmlowp::logistic / tanh: Q<ibits>.<15-ibits> in, Q0.15 out. */
static int32_t logistic16(int32_t a, int ibits) {
    int32_t abs_in = a > 0 ? a : w16(-a);
    int32_t pos = nr_recip16(exp_neg16(w16(-abs_in), ibits), 0);
    if (a == 0) return const16(1 << 30);
    return a > 0 ? pos : sub16(32767, pos);
}

static int32_t tanh16(int32_t a, int ibits) {
    int32_t n = a < 0 ? a : w16(-a);
    int32_t t = nr_recip16(exp_neg16(n, ibits + 1), 1);
    if (a == 0) return 0;
    return a < 0 ? w16(-t) : t;
}

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent (int32). */
static int32_t sat_shl32(int32_t x, int e) {
    int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* TFLite GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1). */
static void inv_sqrt_multiplier(int32_t input, int32_t *mult, int *shift) {
    int32_t half_input, x;
    int out_shift = 11, lz = 0, k, pairs;
    uint32_t u;
    if (input <= 1) {
        *mult = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (1 << 29)) {
        input /= 4;
        out_shift++;
    }
    for (u = (uint32_t)input; !(u & 0x80000000u); u <<= 1) lz++;
    pairs = (lz - 1) / 2 - 1;
    out_shift -= pairs;
    input <<= 2 * pairs;
    half_input = rt_rounding_divide_by_pot(input >> 1, 1);
    x = 1 << 28; /* 1.0 in Q3.28 */
    for (k = 0; k < 5; k++) {
        int32_t x3 = sat_shl32(rt_sat_rounding_doubling_high_mul(rt_sat_rounding_doubling_high_mul(x, x), x), 6);
        int32_t a = rt_sat_rounding_doubling_high_mul((1 << 28) + (1 << 27), x);
        int32_t b = rt_sat_rounding_doubling_high_mul(half_input, x3);
        x = sat_shl32((int32_t)((uint32_t)a - (uint32_t)b), 3);
    }
    x = rt_sat_rounding_doubling_high_mul(x, 1518500250); /* * sqrt(2)/2 */
    if (out_shift < 0) {
        x = (int32_t)((uint32_t)x << -out_shift);
        out_shift = 0;
    }
    *mult = x;
    *shift = -out_shift;
}

/* out[b][r] = clamp(out[b][r] + zp + requant(bias[r] + sum_c w[r][c] x[b][c]))
 * (PortableMatrixBatchVectorMultiplyAccumulate, int16 or int8 output). */
static void mat_vec_acc_i16(const int8_t *x, const int32_t *bias, const int8_t *w, int32_t mult, int32_t shift,
                            int32_t nb, int32_t cols, int32_t rows, int16_t *out) {
    int32_t b, r, c;
    for (b = 0; b < nb; b++)
        for (r = 0; r < rows; r++) {
            int32_t acc = bias[r];
            for (c = 0; c < cols; c++) acc = rt_wrap_add_i32(acc, (int32_t)x[b * cols + c] * w[(int64_t)r * cols + c]);
            acc = rt_mul_by_quantized_multiplier(acc, mult, shift) + out[b * rows + r];
            out[b * rows + r] = (int16_t)sat16(acc);
        }
}

static void mat_vec_acc_i8(const int8_t *x, const int32_t *bias, const int8_t *w, int32_t mult, int32_t shift,
                           int32_t nb, int32_t cols, int32_t rows, int32_t zp, int8_t *out) {
    int32_t b, r, c;
    for (b = 0; b < nb; b++)
        for (r = 0; r < rows; r++) {
            int32_t acc = bias[r];
            for (c = 0; c < cols; c++) acc = rt_wrap_add_i32(acc, (int32_t)x[b * cols + c] * w[(int64_t)r * cols + c]);
            acc = rt_mul_by_quantized_multiplier(acc, mult, shift) + zp + out[b * rows + r];
            out[b * rows + r] = (int8_t)rt_clamp_i32(acc, -128, 127);
        }
}

/* PortableApplyLayerNorm (integer mean/variance, int16 in and out). */
static void layer_norm_i16(int16_t *g, const int16_t *w, const int32_t *bias, const rt_lstm_q_gate *q, int32_t nb,
                           int32_t n) {
    int32_t b, j;
    for (b = 0; b < nb; b++) {
        int16_t *v = g + b * n;
        int64_t sum = 0, sum_sq = 0, variance;
        int32_t mean, variance2, inv_mult;
        int inv_shift;
        for (j = 0; j < n; j++) {
            sum += v[j];
            sum_sq += (int32_t)v[j] * v[j];
        }
        mean = (int32_t)(sum * 1024 / n);
        variance = sum_sq * ((1 << 20) / n) - (int64_t)mean * mean;
        variance2 = (int32_t)(variance / (1 << 20));
        if (variance2 < 1) variance2 = q->variance_guard;
        inv_sqrt_multiplier(variance2, &inv_mult, &inv_shift);
        for (j = 0; j < n; j++) {
            int32_t rescaled = rt_mul_by_quantized_multiplier(1024 * v[j] - mean, inv_mult, inv_shift);
            /* int32 in TFLite's source, but the interpreter's compiled code
             * forms it in 64 bits (the overflow is undefined there): no
             * wrap, checked against it with saturated biases and with
             * rescaled * w past 2^31 (8192 cells). */
            int64_t val3 = (int64_t)rescaled * w[j] + bias[j];
            int32_t val4 = (int32_t)((val3 > 0 ? val3 + 512 : val3 - 512) / 1024);
            v[j] = (int16_t)sat16(rt_mul_by_quantized_multiplier(val4, q->ln_mult, q->ln_shift + 12));
        }
    }
}

/* CalculateLstmGateInteger8x8_16: int16 Q0.15 gate from int8 x and h. */
static void gate_i8(const rt_lstm_q_params *p, const rt_lstm_q_gate *q, int32_t nb, const int8_t *x, const int8_t *w,
                    const int8_t *h, const int8_t *r, const int16_t *c, const int16_t *peep, const int16_t *ln,
                    const int32_t *bias, int sigmoid_act, int16_t *gate) {
    int32_t i, b, n = p->n_cell;
    for (i = 0; i < nb * n; i++) gate[i] = 0;
    mat_vec_acc_i16(x, q->in_bias, w, q->in_mult, q->in_shift, nb, p->n_input, n, gate);
    mat_vec_acc_i16(h, q->rec_bias, r, q->rec_mult, q->rec_shift, nb, p->n_output, n, gate);
    if (peep) {
        /* TFLite passes n_output as the vector size here; check() requires n_output == n_cell. */
        for (b = 0; b < nb; b++)
            for (i = 0; i < n; i++) {
                int32_t prod = rt_mul_by_quantized_multiplier(peep[i] * c[b * n + i], q->cell_mult, q->cell_shift);
                gate[b * n + i] = (int16_t)sat16(prod + gate[b * n + i]);
            }
    }
    if (ln) layer_norm_i16(gate, ln, bias, q, nb, n);
    for (i = 0; i < nb * n; i++) gate[i] = (int16_t)(sigmoid_act ? logistic16(gate[i], 3) : tanh16(gate[i], 3));
}

static void step_i8(const rt_lstm_q_params *p, const void *const *t, int32_t nb, const int8_t *x, int8_t *h,
                    int16_t *c, int8_t *out, int16_t *scratch) {
    int32_t n = p->n_cell, no = p->n_output, i;
    int cifg = t[RT_LSTM_W_I] == NULL;
    int16_t *ig = scratch, *fg = ig + nb * n, *cg = fg + nb * n, *og = cg + nb * n;
    int8_t *hidden = (int8_t *)(og + nb * n);
#define W8(k) ((const int8_t *)t[k])
#define W16(k) ((const int16_t *)t[k])
#define B32(k) ((const int32_t *)t[k])
    if (!cifg)
        gate_i8(p, &p->gate[0], nb, x, W8(RT_LSTM_W_I), h, W8(RT_LSTM_R_I), c, W16(RT_LSTM_P_I), W16(RT_LSTM_LN_I), B32(RT_LSTM_B_I), 1, ig);
    gate_i8(p, &p->gate[1], nb, x, W8(RT_LSTM_W_F), h, W8(RT_LSTM_R_F), c, W16(RT_LSTM_P_F), W16(RT_LSTM_LN_F), B32(RT_LSTM_B_F), 1, fg);
    gate_i8(p, &p->gate[2], nb, x, W8(RT_LSTM_W_C), h, W8(RT_LSTM_R_C), c, NULL, W16(RT_LSTM_LN_C), B32(RT_LSTM_B_C), 0, cg);
    /* UpdateLstmCellInteger: c = f .* c (>> 15) + i .* g (>> 30 + cell_scale). */
    for (i = 0; i < nb * n; i++) {
        int32_t in_gate = cifg ? 32767 - fg[i] : ig[i];
        int32_t fc = w16(rt_rounding_divide_by_pot((int32_t)fg[i] * c[i], 15));
        int32_t icg = w16(rt_rounding_divide_by_pot(w16(in_gate) * cg[i], 30 + p->cell_scale));
        int32_t v = sat16(fc + icg);
        if (p->cell_clip > 0) v = rt_clamp_i32(v, -p->cell_clip, p->cell_clip);
        c[i] = (int16_t)v;
    }
    gate_i8(p, &p->gate[3], nb, x, W8(RT_LSTM_W_O), h, W8(RT_LSTM_R_O), c, W16(RT_LSTM_P_O), W16(RT_LSTM_LN_O), B32(RT_LSTM_B_O), 1, og);
    /* CalculateLstmOutputInteger8x8_16: hidden = o .* tanh(c), requantized
     * to the hidden intermediate plus hidden_zp (the intermediate's zero
     * point, negated when a projection follows: see rt_lstm_q_params). */
    for (i = 0; i < nb * n; i++) {
        int32_t th = tanh16(c[i], 15 + p->cell_scale);
        int32_t v = rt_mul_by_quantized_multiplier((int32_t)og[i] * th, p->hidden_mult, p->hidden_shift) + p->hidden_zp;
        hidden[i] = (int8_t)rt_clamp_i32(v, -128, 127);
    }
    if (t[RT_LSTM_PROJ_W]) {
        for (i = 0; i < nb * no; i++) h[i] = 0;
        mat_vec_acc_i8(hidden, p->proj_bias, W8(RT_LSTM_PROJ_W), p->proj_mult, p->proj_shift, nb, n, no, p->output_state_zp,
                       h);
        if (p->proj_clip > 0)
            for (i = 0; i < nb * no; i++) h[i] = (int8_t)rt_clamp_i32(h[i], -p->proj_clip, p->proj_clip);
    } else {
        for (i = 0; i < nb * no; i++) h[i] = hidden[i];
    }
    for (i = 0; i < nb * no; i++) out[i] = h[i];
#undef W8
#undef W16
#undef B32
}

void rt_unidirectional_sequence_lstm_i8(const rt_lstm_q_params *p, const void *const *t, int8_t *output_state,
                                        int16_t *cell_state, int8_t *out, void *scratch) {
    const int8_t *in = (const int8_t *)t[RT_LSTM_INPUT];
    int32_t tt, b;
    if (p->time_major) {
        for (tt = 0; tt < p->max_time; tt++)
            step_i8(p, t, p->n_batch, in + (int64_t)tt * p->n_batch * p->n_input, output_state, cell_state,
                    out + (int64_t)tt * p->n_batch * p->n_output, (int16_t *)scratch);
        return;
    }
    for (b = 0; b < p->n_batch; b++)
        for (tt = 0; tt < p->max_time; tt++) {
            int64_t off = (int64_t)b * p->max_time + tt;
            step_i8(p, t, 1, in + off * p->n_input, output_state + (int64_t)b * p->n_output,
                    cell_state + (int64_t)b * p->n_cell, out + off * p->n_output, (int16_t *)scratch);
        }
}
