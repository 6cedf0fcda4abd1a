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

void rt_opt_dw_avx2_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, CO = C * p->depth_mult, taps = p->filter_h * p->filter_w, pairs = (taps + 1) / 2;
    int64_t toff[2 * DW_MAX_PAIRS];
    dw_group g;
    int32_t c, t;
    for (t = 0; t < 2 * pairs; t++) /* (a last odd tap's partner: its weights are zero, it reads tap 0) */
        toff[t] = t < taps ? ((int64_t)(t / p->filter_w) * p->dil_h * p->in_w + (int64_t)(t % p->filter_w) * p->dil_w) * C
                           : 0;
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
