/* rt_opt_im2col_half.c - the A operand of the bf16 convolutions (rt_opt_gemm_half.c): patch rows as
 * bf16 pairs (im2col of an f32 image rounded, or of a bf16 image copied), and the row table through which
 * the vdpbf16ps kernels read a bf16 image in place. Internal (rt_opt_internal.h). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

int64_t rt_opt_conv_bf16_padded_bytes(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w,
                                      int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                                      int32_t pad_h, int32_t pad_w, int32_t dil_h, int32_t dil_w) {
    const int64_t bytes = 2 * rt_opt_padded_elems(in_h, in_w, in_c, out_h, out_w, filter_h, filter_w, stride_h,
                                                  stride_w, pad_h, pad_w, dil_h, dil_w);
    return bytes <= 16384 ? (bytes + 63) / 64 * 64 : 0;
}

#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
/* d[0..n) = s[0..n) as bf16, rounded as rt_f32_to_bf16 rounds (vcvtneps2bf16). */
static inline void run_bf16(uint16_t *d, const float *s, int32_t n) {
    int32_t i;
    for (i = 0; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(d + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(s + i)));
#if defined(__AVX512VL__)
    if (n - i > 0 && n - i <= 4) { /* a run of up to 4 (a 1-channel 3-tap filter row): 16-byte moves, which
                                    * seldom cross a cache line as the wider masked ones do */
        const __mmask8 m = (__mmask8)((1u << (n - i)) - 1u);
        _mm_mask_storeu_epi16((void *)(d + i), m, (__m128i)_mm_cvtneps_pbh(_mm_maskz_loadu_ps(m, s + i)));
        return;
    }
    if (i < n) { /* a short run (a few input channels) in one masked step */
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        _mm256_mask_storeu_epi16((void *)(d + i), m, (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, s + i)));
        return;
    }
#endif
    for (; i < n; i++) d[i] = rt_f32_to_bf16(s[i]);
}
#define RUN_BF16(d, s, n) run_bf16((d), (s), (n))

/* Patch rows m0..m0+rows of image `in` as bf16 pairs (rows of (K + 1) / 2 words, an odd K's last half 0). */
static void im2col_bf16_rows(const rt_opt_conv_params *p, const float *in, int32_t m0, int32_t rows, uint16_t *dst) {
    const int32_t kdim = p->gemm.k, ldd = (kdim + 1) / 2 * 2;
    IM2COL(float, uint16_t, (uint16_t)0, RUN_BF16);
}

/* im2col rows of a bf16 input as the bf16 pairs: a plain copy. */
/* d[0..n) = s[0..n) for 16-bit values: the runs of im2col are short (a filter row, a tap's channels),
 * and a libc memcpy call for each took a tenth of a bf16 ResNet's time. */
static inline void copy16(uint16_t *d, const uint16_t *s, int32_t n) {
    int32_t i = 0;
#if defined(__AVX512VL__)
    if (n <= 8) { /* a short run (a 1-channel filter row): a 16-byte move (see run_bf16) */
        const __mmask8 m = (__mmask8)((1u << n) - 1u);
        _mm_mask_storeu_epi16((void *)d, m, _mm_maskz_loadu_epi16(m, (const void *)s));
        return;
    }
    if (n <= 16) { /* up to 16 (a 3-channel 3-tap filter row, 9): a 32-byte move, not a 64-byte one */
        const __mmask16 m = (__mmask16)((1u << n) - 1u);
        _mm256_mask_storeu_epi16((void *)d, m, _mm256_maskz_loadu_epi16(m, (const void *)s));
        return;
    }
#endif
    for (; i + 32 <= n; i += 32) _mm512_storeu_si512((void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
    if (i < n) {
        const __mmask32 m = (__mmask32)((1u << (n - i)) - 1u);
        _mm512_mask_storeu_epi16((void *)(d + i), m, _mm512_maskz_loadu_epi16(m, (const void *)(s + i)));
    }
}
#define RUN_COPY16(d, s, n) copy16((d), (s), (n))
static void im2col_copy16_rows(const rt_opt_conv_params *p, const uint16_t *in, int32_t m0, int32_t rows, uint16_t *dst) {
    const int32_t kdim = p->gemm.k, ldd = (kdim + 1) / 2 * 2;
    IM2COL(uint16_t, uint16_t, (uint16_t)0, RUN_COPY16);
}

void rt_opt_pad_image_bf16(const rt_opt_conv_params *p, int32_t ti, const void *in, uint16_t *pad,
                           rt_opt_conv_params *pp) {
    const int64_t run = (int64_t)p->in_w * p->in_c;
    int64_t hp, wp, y;
    rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                       p->pad_h, p->pad_w, &hp, &wp);
    memset(pad, 0, sizeof(uint16_t) * (size_t)(hp * wp * p->in_c));
    for (y = 0; y < p->in_h; y++) {
        uint16_t *d = pad + ((y + p->pad_h) * wp + p->pad_w) * p->in_c;
        if (ti == RT_F32) run_bf16(d, (const float *)in + y * run, (int32_t)run);
        else copy16(d, (const uint16_t *)in + y * run, (int32_t)run);
    }
    *pp = *p;
    pp->in_h = (int32_t)hp, pp->in_w = (int32_t)wp, pp->pad_h = pp->pad_w = 0;
}

/* Whether edge_row16 takes this convolution: a tap's in_c values in one vector (16 floats, 32 halves). */
static int edge_taps(const rt_opt_conv_params *p, int32_t ti) { return p->in_c <= (ti == RT_F32 ? 16 : 32); }

/* One patch row cut by the image's edge, as bf16: tap by tap, the in_c values of an f32 (rounded) or bf16
 * (copied) image by one masked move, or zeros; then `pad` zero halves (K's odd half). IM2COL's per-tap
 * loops took ~150 cycles a row: a third of a 32x32 3-channel first convolution's time went to its 124
 * edge rows. */
static void edge_row16(const rt_opt_conv_params *p, int32_t ti, const void *in, int32_t y0, int32_t x0, uint16_t *d,
                       int32_t pad) {
    const int32_t inc = p->in_c;
    const __mmask32 cm = inc == 32 ? ~(__mmask32)0 : ((__mmask32)1 << inc) - 1;
    int32_t fy, fx;
#if defined(__AVX512VL__)
    if (inc <= (ti == RT_F32 ? 8 : 16)) { /* a tap in 16 or 32 bytes: moves no wider (see run_bf16) */
        const __mmask16 m = (__mmask16)((1u << inc) - 1u);
        const int narrow = inc <= (ti == RT_F32 ? 4 : 8);
        for (fy = 0; fy < p->filter_h; fy++) {
            const int32_t y = y0 + fy * p->dil_h, row_ok = y >= 0 && y < p->in_h;
            for (fx = 0; fx < p->filter_w; fx++, d += inc) {
                const int32_t x = x0 + fx * p->dil_w;
                const int64_t at = ((int64_t)y * p->in_w + x) * inc;
                const int in_img = row_ok && x >= 0 && x < p->in_w;
                if (ti == RT_F32) { /* 8 halves at most: one 16-byte store */
                    __m128i v = _mm_setzero_si128();
                    if (in_img)
                        v = narrow ? (__m128i)_mm_cvtneps_pbh(_mm_maskz_loadu_ps((__mmask8)m, (const float *)in + at))
                                   : (__m128i)_mm256_cvtneps_pbh(_mm256_maskz_loadu_ps((__mmask8)m, (const float *)in + at));
                    _mm_mask_storeu_epi16((void *)d, (__mmask8)m, v);
                } else if (narrow) {
                    const __m128i v = in_img ? _mm_maskz_loadu_epi16((__mmask8)m, (const void *)((const uint16_t *)in + at))
                                             : _mm_setzero_si128();
                    _mm_mask_storeu_epi16((void *)d, (__mmask8)m, v);
                } else {
                    const __m256i v = in_img ? _mm256_maskz_loadu_epi16(m, (const void *)((const uint16_t *)in + at))
                                             : _mm256_setzero_si256();
                    _mm256_mask_storeu_epi16((void *)d, m, v);
                }
            }
        }
        if (pad) d[0] = 0;
        return;
    }
#endif
    for (fy = 0; fy < p->filter_h; fy++) {
        const int32_t y = y0 + fy * p->dil_h, row_ok = y >= 0 && y < p->in_h;
        for (fx = 0; fx < p->filter_w; fx++, d += inc) {
            const int32_t x = x0 + fx * p->dil_w;
            const int64_t at = ((int64_t)y * p->in_w + x) * inc;
            if (!(row_ok && x >= 0 && x < p->in_w)) {
                _mm512_mask_storeu_epi16((void *)d, cm, _mm512_setzero_si512());
                continue;
            }
            if (ti != RT_F32) {
                _mm512_mask_storeu_epi16((void *)d, cm, _mm512_maskz_loadu_epi16(cm, (const void *)((const uint16_t *)in + at)));
                continue;
            }
            _mm512_mask_storeu_epi16((void *)d, (__mmask32)(__mmask16)cm, /* no AVX512VL needed */
                                     _mm512_castsi256_si512((__m256i)_mm512_cvtneps_pbh(
                                         _mm512_maskz_loadu_ps((__mmask16)cm, (const float *)in + at))));
        }
    }
    if (pad) d[0] = 0;
}

#if defined(__AVX512VL__)
/* 16 halves of a run from element e of a bf16 image, or of an f32 one rounded (vcvtneps2bf16, as run_bf16). */
static inline __m256i run16(const void *src, int32_t ti, int64_t e) {
    if (ti == RT_F32) return (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps((const float *)src + e));
    return _mm256_loadu_si256((const __m256i *)(const void *)((const uint16_t *)src + e));
}

/* n patches (rows of ldd halves from d), each fh runs of `run` values of a bf16 or (ti RT_F32) f32 image
 * from element at, the patches sx apart, the runs step apart, in chunks of 16: every chunk but a patch's
 * last by a plain 32-byte move whose excess the next chunk overwrites, the last by a masked store (its
 * lanes `last`), then an odd K's pad half (pad). Plain loads of 16 values: the caller keeps them inside the
 * image, and the plain stores inside the row (plain_runs in rt_opt_im2col_bf16). Masked moves of a few
 * bytes cost ~8 cycles each here: a 32x32 3-channel 3x3 convolution's 3072 runs of 9 took two thirds of
 * its time (9.6 us; 5.4 with the plain moves). */
static void plain_patches16(const void *src, int32_t ti, int64_t at, int64_t sx, int64_t step, int32_t fh, int32_t run,
                            __mmask16 last, int32_t n, uint16_t *d, int32_t ldd, int pad) {
    const int32_t kdim = fh * run;
    int32_t q, fy, c;
    for (q = 0; q < n; q++, at += sx, d += ldd) {
        for (fy = 0; fy < fh; fy++)
            for (c = 0; c < run; c += 16) {
                uint16_t *to = d + (int64_t)fy * run + c;
                if (fy + 1 < fh || c + 16 < run) _mm256_storeu_si256((__m256i *)(void *)to, run16(src, ti, at + fy * step + c));
                else _mm256_mask_storeu_epi16((void *)to, last, run16(src, ti, at + fy * step + c));
            }
        if (pad) d[kdim] = 0;
    }
}
#endif

/* Patch rows m0..m0+rows of an f32 (ti RT_F32: rounded) or bf16 (copied) image as bf16 pairs; the rows
 * whose patch lies inside the image (most of them) as filter_h runs of filter_w * in_c values without
 * IM2COL's per-row and per-tap bounds work (which took half of the time of a 16-channel 3x3 convolution). */
void rt_opt_im2col_bf16(const rt_opt_conv_params *p, int32_t ti, const void *in, int32_t m0, int32_t rows,
                        uint16_t *dst) {
    const int32_t kdim = p->gemm.k, ldd = (kdim + 1) / 2 * 2, inc = p->in_c, fh = p->filter_h, fw = p->filter_w;
    const int32_t run = fw * inc;
    const int64_t rs = (int64_t)p->in_w * inc, step = (int64_t)p->dil_h * rs;
    int32_t r, fy, oy = m0 / p->out_w, ox = m0 % p->out_w;
    /* runs not whole vectors (a few channels: 3 x 3, 3 x 8) by plain moves where the row has room for them
     * (plain_patches16: its last plain chunk, a 16-value move, ends in the row) */
    const int32_t tail = run - (run - 1) / 16 * 16, last_plain = run > 16 ? kdim - tail - 16 : (fh - 2) * run;
    const int plain_runs = run % 16 != 0 && fh * run > 16 && last_plain + 16 <= ldd;
    const __mmask16 run_mask = (__mmask16)(tail < 16 ? (1u << tail) - 1u : 0xFFFFu);
    const int32_t span = (run + 15) / 16 * 16; /* what the plain loads of a run reach */
    const int64_t total = (int64_t)p->in_h * rs, sx = (int64_t)p->stride_w * inc; /* the image's elements */
    for (r = 0; r < rows; r++) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        uint16_t *d = dst + (int64_t)r * ldd;
        if (p->dil_w == 1 && y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h && x0 >= 0 && x0 + fw <= p->in_w) {
            const int64_t at = (int64_t)y0 * rs + (int64_t)x0 * inc;
#if defined(__AVX512VL__)
            if (plain_runs) {
                /* the interior patches along this output row at once, as far as the image goes on past
                 * their last run's plain loads */
                int32_t n = (p->in_w - fw - x0) / p->stride_w + 1;
                n = n < p->out_w - ox ? n : p->out_w - ox;
                n = n < rows - r ? n : rows - r;
                while (n > 0 && at + (int64_t)(n - 1) * sx + (int64_t)(fh - 1) * step + span > total) n--;
                if (n > 0) {
                    plain_patches16(in, ti, at, sx, step, fh, run, run_mask, n, d, ldd, ldd > kdim);
                    r += n - 1;
                    ox += n;
                    if (ox == p->out_w) ox = 0, oy++;
                    continue;
                }
            }
#endif
            for (fy = 0; fy < fh; fy++)
                if (ti == RT_F32) run_bf16(d + (int64_t)fy * run, (const float *)in + at + fy * step, run);
                else copy16(d + (int64_t)fy * run, (const uint16_t *)in + at + fy * step, run);
            if (ldd > kdim) d[kdim] = 0;
        } else if (edge_taps(p, ti)) {
            edge_row16(p, ti, in, y0, x0, d, ldd > kdim);
        } else if (ti == RT_F32) {
            im2col_bf16_rows(p, in, m0 + r, 1, d);
        } else {
            im2col_copy16_rows(p, in, m0 + r, 1, d);
        }
        if (++ox == p->out_w) ox = 0, oy++;
    }
}

/* Scratch bytes of conv_rows_bf16 for `block` rows (copy, table, zero row), or 0 where it does not apply:
 * dilated columns, or an odd in_c, whose filter rows would start between the words of bf16 pairs. */
int64_t rt_opt_conv_rows_bf16_bytes(const rt_opt_conv_params *p, int32_t block) {
    const int32_t seg = p->filter_w * p->in_c;
    if (p->dil_w != 1 || p->in_c % 2) return 0;
    return ((int64_t)block * p->gemm.k * 2 + 63) / 64 * 64 + (int64_t)block * p->filter_h * 8 + (int64_t)seg * 2;
}

/* The row table of patch rows m0..m0+rows of a bf16 image (even in_c, 4-byte aligned) for the bf16 GEMM,
 * no im2col copy: filter_h segments of fw * in_c / 2 pairs a row, each a filter row read in place (a row above or below the image:
 * `zero`); only patches cut by the left or right edge are copied, in im2col layout (K halves a row), to
 * `copy`. 16-channel 3x3 convolutions spent a quarter of their time in the im2col copies. */
void rt_opt_conv_rows_bf16(const rt_opt_conv_params *p, const uint16_t *in, int32_t m0, int32_t rows, uint16_t *copy,
                           const uint32_t **tab, uint16_t *zero) {
    const int32_t inc = p->in_c, inw = p->in_w, fh = p->filter_h, fw = p->filter_w, seg = fw * inc;
    const int64_t rstep = (int64_t)p->dil_h * inw * inc, sx = (int64_t)p->stride_w * inc;
    int32_t r, fy, q, oy = m0 / p->out_w, ox = m0 % p->out_w;
    memset(zero, 0, sizeof(uint16_t) * (size_t)seg);
    for (r = 0; r < rows; r++) {
        const int32_t x0 = ox * p->stride_w - p->pad_w, y0 = oy * p->stride_h - p->pad_h;
        const uint32_t **t = tab + (int64_t)r * fh;
        if (x0 >= 0 && x0 + fw <= inw && y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h) {
            /* the run of whole patches along this output row at once, each stride_w pixels after the last
             * (the per-row bounds and index arithmetic cost as much as a 16-channel row's products) */
            int32_t n = (inw - fw - x0) / p->stride_w + 1;
            const uint16_t *base = in + ((int64_t)y0 * inw + x0) * inc;
            n = n < p->out_w - ox ? n : p->out_w - ox;
            n = n < rows - r ? n : rows - r;
            if (fh == 3) /* written out (3x3 filters): GCC vectorized the general loop with 64-bit multiplies */
                for (q = 0; q < n; q++, base += sx, t += 3) {
                    t[0] = (const uint32_t *)(const void *)base;
                    t[1] = (const uint32_t *)(const void *)(base + rstep);
                    t[2] = (const uint32_t *)(const void *)(base + 2 * rstep);
                }
            else
                for (q = 0; q < n; q++, base += sx, t += fh)
                    for (fy = 0; fy < fh; fy++) t[fy] = (const uint32_t *)(const void *)(base + fy * rstep);
            r += n - 1;
            ox += n;
            if (ox == p->out_w) ox = 0, oy++;
            continue;
        }
        if (x0 >= 0 && x0 + fw <= inw) {
            for (fy = 0; fy < fh; fy++) {
                const int32_t y = y0 + fy * p->dil_h;
                t[fy] = (const uint32_t *)(const void *)(y < 0 || y >= p->in_h ? zero
                                                                               : in + ((int64_t)y * inw + x0) * inc);
            }
        } else {
            uint16_t *d = copy + (int64_t)r * p->gemm.k;
            if (edge_taps(p, RT_BF16)) edge_row16(p, RT_BF16, in, y0, x0, d, 0);
            else im2col_copy16_rows(p, in, m0 + r, 1, d);
            for (fy = 0; fy < fh; fy++) t[fy] = (const uint32_t *)(const void *)(d + (int64_t)fy * seg);
        }
        if (++ox == p->out_w) ox = 0, oy++;
    }
}
#endif
