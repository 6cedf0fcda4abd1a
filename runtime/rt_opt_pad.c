/* rt_opt_pad.c - PAD / PADV2 in one pass over the output: the interior rows
 * are memcpy'd and only the gaps between them (the borders) are filled, with
 * memset when the pad value's bytes are all equal (0, an int8 zero point),
 * else element by element. The reference (rt_pad.c) fills the whole output
 * byte by byte and then copies the interior over it. Same params and result. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

static void fill(uint8_t *dst, int64_t bytes, const uint8_t *v, int32_t esize, int uniform) {
    int64_t i;
    if (bytes <= 0) return;
    if (uniform) {
        memset(dst, v[0], (size_t)bytes);
        return;
    }
    for (i = 0; i < bytes; i += esize) memcpy(dst + i, v, (size_t)esize);
}

void rt_opt_pad(const struct rt_pad_params *p, const void *in, const void *value, void *out) {
    const uint8_t *v = value ? (const uint8_t *)value : p->fill, *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    const rt_copy_params *c = &p->interior;
    int32_t idx[RT_MAX_RANK] = {0}, k;
    int64_t si = c->in_offset, so = c->out_offset, done = 0, n, total = rt_copy_points(c);
    int uniform = 1;
    for (k = 1; k < p->elem_size; k++) uniform &= v[k] == v[0];
    /* The interior's runs come in increasing output order (row-major odometer, positive strides): what
     * lies between two of them is border. */
    for (n = 0; n < total; n++) {
        fill(dst + done, so - done, v, p->elem_size, uniform);
        memcpy(dst + so, src + si, (size_t)c->run);
        done = so + c->run;
        rt_copy_next(c, idx, &si, &so);
    }
    fill(dst + done, p->out_bytes - done, v, p->elem_size, uniform);
}
