/* rt_unidirectional_sequence_lstm.h - UNIDIRECTIONAL_SEQUENCE_LSTM: float
 * (TFLite's lstm_eval EvalFloat) and fully quantized int8 (EvalInteger8x8_16);
 * optional CIFG, peephole, layer norm and projection; cell/projection
 * clipping; time-major or batch-major. */
#ifndef MPCC_RT_UNIDIRECTIONAL_SEQUENCE_LSTM_H
#define MPCC_RT_UNIDIRECTIONAL_SEQUENCE_LSTM_H

/* The gate activation of TFLite's ApplyActivationToVector. */
enum { RT_LSTM_ACT_NONE = 0, RT_LSTM_ACT_RELU, RT_LSTM_ACT_RELU_N1_TO_1, RT_LSTM_ACT_RELU6, RT_LSTM_ACT_TANH };

/* Input slots of t[] (TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM input order). */
enum {
    RT_LSTM_INPUT = 0, RT_LSTM_W_I = 1, RT_LSTM_W_F, RT_LSTM_W_C, RT_LSTM_W_O, RT_LSTM_R_I, RT_LSTM_R_F, RT_LSTM_R_C,
    RT_LSTM_R_O, RT_LSTM_P_I, RT_LSTM_P_F, RT_LSTM_P_O, RT_LSTM_B_I, RT_LSTM_B_F, RT_LSTM_B_C, RT_LSTM_B_O,
    RT_LSTM_PROJ_W, RT_LSTM_PROJ_B, RT_LSTM_LN_I = 20, RT_LSTM_LN_F, RT_LSTM_LN_C, RT_LSTM_LN_O
};

typedef struct rt_lstm_params {
    int32_t n_batch, max_time, n_input, n_cell, n_output;
    int32_t time_major;         /* input [T, B, I] (else [B, T, I]) */
    int32_t act;                /* RT_LSTM_ACT_*: cell input and output activation */
    float cell_clip, proj_clip; /* 0: no clipping */
} rt_lstm_params;

/* Integer (8x8->16) LSTM, TFLite lstm_eval EvalInteger8x8_16: int8 input,
 * weights and output state, int16 cell state (power-of-two scale), int16
 * peephole and layer-norm weights, int32 biases. Gate pre-activations are
 * int16 Q3.12 (with layer norm: the matmul sums at the model's intermediate
 * scales, normalized to Q3.12 by PortableApplyLayerNorm); multipliers are
 * (mult, shift) pairs as TFLite's QuantizeMultiplier makes them. */
typedef struct rt_lstm_q_gate {
    int32_t in_mult, in_shift;     /* effective input-to-gate scale */
    int32_t rec_mult, rec_shift;   /* effective recurrent-to-gate scale */
    int32_t cell_mult, cell_shift; /* effective cell-to-gate (peephole) scale */
    int32_t ln_mult, ln_shift;     /* layer-norm coefficient scale */
    int32_t variance_guard;        /* layer norm: variance used when it is < 1 */
    const int32_t *in_bias;        /* [n_cell]: gate bias (none with layer norm) - input_zp * row sums */
    const int32_t *rec_bias;       /* [n_cell]: -output_state_zp * row sums */
} rt_lstm_q_gate;

typedef struct rt_lstm_q_params {
    int32_t n_batch, max_time, n_input, n_cell, n_output;
    int32_t time_major;
    int32_t cell_scale;                 /* log2 of the cell state scale */
    int32_t cell_clip, proj_clip;       /* quantized clips, 0: none */
    int32_t hidden_mult, hidden_shift;  /* o .* tanh(c) to the hidden intermediate */
    int32_t hidden_zp;                  /* added to it: the hidden intermediate's zero point,
                                           negated with a projection (TFLite's convention) */
    int32_t proj_mult, proj_shift;      /* projection to the output state */
    int32_t output_state_zp;
    const int32_t *proj_bias;           /* [n_output]: bias + zero point * row sums, or NULL */
    rt_lstm_q_gate gate[4];             /* input, forget, cell, output */
} rt_lstm_q_params;

/* t[k] is TFLite input k (0..23) or NULL when absent; inputs 18 and 19 (the
 * states) are passed separately as writable output_state [B, n_output] and
 * cell_state [B, n_cell], updated in place. out: [T, B, n_output] or
 * [B, T, n_output]. scratch: 5 * n_batch * n_cell floats. */
/* The float LSTM with its two primitives passed in: the reference kernel
 * runs it with plain loops, the optimized one (runtime/rt_opt_lstm.c) with
 * vectorizable ones. mat_vec: gate[b][r] += m[r] . v[b]; activate: x[0..n)
 * through the sigmoid (sigmoid != 0) or the cell activation `act`. */
typedef struct rt_lstm_f32_ops {
    void (*mat_vec)(const float *m, int32_t rows, int32_t cols, const float *v, int32_t n_batch, float *gate);
    void (*activate)(float *x, int32_t n, int32_t act, int sigmoid);
} rt_lstm_f32_ops;
void rt_lstm_f32_run(const rt_lstm_params *p, const rt_lstm_f32_ops *ops, const float *const *t, float *output_state,
                     float *cell_state, float *out, float *scratch);

void rt_unidirectional_sequence_lstm_f32(const rt_lstm_params *p, const float *const *t, float *output_state,
                                         float *cell_state, float *out, float *scratch);

/* Same input convention as the float kernel (t[k] typed per TFLite:
 * int8 weights, int16 peephole/layer-norm weights, int32 biases).
 * output_state int8 [B, n_output], cell_state int16 [B, n_cell].
 * scratch: 4 * n_batch * n_cell int16 followed by n_batch * n_cell int8. */
void rt_unidirectional_sequence_lstm_i8(const rt_lstm_q_params *p, const void *const *t, int8_t *output_state,
                                        int16_t *cell_state, int8_t *out, void *scratch);

#endif
