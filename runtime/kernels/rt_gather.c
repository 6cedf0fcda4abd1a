/* rt_gather.c - GATHER kernels (TFLite reference semantics). */
#include <string.h>

#include "mpcc_rt.h"

static void gather_slice(const rt_gather_params *p, const uint8_t *in, uint8_t *out, int32_t b, int32_t o, int32_t c,
                         int64_t i) {
    int64_t dst = (((int64_t)b * p->outer + o) * p->coords + c) * p->inner_bytes, src;
    /* memcpy, not a byte loop: BERT's token embedding (128 rows of 512 bytes) took 20 us */
    if (i < 0 || i >= p->axis_size) {
        memset(out + dst, 0, (size_t)p->inner_bytes);
        return;
    }
    src = (((int64_t)b * p->outer + o) * p->axis_size + i) * p->inner_bytes;
    memcpy(out + dst, in + src, (size_t)p->inner_bytes);
}

void rt_gather_i32(const rt_gather_params *p, const void *in, const int32_t *idx, void *out) {
    int32_t b, o, c;
    for (b = 0; b < p->batch; b++)
        for (o = 0; o < p->outer; o++)
            for (c = 0; c < p->coords; c++)
                gather_slice(p, (const uint8_t *)in, (uint8_t *)out, b, o, c, idx[(int64_t)b * p->coords + c]);
}

void rt_gather_i64(const rt_gather_params *p, const void *in, const int64_t *idx, void *out) {
    int32_t b, o, c;
    for (b = 0; b < p->batch; b++)
        for (o = 0; o < p->outer; o++)
            for (c = 0; c < p->coords; c++)
                gather_slice(p, (const uint8_t *)in, (uint8_t *)out, b, o, c, idx[(int64_t)b * p->coords + c]);
}
