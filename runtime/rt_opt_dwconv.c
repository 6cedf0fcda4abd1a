/* rt_opt_dwconv.c - depthwise convolution (depth multiplier 1) vectorized
 * over channels: per output pixel, taps outer and channels inner in long
 * contiguous loops the compiler vectorizes (NHWC keeps channels adjacent in
 * input, filter and output). Results equal the reference kernels. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define CHUNK 512 /* channels per pass; the accumulators stay in L1 */

/* Clipped tap range [lo, hi) of a filter along one axis at `origin`. */
static void taps_range(int32_t origin, int32_t dil, int32_t filter, int32_t size, int32_t *lo, int32_t *hi) {
    int32_t t = 0;
    while (t < filter && origin + t * dil < 0) t++;
    *lo = t;
    t = filter;
    while (t > *lo && origin + (t - 1) * dil >= size) t--;
    *hi = t;
}

/* One output row oy of one image: img holds the image's input rows from
 * y_base on (row y at img + (y - y_base) * in_w * in_c). */
static void dw_f32_row(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                       const float *bias, float *orow, int32_t oy) {
    int32_t ox, c0, c, fy, fx, M = p->depth_mult, C = p->in_c * M;
    int32_t y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
    float acc[CHUNK];
    taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
    for (ox = 0; ox < p->out_w; ox++) {
        int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
        float *o = orow + (int64_t)ox * C;
        taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
        for (c0 = 0; c0 < C; c0 += CHUNK) {
            int32_t n = C - c0 < CHUNK ? C - c0 : CHUNK;
            for (c = 0; c < n; c++) acc[c] = bias ? bias[c0 + c] : 0.0f;
            for (fy = ylo; fy < yhi; fy++) {
                int32_t y = y0 + fy * p->dil_h;
                for (fx = xlo; fx < xhi; fx++) {
                    int32_t x = x0 + fx * p->dil_w;
                    const float *ip = img + ((int64_t)(y - y_base) * p->in_w + x) * p->in_c;
                    const float *wp = filter + ((int64_t)fy * p->filter_w + fx) * C + c0;
                    if (M == 1)
                        for (c = 0; c < n; c++) acc[c] += ip[c0 + c] * wp[c];
                    else
                        for (c = 0; c < n; c++) acc[c] += ip[(c0 + c) / M] * wp[c];
                }
            }
            for (c = 0; c < n; c++) {
                float v = acc[c];
                v = v < p->act_min ? p->act_min : v;
                o[c0 + c] = v > p->act_max ? p->act_max : v;
            }
        }
    }
}

#if defined(RT_OPT_AVX512)
/* One output pixel of 16 channels (mask m) over its clipped taps, the
 * accumulator in a register: image edges and filters other than 3x3. */
static __m512 dw16_f32_pixel(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                             __m512 acc, __mmask16 m, int32_t y0, int32_t ylo, int32_t yhi, int32_t x0) {
    int32_t xlo, xhi, fy, fx, C = p->in_c;
    taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
    for (fy = ylo; fy < yhi; fy++) {
        const float *ir = img + (int64_t)(y0 + fy * p->dil_h - y_base) * p->in_w * C;
        const float *wr = filter + (int64_t)fy * p->filter_w * C;
        for (fx = xlo; fx < xhi; fx++)
            acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, ir + (int64_t)(x0 + fx * p->dil_w) * C),
                                  _mm512_maskz_loadu_ps(m, wr + (int64_t)fx * C), acc);
    }
    return acc;
}

#define DW16_TAP3(k, ptr) _mm512_maskz_loadu_ps(m, (ptr) + tap[k])
/* dw_f32_row for depth multiplier 1, 16 channels per zmm with the
 * accumulators in registers. Channel groups run outside the pixels of the
 * row, so a 3x3 filter's nine vectors stay in registers for the whole row
 * and each interior pixel costs one load per FMA (four pixels per step keep
 * four independent FMA chains in flight; at stride 1 they share their
 * columns, 18 loads for 36 FMAs). Taps are added in the reference's
 * order, as fused multiply-adds. */
static void dw16_f32_row(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                         const float *bias, float *orow, int32_t oy) {
    const int32_t C = p->in_c, sw = p->stride_w;
    const __m512 lo = _mm512_set1_ps(p->act_min), hi = _mm512_set1_ps(p->act_max);
    int32_t c, ox, k, y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
    /* Interior columns: every tap inside the image. */
    int32_t ox_lo = (p->pad_w + sw - 1) / sw;
    int32_t last = p->in_w - 1 + p->pad_w - (p->filter_w - 1) * p->dil_w;
    int32_t ox_hi = last < 0 ? 0 : last / sw + 1;
    int64_t tap[9];
    if (ox_hi > p->out_w) ox_hi = p->out_w;
    if (ox_lo > ox_hi) ox_lo = ox_hi;
    for (k = 0; k < 9; k++) tap[k] = ((int64_t)(k / 3) * p->dil_h * p->in_w + (k % 3) * p->dil_w) * C;
    taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
    int full3 = p->filter_h == 3 && p->filter_w == 3 && ylo == 0 && yhi == 3, unit = sw == 1 && p->dil_w == 1;
    for (c = 0; c < C; c += 16) {
        __mmask16 m = C - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (C - c)) - 1);
        __m512 bv = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
        __m512 w[9];
        int32_t a = full3 ? ox_lo : p->out_w, e = full3 ? ox_hi : p->out_w;
        for (k = 0; k < 9; k++) w[k] = _mm512_setzero_ps(); /* (read only when full3) */
        if (full3)
            for (k = 0; k < 9; k++) w[k] = _mm512_maskz_loadu_ps(m, filter + c + (int64_t)k * C);
        for (ox = 0; ox < p->out_w; ox++) {
            if (ox == a) { /* the interior, four pixels at a time */
                const float *base = img + (int64_t)(y0 - y_base) * p->in_w * C + c;
                for (; ox + 4 <= e; ox += 4) {
                    const float *i0 = base + (int64_t)(ox * sw - p->pad_w) * C, *i1 = i0 + (int64_t)sw * C;
                    const float *i2 = i1 + (int64_t)sw * C, *i3 = i2 + (int64_t)sw * C;
                    __m512 a0 = bv, a1 = bv, a2 = bv, a3 = bv;
                    if (unit) { /* stride and dilation 1 along x: six columns per filter row serve all four */
                        int32_t fy;
                        for (fy = 0; fy < 3; fy++) {
                            const float *rp = i0 + tap[3 * fy];
                            __m512 x0 = _mm512_maskz_loadu_ps(m, rp), x1 = _mm512_maskz_loadu_ps(m, rp + C);
                            __m512 x2 = _mm512_maskz_loadu_ps(m, rp + 2 * C), x3 = _mm512_maskz_loadu_ps(m, rp + 3 * C);
                            __m512 x4 = _mm512_maskz_loadu_ps(m, rp + 4 * C), x5 = _mm512_maskz_loadu_ps(m, rp + 5 * C);
                            const __m512 u = w[3 * fy], v = w[3 * fy + 1], z = w[3 * fy + 2];
                            a0 = _mm512_fmadd_ps(z, x2, _mm512_fmadd_ps(v, x1, _mm512_fmadd_ps(u, x0, a0)));
                            a1 = _mm512_fmadd_ps(z, x3, _mm512_fmadd_ps(v, x2, _mm512_fmadd_ps(u, x1, a1)));
                            a2 = _mm512_fmadd_ps(z, x4, _mm512_fmadd_ps(v, x3, _mm512_fmadd_ps(u, x2, a2)));
                            a3 = _mm512_fmadd_ps(z, x5, _mm512_fmadd_ps(v, x4, _mm512_fmadd_ps(u, x3, a3)));
                        }
                    } else
                        for (k = 0; k < 9; k++) {
                            a0 = _mm512_fmadd_ps(DW16_TAP3(k, i0), w[k], a0);
                            a1 = _mm512_fmadd_ps(DW16_TAP3(k, i1), w[k], a1);
                            a2 = _mm512_fmadd_ps(DW16_TAP3(k, i2), w[k], a2);
                            a3 = _mm512_fmadd_ps(DW16_TAP3(k, i3), w[k], a3);
                        }
                    float *o = orow + (int64_t)ox * C + c;
                    _mm512_mask_storeu_ps(o, m, _mm512_min_ps(_mm512_max_ps(a0, lo), hi));
                    _mm512_mask_storeu_ps(o + C, m, _mm512_min_ps(_mm512_max_ps(a1, lo), hi));
                    _mm512_mask_storeu_ps(o + 2 * C, m, _mm512_min_ps(_mm512_max_ps(a2, lo), hi));
                    _mm512_mask_storeu_ps(o + 3 * C, m, _mm512_min_ps(_mm512_max_ps(a3, lo), hi));
                }
                for (; ox < e; ox++) {
                    const float *i0 = base + (int64_t)(ox * sw - p->pad_w) * C;
                    __m512 a0 = bv;
                    for (k = 0; k < 9; k++) a0 = _mm512_fmadd_ps(DW16_TAP3(k, i0), w[k], a0);
                    _mm512_mask_storeu_ps(orow + (int64_t)ox * C + c, m, _mm512_min_ps(_mm512_max_ps(a0, lo), hi));
                }
                if (ox >= p->out_w) break;
            }
            __m512 acc = dw16_f32_pixel(p, img + c, y_base, filter + c, bv, m, y0, ylo, yhi, ox * sw - p->pad_w);
            _mm512_mask_storeu_ps(orow + (int64_t)ox * C + c, m, _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
        }
    }
}
#undef DW16_TAP3
#endif

/* One f32 output row: the 16-lane kernel where it applies. */
static void dw_f32_row_any(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                           const float *bias, float *orow, int32_t oy) {
#if defined(RT_OPT_AVX512)
    if (p->depth_mult == 1) {
        dw16_f32_row(p, img, y_base, filter, bias, orow, oy);
        return;
    }
#endif
    dw_f32_row(p, img, y_base, filter, bias, orow, oy);
}

/* Output rows r0..r1 of all images (row r = image r / out_h, row r % out_h). */
static void dw_f32_rows(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                        float *out, int32_t r0, int32_t r1) {
    int32_t r, C = p->in_c * p->depth_mult;
    for (r = r0; r < r1; r++) {
        int32_t b = r / p->out_h, oy = r % p->out_h;
        dw_f32_row_any(p, in + (int64_t)b * p->in_h * p->in_w * p->in_c, 0, filter, bias,
                       out + ((int64_t)b * p->out_h + oy) * p->out_w * C, oy);
    }
}


#if defined(RT_OPT_AVX2)
#if defined(RT_OPT_AVX512) && defined(__AVX512VL__)
#define RT_OPT_DW16 1
/* dw8_s8 (below) with 16 channels per zmm, any channel count (the last
 * group masked), and also for a single input channel with a depth
 * multiplier (the image's first layer: each tap's one input value is
 * broadcast to all output channels). */
/* acc += x * w per 32-bit lane, for x and w in the lanes' low 16 bits and w's high 16 bits zero. */
#if defined(__AVX512VNNI__)
#define DW16_MAC(acc, x, w) ((acc) = _mm512_dpwssd_epi32((acc), (x), (w)))
#else
#define DW16_MAC(acc, x, w) ((acc) = _mm512_add_epi32((acc), _mm512_madd_epi16((x), (w))))
#endif
static void dw16_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                    int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c * p->depth_mult, taps = p->filter_h * p->filter_w, bcast = p->in_c == 1 && C > 1;
    const int fast3 = p->filter_h == 3 && p->filter_w == 3 && p->dil_h == 1 && p->dil_w == 1, pair = fast3 && C == 8;
    __m512i w2[9], w16[9], vb2 = _mm512_setzero_si512(), vm2 = vb2, vs2 = vb2, vbf = vb2;
    rq16 kq, kq2;
    const __m512i off = _mm512_set1_epi32(p->in_offset), oo = _mm512_set1_epi32(p->out_offset);
    const __m512i lo = _mm512_set1_epi32(p->act_qmin), hi = _mm512_set1_epi32(p->act_qmax);
    __m512i w[25];
    int32_t c0, r, ox, fy, fx, t;
    for (t = 0; t < 9; t++) w2[t] = w16[t] = vb2; /* set below where used (gcc cannot tell) */
    /* One input channel, two pixels per vector: tap fx of the first pixel is byte fx of the filter row's
     * input, of the second byte stride_w + fx; bidx picks them (lanes 0-7, 8-15) from one load. */
    const int bsel = pair && bcast && p->stride_w <= 13;
    const __mmask16 bload = (__mmask16)(bsel ? (1u << (p->stride_w + 3)) - 1 : 0);
    __m512i bidx[3];
    for (t = 0; t < 3; t++)
        bidx[t] = _mm512_mask_blend_epi32(0xFF00, _mm512_set1_epi32(t), _mm512_set1_epi32(t + (bsel ? p->stride_w : 0)));
    for (c0 = 0; c0 < C; c0 += 16) {
        const __mmask16 k = (__mmask16)(C - c0 >= 16 ? 0xFFFF : (1u << (C - c0)) - 1);
        __m512i vb = bias ? _mm512_maskz_loadu_epi32(k, (const void *)(bias + c0)) : _mm512_setzero_si512();
        __m512i vm = _mm512_maskz_loadu_epi32(k, (const void *)(p->mult + c0));
        __m512i vs = _mm512_maskz_loadu_epi32(k, (const void *)(p->shift + c0));
        for (t = 0; t < taps; t++)
            w[t] = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, (const void *)(filter + (int64_t)t * C + c0)));
        if (fast3) {
            /* Interior 3x3 patches: sum (x + off) * w = sum x * w + off * sum w, so the input offset goes
             * into the bias (exact: wrapping int32 arithmetic is a ring) and each tap is one 16-bit
             * multiply-add of x (low half; its sign bits in the high half meet w16's zero) with w16. */
            __m512i ws = _mm512_setzero_si512();
            for (t = 0; t < 9; t++) {
                ws = _mm512_add_epi32(ws, w[t]);
                w16[t] = _mm512_and_si512(w[t], _mm512_set1_epi32(0xFFFF));
            }
            vbf = _mm512_add_epi32(vb, _mm512_mullo_epi32(ws, off));
            if (pair) { /* the 8 channels' constants in both halves */
                for (t = 0; t < 9; t++) w2[t] = _mm512_shuffle_i64x2(w16[t], w16[t], 0x44);
                vb2 = _mm512_shuffle_i64x2(vbf, vbf, 0x44), vm2 = _mm512_shuffle_i64x2(vm, vm, 0x44);
                vs2 = _mm512_shuffle_i64x2(vs, vs, 0x44);
            }
        }
        kq = rq16_prepare(vm, vs), kq2 = rq16_prepare(vm2, vs2);
        for (r = r0; r < r1; r++) {
            int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
            taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
                __m512i acc = vb;
                if (pair && ylo == 0 && yhi == 3 && x0 >= 0 && ox + 1 < p->out_w && x0 + p->stride_w + 3 <= p->in_w) {
                    /* 8 channels, 3x3 inside the image: two output pixels per vector (lanes 8..15 the next) */
                    const int8_t *pa = in + (((int64_t)b * p->in_h + y0) * p->in_w + x0) * p->in_c;
                    const int8_t *pb = pa + (int64_t)p->stride_w * p->in_c;
                    const int64_t rs = (int64_t)p->in_w * p->in_c, cs = p->in_c;
                    const int adj = !bcast && p->stride_w == 1; /* the two pixels' 8 bytes are adjacent */
#define DW16_TAP2(t, o)                                                                                               \
    DW16_MAC(acc,                                                                                                     \
             bcast ? _mm512_mask_blend_epi32(0xFF00, _mm512_set1_epi32(pa[o]), _mm512_set1_epi32(pb[o]))              \
                   : _mm512_cvtepi8_epi32(adj ? _mm_loadu_si128((const __m128i *)(const void *)(pa + (o)))            \
                                              : _mm_unpacklo_epi64(                                                   \
                                                    _mm_loadl_epi64((const __m128i *)(const void *)(pa + (o))),       \
                                                    _mm_loadl_epi64((const __m128i *)(const void *)(pb + (o))))),     \
             w2[t])
                    acc = vb2;
                    if (bsel) { /* one input channel: a filter row's taps of both pixels from one load */
                        for (fy = 0; fy < 3; fy++) {
                            const __m512i rv = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(bload, (const void *)(pa + fy * rs)));
                            DW16_MAC(acc, _mm512_permutexvar_epi32(bidx[0], rv), w2[3 * fy]);
                            DW16_MAC(acc, _mm512_permutexvar_epi32(bidx[1], rv), w2[3 * fy + 1]);
                            DW16_MAC(acc, _mm512_permutexvar_epi32(bidx[2], rv), w2[3 * fy + 2]);
                        }
                    } else {
                        DW16_TAP2(0, 0); DW16_TAP2(1, cs); DW16_TAP2(2, 2 * cs);
                        DW16_TAP2(3, rs); DW16_TAP2(4, rs + cs); DW16_TAP2(5, rs + 2 * cs);
                        DW16_TAP2(6, 2 * rs); DW16_TAP2(7, 2 * rs + cs); DW16_TAP2(8, 2 * rs + 2 * cs);
                    }
#undef DW16_TAP2
                    acc = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(rq16_apply(acc, &kq2), oo), lo), hi);
                    _mm_storeu_si128((__m128i *)(void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C),
                                     _mm512_cvtepi32_epi8(acc));
                    ox++;
                    continue;
                }
                if (fast3 && ylo == 0 && yhi == 3 && x0 >= 0 && x0 + 3 <= p->in_w) {
                    /* 3x3 inside the image: nine taps unrolled */
                    const int8_t *px = in + (((int64_t)b * p->in_h + y0) * p->in_w + x0) * p->in_c + (bcast ? 0 : c0);
                    const int64_t rs = (int64_t)p->in_w * p->in_c, cs = p->in_c;
#define DW16_TAP(t, o)                                                                                              \
    DW16_MAC(acc, bcast ? _mm512_set1_epi32(px[o]) : _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, (const void *)(px + (o)))), \
             w16[t])
                    acc = vbf;
                    DW16_TAP(0, 0); DW16_TAP(1, cs); DW16_TAP(2, 2 * cs);
                    DW16_TAP(3, rs); DW16_TAP(4, rs + cs); DW16_TAP(5, rs + 2 * cs);
                    DW16_TAP(6, 2 * rs); DW16_TAP(7, 2 * rs + cs); DW16_TAP(8, 2 * rs + 2 * cs);
#undef DW16_TAP
                    acc = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(rq16_apply(acc, &kq), oo), lo), hi);
                    _mm_mask_storeu_epi8((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0), k,
                                         _mm512_cvtepi32_epi8(acc));
                    continue;
                }
                taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                for (fy = ylo; fy < yhi; fy++) {
                    const int8_t *row = in + ((int64_t)b * p->in_h + y0 + fy * p->dil_h) * p->in_w * p->in_c;
                    for (fx = xlo; fx < xhi; fx++) {
                        const int8_t *px = row + (int64_t)(x0 + fx * p->dil_w) * p->in_c;
                        __m512i x = bcast ? _mm512_set1_epi32(px[0])
                                          : _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, (const void *)(px + c0)));
                        acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(_mm512_add_epi32(x, off), w[fy * p->filter_w + fx]));
                    }
                }
                acc = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(rq16_apply(acc, &kq), oo), lo), hi);
                _mm_mask_storeu_epi8((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0), k,
                                     _mm512_cvtepi32_epi8(acc));
            }
        }
    }
}
#endif

#if defined(RT_OPT_DW16) && defined(__AVX512VNNI__)
#define RT_OPT_DW_VNNI 1
#define DW_QUADS 7 /* up to 28 taps */
/* Requantized int32 lanes with the output zero point (rq16_prepare_z), clamped to [lo, hi]. */
static inline __m512i dw_rq(__m512i acc, const rq16 *k, __m512i lo, __m512i hi) {
    return _mm512_min_epi32(_mm512_max_epi32(rq16_apply_z(acc, k), lo), hi);
}

/* Byte lanes of four tap vectors (64 channels each) regrouped so each int32
 * lane holds one channel's four taps, as vpdpbusd multiplies them: q[j]'s
 * 128-bit lane L holds channels 16L + 4j .. 16L + 4j + 3 (the in-lane
 * unpacks' order; weights go through the same regrouping). */
static inline void dw_quads(__m512i t0, __m512i t1, __m512i t2, __m512i t3, __m512i q[4]) {
    __m512i a = _mm512_unpacklo_epi8(t0, t1), b = _mm512_unpackhi_epi8(t0, t1);
    __m512i c = _mm512_unpacklo_epi8(t2, t3), d = _mm512_unpackhi_epi8(t2, t3);
    q[0] = _mm512_unpacklo_epi16(a, c), q[1] = _mm512_unpackhi_epi16(a, c);
    q[2] = _mm512_unpacklo_epi16(b, d), q[3] = _mm512_unpackhi_epi16(b, d);
}

/* Per-channel int32 values in dw_quads' order: s[L] holds channels 16L .. 16L + 15 in natural
 * order, v[j] lane 4L + i gets channel 16L + 4j + i, i.e. v[j]'s 128-bit block L is s[L]'s
 * block j (a 4x4 transpose of 128-bit blocks). */
static inline void dw_perm(const __m512i s[4], __m512i v[4]) {
    const __m512i a = _mm512_shuffle_i32x4(s[0], s[1], 0x44), b = _mm512_shuffle_i32x4(s[0], s[1], 0xEE);
    const __m512i c = _mm512_shuffle_i32x4(s[2], s[3], 0x44), d = _mm512_shuffle_i32x4(s[2], s[3], 0xEE);
    v[0] = _mm512_shuffle_i32x4(a, c, 0x88), v[1] = _mm512_shuffle_i32x4(a, c, 0xDD);
    v[2] = _mm512_shuffle_i32x4(b, d, 0x88), v[3] = _mm512_shuffle_i32x4(b, d, 0xDD);
}

/* The lanes of the L-th group of 16 that hold one of n (<= 64) channels. */
static inline __mmask16 dw_mask16(int32_t n, int32_t L) {
    const int32_t m = n - 16 * L < 0 ? 0 : n - 16 * L > 16 ? 16 : n - 16 * L;
    return (__mmask16)((1u << m) - 1u);
}

/* The n (<= 64) int32 values at src as dw_perm's four natural-order vectors (zero past n). */
static inline void dw_load4(const int32_t *src, int32_t n, __m512i s[4]) {
    int32_t L;
    for (L = 0; L < 4; L++) s[L] = _mm512_maskz_loadu_epi32(dw_mask16(n, L), (const void *)(src + 16 * L));
}

/* dw_perm of natural-order vectors nat[] either as they are (C >= 64) or, for `pix` adjacent
 * pixels of C = 64 / pix channels in one vector, each lane 16L + l taking channel
 * (16L + l) mod C: block row L reads nat[(16L mod C) / 16]. */
static inline void dw_perm_rep(const __m512i nat[4], int32_t C, int32_t pix, __m512i v[4]) {
    __m512i r[4];
    int32_t L;
    for (L = 0; L < 4; L++) r[L] = nat[pix > 1 ? (16 * L % C) / 16 : L];
    dw_perm(r, v);
}

/* A run of n output vectors of a 3x3 depthwise convolution whose taps all lie inside the image:
 * `px` the first one's top-left tap, `col` / `row` the distances of the next tap along a filter
 * row / to the next filter row, `step` (input) and `ostep` (output) from one vector to the next;
 * lanes `k` loaded and stored. Everything it reads is an argument or a local, so the loop keeps no
 * bounds checks, index multiplications or reloads of the parameters after the int8 stores
 * (per 64 outputs the pixel-by-pixel loop spent ~25 cycles on those, as many as on the taps). */
RT_OPT_INLINE void dw3x3_body(const int FULL, const int CLAMP, const int8_t *px, int64_t col, int64_t row, int64_t step, int8_t *o,
                              int64_t ostep, int32_t n, __mmask64 k, const __m512i w[][4], const __m512i vb[4],
                              const rq16 kq[4], __m512i lo, __m512i hi) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const rq16 k0 = kq[0], k1 = kq[1], k2 = kq[2], k3 = kq[3];
    int32_t i;
    for (i = 0; i < n; i++, px += step, o += ostep) {
        const int8_t *r1 = px + row, *r2 = px + 2 * row;
        __m512i a0 = vb[0], a1 = vb[1], a2 = vb[2], a3 = vb[3], q[4];
#define DW_T(src)                                                                                                   \
    _mm512_xor_si512(FULL ? _mm512_loadu_si512((const void *)(src)) : _mm512_maskz_loadu_epi8(k, (const void *)(src)), \
                     flip)
#define DW_Q(j, t0, t1, t2, t3)                                                                                     \
    dw_quads(t0, t1, t2, t3, q);                                                                                    \
    RT_DPBUSD(a0, q[0], w[j][0]);                                                                                   \
    RT_DPBUSD(a1, q[1], w[j][1]);                                                                                   \
    RT_DPBUSD(a2, q[2], w[j][2]);                                                                                   \
    RT_DPBUSD(a3, q[3], w[j][3]);
        DW_Q(0, DW_T(px), DW_T(px + col), DW_T(px + 2 * col), DW_T(r1))
        DW_Q(1, DW_T(r1 + col), DW_T(r1 + 2 * col), DW_T(r2), DW_T(r2 + col))
        DW_Q(2, DW_T(r2 + 2 * col), flip, flip, flip) /* taps 9..11 have zero weights */
#undef DW_T
#undef DW_Q
        if (CLAMP)
            a0 = dw_rq(a0, &k0, lo, hi), a1 = dw_rq(a1, &k1, lo, hi), a2 = dw_rq(a2, &k2, lo, hi), a3 = dw_rq(a3, &k3, lo, hi);
        else /* the bounds are int8's: the saturating packs apply them */
            a0 = rq16_apply_z(a0, &k0), a1 = rq16_apply_z(a1, &k1), a2 = rq16_apply_z(a2, &k2), a3 = rq16_apply_z(a3, &k3);
        a0 = _mm512_packs_epi16(_mm512_packs_epi32(a0, a1), _mm512_packs_epi32(a2, a3));
        if (FULL) _mm512_storeu_si512((void *)o, a0);
        else _mm512_mask_storeu_epi8((void *)o, k, a0);
    }
}

/* dw3x3_body for all 64 lanes (plain loads and stores) or for the lanes k; clamped to [lo, hi] unless
 * those are int8's limits. */
static void dw3x3_run(const int8_t *px, int64_t col, int64_t row, int64_t step, int8_t *o, int64_t ostep, int32_t n,
                      __mmask64 k, const __m512i w[][4], const __m512i vb[4], const rq16 kq[4], int32_t qmin,
                      int32_t qmax) {
    const __m512i lo = _mm512_set1_epi32(qmin), hi = _mm512_set1_epi32(qmax);
    const int full = k == ~(__mmask64)0, clamp = qmin > -128 || qmax < 127;
    if (full && clamp) dw3x3_body(1, 1, px, col, row, step, o, ostep, n, k, w, vb, kq, lo, hi);
    else if (full) dw3x3_body(1, 0, px, col, row, step, o, ostep, n, k, w, vb, kq, lo, hi);
    else if (clamp) dw3x3_body(0, 1, px, col, row, step, o, ostep, n, k, w, vb, kq, lo, hi);
    else dw3x3_body(0, 0, px, col, row, step, o, ostep, n, k, w, vb, kq, lo, hi);
}

/* dw3x3_body for the last channel group when it holds n = 16 or 32 channels (C = 144, 96, ...): the
 * group of pk = 64 / n consecutive output pixels shares one vector, each pixel's n bytes per tap
 * moved into lanes [j n, (j + 1) n) by a masked load (and stored back the same way), so the tail costs
 * a quarter or half of a full group per pixel instead of a whole one. `step` / `ostep`: one pixel's
 * input / output distance; w, vb, kq: the group's constants repeated pk times (dw_perm_rep). */
static void dw3x3_gather(const int8_t *px, int64_t col, int64_t row, int64_t step, int8_t *o, int64_t ostep,
                         int32_t groups, int32_t pk, int32_t n, const __m512i w[][4], const __m512i vb[4],
                         const rq16 kq[4], int32_t qmin, int32_t qmax) {
    const __m512i flip = _mm512_set1_epi8((char)0x80), lo = _mm512_set1_epi32(qmin), hi = _mm512_set1_epi32(qmax);
    const rq16 k0 = kq[0], k1 = kq[1], k2 = kq[2], k3 = kq[3];
    const int64_t toff[9] = {0, col, 2 * col, row, row + col, row + 2 * col, 2 * row, 2 * row + col, 2 * row + 2 * col};
    __mmask64 mj[4];
    int32_t g, j, t;
    for (j = 0; j < 4; j++) mj[j] = j < pk ? (((__mmask64)1 << n) - 1) << (j * n) : 0;
    for (g = 0; g < groups; g++, px += pk * step, o += pk * ostep) {
        __m512i tv[12], a0 = vb[0], a1 = vb[1], a2 = vb[2], a3 = vb[3], q[4];
        for (t = 0; t < 9; t++) {
            __m512i v = _mm512_setzero_si512();
            for (j = 0; j < pk; j++) /* lanes [j n, (j + 1) n) from pixel j: its bytes at px_j + toff, j n lanes in */
                v = _mm512_mask_loadu_epi8(v, mj[j], (const void *)(px + j * (step - n) + toff[t]));
            tv[t] = _mm512_xor_si512(v, flip);
        }
        tv[9] = tv[10] = tv[11] = flip; /* taps 9..11 have zero weights */
        for (j = 0; j < 3; j++) {
            dw_quads(tv[4 * j], tv[4 * j + 1], tv[4 * j + 2], tv[4 * j + 3], q);
            RT_DPBUSD(a0, q[0], w[j][0]);
            RT_DPBUSD(a1, q[1], w[j][1]);
            RT_DPBUSD(a2, q[2], w[j][2]);
            RT_DPBUSD(a3, q[3], w[j][3]);
        }
        a0 = dw_rq(a0, &k0, lo, hi), a1 = dw_rq(a1, &k1, lo, hi), a2 = dw_rq(a2, &k2, lo, hi), a3 = dw_rq(a3, &k3, lo, hi);
        a0 = _mm512_packs_epi16(_mm512_packs_epi32(a0, a1), _mm512_packs_epi32(a2, a3));
        for (j = 0; j < pk; j++) _mm512_mask_storeu_epi8((void *)(o + j * (ostep - n)), mj[j], a0);
    }
}

/* Depth multiplier 1 on 8-bit dot products: per output pixel and 64
 * channels, each quad of taps is regrouped (dw_quads) and summed by four
 * vpdpbusd on (x + 128) bytes; the +128 is taken back, and the input
 * offset added, through the bias: sum (x + off) w = sum (x + 128) w +
 * (off - 128) sum w. Taps outside the image read the input zero point
 * (x + off = 0), so every pixel sums all taps. Exact int32 sums (wrapping
 * like the reference's), TFLite requantization. */
static void dw_vnni_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, fw = p->filter_w, taps = p->filter_h * fw, quads = (taps + 3) / 4;
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    int8_t zp[64];
    const int8_t *tp[4 * DW_QUADS];
    int64_t toff[4 * DW_QUADS];
    int32_t tdy[4 * DW_QUADS], tdx[4 * DW_QUADS];
    __m512i w[DW_QUADS][4], vb[4], vm[4], vs[4], wt[DW_QUADS][4], vbt[4], vmt[4], vst[4];
    rq16 kq[4], kqt[4];
    /* pixels per vector: with stride 1 and 16 or 32 channels (the only C < 64 dw_s8_rows sends
     * here), adjacent pixels fill the 64 lanes */
    const int32_t pix = p->stride_w == 1 && p->dil_w == 1 && C < 64 && 64 % C == 0 ? 64 / C : 1;
    const __m512i vlo = _mm512_set1_epi32(p->act_qmin), vhi = _mm512_set1_epi32(p->act_qmax);
    /* the last output column whose taps all lie inside the image's width */
    const int32_t ox_in = (p->in_w - 1 - (fw - 1) * p->dil_w + p->pad_w) >= 0
                              ? (p->in_w - 1 - (fw - 1) * p->dil_w + p->pad_w) / p->stride_w
                              : -1;
    int32_t c0, r, ox, t, j, i;
    memset(zp, (int)(int8_t)(-p->in_offset), sizeof zp);
    for (t = 0; t < 4 * quads; t++) {
        tdy[t] = t / fw * p->dil_h, tdx[t] = t % fw * p->dil_w;
        toff[t] = t < taps ? ((int64_t)tdy[t] * p->in_w + tdx[t]) * C : 0;
    }
    for (c0 = 0; c0 < C; c0 += 64) {
        const int32_t n = C - c0 < 64 ? C - c0 : 64;
        const __mmask64 k = n == 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        /* a last group of 16 or 32 channels after full ones: pk pixels per vector (dw3x3_gather) */
        const int32_t pk = c0 > 0 && (n == 16 || n == 32) && taps == 9 && fw == 3 ? 64 / n : 1;
        const int32_t rep = pix > 1 ? pix : pk; /* pixels per vector of the repeated constants */
        __m512i nat[3][4], wsum[4];
        for (j = 0; j < quads; j++) {
            __m512i tw[4], tt4[4];
            for (i = 0; i < 4; i++) {
                const int8_t *f = filter + (int64_t)(4 * j + i) * C;
                const int tap = 4 * j + i < taps;
                tw[i] = tap ? _mm512_maskz_loadu_epi8(k, (const void *)(f + c0)) : _mm512_setzero_si512();
                /* with `pix` pixels per vector: the tap's C weights repeated */
                tt4[i] = !tap || rep == 1 ? _mm512_setzero_si512()
                         : n == 16        ? _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)(f + c0)))
                                          : _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(const void *)(f + c0)));
            }
            dw_quads(tw[0], tw[1], tw[2], tw[3], w[j]);
            dw_quads(tt4[0], tt4[1], tt4[2], tt4[3], wt[j]);
        }
        /* bias + (off - 128) * sum of the channel's weights, wrapping */
        if (bias) dw_load4(bias + c0, n, nat[0]);
        else
            for (i = 0; i < 4; i++) nat[0][i] = _mm512_setzero_si512();
        for (i = 0; i < 4; i++) wsum[i] = _mm512_setzero_si512();
        for (t = 0; t < taps; t++)
            for (i = 0; i < 4; i++) {
                const int8_t *f8 = filter + (int64_t)t * C + c0 + 16 * i;
                const __m128i f = _mm_maskz_loadu_epi8(dw_mask16(n, i), (const void *)f8);
                wsum[i] = _mm512_add_epi32(wsum[i], _mm512_cvtepi8_epi32(f));
            }
        for (i = 0; i < 4; i++)
            nat[0][i] = _mm512_add_epi32(nat[0][i], _mm512_mullo_epi32(wsum[i], _mm512_set1_epi32(p->in_offset - 128)));
        dw_load4(p->mult + c0, n, nat[1]);
        dw_load4(p->shift + c0, n, nat[2]);
        dw_perm_rep(nat[1], C, 1, vm), dw_perm_rep(nat[2], C, 1, vs);
        dw_perm_rep(nat[0], C, 1, vb);
        for (i = 0; i < 4; i++) kq[i] = rq16_prepare_z(vm[i], vs[i], p->out_offset);
        if (rep > 1) { /* the constants of `rep` pixels of n channels in one vector */
            dw_perm_rep(nat[1], n, rep, vmt), dw_perm_rep(nat[2], n, rep, vst);
            dw_perm_rep(nat[0], n, rep, vbt);
            for (i = 0; i < 4; i++) kqt[i] = rq16_prepare_z(vmt[i], vst[i], p->out_offset);
        } else /* unused then; copied, not recomputed, so nothing is read uninitialized */
            for (i = 0; i < 4; i++) vbt[i] = vb[i], kqt[i] = kq[i];
        for (r = r0; r < r1; r++) {
            int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
            const int8_t *img = in + (int64_t)b * p->in_h * p->in_w * C + c0;
            int row_inside = y0 >= 0 && y0 + (p->filter_h - 1) * p->dil_h < p->in_h;
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w;
                __m512i acc[4] = {vb[0], vb[1], vb[2], vb[3]};
                int inside = row_inside && x0 >= 0 && x0 + (fw - 1) * p->dil_w < p->in_w;
                if (inside && taps == 9 && p->filter_w == 3) {
                    /* the run of output columns from here whose taps are all inside: one call */
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    int8_t *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0;
                    const int32_t cnt = (ox_in < p->out_w - 1 ? ox_in : p->out_w - 1) - ox + 1;
                    const int64_t col = (int64_t)p->dil_w * C, rw = (int64_t)p->dil_h * p->in_w * C;
                    if (pix > 1 && cnt >= pix) {
                        dw3x3_run(px, col, rw, (int64_t)pix * C, o, (int64_t)pix * C, cnt / pix, ~(__mmask64)0,
                                  (const __m512i(*)[4])wt, vbt, kqt, p->act_qmin, p->act_qmax);
                        ox += cnt / pix * pix - 1;
                        continue;
                    }
                    if (pix == 1) {
                        const int64_t st = (int64_t)p->stride_w * C;
                        const int32_t done = pk > 1 ? cnt / pk * pk : 0;
                        if (done)
                            dw3x3_gather(px, col, rw, st, o, C, done / pk, pk, n, (const __m512i(*)[4])wt, vbt, kqt,
                                         p->act_qmin, p->act_qmax);
                        if (cnt > done)
                            dw3x3_run(px + done * st, col, rw, st, o + (int64_t)done * C, C, cnt - done, k,
                                      (const __m512i(*)[4])w, vb, kq, p->act_qmin, p->act_qmax);
                        ox += cnt - 1;
                        continue;
                    }
                }
                if (pix > 1 && inside && ox + pix <= p->out_w && x0 + pix - 1 + (fw - 1) * p->dil_w < p->in_w) {
                    /* stride 1, `pix` pixels inside the image: their channels are 64 contiguous bytes per tap */
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    for (i = 0; i < 4; i++) acc[i] = vbt[i];
                    for (j = 0; j < quads; j++) {
                        __m512i q[4], tv[4];
                        for (i = 0; i < 4; i++)
                            tv[i] = 4 * j + i < taps ? _mm512_xor_si512(_mm512_loadu_si512((const void *)(px + toff[4 * j + i])), flip)
                                                     : flip;
                        dw_quads(tv[0], tv[1], tv[2], tv[3], q);
                        for (i = 0; i < 4; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], q[i], wt[j][i]);
                    }
                    for (i = 0; i < 4; i++)
                        acc[i] = dw_rq(acc[i], &kqt[i], vlo, vhi);
                    _mm512_storeu_si512((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C),
                                        _mm512_packs_epi16(_mm512_packs_epi32(acc[0], acc[1]), _mm512_packs_epi32(acc[2], acc[3])));
                    ox += pix - 1;
                    continue;
                }
                if (inside && taps == 9) {
                    /* 3x3 inside the image: the taps unrolled, no pointer table (a third of the time) */
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    __m512i q[4];
#define DW_TAP(t) _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)(px + toff[t])), flip)
#define DW_QUAD(j, t0, t1, t2, t3)                                                                                  \
    dw_quads(t0, t1, t2, t3, q);                                                                                    \
    RT_DPBUSD(acc[0], q[0], w[j][0]);                                                                               \
    RT_DPBUSD(acc[1], q[1], w[j][1]);                                                                               \
    RT_DPBUSD(acc[2], q[2], w[j][2]);                                                                               \
    RT_DPBUSD(acc[3], q[3], w[j][3]);
                    DW_QUAD(0, DW_TAP(0), DW_TAP(1), DW_TAP(2), DW_TAP(3))
                    DW_QUAD(1, DW_TAP(4), DW_TAP(5), DW_TAP(6), DW_TAP(7))
                    DW_QUAD(2, DW_TAP(8), flip, flip, flip) /* taps 9..11 have zero weights */
#undef DW_TAP
#undef DW_QUAD
                    for (i = 0; i < 4; i++) acc[i] = dw_rq(acc[i], &kq[i], vlo, vhi);
                    _mm512_mask_storeu_epi8((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0), k,
                                            _mm512_packs_epi16(_mm512_packs_epi32(acc[0], acc[1]),
                                                               _mm512_packs_epi32(acc[2], acc[3])));
                    continue;
                }
                if (inside) {
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    for (t = 0; t < 4 * quads; t++) tp[t] = t < taps ? px + toff[t] : zp;
                } else {
                    for (t = 0; t < 4 * quads; t++) {
                        int32_t y = y0 + tdy[t], x = x0 + tdx[t];
                        tp[t] = t < taps && y >= 0 && y < p->in_h && x >= 0 && x < p->in_w
                                    ? img + ((int64_t)y * p->in_w + x) * C
                                    : zp;
                    }
                }
                for (j = 0; j < quads; j++) {
                    __m512i q[4];
                    dw_quads(_mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j]), flip),
                             _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j + 1]), flip),
                             _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j + 2]), flip),
                             _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j + 3]), flip), q);
                    for (i = 0; i < 4; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], q[i], w[j][i]);
                }
                for (i = 0; i < 4; i++)
                    acc[i] = dw_rq(acc[i], &kq[i], vlo, vhi);
                _mm512_mask_storeu_epi8((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0), k,
                                        _mm512_packs_epi16(_mm512_packs_epi32(acc[0], acc[1]),
                                                           _mm512_packs_epi32(acc[2], acc[3])));
            }
        }
    }
}
#endif

/* Depth multiplier 1, channels a multiple of 8, taps <= 25, shifts in
 * [-31, 0]: 8 channels at a time with the filter taps, bias and
 * requantization constants held in vector registers across the whole image;
 * int32 products (exact), TFLite requantization per lane. */
static int shifts_apply(const struct rt_dwconv_params *p) {
    int32_t c;
    if (p->filter_h * p->filter_w > 25) return 0;
    for (c = 0; c < p->in_c * p->depth_mult; c++)
        if (p->shift[c] > 0 || p->shift[c] < -31) return 0;
    return 1;
}

static int dw8_applies(const struct rt_dwconv_params *p) {
    return p->depth_mult == 1 && p->in_c % 8 == 0 && shifts_apply(p);
}

static void dw8_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                   int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, taps = p->filter_h * p->filter_w;
    const __m256i off = _mm256_set1_epi32(p->in_offset), oo = _mm256_set1_epi32(p->out_offset);
    const __m256i lo = _mm256_set1_epi32(p->act_qmin), hi = _mm256_set1_epi32(p->act_qmax);
    __m256i w[25];
    int32_t c0, r, ox, fy, fx, t;
    for (c0 = 0; c0 < C; c0 += 8) {
        __m256i vb = bias ? _mm256_loadu_si256((const __m256i *)(const void *)(bias + c0)) : _mm256_setzero_si256();
        __m256i vm = _mm256_loadu_si256((const __m256i *)(const void *)(p->mult + c0));
        __m256i vs = _mm256_loadu_si256((const __m256i *)(const void *)(p->shift + c0));
        for (t = 0; t < taps; t++)
            w[t] = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(filter + (int64_t)t * C + c0)));
        for (r = r0; r < r1; r++) {
            int32_t b = r / p->out_h, oy = r % p->out_h;
            {
                int32_t y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
                taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
                for (ox = 0; ox < p->out_w; ox++) {
                    int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
                    __m256i acc = vb;
                    taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                    for (fy = ylo; fy < yhi; fy++) {
                        const int8_t *row = in + (((int64_t)b * p->in_h + y0 + fy * p->dil_h) * p->in_w) * C + c0;
                        for (fx = xlo; fx < xhi; fx++) {
                            __m256i x = _mm256_cvtepi8_epi32(_mm_loadl_epi64(
                                (const __m128i *)(const void *)(row + (int64_t)(x0 + fx * p->dil_w) * C)));
                            acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_add_epi32(x, off),
                                                                           w[fy * p->filter_w + fx]));
                        }
                    }
                    acc = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(rq_double8(acc, vm, vs), oo), lo), hi);
                    _mm_storel_epi64((__m128i *)(void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0),
                                     pack8(acc));
                }
            }
        }
    }
}
#endif

static void dw_s8_rows(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1) {
    int32_t r, ox, c0, c, j, fy, fx, M = p->depth_mult, C = p->in_c * M;
    uint32_t acc[CHUNK];
    int32_t acc32[CHUNK];
    /* |(in + off) * w| <= 255 * 128 fits int16 when off is in [-127, 128]. */
    const int16_t off = (int16_t)p->in_offset;
    const int off16 = p->in_offset >= -127 && p->in_offset <= 128;
#if defined(RT_OPT_DW_VNNI)
    if (p->depth_mult == 1 && (p->in_c >= 32 || (p->in_c == 16 && p->stride_w == 1 && p->dil_w == 1)) &&
        p->filter_h * p->filter_w <= 4 * DW_QUADS && p->in_offset >= -127 &&
        p->in_offset <= 128 && shifts_apply(p)) {
        dw_vnni_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
#if defined(RT_OPT_DW16)
    if ((p->depth_mult == 1 || p->in_c == 1) && shifts_apply(p)) {
        dw16_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
#if defined(RT_OPT_AVX2)
    if (dw8_applies(p)) {
        dw8_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
    for (r = r0; r < r1; r++) {
        int32_t b = r / p->out_h, oy = r % p->out_h;
        {
            int32_t y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
            taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
                int8_t *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C;
                taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                for (c0 = 0; c0 < C; c0 += CHUNK) {
                    int32_t n = C - c0 < CHUNK ? C - c0 : CHUNK;
                    for (c = 0; c < n; c++) acc[c] = bias ? (uint32_t)bias[c0 + c] : 0u;
                    for (fy = ylo; fy < yhi; fy++) {
                        int32_t y = y0 + fy * p->dil_h;
                        for (fx = xlo; fx < xhi; fx++) {
                            int32_t x = x0 + fx * p->dil_w;
                            const int8_t *ip = in + (((int64_t)b * p->in_h + y) * p->in_w + x) * p->in_c;
                            const int8_t *wp = filter + ((int64_t)fy * p->filter_w + fx) * C + c0;
                            /* (in + in_offset) * w fits int16 when the offset is a zero point (the
                             * fast path); the sum wraps like TFLite's int32 accumulators. */
                            if (M == 1 && off16) {
                                /* Fixed chunks of 8 lanes: vectorized even for 8..24 channels. */
                                for (c = 0; c + 8 <= n; c += 8)
                                    for (j = 0; j < 8; j++)
                                        acc[c + j] += (uint32_t)(((int32_t)ip[c0 + c + j] + p->in_offset) *
                                                                 (int32_t)wp[c + j]);
                                for (; c < n; c++)
                                    acc[c] += (uint32_t)(int32_t)(int16_t)((int16_t)(ip[c0 + c] + off) * (int16_t)wp[c]);
                            } else if (p->in_c == 1) {
                                const int32_t x = (int32_t)ip[0] + p->in_offset;
                                for (c = 0; c < n; c++) acc[c] += (uint32_t)(x * (int32_t)wp[c]);
                            } else {
                                for (c = 0; c < n; c++)
                                    acc[c] += (uint32_t)(((int32_t)ip[(c0 + c) / M] + p->in_offset) * (int32_t)wp[c]);
                            }
                        }
                    }
                    for (c = 0; c < n; c++) acc32[c] = (int32_t)acc[c];
                    rt_opt_requant_i8(acc32, NULL, p->mult + c0, p->shift + c0, n, RT_OPT_ROUND_DOUBLE, p->out_offset,
                                      p->act_qmin, p->act_qmax, o + c0);
                }
            }
        }
    }
}

/* Threads split the output rows (of all images) into contiguous ranges. */
typedef struct dw_job {
    const struct rt_dwconv_params *p;
    const void *in, *filter, *bias;
    void *out;
    int32_t tasks, s8;
} dw_job;

static void dw_task(void *v, int t) {
    const dw_job *j = v;
    int32_t rows = j->p->batches * j->p->out_h, r0 = (int32_t)((int64_t)rows * t / j->tasks),
            r1 = (int32_t)((int64_t)rows * (t + 1) / j->tasks);
    if (j->s8)
        dw_s8_rows(j->p, (const int8_t *)j->in, (const int8_t *)j->filter, (const int32_t *)j->bias, (int8_t *)j->out,
                   r0, r1);
    else
        dw_f32_rows(j->p, (const float *)j->in, (const float *)j->filter, (const float *)j->bias, (float *)j->out, r0,
                    r1);
}

static void dw_run(const struct rt_dwconv_params *p, const void *in, const void *filter, const void *bias, void *out,
                   int32_t s8, const mpcc_parallel *par) {
    dw_job j = {p, in, filter, bias, out, 1, s8};
    j.tasks = rt_opt_tasks(par, p->batches * p->out_h);
    if (j.tasks > 1) par->run(par->pool, dw_task, &j, j.tasks);
    else dw_task(&j, 0);
}

void rt_opt_dwconv_f32(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                       float *out, const mpcc_parallel *par) {
    dw_run(p, in, filter, bias, out, 0, par);
}

void rt_opt_dwconv_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out, const mpcc_parallel *par) {
    dw_run(p, in, filter, bias, out, 1, par);
}

/* ---- a 1x1 expansion convolution fused with the depthwise one after it ----
 * (pass fuse_dw). Task t owns a range of depthwise output rows and computes
 * them `band` at a time: the expansion rows the band's taps read are made
 * by the direct GEMM into the task's scratch (rows the previous band already
 * made are moved to the front, not recomputed), then the depthwise rows
 * read them there. The expanded tensor (the model's largest) never leaves
 * the cache and takes no arena. */

static int32_t band_in_rows(const struct rt_dwconv_params *d, int32_t band) {
    int32_t rows = (band - 1) * d->stride_h + (d->filter_h - 1) * d->dil_h + 1;
    return rows < d->in_h ? rows : d->in_h;
}

/* The band's expansion rows, then (16-bit weights) rt_opt_fc_half's scratch for them. */
static int64_t band_buf_bytes(const struct rt_dwconv_params *d, int32_t band) {
    return ((int64_t)band_in_rows(d, band) * d->in_w * d->in_c * (int64_t)sizeof(float) + 63) / 64 * 64;
}

/* A slot: the band's input rows (f32), the FC kernel's scratch for making them (16-bit weights: rt_opt_fc_typed's,
 * which also widens a 16-bit input), then one f32 output row when the output is 16-bit. */
static int64_t make_bytes(const struct rt_dwconv_params *d, int32_t band, int32_t type, int32_t ti, int32_t k) {
    return type == RT_F32 ? 0
                          : (rt_opt_fc_typed_scratch(type, ti, RT_F32, band_in_rows(d, band) * d->in_w, d->in_c, k) + 63) /
                                64 * 64;
}

static int64_t row_bytes(const struct rt_dwconv_params *d, int32_t to) {
    return to == RT_F32 ? 0 : (int64_t)d->out_w * d->in_c * d->depth_mult * (int64_t)sizeof(float);
}

int64_t rt_opt_conv_dw_typed_slot_bytes(const struct rt_dwconv_params *d, int32_t band, int32_t type, int32_t k,
                                        int32_t ti, int32_t to) {
    return band_buf_bytes(d, band) + make_bytes(d, band, type, ti, k) + row_bytes(d, to);
}

int64_t rt_opt_conv_dw_slot_bytes(const struct rt_dwconv_params *d, int32_t band, int32_t type, int32_t k) {
    return rt_opt_conv_dw_typed_slot_bytes(d, band, type, k, RT_F32, RT_F32);
}

int64_t rt_opt_dwconv_typed_slot_bytes(const struct rt_dwconv_params *d, int32_t band, int32_t to) {
    return band_buf_bytes(d, band) + row_bytes(d, to);
}

/* cp == NULL: a plain depthwise convolution whose 16-bit input rows are widened into the band buffer. */
typedef struct {
    const rt_opt_conv_params *cp;
    int32_t type, ti, to;
    const void *in;
    const void *packed_b;
    const float *bias;
    const struct rt_dwconv_params *d;
    const float *filter, *dbias;
    void *out;
    char *scratch;
    int64_t slot_bytes;
    int32_t band, tasks;
} conv_dw_job;

static void conv_dw_task(void *v, int t) {
    const conv_dw_job *j = v;
    const struct rt_dwconv_params *d = j->d;
    const int32_t W = d->in_w, K = j->cp ? j->cp->in_c : d->in_c, rows = d->batches * d->out_h;
    const int32_t oc = d->in_c * d->depth_mult;
    const int64_t row = (int64_t)W * d->in_c, si = j->ti == RT_F32 ? 4 : 2, so = j->to == RT_F32 ? 4 : 2;
    int32_t r0 = (int32_t)((int64_t)rows * t / j->tasks), r1 = (int32_t)((int64_t)rows * (t + 1) / j->tasks);
    int32_t have_b = -1, have_lo = 0, have_hi = 0, r, n, i;
    float *buf = (float *)(void *)(j->scratch + (int64_t)t * j->slot_bytes);
    char *make = (char *)buf + band_buf_bytes(d, j->band);
    float *orow = (float *)(void *)(make + (j->cp ? make_bytes(d, j->band, j->type, j->ti, K) : 0));
    rt_opt_gemm_params g;
    if (j->cp) g = j->cp->gemm;
    for (r = r0; r < r1; r += n) {
        int32_t b = r / d->out_h, oy = r % d->out_h, keep = 0;
        n = j->band < d->out_h - oy ? j->band : d->out_h - oy;
        n = n < r1 - r ? n : r1 - r;
        int32_t ya = oy * d->stride_h - d->pad_h;
        int32_t yb = (oy + n - 1) * d->stride_h - d->pad_h + (d->filter_h - 1) * d->dil_h + 1;
        ya = ya > 0 ? ya : 0;
        yb = yb < d->in_h ? yb : d->in_h;
        yb = yb > ya ? yb : ya;
        if (have_b == b && ya >= have_lo && ya < have_hi) {
            keep = (have_hi < yb ? have_hi : yb) - ya;
            if (ya > have_lo) memmove(buf, buf + (int64_t)(ya - have_lo) * row, sizeof(float) * (size_t)(keep * row));
        }
        if (yb - ya - keep > 0) {
            const char *a = (const char *)j->in + ((int64_t)b * d->in_h + ya + keep) * W * K * si;
            if (!j->cp) {
                rt_opt_to_f32(j->ti, a, (int64_t)(yb - ya - keep) * row, buf + (int64_t)keep * row);
            } else {
                g.m = (yb - ya - keep) * W;
                if (j->type == RT_F32)
                    rt_opt_gemm_f32(&g, (const float *)(const void *)a, (const float *)j->packed_b, j->bias,
                                    buf + (int64_t)keep * row);
                else
                    rt_opt_fc_typed(&g, j->type, j->ti, a, (const uint16_t *)j->packed_b, j->bias, RT_F32,
                                    buf + (int64_t)keep * row, make);
            }
        }
        have_b = b, have_lo = ya, have_hi = yb;
        for (i = 0; i < n; i++) {
            int64_t o = ((int64_t)b * d->out_h + oy + i) * d->out_w * oc;
            if (j->to == RT_F32) {
                dw_f32_row_any(d, buf, ya, j->filter, j->dbias, (float *)j->out + o, oy + i);
            } else {
                dw_f32_row_any(d, buf, ya, j->filter, j->dbias, orow, oy + i);
                rt_opt_from_f32(orow, (int64_t)d->out_w * oc, j->to, (char *)j->out + o * so);
            }
        }
    }
}

static void conv_dw_run(conv_dw_job *j, int32_t slots, const mpcc_parallel *par) {
    int32_t rows = j->d->batches * j->d->out_h;
    j->tasks = rt_opt_tasks(par, slots);
    j->tasks = j->tasks < rows ? j->tasks : (rows > 0 ? rows : 1);
    if (j->tasks > 1) par->run(par->pool, conv_dw_task, j, j->tasks);
    else conv_dw_task(j, 0);
}

void rt_opt_conv_dw(const rt_opt_conv_params *cp, int32_t type, const void *in, const void *packed_b,
                    const float *bias, const struct rt_dwconv_params *d, const float *filter, const float *dbias,
                    int32_t band, void *out, void *scratch, const mpcc_parallel *par) {
    conv_dw_job j = {cp, type, cp->in_type, cp->out_type, in, packed_b, bias, d, filter, dbias, out, scratch,
                     cp->gemm.slot_bytes, band > 0 ? band : 1, 1};
    conv_dw_run(&j, cp->gemm.slots, par);
}

void rt_opt_dwconv_typed(const struct rt_dwconv_params *p, int32_t ti, const void *in, const float *filter,
                         const float *bias, int32_t to, void *out, void *scratch, int32_t band, int32_t slots,
                         const mpcc_parallel *par) {
    conv_dw_job j = {NULL, RT_F32, ti, to, in, NULL, NULL, p, filter, bias, out, scratch,
                     rt_opt_dwconv_typed_slot_bytes(p, band > 0 ? band : 1, to), band > 0 ? band : 1, 1};
    conv_dw_run(&j, slots, par);
}
