/* rt_opt_lstm_s8.c - int8 (8x8->16) UNIDIRECTIONAL_SEQUENCE_LSTM without
 * peephole and layer norm (CIFG, projection and clipping included), the same
 * integers as the reference (rt_unidirectional_sequence_lstm_i8, TFLite's
 * LstmStepInteger8x8_16):
 * - the input-to-gate products of every time step are one pass before the
 *   recurrence (int16 per gate and step, saturated as the reference's first
 *   accumulation saturates them); each step then adds the recurrent ones;
 * - the int8 dot products widen to int16 and pair-multiply-add (AVX2), and
 *   int32 sums wrap as the reference's do (the order of wrapping adds does
 *   not change a sum modulo 2^32);
 * - gemmlowp's fixed-point sigmoid and tanh (Q3.12 gates, the cell's
 *   Q(15+cell_scale)) run on 8 (AVX) or 4 int32 lanes with GNU C vector extensions, each
 *   operation the scalar one's exact integer form.
 * Without GNU C vectors it runs the reference. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define ROUND8(n) (((n) + 7) / 8 * 8)

static int64_t align32(int64_t b) { return (b + 31) / 32 * 32; }

int64_t rt_opt_lstm_i8_scratch_bytes(const rt_lstm_q_params *p) {
    int64_t n8 = ROUND8(p->n_cell), no8 = ROUND8(p->n_output);
    int64_t mine = align32(4 * n8 * 4) + align32(4 * n8 * 2) + align32(n8 * 4) + align32(n8) + align32(no8 * 4) +
                   align32((int64_t)p->max_time * 4 * n8 * 2);
    int64_t ref = (int64_t)p->n_batch * p->n_cell * (4 * 2 + 1); /* the fallback's (the reference's) */
    return mine > ref ? mine : ref;
}

#if RT_OPT_VEC

/* The vectors below pass between always-inline static functions only: no ABI is involved (GCC
 * warns about vector arguments wider than the target's registers, e.g. without NEON). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

/* acc[r] = bias[r] + w[r] . x (r < rows), sums wrapping in 32 bits. */
static void matvec_s8(const int8_t *w, int32_t rows, int32_t cols, const int8_t *x, const int32_t *bias, int32_t *acc) {
    int32_t r = 0, c;
#if RT_OPT_AVX2
    for (; r + 4 <= rows; r += 4) {
        int32_t k;
        const int8_t *wr = w + (int64_t)r * cols;
        __m256i a[4];
        __m128i s;
        uint32_t sum[4];
        for (k = 0; k < 4; k++) a[k] = _mm256_setzero_si256();
        for (c = 0; c + 16 <= cols; c += 16) {
            const __m256i xv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x + c)));
            for (k = 0; k < 4; k++)
                a[k] = _mm256_add_epi32(
                    a[k], _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(wr + (int64_t)k * cols + c))), xv));
        }
        if (c + 8 <= cols) {
            const __m128i xv = _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(x + c)));
            for (k = 0; k < 4; k++) {
                const __m128i p = _mm_madd_epi16(_mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(wr + (int64_t)k * cols + c))), xv);
                a[k] = _mm256_add_epi32(a[k], _mm256_inserti128_si256(_mm256_setzero_si256(), p, 0));
            }
            c += 8;
        }
        a[0] = _mm256_hadd_epi32(_mm256_hadd_epi32(a[0], a[1]), _mm256_hadd_epi32(a[2], a[3]));
        s = _mm_add_epi32(_mm256_castsi256_si128(a[0]), _mm256_extracti128_si256(a[0], 1));
        _mm_storeu_si128((__m128i *)sum, s);
        for (k = 0; k < 4; k++) {
            int32_t cc;
            uint32_t v = sum[k] + (bias ? (uint32_t)bias[r + k] : 0u);
            for (cc = c; cc < cols; cc++) v += (uint32_t)((int32_t)x[cc] * wr[(int64_t)k * cols + cc]);
            acc[r + k] = (int32_t)v;
        }
    }
#endif
    for (; r < rows; r++) {
        uint32_t v = bias ? (uint32_t)bias[r] : 0u;
        for (c = 0; c < cols; c++) v += (uint32_t)((int32_t)x[c] * w[(int64_t)r * cols + c]);
        acc[r] = (int32_t)v;
    }
}

/* ---- gemmlowp FixedPoint<int16_t> on int32 lanes (8 with AVX, else 4) (raw int16 values; see
 * the reference's scalar forms: w16, srdhm16, rdbpot16, srmpot16, ...). ---- */
#if defined(__AVX__)
#define LANES 8
#else
#define LANES 4 /* 16-byte vectors: SSE2, NEON */
#endif
typedef int32_t lstm_vi __attribute__((vector_size(4 * LANES)));
typedef uint32_t lstm_vu __attribute__((vector_size(4 * LANES)));
typedef int16_t lstm_vh __attribute__((vector_size(2 * LANES)));

RT_OPT_INLINE lstm_vi splat(int32_t x) {
    lstm_vi v = {0};
    int k;
    for (k = 0; k < LANES; k++) v[k] = x;
    return v;
}
/* m: lanes all ones or all zeros */
RT_OPT_INLINE lstm_vi sel(lstm_vi m, lstm_vi a, lstm_vi b) { return (m & a) | (~m & b); }
RT_OPT_INLINE lstm_vi w16v(lstm_vi x) { return (lstm_vi)((lstm_vu)x << 16) >> 16; }
RT_OPT_INLINE lstm_vi add16v(lstm_vi a, lstm_vi b) { return w16v(a + b); }
RT_OPT_INLINE lstm_vi sub16v(lstm_vi a, lstm_vi b) { return w16v(a - b); }
RT_OPT_INLINE lstm_vi sat16v(lstm_vi x) {
    x = sel(x < splat(-32768), splat(-32768), x);
    return sel(x > splat(32767), splat(32767), x);
}
static int32_t const16(int32_t c32) { return rt_rounding_divide_by_pot(c32, 16); }

RT_OPT_INLINE lstm_vi srdhm16v(lstm_vi a, lstm_vi b) {
    const lstm_vi ab = a * b, s = ab + sel(ab >= splat(0), splat(1 << 14), splat(1 - (1 << 14)));
    const lstm_vi q = (s + ((s >> 31) & splat(0x7FFF))) >> 15; /* s / 2^15, truncated */
    return sel((a == b) & (a == splat(-32768)), splat(32767), w16v(q));
}

/* rounding divide by 2^e (e >= 1), int32 lanes (rt_rounding_divide_by_pot) */
RT_OPT_INLINE lstm_vi rdbpot32v(lstm_vi x, int e) {
    const int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    const lstm_vi rem = x & splat(mask), thr = splat(mask >> 1) - (x < splat(0));
    return (x >> e) - (rem > thr);
}

RT_OPT_INLINE lstm_vi srmpot16v(lstm_vi x, int e) {
    if (e > 0) {
        const int32_t thr = (1 << (15 - e)) - 1;
        lstm_vi r = w16v((lstm_vi)((lstm_vu)x << e));
        r = sel(x > splat(thr), splat(32767), r);
        return sel(x < splat(-thr), splat(-32768), r);
    }
    return e < 0 ? w16v(rdbpot32v(x, -e)) : x;
}

/* exp(a) for a in [-1/4, 0) */
RT_OPT_INLINE lstm_vi exp_quarter16v(lstm_vi a) {
    const lstm_vi c = splat(const16(1895147668)), third = splat(const16(715827883));
    const lstm_vi x = add16v(a, splat(1 << 12)), x2 = srdhm16v(x, x), x3 = srdhm16v(x2, x), x4 = srdhm16v(x2, x2);
    const lstm_vi poly =
        srmpot16v(add16v(srdhm16v(add16v(srmpot16v(x4, -2), x3), third), x2), -1);
    return sat16v(c + srdhm16v(c, add16v(x, poly)));
}

/* exp(a) for a <= 0 in Q<ibits>, Q0.15 out */
RT_OPT_INLINE lstm_vi exp_neg16v(lstm_vi a, int ibits) {
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int fbits = 15 - ibits;
    const int32_t quarter = 1 << (fbits - 2);
    const lstm_vi amq = sub16v(a & splat(quarter - 1), splat(quarter));
    const lstm_vi remainder = sub16v(amq, a);
    lstm_vi result = exp_quarter16v(srmpot16v(amq, ibits));
    int k;
    for (k = -2; k <= 4; k++)
        if (ibits > k)
            result = sel((remainder & splat(1 << (fbits + k))) != splat(0),
                          srdhm16v(result, splat(const16(barrel[k + 2]))), result);
    if (ibits > 5) result = sel(a < splat(const16(-(1 << (36 - ibits)))), splat(0), result);
    return sel(a == splat(0), splat(32767), result);
}

/* 1/(1+a), or (1-a)/(1+a), for a in Q0.15 [0, 1) (Newton-Raphson) */
RT_OPT_INLINE lstm_vi nr_recip16v(lstm_vi a, int one_minus) {
    const lstm_vi s = a + splat(32767), t = s + sel(s >= splat(0), splat(1), splat(-1));
    const lstm_vi half_den = (t + ((t >> 31) & splat(1))) >> 1;
    lstm_vi x = add16v(splat(const16(1515870810)), srdhm16v(half_den, splat(const16(-1010580540))));
    int i;
    for (i = 0; i < 3; i++) {
        const lstm_vi one_minus_hdx = sub16v(splat(1 << 13), srdhm16v(half_den, x));
        x = add16v(x, srmpot16v(srdhm16v(x, one_minus_hdx), 2));
    }
    return one_minus ? srmpot16v(sub16v(x, splat(1 << 13)), 2) : srmpot16v(x, 1);
}

RT_OPT_INLINE lstm_vi logistic16v(lstm_vi a, int ibits) {
    const lstm_vi pos_in = a > splat(0), abs_in = sel(pos_in, a, w16v(-a));
    const lstm_vi pos = nr_recip16v(exp_neg16v(w16v(-abs_in), ibits), 0);
    const lstm_vi r = sel(pos_in, pos, sub16v(splat(32767), pos));
    return sel(a == splat(0), splat(const16(1 << 30)), r);
}

RT_OPT_INLINE lstm_vi tanh16v(lstm_vi a, int ibits) {
    const lstm_vi neg_in = a < splat(0);
    const lstm_vi t = nr_recip16v(exp_neg16v(sel(neg_in, a, w16v(-a)), ibits + 1), 1);
    return sel(a == splat(0), splat(0), sel(neg_in, w16v(-t), t));
}

RT_OPT_INLINE lstm_vi load_i16(const int16_t *p) {
    lstm_vh h;
    memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, lstm_vi);
}
RT_OPT_INLINE void store_i16(int16_t *p, lstm_vi v) {
    const lstm_vh h = __builtin_convertvector(v, lstm_vh);
    memcpy(p, &h, sizeof h);
}

/* g[0..n8): the gate activations in place (sigmoid, else tanh), Q3.12 in, Q0.15 out. */
static void activate_gate(int16_t *g, int32_t n8, int sigmoid) {
    int32_t i;
    if (sigmoid)
        for (i = 0; i < n8; i += LANES) store_i16(g + i, logistic16v(load_i16(g + i), 3));
    else
        for (i = 0; i < n8; i += LANES) store_i16(g + i, tanh16v(load_i16(g + i), 3));
}

/* gate[r] = sat16(requant(acc[r]) + add[r]) for r < n, zeros up to n8. */
static void requant_gate(const int32_t *acc, int32_t mult, int32_t shift, const int16_t *add, int32_t n, int32_t n8,
                         int16_t *gate) {
    int32_t r;
    for (r = 0; r < n; r++) {
        int32_t v = rq_double(acc[r], mult, shift) + (add ? add[r] : 0);
        gate[r] = (int16_t)(v < -32768 ? -32768 : (v > 32767 ? 32767 : v));
    }
    for (; r < n8; r++) gate[r] = 0;
}

/* One batch row through the whole sequence. */
static void run_row(const rt_lstm_q_params *p, const void *const *t, int32_t b, int8_t *h, int16_t *c, int8_t *out,
                    unsigned char *scratch) {
    const int32_t n = p->n_cell, n8 = ROUND8(n), no = p->n_output, T = p->max_time, B = p->n_batch;
    const int cifg = t[RT_LSTM_W_I] == NULL, c_ibits = 15 + p->cell_scale;
    int32_t *acc = (int32_t *)scratch;
    int16_t *gate = (int16_t *)(scratch + align32(4 * (int64_t)n8 * 4));
    int32_t *prod = (int32_t *)((unsigned char *)gate + align32(4 * (int64_t)n8 * 2));
    int8_t *hidden = (int8_t *)((unsigned char *)prod + align32((int64_t)n8 * 4));
    int32_t *pacc = (int32_t *)((unsigned char *)hidden + align32(n8));
    int16_t *gin = (int16_t *)((unsigned char *)pacc + align32((int64_t)ROUND8(no) * 4));
    const int8_t *in = (const int8_t *)t[RT_LSTM_INPUT];
    int32_t tt, gi, i;
#define ROW(tt) ((int64_t)(p->time_major ? (int64_t)(tt) * B + b : (int64_t)b * T + (tt)))
    /* Input-to-gate products of every step: sat16(requant(in_bias + W x)). */
    for (tt = 0; tt < T; tt++)
        for (gi = cifg; gi < 4; gi++) {
            const rt_lstm_q_gate *q = &p->gate[gi];
            matvec_s8((const int8_t *)t[RT_LSTM_W_I + gi], n, p->n_input, in + ROW(tt) * p->n_input, q->in_bias, acc);
            requant_gate(acc, q->in_mult, q->in_shift, NULL, n, n8, gin + ((int64_t)tt * 4 + gi) * n8);
        }
    for (tt = 0; tt < T; tt++) {
        const int16_t *gt = gin + (int64_t)tt * 4 * n8;
        int16_t *ig = gate, *fg = gate + n8, *cg = gate + 2 * n8, *og = gate + 3 * n8;
        for (gi = cifg; gi < 4; gi++) {
            const rt_lstm_q_gate *q = &p->gate[gi];
            matvec_s8((const int8_t *)t[RT_LSTM_R_I + gi], n, no, h, q->rec_bias, acc);
            requant_gate(acc, q->rec_mult, q->rec_shift, gt + gi * n8, n, n8, gate + gi * n8);
            activate_gate(gate + gi * n8, n8, gi != 2);
        }
        /* c = f .* c (>> 15) + i .* g (>> 30 + cell_scale), clipped; o .* tanh(c) */
        for (i = 0; i < n8; i += LANES) {
            lstm_vi cv, fv = load_i16(fg + i), iv, v, th;
            int16_t cbuf[LANES];
            int32_t k, m = n - i < LANES ? (n > i ? n - i : 0) : LANES; /* cells in this vector */
            memset(cbuf, 0, sizeof cbuf);
            memcpy(cbuf, c + i, (size_t)m * sizeof(int16_t));
            cv = load_i16(cbuf);
            iv = cifg ? splat(32767) - fv : load_i16(ig + i);
            v = w16v(rdbpot32v(fv * cv, 15)) + w16v(rdbpot32v(w16v(iv) * load_i16(cg + i), 30 + p->cell_scale));
            v = sat16v(v);
            if (p->cell_clip > 0) {
                v = sel(v < splat(-p->cell_clip), splat(-p->cell_clip), v);
                v = sel(v > splat(p->cell_clip), splat(p->cell_clip), v);
            }
            store_i16(cbuf, v);
            memcpy(c + i, cbuf, (size_t)m * sizeof(int16_t));
            th = tanh16v(v, c_ibits) * load_i16(og + i);
            for (k = 0; k < LANES; k++) prod[i + k] = th[k];
        }
        for (i = 0; i < n; i++) {
            int32_t v = rq_double(prod[i], p->hidden_mult, p->hidden_shift) + p->hidden_zp;
            hidden[i] = (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
        }
        if (t[RT_LSTM_PROJ_W]) {
            matvec_s8((const int8_t *)t[RT_LSTM_PROJ_W], no, n, hidden, p->proj_bias, pacc);
            for (i = 0; i < no; i++) {
                int32_t v = rq_double(pacc[i], p->proj_mult, p->proj_shift) + p->output_state_zp;
                v = v < -128 ? -128 : (v > 127 ? 127 : v);
                if (p->proj_clip > 0) v = v < -p->proj_clip ? -p->proj_clip : (v > p->proj_clip ? p->proj_clip : v);
                h[i] = (int8_t)v;
            }
        } else {
            memcpy(h, hidden, (size_t)no);
        }
        memcpy(out + ROW(tt) * no, h, (size_t)no);
    }
#undef ROW
}

void rt_opt_lstm_i8(const rt_lstm_q_params *p, const void *const *t, int8_t *output_state, int16_t *cell_state,
                    int8_t *out, void *scratch) {
    int32_t b;
    for (b = 0; b < p->n_batch; b++)
        run_row(p, t, b, output_state + (int64_t)b * p->n_output, cell_state + (int64_t)b * p->n_cell, out,
                (unsigned char *)scratch);
}

#else

void rt_opt_lstm_i8(const rt_lstm_q_params *p, const void *const *t, int8_t *output_state, int16_t *cell_state,
                    int8_t *out, void *scratch) {
    rt_unidirectional_sequence_lstm_i8(p, t, output_state, cell_state, out, scratch);
}

#endif
