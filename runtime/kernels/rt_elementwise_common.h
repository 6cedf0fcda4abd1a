/* rt_elementwise_common.h - shared pieces of the elementwise kernels
 * (ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, POW and the
 * unary math ops): numpy-style broadcasting and the parameter structs. */
#ifndef MPCC_RT_ELEMENTWISE_COMMON_H
#define MPCC_RT_ELEMENTWISE_COMMON_H

/* Broadcast of two inputs onto the output. The output is dense row-major
 * with `dims`; for output multi-index (i_0 .. i_{rank-1}) input k's element
 * is at sum_d i_d * stride_k[d], where stride_k[d] is 0 along dimensions
 * that input k broadcasts (size 1, or missing on the left). rank 0 is a
 * scalar (one element). */
typedef struct rt_bcast {
    int32_t rank;
    int32_t dims[RT_MAX_RANK];
    int32_t stride1[RT_MAX_RANK];
    int32_t stride2[RT_MAX_RANK];
} rt_bcast;

/* An odometer over the output, tracking both inputs' offsets. */
typedef struct rt_bcast_iter {
    int32_t idx[RT_MAX_RANK];
    int64_t off1, off2;
} rt_bcast_iter;

static inline int64_t rt_bcast_numel(const rt_bcast *b) {
    int64_t n = 1;
    int32_t d;
    for (d = 0; d < b->rank; d++) n *= b->dims[d];
    return n;
}

static inline void rt_bcast_begin(rt_bcast_iter *it) {
    int32_t d;
    for (d = 0; d < RT_MAX_RANK; d++) it->idx[d] = 0;
    it->off1 = 0;
    it->off2 = 0;
}

/* Advance to the next output element (row-major order). */
static inline void rt_bcast_next(const rt_bcast *b, rt_bcast_iter *it) {
    int32_t d;
    for (d = b->rank - 1; d >= 0; d--) {
        it->off1 += b->stride1[d];
        it->off2 += b->stride2[d];
        if (++it->idx[d] < b->dims[d]) return;
        it->off1 -= (int64_t)b->stride1[d] * b->dims[d];
        it->off2 -= (int64_t)b->stride2[d] * b->dims[d];
        it->idx[d] = 0;
    }
}

/* Parameters of a binary elementwise op. Float kernels use act_min/act_max;
 * int32 kernels use act_qmin/act_qmax; quantized kernels use all the rest
 * (TFLite's ArithmeticParams). Fields an op does not need are zero. */
typedef struct rt_binary_params {
    rt_bcast bc;
    float act_min, act_max;             /* float output clamp */
    int32_t act_qmin, act_qmax;         /* integer output clamp */
    int32_t in1_offset, in2_offset;     /* -zero_point of the inputs */
    int32_t out_offset;                 /* +zero_point of the output */
    int32_t left_shift;                 /* inputs are scaled by 2^left_shift first */
    int32_t in1_mult, in1_shift;        /* per-input rescale (Q31 multiplier, exponent) */
    int32_t in2_mult, in2_shift;
    int32_t out_mult, out_shift;        /* output rescale */
    int32_t pot;                        /* 1: int16 power-of-two-scale path (ADD/SUB) */
    /* int8 ADD/SUB, optimized kernels only (the reference ignores these): the whole requantization
     * as one float expression, clamp(a fq_a + b fq_b + fq_c) rounded to nearest, which pass schedule
     * compared with the integer arithmetic above for all 65536 input pairs (sched_float_rq.c).
     * fq_mode 0: integer path; 1: float, but a pair whose clamped value lies within 2^-14 of a
     * half-integer (|v - rint(v)| > RT_FQ_TIE) takes the integer path; 2: float for every pair. */
    float fq_a, fq_b, fq_c;
    int32_t fq_mode;
} rt_binary_params;

/* The float requantization's near-tie bound (fq_mode 1): 0.5 - 2^-14. */
#define RT_FQ_TIE 0.49993896484375f

/* Parameters of a unary elementwise op over n elements. */
typedef struct rt_unary_params {
    int64_t n;
    int32_t in_offset;                  /* -zero_point of the input */
    int32_t out_offset;                 /* +zero_point of the output */
    int32_t mult, shift;                /* requantization (Q31 multiplier, exponent) */
    int32_t rescale;                    /* 0: output scale == input scale (no requantization) */
    int32_t act_qmin, act_qmax;         /* output clamp (the dtype's range) */
    float in_scale, out_scale;          /* for float-domain quantized kernels */
    const int8_t *lut;                  /* int8 lookup table: out = lut[q + 128], or NULL */
    const int16_t *lut16;               /* int16: 513-entry interpolated table (rt_act_lut_i16), or NULL */
} rt_unary_params;

/* Parameters of QUANTIZE / DEQUANTIZE / CAST over n elements. in_type and
 * out_type are RT_* codes. Per-channel (channels > 0): element i belongs to
 * channel (i / inner) % channels and uses scales[c], zero_points[c]. */
typedef struct rt_quant_params {
    int64_t n;
    int32_t in_type, out_type;
    float scale;                        /* per-tensor scale of the quantized side */
    int32_t zero_point;                 /* and its zero point */
    int32_t channels, inner;
    const float *scales;
    const int32_t *zero_points;
    int32_t in_zp, out_zp, mult, shift; /* requantization between integer types */
    float inv_scale;                    /* float -> int8 per tensor, nonzero: mpcc's float quantization,
                                         * rt_quantize_float(x, inv_scale, zero_point) (QUANTIZE ops that
                                         * mpcc --precision int8 inserts), not TFLite's x / scale */
} rt_quant_params;

/* TFLite MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static inline int32_t rt_mul_q_smaller_than_one(int32_t x, int32_t mult, int32_t shift) {
    int32_t v = rt_sat_rounding_doubling_high_mul(x, mult);
    int e = -shift;
    if (e > 31 && e < 64) {
        /* TFLite reaches RoundingDivideByPOT with exponents of 32 and more (quantized DIV
         * of small values). That is undefined in C++, and on x86, where the interpreter
         * runs, it evaluates as: mask = low 32 bits of (1 << e) - 1 (all ones), the
         * 32-bit arithmetic shift taking its count mod 32. Written out here without UB so
         * the result stays bit-exact with TFLite. */
        int32_t threshold = -1 + (v < 0 ? 1 : 0);
        return (v >> (e & 31)) + (v > threshold ? 1 : 0);
    }
    return rt_rounding_divide_by_pot(v, e);
}

/* TFLite's quantized ADD/SUB of one element pair (ArithmeticParams path):
 * both inputs are shifted left by left_shift, rescaled to a common scale,
 * added (sign = +1) or subtracted (sign = -1), rescaled to the output. */
static inline int32_t rt_addsub_q(const rt_binary_params *p, int32_t a, int32_t b, int sign) {
    int32_t sa = (p->in1_offset + a) * ((int32_t)1 << p->left_shift);
    int32_t sb = (p->in2_offset + b) * ((int32_t)1 << p->left_shift);
    int32_t ra = rt_mul_q_smaller_than_one(sa, p->in1_mult, p->in1_shift);
    int32_t rb = rt_mul_q_smaller_than_one(sb, p->in2_mult, p->in2_shift);
    int32_t raw = sign > 0 ? ra + rb : ra - rb;
    int32_t r = rt_mul_q_smaller_than_one(raw, p->out_mult, p->out_shift) + p->out_offset;
    return rt_clamp_i32(r, p->act_qmin, p->act_qmax);
}

/* TFLite's int16 power-of-two-scale ADD/SUB (zero points 0): at most one
 * input is shifted right (rounding) to the output scale. */
static inline int32_t rt_addsub_pot_i16(const rt_binary_params *p, int32_t a, int32_t b, int sign) {
    int32_t ra = rt_rounding_divide_by_pot(a, -p->in1_shift);
    int32_t rb = rt_rounding_divide_by_pot(b, -p->in2_shift);
    return rt_clamp_i32(sign > 0 ? ra + rb : ra - rb, p->act_qmin, p->act_qmax);
}

/* int64 kernels reuse the int32 clamp; its extremes mean "no bound". */
static inline int64_t rt_clamp_i64_act(int64_t v, const rt_binary_params *p) {
    if (p->act_qmin != INT32_MIN && v < p->act_qmin) return p->act_qmin;
    if (p->act_qmax != INT32_MAX && v > p->act_qmax) return p->act_qmax;
    return v;
}

/* Wrapping int32 arithmetic (TFLite's int32 kernels wrap in practice); rt_wrap_add_i32 is in mpcc_rt.h. */
static inline int32_t rt_wrap_sub_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t rt_wrap_mul_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static inline int64_t rt_wrap_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t rt_wrap_sub_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t rt_wrap_mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* int32 x / y truncated, defined where TFLite fails or C is undefined: x / 0
 * is 0 and INT32_MIN / -1 wraps to INT32_MIN (DIV, FLOOR_DIV). */
static inline int32_t rt_div_trunc_i32(int32_t x, int32_t y) {
    if (y == 0) return 0;
    if (y == -1) return rt_wrap_sub_i32(0, x);
    return x / y;
}

#endif
