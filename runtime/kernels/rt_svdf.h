/* rt_svdf.h - SVDF kernels (TFLite reference_ops::EvalFloatSVDF /
 * EvalIntegerSVDF, TFLite Micro's EvalIntegerSvdfReference<int8_t>). */
#ifndef MPCC_RT_SVDF_H
#define MPCC_RT_SVDF_H

/* One step of a rank-`rank` SVDF over `memory_size` time steps.
 * state [batches, num_filters, memory_size] is persistent: each call shifts it
 * left by one element, writes the feature matmul (in . weights_feature^T) into
 * each filter's last slot, then out[b][u] = act(bias[u] + sum over the rank
 * filters f of unit u of sum_t weights_time[f][t] * state[b][f][t]). */
typedef struct rt_svdf_params {
    int32_t batches, input_size, num_filters, num_units, rank, memory_size;
    float act_min, act_max;                     /* float kernel */
    int32_t in_zp, out_zp, state_zp;            /* int8 kernels (state_zp: 8-bit state only) */
    int32_t mult1, shift1;                      /* in * weights_feature -> state (int16) */
    int32_t mult2, shift2;                      /* state * weights_time -> out (int8) */
} rt_svdf_params;

/* scratch: batches * num_filters floats. */
void rt_svdf_f32(const rt_svdf_params *p, const float *in, const float *weights_feature, const float *weights_time,
                 const float *bias, float *state, float *out, void *scratch);
/* int8 input/output, int8 weights_feature, int16 weights_time and state,
 * int32 bias. scratch: batches * (num_filters + num_units) int32. */
void rt_svdf_i8(const rt_svdf_params *p, const int8_t *in, const int8_t *weights_feature,
                const int16_t *weights_time, const int32_t *bias, int16_t *state, int8_t *out, void *scratch);
/* TFLite Micro's 8-bit variant: int8 weights_time and int8 state with zero
 * point state_zp (added before the state's clamp, subtracted in the time
 * product). Same scratch. */
void rt_svdf_i8_s8(const rt_svdf_params *p, const int8_t *in, const int8_t *weights_feature,
                   const int8_t *weights_time, const int32_t *bias, int8_t *state, int8_t *out, void *scratch);

#endif
