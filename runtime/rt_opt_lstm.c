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

#if RT_OPT_AVX2 && defined(__FMA__)
/* The fused step (AVX2 + FMA; no peephole, no layer norm, tanh cell activation: kws_lstm): each gate's
 * pre-activation bias + W x + R h in one pass, 8 rows at a time (8 FMA chains over x, then h, one reduction
 * for the 8 sums), and the activations, cell update and h = o .* tanh(c) in 8-lane vectors with
 * rt_opt_expf8 (the same operations as activate_row). Only the summation order differs from the
 * two-primitive step. */
static void gate_fused(const float *w, int32_t ni, const float *x, const float *rw, int32_t no, const float *h,
                       const float *bias, int32_t n, float *g) {
    int32_t r = 0;
    for (; r + 8 <= n; r += 8) {
        const float *wr = w + (int64_t)r * ni, *rr = rw + (int64_t)r * no;
        __m256 a[8], h0123, h4567, s;
        float sum[8];
        int32_t c, k, cx, ch;
        for (k = 0; k < 8; k++) a[k] = _mm256_setzero_ps();
        for (c = 0; c + 8 <= ni; c += 8) {
            const __m256 v = _mm256_loadu_ps(x + c);
            for (k = 0; k < 8; k++) a[k] = _mm256_fmadd_ps(_mm256_loadu_ps(wr + (int64_t)k * ni + c), v, a[k]);
        }
        cx = c;
        for (c = 0; c + 8 <= no; c += 8) {
            const __m256 v = _mm256_loadu_ps(h + c);
            for (k = 0; k < 8; k++) a[k] = _mm256_fmadd_ps(_mm256_loadu_ps(rr + (int64_t)k * no + c), v, a[k]);
        }
        ch = c;
        h0123 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
        h4567 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
        s = _mm256_add_ps(_mm256_permute2f128_ps(h0123, h4567, 0x20), _mm256_permute2f128_ps(h0123, h4567, 0x31));
        _mm256_storeu_ps(sum, _mm256_add_ps(s, _mm256_loadu_ps(bias + r)));
        if (cx < ni || ch < no)
            for (k = 0; k < 8; k++) {
                for (c = cx; c < ni; c++) sum[k] = RT_FMAF(wr[(int64_t)k * ni + c], x[c], sum[k]);
                for (c = ch; c < no; c++) sum[k] = RT_FMAF(rr[(int64_t)k * no + c], h[c], sum[k]);
            }
        memcpy(g + r, sum, sizeof sum);
    }
    for (; r < n; r++) g[r] = bias[r] + dot8(w + (int64_t)r * ni, x, ni) + dot8(rw + (int64_t)r * no, h, no);
}

static __m256 sigmoid8(__m256 v) {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, rt_opt_expf8(_mm256_sub_ps(_mm256_setzero_ps(), v))));
}

static __m256 tanh8(__m256 v) {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f),
                                            _mm256_add_ps(rt_opt_expf8(_mm256_add_ps(v, v)), one)));
}

static float sigmoid1(float v) { return 1.0f / (1.0f + rt_opt_expf(-v)); }
static float tanh1(float v) { return 1.0f - 2.0f / (rt_opt_expf(2.0f * v) + 1.0f); }

/* One step for one batch row: h [n_output], c [n_cell] updated, out gets h; scratch: 5 * n_cell floats. */
static void step_fused(const rt_lstm_params *p, const float *const *t, const float *x, float *h, float *c, float *out,
                       float *scratch) {
    const int32_t n = p->n_cell, ni = p->n_input, no = p->n_output;
    const int cifg = t[RT_LSTM_W_I] == NULL;
    const float clip = p->cell_clip;
    float *ig = scratch, *fg = ig + n, *cg = fg + n, *og = cg + n, *tmp = og + n;
    int32_t i = 0;
    if (!cifg) gate_fused(t[RT_LSTM_W_I], ni, x, t[RT_LSTM_R_I], no, h, t[RT_LSTM_B_I], n, ig);
    gate_fused(t[RT_LSTM_W_F], ni, x, t[RT_LSTM_R_F], no, h, t[RT_LSTM_B_F], n, fg);
    gate_fused(t[RT_LSTM_W_C], ni, x, t[RT_LSTM_R_C], no, h, t[RT_LSTM_B_C], n, cg);
    gate_fused(t[RT_LSTM_W_O], ni, x, t[RT_LSTM_R_O], no, h, t[RT_LSTM_B_O], n, og);
    for (; i + 8 <= n; i += 8) {
        const __m256 f = sigmoid8(_mm256_loadu_ps(fg + i));
        const __m256 in = cifg ? _mm256_sub_ps(_mm256_set1_ps(1.0f), f) : sigmoid8(_mm256_loadu_ps(ig + i));
        __m256 cv = _mm256_fmadd_ps(tanh8(_mm256_loadu_ps(cg + i)), in, _mm256_mul_ps(f, _mm256_loadu_ps(c + i)));
        if (clip > 0.0f) cv = _mm256_min_ps(_mm256_set1_ps(clip), _mm256_max_ps(_mm256_set1_ps(-clip), cv));
        _mm256_storeu_ps(c + i, cv);
        _mm256_storeu_ps(tmp + i, _mm256_mul_ps(sigmoid8(_mm256_loadu_ps(og + i)), tanh8(cv)));
    }
    for (; i < n; i++) {
        const float f = sigmoid1(fg[i]), in = cifg ? 1.0f - f : sigmoid1(ig[i]);
        float cv = RT_FMAF(tanh1(cg[i]), in, f * c[i]);
        if (clip > 0.0f) cv = cv < -clip ? -clip : (cv > clip ? clip : cv);
        c[i] = cv;
        tmp[i] = sigmoid1(og[i]) * tanh1(cv);
    }
    if (t[RT_LSTM_PROJ_W]) {
        for (i = 0; i < no; i++) h[i] = t[RT_LSTM_PROJ_B] ? t[RT_LSTM_PROJ_B][i] : 0.0f;
        mat_vec_acc(t[RT_LSTM_PROJ_W], no, n, tmp, 1, h);
        if (p->proj_clip > 0.0f)
            for (i = 0; i < no; i++) h[i] = h[i] < -p->proj_clip ? -p->proj_clip : (h[i] > p->proj_clip ? p->proj_clip : h[i]);
    } else {
        memcpy(h, tmp, (size_t)no * sizeof *h);
    }
    memcpy(out, h, (size_t)no * sizeof *out);
}
#endif

void rt_opt_lstm_f32(const rt_lstm_params *p, const float *const *t, float *output_state, float *cell_state,
                     float *out, float *scratch) {
    static const rt_lstm_f32_ops ops = {mat_vec_acc, activate_row};
#if RT_OPT_AVX2 && defined(__FMA__)
    if (p->act == RT_LSTM_ACT_TANH && !t[RT_LSTM_P_I] && !t[RT_LSTM_P_F] && !t[RT_LSTM_P_O] && !t[RT_LSTM_LN_I] &&
        !t[RT_LSTM_LN_F] && !t[RT_LSTM_LN_C] && !t[RT_LSTM_LN_O]) {
        const int32_t nb = p->n_batch, ni = p->n_input, no = p->n_output, n = p->n_cell;
        int32_t tt, b;
        for (tt = 0; tt < p->max_time; tt++)
            for (b = 0; b < nb; b++) {
                /* time-major: step tt of every row before step tt + 1 (the rows are independent either way) */
                const int64_t off = p->time_major ? (int64_t)tt * nb + b : (int64_t)b * p->max_time + tt;
                step_fused(p, t, t[RT_LSTM_INPUT] + off * ni, output_state + (int64_t)b * no,
                           cell_state + (int64_t)b * n, out + off * no, scratch);
            }
        return;
    }
#endif
    rt_lstm_f32_run(p, &ops, t, output_state, cell_state, out, scratch);
}
