/* sched_float_rq.c - int8 ADD/SUB requantization in float, proven exact by
 * enumeration.
 *
 * TFLite's quantized ADD rescales both operands to a common scale in fixed
 * point (a doubling high multiply and a rounding shift each), adds, and
 * rescales the sum the same way: three 32x32->64-bit products an element,
 * ~30 vector operations for 16 lanes. The same int8 usually comes out of one
 * float expression, v = a A + b B + C (two FMAs), clamped and rounded to
 * nearest: the two differ only where the true value lies within about 2^-16
 * of a half-integer, where the float's rounding error or TFLite's double
 * rounding can tip it. An int8 pair has only 65536 values, so instead of
 * bounding that error on paper the pass evaluates both forms on every pair,
 * with the exact float operations the kernel performs (fmaf, max, min,
 * round-to-nearest), and keeps the float form only if it agrees everywhere,
 * or everywhere outside a band of 2^-14 around the half-integers that the
 * kernel tests for and hands to the integer path. Results stay bit-exact. */
#include "sched_float_rq.h"

#include <math.h>

#include "kernels/rt_elementwise_common.h"

/* The kernel's float form for one pair: the clamped value before rounding. */
static float fq_value(const rt_binary_params *p, int32_t a, int32_t b) {
    float v = fmaf((float)b, p->fq_b, fmaf((float)a, p->fq_a, p->fq_c));
    v = fmaxf(v, (float)p->act_qmin);
    return fminf(v, (float)p->act_qmax);
}

/* Real value of one unit of an operand, in output units, as TFLite's integers scale it:
 * 2^left_shift, times m 2^(shift - 31) for the operand, times out_m 2^(out_shift - 31). */
static double unit_scale(const rt_binary_params *p, int32_t m, int32_t shift) {
    return ldexp((double)m, p->left_shift + shift - 31) * ldexp((double)p->out_mult, p->out_shift - 31);
}

int sched_float_rq(rt_binary_params *p, int sign, int *near_ties) {
    *near_ties = 0;
    p->fq_mode = 0;
    if (p->pot || p->act_qmin < -128 || p->act_qmax > 127 || p->act_qmin > p->act_qmax) return 0;
    const double sa = unit_scale(p, p->in1_mult, p->in1_shift), sb = sign * unit_scale(p, p->in2_mult, p->in2_shift);
    p->fq_a = (float)sa;
    p->fq_b = (float)sb;
    p->fq_c = (float)(p->in1_offset * sa + p->in2_offset * sb + p->out_offset);
    int ties = 0, missed = 0, wrong = 0;
    for (int32_t a = -128; a < 128; a++)
        for (int32_t b = -128; b < 128; b++) {
            const float v = fq_value(p, a, b), r = nearbyintf(v);
            const int tie = fabsf(v - r) > RT_FQ_TIE;
            ties += tie;
            if ((int32_t)r != rt_addsub_q(p, a, b, sign)) {
                wrong++;
                missed += !tie;
            }
        }
    *near_ties = ties;
    p->fq_mode = wrong == 0 ? 2 : missed == 0 && ties <= 655 ? 1 : 0;
    if (!p->fq_mode) p->fq_a = p->fq_b = p->fq_c = 0.0f;
    return p->fq_mode;
}
