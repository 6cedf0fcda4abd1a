/* rt_softmax.c - SOFTMAX reference kernels (TFLite reference semantics). */
#include "mpcc_rt.h"

void rt_softmax_f32(const rt_softmax_params *p, const float *in, float *out) {
    int32_t i, c, d = p->depth;
    for (i = 0; i < p->outer; i++) {
        const float *x = in + (int64_t)i * d;
        float *y = out + (int64_t)i * d;
        float max = -3.40282347e+38f, sum = 0.0f;
        for (c = 0; c < d; c++) max = x[c] > max ? x[c] : max;
        for (c = 0; c < d; c++) {
            y[c] = expf((x[c] - max) * p->beta);
            sum += y[c];
        }
        for (c = 0; c < d; c++) y[c] = y[c] / sum;
    }
}

/* exp(beta * scale * diff) for one input difference, Q0.31; the caller
 * checks diff >= diff_min. The scaled difference is Q5.26. */
static int32_t softmax_exp_q0(const rt_softmax_params *p, int32_t diff) {
    int32_t scaled = rt_mul_by_qm_gt_one(diff, p->input_multiplier, p->input_left_shift);
    return rt_fp_exp_on_negative_values(scaled, 5);
}

/* RoundingDivideByPOT for the output shift, kept defined for every exponent
 * (TFLite asserts 0 <= exponent <= 31). Above 31 the exact quotient of an
 * int32 rounded to nearest is 0 (-1 only for INT32_MIN / 2^32, half away
 * from zero); below 0 (int16 output when the sum wrapped to exactly 0) a
 * saturating left shift. Only int16 output reaches this outside 0..31: int8
 * rows with an exponent above 31 take softmax_row_table. */
static int32_t softmax_round_shift(int32_t x, int exponent) {
    if (exponent < 0) return rt_fp_mul_pot(x, -exponent);
    if (exponent < 32) return rt_rounding_divide_by_pot(x, exponent);
    return exponent == 32 && x == INT32_MIN ? -1 : 0;
}

/* int8 -> int8 rows whose sum of exps reaches 512 (possible from 512 classes
 * on): the reference kernel's output shift exceeds 31 and it stops on an
 * assert, so the interpreter's answer is its optimized kernel's, reproduced
 * here: a float exp table indexed by max - x, a sequential float sum,
 * round(exp / (sum * out_scale)) + zero point (-128), clamped. */
static void softmax_row_table(const rt_softmax_params *p, const int8_t *x, int32_t max, int8_t *out) {
    int32_t c;
    float sum = 0.0f, inv;
    for (c = 0; c < p->depth; c++) sum += p->exp_table[max - x[c]];
    inv = 1.0f / (sum * p->out_scale);
    for (c = 0; c < p->depth; c++)
        out[c] = (int8_t)rt_clamp_i32((int32_t)roundf(p->exp_table[max - x[c]] * inv) - 128, -128, 127);
}

/* One row of the quantized softmax (gemmlowp fixed-point algorithm) into an
 * int8 (out_bits 8) or int16 (out_bits 16) row; range = output type's
 * [min, max], min also being the output zero point. */
static void softmax_row_q(const rt_softmax_params *p, const int8_t *x, int out_bits, const int32_t *range,
                          const int32_t *exp_q0, void *out) {
    int32_t c, d = p->depth, max = -128, sum = 0;
    int num_bits_over_unit, exponent;
    int32_t scale;
    for (c = 0; c < d; c++) max = x[c] > max ? x[c] : max;
    for (c = 0; c < d; c++) {
        int32_t diff = (int32_t)x[c] - max;
        /* Accumulate in Q12.19; past 4096 the sum wraps, as in TFLite's reference kernel. */
        if (diff >= p->diff_min) sum = rt_fp_add(sum, rt_fp_rescale(exp_q0[-diff], 0, 12));
    }
    scale = rt_fp_reciprocal(sum, 12, &num_bits_over_unit);
    exponent = num_bits_over_unit + 31 - out_bits;
    if (out_bits == 8 && exponent > 31 && p->exp_table) {
        softmax_row_table(p, x, max, (int8_t *)out);
        return;
    }
    for (c = 0; c < d; c++) {
        int32_t diff = (int32_t)x[c] - max, v;
        if (diff >= p->diff_min) {
            v = softmax_round_shift(rt_fp_mul(scale, exp_q0[-diff]), exponent) + range[0];
            v = rt_clamp_i32(v, range[0], range[1]);
        } else {
            v = range[0];
        }
        if (out_bits == 8) ((int8_t *)out)[c] = (int8_t)v;
        else ((int16_t *)out)[c] = (int16_t)v;
    }
}

/* An int8 difference x - max lies in [-255, 0], so the 256 possible
 * exponentials are computed once per call (the same function, a table). */
void rt_softmax_exp_table_q0(const rt_softmax_params *p, int32_t *exp_q0) {
    int32_t d;
    for (d = 0; d < 256; d++) exp_q0[d] = -d >= p->diff_min ? softmax_exp_q0(p, -d) : 0;
}

static void softmax_rows_q(const rt_softmax_params *p, const int8_t *in, int out_bits, void *out) {
    int32_t i, range[2] = {out_bits == 8 ? -128 : -32768, out_bits == 8 ? 127 : 32767}, table[256];
    const int32_t *exp_q0 = p->exp_q0;
    if (!exp_q0) rt_softmax_exp_table_q0(p, table), exp_q0 = table;
    for (i = 0; i < p->outer; i++)
        softmax_row_q(p, in + (int64_t)i * p->depth, out_bits, range, exp_q0,
                      out_bits == 8 ? (void *)((int8_t *)out + (int64_t)i * p->depth)
                                    : (void *)((int16_t *)out + (int64_t)i * p->depth));
}

void rt_softmax_i8(const rt_softmax_params *p, const int8_t *in, int8_t *out) { softmax_rows_q(p, in, 8, out); }

void rt_softmax_i8_i16(const rt_softmax_params *p, const int8_t *in, int16_t *out) { softmax_rows_q(p, in, 16, out); }

void rt_softmax_i16(const rt_softmax_params *p, const int16_t *in, int16_t *out) {
    int32_t i, c, d = p->depth;
    for (i = 0; i < p->outer; i++) {
        const int16_t *x = in + (int64_t)i * d;
        int16_t *y = out + (int64_t)i * d;
        int32_t max = -32768, sum = 0, shifted, sym, right_shift;
        int headroom_plus_one;
        int16_t recip;
        int64_t round;
        for (c = 0; c < d; c++) max = x[c] > max ? x[c] : max;
        /* exp(x - max) in Q0.15, cached in the output row. */
        for (c = 0; c < d; c++) {
            int32_t scaled = rt_mul_by_quantized_multiplier((int32_t)x[c] - max, p->input_multiplier,
                                                            p->input_left_shift);
            /* [-65535, 0] -> [-32768, 32767] */
            y[c] = rt_act_lut_lookup_i16((int16_t)rt_clamp_i32(scaled + 32767, -32768, 32767), p->exp_lut);
            sum += y[c];
        }
        /* 1/sum through the 1/(1+x) table, x = normalized sum - 1 */
        headroom_plus_one = rt_clz32((uint32_t)sum);
        shifted = (int32_t)((((int64_t)sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
        sym = shifted - ((1 << 15) + (1 << 16));
        recip = rt_act_lut_lookup_i16((int16_t)rt_clamp_i32(sym, -32768, 32767), p->recip_lut);
        right_shift = 31 - headroom_plus_one;
        round = (int64_t)1 << (right_shift - 1);
        for (c = 0; c < d; c++) {
            int32_t r = (int32_t)(((int64_t)y[c] * (int64_t)recip + round) >> right_shift);
            y[c] = (int16_t)rt_clamp_i32(r, 0, 32767);
        }
    }
}
