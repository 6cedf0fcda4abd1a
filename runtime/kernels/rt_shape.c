/* rt_shape.c - SHAPE kernels. */
#include "mpcc_rt.h"

void rt_shape_i32(const rt_shape_params *p, int32_t *out) {
    int32_t i;
    for (i = 0; i < p->rank; i++) out[i] = p->dims[i];
}

void rt_shape_i64(const rt_shape_params *p, int64_t *out) {
    int32_t i;
    for (i = 0; i < p->rank; i++) out[i] = p->dims[i];
}

int rt_check_shape_i32(const int32_t *got, const int32_t *want, int32_t n, int wildcard) {
    int32_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i] && !(wildcard && got[i] == -1)) return 0;
    return 1;
}

int rt_check_shape_i64(const int64_t *got, const int64_t *want, int32_t n, int wildcard) {
    int32_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i] && !(wildcard && got[i] == -1)) return 0;
    return 1;
}
