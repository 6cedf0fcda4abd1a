/* rt_rfft2d.h - RFFT2D kernel: the 2-D discrete Fourier transform of real
 * input, as TFLite's RFFT2D (tf.signal.rfft2d). */
#ifndef MPCC_RT_RFFT2D_H
#define MPCC_RT_RFFT2D_H

/* Input f32 [outer, in_h, in_w] (the leading dims flattened into outer);
 * output complex64 [outer, fft_h, fft_w / 2 + 1] as interleaved (re, im)
 * floats. Each [in_h, in_w] slice is cropped or zero-padded at its end to
 * [fft_h, fft_w] first. fft_h and fft_w are powers of two (TFLite rejects
 * others). The transforms run in double precision, like TFLite's. */
typedef struct rt_rfft2d_params {
    int64_t outer;
    int32_t in_h, in_w;
    int32_t fft_h, fft_w;
} rt_rfft2d_params;

/* Bytes of the scratch rt_rfft2d needs (doubles): the twiddle factors of the
 * longer length, one line of that length and the row transforms of a slice. */
static inline size_t rt_rfft2d_scratch_bytes(const rt_rfft2d_params *p) {
    size_t nmax = (size_t)(p->fft_h > p->fft_w ? p->fft_h : p->fft_w);
    size_t cols = (size_t)(p->fft_w / 2 + 1);
    return sizeof(double) * 2 * (nmax / 2 + nmax + (size_t)p->fft_h * cols);
}

void rt_rfft2d(const rt_rfft2d_params *p, const float *in, float *out, void *scratch);

#endif
