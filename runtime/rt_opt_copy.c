/* rt_opt_copy.c - the strided copy of the data-movement ops (TRANSPOSE,
 * SLICE, STRIDED_SLICE, BROADCAST_TO, DEPTH_TO_SPACE, SPACE_TO_DEPTH) with
 * each contiguous run moved by memcpy (fixed-size for 1/2/4/8-byte runs, so
 * element-wise transposes become plain loads and stores) instead of a byte
 * loop. Same params and result as rt_copy_strided. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

#define RUN_LOOP(SIZE)                                              \
    for (n = 0; n < total; n++) {                                   \
        memcpy(dst + so, src + si, SIZE);                           \
        rt_copy_next(p, idx, &si, &so);                             \
    }

void rt_opt_copy(const struct rt_copy_params *p, const void *in, void *out) {
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = p->in_offset, so = p->out_offset, n, total = rt_copy_points(p);
    size_t run = (size_t)p->run;
    if (src == dst && si == so && total == 1) return; /* aliased identity copy */
    switch (run) {
    case 1: RUN_LOOP(1) break;
    case 2: RUN_LOOP(2) break;
    case 4: RUN_LOOP(4) break;
    case 8: RUN_LOOP(8) break;
    default: RUN_LOOP(run) break;
    }
}
