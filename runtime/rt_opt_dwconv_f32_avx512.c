/* rt_opt_dwconv_f32_avx512.c - f32 depthwise convolution (depth multiplier
 * 1) on AVX-512 for filters other than 3x3 (rt_opt_dwconv.c keeps the 3x3
 * one): 16 channels per zmm (a last, smaller group under a lane mask), the
 * accumulators in registers.
 *
 * Those filters had gone pixel by pixel, tap by tap (dw16_f32_pixel): one
 * chain of 25 dependent FMAs per 5x5 pixel, latency-bound at ~13 GFLOP/s
 * (MediaPipe's BlazeFace, 5x5 over 64x64x24: 400 us a layer on an Intel
 * Xeon with AVX-512). Here channel groups run outside the pixels of a row,
 * and interior pixels (every tap inside the image's width) go several at a
 * time, each an independent chain: undilated 5x5 at stride 1 eight at a
 * time, sharing each filter row's 12 input columns (12 loads and 5 weight
 * loads for 40 FMAs), at stride 2 four at a time (11 columns); other sizes
 * four at a time with a load per tap. Edge pixels and clipped rows add only
 * their taps inside the image. Sums start at the bias and add the taps in
 * the reference's order (filter rows, then columns), as fused multiply-adds:
 * the results equal dw16_f32_pixel's. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "rt_opt_dw16.h"

#if defined(RT_OPT_DW16_F32_ANY)

#define LD(q) _mm512_maskz_loadu_ps(m, (q))

/* One pixel (x0: its first tap's column) over its taps inside the image, weights from memory. (Grouping the
 * edge pixels as independent chains, by branches or by lane masks on the taps outside, ran slower.) */
RT_OPT_INLINE __m512 px16(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                          const float *w, int32_t x0, __m512 acc, __mmask16 m) {
    const int64_t C = p->in_c;
    int32_t fy, fx, xlo, xhi;
    rt_opt_taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
    for (fy = ylo; fy < yhi; fy++)
        for (fx = xlo; fx < xhi; fx++)
            acc = _mm512_fmadd_ps(LD(rp[fy] + (int64_t)(x0 + fx * p->dil_w) * C),
                                  LD(w + ((int64_t)fy * p->filter_w + fx) * C), acc);
    return acc;
}

/* Interior pixels ox..e of a row, N (4 or 8) at a time; returns the first one not done. FK: the filter's
 * width when constant (5), else 0; ST: the stride when the N pixels share their input columns (undilated,
 * FK set: (N - 1) ST + FK columns a filter row), else 0 (a load per tap and pixel). */
RT_OPT_INLINE int32_t runs16(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                             const float *w, __m512 bv, __m512 lo, __m512 hi, float *orow, int32_t ox, int32_t e,
                             __mmask16 m, const int N, const int FK, const int ST) {
    const int64_t C = p->in_c, xs = (int64_t)p->stride_w * C, ds = (int64_t)p->dil_w * C;
    const int32_t fw = FK ? FK : p->filter_w;
    int32_t fy, fx, j, k;
    for (; ox + N <= e; ox += N) {
        const int64_t xo = (int64_t)(ox * p->stride_w - p->pad_w) * C;
        __m512 a[8], x[20];
        for (j = 0; j < N; j++) a[j] = bv;
        for (fy = ylo; fy < yhi; fy++) {
            const float *r = rp[fy] + xo, *wr = w + (int64_t)fy * fw * C;
            if (ST) {
                for (k = 0; k < (N - 1) * ST + FK; k++) x[k] = LD(r + k * C);
                for (fx = 0; fx < FK; fx++) {
                    const __m512 wv = LD(wr + fx * C);
                    for (j = 0; j < N; j++) a[j] = _mm512_fmadd_ps(x[j * ST + fx], wv, a[j]);
                }
            } else {
                for (fx = 0; fx < fw; fx++) {
                    const __m512 wv = LD(wr + fx * C);
                    const float *q = r + fx * ds;
                    for (j = 0; j < N; j++) a[j] = _mm512_fmadd_ps(LD(q + j * xs), wv, a[j]);
                }
            }
        }
        for (j = 0; j < N; j++)
            _mm512_mask_storeu_ps(orow + (int64_t)(ox + j) * C, m, _mm512_min_ps(_mm512_max_ps(a[j], lo), hi));
    }
    return ox;
}

/* The interior pixels ox..e of one channel group: the widest runs that apply, then (returned) the rest. */
static int32_t interior16(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                          const float *w, __m512 bv, __m512 lo, __m512 hi, float *orow, int32_t ox, int32_t e,
                          __mmask16 m) {
    const int five = p->filter_w == 5 && p->dil_w == 1;
    if (five && p->stride_w == 1) {
        ox = runs16(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, e, m, 8, 5, 1);
        return runs16(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, e, m, 4, 5, 1);
    }
    if (five && p->stride_w == 2) return runs16(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, e, m, 4, 5, 2);
    return runs16(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, e, m, 4, 0, 0);
}

void rt_opt_dw16_f32_row_any(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                             const float *bias, float *orow, int32_t oy, int32_t c0, int32_t c1) {
    const int64_t C = p->in_c;
    const int32_t y0 = oy * p->stride_h - p->pad_h;
    const __m512 lo = _mm512_set1_ps(p->act_min), hi = _mm512_set1_ps(p->act_max);
    int32_t ox_lo, ox_hi, ylo, yhi, fy, c, ox; /* ox_lo..ox_hi: every tap inside the image's width */
    const float *rp[RT_OPT_DW16_MAX_FH];
    rt_opt_dw_interior(p->in_w, p->out_w, p->filter_w, p->stride_w, p->dil_w, p->pad_w, &ox_lo, &ox_hi);
    rt_opt_taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
    for (c = c0; c < c1; c += 16) {
        const __mmask16 m = c1 - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (c1 - c)) - 1);
        const __m512 bv = bias ? LD(bias + c) : _mm512_setzero_ps();
        for (fy = 0; fy < p->filter_h; fy++) rp[fy] = img; /* (read only for ylo <= fy < yhi) */
        for (fy = ylo; fy < yhi; fy++) rp[fy] = img + ((int64_t)(y0 + fy * p->dil_h - y_base) * p->in_w) * C + c;
        for (ox = 0; ox < p->out_w; ox++) {
            if (ox == ox_lo) {
                ox = interior16(p, rp, ylo, yhi, filter + c, bv, lo, hi, orow + c, ox, ox_hi, m);
                if (ox >= p->out_w) break;
            }
            const __m512 acc = px16(p, rp, ylo, yhi, filter + c, ox * p->stride_w - p->pad_w, bv, m);
            _mm512_mask_storeu_ps(orow + (int64_t)ox * C + c, m, _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
        }
    }
}

#undef LD
#endif
