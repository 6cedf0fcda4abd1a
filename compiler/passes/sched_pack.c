/* sched_pack.c - compile-time weight packing for the optimized kernels
 * (layouts in runtime/rt_opt.h). Used by pass schedule; depends on nothing
 * but <stdint.h>, so kernel tests can link it alone. */
#include "sched_pack.h"

#include <string.h>

#include "rt_opt.h"

#define NR RT_OPT_NR

/* Packs W[n][k] (row n = output channel, K contiguous; FC and OHWI conv
 * filters alike) into f32 panels [N/NR][K][NR]. */
void sched_pack_f32(const float *w, int32_t n, int32_t k, float *out) {
    int32_t np = (n + NR - 1) / NR;
    for (int32_t j = 0; j < np; j++)
        for (int32_t kk = 0; kk < k; kk++)
            for (int32_t c = 0; c < NR; c++) {
                int32_t col = j * NR + c;
                out[((int64_t)j * k + kk) * NR + c] = col < n ? w[(int64_t)col * k + kk] : 0.0f;
            }
}

/* Packs W[n][k] int8 into int8 panels [N/NR][K4/4][NR][4] (K4 = K rounded
 * up to 4, zero padded) for the byte-quad dot products of rt_opt_gemm_s8. */
void sched_pack_s8(const int8_t *w, int32_t n, int32_t k, int8_t *out) {
    int32_t np = (n + NR - 1) / NR, k4 = (k + 3) / 4 * 4;
    for (int32_t j = 0; j < np; j++)
        for (int32_t kk = 0; kk < k4; kk++)
            for (int32_t c = 0; c < NR; c++) {
                int32_t col = j * NR + c;
                int8_t v = (col < n && kk < k) ? w[(int64_t)col * k + kk] : 0;
                out[(int64_t)j * k4 * NR + (int64_t)(kk / 4) * NR * 4 + c * 4 + kk % 4] = v;
            }
}

/* Packs W[n][k] int8 for Helium's 1x1 convolution (runtime/cortex_m/helium/rt_mve_conv_s8.c):
 * groups of 4 channels (N rounded up to 4), each ceil(K/16) chunks of 4 x 16 bytes (the group's four
 * channels' 16 bytes of the chunk in turn); the pad = 16 ceil(K/16) - K zero bytes lead the first
 * chunk, so chunk j, lane l holds k index 16 j + l - pad. */
void sched_pack_mve_s8(const int8_t *w, int32_t n, int32_t k, int8_t *out) {
    int32_t ng = (n + 3) / 4, nc = (k + 15) / 16, pad = nc * 16 - k;
    for (int32_t gi = 0; gi < ng; gi++)
        for (int32_t j = 0; j < nc; j++)
            for (int32_t c = 0; c < 4; c++)
                for (int32_t l = 0; l < 16; l++) {
                    int32_t col = gi * 4 + c, kk = j * 16 + l - pad;
                    out[(((int64_t)gi * nc + j) * 4 + c) * 16 + l] =
                        col < n && kk >= 0 ? w[(int64_t)col * k + kk] : 0;
                }
}

void sched_pack_int4(const int8_t *w, int32_t n, int32_t k, uint8_t *out) {
    int64_t kp = ((int64_t)k + 63) / 64 * 64;
    memset(out, 0x88, (size_t)(n * kp / 2)); /* the padding: 8 in both nibbles, a zero weight */
    for (int32_t r = 0; r < n; r++)
        for (int64_t kk = 0; kk < k; kk++) {
            uint8_t *byte = out + r * kp / 2 + kk / 64 * 32 + kk % 32;
            int shift = (int)(kk % 64 / 32 * 4);
            *byte = (uint8_t)((*byte & ~(15 << shift)) | (((w[(int64_t)r * k + kk] + 8) & 15) << shift));
        }
}

/* f's fp16 bits when f (positive, finite) is exactly an fp16 value (normal or subnormal), else -1. */
static int32_t half_bits_exact(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    int32_t e = (int32_t)((b >> 23) & 255) - 127;
    uint32_t m = b & 0x7fffffu;
    if (b >> 31 || e > 15) return -1;
    if (e >= -14) return (m & 0x1fffu) ? -1 : (int32_t)(((uint32_t)(e + 15) << 10) | (m >> 13));
    if (e < -24) return -1;
    /* subnormal fp16: value = mh * 2^-24 with mh = (1.m) * 2^(e + 24) */
    uint32_t full = m | 0x800000u;
    int sh = 13 + (-14 - e);
    if (full & ((1u << sh) - 1)) return -1;
    return (int32_t)(full >> sh);
}

int64_t sched_pack_int4_blocks_bytes(int32_t n, int32_t k, int32_t block) {
    return ((int64_t)n + 7) / 8 * (k / block) * (4 * (int64_t)block + 16);
}

/* out NULL: only the check of the scales. */
int sched_pack_int4_blocks(const int8_t *w, const float *scales, int32_t n, int32_t k, int32_t block, uint8_t *out) {
    const int32_t nb = k / block;
    uint8_t *o = out;
    for (int32_t g = 0; g < (n + 7) / 8; g++)
        for (int32_t j = 0; j < nb; j++) {
            for (int32_t s = 0; s < block / 8; s++)
                for (int32_t r = 0; r < 8; r++)
                    for (int32_t i = 0; i < 4; i++) {
                        const int32_t row = g * 8 + r;
                        const int64_t kk = (int64_t)j * block + 8 * s + i;
                        const int lo = row < n ? w[(int64_t)row * k + kk] + 8 : 8;
                        const int hi = row < n ? w[(int64_t)row * k + kk + 4] + 8 : 8;
                        if (out) *o++ = (uint8_t)((lo & 15) | ((hi & 15) << 4));
                    }
            for (int32_t r = 0; r < 8; r++) {
                const int32_t row = g * 8 + r;
                const int32_t h = row < n ? half_bits_exact(scales[(int64_t)row * nb + j]) : 0;
                if (h < 0) return -1;
                if (out) *o++ = (uint8_t)(h & 255), *o++ = (uint8_t)(h >> 8);
            }
        }
    return 0;
}

/* bias'[n] = bias[n] + (in_offset - 128) * sum_k W[n][k], modulo 2^32 like
 * the kernels' int32 accumulators. */
void sched_fold_bias_s8(const int8_t *w, const int32_t *bias, int32_t in_offset, int32_t n, int32_t k, int32_t np,
                        int32_t *out) {
    for (int32_t col = 0; col < np; col++) {
        int64_t sum = 0;
        if (col < n)
            for (int32_t kk = 0; kk < k; kk++) sum += w[(int64_t)col * k + kk];
        uint32_t v = (uint32_t)(col < n && bias ? bias[col] : 0);
        v += (uint32_t)((int64_t)(in_offset - 128) * sum);
        out[col] = (int32_t)v;
    }
}


/* Packs W[n][k] 16-bit floats into panels [N/NR][K2][NR][2] (K2 = ceil(K/2),
 * zero padded): each column's pair of weights next to each other, for the
 * pairwise dot products of rt_opt_fc_half. */
void sched_pack_half(const uint16_t *w, int32_t n, int32_t k, uint16_t *out) {
    int32_t np = (n + NR - 1) / NR, k2 = (k + 1) / 2;
    for (int32_t j = 0; j < np; j++)
        for (int32_t kk = 0; kk < 2 * k2; kk++)
            for (int32_t c = 0; c < NR; c++) {
                int32_t col = j * NR + c;
                out[(((int64_t)j * k2 + kk / 2) * NR + c) * 2 + kk % 2] =
                    (col < n && kk < k) ? w[(int64_t)col * k + kk] : 0;
            }
}

/* TRANSPOSE_CONV filter W[oc][taps][ic] as the GEMM matrix whose column t * oc + o is W[o][t][:]
 * (rt_opt_transpose_conv_f32's per-tap columns), in f32 panels [N/NR][ic][NR], N = taps * oc. */
void sched_pack_tconv_f32(const float *w, int32_t oc, int32_t taps, int32_t ic, float *out) {
    int32_t n = taps * oc, np = (n + NR - 1) / NR;
    for (int32_t j = 0; j < np; j++)
        for (int32_t kk = 0; kk < ic; kk++)
            for (int32_t c = 0; c < NR; c++) {
                int32_t col = j * NR + c, t = col / oc, o = col % oc;
                out[((int64_t)j * ic + kk) * NR + c] = col < n ? w[((int64_t)o * taps + t) * ic + kk] : 0.0f;
            }
}

/* TRANSPOSE_CONV filter W[oc][taps][ic] int8 as [taps][ic][oc] (rt_opt_transpose_conv_i8). */
void sched_pack_tconv_s8(const int8_t *w, int32_t oc, int32_t taps, int32_t ic, int8_t *out) {
    for (int32_t o = 0; o < oc; o++)
        for (int32_t t = 0; t < taps; t++)
            for (int32_t c = 0; c < ic; c++) out[((int64_t)t * ic + c) * oc + o] = w[((int64_t)o * taps + t) * ic + c];
}
