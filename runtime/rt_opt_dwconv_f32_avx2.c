/* rt_opt_dwconv_f32_avx2.c - f32 depthwise convolution (depth multiplier 1)
 * on AVX2 + FMA without AVX-512: 8 channels per ymm, the accumulators in
 * registers. The generic row kernel of rt_opt_dwconv.c keeps its sums in a
 * stack array (a load, an FMA and a store per tap and vector, one chain
 * through memory per channel block): on 16-channel maps (MediaPipe's
 * landmark and face models) that ran at ~1.7 GMAC/s on a Zen 3 core.
 *
 * Channel groups run outside the pixels of a row, so the group's filter
 * taps stay in L1 (3x3: in registers) for the whole row. Interior pixels
 * (every tap inside the image's width) go four at a time: each tap's weight
 * vector is loaded once for four independent FMA chains; the filter size is
 * a compile-time constant for 3x3 and 5x5 (the loops unroll), any other size
 * takes the same code with a run-time count. Edge pixels and the rows whose
 * taps are clipped add only their taps inside the image. A last group of
 * fewer than 8 channels is loaded and stored under a lane mask. Sums start at
 * the bias and add the taps in the reference's order, as fused multiply-adds. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX2) && !defined(RT_OPT_AVX512) && defined(__FMA__)

/* Lane mask of the first n (< 8) channels, for vmaskmovps. */
static __m256i lanes(int32_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#define LDV(q) (full ? _mm256_loadu_ps(q) : _mm256_maskload_ps((q), m))
#define STV(q, v) (full ? _mm256_storeu_ps((q), (v)) : _mm256_maskstore_ps((q), m, (v)))

/* Stores acc clamped to [lo, hi] at o (all 8 lanes, or those under m when !full). */
RT_OPT_INLINE void dw8_store(float *o, __m256 acc, __m256 lo, __m256 hi, __m256i m, const int full) {
    STV(o, _mm256_min_ps(hi, _mm256_max_ps(lo, acc)));
}

/* The same for four pixels C floats apart. */
RT_OPT_INLINE void dw8_store4(float *o, int64_t C, __m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256 lo, __m256 hi,
                              __m256i m, const int full) {
    dw8_store(o, a0, lo, hi, m, full);
    dw8_store(o + C, a1, lo, hi, m, full);
    dw8_store(o + 2 * C, a2, lo, hi, m, full);
    dw8_store(o + 3 * C, a3, lo, hi, m, full);
}

/* One pixel (x0: its first tap's column) over its taps inside the image, weights from memory. */
RT_OPT_INLINE __m256 dw8_pixel(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                               const float *w, int32_t x0, __m256 acc, __m256i m, const int full) {
    const int64_t C = p->in_c;
    int32_t fy, fx;
    for (fy = ylo; fy < yhi; fy++)
        for (fx = 0; fx < p->filter_w; fx++) {
            const int32_t x = x0 + fx * p->dil_w;
            if (x >= 0 && x < p->in_w)
                acc = _mm256_fmadd_ps(LDV(rp[fy] + x * C), LDV(w + ((int64_t)fy * p->filter_w + fx) * C), acc);
        }
    return acc;
}

/* Interior pixels ox..e of a row, four at a time (returns the first one not done). fk: the filter's
 * size when it is 3 or 5 square (constant: the tap loops unroll), else 0 (p->filter_h x p->filter_w). */
RT_OPT_INLINE int32_t dw8_quads(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                                const float *w, __m256 bv, __m256 lo, __m256 hi, float *orow, int32_t ox, int32_t e,
                                __m256i m, const int full, const int fk) {
    const int64_t C = p->in_c, xs = (int64_t)p->stride_w * C, ds = (int64_t)p->dil_w * C;
    const int32_t fw = fk ? fk : p->filter_w;
    int32_t fy, fx;
    for (; ox + 4 <= e; ox += 4) {
        const int64_t xo = (int64_t)(ox * p->stride_w - p->pad_w) * C;
        __m256 a0 = bv, a1 = bv, a2 = bv, a3 = bv;
        for (fy = ylo; fy < yhi; fy++) {
            const float *r = rp[fy] + xo, *wr = w + (int64_t)fy * fw * C;
            for (fx = 0; fx < fw; fx++) {
                const __m256 wv = LDV(wr + fx * C);
                const float *q = r + fx * ds;
                a0 = _mm256_fmadd_ps(LDV(q), wv, a0);
                a1 = _mm256_fmadd_ps(LDV(q + xs), wv, a1);
                a2 = _mm256_fmadd_ps(LDV(q + 2 * xs), wv, a2);
                a3 = _mm256_fmadd_ps(LDV(q + 3 * xs), wv, a3);
            }
        }
        dw8_store4(orow + (int64_t)ox * C, C, a0, a1, a2, a3, lo, hi, m, full);
    }
    return ox;
}

/* dw8_quads for a 3x3 filter undilated at stride st (1 or 2) with its nine weight vectors in w[]: per
 * filter row, the 3 + 3 st input columns the four pixels read are loaded once (stride 1: 6 loads for 12
 * FMAs, where dw8_quads loads 15). */
RT_OPT_INLINE int32_t dw8_quads3(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                                 const __m256 w[9], __m256 bv, __m256 lo, __m256 hi, float *orow, int32_t ox,
                                 int32_t e, __m256i m, const int full, const int st) {
    const int64_t C = p->in_c;
    int32_t fy, k;
    for (; ox + 4 <= e; ox += 4) {
        const int64_t xo = (int64_t)(ox * st - p->pad_w) * C;
        __m256 a0 = bv, a1 = bv, a2 = bv, a3 = bv;
        for (fy = ylo; fy < yhi; fy++) {
            const float *r = rp[fy] + xo;
            const __m256 u = w[3 * fy], v = w[3 * fy + 1], z = w[3 * fy + 2];
            __m256 x[9];
            for (k = 0; k < 3 + 3 * st; k++) x[k] = LDV(r + k * C);
            a0 = _mm256_fmadd_ps(z, x[2], _mm256_fmadd_ps(v, x[1], _mm256_fmadd_ps(u, x[0], a0)));
            a1 = _mm256_fmadd_ps(z, x[st + 2], _mm256_fmadd_ps(v, x[st + 1], _mm256_fmadd_ps(u, x[st], a1)));
            a2 = _mm256_fmadd_ps(z, x[2 * st + 2], _mm256_fmadd_ps(v, x[2 * st + 1], _mm256_fmadd_ps(u, x[2 * st], a2)));
            a3 = _mm256_fmadd_ps(z, x[3 * st + 2], _mm256_fmadd_ps(v, x[3 * st + 1], _mm256_fmadd_ps(u, x[3 * st], a3)));
        }
        dw8_store4(orow + (int64_t)ox * C, C, a0, a1, a2, a3, lo, hi, m, full);
    }
    return ox;
}

/* One pixel of a 3x3 filter (x0: its first tap's column) over its taps inside the image, the weights in w[]. */
RT_OPT_INLINE __m256 dw8_pixel3(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                                const __m256 w[9], int32_t x0, __m256 acc, __m256i m, const int full) {
    const int64_t C = p->in_c;
    int32_t fy, fx;
    for (fy = ylo; fy < yhi; fy++)
        for (fx = 0; fx < 3; fx++) {
            const int32_t x = x0 + fx * p->dil_w;
            if (x >= 0 && x < p->in_w) acc = _mm256_fmadd_ps(LDV(rp[fy] + x * C), w[3 * fy + fx], acc);
        }
    return acc;
}

/* One output row of one channel group (8 channels at c, or the n < 8 under m when !full). */
RT_OPT_INLINE void dw8_group(const struct rt_dwconv_params *p, const float *const *rp, int32_t ylo, int32_t yhi,
                             const float *w, const float *bias, float *orow, int32_t ox_lo, int32_t ox_hi, __m256i m,
                             const int full) {
    const __m256 lo = _mm256_set1_ps(p->act_min), hi = _mm256_set1_ps(p->act_max);
    const __m256 bv = bias ? LDV(bias) : _mm256_setzero_ps();
    const int64_t C = p->in_c;
    const int sq = p->filter_h == p->filter_w ? p->filter_w : 0;
    int32_t ox = 0, k;
    if (sq == 3) { /* the weights in registers for the whole row */
        const int st = p->dil_w == 1 && p->stride_w <= 2 ? p->stride_w : 0;
        __m256 w9[9];
        for (k = 0; k < 9; k++) w9[k] = LDV(w + k * C);
        for (; ox < p->out_w; ox++) {
            if (ox == ox_lo) {
                if (st == 1) ox = dw8_quads3(p, rp, ylo, yhi, w9, bv, lo, hi, orow, ox, ox_hi, m, full, 1);
                else if (st == 2) ox = dw8_quads3(p, rp, ylo, yhi, w9, bv, lo, hi, orow, ox, ox_hi, m, full, 2);
                else ox = dw8_quads(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, ox_hi, m, full, 3);
                if (ox >= p->out_w) break;
            }
            const __m256 acc = dw8_pixel3(p, rp, ylo, yhi, w9, ox * p->stride_w - p->pad_w, bv, m, full);
            dw8_store(orow + (int64_t)ox * C, acc, lo, hi, m, full);
        }
        return;
    }
    for (; ox < p->out_w; ox++) {
        if (ox == ox_lo) {
            if (sq == 5) ox = dw8_quads(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, ox_hi, m, full, 5);
            else ox = dw8_quads(p, rp, ylo, yhi, w, bv, lo, hi, orow, ox, ox_hi, m, full, 0);
            if (ox >= p->out_w) break;
        }
        const __m256 acc = dw8_pixel(p, rp, ylo, yhi, w, ox * p->stride_w - p->pad_w, bv, m, full);
        dw8_store(orow + (int64_t)ox * C, acc, lo, hi, m, full);
    }
}
#undef LDV
#undef STV

void rt_opt_dw8_f32_row(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                        const float *bias, float *orow, int32_t oy, int32_t c0, int32_t c1) {
    const int32_t C = p->in_c, y0 = oy * p->stride_h - p->pad_h;
    int32_t ox_lo, ox_hi, ylo, yhi, fy, c; /* ox_lo..ox_hi: every tap inside the image's width */
    const float *rp[RT_OPT_DW8_MAX_FH];
    rt_opt_dw_interior(p->in_w, p->out_w, p->filter_w, p->stride_w, p->dil_w, p->pad_w, &ox_lo, &ox_hi);
    rt_opt_taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
    for (fy = 0; fy < p->filter_h; fy++) rp[fy] = img; /* (read only for ylo <= fy < yhi) */
    for (fy = ylo; fy < yhi; fy++) rp[fy] = img + (int64_t)(y0 + fy * p->dil_h - y_base) * p->in_w * C;
    for (c = c0; c + 8 <= c1; c += 8) {
        const float *r8[RT_OPT_DW8_MAX_FH];
        for (fy = 0; fy < p->filter_h; fy++) r8[fy] = rp[fy] + c;
        dw8_group(p, r8, ylo, yhi, filter + c, bias ? bias + c : NULL, orow + c, ox_lo, ox_hi, _mm256_setzero_si256(), 1);
    }
    if (c < c1) {
        const float *r8[RT_OPT_DW8_MAX_FH];
        for (fy = 0; fy < p->filter_h; fy++) r8[fy] = rp[fy] + c;
        dw8_group(p, r8, ylo, yhi, filter + c, bias ? bias + c : NULL, orow + c, ox_lo, ox_hi, lanes(c1 - c), 0);
    }
}

#endif
