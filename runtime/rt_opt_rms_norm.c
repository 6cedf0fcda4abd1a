/* rt_opt_rms_norm.c - RMSNorm over the last axis (SCHED_RMS_NORM: litert-torch's odml.rms_norm composite
 * as one kernel instead of a call of its decomposition's six kernels and their row-sized temporaries).
 *
 * Bit-identical to rt_rms_norm_f32 and so to the decomposition: each row's squares, each rounded (a
 * volatile: a build that contracts, gcc -ffp-contract=fast, would fuse the square into the add;
 * the store and load are off the chain of adds), are summed in column order (a chain of dependent adds, as MEAN's row sum is); 8 rows take 8 independent
 * chains side by side, so that prefill's rows overlap their add latencies. Then r = 1 / sqrtf(s / cols
 * + eps) and y = (x * r) * w, two roundings per element as the two MULs store them (8 lanes a step:
 * the lanes are independent elements, nothing is reordered). */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define GROUP 8

#ifdef RT_OPT_VEC
typedef float rms_v8f __attribute__((vector_size(32)));
#endif

/* y = (x * r) * w over n elements. */
static void scale_row(const float *x, float r, const float *w, float *y, int32_t n) {
    int32_t j = 0;
#ifdef RT_OPT_VEC
    const rms_v8f vr = {r, r, r, r, r, r, r, r};
    for (; j + 8 <= n; j += 8) {
        rms_v8f v, vw;
        memcpy(&v, x + j, sizeof v);
        memcpy(&vw, w + j, sizeof vw);
        v = v * vr;
        v = v * vw;
        memcpy(y + j, &v, sizeof v);
    }
#endif
    for (; j < n; j++) {
        float v = x[j] * r;
        y[j] = v * w[j];
    }
}

static float inv_rms(float s, const rt_rms_norm_params *p) { return 1.0f / sqrtf(s / (float)p->cols + p->eps); }

void rt_opt_rms_norm_f32(const rt_rms_norm_params *p, const float *x, const float *w, float *y) {
    const int32_t n = p->cols;
    int32_t i = 0, j, r;
    for (; i + GROUP <= p->rows; i += GROUP) {
        const float *xr = x + (int64_t)i * n;
        float s[GROUP] = {0}, inv[GROUP];
        for (j = 0; j < n; j++)
            for (r = 0; r < GROUP; r++) {
                volatile float sq = xr[(int64_t)r * n + j] * xr[(int64_t)r * n + j];
                s[r] += sq;
            }
        for (r = 0; r < GROUP; r++) inv[r] = inv_rms(s[r], p);
        for (r = 0; r < GROUP; r++) scale_row(xr + (int64_t)r * n, inv[r], w, y + (int64_t)(i + r) * n, n);
    }
    for (; i < p->rows; i++) {
        const float *xr = x + (int64_t)i * n;
        float s = 0.0f;
        for (j = 0; j < n; j++) {
            volatile float sq = xr[j] * xr[j];
            s += sq;
        }
        scale_row(xr, inv_rms(s, p), w, y + (int64_t)i * n, n);
    }
}
