/* rt_floor_mod.c - FLOOR_MOD reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_floor_mod_f32(const rt_binary_params *p, const float *a, const float *b, float *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it)) {
        float y = b[it.off2], r = fmodf(a[it.off1], y);
        out[i] = r != 0.0f && (y < 0.0f) != (r < 0.0f) ? r + y : r;
    }
}

/* y == -1 (and 0) give 0: x % -1 is 0, but INT_MIN % -1 is undefined in C. */
#define RT_FLOOR_MOD_INT_KERNEL(suffix, T)                                                \
    void rt_floor_mod_##suffix(const rt_binary_params *p, const T *a, const T *b, T *out) { \
        int64_t i, n = rt_bcast_numel(&p->bc);                                            \
        rt_bcast_iter it;                                                                 \
        rt_bcast_begin(&it);                                                              \
        for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it)) {                              \
            T y = b[it.off2], r = y == 0 || y == -1 ? 0 : a[it.off1] % y;                  \
            out[i] = r != 0 && (y < 0) != (r < 0) ? r + y : r;                            \
        }                                                                                 \
    }

RT_FLOOR_MOD_INT_KERNEL(i32, int32_t)
RT_FLOOR_MOD_INT_KERNEL(i64, int64_t)
