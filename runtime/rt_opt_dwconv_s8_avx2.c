/* rt_opt_dwconv_s8_avx2.c - the int8 depthwise convolution on AVX2 without VNNI (rt_opt_dwconv.c's
 * dw_s8_rows calls it where no AVX-512 kernel applies).
 *
 * 16 channels per step (a last group of 8 alone; a count not a multiple of 8 ends with a group that overlaps
 * the one before it), two taps per vpmaddwd, depth multiplier 1 (at least 8 channels) or one input
 * channel (a convolution of a one-channel image written as a depthwise one, as person_detect's first): the taps' input bytes plus the
 * input offset as int16 (|x + off| <= 255), interleaved with unpacklo / unpackhi so that each int32 lane
 * sums (x_t + off) w_t + (x_t+1 + off) w_t+1 of one channel, exactly (2 * 255 * 128 < 2^31). The weight
 * pairs, bias and requantization constants of the group stay in registers across the image. A tap
 * outside the image adds nothing, as (x + off) = 0 would: its vector is zero, so the pairing of the
 * taps is the same at the borders. The unpacks put channels 0-3 and 8-11 in one accumulator and 4-7,
 * 12-15 in the other; the bias and requantization constants are loaded in that order, and packs_epi32
 * of the two restores the channel order. The sums wrap like TFLite's int32 accumulators; each lane
 * is requantized with rq8k (TFLite's double rounding, one 64-bit shift per product). */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX2)

#define DW_MAX_PAIRS 13 /* 25 taps */

/* One group's constants: weight pairs and the requantization constants in accumulator order. */
typedef struct dw_group {
    __m256i wlo[DW_MAX_PAIRS], whi[DW_MAX_PAIRS];
    __m256i blo, bhi;
    rq8k klo, khi; /* the requantization with the output zero point */
} dw_group;

/* 16 (n8: 8, the rest zero) int8 values from src as int16. */
static inline __m256i dw_load16(const int8_t *src, int n8) {
    return _mm256_cvtepi8_epi16(n8 ? _mm_loadl_epi64((const __m128i *)(const void *)src)
                                   : _mm_loadu_si128((const __m128i *)(const void *)src));
}

/* 16 int32 from src (n8: 8, the rest zero) as [0-3, 8-11] in lo and [4-7, 12-15] in hi. */
static inline void dw_split16(const int32_t *src, int n8, __m256i *lo, __m256i *hi) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)src);
    __m256i b = n8 ? _mm256_setzero_si256() : _mm256_loadu_si256((const __m256i *)(const void *)(src + 8));
    *lo = _mm256_permute2x128_si256(a, b, 0x20);
    *hi = _mm256_permute2x128_si256(a, b, 0x31);
}

static void dw_group_init(const struct rt_dwconv_params *p, const int8_t *filter, const int32_t *bias, int32_t c0,
                          int n8, dw_group *g) {
    const int32_t C = p->in_c * p->depth_mult, taps = p->filter_h * p->filter_w; /* filter: [taps][C] */
    int32_t t;
    for (t = 0; t < taps; t += 2) {
        __m256i w0 = dw_load16(filter + (int64_t)t * C + c0, n8);
        __m256i w1 = t + 1 < taps ? dw_load16(filter + (int64_t)(t + 1) * C + c0, n8) : _mm256_setzero_si256();
        g->wlo[t / 2] = _mm256_unpacklo_epi16(w0, w1);
        g->whi[t / 2] = _mm256_unpackhi_epi16(w0, w1);
    }
    if (bias) dw_split16(bias + c0, n8, &g->blo, &g->bhi);
    else g->blo = g->bhi = _mm256_setzero_si256();
    {
        __m256i mlo, mhi, slo, shi;
        dw_split16(p->mult + c0, n8, &mlo, &mhi);
        dw_split16(p->shift + c0, n8, &slo, &shi);
        if (n8) { /* the 8 channels' constants in both 128-bit lanes: two pixels a vector (dw_pixel2) */
            for (t = 0; t < (taps + 1) / 2; t++)
                g->wlo[t] = _mm256_permute2x128_si256(g->wlo[t], g->wlo[t], 0x00),
                g->whi[t] = _mm256_permute2x128_si256(g->whi[t], g->whi[t], 0x00);
            g->blo = _mm256_permute2x128_si256(g->blo, g->blo, 0x00), g->bhi = _mm256_permute2x128_si256(g->bhi, g->bhi, 0x00);
            mlo = _mm256_permute2x128_si256(mlo, mlo, 0x00), mhi = _mm256_permute2x128_si256(mhi, mhi, 0x00);
            slo = _mm256_permute2x128_si256(slo, slo, 0x00), shi = _mm256_permute2x128_si256(shi, shi, 0x00);
        }
        g->klo = rq8k_prepare(mlo, slo, p->out_offset, 0), g->khi = rq8k_prepare(mhi, shi, p->out_offset, 0);
    }
}

/* A tap's input as 16 int16: 16 (8) channels, or (bc: one input channel, depth multiplier 8k) its byte in
 * every lane. */
static inline __m256i dw_in(const int8_t *src, int n8, int bc) {
    return bc ? _mm256_set1_epi16((int16_t)*src) : dw_load16(src, n8);
}

/* One output pixel of the group: tap t's 16 channels at img + at + toff[t] (at: tap (0, 0)'s offset,
 * possibly outside the image); inside: every tap in the image, else valid[t] says. */
static inline void dw_pixel(const dw_group *g, int32_t pairs, const int8_t *img, int64_t at, const int64_t *toff,
                            int inside,
                            const unsigned char *valid, __m256i voff, int n8, int bc, int plain, __m256i lo, __m256i hi,
                            int8_t *o) {
    __m256i alo = g->blo, ahi = g->bhi, vlo, vhi, t16;
    int32_t q;
    for (q = 0; q < pairs; q++) {
        __m256i x0, x1;
        if (inside) {
            x0 = _mm256_add_epi16(dw_in(img + (at + toff[2 * q]), n8, bc), voff);
            x1 = _mm256_add_epi16(dw_in(img + (at + toff[2 * q + 1]), n8, bc), voff);
        } else {
            x0 = valid[2 * q] ? _mm256_add_epi16(dw_in(img + (at + toff[2 * q]), n8, bc), voff)
                              : _mm256_setzero_si256();
            x1 = valid[2 * q + 1] ? _mm256_add_epi16(dw_in(img + (at + toff[2 * q + 1]), n8, bc), voff)
                                  : _mm256_setzero_si256();
        }
        alo = _mm256_add_epi32(alo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), g->wlo[q]));
        ahi = _mm256_add_epi32(ahi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), g->whi[q]));
    }
    vlo = _mm256_min_epi32(_mm256_max_epi32(rq8k_apply(alo, &g->klo, plain), lo), hi);
    vhi = _mm256_min_epi32(_mm256_max_epi32(rq8k_apply(ahi, &g->khi, plain), lo), hi);
    t16 = _mm256_packs_epi32(vlo, vhi); /* channels 0-7 | 8-15 as int16 */
    t16 = _mm256_permute4x64_epi64(_mm256_packs_epi16(t16, t16), 0x08);
    if (n8) _mm_storel_epi64((__m128i *)(void *)o, _mm256_castsi256_si128(t16));
    else _mm_storeu_si128((__m128i *)(void *)o, _mm256_castsi256_si128(t16));
}

/* Two output pixels of an 8-channel group (n8), both inside the image: pixel a's taps at img + at + toff[t]
 * in the low 128-bit lane, pixel b's (at + bstep) in the high one, against the group's constants duplicated
 * in both lanes; the 16 results stored at o (b's 8 bytes right after a's: adjacent output pixels). Half the
 * work a pixel of dw_pixel's 8-channel case, whose high lane held nothing. */
static inline void dw_pixel2(const dw_group *g, int32_t pairs, const int8_t *img, int64_t at, int64_t bstep,
                             const int64_t *toff, __m256i voff, int bc, int plain, __m256i lo, __m256i hi, int8_t *o) {
    __m256i alo = g->blo, ahi = g->bhi, vlo, vhi, t16;
    int32_t q;
    for (q = 0; q < pairs; q++) {
        const int8_t *s0 = img + (at + toff[2 * q]), *s1 = img + (at + toff[2 * q + 1]);
        __m128i b0, b1;
        __m256i x0, x1;
        if (bc) {
            b0 = _mm_unpacklo_epi64(_mm_set1_epi8((char)s0[0]), _mm_set1_epi8((char)s0[bstep]));
            b1 = _mm_unpacklo_epi64(_mm_set1_epi8((char)s1[0]), _mm_set1_epi8((char)s1[bstep]));
        } else {
            b0 = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s0),
                                    _mm_loadl_epi64((const __m128i *)(const void *)(s0 + bstep)));
            b1 = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s1),
                                    _mm_loadl_epi64((const __m128i *)(const void *)(s1 + bstep)));
        }
        x0 = _mm256_add_epi16(_mm256_cvtepi8_epi16(b0), voff);
        x1 = _mm256_add_epi16(_mm256_cvtepi8_epi16(b1), voff);
        alo = _mm256_add_epi32(alo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), g->wlo[q]));
        ahi = _mm256_add_epi32(ahi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), g->whi[q]));
    }
    vlo = _mm256_min_epi32(_mm256_max_epi32(rq8k_apply(alo, &g->klo, plain), lo), hi);
    vhi = _mm256_min_epi32(_mm256_max_epi32(rq8k_apply(ahi, &g->khi, plain), lo), hi);
    t16 = _mm256_packs_epi32(vlo, vhi); /* pixel a's channels 0-7 | pixel b's, as int16 */
    t16 = _mm256_permute4x64_epi64(_mm256_packs_epi16(t16, t16), 0x08);
    _mm_storeu_si128((__m128i *)(void *)o, _mm256_castsi256_si128(t16));
}

int rt_opt_dw_avx2_applies(const struct rt_dwconv_params *p) {
    const int32_t CO = p->in_c * p->depth_mult;
    return ((p->depth_mult == 1 && CO >= 8) || (p->in_c == 1 && CO % 8 == 0)) && p->filter_h * p->filter_w <= 2 * DW_MAX_PAIRS &&
           p->in_offset >= -127 && p->in_offset <= 128 && rt_opt_shifts_vec(p->shift, p->in_c * p->depth_mult);
}

/* The rows of one group (pairs: the taps' pair count, a constant where the caller specializes). */
static inline void dw_group_rows(const struct rt_dwconv_params *p, const dw_group *g, int32_t pairs, const int8_t *in,
                                 int8_t *out, int32_t c0, int n8, const int64_t *toff, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, CO = C * p->depth_mult, fw = p->filter_w, taps = p->filter_h * fw, bc = C == 1 && CO > 1;
    const __m256i voff = _mm256_set1_epi16((int16_t)p->in_offset);
    const int plain = p->act_qmin >= p->out_offset; /* see rq8k */
    const __m256i lo = _mm256_set1_epi32(p->act_qmin), hi = _mm256_set1_epi32(p->act_qmax);
    unsigned char valid[2 * DW_MAX_PAIRS];
    int32_t r, ox, t;
    for (r = r0; r < r1; r++) {
        const int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
        const int8_t *img = in + (int64_t)b * p->in_h * p->in_w * C + (bc ? 0 : c0);
        int8_t *orow = out + ((int64_t)b * p->out_h + oy) * p->out_w * CO + c0;
        int32_t ylo, yhi;
        for (ylo = 0; ylo < p->filter_h && y0 + ylo * p->dil_h < 0; ylo++) continue;
        for (yhi = p->filter_h; yhi > ylo && y0 + (yhi - 1) * p->dil_h >= p->in_h; yhi--) continue;
        for (ox = 0; ox < p->out_w; ox++) {
            const int32_t x0 = ox * p->stride_w - p->pad_w;
            const int64_t at = ((int64_t)y0 * p->in_w + x0) * C;
            const int inside = ylo == 0 && yhi == p->filter_h && x0 >= 0 && x0 + (fw - 1) * p->dil_w < p->in_w;
            if (inside) {
                if (n8 && CO == 8 && ox + 1 < p->out_w && x0 + p->stride_w + (fw - 1) * p->dil_w < p->in_w) {
                    dw_pixel2(g, pairs, img, at, (int64_t)p->stride_w * C, toff, voff, bc, plain, lo, hi,
                              orow + (int64_t)ox * CO);
                    ox++;
                    continue;
                }
                dw_pixel(g, pairs, img, at, toff, 1, valid, voff, n8, bc, plain, lo, hi, orow + (int64_t)ox * CO);
                continue;
            }
            for (t = 0; t < 2 * pairs; t++) {
                const int32_t fy = t / fw, x = x0 + t % fw * p->dil_w;
                valid[t] = t < taps && fy >= ylo && fy < yhi && x >= 0 && x < p->in_w;
            }
            dw_pixel(g, pairs, img, at, toff, 0, valid, voff, n8, bc, plain, lo, hi, orow + (int64_t)ox * CO);
        }
    }
}

/* ---- the interior kernel: every tap inside the image ----
 * For a group of 16 channels (CO >= 16; the last group moved back to end at CO) or 8 (8 <= CO < 16, or one
 * input channel broadcast to a multiple of 8) and a run of output pixels of one row whose taps are all
 * inside the image (every pixel of a padded copy, rt_opt_dwconv.c), filter width and height at most 5,
 * stride 1 or 2 along the row, no dilation along it. Two changes from dw_pixel:
 * - The input offset is folded into the bias (bias + off * the sum of the channel's weights; the int32 sums
 *   wrap alike, so the result is the same): the taps' bytes are used as they are.
 * - Taps are paired vertically (rows 2g and 2g + 1 of one column, the last row of an odd height alone, with a
 *   zero partner), so a column of the image, loaded and widened once, serves every output pixel whose window
 *   holds it: ceil(fw / stride) pixels are in flight, each new pixel loads stride new columns. For 3x3
 *   stride 1 that is 3 loads and 6 widenings per pixel instead of 9 loads, 9 offset adds and 10 unpacks.
 * The two taps' bytes are interleaved (punpcklbw / punpckhbw) before widening, so the accumulators hold the
 * channels in order (0-7, 8-15); the bias and requantization constants are loaded as they are. An 8-channel
 * group fills whole vectors too (8 int16 pairs), where dw_pixel used half of each. */

#define DW_SPAN_FW 5
#define DW_SPAN_PAIRS 2 /* row pairs of a 5-row filter; its last row alone */

typedef struct dw_span_group {
    __m256i w2[DW_SPAN_PAIRS][DW_SPAN_FW][2]; /* rows 2g, 2g + 1 of column fx: (w, w') int16 pairs, [0] channels 0-7 */
    __m256i w1[DW_SPAN_FW][2];                /* the last row of an odd height: (w, 0) */
    __m256i b[2];                             /* bias + in_offset * sum of the weights */
    rq8k k[2];
} dw_span_group;

/* Rows r0 and r1 (r1 NULL: none, zero) of h * 8 channels as int16 pairs, v[0]: channels 0-7, v[1]: 8-15; bc:
 * one byte at each for all 8 (a one-channel image). */
RT_OPT_INLINE void dw_pair(const int8_t *r0, const int8_t *r1, int32_t h, int bc, __m256i *v) {
    if (bc) {
        const __m128i a = _mm_set1_epi8((char)*r0), b = r1 ? _mm_set1_epi8((char)*r1) : _mm_setzero_si128();
        v[0] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b));
    } else if (h == 1) {
        const __m128i a = _mm_loadl_epi64((const __m128i *)(const void *)r0);
        const __m128i b = r1 ? _mm_loadl_epi64((const __m128i *)(const void *)r1) : _mm_setzero_si128();
        v[0] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b));
    } else {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)r0);
        const __m128i b = r1 ? _mm_loadu_si128((const __m128i *)(const void *)r1) : _mm_setzero_si128();
        v[0] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b));
        v[1] = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(a, b));
    }
}

/* A row alone (an odd filter height's last) as dw_pair gives it with a zero partner, but each lane the int32
 * of the byte: (x, sign) as int16 pairs, against weights (w, 0) the same product, for 2 widenings of 16
 * channels instead of 4. */
RT_OPT_INLINE void dw_single(const int8_t *r0, int32_t h, int bc, __m256i *v) {
    if (bc) {
        v[0] = _mm256_set1_epi32((int32_t)*r0);
    } else {
        v[0] = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)r0));
        if (h == 2) v[1] = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(r0 + 8)));
    }
}

/* The constants of output channels c0..c0 + 8h. */
static void dw_span_init(const struct rt_dwconv_params *p, const int8_t *filter, const int32_t *bias, int32_t c0,
                         int32_t h, dw_span_group *g) {
    const int32_t CO = p->in_c * p->depth_mult, fw = p->filter_w, fh = p->filter_h;
    int32_t fy, fx, c;
    const __m256i ones = _mm256_set1_epi16(1), off = _mm256_set1_epi32(p->in_offset);
    __m256i sum[2];
    sum[0] = sum[1] = _mm256_setzero_si256();
    for (fy = 0; fy < fh; fy += 2)
        for (fx = 0; fx < fw; fx++) {
            const int8_t *w0 = filter + ((int64_t)fy * fw + fx) * CO + c0;
            __m256i *w = fy + 1 < fh ? g->w2[fy / 2][fx] : g->w1[fx];
            dw_pair(w0, fy + 1 < fh ? w0 + (int64_t)fw * CO : NULL, h, 0, w);
            for (c = 0; c < h; c++) sum[c] = _mm256_add_epi32(sum[c], _mm256_madd_epi16(w[c], ones));
        }
    for (c = 0; c < h; c++) { /* bias + off * sum of the weights (int32 wrapping, as the sums do) */
        g->b[c] = _mm256_add_epi32(bias ? _mm256_loadu_si256((const __m256i *)(const void *)(bias + c0 + 8 * c))
                                        : _mm256_setzero_si256(),
                                   _mm256_mullo_epi32(sum[c], off));
        g->k[c] = rq8k_prepare(_mm256_loadu_si256((const __m256i *)(const void *)(p->mult + c0 + 8 * c)),
                               _mm256_loadu_si256((const __m256i *)(const void *)(p->shift + c0 + 8 * c)),
                               p->out_offset, 0);
    }
}

/* v clamped to [lo, hi] unless those are the int8 range (clamp 0: the saturating packs apply it). */
RT_OPT_INLINE __m256i dw_clamp(__m256i v, int clamp, __m256i lo, __m256i hi) {
    return clamp ? _mm256_min_epi32(_mm256_max_epi32(v, lo), hi) : v;
}

/* h * 8 accumulators (channels 0-7, 8-15) requantized, clamped and stored as h * 8 bytes at o. */
RT_OPT_INLINE void dw_span_store(const dw_span_group *g, const __m256i *acc, int32_t h, int plain, int clamp,
                                 __m256i lo, __m256i hi, int8_t *o) {
    const __m256i v0 = dw_clamp(rq8k_apply(acc[0], &g->k[0], plain), clamp, lo, hi);
    if (h == 1) {
        _mm_storel_epi64((__m128i *)(void *)o, pack8(v0));
    } else {
        const __m256i v1 = dw_clamp(rq8k_apply(acc[1], &g->k[1], plain), clamp, lo, hi);
        const __m256i t = _mm256_permute4x64_epi64(_mm256_packs_epi32(v0, v1), 0xD8); /* int16 0-7 | 8-15 */
        _mm_storeu_si128((__m128i *)(void *)o,
                         _mm_packs_epi16(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1)));
    }
}

/* Column x (byte offset xo of rows rp) added to the accumulators of the pixels in flight: acc[k] (pixel
 * k after the oldest) takes the column as its tap column d - k s. fh, fw, s, K, h, bc: constants where
 * inlined. */
RT_OPT_INLINE void dw_span_col(const dw_span_group *g, const int8_t *const *rp, int64_t xo, int32_t fh, int32_t fw,
                               int32_t s, int32_t K, int32_t h, int bc, int32_t d, __m256i (*acc)[2]) {
    int32_t q, k, c;
    for (q = 0; q < fh; q += 2) {
        __m256i v[2];
        if (q + 1 < fh) dw_pair(rp[q] + xo, rp[q + 1] + xo, h, bc, v);
        else dw_single(rp[q] + xo, h, bc, v);
        for (k = 0; k < K; k++) {
            const int32_t fx = d - k * s;
            const __m256i *w = fx < 0 || fx >= fw ? NULL : q + 1 < fh ? g->w2[q / 2][fx] : g->w1[fx];
            if (!w) continue;
            for (c = 0; c < h; c++) acc[k][c] = _mm256_add_epi32(acc[k][c], _mm256_madd_epi16(v[c], w[c]));
        }
    }
}

/* Output pixels ox0..ox0 + n of one row, every tap inside: rp[fy] the image row of tap row fy at the group's
 * first channel (C: bytes per pixel), out the row's output at the group (CO bytes per pixel). K = ceil(fw / s)
 * pixels in flight (at most 5). */
RT_OPT_INLINE void dw_span(const dw_span_group *g, const int8_t *const *rp, int32_t C, int32_t x00, int32_t fh,
                           int32_t fw, int32_t s, int32_t h, int bc, int32_t n, int plain, __m256i lo, __m256i hi,
                           int8_t *out, int32_t CO) {
    const int32_t K = (fw + s - 1) / s;
    const int clamp = _mm256_extract_epi32(lo, 0) > -128 || _mm256_extract_epi32(hi, 0) < 127;
    __m256i acc[5][2];
    int32_t i, k, d, c;
    for (k = 0; k < K; k++)
        for (c = 0; c < h; c++) acc[k][c] = g->b[c];
    for (d = 0; d < fw - s; d++) /* the first pixels' columns before the oldest one's last s */
        dw_span_col(g, rp, (int64_t)(x00 + d) * C, fh, fw, s, K, h, bc, d, acc);
    for (i = 0; i < n; i++) {
        const int32_t x0 = x00 + i * s;
        for (d = fw - s; d < fw; d++) dw_span_col(g, rp, (int64_t)(x0 + d) * C, fh, fw, s, K, h, bc, d, acc);
        dw_span_store(g, acc[0], h, plain, clamp, lo, hi, out + (int64_t)i * CO);
        for (k = 0; k + 1 < K; k++)
            for (c = 0; c < h; c++) acc[k][c] = acc[k + 1][c];
        for (c = 0; c < h; c++) acc[K - 1][c] = g->b[c];
    }
}

/* dw_span with its shape as constants (the common ones), else generic. */
static void dw_span_any(const dw_span_group *g, const int8_t *const *rp, int32_t C, int32_t x00, int32_t fh,
                        int32_t fw, int32_t s, int32_t h, int bc, int32_t n, int plain, __m256i lo, __m256i hi,
                        int8_t *out, int32_t CO) {
    if (h == 2 && fh == 3 && fw == 3 && s == 1) dw_span(g, rp, C, x00, 3, 3, 1, 2, 0, n, plain, lo, hi, out, CO);
    else if (h == 2 && fh == 3 && fw == 3 && s == 2) dw_span(g, rp, C, x00, 3, 3, 2, 2, 0, n, plain, lo, hi, out, CO);
    else if (h == 2 && fh == 5 && fw == 5 && s == 1) dw_span(g, rp, C, x00, 5, 5, 1, 2, 0, n, plain, lo, hi, out, CO);
    else if (h == 2 && fh == 5 && fw == 5 && s == 2) dw_span(g, rp, C, x00, 5, 5, 2, 2, 0, n, plain, lo, hi, out, CO);
    else if (h == 1 && !bc && fh == 3 && fw == 3 && s == 1)
        dw_span(g, rp, C, x00, 3, 3, 1, 1, 0, n, plain, lo, hi, out, CO);
    else if (h == 1 && !bc && fh == 3 && fw == 3 && s == 2)
        dw_span(g, rp, C, x00, 3, 3, 2, 1, 0, n, plain, lo, hi, out, CO);
    else if (h == 1 && bc && fh == 3 && fw == 3 && s == 1)
        dw_span(g, rp, C, x00, 3, 3, 1, 1, 1, n, plain, lo, hi, out, CO);
    else if (h == 1 && bc && fh == 3 && fw == 3 && s == 2)
        dw_span(g, rp, C, x00, 3, 3, 2, 1, 1, n, plain, lo, hi, out, CO);
    else if (h == 2) dw_span(g, rp, C, x00, fh, fw, s, 2, 0, n, plain, lo, hi, out, CO);
    else if (bc) dw_span(g, rp, C, x00, fh, fw, s, 1, 1, n, plain, lo, hi, out, CO);
    else dw_span(g, rp, C, x00, fh, fw, s, 1, 0, n, plain, lo, hi, out, CO);
}

/* 1 when the interior kernel takes p (where rt_opt_dw_avx2_applies); a filter narrower than the stride (1
 * wide, stride 2) is not: each new pixel loads its last `stride` columns, which would start left of it. */
static int dw_span_applies(const struct rt_dwconv_params *p) {
    return p->filter_h <= 5 && p->filter_w <= DW_SPAN_FW && p->filter_w >= p->stride_w && p->dil_w == 1 &&
           (p->stride_w == 1 || p->stride_w == 2);
}

/* The interior output columns oxa..oxb of p (x0 >= 0 and x0 + fw - 1 < in_w). */
static void dw_span_cols(const struct rt_dwconv_params *p, int32_t *oxa, int32_t *oxb) {
    const int32_t e = p->in_w - p->filter_w + p->pad_w;
    *oxa = (p->pad_w + p->stride_w - 1) / p->stride_w;
    *oxb = e < 0 ? 0 : e / p->stride_w + 1;
    if (*oxb > p->out_w) *oxb = p->out_w;
    if (*oxa > *oxb) *oxa = *oxb;
}

/* 1 when output rows r0..r1 of p have a pixel with a tap outside the image. */
static int dw_span_border(const struct rt_dwconv_params *p, int32_t r0, int32_t r1) {
    int32_t oxa, oxb, r;
    dw_span_cols(p, &oxa, &oxb);
    if (oxa > 0 || oxb < p->out_w) return 1;
    for (r = r0; r < r1; r++) {
        const int32_t y0 = r % p->out_h * p->stride_h - p->pad_h;
        if (y0 < 0 || y0 + (p->filter_h - 1) * p->dil_h >= p->in_h) return 1;
    }
    return 0;
}

/* The rows of one group of 8h channels: interior pixels by dw_span, the rest by dw_pixel (g: NULL when there
 * is none; pairs: the taps' pair count, a constant where the caller specializes). */
RT_OPT_INLINE void dw_span_rows(const struct rt_dwconv_params *p, const dw_span_group *sg, const dw_group *g,
                                int32_t pairs, int32_t h, const int8_t *in, int8_t *out, int32_t c0,
                                const int64_t *toff, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, CO = C * p->depth_mult, fw = p->filter_w, fh = p->filter_h, taps = fh * fw;
    const int bc = C == 1 && CO > 1;
    const __m256i voff = _mm256_set1_epi16((int16_t)p->in_offset);
    const int plain = p->act_qmin >= p->out_offset; /* see rq8k */
    const __m256i lo = _mm256_set1_epi32(p->act_qmin), hi = _mm256_set1_epi32(p->act_qmax);
    unsigned char valid[2 * DW_MAX_PAIRS];
    const int8_t *rp[5];
    int32_t r, ox, t, oxa, oxb;
    dw_span_cols(p, &oxa, &oxb);
    for (r = r0; r < r1; r++) {
        const int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
        const int8_t *img = in + (int64_t)b * p->in_h * p->in_w * C + (bc ? 0 : c0);
        int8_t *orow = out + ((int64_t)b * p->out_h + oy) * p->out_w * CO + c0;
        int32_t ylo, yhi, full;
        for (ylo = 0; ylo < fh && y0 + ylo * p->dil_h < 0; ylo++) continue;
        for (yhi = fh; yhi > ylo && y0 + (yhi - 1) * p->dil_h >= p->in_h; yhi--) continue;
        full = ylo == 0 && yhi == fh;
        if (full) {
            for (t = 0; t < fh; t++) rp[t] = img + (int64_t)(y0 + t * p->dil_h) * p->in_w * C;
            if (oxb > oxa)
                dw_span_any(sg, rp, C, oxa * p->stride_w - p->pad_w, fh, fw, p->stride_w, h, bc, oxb - oxa, plain, lo,
                            hi, orow + (int64_t)oxa * CO, CO);
        }
        for (ox = 0; ox < p->out_w; ox++) {
            const int32_t x0 = ox * p->stride_w - p->pad_w;
            const int64_t at = ((int64_t)y0 * p->in_w + x0) * C;
            if (full && ox == oxa && oxb > oxa) {
                ox = oxb - 1;
                continue;
            }
            for (t = 0; t < 2 * pairs; t++) {
                const int32_t fy = t / fw, x = x0 + t % fw * p->dil_w;
                valid[t] = t < taps && fy >= ylo && fy < yhi && x >= 0 && x < p->in_w;
            }
            dw_pixel(g, pairs, img, at, toff, 0, valid, voff, h == 1, bc, plain, lo, hi, orow + (int64_t)ox * CO);
        }
    }
}

int rt_opt_dw_avx2_pads(const struct rt_dwconv_params *p) { return rt_opt_dw_avx2_applies(p) && dw_span_applies(p); }

void rt_opt_dw_avx2_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, CO = C * p->depth_mult, taps = p->filter_h * p->filter_w, pairs = (taps + 1) / 2;
    int64_t toff[2 * DW_MAX_PAIRS];
    dw_group g;
    int32_t c, t;
    for (t = 0; t < 2 * pairs; t++) /* (a last odd tap's partner: its weights are zero, it reads tap 0) */
        toff[t] = t < taps ? ((int64_t)(t / p->filter_w) * p->dil_h * p->in_w + (int64_t)(t % p->filter_w) * p->dil_w) * C
                           : 0;
    if (dw_span_applies(p)) {
        const int border = dw_span_border(p, r0, r1);
        const int32_t h = CO >= 16 && C > 1 ? 2 : 1;
        dw_span_group sg;
        for (c = 0; c < CO; c += 8 * h) {
            const int32_t c0 = CO - c < 8 * h ? CO - 8 * h : c; /* the last group moved back: overlapping channels
                                                                * are computed twice, to the same bytes */
            dw_span_init(p, filter, bias, c0, h, &sg);
            if (border) dw_group_init(p, filter, bias, c0, h == 1, &g);
            if (pairs == 5) dw_span_rows(p, &sg, border ? &g : NULL, 5, h, in, out, c0, toff, r0, r1);
            else if (pairs == 13) dw_span_rows(p, &sg, border ? &g : NULL, 13, h, in, out, c0, toff, r0, r1);
            else dw_span_rows(p, &sg, border ? &g : NULL, pairs, h, in, out, c0, toff, r0, r1);
        }
        return;
    }
    for (c = 0; c < CO; c += CO - c < 16 ? 8 : 16) {
        /* under 16 channels left: groups of 8, the last moved back to end at CO (depth multiplier 1, CO >= 8),
         * overlapping the one before: those channels are computed twice, to the same bytes */
        const int n8 = CO - c < 16;
        const int32_t c0 = n8 && CO - c < 8 ? CO - 8 : c;
        dw_group_init(p, filter, bias, c0, n8, &g);
        if (pairs == 5) /* 3x3: the pair loop unrolled, the weights in registers */
            dw_group_rows(p, &g, 5, in, out, c0, n8, toff, r0, r1);
        else
            dw_group_rows(p, &g, pairs, in, out, c0, n8, toff, r0, r1);
    }
}

#endif
