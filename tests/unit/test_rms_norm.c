/* test_rms_norm.c - the RMSNorm kernels (litert-torch's odml.rms_norm composite, SCHED_RMS_NORM):
 * rt_opt_rms_norm_f32 and the reference rt_rms_norm_f32 against the composite's decomposition run op
 * by op with the reference kernels (each MUL's result stored, rt_mean_f32 over the last axis, the ADD
 * of eps, rt_rsqrt_f32), bit for bit: ~400 random cases, 1 to 20 rows (whole 8-row groups and the
 * rows after them), 1 to 300 columns (the 8-lane loop and its tail), values of mixed magnitude
 * (sums whose rounding shows), three eps; also in place (y == x). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "unit_check.h"

/* The decomposition: MUL(x, x), MEAN over the last axis, ADD eps, RSQRT, MUL(x, r), MUL(., w). */
static void decomposition(const rt_rms_norm_params *p, const float *x, const float *w, float *y, float *sq,
                          float *row) {
    rt_reduce_params mp;
    rt_unary_params up;
    int64_t n = (int64_t)p->rows * p->cols, i;
    memset(&mp, 0, sizeof mp);
    memset(&up, 0, sizeof up);
    mp.rank = 2, mp.in_dims[0] = p->rows, mp.in_dims[1] = p->cols;
    mp.out_stride[0] = 1, mp.out_stride[1] = 0;
    mp.in_count = (int32_t)n, mp.out_count = p->rows, mp.reduce_count = p->cols;
    up.n = p->rows;
    for (i = 0; i < n; i++) sq[i] = x[i] * x[i];
    rt_mean_f32(&mp, sq, row);
    for (i = 0; i < p->rows; i++) row[i] = row[i] + p->eps;
    rt_rsqrt_f32(&up, row, row);
    for (i = 0; i < n; i++) sq[i] = x[i] * row[i / p->cols];
    for (i = 0; i < n; i++) y[i] = sq[i] * w[i % p->cols];
}

static float rnd_mixed(void) {
    float v = rnd_f();
    switch (rnd() % 4) {
    case 0: return v * 1000.0f;
    case 1: return v * 0.001f;
    default: return v;
    }
}

int main(void) {
    static const float eps[3] = {1e-5f, 1e-6f, 0.25f};
    char msg[160];
    unit_seed(20261130ULL, rt_opt_isa());
    for (int t = 0; t < 400; t++) {
        rt_rms_norm_params p;
        p.rows = t < 40 ? 8 * (t % 3 + 1) : rnd_in(1, 20);
        p.cols = t % 5 == 0 ? 8 * rnd_in(1, 40) : rnd_in(1, 300);
        p.eps = eps[t % 3];
        int64_t n = (int64_t)p.rows * p.cols;
        float *x = malloc(sizeof(float) * (size_t)n), *w = malloc(sizeof(float) * (size_t)p.cols);
        float *want = malloc(sizeof(float) * (size_t)n), *ref = malloc(sizeof(float) * (size_t)n);
        float *got = malloc(sizeof(float) * (size_t)n), *sq = malloc(sizeof(float) * (size_t)n);
        float *row = malloc(sizeof(float) * (size_t)p.rows);
        for (int64_t i = 0; i < n; i++) x[i] = rnd_mixed();
        for (int32_t j = 0; j < p.cols; j++) w[j] = rnd_f();
        decomposition(&p, x, w, want, sq, row);
        rt_rms_norm_f32(&p, x, w, ref);
        rt_opt_rms_norm_f32(&p, x, w, got);
        snprintf(msg, sizeof msg, "%d rows x %d cols, eps %g", p.rows, p.cols, (double)p.eps);
        check(memcmp(ref, want, sizeof(float) * (size_t)n) == 0, "rt_rms_norm_f32 vs the decomposition", msg);
        check(memcmp(got, want, sizeof(float) * (size_t)n) == 0, "rt_opt_rms_norm_f32 vs the decomposition", msg);
        memcpy(got, x, sizeof(float) * (size_t)n);
        rt_opt_rms_norm_f32(&p, got, w, got);
        check(memcmp(got, want, sizeof(float) * (size_t)n) == 0, "rt_opt_rms_norm_f32 in place", msg);
        free(x), free(w), free(want), free(ref), free(got), free(sq), free(row);
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
