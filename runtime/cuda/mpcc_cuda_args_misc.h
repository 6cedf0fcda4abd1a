/* mpcc_cuda_args_misc.h - the argument structs of mpcc_cuda_misc.cuh (ABS int32, REDUCE_PROD, EMBEDDING_LOOKUP,
 * SHAPE, L2_NORMALIZATION / LOG_SOFTMAX int8). Included by mpcc_cuda_args.h: the same plain C layout in host C
 * (the NVRTC JIT path), host C++ and device code. */
#ifndef MPCC_CUDA_ARGS_MISC_H
#define MPCC_CUDA_ARGS_MISC_H

/* ABS int32 (rt_abs_i32, negation wrapping: INT32_MIN stays) and SHAPE (a byte copy of the
 * compiler's constant: rt_shape_* run at compile time). op: 0 ABS, 1 copy n bytes. */
typedef struct mpcc_misc_elem_args {
    const void *in;
    void *out;
    long long n;
    int op;
} mpcc_misc_elem_args;

/* REDUCE_PROD f32 / int32 (rt_reduce_prod_*): out = 1, then out = in * out over the reduced
 * axes in row-major order (int32 wrapping). dims / reduced as mpcc_mean_args. */
typedef struct mpcc_reduce_prod_args {
    const void *in;
    void *out;
    int i32, rank, out_count, reduce_count;
    int dims[MPCC_MAX_RANK], reduced[MPCC_MAX_RANK];
} mpcc_reduce_prod_args;

/* EMBEDDING_LOOKUP (rt_embedding_lookup): output byte e is byte e % row_bytes of row ids[e / row_bytes]
 * of value, zero when the id is outside [0, rows). hybrid (rt_embedding_lookup_i8_f32): value is int8,
 * out f32, and element e (total and row_bytes then count elements) is value * scales[id] (or * scale
 * when scales is NULL). */
typedef struct mpcc_embedding_args {
    const int32_t *ids;
    const unsigned char *value;
    unsigned char *out;
    long long total, row_bytes;
    int rows, hybrid;
    const float *scales;
    float scale;
} mpcc_embedding_args;

/* L2_NORMALIZATION int8 (rt_l2_normalization_i8) and LOG_SOFTMAX int8 (rt_log_softmax_i8), one
 * thread per row of `depth` elements. exp_q12[d]: the reference's exp term of input difference -d
 * (Q12.19, made by the compiler with the reference's own functions; 0 below diff_min). */
typedef struct mpcc_rows_s8_args {
    const int8_t *in;
    int8_t *out;
    const int32_t *exp_q12;             /* [256], LOG_SOFTMAX only */
    int rows, depth;
    int32_t in_zp;                      /* L2_NORMALIZATION */
    int32_t in_mult, in_shift, rev_mult, rev_rshift, diff_min; /* LOG_SOFTMAX */
} mpcc_rows_s8_args;

#endif
