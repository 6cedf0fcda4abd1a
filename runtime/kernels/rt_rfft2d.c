/* rt_rfft2d.c - RFFT2D reference kernel: an iterative radix-2 complex FFT in
 * double precision, run over the rows (real input, imaginary parts zero,
 * keeping the fft_w / 2 + 1 non-redundant bins) and then down each kept
 * column. */
#include <math.h>

#include "mpcc_rt.h"

/* In-place FFT of n complex values x[2k], x[2k + 1] (n a power of two).
 * tw[2j], tw[2j + 1] = exp(-2 pi i j / (n * tw_stride)), j < n * tw_stride / 2. */
static void fft(double *x, int32_t n, const double *tw, int32_t tw_stride) {
    int32_t i, j, len;
    /* bit-reversal permutation */
    for (i = 1, j = 0; i < n; i++) {
        int32_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double re = x[2 * i], im = x[2 * i + 1];
            x[2 * i] = x[2 * j];
            x[2 * i + 1] = x[2 * j + 1];
            x[2 * j] = re;
            x[2 * j + 1] = im;
        }
    }
    for (len = 2; len <= n; len <<= 1) {
        int32_t half = len / 2, step = (n / len) * tw_stride, start;
        for (start = 0; start < n; start += len) {
            for (j = 0; j < half; j++) {
                double wr = tw[2 * j * step], wi = tw[2 * j * step + 1];
                double *u = x + 2 * (start + j), *v = x + 2 * (start + j + half);
                double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
                v[0] = u[0] - vr;
                v[1] = u[1] - vi;
                u[0] += vr;
                u[1] += vi;
            }
        }
    }
}

void rt_rfft2d(const rt_rfft2d_params *p, const float *in, float *out, void *scratch) {
    const double two_pi = 6.283185307179586476925286766559;
    int32_t nmax = p->fft_h > p->fft_w ? p->fft_h : p->fft_w, cols = p->fft_w / 2 + 1;
    int32_t rows_in = p->in_h < p->fft_h ? p->in_h : p->fft_h, cols_in = p->in_w < p->fft_w ? p->in_w : p->fft_w;
    double *tw = (double *)scratch, *line = tw + 2 * (nmax / 2), *grid = line + 2 * nmax;
    int64_t b;
    int32_t r, c, k;
    for (k = 0; k < nmax / 2; k++) {
        tw[2 * k] = cos(two_pi * k / nmax);
        tw[2 * k + 1] = -sin(two_pi * k / nmax);
    }
    for (b = 0; b < p->outer; b++) {
        const float *slice = in + b * p->in_h * p->in_w;
        float *o = out + 2 * b * p->fft_h * cols;
        for (r = 0; r < p->fft_h; r++) {
            double *g = grid + 2 * (int64_t)r * cols;
            if (r >= rows_in) { /* a zero-padded row transforms to zeros */
                for (c = 0; c < 2 * cols; c++) g[c] = 0.0;
                continue;
            }
            for (c = 0; c < p->fft_w; c++) {
                line[2 * c] = c < cols_in ? (double)slice[(int64_t)r * p->in_w + c] : 0.0;
                line[2 * c + 1] = 0.0;
            }
            fft(line, p->fft_w, tw, nmax / p->fft_w);
            for (c = 0; c < 2 * cols; c++) g[c] = line[c];
        }
        for (c = 0; c < cols; c++) {
            for (r = 0; r < p->fft_h; r++) {
                line[2 * r] = grid[2 * ((int64_t)r * cols + c)];
                line[2 * r + 1] = grid[2 * ((int64_t)r * cols + c) + 1];
            }
            fft(line, p->fft_h, tw, nmax / p->fft_h);
            for (r = 0; r < p->fft_h; r++) {
                o[2 * ((int64_t)r * cols + c)] = (float)line[2 * r];
                o[2 * ((int64_t)r * cols + c) + 1] = (float)line[2 * r + 1];
            }
        }
    }
}
