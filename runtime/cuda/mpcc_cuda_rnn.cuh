/* mpcc_cuda_rnn.cuh - mpcc's CUDA kernels for the recurrent ops:
 *
 *   mpcc_lstm_f32_body  UNIDIRECTIONAL_SEQUENCE_LSTM f32 (rt_unidirectional_sequence_lstm_f32)
 *   mpcc_lstm_s8_body   UNIDIRECTIONAL_SEQUENCE_LSTM int8 8x8->16 (rt_unidirectional_sequence_lstm_i8)
 *   mpcc_svdf_body      SVDF f32, int8 with int16 state, int8 with int8 state (rt_svdf.c)
 *
 * The time loop is sequential, batch rows are independent: one block per batch row walks the
 * steps, its threads parallel over (gate, cell) pairs for the gate matmuls, over cells for the
 * state update and over outputs for the projection, with block barriers between the phases.
 * Each thread forms a whole dot product in the reference's order, so integer results are the
 * reference's bit for bit (int32 sums wrap as there; the int16 fixed-point sigmoid / tanh, the
 * integer layer norm and the requantizations are the same arithmetic); float results differ
 * only by the device's expf / tanhf and FMA contraction. The state tensors (variable inputs)
 * live in the arena and are updated in place, as the C target's. Builds with nvcc, NVRTC and
 * the CPU emulator. Launch: grid = n_batch (LSTM) / batches (SVDF) blocks, any block size. */
#ifndef MPCC_CUDA_RNN_CUH
#define MPCC_CUDA_RNN_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"
#include "mpcc_cuda_int8.cuh"

/* ---- f32 LSTM ---- */

/* The input / output row of time step t of batch row b. */
MPCC_DEV long long mpcc_lstm_row(const mpcc_lstm_args &p, int t, int b) {
    return p.time_major ? (long long)t * p.n_batch + b : (long long)b * p.max_time + t;
}

MPCC_DEV float mpcc_lstm_act(float x, int act) { /* ApplyActivationToVector; RT_LSTM_ACT_* */
    switch (act) {
    case 1: return x < 0.0f ? 0.0f : x;
    case 2: return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
    case 3: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case 4: return tanhf(x);
    default: return x;
    }
}

MPCC_DEV float mpcc_lstm_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

MPCC_DEV float mpcc_lstm_clip(float x, float clip) { return clip > 0.0f ? (x < -clip ? -clip : (x > clip ? clip : x)) : x; }

/* Layer-norm statistics of one gate row g[0..n): stat[0] mean, stat[1] 1 / sqrt(variance + 1e-8). */
MPCC_DEV void mpcc_lstm_ln_stats(const float *g, int n, float *stat) {
    float sum = 0.0f, sum_sq = 0.0f;
    for (int i = 0; i < n; i++) sum += g[i];
    const float mean = sum / (float)n;
    for (int i = 0; i < n; i++) sum_sq += (g[i] - mean) * (g[i] - mean);
    stat[0] = mean;
    stat[1] = 1.0f / sqrtf(sum_sq / (float)n + 1e-8f);
}

/* Gate k's value for cell i after the layer norm (if any) and its activation. */
MPCC_DEV float mpcc_lstm_gate_out(const mpcc_lstm_args &p, int k, const float *g, const float *stat, int i) {
    const mpcc_lstm_gate_args &q = p.gate[k];
    float v = g[i];
    if (q.ln) v = (v - stat[2 * k]) * stat[2 * k + 1] * ((const float *)q.ln)[i] + ((const float *)q.bias)[i];
    return k == 2 ? mpcc_lstm_act(v, p.act) : mpcc_lstm_sigmoid(v);
}

MPCC_DEV void mpcc_lstm_f32_body(const mpcc_lstm_args &p) {
    __shared__ float stat[8];
    const int b = blockIdx.x, n = p.n_cell, no = p.n_output, tid = threadIdx.x, nt = blockDim.x;
    const int has_ln = p.gate[1].ln != NULL;
    float *h = (float *)p.h + (long long)b * no, *c = (float *)p.c + (long long)b * n;
    float *gate = (float *)p.scratch + 5LL * n * b, *hidden = gate + 4LL * n;
    for (int t = 0; t < p.max_time; t++) {
        const long long row = mpcc_lstm_row(p, t, b);
        const float *x = (const float *)p.in + row * p.n_input;
        /* bias + W x + R h (+ peephole with the old cell state) for every present gate */
        for (int e = tid; e < 4 * n; e += nt) {
            const int k = e / n, i = e % n;
            const mpcc_lstm_gate_args &q = p.gate[k];
            if (!q.w) continue;
            const float *w = (const float *)q.w + (long long)i * p.n_input, *r = (const float *)q.r + (long long)i * no;
            float v = q.ln ? 0.0f : ((const float *)q.bias)[i], dot = 0.0f;
            for (int j = 0; j < p.n_input; j++) dot += w[j] * x[j];
            v += dot;
            dot = 0.0f;
            for (int j = 0; j < no; j++) dot += r[j] * h[j];
            v += dot;
            if (q.peep && k != 3) v += ((const float *)q.peep)[i] * c[i];
            gate[e] = v;
        }
        mpcc_sync();
        if (has_ln) {
            if (tid < 3 && p.gate[tid].w) mpcc_lstm_ln_stats(gate + (long long)tid * n, n, stat + 2 * tid);
            mpcc_sync();
        }
        /* c = f .* c + i .* g (i = 1 - f with CIFG), clipped; then the output gate's peephole */
        for (int i = tid; i < n; i += nt) {
            const float f = mpcc_lstm_gate_out(p, 1, gate + n, stat, i), g = mpcc_lstm_gate_out(p, 2, gate + 2 * n, stat, i);
            const float in_gate = p.gate[0].w ? mpcc_lstm_gate_out(p, 0, gate, stat, i) : 1.0f - f;
            float cv = f * c[i];
            cv += g * in_gate;
            cv = mpcc_lstm_clip(cv, p.cell_clip);
            c[i] = cv;
            if (p.gate[3].peep) gate[3LL * n + i] += ((const float *)p.gate[3].peep)[i] * cv;
        }
        if (has_ln) {
            mpcc_sync();
            if (tid == 0) mpcc_lstm_ln_stats(gate + 3LL * n, n, stat + 6);
            mpcc_sync();
        }
        for (int i = tid; i < n; i += nt) hidden[i] = mpcc_lstm_gate_out(p, 3, gate + 3 * n, stat, i) * mpcc_lstm_act(c[i], p.act);
        mpcc_sync();
        /* h = hidden, or its projection (clipped); the output row is h */
        float *out = (float *)p.out + row * no;
        for (int j = tid; j < no; j += nt) {
            float v;
            if (p.proj_w) {
                const float *pw = (const float *)p.proj_w + (long long)j * n;
                float dot = 0.0f;
                v = p.proj_b ? ((const float *)p.proj_b)[j] : 0.0f;
                for (int i = 0; i < n; i++) dot += pw[i] * hidden[i];
                v = mpcc_lstm_clip(v + dot, p.proj_clip);
            } else {
                v = hidden[j];
            }
            h[j] = v;
            out[j] = v;
        }
        mpcc_sync();
    }
}

/* ---- int8 LSTM: gemmlowp's int16 fixed point on raw values held in int32 (add / sub / neg / shift
 * wrap to 16 bits as the C++ int16 code does) ---- */

MPCC_DEV int32_t mpcc_w16(int32_t x) { return (int32_t)(int16_t)(uint16_t)((uint32_t)x & 0xFFFFu); }
MPCC_DEV int32_t mpcc_add16(int32_t a, int32_t b) { return mpcc_w16(a + b); }
MPCC_DEV int32_t mpcc_sub16(int32_t a, int32_t b) { return mpcc_w16(a - b); }
MPCC_DEV int32_t mpcc_sat16(int32_t x) { return x < -32768 ? -32768 : (x > 32767 ? 32767 : x); }

MPCC_DEV int32_t mpcc_srdhm16(int32_t a, int32_t b) {
    const int32_t ab = a * b, nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    if (a == b && a == -32768) return 32767;
    return mpcc_w16((ab + nudge) / (1 << 15));
}

MPCC_DEV int32_t mpcc_rdbpot16(int32_t x, int e) {
    const int32_t mask = (1 << e) - 1, rem = x & mask, thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return mpcc_w16((x >> e) + (rem > thr ? 1 : 0));
}

MPCC_DEV int32_t mpcc_srmpot16(int32_t x, int e) { /* SaturatingRoundingMultiplyByPOT<e>, int16 */
    if (e > 0) {
        const int32_t thr = (1 << (15 - e)) - 1;
        if (x > thr) return 32767;
        if (x < -thr) return -32768;
        return mpcc_w16(x * (1 << e));
    }
    return e < 0 ? mpcc_rdbpot16(x, -e) : x;
}

MPCC_DEV int32_t mpcc_const16(int32_t c32) { return mpcc_rdbpot(c32, 16); } /* an int32 raw constant as int16 */

MPCC_DEV int32_t mpcc_exp_quarter16(int32_t a) { /* exp(a), a in [-1/4, 0), Q0.15 */
    const int32_t c = mpcc_const16(1895147668), third = mpcc_const16(715827883);
    const int32_t x = mpcc_add16(a, 1 << 12), x2 = mpcc_srdhm16(x, x), x3 = mpcc_srdhm16(x2, x), x4 = mpcc_srdhm16(x2, x2);
    const int32_t poly =
        mpcc_srmpot16(mpcc_add16(mpcc_srdhm16(mpcc_add16(mpcc_srmpot16(x4, -2), x3), third), x2), -1);
    return mpcc_sat16(c + mpcc_srdhm16(c, mpcc_add16(x, poly)));
}

MPCC_DEV int32_t mpcc_exp_barrel(int k) { /* exp(-2^k), Q0.31, k = -2 .. 4 */
    switch (k) {
    case -2: return 1672461947;
    case -1: return 1302514674;
    case 0: return 790015084;
    case 1: return 290630308;
    case 2: return 39332535;
    case 3: return 720401;
    default: return 242;
    }
}

MPCC_DEV int32_t mpcc_exp_neg16(int32_t a, int ibits) { /* exp(a), a <= 0 in Q<ibits>; Q0.15 */
    const int fbits = 15 - ibits;
    const int32_t quarter = 1 << (fbits - 2), amq = mpcc_sub16(a & mpcc_sub16(quarter, 1), quarter);
    int32_t result = mpcc_exp_quarter16(mpcc_srmpot16(amq, ibits));
    const int32_t remainder = mpcc_sub16(amq, a);
    for (int k = -2; k <= 4; k++)
        if (ibits > k && (remainder & (1 << (fbits + k)))) result = mpcc_srdhm16(result, mpcc_const16(mpcc_exp_barrel(k)));
    if (ibits > 5 && a < mpcc_const16(-(1 << (36 - ibits)))) result = 0;
    return a == 0 ? 32767 : result;
}

MPCC_DEV int32_t mpcc_nr_recip16(int32_t a, int one_minus) { /* 1/(1+a) or (1-a)/(1+a), a in Q0.15 [0, 1) */
    const int32_t half_den = (a + 32767 + ((a + 32767) >= 0 ? 1 : -1)) / 2;
    int32_t x = mpcc_add16(mpcc_const16(1515870810), mpcc_srdhm16(half_den, mpcc_const16(-1010580540)));
    for (int i = 0; i < 3; i++) {
        const int32_t one_minus_hdx = mpcc_sub16(1 << 13, mpcc_srdhm16(half_den, x));
        x = mpcc_add16(x, mpcc_srmpot16(mpcc_srdhm16(x, one_minus_hdx), 2));
    }
    return one_minus ? mpcc_srmpot16(mpcc_sub16(x, 1 << 13), 2) : mpcc_srmpot16(x, 1);
}

MPCC_DEV int32_t mpcc_logistic16(int32_t a, int ibits) { /* Q<ibits> in, Q0.15 out */
    const int32_t abs_in = a > 0 ? a : mpcc_w16(-a);
    const int32_t pos = mpcc_nr_recip16(mpcc_exp_neg16(mpcc_w16(-abs_in), ibits), 0);
    if (a == 0) return mpcc_const16(1 << 30);
    return a > 0 ? pos : mpcc_sub16(32767, pos);
}

MPCC_DEV int32_t mpcc_tanh16(int32_t a, int ibits) {
    const int32_t neg = a < 0 ? a : mpcc_w16(-a);
    const int32_t t = mpcc_nr_recip16(mpcc_exp_neg16(neg, ibits + 1), 1);
    if (a == 0) return 0;
    return a < 0 ? mpcc_w16(-t) : t;
}

/* TFLite's GetInvSqrtQuantizedMultiplierExp(input, -1): mpcc_cuda_misc.cuh's, in the layer norm's form. */
MPCC_DEV void mpcc_inv_sqrt_multiplier(int32_t input, int32_t *mult, int32_t *shift) {
    int s = 0;
    *mult = mpcc_inv_sqrt_mult(input, &s);
    *shift = s;
}

/* PortableApplyLayerNorm's statistics of one int16 gate row: st[0] mean (x1024), st[1..2] the
 * inverse-sqrt multiplier and shift. */
MPCC_DEV void mpcc_lstm_ln_stats_s8(const int16_t *v, int n, int32_t guard, int32_t *st) {
    long long sum = 0, sum_sq = 0;
    for (int j = 0; j < n; j++) {
        sum += v[j];
        sum_sq += (int32_t)v[j] * v[j];
    }
    const int32_t mean = (int32_t)(sum * 1024 / n);
    const long long variance = sum_sq * ((1 << 20) / n) - (long long)mean * mean;
    int32_t variance2 = (int32_t)(variance / (1 << 20));
    if (variance2 < 1) variance2 = guard;
    st[0] = mean;
    mpcc_inv_sqrt_multiplier(variance2, &st[1], &st[2]);
}

/* Gate k's int16 output for cell i: layer norm (if any), then the Q3.12 sigmoid / tanh. */
MPCC_DEV int32_t mpcc_lstm_gate_out_s8(const mpcc_lstm_args &p, int k, const int16_t *g, const int32_t *st, int i) {
    const mpcc_lstm_gate_args &q = p.gate[k];
    int32_t v = g[i];
    if (q.ln) {
        const int32_t rescaled = mpcc_s8_requant(1024 * v - st[3 * k], st[3 * k + 1], st[3 * k + 2]);
        const long long val3 = (long long)rescaled * ((const int16_t *)q.ln)[i] + ((const int32_t *)q.bias)[i];
        const int32_t val4 = (int32_t)((val3 > 0 ? val3 + 512 : val3 - 512) / 1024);
        v = mpcc_sat16(mpcc_s8_requant(val4, q.ln_mult, q.ln_shift + 12));
    }
    return k == 2 ? mpcc_tanh16(v, 3) : mpcc_logistic16(v, 3);
}

/* acc = bias + x . w over n int8 pairs, wrapping in 32 bits. */
MPCC_DEV int32_t mpcc_lstm_dot_s8(const int32_t *bias, int i, const int8_t *w, const int8_t *x, int n) {
    int32_t acc = bias ? bias[i] : 0;
    for (int j = 0; j < n; j++) acc = mpcc_wrap_add(acc, (int32_t)x[j] * w[j]);
    return acc;
}

MPCC_DEV void mpcc_lstm_s8_body(const mpcc_lstm_args &p) {
    __shared__ int32_t st[12];
    const int b = blockIdx.x, n = p.n_cell, no = p.n_output, tid = threadIdx.x, nt = blockDim.x;
    const int has_ln = p.gate[1].ln != NULL;
    int8_t *h = (int8_t *)p.h + (long long)b * no;
    int16_t *c = (int16_t *)p.c + (long long)b * n, *gate = (int16_t *)p.scratch + 4LL * n * b;
    int8_t *hidden = (int8_t *)((int16_t *)p.scratch + 4LL * n * p.n_batch) + (long long)b * n;
    for (int t = 0; t < p.max_time; t++) {
        const long long row = mpcc_lstm_row(p, t, b);
        const int8_t *x = (const int8_t *)p.in + row * p.n_input;
        /* CalculateLstmGateInteger8x8_16 up to the layer norm: requant(W x) + requant(R h) (+ peephole) */
        for (int e = tid; e < 4 * n; e += nt) {
            const int k = e / n, i = e % n;
            const mpcc_lstm_gate_args &q = p.gate[k];
            if (!q.w) continue;
            int32_t acc = mpcc_lstm_dot_s8(q.in_bias, i, (const int8_t *)q.w + (long long)i * p.n_input, x, p.n_input);
            int32_t v = mpcc_sat16(mpcc_s8_requant(acc, q.in_mult, q.in_shift));
            acc = mpcc_lstm_dot_s8(q.rec_bias, i, (const int8_t *)q.r + (long long)i * no, h, no);
            v = mpcc_sat16(mpcc_s8_requant(acc, q.rec_mult, q.rec_shift) + v);
            if (q.peep && k != 3)
                v = mpcc_sat16(mpcc_s8_requant(((const int16_t *)q.peep)[i] * c[i], q.cell_mult, q.cell_shift) + v);
            gate[e] = (int16_t)v;
        }
        mpcc_sync();
        if (has_ln) {
            if (tid < 3 && p.gate[tid].w) mpcc_lstm_ln_stats_s8(gate + (long long)tid * n, n, p.gate[tid].variance_guard, st + 3 * tid);
            mpcc_sync();
        }
        /* UpdateLstmCellInteger: c = f .* c (>> 15) + i .* g (>> 30 + cell_scale), clipped */
        for (int i = tid; i < n; i += nt) {
            const int32_t f = mpcc_lstm_gate_out_s8(p, 1, gate + n, st, i), g = mpcc_lstm_gate_out_s8(p, 2, gate + 2 * n, st, i);
            const int32_t in_gate = p.gate[0].w ? mpcc_lstm_gate_out_s8(p, 0, gate, st, i) : 32767 - f;
            const int32_t fc = mpcc_w16(mpcc_rdbpot(f * c[i], 15));
            const int32_t icg = mpcc_w16(mpcc_rdbpot(mpcc_w16(in_gate) * g, 30 + p.cell_scale));
            int32_t v = mpcc_sat16(fc + icg);
            if (p.cell_clip_q > 0) v = mpcc_s8_clamp(v, -p.cell_clip_q, p.cell_clip_q);
            c[i] = (int16_t)v;
            if (p.gate[3].peep) {
                const mpcc_lstm_gate_args &q = p.gate[3];
                gate[3LL * n + i] = (int16_t)mpcc_sat16(
                    mpcc_s8_requant(((const int16_t *)q.peep)[i] * v, q.cell_mult, q.cell_shift) + gate[3LL * n + i]);
            }
        }
        if (has_ln) {
            mpcc_sync();
            if (tid == 0) mpcc_lstm_ln_stats_s8(gate + 3LL * n, n, p.gate[3].variance_guard, st + 9);
            mpcc_sync();
        }
        /* CalculateLstmOutputInteger8x8_16: hidden = o .* tanh(c), requantized */
        for (int i = tid; i < n; i += nt) {
            const int32_t o = mpcc_lstm_gate_out_s8(p, 3, gate + 3 * n, st, i), th = mpcc_tanh16(c[i], 15 + p.cell_scale);
            const int32_t v = mpcc_s8_requant(o * th, p.hidden_mult, p.hidden_shift) + p.hidden_zp;
            hidden[i] = (int8_t)mpcc_s8_clamp(v, -128, 127);
        }
        mpcc_sync();
        int8_t *out = (int8_t *)p.out + row * no;
        for (int j = tid; j < no; j += nt) {
            int32_t v;
            if (p.proj_w) {
                const int32_t acc = mpcc_lstm_dot_s8(p.proj_bias_q, j, (const int8_t *)p.proj_w + (long long)j * n, hidden, n);
                v = mpcc_s8_clamp(mpcc_s8_requant(acc, p.proj_mult, p.proj_shift) + p.output_state_zp, -128, 127);
                if (p.proj_clip_q > 0) v = mpcc_s8_clamp(v, -p.proj_clip_q, p.proj_clip_q);
            } else {
                v = hidden[j];
            }
            h[j] = (int8_t)v;
            out[j] = (int8_t)v;
        }
        mpcc_sync();
    }
}

/* ---- SVDF ---- */

MPCC_DEV void mpcc_svdf_body(const mpcc_svdf_args &p) {
    const int b = blockIdx.x, nf = p.num_filters, m = p.memory_size, tid = threadIdx.x, nt = blockDim.x;
    /* Each filter's memory shifts left by one; its last slot gets in . weights_feature[f]; then the
     * time product of the whole memory with weights_time[f]. */
    for (int f = tid; f < nf; f += nt) {
        const long long base = ((long long)b * nf + f) * m;
        if (p.type == 0) {
            const float *x = (const float *)p.in + (long long)b * p.input_size, *w = (const float *)p.wf + (long long)f * p.input_size;
            const float *wt = (const float *)p.wt + (long long)f * m;
            float *s = (float *)p.state + base, dot = 0.0f;
            for (int j = 0; j < p.input_size; j++) dot += w[j] * x[j];
            for (int j = 0; j + 1 < m; j++) s[j] = s[j + 1];
            s[m - 1] = dot;
            dot = 0.0f;
            for (int j = 0; j < m; j++) dot += wt[j] * s[j];
            ((float *)p.scratch)[(long long)b * nf + f] = dot;
        } else {
            const int8_t *x = (const int8_t *)p.in + (long long)b * p.input_size, *w = (const int8_t *)p.wf + (long long)f * p.input_size;
            int32_t dot = 0;
            for (int j = 0; j < p.input_size; j++) dot = mpcc_wrap_add(dot, (int32_t)w[j] * ((int32_t)x[j] - p.in_zp));
            dot = mpcc_s8_requant(dot, p.mult1, p.shift1) + p.state_zp;
            int32_t acc = 0;
            if (p.type == 1) {
                int16_t *s = (int16_t *)p.state + base;
                const int16_t *wt = (const int16_t *)p.wt + (long long)f * m;
                for (int j = 0; j + 1 < m; j++) s[j] = s[j + 1];
                s[m - 1] = (int16_t)mpcc_s8_clamp(dot, -32768, 32767);
                for (int j = 0; j < m; j++) acc = mpcc_wrap_add(acc, (int32_t)wt[j] * ((int32_t)s[j] - p.state_zp));
            } else {
                int8_t *s = (int8_t *)p.state + base;
                const int8_t *wt = (const int8_t *)p.wt + (long long)f * m;
                for (int j = 0; j + 1 < m; j++) s[j] = s[j + 1];
                s[m - 1] = (int8_t)mpcc_s8_clamp(dot, -128, 127);
                for (int j = 0; j < m; j++) acc = mpcc_wrap_add(acc, (int32_t)wt[j] * ((int32_t)s[j] - p.state_zp));
            }
            ((int32_t *)p.scratch)[(long long)b * nf + f] = acc;
        }
    }
    mpcc_sync();
    /* out[u] = sum of unit u's rank filters + bias, clamped (f32) or requantized (int8) */
    for (int u = tid; u < p.num_units; u += nt) {
        const long long at = (long long)b * nf + (long long)u * p.rank;
        if (p.type == 0) {
            float sum = 0.0f;
            for (int r = 0; r < p.rank; r++) sum += ((const float *)p.scratch)[at + r];
            if (p.bias) sum += ((const float *)p.bias)[u];
            ((float *)p.out)[(long long)b * p.num_units + u] = sum < p.act_min ? p.act_min : (sum > p.act_max ? p.act_max : sum);
        } else {
            int32_t sum = 0;
            for (int r = 0; r < p.rank; r++) sum = mpcc_wrap_add(sum, ((const int32_t *)p.scratch)[at + r]);
            if (p.bias) sum = mpcc_wrap_add(sum, ((const int32_t *)p.bias)[u]);
            sum = mpcc_s8_requant(sum, p.mult2, p.shift2) + p.out_zp;
            ((int8_t *)p.out)[(long long)b * p.num_units + u] = (int8_t)mpcc_s8_clamp(sum, -128, 127);
        }
    }
}

#endif
