/* mpcc_cuda_args_rnn.h - the argument structs of mpcc_cuda_rnn.cuh (UNIDIRECTIONAL_SEQUENCE_LSTM and
 * SVDF, f32 and int8). Included by mpcc_cuda_args.h: the same plain C layout in host C (the NVRTC JIT
 * path), host C++ and device code. */
#ifndef MPCC_CUDA_ARGS_RNN_H
#define MPCC_CUDA_ARGS_RNN_H

/* One LSTM gate (input, forget, cell, output). w == NULL: the input gate of a CIFG LSTM (absent).
 * f32: float pointers; int8: int8 w / r, int16 peep / ln, int32 bias (layer norm only: the
 * matmul biases are folded into in_bias, as rt_lstm_q_gate). */
typedef struct mpcc_lstm_gate_args {
    const void *w, *r;         /* [n_cell, n_input], [n_cell, n_output] */
    const void *peep, *ln, *bias; /* [n_cell] each, or NULL */
    const int32_t *in_bias, *rec_bias; /* int8: rt_lstm_q_gate's folded biases [n_cell] */
    int32_t in_mult, in_shift, rec_mult, rec_shift, cell_mult, cell_shift, ln_mult, ln_shift, variance_guard;
} mpcc_lstm_gate_args;

/* UNIDIRECTIONAL_SEQUENCE_LSTM (rt_unidirectional_sequence_lstm_f32 / _i8): block b runs batch row b
 * through every time step; h / c are the persistent state tensors, updated in place. scratch: f32
 * 5 * n_batch * n_cell floats (row b's at 5 * n_cell * b); int8 4 * n_batch * n_cell int16 (row b's
 * at 4 * n_cell * b) followed by n_batch * n_cell int8 (the hidden vector). */
typedef struct mpcc_lstm_args {
    const void *in;
    void *out, *h, *c, *scratch;
    const void *proj_w, *proj_b;  /* [n_output, n_cell], [n_output] (f32; int8 uses proj_bias_q), or NULL */
    mpcc_lstm_gate_args gate[4];
    int n_batch, max_time, n_input, n_cell, n_output, time_major;
    int act;                      /* RT_LSTM_ACT_* (f32) */
    float cell_clip, proj_clip;   /* f32: 0 = none */
    int32_t cell_scale, cell_clip_q, proj_clip_q; /* int8: rt_lstm_q_params */
    int32_t hidden_mult, hidden_shift, hidden_zp, proj_mult, proj_shift, output_state_zp;
    const int32_t *proj_bias_q;
} mpcc_lstm_args;

/* SVDF (rt_svdf_f32 / rt_svdf_i8 / rt_svdf_i8_s8): block b runs batch row b; type 0 f32, 1 int8 with
 * int16 weights_time and state, 2 int8 with int8 ones (TFLite Micro's). state is persistent.
 * scratch: batches * num_filters floats / int32. */
typedef struct mpcc_svdf_args {
    const void *in, *wf, *wt, *bias;
    void *state, *out, *scratch;
    int batches, input_size, num_filters, num_units, rank, memory_size, type;
    float act_min, act_max;
    int32_t in_zp, out_zp, state_zp, mult1, shift1, mult2, shift2;
} mpcc_svdf_args;

#endif
