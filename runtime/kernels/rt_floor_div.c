/* rt_floor_div.c - FLOOR_DIV reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_floor_div_f32(const rt_binary_params *p, const float *a, const float *b, float *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it))
        out[i] = (float)floor((double)a[it.off1] / (double)b[it.off2]);
}

/* The integer quotient rounded toward minus infinity; equal to TFLite's
 * floor of the double quotient for every int32 pair (53-bit doubles). */
void rt_floor_div_i32(const rt_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it)) {
        int32_t x = a[it.off1], y = b[it.off2], q = rt_div_trunc_i32(x, y);
        /* one less where the quotient is negative and inexact (y of 0 and -1 divide exactly) */
        out[i] = y != 0 && y != -1 && x % y != 0 && (x < 0) != (y < 0) ? q - 1 : q;
    }
}
