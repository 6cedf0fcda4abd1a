/* rt_opt_fc_hybrid_blk.c - hybrid FULLY_CONNECTED on block-wise INT4 weights (TFLite BlockwiseQuantization:
 * litert-torch's dynamic_int4_block32/128 decoders), bit-identical to the reference
 * rt_fully_connected_hybrid_blockwise.
 *
 * Layout (sched_pack_int4_blocks; rt_opt.h): groups of 8 weight rows; per group and block, block / 8 steps
 * of 32 bytes, byte 4 r + i of step s holding u = w + 8 of row r at k = 8 s + i (low nibble) and 8 s + 4 + i
 * (high nibble), then the block's 8 scales as fp16 (16 bytes). A 32-bit lane of a step's low (high) nibbles
 * is four values of one row, so vpdpbusd with the input's four bytes broadcast sums them into that row's
 * lane: no horizontal sums, and the eight rows' block sums come out in one vector.
 *
 * Per block the int32 sums d = sum w * q = sum u * q - 8 * sum q and c = sum w = sum u - 8 * block are exact
 * (8 * sum q once per input row and block); u * q four at a time is vpdpbusd (AVX512-VNNI) or vpmaddubsw +
 * vpmaddwd (AVX2: a pair of products at most 2 * 15 * 128, no saturation). The float steps are the
 * reference's (TFLite's builtin kernel's), in its order, each product rounded (no fused multiply-add):
 * acc += (float)d * scale, wacc += (float)c * scale, out =
 * act(bias + (acc - zp * wacc) * row scale). The eight rows of a group (8 x in_depth / 2 bytes) stay in L1 while every
 * input row (prefill) passes over them, four input rows at a time sharing each step's unpacking and weight
 * sums; on AVX512-VNNI builds several rows take rt_opt_fc_hybrid_blk512.c's register tile over pairs of groups
 * instead. The work is split in two (rt_opt_fc_hybrid_w4b_quantize, then rt_opt_fc_hybrid_w4b_groups over a
 * range of groups) so that rt_opt_fc_hybrid_w4_par quantizes the rows once and splits the groups across threads.
 * Builds without AVX2: the same steps, scalar. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

size_t rt_opt_fc_hybrid_w4b_scratch(int32_t batches, int32_t in_depth, int32_t block) {
    const int64_t nb = block > 0 ? in_depth / block : 1;
    return (size_t)((int64_t)batches * (in_depth + 8 + 4 * nb) + 128);
}


#if RT_OPT_AVX2
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define RT_BLK_DP(acc, u, q) _mm256_dpbusd_epi32(acc, u, q)
#else
#define RT_BLK_DP(acc, u, q) _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), _mm256_set1_epi16(1)))
#endif

/* The 8 outputs of group wg for input row x: res[r] = acc * row scale, rounded (the bias added by the caller). */

/* A group's eight fp16 block scales (stored after its nibbles) as floats. */
static inline __m256 scales8(const uint8_t *wp) {
#if defined(__F16C__)
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)wp));
#else
    float f[8];
    uint16_t h[8];
    int r;
    memcpy(h, wp, sizeof h);
    for (r = 0; r < 8; r++) f[r] = rt_f16_to_f32(h[r]);
    return _mm256_loadu_ps(f);
#endif
}

static void group_row_avx2(const uint8_t *wg, const int8_t *x, int32_t zp, const int32_t *cb, int32_t nb,
                           int32_t block, float row_scale, float *res) {
    const __m256i lo4 = _mm256_set1_epi8(15), ones = _mm256_set1_epi8(1), w8 = _mm256_set1_epi32(8 * block);
    __m256 acc = _mm256_setzero_ps(), wacc = acc, prod, wprod;
    const uint8_t *wp = wg;
    int32_t j, s;
    for (j = 0; j < nb; j++) {
        __m256i S = _mm256_setzero_si256(), U = _mm256_setzero_si256();
        const int8_t *xb = x + (int64_t)j * block;
        for (s = 0; s < block / 8; s++, wp += 32) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)wp);
            const __m256i lo = _mm256_and_si256(v, lo4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), lo4);
            int32_t qa, qb;
            memcpy(&qa, xb + 8 * s, 4);
            memcpy(&qb, xb + 8 * s + 4, 4);
            S = RT_BLK_DP(S, lo, _mm256_set1_epi32(qa));
            S = RT_BLK_DP(S, hi, _mm256_set1_epi32(qb));
            U = RT_BLK_DP(U, _mm256_add_epi8(lo, hi), ones);
        }
        {
            const __m256i d = _mm256_add_epi32(S, _mm256_set1_epi32(cb[j])), c = _mm256_sub_epi32(U, w8);
            const __m256 sc = scales8(wp);
            wp += 16;
            prod = _mm256_mul_ps(_mm256_cvtepi32_ps(d), sc);
            wprod = _mm256_mul_ps(_mm256_cvtepi32_ps(c), sc);
            __asm__("" : "+x"(prod), "+x"(wprod)); /* rounded before they are added: no fused multiply-add */
            acc = _mm256_add_ps(acc, prod);
            wacc = _mm256_add_ps(wacc, wprod);
        }
    }
    wprod = _mm256_mul_ps(_mm256_set1_ps((float)zp), wacc);
    __asm__("" : "+x"(wprod));
    prod = _mm256_mul_ps(_mm256_sub_ps(acc, wprod), _mm256_set1_ps(row_scale));
    __asm__("" : "+x"(prod));
    _mm256_storeu_ps(res, prod);
}

/* The same for four input rows at once (prefill): each step's nibbles and the weight sums U are unpacked once
 * for the four; each row keeps its own sums and float steps (so each output is the one-row kernel's). */
static void group_rows4_avx2(const uint8_t *wg, const int8_t *x, int64_t xs, const int32_t *zp, const int32_t *cb,
                             int32_t nb, int32_t block, const float *row_scale, float *res) {
    const __m256i lo4 = _mm256_set1_epi8(15), ones = _mm256_set1_epi8(1), w8 = _mm256_set1_epi32(8 * block);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0, wacc = acc0, prod;
    const uint8_t *wp = wg;
    int32_t j, s;
    for (j = 0; j < nb; j++) {
        __m256i S0 = _mm256_setzero_si256(), S1 = S0, S2 = S0, S3 = S0, U = S0;
        const int8_t *xb = x + (int64_t)j * block;
        for (s = 0; s < block / 8; s++, wp += 32) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)wp);
            const __m256i lo = _mm256_and_si256(v, lo4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), lo4);
            int32_t qa, qb;
#define RT_BLK_ROW(S, r)                                                                                       \
    memcpy(&qa, xb + (r) * xs + 8 * s, 4);                                                                     \
    memcpy(&qb, xb + (r) * xs + 8 * s + 4, 4);                                                                 \
    S = RT_BLK_DP(S, lo, _mm256_set1_epi32(qa));                                                               \
    S = RT_BLK_DP(S, hi, _mm256_set1_epi32(qb))
            RT_BLK_ROW(S0, 0);
            RT_BLK_ROW(S1, 1);
            RT_BLK_ROW(S2, 2);
            RT_BLK_ROW(S3, 3);
#undef RT_BLK_ROW
            U = RT_BLK_DP(U, _mm256_add_epi8(lo, hi), ones);
        }
        {
            const __m256 sc = scales8(wp);
            wp += 16;
            prod = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(U, w8)), sc);
            __asm__("" : "+x"(prod));
            wacc = _mm256_add_ps(wacc, prod); /* the weight sums' part, shared by the four rows */
#define RT_BLK_FIN(S, acc, r)                                                                                  \
    prod = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(S, _mm256_set1_epi32(cb[(int64_t)(r) * nb + j]))), \
                         sc);                                                                                 \
    __asm__("" : "+x"(prod));                                                                                  \
    acc = _mm256_add_ps(acc, prod)
            RT_BLK_FIN(S0, acc0, 0);
            RT_BLK_FIN(S1, acc1, 1);
            RT_BLK_FIN(S2, acc2, 2);
            RT_BLK_FIN(S3, acc3, 3);
#undef RT_BLK_FIN
        }
    }
#define RT_BLK_OUT(acc, r)                                                                                     \
    prod = _mm256_mul_ps(_mm256_set1_ps((float)zp[r]), wacc);                                                  \
    __asm__("" : "+x"(prod));                                                                                  \
    prod = _mm256_mul_ps(_mm256_sub_ps(acc, prod), _mm256_set1_ps(row_scale[r]));                              \
    __asm__("" : "+x"(prod));                                                                                  \
    _mm256_storeu_ps(res + 8 * (r), prod)
    RT_BLK_OUT(acc0, 0);
    RT_BLK_OUT(acc1, 1);
    RT_BLK_OUT(acc2, 2);
    RT_BLK_OUT(acc3, 3);
#undef RT_BLK_OUT
}
#undef RT_BLK_DP
#else
static void group_row_scalar(const uint8_t *wg, const int8_t *x, int32_t zp, const int32_t *cb, int32_t nb,
                             int32_t block, float row_scale, float *res) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, wacc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t *wp = wg;
    int32_t j, s, r, i;
    for (j = 0; j < nb; j++) {
        int32_t S[8] = {0, 0, 0, 0, 0, 0, 0, 0}, U[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        const int8_t *xb = x + (int64_t)j * block;
        for (s = 0; s < block / 8; s++, wp += 32)
            for (r = 0; r < 8; r++)
                for (i = 0; i < 4; i++) {
                    const int32_t lo = wp[4 * r + i] & 15, hi = wp[4 * r + i] >> 4;
                    S[r] += lo * xb[8 * s + i] + hi * xb[8 * s + 4 + i];
                    U[r] += lo + hi;
                }
        for (r = 0; r < 8; r++) {
            const float sc = rt_f16_to_f32((uint16_t)(wp[2 * r] | (wp[2 * r + 1] << 8)));
            volatile float prod = (float)(S[r] + cb[j]) * sc, wprod = (float)(U[r] - 8 * block) * sc;
            acc[r] += prod;
            wacc[r] += wprod;
        }
        wp += 16;
    }
    for (r = 0; r < 8; r++) {
        volatile float zw = (float)zp * wacc[r], t, prod;
        t = acc[r] - zw;
        prod = t * row_scale;
        res[r] = prod;
    }
}
#endif

/* The quantized rows in scratch (rt_opt_fc_hybrid_w4_blockwise's layout): x8, B rows of K, then the rows'
 * scales, zero points and input parts -8 * sum q per block. */
typedef struct blk_rows {
    int8_t *x8;
    float *row_scale;
    int32_t *zp, *cb;
} blk_rows;

static blk_rows blk_scratch(const rt_fc_params *p, void *scratch) {
    const int32_t K = p->in_depth, B = p->batches;
    unsigned char *s = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    blk_rows r;
    r.x8 = (int8_t *)s; /* B rows of K */
    r.row_scale = (float *)(r.x8 + ((int64_t)B * K + 3) / 4 * 4);
    r.zp = (int32_t *)(r.row_scale + B); /* B zero points, then B x nb input parts -8 * sum q */
    r.cb = r.zp + B;
    return r;
}

void rt_opt_fc_hybrid_w4b_quantize(const rt_fc_params *p, const float *in, void *scratch) {
    const int32_t K = p->in_depth, B = p->batches, block = p->block, nb = K / block;
    const blk_rows q = blk_scratch(p, scratch);
    int32_t b, j;
    int64_t k;
    for (b = 0; b < B; b++) {
        rt_hybrid_quantize_row(in + (int64_t)b * K, K, 1, q.x8 + (int64_t)b * K, &q.row_scale[b], &q.zp[b]);
        for (j = 0; j < nb; j++) {
            int32_t t = 0;
            for (k = (int64_t)j * block; k < (int64_t)(j + 1) * block; k++) t += q.x8[(int64_t)b * K + k];
            q.cb[(int64_t)b * nb + j] = -8 * t;
        }
    }
}

void rt_opt_fc_hybrid_w4b_groups(const rt_fc_params *p, const uint8_t *w, const float *bias, float *out,
                                 const void *scratch, int32_t g_lo, int32_t g_hi) {
    const int32_t K = p->in_depth, N = p->out_depth, B = p->batches, block = p->block, nb = K / block;
    const int64_t gstride = (int64_t)nb * (4 * (int64_t)block + 16);
    const blk_rows q = blk_scratch(p, (void *)(uintptr_t)scratch);
    const int8_t *x8 = q.x8;
    const float *row_scale = q.row_scale;
    const int32_t *zp = q.zp, *cb = q.cb;
    int32_t b, g;
    for (g = g_lo; g < g_hi; g++) {
        const int32_t n = 8 * g;
        const uint8_t *wg = w + (int64_t)g * gstride;
        const int nr = N - n < 8 ? N - n : 8;
#if defined(RT_OPT_S8_VNNI)
        /* Several rows: two groups at a time, register-tiled (rt_opt_fc_hybrid_blk512.c). */
        if (B >= 2 && g + 1 < g_hi) {
            rt_opt_fc_hybrid_w4b_pair512(p, wg, gstride, x8, row_scale, zp, cb, bias, out, n);
            g++;
            continue;
        }
#endif
        /* The next group's first lines toward L2 while this one runs (decode streams the weights once). */
#if RT_OPT_AVX2
        if (g + 1 < g_hi) {
            const char *pf = (const char *)(wg + gstride);
            int64_t o;
            for (o = 0; o < gstride && o < 2048; o += 64) _mm_prefetch(pf + o, _MM_HINT_T1);
        }
#endif
        b = 0;
#if RT_OPT_AVX2
        for (; b + 4 <= B; b += 4) {
            float res[32];
            int r, i;
            group_rows4_avx2(wg, x8 + (int64_t)b * K, K, zp + b, cb + (int64_t)b * nb, nb, block, row_scale + b, res);
            for (i = 0; i < 4; i++)
                for (r = 0; r < nr; r++)
                    out[(int64_t)(b + i) * N + n + r] =
                        rt_clamp_f32((bias ? bias[n + r] : 0.0f) + res[8 * i + r], p->act_min, p->act_max);
        }
#endif
        for (; b < B; b++) {
            float res[8];
            int r;
#if RT_OPT_AVX2
            group_row_avx2(wg, x8 + (int64_t)b * K, zp[b], cb + (int64_t)b * nb, nb, block, row_scale[b], res);
#else
            group_row_scalar(wg, x8 + (int64_t)b * K, zp[b], cb + (int64_t)b * nb, nb, block, row_scale[b], res);
#endif
            for (r = 0; r < nr; r++)
                out[(int64_t)b * N + n + r] = rt_clamp_f32((bias ? bias[n + r] : 0.0f) + res[r], p->act_min, p->act_max);
        }
    }
}

void rt_opt_fc_hybrid_w4_blockwise(const rt_fc_params *p, const float *in, const uint8_t *w, const float *bias,
                                   float *out, void *scratch) {
    rt_opt_fc_hybrid_w4b_quantize(p, in, scratch);
    rt_opt_fc_hybrid_w4b_groups(p, w, bias, out, scratch, 0, (p->out_depth + 7) / 8);
}
