/* test_rfft2d.c - the RFFT2D reference kernel (runtime/kernels/rt_rfft2d.c)
 * and the scheduled one for fft_length [1, N] (runtime/rt_opt_fft.c: eight
 * rows side by side, so row counts around multiples of 8) against a direct 2-D DFT in double precision of the same cropped or
 * zero-padded input, for power-of-two lengths from 1 to 2048, square and
 * not, with several slices. Each output must be the double-precision value
 * rounded to float, within a margin for the FFT's own double rounding. The
 * scratch is exactly rt_rfft2d_scratch_bytes / rt_opt_rfft_scratch_bytes (ASan sees an overrun) and the
 * output is poisoned with NaN first. Built by `make unit` (ASan+UBSan); the
 * seed is printed, MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"

#include "unit_check.h"

/* Largest |got - want| over its bound: float rounding of want plus the transform's double error. */
static double dft_check(const rt_rfft2d_params *p, const float *in, const float *got) {
    const double two_pi = 6.283185307179586476925286766559;
    int32_t cols = p->fft_w / 2 + 1, rows_in = p->in_h < p->fft_h ? p->in_h : p->fft_h;
    int32_t cols_in = p->in_w < p->fft_w ? p->in_w : p->fft_w;
    double worst = 0;
    for (int64_t b = 0; b < p->outer; b++) {
        const float *x = in + b * p->in_h * p->in_w;
        double mag = 0;
        for (int32_t r = 0; r < rows_in; r++)
            for (int32_t c = 0; c < cols_in; c++) mag += fabs((double)x[(int64_t)r * p->in_w + c]);
        for (int32_t u = 0; u < p->fft_h; u++) {
            for (int32_t v = 0; v < cols; v++) {
                double re = 0, im = 0;
                for (int32_t r = 0; r < rows_in; r++)
                    for (int32_t c = 0; c < cols_in; c++) {
                        /* the phase reduced exactly: (u r / H + v c / W) mod 1 */
                        int64_t nh = ((int64_t)u * r) % p->fft_h, nw = ((int64_t)v * c) % p->fft_w;
                        double a = two_pi * ((double)nh / p->fft_h + (double)nw / p->fft_w);
                        double xv = x[(int64_t)r * p->in_w + c];
                        re += xv * cos(a);
                        im -= xv * sin(a);
                    }
                const float *o = got + 2 * ((b * p->fft_h + u) * cols + v);
                double bound_re = fabs(re) * 1.2e-7 + mag * 1e-12 + 1e-30;
                double bound_im = fabs(im) * 1.2e-7 + mag * 1e-12 + 1e-30;
                double e_re = fabs((double)o[0] - re) / bound_re, e_im = fabs((double)o[1] - im) / bound_im;
                if (o[0] != o[0] || o[1] != o[1]) return INFINITY;
                if (e_re > worst) worst = e_re;
                if (e_im > worst) worst = e_im;
            }
        }
    }
    return worst;
}

static void one_kernel(int opt, int64_t outer, int32_t in_h, int32_t in_w, int32_t fft_h, int32_t fft_w) {
    rt_rfft2d_params p = {outer, in_h, in_w, fft_h, fft_w};
    int64_t n_in = outer * in_h * in_w, n_out = 2 * outer * fft_h * (fft_w / 2 + 1);
    float *in = malloc(sizeof(float) * (size_t)(n_in ? n_in : 1));
    float *out = malloc(sizeof(float) * (size_t)n_out);
    void *scratch = malloc(opt ? (size_t)rt_opt_rfft_scratch_bytes(&p) : rt_rfft2d_scratch_bytes(&p));
    if (!in || !out || !scratch) {
        check(0, "rfft2d", "out of memory");
        exit(1);
    }
    for (int64_t i = 0; i < n_in; i++) in[i] = rnd_f();
    for (int64_t i = 0; i < n_out; i++) out[i] = NAN;
    if (opt)
        rt_opt_rfft2d(&p, in, out, scratch);
    else
        rt_rfft2d(&p, in, out, scratch);
    double worst = dft_check(&p, in, out);
    char what[96], detail[64];
    snprintf(what, sizeof what, "%s [%lld, %d, %d] fft [%d, %d]", opt ? "opt_rfft2d" : "rfft2d", (long long)outer, in_h, in_w, fft_h, fft_w);
    snprintf(detail, sizeof detail, "error / bound %.3g", worst);
    check(worst <= 1.0, what, worst <= 1.0 ? "" : detail);
    free(in);
    free(out);
    free(scratch);
}

/* The reference, and the scheduled kernel where it runs (pass schedule: fft_h 1, fft_w at least 16). */
static void one(int64_t outer, int32_t in_h, int32_t in_w, int32_t fft_h, int32_t fft_w) {
    one_kernel(0, outer, in_h, in_w, fft_h, fft_w);
    if (fft_h == 1 && fft_w >= 16) one_kernel(1, outer, in_h, in_w, fft_h, fft_w);
}

int main(void) {
    unit_seed(20261201ULL, "generic");
    one(1, 1, 1, 1, 1);
    one(1, 1, 2, 1, 2);
    one(3, 4, 8, 4, 8);
    one(2, 8, 16, 8, 16);
    one(1, 16, 4, 16, 4);  /* the columns longer than the rows */
    one(1, 10, 20, 8, 16); /* cropped */
    one(2, 3, 5, 4, 8);    /* zero-padded */
    one(1, 3, 40, 8, 32);  /* padded rows, cropped columns */
    one(5, 1, 256, 1, 256);
    one(1, 1, 2048, 1, 2048); /* BirdNET's frame */
    one(2, 1, 1000, 1, 1024);
    one(1, 32, 32, 32, 32);
    one(9, 1, 16, 1, 16);     /* a full block of 8 rows and one more */
    one(7, 3, 64, 1, 64);     /* slices of 3 rows: the first transformed */
    one(8, 1, 37, 1, 64);     /* an odd length, zero-padded */
    one(17, 1, 600, 1, 512);  /* cropped, more rows than two blocks */
    one(3, 1, 4096, 1, 4096); /* deeper than one 256-value block: the stages across blocks */
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
