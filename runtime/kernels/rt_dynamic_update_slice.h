/* rt_dynamic_update_slice.h - DYNAMIC_UPDATE_SLICE kernels (any dtype; start
 * indices int32 or int64, read at run time). */
#ifndef MPCC_RT_DYNAMIC_UPDATE_SLICE_H
#define MPCC_RT_DYNAMIC_UPDATE_SLICE_H

typedef struct rt_dus_params {
    int32_t rank;
    int64_t in_dims[RT_MAX_RANK];     /* operand (and output) dims */
    int64_t upd_dims[RT_MAX_RANK];    /* update dims (each <= the operand's) */
    int64_t in_bytes;                 /* bytes of the operand */
    int32_t elem_size;
} rt_dus_params;

/* out = in, then out[start + u] = upd[u] for every index u of upd, each
 * start[j] clamped to [0, in_dims[j] - upd_dims[j]] (TFLite and XLA's
 * semantics). `out` may be `in` (the update in place: no copy). */
void rt_dynamic_update_slice_i32(const rt_dus_params *p, const void *in, const void *upd, const int32_t *start,
                                 void *out);
void rt_dynamic_update_slice_i64(const rt_dus_params *p, const void *in, const void *upd, const int64_t *start,
                                 void *out);

#endif
