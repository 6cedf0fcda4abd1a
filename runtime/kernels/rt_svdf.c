/* rt_svdf.c - SVDF reference kernels (TFLite semantics, see rt_svdf.h). */
#include "mpcc_rt.h"

/* int32 addition that wraps around like TFLite's int32 accumulators do on
 * every target, without signed-overflow UB. */
static int32_t add_wrap(int32_t a, int32_t b) {
    uint32_t s = (uint32_t)a + (uint32_t)b;
    return s <= (uint32_t)INT32_MAX ? (int32_t)s : -(int32_t)(UINT32_MAX - s) - 1;
}

void rt_svdf_f32(const rt_svdf_params *p, const float *in, const float *weights_feature, const float *weights_time,
                 const float *bias, float *state, float *out, void *scratch) {
    float *acc = (float *)scratch;
    int32_t b, f, c, t, u, r, n = p->batches * p->num_filters * p->memory_size;
    for (c = 0; c + 1 < n; c++) state[c] = state[c + 1];
    for (b = 0; b < p->batches; b++)
        for (f = 0; f < p->num_filters; f++) {
            float dot = 0.0f;
            for (c = 0; c < p->input_size; c++)
                dot += weights_feature[f * p->input_size + c] * in[b * p->input_size + c];
            state[(b * p->num_filters + f) * p->memory_size + p->memory_size - 1] = dot;
        }
    for (b = 0; b < p->batches; b++)
        for (f = 0; f < p->num_filters; f++) {
            const float *s = state + (b * p->num_filters + f) * p->memory_size;
            float dot = 0.0f;
            for (t = 0; t < p->memory_size; t++) dot += weights_time[f * p->memory_size + t] * s[t];
            acc[b * p->num_filters + f] = dot;
        }
    for (b = 0; b < p->batches; b++)
        for (u = 0; u < p->num_units; u++) {
            float sum = 0.0f;
            for (r = 0; r < p->rank; r++) sum += acc[b * p->num_filters + u * p->rank + r];
            if (bias) sum += bias[u];
            out[b * p->num_units + u] = rt_clamp_f32(sum, p->act_min, p->act_max);
        }
}

/* The integer SVDF for an int16 state (TFLite; zero point 0) or an int8 state
 * with a zero point (TFLite Micro's 8-bit variant): one body, T the state's
 * and weights_time's type. TFLite's integer SVDF requires a RELU activation
 * but applies only the int8 clamp; TFLite Micro applies just the clamp. */
#define SVDF_INTEGER(NAME, T, TMIN, TMAX)                                                                          \
    void NAME(const rt_svdf_params *p, const int8_t *in, const int8_t *weights_feature, const T *weights_time,    \
              const int32_t *bias, T *state, int8_t *out, void *scratch) {                                         \
        int32_t *acc = (int32_t *)scratch;                                                                         \
        int32_t b, f, c, t, u, r, n = p->batches * p->num_filters * p->memory_size;                                \
        for (c = 0; c + 1 < n; c++) state[c] = state[c + 1];                                                       \
        for (b = 0; b < p->batches; b++)                                                                           \
            for (f = 0; f < p->num_filters; f++) {                                                                 \
                int32_t dot = 0;                                                                                   \
                for (c = 0; c < p->input_size; c++)                                                                \
                    dot += (int32_t)weights_feature[f * p->input_size + c] *                                       \
                           ((int32_t)in[b * p->input_size + c] - p->in_zp);                                        \
                /* The zero point goes in before the clamp to the state's range. */                                \
                dot = rt_mul_by_quantized_multiplier(dot, p->mult1, p->shift1) + p->state_zp;                       \
                state[(b * p->num_filters + f) * p->memory_size + p->memory_size - 1] =                            \
                    (T)rt_clamp_i32(dot, TMIN, TMAX);                                                              \
            }                                                                                                      \
        for (b = 0; b < p->batches; b++)                                                                           \
            for (f = 0; f < p->num_filters; f++) {                                                                 \
                const T *s = state + (b * p->num_filters + f) * p->memory_size;                                   \
                int32_t dot = 0;                                                                                   \
                for (t = 0; t < p->memory_size; t++)                                                               \
                    dot = add_wrap(dot, (int32_t)weights_time[f * p->memory_size + t] *                            \
                                            ((int32_t)s[t] - p->state_zp));                                        \
                acc[b * p->num_filters + f] = dot;                                                                 \
            }                                                                                                      \
        for (b = 0; b < p->batches; b++)                                                                           \
            for (u = 0; u < p->num_units; u++) {                                                                   \
                int32_t sum = 0;                                                                                   \
                for (r = 0; r < p->rank; r++) sum = add_wrap(sum, acc[b * p->num_filters + u * p->rank + r]);      \
                if (bias) sum = add_wrap(sum, bias[u]);                                                            \
                sum = rt_mul_by_quantized_multiplier(sum, p->mult2, p->shift2) + p->out_zp;                        \
                out[b * p->num_units + u] = (int8_t)rt_clamp_i32(sum, -128, 127);                                  \
            }                                                                                                      \
    }

SVDF_INTEGER(rt_svdf_i8, int16_t, -32768, 32767)
SVDF_INTEGER(rt_svdf_i8_s8, int8_t, -128, 127)
