/* rt_opt_tconv.c - TRANSPOSE_CONV (NHWC) with weights packed at compile time
 * (pass schedule), instead of the reference's scatter whose innermost loop
 * strides through the filter by filter_h * filter_w * in_c.
 *
 * f32: a GEMM turns a block of input pixels into "columns", one value per
 * (tap, output channel): cols[pixel][(fy * filter_w + fx) * out_c + oc] =
 * sum_ic in[pixel][ic] * W[oc][fy][fx][ic] (rt_opt_gemm_f32 on the filter
 * packed as a [filter_h * filter_w * out_c][in_c] matrix, zero bias, no
 * clamp); each column run of out_c values is then added onto its output
 * pixel (col2im), the output first set to the bias, the activation clamped
 * last. Results equal the reference's up to summation order.
 *
 * int8: the filter packed [fy][fx][ic][oc], every input pixel's taps added
 * into int32 sums (scratch, one per output element) four input channels at a
 * time over contiguous output channels; then TFLite's requantization
 * (rt_opt_requant_i8, double rounding). Integer sums are exact in any order:
 * bit-exact with rt_transpose_conv_i8. With AVX2 the filter is widened once
 * per call to int16 pairs of input channels (scratch) and each input pixel's
 * (tap, channel) sums come from a GEMM row of vpmaddwd (tconv_s8_row); where
 * the taps never overlap (stride = filter) they are requantized at once and
 * copied to their output pixels, else added into the sums as above (segnet
 * int8's two TRANSPOSE_CONVs: about 3x faster, docs/tconv-int8.md). */
#include <math.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

int64_t rt_opt_tconv_columns(const struct rt_tconv_params *p) {
    return ((int64_t)p->filter_h * p->filter_w * p->out_c + RT_OPT_NR - 1) / RT_OPT_NR * RT_OPT_NR;
}

/* int8: the output pixels requantized per call when there are few channels (their bias, multiplier and
 * shift repeated reps times in scratch: one call per output pixel of a one-channel mask spent more in the
 * call than in the arithmetic), a multiple of 8 values; 0 (a call per pixel) from 64 channels on. */
static int32_t tconv_s8_reps(int32_t oc) {
    return oc >= 64 ? 0 : 8 * (32 / oc > 1 ? 32 / oc : 1);
}

/* int8: the columns (tap, output channel) of one input pixel, padded to whole vectors of 8. */
static int64_t tconv_s8_cols(const struct rt_tconv_params *p) {
    return ((int64_t)p->filter_h * p->filter_w * p->out_c + 7) / 8 * 8;
}

int64_t rt_opt_tconv_scratch_bytes(const struct rt_tconv_params *p, int32_t rows, int32_t s8) {
    /* the sums and the input pixel; for x86's vector path (s8 == 2) also one pixel's columns, the filter as
     * int16 pairs (tconv_s8_cols) and the repeated requantization constants */
    const int64_t sums = ((int64_t)p->batches * p->out_h * p->out_w * p->out_c + p->in_c) * (int64_t)sizeof(int32_t);
    if (s8 == 2) {
        const int64_t cols = tconv_s8_cols(p);
        return sums + cols * (int64_t)sizeof(int32_t) +
               (int64_t)(p->in_c + 1) / 2 * cols * 2 * (int64_t)sizeof(int16_t) +
               3 * (int64_t)tconv_s8_reps(p->out_c) * p->out_c * (int64_t)sizeof(int32_t) +
               3 * cols * (int64_t)sizeof(int32_t) + cols;
    }
    if (s8) return sums;
    return (int64_t)rows * rt_opt_tconv_columns(p) * (int64_t)sizeof(float);
}

/* The output row (oy, ox) of input pixel (y, x)'s tap (fy, fx), or -1 outside the output. */
static int64_t tap_out(const struct rt_tconv_params *p, int32_t b, int32_t y, int32_t x, int32_t fy, int32_t fx) {
    int64_t oy = (int64_t)y * p->stride_h - p->pad_h + fy, ox = (int64_t)x * p->stride_w - p->pad_w + fx;
    if (oy < 0 || oy >= p->out_h || ox < 0 || ox >= p->out_w) return -1;
    return ((int64_t)b * p->out_h + oy) * p->out_w + ox;
}

/* The taps tile the output exactly (filter = stride, no padding, out = in x stride: MediaPipe's 2x2 stride-2
 * upsampling): each output value is one column value plus the bias, written once. */
static int tconv_tiles(const struct rt_tconv_params *p) {
    return p->filter_h == p->stride_h && p->filter_w == p->stride_w && p->pad_h == 0 && p->pad_w == 0 &&
           p->out_h == p->in_h * p->stride_h && p->out_w == p->in_w * p->stride_w;
}

void rt_opt_transpose_conv_f32(const struct rt_tconv_params *p, int32_t rows, const float *packed_w,
                               const float *zeros, const float *bias, const float *in, float *out, float *scratch) {
    const int32_t oc = p->out_c, taps = p->filter_h * p->filter_w, pix_per_image = p->in_h * p->in_w;
    const int64_t pixels = (int64_t)p->batches * pix_per_image, outs = (int64_t)p->batches * p->out_h * p->out_w;
    const int32_t np = (int32_t)rt_opt_tconv_columns(p), tiles = tconv_tiles(p);
    rt_opt_gemm_params g;
    int64_t q, p0;
    int32_t c;
    if (!tiles) /* every output starts from the bias; the taps add onto it */
        for (q = 0; q < outs; q++)
            for (c = 0; c < oc; c++) out[q * oc + c] = bias ? bias[c] : 0.0f;
    memset(&g, 0, sizeof g);
    g.n = taps * oc;
    g.k = p->in_c;
    g.lda = p->in_c;
    g.ldc = np;
    g.act_min = -INFINITY;
    g.act_max = INFINITY;
    rows = rows > 0 ? rows : 1;
    for (p0 = 0; p0 < pixels; p0 += rows) {
        int32_t m = pixels - p0 < rows ? (int32_t)(pixels - p0) : rows, r;
        /* the block's first pixel (b, y, x), then stepped along: no division per pixel */
        int32_t b = (int32_t)(p0 / pix_per_image), yx = (int32_t)(p0 % pix_per_image);
        int32_t y = yx / p->in_w, x = yx % p->in_w, fy, fx;
        g.m = m;
        rt_opt_gemm_f32(&g, in + p0 * p->in_c, packed_w, zeros, scratch);
        for (r = 0; r < m; r++) {
            const float *col = scratch + (int64_t)r * np;
            for (fy = 0; fy < p->filter_h; fy++)
                for (fx = 0; fx < p->filter_w; fx++) {
                    const int64_t at = tap_out(p, b, y, x, fy, fx);
                    const float *s = col + (int64_t)(fy * p->filter_w + fx) * oc;
                    float *o;
                    if (at < 0) continue;
                    o = out + at * oc;
                    if (tiles)
                        for (c = 0; c < oc; c++) o[c] = s[c] + (bias ? bias[c] : 0.0f);
                    else
                        for (c = 0; c < oc; c++) o[c] += s[c];
                }
            if (++x == p->in_w) {
                x = 0;
                if (++y == p->in_h) y = 0, b++;
            }
        }
    }
    if (p->act_min > -INFINITY || p->act_max < INFINITY) {
        const float lo = p->act_min, hi = p->act_max;
        for (q = 0; q < outs * oc; q++) {
            float v = out[q];
            v = v < lo ? lo : v;
            out[q] = v > hi ? hi : v;
        }
    }
}

#if defined(RT_OPT_AVX2)
static void add_row_s32(int32_t *restrict o, const int32_t *restrict s, int32_t n) {
    int32_t j;
    for (j = 0; j < n; j++) o[j] += s[j];
}
#else
/* acc[o] += sum_ic a[ic] * w[ic][o] over o < oc; four input channels per pass over acc (one output
 * channel: a dot product). */
static void tap_i8(int32_t *restrict acc, const int32_t *restrict a, const int8_t *restrict w, int32_t in_c,
                   int32_t oc) {
    int32_t ic = 0, o;
    if (oc == 1) { /* one output channel (a segmentation mask): a dot product, vectorized along ic */
        int32_t sum = 0;
        for (; ic < in_c; ic++) sum += a[ic] * w[ic];
        acc[0] += sum;
        return;
    }
    for (; ic + 4 <= in_c; ic += 4) {
        const int32_t a0 = a[ic], a1 = a[ic + 1], a2 = a[ic + 2], a3 = a[ic + 3];
        const int8_t *restrict w0 = w + (int64_t)ic * oc, *restrict w1 = w0 + oc, *restrict w2 = w1 + oc,
                                   *restrict w3 = w2 + oc;
        for (o = 0; o < oc; o++) acc[o] += a0 * w0[o] + a1 * w1[o] + a2 * w2[o] + a3 * w3[o];
    }
    for (; ic < in_c; ic++) {
        const int32_t a0 = a[ic];
        const int8_t *restrict w0 = w + (int64_t)ic * oc;
        for (o = 0; o < oc; o++) acc[o] += a0 * w0[o];
    }
}
#endif

#if defined(RT_OPT_AVX2)
/* The filter ([tap][ic][oc] int8) as int16 pairs of input channels: wp[((ic / 2) * cols + c) * 2 + ic % 2] =
 * W[tap][ic][o] for column c = tap * oc + o, the padding columns and an odd in_c's last channel zero. */
static void widen_pairs_s8(const int8_t *w, int32_t taps, int32_t in_c, int32_t oc, int64_t cols, int16_t *wp) {
    int32_t ic, c;
    memset(wp, 0, sizeof(int16_t) * 2 * (size_t)((in_c + 1) / 2 * cols));
    for (ic = 0; ic < in_c; ic++)
        for (c = 0; c < taps * oc; c++)
            wp[((int64_t)(ic / 2) * cols + c) * 2 + ic % 2] = w[((int64_t)(c / oc) * in_c + ic) * oc + c % oc];
}

/* NV vectors (8 columns each) of one pixel's sums from column c0: per pair of input channels, the pair
 * (ap: two int16 in an int32) broadcast meets each vector's 8 weight pairs in one vpmaddwd (exact: |a| <=
 * 255, |w| <= 128). */
RT_OPT_INLINE void tconv_s8_block(const int NV, const int32_t *ap, int32_t pairs, const int16_t *wp, int64_t cols,
                                  int64_t c0, int32_t *row) {
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    int32_t i;
    for (i = 0; i < pairs; i++) {
        const __m256i a = _mm256_set1_epi32(ap[i]);
        const __m256i *w = (const __m256i *)(const void *)(wp + ((int64_t)i * cols + c0) * 2);
#define TCONV_V(v) \
    if (NV > (v)) s##v = _mm256_add_epi32(s##v, _mm256_madd_epi16(a, _mm256_loadu_si256(w + (v))));
        TCONV_V(0) TCONV_V(1) TCONV_V(2) TCONV_V(3) TCONV_V(4) TCONV_V(5) TCONV_V(6) TCONV_V(7)
#undef TCONV_V
    }
#define TCONV_S(v) \
    if (NV > (v)) _mm256_storeu_si256((__m256i *)(void *)(row + c0 + 8 * (v)), s##v);
    TCONV_S(0) TCONV_S(1) TCONV_S(2) TCONV_S(3) TCONV_S(4) TCONV_S(5) TCONV_S(6) TCONV_S(7)
#undef TCONV_S
}

/* Every (tap, output channel) sum of input pixel px into row (cols int32), the filter widened once per call
 * (wp): a [pixel x in_c] by [in_c x taps * oc] GEMM one row at a time, 64 columns per pass over the pairs
 * (segnet int8's 2 x 2 stride-2 TRANSPOSE_CONV, 32 -> 16 channels: 64 columns, one pass of 16 pairs). */
static void tconv_s8_row(const int8_t *px, int32_t in_c, int32_t in_offset, const int16_t *wp, int64_t cols,
                         int32_t *ap, int32_t *row) {
    const int32_t pairs = (in_c + 1) / 2;
    int64_t c0;
    int32_t i;
    int16_t *a16 = (int16_t *)(void *)ap; /* the pairs as consecutive int16 (little-endian: low half first) */
    const __m256i off = _mm256_set1_epi16((int16_t)in_offset);
    for (i = 0; i + 16 <= in_c; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(a16 + i),
                            _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(px + i))), off));
    for (; i < in_c; i++) a16[i] = (int16_t)(px[i] + in_offset);
    if (in_c % 2) a16[in_c] = 0;
    for (c0 = 0; c0 + 64 <= cols; c0 += 64) tconv_s8_block(8, ap, pairs, wp, cols, c0, row);
    switch ((int)(cols - c0) / 8) {
    case 7: tconv_s8_block(7, ap, pairs, wp, cols, c0, row); break;
    case 6: tconv_s8_block(6, ap, pairs, wp, cols, c0, row); break;
    case 5: tconv_s8_block(5, ap, pairs, wp, cols, c0, row); break;
    case 4: tconv_s8_block(4, ap, pairs, wp, cols, c0, row); break;
    case 3: tconv_s8_block(3, ap, pairs, wp, cols, c0, row); break;
    case 2: tconv_s8_block(2, ap, pairs, wp, cols, c0, row); break;
    case 1: tconv_s8_block(1, ap, pairs, wp, cols, c0, row); break;
    default: break;
    }
}
#endif

void rt_opt_transpose_conv_i8(const struct rt_tconv_params *p, const int8_t *packed_w, const int32_t *bias,
                              const int8_t *in, int8_t *out, void *scratch) {
    const int32_t oc = p->out_c, in_c = p->in_c;
    const int64_t outs = (int64_t)p->batches * p->out_h * p->out_w;
    int32_t *acc = (int32_t *)scratch, *a = acc + outs * oc;
    int32_t b, y, x, fy, fx;
    int64_t q;
#if defined(RT_OPT_AVX2)
    const int64_t cols = tconv_s8_cols(p);
    const int32_t reps = tconv_s8_reps(oc);
    int32_t *row = a + in_c, c;
    int16_t *wp = (int16_t *)(void *)(row + cols);
    int32_t *rb = (int32_t *)(void *)(wp + (in_c + 1) / 2 * cols * 2), *rm = rb + reps * oc, *rs = rm + reps * oc;
    widen_pairs_s8(packed_w, p->filter_h * p->filter_w, in_c, oc, cols, wp);
    if (p->stride_h == p->filter_h && p->stride_w == p->filter_w && p->pad_h >= 0 && p->pad_w >= 0 &&
        p->out_h <= p->in_h * p->stride_h - p->pad_h && p->out_w <= p->in_w * p->stride_w - p->pad_w) {
        /* every output pixel is one tap of one input pixel (a 2 x 2 stride-2 upsampling): each pixel's
         * columns requantized at once (the constants repeated per tap) and copied to their places, no sums */
        int32_t *cb = rs + reps * oc, *cm = cb + cols, *cs = cm + cols;
        int8_t *o8 = (int8_t *)(cs + cols);
        const int32_t taps = p->filter_h * p->filter_w;
        for (c = 0; c < cols; c++) {
            const int32_t ch = c < taps * oc ? c % oc : 0;
            cb[c] = bias ? bias[ch] : 0, cm[c] = p->mult[ch], cs[c] = p->shift[ch];
        }
        for (b = 0; b < p->batches; b++)
            for (y = 0; y < p->in_h; y++)
                for (x = 0; x < p->in_w; x++) {
                    tconv_s8_row(in + (((int64_t)b * p->in_h + y) * p->in_w + x) * in_c, in_c, p->in_offset, wp, cols,
                                 a, row);
                    rt_opt_requant_i8(row, cb, cm, cs, (int32_t)cols, RT_OPT_ROUND_DOUBLE, p->out_offset, p->act_qmin,
                                      p->act_qmax, o8);
                    for (fy = 0; fy < p->filter_h; fy++)
                        for (fx = 0; fx < p->filter_w; fx++) {
                            const int64_t o = tap_out(p, b, y, x, fy, fx);
                            if (o >= 0 && oc == 1) out[o] = o8[fy * p->filter_w + fx];
                            else if (o >= 0) memcpy(out + o * oc, o8 + (fy * p->filter_w + fx) * oc, (size_t)oc);
                        }
                }
        return;
    }
#endif
    memset(acc, 0, sizeof(int32_t) * (size_t)(outs * oc));
    for (b = 0; b < p->batches; b++)
        for (y = 0; y < p->in_h; y++)
            for (x = 0; x < p->in_w; x++) {
                const int8_t *px = in + (((int64_t)b * p->in_h + y) * p->in_w + x) * in_c;
#if defined(RT_OPT_AVX2)
                tconv_s8_row(px, in_c, p->in_offset, wp, cols, a, row);
                for (fy = 0; fy < p->filter_h; fy++)
                    for (fx = 0; fx < p->filter_w; fx++) {
                        const int64_t o = tap_out(p, b, y, x, fy, fx);
                        if (o >= 0) add_row_s32(acc + o * oc, row + (int64_t)(fy * p->filter_w + fx) * oc, oc);
                    }
#else
                int32_t c;
                for (c = 0; c < in_c; c++) a[c] = (int32_t)px[c] + p->in_offset;
                for (fy = 0; fy < p->filter_h; fy++)
                    for (fx = 0; fx < p->filter_w; fx++) {
                        int64_t o = tap_out(p, b, y, x, fy, fx);
                        if (o >= 0)
                            tap_i8(acc + o * oc, a, packed_w + (int64_t)(fy * p->filter_w + fx) * in_c * oc, in_c, oc);
                    }
#endif
            }
#if defined(RT_OPT_AVX2)
    if (reps > 1) { /* few channels: their constants repeated over reps pixels, requantized in one call */
        for (c = 0; c < reps * oc; c++) rb[c] = bias ? bias[c % oc] : 0, rm[c] = p->mult[c % oc], rs[c] = p->shift[c % oc];
        for (q = 0; q + reps <= outs; q += reps)
            rt_opt_requant_i8(acc + q * oc, rb, rm, rs, reps * oc, RT_OPT_ROUND_DOUBLE, p->out_offset, p->act_qmin,
                              p->act_qmax, out + q * oc);
        if (q < outs)
            rt_opt_requant_i8(acc + q * oc, rb, rm, rs, (int32_t)(outs - q) * oc, RT_OPT_ROUND_DOUBLE, p->out_offset,
                              p->act_qmin, p->act_qmax, out + q * oc);
        return;
    }
#endif
    for (q = 0; q < outs; q++)
        rt_opt_requant_i8(acc + q * oc, bias, p->mult, p->shift, oc, RT_OPT_ROUND_DOUBLE, p->out_offset, p->act_qmin,
                          p->act_qmax, out + q * oc);
}
