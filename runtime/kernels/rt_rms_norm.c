/* rt_rms_norm.c - RMSNorm reference kernel (the odml.rms_norm decomposition's float operations). */
#include <math.h>

#include "mpcc_rt.h"

void rt_rms_norm_f32(const rt_rms_norm_params *p, const float *x, const float *w, float *y) {
    int32_t i, j;
    for (i = 0; i < p->rows; i++) {
        const float *xr = x + (int64_t)i * p->cols;
        float *yr = y + (int64_t)i * p->cols;
        float s = 0.0f, r;
        for (j = 0; j < p->cols; j++) {
            volatile float sq = xr[j] * xr[j]; /* rounded, as the MUL stores it (volatile: never fused into the add) */
            s += sq;
        }
        r = 1.0f / sqrtf(s / (float)p->cols + p->eps);
        for (j = 0; j < p->cols; j++) {
            float v = xr[j] * r;
            yr[j] = v * w[j];
        }
    }
}
