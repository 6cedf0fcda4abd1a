/* rt_opt_dwconv.c - depthwise convolution (depth multiplier 1) vectorized
 * over channels: per output pixel, taps outer and channels inner in long
 * contiguous loops the compiler vectorizes (NHWC keeps channels adjacent in
 * input, filter and output). Results equal the reference kernels. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "rt_opt_dw16.h"

#define CHUNK 512 /* channels per pass; the accumulators stay in L1 */

/* (also used by arm64/rt_a64_dwconv_s8.h) */
#define taps_range rt_opt_taps_range

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

/* One output pixel of a 3x3 filter near an edge: the taps inside the image (rows ylo..yhi of rp[],
 * columns x0 + fx dil_w inside [0, in_w)) against the filter held in w[], in the reference's order. */
RT_OPT_INLINE __m512 dw16_edge3(const float *const rp[3], int32_t ylo, int32_t yhi, int32_t x0, int32_t dil_w,
                                int32_t in_w, int64_t C, const __m512 w[9], __m512 acc, __mmask16 m) {
    int32_t fy, fx;
    for (fy = 0; fy < 3; fy++) {
        if (fy < ylo || fy >= yhi) continue;
        for (fx = 0; fx < 3; fx++) {
            const int32_t x = x0 + fx * dil_w;
            if (x >= 0 && x < in_w) acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, rp[fy] + (int64_t)x * C), w[3 * fy + fx], acc);
        }
    }
    return acc;
}

/* The interior pixels ox.. of a 3x3 row, four at a time (to the last four before e; returns the next
 * pixel): each filter row's columns loaded once for the four where they overlap (stride 1: 6 columns,
 * stride 2: 9, else 12). The loads stay masked even for a full group of 16 channels: plain ones the
 * compiler folds into the FMAs, loading a column once per use (a 112x112x32 block ran 12 % slower). */
RT_OPT_INLINE int32_t dw16_quads_k(const float *const rp[3], int32_t ylo, int32_t yhi, int32_t ox, int32_t e,
                                   int32_t sw, int32_t pad_w, int32_t dil_w, int64_t C, const __m512 w[9], __m512 bv,
                                   __m512 lo, __m512 hi, __mmask16 m, float *orow, const int mode) {
    /* a local copy: the stores through orow cannot alias it, so the filter stays in registers */
    const __m512 wl[9] = {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]};
#define DW_LD(q) _mm512_maskz_loadu_ps(m, q)
#define DW_ST(q, v) _mm512_mask_storeu_ps(q, m, v)
    int32_t fy, k;
    for (; ox + 4 <= e; ox += 4) {
        const int64_t xo = (int64_t)(ox * sw - pad_w) * C, xs = (int64_t)sw * C;
        __m512 a0 = bv, a1 = bv, a2 = bv, a3 = bv;
        if (mode) { /* dilation 1, stride 1 or 2 (the mode): 3 + 3 * stride columns per filter row serve all four */
            const int32_t st = mode;
            for (fy = 0; fy < 3; fy++) {
                if (fy < ylo || fy >= yhi) continue;
                const float *r = rp[fy] + xo;
                const __m512 u = wl[3 * fy], v = wl[3 * fy + 1], z = wl[3 * fy + 2];
                __m512 x[9];
                for (k = 0; k < 3 + 3 * st; k++) x[k] = DW_LD(r + k * C);
                a0 = _mm512_fmadd_ps(z, x[2], _mm512_fmadd_ps(v, x[1], _mm512_fmadd_ps(u, x[0], a0)));
                a1 = _mm512_fmadd_ps(z, x[st + 2], _mm512_fmadd_ps(v, x[st + 1], _mm512_fmadd_ps(u, x[st], a1)));
                a2 = _mm512_fmadd_ps(z, x[2 * st + 2], _mm512_fmadd_ps(v, x[2 * st + 1], _mm512_fmadd_ps(u, x[2 * st], a2)));
                a3 = _mm512_fmadd_ps(z, x[3 * st + 2], _mm512_fmadd_ps(v, x[3 * st + 1], _mm512_fmadd_ps(u, x[3 * st], a3)));
            }
        }
        else
            for (k = 0; k < 9; k++) {
                if (k / 3 < ylo || k / 3 >= yhi) continue;
                const float *r = rp[k / 3] + xo + (int64_t)(k % 3) * dil_w * C;
                a0 = _mm512_fmadd_ps(DW_LD(r), wl[k], a0);
                a1 = _mm512_fmadd_ps(DW_LD(r + xs), wl[k], a1);
                a2 = _mm512_fmadd_ps(DW_LD(r + 2 * xs), wl[k], a2);
                a3 = _mm512_fmadd_ps(DW_LD(r + 3 * xs), wl[k], a3);
            }
        float *o = orow + (int64_t)ox * C;
        DW_ST(o, _mm512_min_ps(_mm512_max_ps(a0, lo), hi));
        DW_ST(o + C, _mm512_min_ps(_mm512_max_ps(a1, lo), hi));
        DW_ST(o + 2 * C, _mm512_min_ps(_mm512_max_ps(a2, lo), hi));
        DW_ST(o + 3 * C, _mm512_min_ps(_mm512_max_ps(a3, lo), hi));
    }
#undef DW_LD
#undef DW_ST
    return ox;
}

RT_OPT_INLINE int32_t dw16_quads(const float *const rp[3], int32_t ylo, int32_t yhi, int32_t ox, int32_t e, int32_t sw,
                          int32_t pad_w, int32_t dil_w, int64_t C, const __m512 w[9], __m512 bv, __m512 lo, __m512 hi,
                          __mmask16 m, float *orow) {
    const int mode = dil_w != 1 ? 0 : sw == 1 ? 1 : sw == 2 ? 2 : 0;
#define DW_Q(md) dw16_quads_k(rp, ylo, yhi, ox, e, sw, pad_w, dil_w, C, w, bv, lo, hi, m, orow, md)
    return mode == 1 ? DW_Q(1) : mode == 2 ? DW_Q(2) : DW_Q(0);
#undef DW_Q
}

/* dw_f32_row for depth multiplier 1, 16 channels per zmm with the
 * accumulators in registers. Channel groups run outside the pixels of the
 * row, so a 3x3 filter's nine vectors stay in registers for the whole row
 * and each interior pixel costs one load per FMA (four pixels per step keep
 * four independent FMA chains in flight; at stride 1 they share their
 * columns, 18 loads for 36 FMAs). A row whose top or bottom filter row falls
 * in the padding runs the same loops over its other filter rows, and the
 * edge columns take dw16_edge3 with the filter still in registers (both had
 * gone tap by tap through dw16_f32_pixel, reloading the filter: on 7x7 maps
 * about half the pixels). Taps are added in the reference's order, as fused
 * multiply-adds. */
static void dw16_f32_row(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                         const float *bias, float *orow, int32_t oy, int32_t c0, int32_t c1) {
    const int32_t C = p->in_c, sw = p->stride_w;
    const __m512 lo = _mm512_set1_ps(p->act_min), hi = _mm512_set1_ps(p->act_max);
    int32_t c, ox, k, fy, y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
    int32_t ox_lo, ox_hi; /* interior columns: every tap inside the image's width */
    rt_opt_dw_interior(p->in_w, p->out_w, p->filter_w, sw, p->dil_w, p->pad_w, &ox_lo, &ox_hi);
    taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
    const int is3 = p->filter_h == 3 && p->filter_w == 3 && ylo < yhi;
    for (c = c0; c < c1; c += 16) {
        __mmask16 m = c1 - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (c1 - c)) - 1);
        __m512 bv = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
        __m512 w[9];
        const float *rp[3] = {NULL, NULL, NULL}; /* the filter rows inside the image: their input rows */
        int32_t a = is3 ? ox_lo : p->out_w, e = is3 ? ox_hi : p->out_w;
        for (k = 0; k < 9; k++) w[k] = _mm512_setzero_ps(); /* (read only when is3) */
        if (is3) {
            for (k = 0; k < 9; k++) w[k] = _mm512_maskz_loadu_ps(m, filter + c + (int64_t)k * C);
            for (fy = ylo; fy < yhi; fy++) rp[fy] = img + (int64_t)(y0 + fy * p->dil_h - y_base) * p->in_w * C + c;
        }
        for (ox = 0; ox < p->out_w; ox++) {
            if (ox == a) { /* the interior columns, four pixels at a time */
                ox = dw16_quads(rp, ylo, yhi, ox, e, sw, p->pad_w, p->dil_w, C, w, bv, lo, hi, m, orow + c);
                for (; ox < e; ox++) { /* the last ones (every tap inside: dw16_edge3 takes them all) */
                    const __m512 acc = dw16_edge3(rp, ylo, yhi, ox * sw - p->pad_w, p->dil_w, p->in_w, C, w, bv, m);
                    _mm512_mask_storeu_ps(orow + (int64_t)ox * C + c, m, _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
                }
                if (ox >= p->out_w) break;
            }
            {
                __m512 acc = is3 ? dw16_edge3(rp, ylo, yhi, ox * sw - p->pad_w, p->dil_w, p->in_w, C, w, bv, m)
                                 : dw16_f32_pixel(p, img + c, y_base, filter + c, bv, m, y0, ylo, yhi, ox * sw - p->pad_w);
                _mm512_mask_storeu_ps(orow + (int64_t)ox * C + c, m, _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
            }
        }
    }
}
#endif

/* Whether a vector row kernel takes the convolution (and so a channel range c0..c1 of it): dw16_f32_row
 * (AVX-512) or rt_opt_dw8_f32_row (AVX2 + FMA, rt_opt_dwconv_f32_avx2.c). */
static int dw16_applies(const struct rt_dwconv_params *p) {
#if defined(RT_OPT_AVX512)
    return p->depth_mult == 1;
#elif defined(RT_OPT_DW8_F32)
    return p->depth_mult == 1 && p->filter_h <= RT_OPT_DW8_MAX_FH;
#else
    (void)p;
    return 0;
#endif
}

/* One f32 output row: the vector kernel where it applies (channels c0..c1 only: dw16_applies; else
 * all of them). */
static void dw_f32_row_any(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                           const float *bias, float *orow, int32_t oy, int32_t c0, int32_t c1) {
#if defined(RT_OPT_AVX512)
    if (dw16_applies(p)) {
        if ((p->filter_h != 3 || p->filter_w != 3) && p->filter_h <= RT_OPT_DW16_MAX_FH)
            rt_opt_dw16_f32_row_any(p, img, y_base, filter, bias, orow, oy, c0, c1);
        else
            dw16_f32_row(p, img, y_base, filter, bias, orow, oy, c0, c1);
        return;
    }
#elif defined(RT_OPT_DW8_F32)
    if (dw16_applies(p)) {
        rt_opt_dw8_f32_row(p, img, y_base, filter, bias, orow, oy, c0, c1);
        return;
    }
#endif
    (void)c0, (void)c1;
    dw_f32_row(p, img, y_base, filter, bias, orow, oy);
}

/* Output rows r0..r1 of all images (row r = image r / out_h, row r % out_h). */
static void dw_f32_rows(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                        float *out, int32_t r0, int32_t r1, int32_t hswish) {
    int32_t r, C = p->in_c * p->depth_mult;
    for (r = r0; r < r1; r++) {
        int32_t b = r / p->out_h, oy = r % p->out_h;
        float *o = out + ((int64_t)b * p->out_h + oy) * p->out_w * C;
        dw_f32_row_any(p, in + (int64_t)b * p->in_h * p->in_w * p->in_c, 0, filter, bias, o, oy, 0, p->in_c);
        if (hswish) rt_opt_hard_swish_rows_f32(o, (int64_t)p->out_w * C);
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
    const __m512i off = _mm512_set1_epi32(p->in_offset);
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
        kq = rq16_prepare_z(vm, vs, p->out_offset), kq2 = rq16_prepare_z(vm2, vs2, p->out_offset);
        rq16_bound(&kq, p->act_qmin, p->out_offset), rq16_bound(&kq2, p->act_qmin, p->out_offset);
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
                    acc = _mm512_min_epi32(_mm512_max_epi32(rq16_apply_zb(acc, &kq2), lo), hi);
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
                    acc = _mm512_min_epi32(_mm512_max_epi32(rq16_apply_zb(acc, &kq), lo), hi);
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
                acc = _mm512_min_epi32(_mm512_max_epi32(rq16_apply_zb(acc, &kq), lo), hi);
                _mm_mask_storeu_epi8((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0), k,
                                     _mm512_cvtepi32_epi8(acc));
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
    if (p->filter_h * p->filter_w > 25) return 0;
    return rt_opt_shifts_vec(p->shift, p->in_c * p->depth_mult);
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

/* Copies of at most this many bytes (MobileNetV2 224 int8 A/B with 40 / 160 / 512 KiB: 0.99 / 1.025 /
 * 1.029, its arena unchanged: the copies fit where tensors dead by then were). The AVX512-VNNI kernel
 * copies at most DW_PAD_SMALL where there is no top / left padding (stride 2 "SAME": only the last row and
 * column reach past the image, and on larger images the copy costs more than those pixels' slower path:
 * MobileNetV2 0.35's 24x24x48 stride 2 2.06 -> 2.15 us); the AVX2 kernel's edge path is slower than that,
 * so it copies those too (MobileNetV2 0.35 int8 on Zen 3: see docs/perf-avx2-int8.md). */
#define DW_PAD_MAX (512 * 1024)
#define DW_PAD_SMALL (16 * 1024)
/* AVX-512 builds: filters other than 3x3 the VNNI kernel does not take (under 32 channels: BlazeFace's 24 and
 * 28) go to the AVX2 kernel (two taps per vpmaddwd, several pixels per step; through a copy inside the
 * padding where given scratch), not dw16_s8 (a pixel per chain, vpmulld per tap): 5x5 over 64x64x24 3.7x,
 * 64x64x28 stride 2 3.1x on an Intel Xeon (AVX-512+VNNI). Its 3x3 ran no faster than dw16_s8's. */
#if defined(RT_OPT_DW_VNNI)
#define DW16_AVX2_FIRST(p) ((p)->depth_mult == 1 && ((p)->filter_h != 3 || (p)->filter_w != 3) && !dw_vnni_applies(p))
#else
#define DW16_AVX2_FIRST(p) ((p)->depth_mult == 1 && ((p)->filter_h != 3 || (p)->filter_w != 3))
#endif

int64_t rt_opt_dwconv_s8_scratch_bytes(const struct rt_dwconv_params *p) {
    int64_t bytes;
    if (p->depth_mult != 1 || p->stride_h < 1 || p->stride_w < 1 || p->stride_w > 2 ||
        !(p->filter_h == 3 && p->filter_w == 3 ? p->in_c >= 16 || p->in_c == 8
                                               : p->filter_h <= 5 && p->filter_w <= 5 && p->in_c >= 16))
        return 0;
    /* (0 where no tap falls outside the image, or dilated) */
    bytes = (int64_t)p->batches * rt_opt_padded_elems(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->filter_h,
                                                      p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w,
                                                      p->dil_h, p->dil_w);
    return bytes <= DW_PAD_MAX ? bytes : 0;
}

#if defined(RT_OPT_DW_VNNI)
static int dw_vnni_applies(const struct rt_dwconv_params *p) {
    return p->depth_mult == 1 &&
           (p->in_c >= 32 || (p->in_c == 16 && p->stride_w == 1 && p->dil_w == 1) ||
            ((p->in_c == 8 || p->in_c == 16) && p->stride_w <= 2 && p->dil_w == 1 && p->filter_h == 3 &&
             p->filter_w == 3)) &&
           p->filter_h * p->filter_w <= 4 * RT_OPT_DW_QUADS && p->in_offset >= -127 && p->in_offset <= 128 &&
           shifts_apply(p);
}

#endif

#if defined(RT_OPT_AVX2)
/* The image inside its padding (the input zero point around it) in dst, as q describes it: the same
 * convolution with no padding. */
static void dw_pad_copy(const struct rt_dwconv_params *p, const int8_t *in, int8_t *dst,
                        struct rt_dwconv_params *q) {
    int64_t hp, wp;
    int32_t b;
    rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                       p->pad_h, p->pad_w, &hp, &wp);
    for (b = 0; b < p->batches; b++)
        rt_opt_pad_rows_s8(in + (int64_t)b * p->in_h * p->in_w * p->in_c, p->in_h, p->in_w, p->in_c, hp, wp, p->pad_h,
                           p->pad_w, -p->in_offset, 0, dst + (int64_t)b * hp * wp * p->in_c);
    *q = *p;
    q->in_h = (int32_t)hp, q->in_w = (int32_t)wp, q->pad_h = q->pad_w = 0;
}
#endif

#include "arm64/rt_a64_dwconv_s8.h" /* the AArch64 kernel (RT_A64; uses taps_range) */

/* padded: the image is a copy inside its padding (dw_pad_copy), for the VNNI kernel's interior path. */
static void dw_s8_rows(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1, int padded) {
#if defined(RT_OPT_DW_VNNI)
    if (padded == 1) {
        rt_opt_dw_vnni_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#else
    (void)padded;
#endif
#if defined(RT_OPT_DW_NARROW)
    if (rt_opt_dw_narrow_applies(p) && shifts_apply(p)) {
        rt_opt_dw_narrow_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
#if defined(RT_OPT_DW_VNNI)
    if (dw_vnni_applies(p)) {
        rt_opt_dw_vnni_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
#if defined(RT_OPT_DW16)
    if (padded == 2 || (DW16_AVX2_FIRST(p) && rt_opt_dw_avx2_applies(p))) {
        rt_opt_dw_avx2_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
    if ((p->depth_mult == 1 || p->in_c == 1) && shifts_apply(p)) {
        dw16_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
#if defined(RT_OPT_AVX2)
    if (rt_opt_dw_avx2_applies(p)) { /* AVX2 without VNNI: 16 channels, two taps per vpmaddwd */
        rt_opt_dw_avx2_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
    if (dw8_applies(p)) {
        dw8_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#elif defined(RT_A64)
    if (rt_a64_dw_s8_applies(p)) {
        rt_a64_dw_s8(p, in, filter, bias, out, r0, r1);
        return;
    }
#endif
    rt_opt_dw_s8_rows_portable(p, in, filter, bias, out, r0, r1);
}

/* Threads split the output rows (of all images) into contiguous ranges. */
typedef struct dw_job {
    const struct rt_dwconv_params *p;
    const void *in, *filter, *bias;
    void *out;
    int32_t tasks, s8, padded;
    int32_t hswish; /* f32: HARD_SWISH on each output row (pass fuse_prelu) */
} dw_job;

static void dw_task(void *v, int t) {
    const dw_job *j = v;
    int32_t rows = j->p->batches * j->p->out_h, r0 = (int32_t)((int64_t)rows * t / j->tasks),
            r1 = (int32_t)((int64_t)rows * (t + 1) / j->tasks);
    if (j->s8)
        dw_s8_rows(j->p, (const int8_t *)j->in, (const int8_t *)j->filter, (const int32_t *)j->bias, (int8_t *)j->out,
                   r0, r1, j->padded);
    else
        dw_f32_rows(j->p, (const float *)j->in, (const float *)j->filter, (const float *)j->bias, (float *)j->out, r0,
                    r1, j->hswish);
}

static void dw_run(const struct rt_dwconv_params *p, const void *in, const void *filter, const void *bias, void *out,
                   int32_t s8, void *scratch, const mpcc_parallel *par, int32_t hswish) {
    dw_job j = {p, in, filter, bias, out, 1, s8, 0, hswish};
#if defined(RT_OPT_DW_VNNI)
    struct rt_dwconv_params q;
    const int64_t pad_bytes = s8 && scratch ? rt_opt_dwconv_s8_scratch_bytes(p) : 0;
    if (pad_bytes > 0 && (p->pad_h || p->pad_w || pad_bytes <= DW_PAD_SMALL) && dw_vnni_applies(p) &&
        p->filter_h == 3 && p->filter_w == 3) {
        /* one copy before the rows are split: every thread reads it */
        dw_pad_copy(p, (const int8_t *)in, (int8_t *)scratch, &q);
        j.p = &q, j.in = scratch, j.padded = 1;
    }
    else if (pad_bytes > 0 && DW16_AVX2_FIRST(p) && rt_opt_dw_avx2_pads(p)) { /* (as the #elif below) */
        dw_pad_copy(p, (const int8_t *)in, (int8_t *)scratch, &q);
        j.p = &q, j.in = scratch, j.padded = 2;
    }
#elif defined(RT_OPT_AVX2)
    struct rt_dwconv_params q;
    if (s8 && scratch && rt_opt_dwconv_s8_scratch_bytes(p) > 0 && rt_opt_dw_avx2_pads(p)) {
        /* every pixel through the AVX2 kernel's interior path (rt_opt_dw_avx2_pads) */
        dw_pad_copy(p, (const int8_t *)in, (int8_t *)scratch, &q);
        j.p = &q, j.in = scratch;
    }
#else
    (void)scratch;
#endif
    j.tasks = rt_opt_tasks(par, p->batches * p->out_h);
    if (j.tasks > 1) par->run(par->pool, dw_task, &j, j.tasks);
    else dw_task(&j, 0);
}

void rt_opt_dwconv_f32(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                       float *out, const mpcc_parallel *par) {
    dw_run(p, in, filter, bias, out, 0, NULL, par, 0);
}

void rt_opt_dwconv_f32_hswish(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                              float *out, const mpcc_parallel *par) {
    dw_run(p, in, filter, bias, out, 0, NULL, par, 1);
}

void rt_opt_dwconv_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out, void *scratch, const mpcc_parallel *par) {
    dw_run(p, in, filter, bias, out, 1, scratch, par, 0);
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
    int by_channels; /* tasks split the channels (all rows each), not the rows */
    int32_t hswish;  /* RT_OPT_DW_HSWISH_IN / _OUT: fused HARD_SWISHes */
} conv_dw_job;

static void conv_dw_task(void *v, int t) {
    const conv_dw_job *j = v;
    const struct rt_dwconv_params *d = j->d;
    const int32_t W = d->in_w, K = j->cp ? j->cp->in_c : d->in_c, rows = d->batches * d->out_h;
    const int32_t oc = d->in_c * d->depth_mult;
    const int64_t row = (int64_t)W * d->in_c, si = j->ti == RT_F32 ? 4 : 2, so = j->to == RT_F32 ? 4 : 2;
    int32_t r0 = j->by_channels ? 0 : (int32_t)((int64_t)rows * t / j->tasks);
    int32_t r1 = j->by_channels ? rows : (int32_t)((int64_t)rows * (t + 1) / j->tasks);
    /* by channels: panels p0..p1 of 16 channels, the expansion's columns and the depthwise's channels */
    const int32_t np = (oc + 15) / 16, p0 = j->by_channels ? (int32_t)((int64_t)np * t / j->tasks) : 0;
    const int32_t p1 = j->by_channels ? (int32_t)((int64_t)np * (t + 1) / j->tasks) : np;
    const int32_t c0 = 16 * p0, c1 = 16 * p1 < oc ? 16 * p1 : oc;
    int32_t have_b = -1, have_lo = 0, have_hi = 0, r, n, i;
    float *buf = (float *)(void *)(j->scratch + (int64_t)t * j->slot_bytes);
    char *make = (char *)buf + band_buf_bytes(d, j->band);
    float *orow = (float *)(void *)(make + (j->cp ? make_bytes(d, j->band, j->type, j->ti, K) : 0));
    rt_opt_gemm_params g;
    if (j->cp) g = j->cp->gemm;
    if (j->cp) g.slot_bytes = make_bytes(d, j->band, j->type, j->ti, K); /* rt_opt_fc_typed's room */
    if (j->by_channels) g.n = c1 - c0;
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
                if (j->type == RT_F32) /* (by channels only here: the panels p0.. of the f32 weights) */
                    rt_opt_gemm_f32(&g, (const float *)(const void *)a, (const float *)j->packed_b + (int64_t)p0 * g.k * 16,
                                    j->bias + c0, buf + (int64_t)keep * row + c0);
                else
                    rt_opt_fc_typed(&g, j->type, j->ti, a, (const uint16_t *)j->packed_b, j->bias, RT_F32,
                                    buf + (int64_t)keep * row, make);
                if (j->hswish & RT_OPT_DW_HSWISH_IN)
                    rt_opt_hard_swish_px_f32(buf + (int64_t)keep * row, (int64_t)(yb - ya - keep) * W, d->in_c, c0, c1);
            }
        }
        have_b = b, have_lo = ya, have_hi = yb;
        for (i = 0; i < n; i++) {
            int64_t o = ((int64_t)b * d->out_h + oy + i) * d->out_w * oc;
            if (j->to == RT_F32) {
                dw_f32_row_any(d, buf, ya, j->filter, j->dbias, (float *)j->out + o, oy + i, c0, c1);
                if (j->hswish & RT_OPT_DW_HSWISH_OUT) rt_opt_hard_swish_px_f32((float *)j->out + o, d->out_w, oc, c0, c1);
            } else {
                dw_f32_row_any(d, buf, ya, j->filter, j->dbias, orow, oy + i, c0, c1);
                if (j->hswish & RT_OPT_DW_HSWISH_OUT) rt_opt_hard_swish_px_f32(orow, d->out_w, oc, c0, c1);
                rt_opt_from_f32(orow, (int64_t)d->out_w * oc, j->to, (char *)j->out + o * so);
            }
        }
    }
}

static void conv_dw_run(conv_dw_job *j, int32_t slots, const mpcc_parallel *par) {
    int32_t rows = j->d->batches * j->d->out_h, oc = j->d->in_c * j->d->depth_mult;
    j->tasks = rt_opt_tasks(par, slots);
    /* Few rows a task (MobileNetV2's 14x14 and 7x7 layers): a row split recomputes each task's halo
     * of expansion rows (7 rows in two tasks made 9) and leaves them unequal (3 and 4), so the tasks
     * split the channels instead, in whole 16-channel panels. */
    j->by_channels = j->tasks > 1 && j->cp && j->type == RT_F32 && j->to == RT_F32 && dw16_applies(j->d) &&
                     rows < 16 * j->tasks && oc >= 32 * j->tasks;
    if (!j->by_channels) j->tasks = j->tasks < rows ? j->tasks : (rows > 0 ? rows : 1);
    if (j->tasks > 1) par->run(par->pool, conv_dw_task, j, j->tasks);
    else conv_dw_task(j, 0);
}

void rt_opt_conv_dw_hswish(const rt_opt_conv_params *cp, int32_t type, const void *in, const void *packed_b,
                           const float *bias, const struct rt_dwconv_params *d, const float *filter, const float *dbias,
                           int32_t band, int32_t hswish, void *out, void *scratch, const mpcc_parallel *par) {
    conv_dw_job j = {cp, type, cp->in_type, cp->out_type, in, packed_b, bias, d, filter, dbias, out, scratch,
                     cp->gemm.slot_bytes, band > 0 ? band : 1, 1, 0, hswish};
    conv_dw_run(&j, cp->gemm.slots, par);
}

void rt_opt_conv_dw(const rt_opt_conv_params *cp, int32_t type, const void *in, const void *packed_b,
                    const float *bias, const struct rt_dwconv_params *d, const float *filter, const float *dbias,
                    int32_t band, void *out, void *scratch, const mpcc_parallel *par) {
    rt_opt_conv_dw_hswish(cp, type, in, packed_b, bias, d, filter, dbias, band, 0, out, scratch, par);
}

static void dwconv_typed(const struct rt_dwconv_params *p, int32_t ti, const void *in, const float *filter,
                         const float *bias, int32_t to, void *out, void *scratch, int32_t band, int32_t slots,
                         const mpcc_parallel *par, int32_t hswish) {
    conv_dw_job j = {NULL, RT_F32, ti, to, in, NULL, NULL, p, filter, bias, out, scratch,
                     rt_opt_dwconv_typed_slot_bytes(p, band > 0 ? band : 1, to), band > 0 ? band : 1, 1, 0, hswish};
    conv_dw_run(&j, slots, par);
}

void rt_opt_dwconv_typed(const struct rt_dwconv_params *p, int32_t ti, const void *in, const float *filter,
                         const float *bias, int32_t to, void *out, void *scratch, int32_t band, int32_t slots,
                         const mpcc_parallel *par) {
    dwconv_typed(p, ti, in, filter, bias, to, out, scratch, band, slots, par, 0);
}

void rt_opt_dwconv_typed_hswish(const struct rt_dwconv_params *p, int32_t ti, const void *in, const float *filter,
                                const float *bias, int32_t to, void *out, void *scratch, int32_t band, int32_t slots,
                                const mpcc_parallel *par) {
    dwconv_typed(p, ti, in, filter, bias, to, out, scratch, band, slots, par, RT_OPT_DW_HSWISH_OUT);
}
