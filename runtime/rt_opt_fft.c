/* rt_opt_fft.c - RFFT2D with fft_length [1, N] (tf.signal.stft / rfft: one real transform per row), the
 * scheduled kernel (SCHED_FFT; the reference is runtime/kernels/rt_rfft2d.c).
 *
 * Each row's N real values are taken as N / 2 complex ones (even samples real, odd imaginary), transformed
 * by a radix-2 FFT of length N / 2 in double precision (like the reference and TFLite), and the
 * N / 2 + 1 bins of the real transform are split out of it: X[k] = E[k] + W^k O[k], with E and O the
 * transforms of the even and odd samples, E[k] = (Z[k] + conj Z[n - k]) / 2, O[k] = (Z[k] - conj Z[n - k]) / 2i.
 * Half the butterflies of a complex transform of N values. The data are kept split (real parts apart from
 * imaginary parts) and eight rows (frames) are transformed side by side, element k of row l at k * 8 + l:
 * every butterfly is the same arithmetic on eight doubles with one twiddle, so each stage's inner loop is a
 * fixed-length vector loop whatever its span (a row's own early stages would need shuffles). In place,
 * decimation in frequency: once a stage's groups fit a block of 32 KiB, each block runs all its remaining
 * stages while it is in L1. The twiddles (cos, sin of 2 pi k / N, k < N / 2) are computed once per call into
 * the scratch and shared by all rows. Sums differ from the reference's in order only (within double rounding). */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

#define LANES 8   /* rows transformed side by side: one double per row in each vector */
#define BLOCK 256 /* complex values per row whose stages run together: 256 x 8 rows x 16 bytes, 32 KiB (L1) */

/* Scratch: the N / 2 twiddles (cos, -sin), the bit reversal of N / 2 indices, and N / 2 split complex values a
 * lane, doubles. */
int64_t rt_opt_rfft_scratch_bytes(const struct rt_rfft2d_params *p) {
    const int64_t n = p->fft_w / 2;
    return (int64_t)sizeof(double) * (2 * n + 2 * n * LANES) + (int64_t)sizeof(int32_t) * n;
}

/* One butterfly on LANES rows: (u, v) <- (u + v, (u - v) (c + i sn)) */
static void butterfly(double *restrict ur, double *restrict ui, double *restrict vr, double *restrict vi, double c,
                      double sn) {
    int32_t l;
    for (l = 0; l < LANES; l++) {
        const double dr = ur[l] - vr[l], di = ui[l] - vi[l];
        ur[l] += vr[l];
        ui[l] += vi[l];
        vr[l] = dr * c - di * sn;
        vi[l] = dr * sn + di * c;
    }
}

/* Bin k of the real transforms of LANES rows from bins k (a) and n - k (b) of their complex ones and W^k = c + i sn:
 * E = (a + conj b) / 2, O = (a - conj b) / 2i, X = E + W^k O */
static void split(const double *restrict ar, const double *restrict ai, const double *restrict br,
                  const double *restrict bi, double c, double sn, double *restrict xr, double *restrict xi) {
    int32_t l;
    for (l = 0; l < LANES; l++) {
        const double er = 0.5 * (ar[l] + br[l]), ei = 0.5 * (ai[l] - bi[l]);
        const double or_ = 0.5 * (ai[l] + bi[l]), oi = -0.5 * (ar[l] - br[l]);
        xr[l] = er + c * or_ - sn * oi;
        xi[l] = ei + c * oi + sn * or_;
    }
}

/* The decimation-in-frequency butterflies of span `span` in the groups of 2 span values in [from, to), in
 * place, element k of lane l at k LANES + l; butterfly j's twiddle is W^(j n / (2 span)), W = exp(-2 pi i / n):
 * cos at wc[j n / span], -sin at ws[j n / span] (the tables are for 2 n points). */
static void stage(int32_t span, int32_t from, int32_t to, int32_t n, double *xr, double *xi, const double *wc,
                  const double *ws) {
    const int32_t step = n / span;
    int32_t g, j;
    for (g = from; g < to; g += 2 * span)
        for (j = 0; j < span; j++) {
            const int64_t u = (int64_t)(g + j) * LANES, v = u + (int64_t)span * LANES;
            butterfly(xr + u, xi + u, xr + v, xi + v, wc[j * step], ws[j * step]);
        }
}

void rt_opt_rfft2d(const struct rt_rfft2d_params *p, const float *in, float *out, void *scratch) {
    const double two_pi = 6.283185307179586476925286766559;
    const int32_t N = p->fft_w, n = N / 2, used = p->in_w < N ? p->in_w : N, block = n < BLOCK ? n : BLOCK;
    double *wc = (double *)scratch, *ws = wc + n, *zr = ws + n, *zi = zr + (int64_t)n * LANES;
    int32_t *rev = (int32_t *)(void *)(zi + (int64_t)n * LANES), bits = 0;
    int64_t row;
    int32_t k, l;
    while ((1 << bits) < n) bits++;
    for (k = 0; k < n; k++) {
        int32_t r = 0, b;
        for (b = 0; b < bits; b++) r |= ((k >> b) & 1) << (bits - 1 - b);
        rev[k] = r;
        wc[k] = cos(two_pi * k / N);
        ws[k] = -sin(two_pi * k / N);
    }
    /* fft_h 1: each slice's first row is transformed (the others are cropped away), LANES rows at a time */
    for (row = 0; row < p->outer; row += LANES) {
        const int32_t lanes = p->outer - row < LANES ? (int32_t)(p->outer - row) : LANES;
        const float *x[LANES];
        int32_t span, g;
        for (l = 0; l < LANES; l++) /* lanes past the last row repeat the first, never stored */
            x[l] = in + (row + (l < lanes ? l : 0)) * p->in_h * p->in_w;
        for (k = 0; 2 * k + 1 < used; k++)
            for (l = 0; l < LANES; l++) {
                zr[(int64_t)k * LANES + l] = x[l][2 * k];
                zi[(int64_t)k * LANES + l] = x[l][2 * k + 1];
            }
        for (; k < n; k++) /* past the row (zero padding); an odd length's last sample */
            for (l = 0; l < LANES; l++) {
                zr[(int64_t)k * LANES + l] = 2 * k < used ? x[l][2 * k] : 0.0;
                zi[(int64_t)k * LANES + l] = 0.0;
            }
        /* the stages whose groups span more than a block over the whole row, then each block's own in L1 */
        for (span = n / 2; span >= 1 && 2 * span > block; span /= 2) stage(span, 0, n, n, zr, zi, wc, ws);
        for (g = 0; g < n; g += block) {
            int32_t sp;
            for (sp = span; sp >= 1; sp /= 2) stage(sp, g, g + block, n, zr, zi, wc, ws);
        }
        /* the real transform's bins 0..n from the complex one (in bit-reversed order): X[k] = E[k] + W^k O[k] */
        for (k = 0; k <= n; k++) {
            const int64_t a = (int64_t)rev[k % n] * LANES, b = (int64_t)rev[(n - k) % n] * LANES;
            double xr[LANES], xi[LANES];
            split(zr + a, zi + a, zr + b, zi + b, k < n ? wc[k] : -1.0, k < n ? ws[k] : 0.0, xr, xi);
            for (l = 0; l < lanes; l++) {
                out[(row + l) * 2 * (n + 1) + 2 * k] = (float)xr[l];
                out[(row + l) * 2 * (n + 1) + 2 * k + 1] = (float)xi[l];
            }
        }
    }
}
