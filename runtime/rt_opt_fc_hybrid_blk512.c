/* rt_opt_fc_hybrid_blk512.c - the block-wise INT4 hybrid FULLY_CONNECTED's several input rows (prefill) on
 * AVX512-VNNI, register-tiled: two groups of 8 weight rows (rt_opt_fc_hybrid_blk.c's layout, 16 outputs) in the
 * 16 lanes of a zmm, R input rows at a time (R up to 8). Each 8-value step of the two groups (32 bytes of each)
 * is loaded and unpacked to its low and high nibbles once for the R rows: vpdpbusd with the row's four input
 * bytes broadcast sums into each output's lane. A row's sums start at -8 * sum q of its block, so at the block's
 * end they are d = sum w * q, exact. The weight sums (c = sum u - 8 * block per block, one more vpdpbusd per
 * step on the two nibble vectors added, and wacc = sum over blocks of c * scale) depend on the weights only:
 * the first tile of rows computes them, the next tiles reuse its wacc. With in_depth up to 1024 the first tile
 * also keeps the unpacked nibbles (2 x in_depth bytes, on the stack) and the next tiles load them (two loads a
 * step instead of a load, an insert, a shift and two ANDs). The float steps are
 * rt_opt_fc_hybrid_blk.c's (TFLite's builtin kernel's order, each product rounded, no fused multiply-add), so
 * every output is the one-row kernel's bit for bit. vpdpbusd through RT_DPBUSD: with the intrinsic GCC copied
 * every accumulator once a step. Intel Xeon (AVX-512+VNNI, no BF16/AMX), 64 rows of 768 -> 2048, block 32:
 * 0.93 ms against the four-row ymm kernel's 1.50 (int8 per-channel VNNI GEMM: 0.69); the kept nibbles: 5%
 * less again (medians; the fastest rounds 0.71 against 0.85 ms, as the int8 GEMM's 0.72). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_S8_VNNI)

#define RT_B512_MAXR 8
/* pair_rows' modes: the pair's first tile (computes the weight sums), the unpacked nibbles kept in (first tile)
 * or read from (later tiles) a buffer of 2 x in_depth bytes, for in_depth up to RT_B512_BUF_K. */
#define RT_B512_FIRST 1
#define RT_B512_BUF 2
#if defined(RT_OPT_SMALL_STACK)
#define RT_B512_BUF_K 8
#else
#define RT_B512_BUF_K 1024 /* 16 KiB on the stack; with the tile's 8 input rows, in L1 */
#endif

/* Where a tile's outputs go: row r's 16 at out + r * stride (mask: those below out_depth), with the pair's bias
 * and the activation's bounds. */
typedef struct rt_b512_out {
    float *out;
    int64_t stride;
    __mmask16 mask;
    __m512 bias, lo, hi;
} rt_b512_out;

/* R rows (x, row stride K) against the group pair at wg (the second group gstride bytes on): output c of row r
 * is clamp(bias + (acc - zp * wacc) * row scale), stored as o says. wacc (the pair's 16 weight-sum parts, sum over
 * blocks of c * scale: weights only) is computed where with_u, else read. */
RT_OPT_INLINE void pair_rows(const uint8_t *wg, int64_t gstride, const int8_t *x, int32_t K, const int32_t *zp,
                             const int32_t *cb, int32_t nb, int32_t block, const float *row_scale, int R, int mode,
                             __m512i *ub, float *wsum, const rt_b512_out *o) {
    const int with_u = mode & RT_B512_FIRST, keep = mode == (RT_B512_FIRST | RT_B512_BUF), reuse = mode == RT_B512_BUF;
    const __m512i lo4 = _mm512_set1_epi8(15), ones = _mm512_set1_epi8(1), w8 = _mm512_set1_epi32(8 * block);
    __m512 acc[RT_B512_MAXR], wacc = _mm512_setzero_ps(), prod;
    const uint8_t *wp = wg;
    int32_t j, s;
    int r;
#pragma GCC unroll 8
    for (r = 0; r < R; r++) acc[r] = _mm512_setzero_ps();
    for (j = 0; j < nb; j++) {
        __m512i S[RT_B512_MAXR], U = _mm512_setzero_si512();
        const int8_t *xb = x + (int64_t)j * block;
        __m512 sc;
#pragma GCC unroll 8
        for (r = 0; r < R; r++) S[r] = _mm512_set1_epi32(cb[(int64_t)r * nb + j]); /* -8 * sum q: d comes out */
        s = 0;
        do { /* block >= 8: a do loop, so that GCC keeps the sums in their registers at its exit */
            __m512i lo, hi;
            if (reuse) {
                lo = _mm512_loadu_si512(ub), hi = _mm512_loadu_si512(ub + 1);
            } else {
                const __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)wp)),
                                                     _mm256_loadu_si256((const __m256i *)(wp + gstride)), 1);
                lo = _mm512_and_si512(v, lo4), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), lo4);
                if (keep) _mm512_storeu_si512(ub, lo), _mm512_storeu_si512(ub + 1, hi);
            }
            ub += 2;
#pragma GCC unroll 8
            for (r = 0; r < R; r++) {
                int32_t qa, qb;
                memcpy(&qa, xb + (int64_t)r * K + 8 * s, 4);
                memcpy(&qb, xb + (int64_t)r * K + 8 * s + 4, 4);
                RT_DPBUSD(S[r], lo, _mm512_set1_epi32(qa));
                RT_DPBUSD(S[r], hi, _mm512_set1_epi32(qb));
            }
            if (with_u) RT_DPBUSD(U, _mm512_add_epi8(lo, hi), ones);
            wp += 32;
        } while (++s < block / 8);
        /* The block's 8 + 8 fp16 scales, exact as floats. */
        sc = _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)wp)),
                                                     _mm_loadu_si128((const __m128i *)(wp + gstride)), 1));
        wp += 16;
        if (with_u) {
            prod = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(U, w8)), sc);
            __asm__("" : "+v"(prod)); /* rounded before it is added: no fused multiply-add */
            wacc = _mm512_add_ps(wacc, prod);
        }
#pragma GCC unroll 8
        for (r = 0; r < R; r++) {
            prod = _mm512_mul_ps(_mm512_cvtepi32_ps(S[r]), sc);
            __asm__("" : "+v"(prod));
            acc[r] = _mm512_add_ps(acc[r], prod);
        }
    }
    if (with_u)
        _mm512_storeu_ps(wsum, wacc);
    else
        wacc = _mm512_loadu_ps(wsum);
#pragma GCC unroll 8
    for (r = 0; r < R; r++) {
        prod = _mm512_mul_ps(_mm512_set1_ps((float)zp[r]), wacc);
        __asm__("" : "+v"(prod));
        prod = _mm512_mul_ps(_mm512_sub_ps(acc[r], prod), _mm512_set1_ps(row_scale[r]));
        __asm__("" : "+v"(prod));
        /* bias + prod (0 + prod without bias, as the reference), then rt_clamp_f32's x < lo ? lo : x > hi ? hi :
         * x: vmaxps/vminps return their second operand where the first is not larger/smaller (a NaN kept). */
        prod = _mm512_add_ps(o->bias, prod);
        prod = _mm512_min_ps(o->hi, _mm512_max_ps(o->lo, prod));
        _mm512_mask_storeu_ps(o->out + (int64_t)r * o->stride, o->mask, prod);
    }
}

/* label: run pair_rows for R = n rows in each mode (constants, for the unrolled loops and the branches). */
#define RT_B512_CASE(label, n)                                                                                 \
    label:                                                                                                     \
    switch (mode) {                                                                                            \
    case RT_B512_FIRST: pair_rows(wg, gstride, x, K, zp, cb, nb, block, row_scale, n, RT_B512_FIRST, ub, wsum, o); break; \
    case RT_B512_FIRST | RT_B512_BUF:                                                                          \
        pair_rows(wg, gstride, x, K, zp, cb, nb, block, row_scale, n, RT_B512_FIRST | RT_B512_BUF, ub, wsum, o); \
        break;                                                                                                 \
    case RT_B512_BUF: pair_rows(wg, gstride, x, K, zp, cb, nb, block, row_scale, n, RT_B512_BUF, ub, wsum, o); break; \
    default: pair_rows(wg, gstride, x, K, zp, cb, nb, block, row_scale, n, 0, ub, wsum, o); break;             \
    }                                                                                                          \
    break

static void pair_tile(const uint8_t *wg, int64_t gstride, const int8_t *x, int32_t K, const int32_t *zp,
                      const int32_t *cb, int32_t nb, int32_t block, const float *row_scale, int R, int mode,
                      __m512i *ub, float *wsum, const rt_b512_out *o) {
    switch (R) {
        RT_B512_CASE(case 1, 1);
        RT_B512_CASE(case 2, 2);
        RT_B512_CASE(case 3, 3);
        RT_B512_CASE(case 4, 4);
        RT_B512_CASE(case 5, 5);
        RT_B512_CASE(case 6, 6);
        RT_B512_CASE(case 7, 7);
        RT_B512_CASE(default, RT_B512_MAXR);
    }
}
#undef RT_B512_CASE

void rt_opt_fc_hybrid_w4b_pair512(const rt_fc_params *p, const uint8_t *wg, int64_t gstride, const int8_t *x8,
                                  const float *row_scale, const int32_t *zp, const int32_t *cb, const float *bias,
                                  float *out, int32_t n) {
    const int32_t K = p->in_depth, N = p->out_depth, B = p->batches, block = p->block, nb = K / block;
    const int nr = N - n < 16 ? N - n : 16;
    float wsum[16] = {0}; /* written by the first tile */
    __m512i ub[2 * RT_B512_BUF_K / 8];
    const int buf = K <= RT_B512_BUF_K && B > RT_B512_MAXR ? RT_B512_BUF : 0;
    rt_b512_out o;
    int32_t b = 0;
    o.stride = N;
    o.mask = (__mmask16)((1u << nr) - 1);
    o.bias = bias ? _mm512_maskz_loadu_ps(o.mask, bias + n) : _mm512_setzero_ps();
    o.lo = _mm512_set1_ps(p->act_min), o.hi = _mm512_set1_ps(p->act_max);
    while (b < B) {
        /* Tiles of 8 rows; a rest of 9..15 rows as two tiles of about half. */
        const int32_t left = B - b;
        const int R = left <= RT_B512_MAXR ? (int)left : left < 2 * RT_B512_MAXR ? (int)(left + 1) / 2 : RT_B512_MAXR;
        o.out = out + (int64_t)b * N + n;
        pair_tile(wg, gstride, x8 + (int64_t)b * K, K, zp + b, cb + (int64_t)b * nb, nb, block, row_scale + b, R,
                  buf | (b == 0 ? RT_B512_FIRST : 0), ub, wsum, &o);
        b += R;
    }
}

#else
typedef int rt_opt_fc_hybrid_blk512_unused; /* ISO C: a translation unit declares something */
#endif
