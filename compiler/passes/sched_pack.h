/* sched_pack.h - weight packing of pass schedule (prefix sched_). W is
 * [n][k]: row n = output channel, K contiguous (FC weights and OHWI conv
 * filters alike). Layouts: runtime/rt_opt.h. */
#ifndef MPCC_SCHED_PACK_H
#define MPCC_SCHED_PACK_H

#include <stdint.h>

/* f32 panels [N/16][K][16], N padded with zero columns. */
void sched_pack_f32(const float *w, int32_t n, int32_t k, float *out);
/* int8 panels [N/16][K4/4][16][4], K padded to a multiple of 4, N padded with zeros. */
void sched_pack_s8(const int8_t *w, int32_t n, int32_t k, int8_t *out);
/* Helium's 1x1 convolution: groups of 4 channels [N4/4][ceil(K/16)][4][16], K's zero padding leading. */
void sched_pack_mve_s8(const int8_t *w, int32_t n, int32_t k, int8_t *out);
/* 16-bit float panels [N/16][K2][16][2] (K2 = ceil(K/2), zero padded) for rt_opt_fc_half. */
void sched_pack_half(const uint16_t *w, int32_t n, int32_t k, uint16_t *out);
/* int4 values (int8 in [-8, 7]) as rt_opt_fc_hybrid_w4's nibble rows: n rows of ceil(k / 64) * 32 bytes. */
void sched_pack_int4(const int8_t *w, int32_t n, int32_t k, uint8_t *out);
/* Block-wise int4 (values int8 in [-8, 7], scales n x k / block f32) as rt_opt_fc_hybrid_w4_blockwise's groups
 * of 8 rows (rt_opt.h); block a multiple of 8 dividing k. Returns -1 (nothing usable written) when a scale is
 * not exactly an fp16 value, else 0 (out NULL: the check only). Size: sched_pack_int4_blocks_bytes. */
int64_t sched_pack_int4_blocks_bytes(int32_t n, int32_t k, int32_t block);
int sched_pack_int4_blocks(const int8_t *w, const float *scales, int32_t n, int32_t k, int32_t block, uint8_t *out);
/* TRANSPOSE_CONV filter [oc][taps][ic]: f32 as the GEMM matrix [taps * oc][ic] in f32 panels; int8 as
 * [taps][ic][oc] (runtime/rt_opt_tconv.c). */
void sched_pack_tconv_f32(const float *w, int32_t oc, int32_t taps, int32_t ic, float *out);
void sched_pack_tconv_s8(const int8_t *w, int32_t oc, int32_t taps, int32_t ic, int8_t *out);
/* bias'[c] = bias[c] + (in_offset - 128) * sum_k W[c][k] (mod 2^32) for c < np. */
void sched_fold_bias_s8(const int8_t *w, const int32_t *bias, int32_t in_offset, int32_t n, int32_t k, int32_t np,
                        int32_t *out);

#endif
