/* rt_reduce_all.c - REDUCE_ALL reference kernel (TFLite's generic reducer:
 * outputs start at 1, inputs visited in row-major order). */
#include "mpcc_rt.h"

void rt_reduce_all_bool(const rt_reduce_params *p, const uint8_t *in, uint8_t *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 1;
    for (i = 0; i < p->in_count; i++) {
        int64_t o = rt_reduce_out_offset(p, i);
        out[o] = (uint8_t)(out[o] && in[i]);
    }
}
