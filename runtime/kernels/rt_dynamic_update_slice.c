/* rt_dynamic_update_slice.c - DYNAMIC_UPDATE_SLICE reference kernels (TFLite
 * semantics: clamped start indices). LLM exports write their KV caches with it. */
#include <string.h>

#include "mpcc_rt.h"

static void dus(const rt_dus_params *p, const void *in, const void *upd, const int64_t *start, void *out) {
    int64_t row = p->upd_dims[p->rank - 1] * p->elem_size, rows = 1, r;
    int64_t in_stride[RT_MAX_RANK], base = 0;
    int32_t j;
    if (out != in) memcpy(out, in, (size_t)p->in_bytes);
    in_stride[p->rank - 1] = p->elem_size;
    for (j = p->rank - 2; j >= 0; j--) in_stride[j] = in_stride[j + 1] * p->in_dims[j + 1];
    for (j = 0; j < p->rank; j++) base += start[j] * in_stride[j];
    for (j = 0; j < p->rank - 1; j++) rows *= p->upd_dims[j];
    for (r = 0; r < rows; r++) {
        /* the operand offset of update row r: its index digits over upd_dims[0 .. rank-2] */
        int64_t off = base, rem = r;
        for (j = p->rank - 2; j >= 0; j--) {
            off += (rem % p->upd_dims[j]) * in_stride[j];
            rem /= p->upd_dims[j];
        }
        memcpy((uint8_t *)out + off, (const uint8_t *)upd + r * row, (size_t)row);
    }
}

static int64_t clamp_start(const rt_dus_params *p, int32_t j, int64_t s) {
    int64_t hi = p->in_dims[j] - p->upd_dims[j];
    return s < 0 ? 0 : (s > hi ? hi : s);
}

void rt_dynamic_update_slice_i32(const rt_dus_params *p, const void *in, const void *upd, const int32_t *start,
                                 void *out) {
    int64_t s[RT_MAX_RANK];
    int32_t j;
    for (j = 0; j < p->rank; j++) s[j] = clamp_start(p, j, start[j]);
    dus(p, in, upd, s, out);
}

void rt_dynamic_update_slice_i64(const rt_dus_params *p, const void *in, const void *upd, const int64_t *start,
                                 void *out) {
    int64_t s[RT_MAX_RANK];
    int32_t j;
    for (j = 0; j < p->rank; j++) s[j] = clamp_start(p, j, start[j]);
    dus(p, in, upd, s, out);
}
