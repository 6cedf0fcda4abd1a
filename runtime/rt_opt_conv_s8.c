/* rt_opt_conv_s8.c - int8 convolution (groups == 1) on the int8 GEMM's kernels (rt_opt_gemm_s8.c):
 * 1x1 stride-1 convolutions read in place; with AVX512-VNNI, patches of whole K quads per filter row read
 * in place as runs (rt_opt_conv_s8_runs: from the input, or from a padded copy whose bytes are + 128);
 * with AVX2 and no AVX-512, int16 patch rows widened straight from the image by rt_opt_gemm_s8_avx2.c;
 * otherwise + 128 im2col rows gathered into scratch (from a padded copy where it fits) and the GEMM. The
 * shared convolution driver is in rt_opt_conv_f32.c. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define NR RT_OPT_NR
#define K4(k) RT_OPT_K4(k)

/* The padded image's rows and columns (rt_opt_conv_s8_padded_bytes, rt_opt_conv_bf16_padded_bytes,
 * rt_opt_dwconv_s8_scratch_bytes): the padding before, the image, and as much after it as the last patch
 * reaches. */
void rt_opt_padded_dims(int32_t in_h, int32_t in_w, int32_t out_h, int32_t out_w, int32_t fh, int32_t fw, int32_t sh,
                        int32_t sw, int32_t ph, int32_t pw, int64_t *hp, int64_t *wp) {
    const int64_t ry = (int64_t)(out_h - 1) * sh + fh, rx = (int64_t)(out_w - 1) * sw + fw;
    *hp = ry > (int64_t)in_h + ph ? ry : (int64_t)in_h + ph;
    *wp = rx > (int64_t)in_w + pw ? rx : (int64_t)in_w + pw;
}

#if defined(RT_OPT_S8_VNNI)
/* ap[0..n): the patches of output pixels m..m+n of p read from image a (padding none or in a). */
static void patch_rows(const rt_opt_conv_params *p, const uint8_t *a, int32_t m, int32_t n, const uint8_t **ap) {
    const int64_t ys = (int64_t)p->stride_h * p->in_w * p->in_c, xs = (int64_t)p->stride_w * p->in_c;
    int32_t oy = m / p->out_w, ox = m % p->out_w, r = 0, i;
    while (r < n) { /* a stretch of one output row: pointers xs apart */
        const int32_t cnt = n - r < p->out_w - ox ? n - r : p->out_w - ox;
        const uint8_t *q = a + oy * ys + ox * xs;
        for (i = 0; i < cnt; i++) ap[r + i] = q + i * xs;
        r += cnt, ox = 0, oy++;
    }
}

/* A 1x1 convolution (stride 1, no padding: its pixels are the GEMM's rows) read in place, its int8
 * bytes flipped in registers rather than copied: in_c a multiple of 4 (whole K quads, no padding),
 * every panel requantized in registers, no AMX. */
static int in_registers(const rt_opt_conv_params *p) { return rt_opt_s8_in_registers(&p->gemm); }

static int direct_in_place(const rt_opt_conv_params *p) { return p->direct && p->in_c % 4 == 0 && in_registers(p); }

/* A convolution read in place as K runs (rt_opt_conv_s8_runs), from its input or, with padding, from a
 * padded copy in the scratch slot: no im2col rows; every panel requantized in registers, no AMX. */
#define RUNS_BLOCK 256 /* output rows per block (a fused ADD's pass follows each) */
static int conv_runs(const rt_opt_conv_params *p, const void *scratch) {
    if (p->direct || !rt_opt_conv_s8_runs(p->filter_h, p->filter_w, p->in_c, p->dil_h, p->dil_w) || !in_registers(p))
        return 0;
    {
        int64_t hp, wp, padded;
        rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                    p->pad_h, p->pad_w, &hp, &wp);
        if (hp == p->in_h && wp == p->in_w && p->pad_h <= 0 && p->pad_w <= 0) return 1;
        padded = rt_opt_conv_s8_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->filter_h, p->filter_w,
                                             p->stride_h, p->stride_w, p->pad_h, p->pad_w, p->dil_h, p->dil_w);
        return padded > 0 && scratch && p->gemm.slot_bytes >= padded;
    }
}
#endif

#define RUN_S8(d, s, n) rt_opt_flip_s8((d), (s), (n))

static void post_add_s8(const rt_opt_post_add *post, int8_t *out, const int8_t *other, int64_t n) {
    if (post->conv_is_lhs) rt_opt_add_run_i8(post->add, out, 1, other, 1, out, n);
    else rt_opt_add_run_i8(post->add, other, 1, out, 1, out, n);
}

/* Patch rows m0..m0+rows of an int8 convolution as +128 bytes, K padded to ldd with 0 (IM2COL). */
static void im2col_s8_rows(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                           int32_t ldd) {
    const int32_t kdim = p->gemm.k;
    IM2COL(int8_t, uint8_t, (uint8_t)(p->pad_value + 128), RUN_S8);
}

#if defined(RT_A64)
/* d[0..n) = s[0..n) + 128 as bytes, for the short runs of im2col_a64 (a filter row of a 3-channel image:
 * 9 bytes): two overlapping 8- or 4-byte moves, or 16-byte vectors with the last one overlapping, instead
 * of a byte loop. */
static inline void a64_run_s8(uint8_t *d, const int8_t *s, int32_t n) {
    const uint8x16_t fl = vdupq_n_u8(0x80);
    int32_t i;
    if (n >= 16) {
        for (i = 0; i + 16 <= n; i += 16) vst1q_u8(d + i, veorq_u8(vld1q_u8((const uint8_t *)s + i), fl));
        if (i < n) vst1q_u8(d + n - 16, veorq_u8(vld1q_u8((const uint8_t *)s + n - 16), fl));
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8), memcpy(&b, s + n - 8, 8);
        a ^= UINT64_C(0x8080808080808080), b ^= UINT64_C(0x8080808080808080);
        memcpy(d, &a, 8), memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4), memcpy(&b, s + n - 4, 4);
        a ^= 0x80808080u, b ^= 0x80808080u;
        memcpy(d, &a, 4), memcpy(d + n - 4, &b, 4);
    } else {
        for (i = 0; i < n; i++) d[i] = (uint8_t)(s[i] + 128);
    }
}

/* One patch of a 3x3 filter over 3 channels (three filter rows of 9 bytes, step apart; K = 27 in a
 * 28-byte row) as its + 128 bytes: each filter row loaded exactly (8 bytes and a lane), flipped, the 28
 * bytes gathered by two TBLs (byte 27 an out-of-range index: 0) and stored as 16 + 8 + 4 bytes. */
static inline void a64_patch27(uint8_t *d, const int8_t *s, int64_t step, uint8x16_t i0, uint8x16_t i1) {
    const uint8x16_t fl = vdupq_n_u8(0x80);
    uint8x16x2_t a, b;
    const uint8_t *u = (const uint8_t *)s;
    a.val[0] = veorq_u8(vld1q_lane_u8(u + 8, vcombine_u8(vld1_u8(u), vdup_n_u8(0)), 8), fl);
    a.val[1] = veorq_u8(vld1q_lane_u8(u + step + 8, vcombine_u8(vld1_u8(u + step), vdup_n_u8(0)), 8), fl);
    b.val[0] = a.val[1];
    b.val[1] = veorq_u8(vld1q_lane_u8(u + 2 * step + 8, vcombine_u8(vld1_u8(u + 2 * step), vdup_n_u8(0)), 8), fl);
    vst1q_u8(d, vqtbl2q_u8(a, i0));
    b.val[0] = vqtbl2q_u8(b, i1);
    vst1_u8(d + 16, vget_low_u8(b.val[0]));
    vst1q_lane_u32((uint32_t *)(void *)(d + 24), vreinterpretq_u32_u8(b.val[0]), 2);
}

/* im2col_s8_rows with the patches wholly inside the image (unit column dilation) copied as filter_h runs
 * of filter_w x in_c bytes (a64_run_s8), the others tap by tap: the first layers' 3-channel patches
 * (runs of 9 bytes, not whole quads, so not read from the image by the tiles) had taken IM2COL's byte
 * loops, about as many instructions as their GEMM. */
static void im2col_a64(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                       int32_t ldd) {
    const int32_t inc = p->in_c, fh = p->filter_h, fw = p->filter_w, run = fw * inc, kdim = p->gemm.k;
    const int64_t rs = (int64_t)p->in_w * inc, step = (int64_t)p->dil_h * rs;
    const int p27 = fh == 3 && run == 9 && kdim == 27 && ldd == 28; /* a64_patch27 */
    /* its gathers: filter row 0 and 7 bytes of row 1; row 1's last 2, row 2's 9, a 0 */
    static const uint8_t g0[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22};
    static const uint8_t g1[16] = {7, 8, 16, 17, 18, 19, 20, 21, 22, 23, 24, 255, 255, 255, 255, 255};
    const uint8x16_t i0 = vld1q_u8(g0), i1 = vld1q_u8(g1);
    int32_t r, fy, c, oy = m0 / p->out_w, ox = m0 % p->out_w;
    for (r = 0; r < rows; r++) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        uint8_t *d = dst + (int64_t)r * ldd;
        if (y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h && x0 >= 0 && x0 + fw <= p->in_w) {
            const int8_t *src = in + y0 * rs + (int64_t)x0 * inc;
            if (p27) {
                a64_patch27(d, src, step, i0, i1);
            } else {
                for (fy = 0; fy < fh; fy++) a64_run_s8(d + fy * run, src + fy * step, run);
                for (c = kdim; c < ldd; c++) d[c] = 0;
            }
        } else if (p27) { /* cut by the edge: the patch gathered tap by tap in t (the padding value around) */
            int8_t t[27];
            int32_t fx;
            memset(t, (int8_t)p->pad_value, sizeof t);
            for (fy = 0; fy < 3; fy++) {
                const int32_t y = y0 + fy * p->dil_h;
                if (y < 0 || y >= p->in_h) continue;
                for (fx = 0; fx < fw; fx++)
                    if (x0 + fx >= 0 && x0 + fx < p->in_w)
                        memcpy(t + fy * 9 + fx * inc, in + y * rs + (int64_t)(x0 + fx) * inc, (size_t)inc);
            }
            a64_patch27(d, t, 9, i0, i1);
        } else {
            im2col_s8_rows(p, in, m0 + r, 1, d, ldd);
        }
        if (++ox == p->out_w) ox = 0, oy++;
    }
}
#endif

#if defined(RT_OPT_AVX512)
/* One patch row cut by the image's edge (in_c <= 64, dil_w 1): tap by tap, the in_c bytes by one masked
 * move or the padding (IM2COL's byte loops took ~60 cycles a row); `pad` zeroes K's padding. */
static void edge_row_s8(const rt_opt_conv_params *p, const int8_t *in, int32_t y0, int32_t x0, uint8_t *d,
                        __mmask64 pad) {
    const int32_t inc = p->in_c;
    const __mmask64 cm = inc == 64 ? ~(__mmask64)0 : ((__mmask64)1 << inc) - 1;
    const __m512i flip = _mm512_set1_epi8((char)0x80), fill = _mm512_set1_epi8((char)(uint8_t)(p->pad_value + 128));
    int32_t fy, fx;
    for (fy = 0; fy < p->filter_h; fy++) {
        const int32_t y = y0 + fy * p->dil_h, row_ok = y >= 0 && y < p->in_h;
        for (fx = 0; fx < p->filter_w; fx++, d += inc) {
            const int32_t x = x0 + fx;
            const __m512i v =
                row_ok && x >= 0 && x < p->in_w
                    ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(cm, (const void *)(in + ((int64_t)y * p->in_w + x) * inc)), flip)
                    : fill;
            _mm512_mask_storeu_epi8((void *)d, cm, v);
        }
    }
    if (pad) _mm512_mask_storeu_epi8((void *)d, pad, _mm512_setzero_si512());
}

/* n consecutive patch rows along one output row, every patch inside the image: FH filter rows of `run`
 * bytes each (CH full 64-byte vectors, then a masked one; CH < 0: `chunks` of them), each vector loaded,
 * flipped and stored, the source advancing by the stride. FH and CH are constants in the instantiations
 * for 3x3 and 1-row filters (the loops unrolled; a variable count cost a third of the gain). */
RT_OPT_INLINE void inner_rows_s8(const int32_t FH, const int32_t CH, int32_t fh, int32_t chunks, const int8_t *src,
                                 int64_t sstep, int64_t step, uint8_t *d, int32_t ldd, int32_t run, int32_t n,
                                 __mmask64 tail, __mmask64 pad) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const int32_t rows_h = FH ? FH : fh, full = 64 * (CH >= 0 ? CH : chunks);
    int32_t i, fy, c;
#if defined(__AVX512VL__)
    if (CH == 0 && run <= 16) { /* 16-byte moves: a 64-byte store of a few bytes crosses a cache line */
        const __mmask16 t16 = (__mmask16)tail;
        const __m128i f16 = _mm_set1_epi8((char)0x80);
        for (i = 0; i < n; i++, src += sstep, d += ldd) {
            for (fy = 0; fy < rows_h; fy++)
                _mm_mask_storeu_epi8((void *)(d + fy * run), t16,
                                     _mm_xor_si128(_mm_maskz_loadu_epi8(t16, (const void *)(src + fy * step)), f16));
            if (pad) _mm_mask_storeu_epi8((void *)(d + rows_h * run), (__mmask16)pad, _mm_setzero_si128());
        }
        return;
    }
#endif
    for (i = 0; i < n; i++, src += sstep, d += ldd) {
        for (fy = 0; fy < rows_h; fy++) {
            const int8_t *s = src + fy * step;
            uint8_t *t = d + fy * run;
            for (c = 0; c < full; c += 64)
                _mm512_storeu_si512((void *)(t + c), _mm512_xor_si512(_mm512_loadu_si512((const void *)(s + c)), flip));
            _mm512_mask_storeu_epi8((void *)(t + full), tail,
                                    _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail, (const void *)(s + full)), flip));
        }
        if (pad) _mm512_mask_storeu_epi8((void *)(d + rows_h * run), pad, _mm512_setzero_si512());
    }
}

/* im2col_s8_rows with the rows whose patch lies inside the image (most of them) copied as fh runs of
 * fw * in_c bytes, the runs' masks made once and no per-tap bounds checks: IM2COL spent ~40 cycles a
 * row there, as much as the GEMM of a 16-channel 3x3 convolution. The inside rows go along an output
 * row in one call (inner_rows_s8): bounds checked once per stretch,
 * not per row (ResNet int8's 16-channel 3x3 convolutions: ~15 -> ~5 ns a 1024-row image's row). */
static void im2col_s8(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                      int32_t ldd) {
    const int32_t inc = p->in_c, fh = p->filter_h, fw = p->filter_w, run = fw * inc, kdim = p->gemm.k;
    const int32_t chunks = (run - 1) / 64, last = run - 64 * chunks; /* full 64-byte chunks, then 1..64 bytes */
    const int64_t rs = (int64_t)p->in_w * inc, step = (int64_t)p->dil_h * rs, sstep = (int64_t)p->stride_w * inc;
    const __mmask64 tail = last == 64 ? ~(__mmask64)0 : ((__mmask64)1 << last) - 1;
    const __mmask64 pad = ldd > kdim ? ((__mmask64)1 << (ldd - kdim)) - 1 : 0; /* ldd - kdim <= 3 */
    /* the last output column whose patch ends inside the image */
    const int32_t ox_in = p->in_w - fw + p->pad_w >= 0 ? (p->in_w - fw + p->pad_w) / p->stride_w : -1;
    int32_t r, oy = m0 / p->out_w, ox = m0 % p->out_w;
    for (r = 0; r < rows;) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        uint8_t *d = dst + (int64_t)r * ldd;
        int32_t n = 1;
        if (y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h && x0 >= 0 && x0 + fw <= p->in_w) {
            const int8_t *src = in + (int64_t)y0 * rs + (int64_t)x0 * inc;
            n = ox_in - ox + 1;
            n = n < p->out_w - ox ? n : p->out_w - ox;
            n = n < rows - r ? n : rows - r;
            if (fh == 3 && chunks == 0) inner_rows_s8(3, 0, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
            else if (fh == 3 && chunks == 1) inner_rows_s8(3, 1, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
            else if (fh == 1 && chunks == 0) inner_rows_s8(1, 0, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
            else inner_rows_s8(0, -1, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
        } else if (inc <= 64)
            edge_row_s8(p, in, y0, x0, d, pad);
        else
            im2col_s8_rows(p, in, m0 + r, 1, d, ldd);
        r += n;
        ox += n;
        if (ox == p->out_w) ox = 0, oy++;
    }
}
#endif

void rt_opt_pad_rows_s8(const int8_t *in, int32_t in_h, int32_t in_w, int32_t c, int64_t hp, int64_t wp, int32_t pad_h,
                        int32_t pad_w, int32_t value, int flip, void *pad) {
    const int v = flip ? value + 128 : value;
    const int64_t row = wp * c, left = (int64_t)pad_w * c, right = (wp - pad_w - in_w) * c;
    int64_t y;
    /* the padding only (rows above and below, columns left and right), then the image's rows */
    memset(pad, v, (size_t)(pad_h * row));
    memset((uint8_t *)pad + (pad_h + in_h) * row, v, (size_t)((hp - pad_h - in_h) * row));
    for (y = 0; y < in_h; y++) {
        uint8_t *d = (uint8_t *)pad + (y + pad_h) * row;
        memset(d, v, (size_t)left);
        if (flip) rt_opt_flip_s8(d + left, in + y * in_w * c, in_w * c);
        else memcpy(d + left, in + y * in_w * c, (size_t)in_w * (size_t)c);
        memset(d + left + (int64_t)in_w * c, v, (size_t)right);
    }
}

int64_t rt_opt_padded_elems(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w, int32_t filter_h,
                            int32_t filter_w, int32_t stride_h, int32_t stride_w, int32_t pad_h, int32_t pad_w,
                            int32_t dil_h, int32_t dil_w) {
    int64_t hp, wp;
    if (dil_h != 1 || dil_w != 1 || pad_h < 0 || pad_w < 0 || out_h < 1 || out_w < 1) return 0;
    rt_opt_padded_dims(in_h, in_w, out_h, out_w, filter_h, filter_w, stride_h, stride_w, pad_h, pad_w, &hp, &wp);
    if (hp == in_h && wp == in_w) return 0; /* every patch inside the image */
    return hp * wp * in_c;
}

int64_t rt_opt_conv_s8_padded_bytes(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w,
                                    int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                                    int32_t pad_h, int32_t pad_w, int32_t dil_h, int32_t dil_w) {
    const int64_t bytes = rt_opt_padded_elems(in_h, in_w, in_c, out_h, out_w, filter_h, filter_w, stride_h, stride_w,
                                              pad_h, pad_w, dil_h, dil_w);
    return bytes <= (rt_opt_conv_s8_runs(filter_h, filter_w, in_c, dil_h, dil_w) ? 65536 : 16384) ? (bytes + 63) / 64 * 64 : 0;
}

int rt_opt_conv_s8_runs(int32_t filter_h, int32_t filter_w, int32_t in_c, int32_t dil_h, int32_t dil_w) {
    /* a strided 1x1 convolution stays on im2col rows (its +128 in the copy, not in each broadcast: faster) */
    return dil_h == 1 && dil_w == 1 && (int64_t)filter_w * in_c % 4 == 0 && (int64_t)filter_h * filter_w > 1;
}

#if defined(RT_OPT_AVX512)
/* Image `in` inside its padding (pad_value) at `pad`, and pp: p's geometry over it, no padding. With
 * ResNet-sized images a patch row in eight was cut by an edge, in digits' 8 x 8 ones nearly half, and
 * those went tap by tap with a bounds check each (a third of digits int8's time in im2col). flip: every
 * byte + 128 (the VNNI kernels' unsigned operand, for the patch runs read in place). */
static void pad_image_s8(const rt_opt_conv_params *p, const int8_t *in, int flip, void *pad, rt_opt_conv_params *pp) {
    int64_t hp, wp;
    rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h,
                p->pad_w, &hp, &wp);
    rt_opt_pad_rows_s8(in, p->in_h, p->in_w, p->in_c, hp, wp, p->pad_h, p->pad_w, p->pad_value, flip, pad);
    *pp = *p;
    pp->in_h = (int32_t)hp, pp->in_w = (int32_t)wp, pp->pad_h = pp->pad_w = 0;
}
#endif

static void conv_s8_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    int32_t mimg = p->out_h * p->out_w, kdim = p->gemm.k, ldd = K4(kdim), oc = p->gemm.n, q;
    uint8_t *dst = j->scratch ? (uint8_t *)j->scratch + (int64_t)t * p->gemm.slot_bytes : NULL;
#if defined(RT_OPT_S8_VNNI)
    const int in_place = direct_in_place(p), runs = !in_place && conv_runs(p, dst);
#endif
#if defined(RT_OPT_AVX512)
    const int64_t padded = p->direct || !dst ? 0
                                              : rt_opt_conv_s8_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w,
                                                                            p->filter_h, p->filter_w, p->stride_h,
                                                                            p->stride_w, p->pad_h, p->pad_w, p->dil_h,
                                                                            p->dil_w);
    rt_opt_conv_params pp; /* p over the padded image of image padded_b (made once per image and task) */
    int32_t padded_b = -1;
#endif
#if defined(RT_A64)
    /* patches read from the image (or from its padded int8 copy in the scratch slot, made once per image
     * and task), no im2col rows: K in whole quads per filter row, every panel requantized in registers */
    int64_t hp = 0, wp = 0;
    int32_t padded_b = -1;
    int a64_runs = 0, a64_pad = 0;
    if (!p->direct && p->dil_h == 1 && p->dil_w == 1 && (int64_t)p->filter_w * p->in_c % 4 == 0 &&
        rt_opt_s8_a64_rq_all(&p->gemm) && p->pad_h >= 0 && p->pad_w >= 0) {
        rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                           p->pad_h, p->pad_w, &hp, &wp);
        a64_pad = hp != p->in_h || wp != p->in_w || p->pad_h > 0 || p->pad_w > 0;
        a64_runs = !a64_pad || (dst && hp * wp * p->in_c <= p->gemm.slot_bytes);
    }
#endif
    int32_t q_end;
    rt_opt_task_share(p->batches * j->per_image, t, j->tasks, &q, &q_end);
    for (; q < q_end; q++) {
        int32_t b = q / j->per_image, m0 = q % j->per_image * j->block;
        int32_t rows = mimg - m0 < j->block ? mimg - m0 : j->block;
        const int8_t *in = (const int8_t *)j->in + (int64_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out = (int8_t *)j->out + (int64_t)b * mimg * oc;
#if defined(RT_OPT_S8_VNNI)
        if (in_place || runs) {
            int32_t flip = 1, r0, n;
            rt_opt_a_rows src = rt_opt_s8_gemm_rows((const uint8_t *)(in + (int64_t)m0 * p->in_c), p->in_c, kdim);
            const uint8_t *ptr[RUNS_BLOCK];
            const rt_opt_conv_params *g = p;
            if (runs) {
                src.a = (const uint8_t *)in;
                if (padded) { /* patches read from the image in its padding, its bytes + 128 */
                    if (b != padded_b) pad_image_s8(p, in, 1, dst, &pp), padded_b = b;
                    src.a = dst, g = &pp, flip = 0;
                }
                src.runs.n = p->filter_h, src.runs.quads = p->filter_w * p->in_c / 4;
                src.runs.step = (int64_t)g->in_w * p->in_c;
                src.ptr = ptr;
            }
            for (r0 = 0; r0 < rows; r0 += n) { /* runs: RUNS_BLOCK rows' patches at a time */
                n = !runs ? rows : rows - r0 < RUNS_BLOCK ? rows - r0 : RUNS_BLOCK;
                if (runs) patch_rows(g, src.a, m0 + r0, n, ptr);
                else src.a = (const uint8_t *)(in + (int64_t)m0 * p->in_c);
                rt_opt_s8_pairs_rows(&p->gemm, 0, (oc + NR - 1) / NR, flip, n, &src, (const int8_t *)j->b,
                                     (const int32_t *)j->bias, out + (int64_t)(m0 + r0) * oc);
            }
        } else
#endif
        {
#if defined(RT_OPT_AVX2) && !defined(RT_OPT_S8_VNNI)
            if (p->direct && rt_opt_s8_avx2_applies(&p->gemm)) { /* the pixels' int8 rows widened by the kernel */
                rt_opt_s8_avx2_gemm(&p->gemm, rows, (const uint8_t *)(in + (int64_t)m0 * p->in_c), p->in_c, 1,
                                    (const int8_t *)j->b, (const int32_t *)j->bias, out + (int64_t)m0 * oc);
                goto post;
            }
#if !defined(RT_OPT_AVX512)
            if (!p->direct && rt_opt_s8_avx2_applies(&p->gemm)) { /* patch rows widened from the image */
                rt_opt_s8_avx2_conv(p, in, m0, rows, (const int8_t *)j->b, (const int32_t *)j->bias,
                                    out + (int64_t)m0 * oc);
                goto post;
            }
#endif
#elif defined(RT_A64)
            if (a64_runs) {
                const uint8_t *img = (const uint8_t *)in;
                const int64_t w = a64_pad ? wp : p->in_w;
                if (a64_pad) {
                    if (b != padded_b)
                        rt_opt_pad_rows_s8(in, p->in_h, p->in_w, p->in_c, hp, wp, p->pad_h, p->pad_w, p->pad_value, 0,
                                           dst),
                            padded_b = b;
                    img = dst;
                }
                rt_opt_s8_a64_conv(&p->gemm, m0, rows, img, (int64_t)p->stride_h * w * p->in_c,
                                   (int64_t)p->stride_w * p->in_c, p->out_w, p->filter_h, w * p->in_c,
                                   (const int8_t *)j->b, (const int32_t *)j->bias, out + (int64_t)m0 * oc);
                goto post;
            }
            if (p->direct && kdim % 4 == 0) { /* the pixels' int8 rows read in place, not widened first */
                rt_opt_s8_a64_gemm(&p->gemm, rows, (const uint8_t *)(in + (int64_t)m0 * p->in_c), p->in_c, 0,
                                   (const int8_t *)j->b, (const int32_t *)j->bias, out + (int64_t)m0 * oc, NULL);
                goto post;
            }
#endif
            if (p->direct) rt_opt_s8_widen_rows(in + (int64_t)m0 * p->in_c, p->in_c, rows, kdim, dst);
#if defined(RT_OPT_AVX512)
            else if (padded && p->gemm.slot_bytes >= (int64_t)p->rows * ldd + padded) {
                int8_t *pad = (int8_t *)(dst + (int64_t)p->rows * ldd);
                if (b != padded_b) pad_image_s8(p, in, 0, pad, &pp), padded_b = b;
                im2col_s8(&pp, pad, m0, rows, dst, ldd);
            } else if (p->dil_w == 1)
                im2col_s8(p, in, m0, rows, dst, ldd);
#endif
#if defined(RT_A64)
            else if (p->dil_w == 1) {
                const int64_t padded = p->dil_h == 1 && p->pad_h >= 0 && p->pad_w >= 0
                                           ? rt_opt_conv_s8_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w,
                                                                         p->filter_h, p->filter_w, p->stride_h,
                                                                         p->stride_w, p->pad_h, p->pad_w, 1, 1)
                                           : 0;
                if (padded && p->gemm.slot_bytes >= (int64_t)p->rows * ldd + padded) {
                    /* the patches gathered from the image inside its padding (made once per image and task,
                     * after the im2col rows): none cut by an edge (digits' 8 x 8 first layer: 28 of 64) */
                    int8_t *pad = (int8_t *)(dst + (int64_t)p->rows * ldd);
                    rt_opt_conv_params pp = *p;
                    rt_opt_padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h,
                                       p->stride_w, p->pad_h, p->pad_w, &hp, &wp);
                    if (b != padded_b)
                        rt_opt_pad_rows_s8(in, p->in_h, p->in_w, p->in_c, hp, wp, p->pad_h, p->pad_w, p->pad_value, 0,
                                           pad),
                            padded_b = b;
                    pp.in_h = (int32_t)hp, pp.in_w = (int32_t)wp, pp.pad_h = pp.pad_w = 0;
                    im2col_a64(&pp, pad, m0, rows, dst, ldd);
                } else {
                    im2col_a64(p, in, m0, rows, dst, ldd);
                }
            }
#endif
            else im2col_s8_rows(p, in, m0, rows, dst, ldd);
            rt_opt_s8_gemm_u8(&p->gemm, rows, dst, ldd, (const int8_t *)j->b, (const int32_t *)j->bias, out + (int64_t)m0 * oc,
                    NULL);
        }
#if (defined(RT_OPT_AVX2) && !defined(RT_OPT_S8_VNNI)) || defined(RT_A64)
    post:
#endif
        if (j->post)
            post_add_s8(j->post, out + (int64_t)m0 * oc, (const int8_t *)j->other + ((int64_t)b * mimg + m0) * oc,
                        (int64_t)rows * oc);
    }
}

#if defined(RT_OPT_S8_VNNI)
/* Task t of a direct convolution read in place, split by columns: its share of the panel pairs over
 * all rows (each task reads its part of the weights, not all of them). */
static void conv_s8_cols_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    const int32_t pairs = (p->gemm.n + 2 * NR - 1) / (2 * NR), m = p->batches * p->out_h * p->out_w;
    const rt_opt_a_rows src = rt_opt_s8_gemm_rows((const uint8_t *)j->in, p->in_c, p->gemm.k);
    const int32_t j0 = 2 * (int32_t)((int64_t)pairs * t / j->tasks), j1 = 2 * (int32_t)((int64_t)pairs * (t + 1) / j->tasks);
    rt_opt_s8_pairs_rows(&p->gemm, j0, j1, 1, m, &src, (const int8_t *)j->b, (const int32_t *)j->bias, (int8_t *)j->out);
}
#endif

void rt_opt_conv_s8(const rt_opt_conv_params *p, const int8_t *in_all, const int8_t *packed_b, const int32_t *bias,
                    int8_t *out_all, void *scratch, const rt_opt_post_add *post, const int8_t *other,
                    const mpcc_parallel *par) {
    int32_t block = p->rows;
#if defined(RT_OPT_S8_VNNI)
    const int32_t tasks = rt_opt_tasks(par, 0), pairs = (p->gemm.n + 2 * NR - 1) / (2 * NR);
    if (tasks > 1 && !post && direct_in_place(p) && (int64_t)p->batches * p->out_h * p->out_w < p->gemm.n &&
        pairs >= tasks) {
        /* a 1x1 convolution with fewer pixels than output channels (mobilenetv2_0.35's last layers, 9
         * pixels): its weights outweigh its rows, so the threads split the columns (as rt_opt_conv_f32) */
        rt_opt_conv_job j = {p, in_all, packed_b, bias, NULL, out_all, NULL, NULL, tasks, 0, 0, RT_F32};
        par->run(par->pool, conv_s8_cols_task, &j, tasks);
        return;
    }
    if (conv_runs(p, scratch) && block < RUNS_BLOCK) block = RUNS_BLOCK; /* no im2col rows to fit in scratch */
#endif
    rt_opt_run_conv(p, in_all, packed_b, bias, out_all, scratch, post, other, conv_s8_task, block, RT_F32, par);
}

