/* rt_softmax.h - SOFTMAX kernels (over the last dimension). */
#ifndef MPCC_RT_SOFTMAX_H
#define MPCC_RT_SOFTMAX_H

#include "rt_activation_common.h"

typedef struct rt_softmax_params {
    int32_t outer, depth;        /* rows, and elements per row (last dim) */
    float beta;                  /* float kernel */
    int32_t input_multiplier;    /* int8 input: beta*scale as Q31 multiplier (> 1) */
    int32_t input_left_shift;    /*   and its left shift; int16: signed shift */
    int32_t diff_min;            /* int8 input: smallest input difference that counts */
    const int16_t *exp_lut;      /* int16: 513-entry exp() table on [-10, 0] */
    const int16_t *recip_lut;    /* int16: 513-entry 1/(1+x) table on [0, 1] */
    const float *exp_table;      /* int8 -> int8, depth >= 512: exp(-scale*beta*v), v = 0..255 */
    float out_scale;             /*   and the output scale (rows whose sum of exps reaches 512) */
    const int32_t *exp_q0;       /* int8 input: exp of each difference -d, d = 0..255, Q0.31, 0 below diff_min
                                  * (rt_softmax_exp_table_q0, made at compile time); NULL: made per call */
} rt_softmax_params;

/* The 256 exponentials an int8 softmax needs (from input_multiplier, input_left_shift, diff_min). */
void rt_softmax_exp_table_q0(const rt_softmax_params *p, int32_t *exp_q0);

void rt_softmax_f32(const rt_softmax_params *p, const float *in, float *out);
/* int8 -> int8 (out scale 1/256, zero point -128) */
void rt_softmax_i8(const rt_softmax_params *p, const int8_t *in, int8_t *out);
/* int8 -> int16 (out scale 1/65536, zero point -32768) */
void rt_softmax_i8_i16(const rt_softmax_params *p, const int8_t *in, int16_t *out);
/* int16 -> int16 (zero points 0, out scale 1/32768) */
void rt_softmax_i16(const rt_softmax_params *p, const int16_t *in, int16_t *out);

#endif
