/* mpcc_cuda_layout.cuh - the layout kernels of mpcc's CUDA target: PAD / PADV2 (any dtype),
 * PRELU (f32, int8), RESIZE_BILINEAR (f32, int8) and RESIZE_NEAREST_NEIGHBOR (any dtype),
 * TRANSPOSE_CONV (f32, int8), ARG_MAX (any dtype), L2_NORMALIZATION and LOG_SOFTMAX (f32). SPLIT / SPLIT_V / PACK / UNPACK are launches of the strided
 * copy of mpcc_cuda_ops.cuh.
 *
 * Integer results are bit-exact with mpcc's reference kernels (runtime/kernels/rt_prelu.c,
 * rt_resize_bilinear.c, rt_transpose_conv.c): the same integer arithmetic, and the resize
 * source coordinates computed by the compiler with the reference's own functions. Float sums
 * may differ from the reference's order in the last bits. Grid-stride bodies, one thread per
 * output element: any grid is correct. Builds with nvcc, NVRTC and the CPU emulator. */
#ifndef MPCC_CUDA_LAYOUT_CUH
#define MPCC_CUDA_LAYOUT_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"
#include "mpcc_cuda_ops.cuh"
#include "mpcc_cuda_gemm.cuh"
#include "mpcc_cuda_int8.cuh"

MPCC_DEV void mpcc_pad_body(const mpcc_pad_args &p) {
    if (p.phase) mpcc_copy_body(p.copy);
    else mpcc_fill_body(p.fill);
}

/* The alpha element of output element i (row-major over p.dims). */
MPCC_DEV long long mpcc_prelu_alpha_at(const mpcc_prelu_args &p, long long i) {
    long long off = 0;
    for (int d = p.rank - 1; d >= 0; d--) {
        off += (i % p.dims[d]) * p.astride[d];
        i /= p.dims[d];
    }
    return off;
}

MPCC_DEV void mpcc_prelu_body(const mpcc_prelu_args &p) {
    const float *in = (const float *)p.in, *alpha = (const float *)p.alpha;
    float *out = (float *)p.out;
    for (long long i = mpcc_tid(); i < p.n; i += mpcc_nthreads()) {
        float x = in[i];
        out[i] = x >= 0.0f ? x : x * alpha[mpcc_prelu_alpha_at(p, i)];
    }
}

/* Quantized PRELU, T = int8_t or int16_t (16x8: int8 alpha), results clamped to [lo, hi]. */
template <typename T> MPCC_DEV void mpcc_prelu_q_body(const mpcc_prelu_args &p, int32_t lo, int32_t hi) {
    const T *in = (const T *)p.in;
    const int8_t *alpha = (const int8_t *)p.alpha;
    T *out = (T *)p.out;
    for (long long i = mpcc_tid(); i < p.n; i += mpcc_nthreads()) {
        int32_t x = p.in_offset + in[i], v;
        if (x >= 0) v = mpcc_s8_requant(x, p.mult_1, p.shift_1);
        else v = mpcc_s8_requant(x * (p.alpha_offset + alpha[mpcc_prelu_alpha_at(p, i)]), p.mult_2, p.shift_2);
        out[i] = (T)mpcc_s8_clamp(v + p.out_offset, lo, hi);
    }
}

MPCC_DEV void mpcc_prelu_s8_body(const mpcc_prelu_args &p) { mpcc_prelu_q_body<int8_t>(p, -128, 127); }

/* Output element e of an NHWC resize: its batch, row, column and channel. */
MPCC_DEV void mpcc_resize_split(const mpcc_resize_args &p, long long e, int *b, int *y, int *x, int *c) {
    *c = (int)(e % p.channels);
    e /= p.channels;
    *x = (int)(e % p.out_w);
    e /= p.out_w;
    *y = (int)(e % p.out_h);
    *b = (int)(e / p.out_h);
}

MPCC_DEV long long mpcc_resize_in_at(const mpcc_resize_args &p, int b, int y, int x, int c) {
    return (((long long)b * p.in_h + y) * p.in_w + x) * p.channels + c;
}

MPCC_DEV void mpcc_resize_bilinear_body(const mpcc_resize_args &p) {
    const float *in = (const float *)p.in;
    float *out = (float *)p.out;
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        int b, y, x, c;
        mpcc_resize_split(p, e, &b, &y, &x, &c);
        const int32_t *ty = p.ytab + 3 * y, *tx = p.xtab + 3 * x;
        float dy = __int_as_float(ty[2]), dx = __int_as_float(tx[2]);
        out[e] = in[mpcc_resize_in_at(p, b, ty[0], tx[0], c)] * (1 - dy) * (1 - dx) +
                 in[mpcc_resize_in_at(p, b, ty[1], tx[0], c)] * dy * (1 - dx) +
                 in[mpcc_resize_in_at(p, b, ty[0], tx[1], c)] * (1 - dy) * dx +
                 in[mpcc_resize_in_at(p, b, ty[1], tx[1], c)] * dy * dx;
    }
}

/* ResizeBilinearInteger: the weighted sum in 2^-20 units, rounded half away from zero. */
MPCC_DEV void mpcc_resize_bilinear_s8_body(const mpcc_resize_args &p) {
    const int8_t *in = (const int8_t *)p.in;
    int8_t *out = (int8_t *)p.out;
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        int b, y, x, c;
        mpcc_resize_split(p, e, &b, &y, &x, &c);
        const int32_t *ty = p.ytab + 3 * y, *tx = p.xtab + 3 * x;
        long long dy = ty[2], dx = tx[2];
        long long v = (long long)in[mpcc_resize_in_at(p, b, ty[0], tx[0], c)] * (1024 - dy) * (1024 - dx) +
                      (long long)in[mpcc_resize_in_at(p, b, ty[1], tx[0], c)] * dy * (1024 - dx) +
                      (long long)in[mpcc_resize_in_at(p, b, ty[0], tx[1], c)] * (1024 - dy) * dx +
                      (long long)in[mpcc_resize_in_at(p, b, ty[1], tx[1], c)] * dy * dx;
        long long round = v > 0 ? (1 << 19) : -(1 << 19);
        out[e] = (int8_t)((v + round) / (1 << 20));
    }
}

MPCC_DEV void mpcc_resize_nearest_body(const mpcc_resize_args &p) {
    const unsigned char *in = (const unsigned char *)p.in;
    unsigned char *out = (unsigned char *)p.out;
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        int b, y, x, c;
        mpcc_resize_split(p, e, &b, &y, &x, &c);
        long long s = mpcc_resize_in_at(p, b, p.ytab[3 * y], p.xtab[3 * x], c) * p.elem_size;
        for (int k = 0; k < p.elem_size; k++) out[e * p.elem_size + k] = in[s + k];
    }
}

/* The taps of output (b, oy, ox, oc): input rows y with y * stride - pad + fy = oy. BODY gets
 * the input index i and the filter index w. */
#define MPCC_TCONV_TAPS(p, b, oy, ox, oc, BODY)                                                   \
    for (int fy = 0; fy < (p).filter_h; fy++) {                                                    \
        int ty = (oy) + (p).pad_h - fy;                                                            \
        if (ty < 0 || ty % (p).stride_h) continue;                                                 \
        int y = ty / (p).stride_h;                                                                 \
        if (y >= (p).in_h) continue;                                                               \
        for (int fx = 0; fx < (p).filter_w; fx++) {                                                \
            int tx = (ox) + (p).pad_w - fx;                                                        \
            if (tx < 0 || tx % (p).stride_w) continue;                                             \
            int x = tx / (p).stride_w;                                                             \
            if (x >= (p).in_w) continue;                                                           \
            long long i = (((long long)(b) * (p).in_h + y) * (p).in_w + x) * (p).in_c;             \
            long long w = (((long long)(oc) * (p).filter_h + fy) * (p).filter_w + fx) * (p).in_c;  \
            BODY;                                                                                  \
        }                                                                                          \
    }

MPCC_DEV void mpcc_tconv_split(const mpcc_tconv_args &p, long long e, int *b, int *oy, int *ox, int *oc) {
    *oc = (int)(e % p.out_c);
    e /= p.out_c;
    *ox = (int)(e % p.out_w);
    e /= p.out_w;
    *oy = (int)(e % p.out_h);
    *b = (int)(e / p.out_h);
}

MPCC_DEV void mpcc_tconv_body(const mpcc_tconv_args &p) {
    const float *in = (const float *)p.in, *f = (const float *)p.filter, *bias = (const float *)p.bias;
    float *out = (float *)p.out;
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        int b, oy, ox, oc;
        mpcc_tconv_split(p, e, &b, &oy, &ox, &oc);
        float acc = 0.0f;
        MPCC_TCONV_TAPS(p, b, oy, ox, oc, for (int ic = 0; ic < p.in_c; ic++) acc += in[i + ic] * f[w + ic])
        if (bias) acc += bias[oc];
        out[e] = fminf(fmaxf(acc, p.act_min), p.act_max);
    }
}

MPCC_DEV void mpcc_tconv_s8_body(const mpcc_tconv_args &p) {
    const int8_t *in = (const int8_t *)p.in, *f = (const int8_t *)p.filter;
    const int32_t *bias = (const int32_t *)p.bias;
    int8_t *out = (int8_t *)p.out;
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        int b, oy, ox, oc;
        mpcc_tconv_split(p, e, &b, &oy, &ox, &oc);
        int32_t acc = 0; /* wrapping, as the reference's int32 sums */
        MPCC_TCONV_TAPS(p, b, oy, ox, oc,
                        for (int ic = 0; ic < p.in_c; ic++)
                            acc = mpcc_wrap_add(acc, ((int32_t)in[i + ic] + p.in_offset) * (int32_t)f[w + ic]))
        if (bias) acc = mpcc_wrap_add(acc, bias[oc]);
        int32_t v = mpcc_s8_requant(acc, p.mult[oc], p.shift[oc]) + p.out_offset;
        out[e] = (int8_t)mpcc_s8_clamp(v, p.qmin, p.qmax);
    }
}

/* The first index of the maximum along the axis (ties keep the earliest, as the reference). */
template <typename T> MPCC_DEV int mpcc_arg_max_of(const T *base, int axis, int inner) {
    T best = base[0];
    int at = 0;
    for (int a = 1; a < axis; a++) {
        T v = base[(long long)a * inner];
        if (v > best) best = v, at = a;
    }
    return at;
}

MPCC_DEV void mpcc_arg_max_body(const mpcc_rowop_args &p) {
    long long n = (long long)p.outer * p.inner;
    for (long long e = mpcc_tid(); e < n; e += mpcc_nthreads()) {
        long long base = (e / p.inner) * p.axis * p.inner + e % p.inner;
        int at;
        switch (p.type) {
        case 3: at = mpcc_arg_max_of((const int8_t *)p.in + base, p.axis, p.inner); break;
        case 4: at = mpcc_arg_max_of((const uint8_t *)p.in + base, p.axis, p.inner); break;
        case 5: at = mpcc_arg_max_of((const int16_t *)p.in + base, p.axis, p.inner); break;
        case 6: at = mpcc_arg_max_of((const int32_t *)p.in + base, p.axis, p.inner); break;
        case 7: at = mpcc_arg_max_of((const int64_t *)p.in + base, p.axis, p.inner); break;
        default: at = mpcc_arg_max_of((const float *)p.in + base, p.axis, p.inner); break;
        }
        if (p.out64) ((int64_t *)p.out)[e] = at;
        else ((int32_t *)p.out)[e] = at;
    }
}

MPCC_DEV void mpcc_l2_norm_body(const mpcc_rowop_args &p) {
    for (long long r = mpcc_tid(); r < p.outer; r += mpcc_nthreads()) {
        const float *x = (const float *)p.in + r * p.axis;
        float *y = (float *)p.out + r * p.axis, sq = 0.0f;
        for (int c = 0; c < p.axis; c++) sq += x[c] * x[c];
        float norm = fmaxf(sqrtf(sq), 1e-6f);
        for (int c = 0; c < p.axis; c++) y[c] = x[c] / norm;
    }
}

MPCC_DEV void mpcc_log_softmax_body(const mpcc_rowop_args &p) {
    for (long long r = mpcc_tid(); r < p.outer; r += mpcc_nthreads()) {
        const float *x = (const float *)p.in + r * p.axis;
        float *y = (float *)p.out + r * p.axis, mx = -3.40282347e+38f, sum = 0.0f;
        for (int c = 0; c < p.axis; c++) mx = fmaxf(mx, x[c]);
        for (int c = 0; c < p.axis; c++) sum += expf(x[c] - mx);
        float ls = logf(sum);
        for (int c = 0; c < p.axis; c++) y[c] = x[c] - mx - ls;
    }
}

#endif
