/* rt_opt_fc_hybrid_blk.c - hybrid FULLY_CONNECTED on block-wise INT4 weights (TFLite BlockwiseQuantization:
 * litert-torch's dynamic_int4_block32/128 decoders), bit-identical to the reference
 * rt_fully_connected_hybrid_blockwise. The weights are rt_opt_fc_hybrid_w4's packed nibble rows (rt_opt.h:
 * u = w + 8, each 64-value step 32 bytes, byte j holding values j and 32 + j): the low nibbles of a step are
 * one 32-value chunk and the high nibbles the next, so a block of 32, 64, 128 ... values is a whole number
 * of chunks.
 *
 * Per block the int32 sum d = sum w * (q - zp) is exact: with u = w + 8, sum u * (q - zp) - 8 * sum (q - zp),
 * and u * (q - zp) is taken as vpmaddubsw(u, q) - vpmaddubsw(u, zp) (a pair of products at most
 * 2 * 15 * 128, the difference of two at most 7680: 16 bits). The input part 8 * sum (q - zp) is computed
 * once per input row and block. Four weight rows at a time; their four block sums are reduced together
 * (vphaddd) and the float steps are the reference's, in its order: acc += (float)d * scale (the product
 * rounded: no fused multiply-add), out = act(bias + acc * row scale). With several input rows (prefill) the
 * four weight rows (4 x in_depth / 2 bytes) stay in L1 while every input row passes over them. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define KPAD64(k) (((int64_t)(k) + 63) / 64 * 64)

size_t rt_opt_fc_hybrid_w4b_scratch(int32_t batches, int32_t in_depth, int32_t block) {
    const int64_t nb = block > 0 ? in_depth / block : 1;
    return (size_t)((int64_t)batches * (KPAD64(in_depth) + 8 + 4 * nb) + 128);
}

static float block_scale(const rt_fc_params *p, int32_t n, int32_t nb, int32_t j) {
    return p->w_scales ? p->w_scales[(int64_t)n * nb + j] : p->w_scale;
}

/* Block sums of one weight row (packed, row stride rb bytes) against one quantized input row, scalar. */
static void row_blocks_scalar(const uint8_t *wr, const int8_t *x, int32_t zp, const int32_t *cb, int32_t block,
                              int32_t nb, int32_t *d) {
    int32_t j, k;
    for (j = 0; j < nb; j++) {
        int32_t s = 0;
        for (k = j * block; k < (j + 1) * block; k++) {
            const uint8_t byte = wr[(k / 64) * 32 + (k % 32)];
            const int32_t u = (k % 64) < 32 ? (byte & 15) : (byte >> 4);
            s += u * (x[k] - zp);
        }
        d[j] = s - cb[j];
    }
}

void rt_opt_fc_hybrid_w4_blockwise(const rt_fc_params *p, const float *in, const uint8_t *w, const float *bias,
                                   float *out, void *scratch) {
    const int32_t K = p->in_depth, N = p->out_depth, B = p->batches, block = p->block, nb = K / block;
    const int64_t kp = KPAD64(K), rb = kp / 2;
    unsigned char *s = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    int8_t *x8 = (int8_t *)s;               /* B rows of kp */
    float *row_scale = (float *)(x8 + B * kp);
    int32_t *zp = (int32_t *)(row_scale + B); /* B zero points, then B x nb input parts 8 * sum (q - zp) */
    int32_t *cb = zp + B;
    int32_t b, n, j;
    int64_t k;
    for (b = 0; b < B; b++) {
        rt_hybrid_quantize_row(in + (int64_t)b * K, K, 1, x8 + b * kp, &row_scale[b], &zp[b]);
        for (k = K; k < kp; k++) x8[b * kp + k] = 0;
        for (j = 0; j < nb; j++) {
            int32_t t = 0;
            for (k = (int64_t)j * block; k < (int64_t)(j + 1) * block; k++) t += x8[b * kp + k] - zp[b];
            cb[(int64_t)b * nb + j] = 8 * t;
        }
    }
    for (n = 0; n < N; n += 4) {
        const int nr = N - n < 4 ? N - n : 4;
#if RT_OPT_AVX2
        if (block % 32 == 0) {
            /* Rows past N repeat the last one (computed, not stored). */
            const uint8_t *w0 = w + (int64_t)n * rb, *w1 = w + (int64_t)(n + (nr > 1)) * rb,
                          *w2 = w + (int64_t)(n + (nr > 2 ? 2 : nr - 1)) * rb,
                          *w3 = w + (int64_t)(n + (nr > 3 ? 3 : nr - 1)) * rb;
            const __m256i lo = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
            const int32_t cpb = block / 32; /* 32-value chunks a block */
            for (b = 0; b < B; b++) {
                const int8_t *x = x8 + b * kp;
                const __m256i xz = _mm256_set1_epi8((char)zp[b]);
                __m128 acc = _mm_setzero_ps();
                float res[4];
                int r;
                int32_t c = 0;
                for (j = 0; j < nb; j++) {
                    __m256i v0 = _mm256_setzero_si256(), v1 = v0, v2 = v0, v3 = v0;
                    int32_t e;
                    for (e = 0; e < cpb; e++, c++) {
                        const int64_t off = (int64_t)(c >> 1) * 32;
                        const int hi = c & 1;
                        const __m256i xq = _mm256_loadu_si256((const __m256i *)(x + (int64_t)c * 32));
                        __m256i u0 = _mm256_loadu_si256((const __m256i *)(w0 + off));
                        __m256i u1 = _mm256_loadu_si256((const __m256i *)(w1 + off));
                        __m256i u2 = _mm256_loadu_si256((const __m256i *)(w2 + off));
                        __m256i u3 = _mm256_loadu_si256((const __m256i *)(w3 + off));
                        if (hi) {
                            u0 = _mm256_srli_epi16(u0, 4), u1 = _mm256_srli_epi16(u1, 4);
                            u2 = _mm256_srli_epi16(u2, 4), u3 = _mm256_srli_epi16(u3, 4);
                        }
                        u0 = _mm256_and_si256(u0, lo), u1 = _mm256_and_si256(u1, lo);
                        u2 = _mm256_and_si256(u2, lo), u3 = _mm256_and_si256(u3, lo);
#define RT_BLK_DOT(v, u)                                                                                       \
    v = _mm256_add_epi32(v, _mm256_madd_epi16(_mm256_sub_epi16(_mm256_maddubs_epi16(u, xq),                   \
                                                               _mm256_maddubs_epi16(u, xz)),                  \
                                              ones))
                        RT_BLK_DOT(v0, u0);
                        RT_BLK_DOT(v1, u1);
                        RT_BLK_DOT(v2, u2);
                        RT_BLK_DOT(v3, u3);
#undef RT_BLK_DOT
                    }
                    {
                        const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(v0, v1), _mm256_hadd_epi32(v2, v3));
                        __m128i d4 = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
                        __m128 prod;
                        d4 = _mm_sub_epi32(d4, _mm_set1_epi32(cb[(int64_t)b * nb + j]));
                        prod = _mm_mul_ps(_mm_cvtepi32_ps(d4),
                                          _mm_set_ps(block_scale(p, n + (nr > 3 ? 3 : nr - 1), nb, j),
                                                     block_scale(p, n + (nr > 2 ? 2 : nr - 1), nb, j),
                                                     block_scale(p, n + (nr > 1), nb, j), block_scale(p, n, nb, j)));
                        __asm__("" : "+x"(prod)); /* rounded before it is added: no fused multiply-add */
                        acc = _mm_add_ps(acc, prod);
                    }
                }
                {
                    __m128 prod = _mm_mul_ps(acc, _mm_set1_ps(row_scale[b]));
                    __asm__("" : "+x"(prod));
                    _mm_storeu_ps(res, prod);
                }
                for (r = 0; r < nr; r++)
                    out[(int64_t)b * N + n + r] =
                        rt_clamp_f32((bias ? bias[n + r] : 0.0f) + res[r], p->act_min, p->act_max);
            }
            continue;
        }
#endif
        {
            int32_t dp[64]; /* block sums, in slices of 64 blocks */
            int r;
            for (b = 0; b < B; b++) {
                for (r = 0; r < nr; r++) {
                    const uint8_t *wr = w + (int64_t)(n + r) * rb;
                    float acc = 0.0f;
                    for (j = 0; j < nb; j += 64) {
                        const int32_t m = nb - j < 64 ? nb - j : 64;
                        int32_t i;
                        row_blocks_scalar(wr + (int64_t)j * block / 2, x8 + b * kp + (int64_t)j * block, zp[b],
                                          cb + (int64_t)b * nb + j, block, m, dp);
                        for (i = 0; i < m; i++) {
                            volatile float prod = (float)dp[i] * block_scale(p, n + r, nb, j + i);
                            acc += prod;
                        }
                    }
                    {
                        volatile float prod = acc * row_scale[b];
                        out[(int64_t)b * N + n + r] =
                            rt_clamp_f32((bias ? bias[n + r] : 0.0f) + prod, p->act_min, p->act_max);
                    }
                }
            }
        }
    }
}
