/* test_lstm_kernels.c - the scheduled int8 UNIDIRECTIONAL_SEQUENCE_LSTM (runtime/rt_opt_lstm_s8.c)
 * against the reference kernel (rt_unidirectional_sequence_lstm_i8, TFLite's integer LSTM; the
 * reference itself is checked against the TFLite interpreter by tests/test_models.py and
 * tests/test_lstm_steps.py): 240 random shapes (cells 1..70, inputs 1..50, with and without CIFG and
 * projection, time-major or not, 1..3 batch rows, 1..6 steps), random requantization, zero points,
 * clips, cell scales 2^-15..2^-9 and random initial states, so the gates and the cell reach saturation
 * and every branch of the fixed-point sigmoid/tanh; three invocations each, the states carried:
 * outputs and both states identical. Built by `make unit` (portable vectors, ASan+UBSan) and by
 * tests/test_opt_kernels.py at -march=native. The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

#include "unit_check.h"

static int8_t *rnd_i8s(int64_t n) {
    int8_t *v = malloc((size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) v[i] = (int8_t)rnd_in(-128, 127);
    return v;
}

static int32_t *rnd_i32s(int64_t n, int32_t lim) {
    int32_t *v = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) v[i] = rnd_in(-lim, lim);
    return v;
}

static void rq(int32_t *mult, int32_t *shift, int lo, int hi) { rnd_requant(mult, shift, 1, lo, hi); }

static void test_lstm_i8(void) {
    char what[160], msg[200];
    for (int tc = 0; tc < 240; tc++) {
        rt_lstm_q_params p;
        memset(&p, 0, sizeof p);
        int cifg = tc % 4 == 1, proj = tc % 3 == 0;
        p.n_cell = tc % 10 == 0 ? 64 : rnd_in(1, 70);
        p.n_input = tc % 10 == 0 ? 40 : rnd_in(1, 50);
        p.n_output = proj ? rnd_in(1, 40) : p.n_cell;
        p.n_batch = rnd_in(1, 3), p.max_time = rnd_in(1, 6), p.time_major = tc % 2;
        p.cell_scale = rnd_in(-15, -9);
        p.cell_clip = tc % 5 == 2 ? rnd_in(1, 32767) : 0;
        p.proj_clip = proj && tc % 2 == 0 ? rnd_in(1, 127) : 0;
        rq(&p.hidden_mult, &p.hidden_shift, -24, -20);
        rq(&p.proj_mult, &p.proj_shift, -14, -7);
        p.hidden_zp = rnd_in(-20, 20), p.output_state_zp = rnd_in(-20, 20);
        int32_t n = p.n_cell, no = p.n_output, B = p.n_batch, T = p.max_time;
        const void *t[24] = {0};
        void *owned[24] = {0};
        int8_t *in = rnd_i8s((int64_t)B * T * p.n_input);
        t[RT_LSTM_INPUT] = in;
        for (int g = cifg; g < 4; g++) {
            rt_lstm_q_gate *q = &p.gate[g];
            owned[RT_LSTM_W_I + g] = rnd_i8s((int64_t)n * p.n_input);
            owned[RT_LSTM_R_I + g] = rnd_i8s((int64_t)n * no);
            owned[RT_LSTM_B_I + g] = rnd_i32s(n, 20000);
            q->in_bias = owned[RT_LSTM_B_I + g];
            q->rec_bias = rnd_i32s(n, 20000);
            owned[RT_LSTM_LN_I + g] = (void *)q->rec_bias; /* freed below; no layer norm */
            rq(&q->in_mult, &q->in_shift, -9, 0);
            rq(&q->rec_mult, &q->rec_shift, -9, 0);
            t[RT_LSTM_W_I + g] = owned[RT_LSTM_W_I + g], t[RT_LSTM_R_I + g] = owned[RT_LSTM_R_I + g];
            t[RT_LSTM_B_I + g] = owned[RT_LSTM_B_I + g];
        }
        if (proj) {
            owned[RT_LSTM_PROJ_W] = rnd_i8s((int64_t)no * n);
            owned[RT_LSTM_PROJ_B] = rnd_i32s(no, 20000);
            t[RT_LSTM_PROJ_W] = owned[RT_LSTM_PROJ_W], t[RT_LSTM_PROJ_B] = owned[RT_LSTM_PROJ_B];
            p.proj_bias = owned[RT_LSTM_PROJ_B];
        }
        int8_t *h_ref = rnd_i8s((int64_t)B * no), *h_opt = malloc((size_t)(B * no));
        int16_t *c_ref = malloc(sizeof(int16_t) * (size_t)(B * n)), *c_opt = malloc(sizeof(int16_t) * (size_t)(B * n));
        for (int32_t i = 0; i < B * n; i++) c_ref[i] = (int16_t)rnd_in(-32768, 32767);
        memcpy(h_opt, h_ref, (size_t)(B * no));
        memcpy(c_opt, c_ref, sizeof(int16_t) * (size_t)(B * n));
        int64_t out_n = (int64_t)B * T * no;
        int8_t *o_ref = malloc((size_t)out_n), *o_opt = malloc((size_t)out_n);
        void *s_ref = malloc((size_t)B * (size_t)n * 9), *s_opt = malloc((size_t)rt_opt_lstm_i8_scratch_bytes(&p));
        int ok = 1;
        for (int run = 0; run < 3 && ok; run++) {
            rt_unidirectional_sequence_lstm_i8(&p, t, h_ref, c_ref, o_ref, s_ref);
            rt_opt_lstm_i8(&p, t, h_opt, c_opt, o_opt, s_opt);
            int64_t diff = count_diff_i8(o_ref, o_opt, out_n) + count_diff_i8(h_ref, h_opt, (int64_t)B * no);
            int64_t cdiff = 0;
            for (int32_t i = 0; i < B * n; i++) cdiff += c_ref[i] != c_opt[i];
            ok = diff == 0 && cdiff == 0;
            snprintf(msg, sizeof msg, "run %d: %lld output/state bytes and %lld cell values differ", run,
                     (long long)diff, (long long)cdiff);
        }
        snprintf(what, sizeof what, "lstm int8 B%d T%d in%d cell%d out%d%s%s%s cell 2^%d clip %d/%d", B, T,
                 p.n_input, n, no, cifg ? " cifg" : "", proj ? " proj" : "", p.time_major ? " time-major" : "",
                 p.cell_scale, p.cell_clip, p.proj_clip);
        check(ok, what, ok ? "" : msg);
        for (int k = 0; k < 24; k++) free(owned[k]);
        free(in), free(h_ref), free(h_opt), free(c_ref), free(c_opt), free(o_ref), free(o_opt);
        free(s_ref), free(s_opt);
    }
}

int main(void) {
    unit_seed(20261129ULL, rt_opt_isa());
    (void)rnd_f; /* unit_check.h's, unused here */
    test_lstm_i8();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
