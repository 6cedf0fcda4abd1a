/* rt_rms_norm.h - RMSNorm over the last axis: litert-torch's odml.rms_norm composite as one kernel. */
#ifndef MPCC_RT_RMS_NORM_H
#define MPCC_RT_RMS_NORM_H

#include <stdint.h>

/* rows rows of cols values each (contiguous); eps added to the mean of squares. */
typedef struct rt_rms_norm_params {
    int32_t rows, cols;
    float eps;
} rt_rms_norm_params;

/* y = (x * r) * w per element of each row, r = 1 / sqrtf(s / cols + eps) and s the row's squares
 * summed in order, each square rounded to float: the composite's decomposition (MUL x x, MEAN over the
 * last axis, ADD eps, RSQRT, MUL x r, MUL by w) computed in the same float operations, so the results
 * are its bits. w: cols weights (the same for every row). y may be x. */
void rt_rms_norm_f32(const rt_rms_norm_params *p, const float *x, const float *w, float *y);

#endif
