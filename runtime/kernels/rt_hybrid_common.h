/* rt_hybrid_common.h - run-time input quantization of TFLite's hybrid kernels
 * (float activations, int8 weights): one row of floats to int8 with its own
 * scale (and zero point when asymmetric), as the interpreter's
 * tensor_utils::BatchQuantizeFloats does per batch row. */
#ifndef MPCC_RT_HYBRID_COMMON_H
#define MPCC_RT_HYBRID_COMMON_H

/* Quantizes x[0..n) into q[0..n).
 *  symmetric:  scale = max|x| / 127, q = round(x / scale) in [-127, 127], *zp = 0;
 *  asymmetric: [min(x, 0), max(x, 0)] onto [-128, 127] with a nudged zero point.
 * An all-zero row gives q = 0, scale 1, zero point 0. The rounding is the
 * interpreter's own (see rt_hybrid_common.c). */
void rt_hybrid_quantize_row(const float *x, int32_t n, int32_t asymmetric, int8_t *q, float *scale, int32_t *zp);

#endif
