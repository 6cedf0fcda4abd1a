/* unit_conv.h - convolution helpers of the kernel unit tests: random CONV_2D
 * params, the scheduled kernels' params for them, and a parallel-for that
 * runs its tasks backwards on the calling thread (splitting the work into
 * tasks, with their scratch copies, must not change any result). Needs
 * unit_check.h, mpcc_rt.h and rt_opt.h first. */
#ifndef MPCC_UNIT_CONV_H
#define MPCC_UNIT_CONV_H

#include <string.h>

static void reverse_run(void *pool, void (*task)(void *, int), void *arg, int n) {
    (void)pool;
    for (int i = n - 1; i >= 0; i--) task(arg, i);
}
static const mpcc_parallel fake_par = {reverse_run, NULL, 3};

/* A fused ADD (pass fuse_add) over n contiguous values, clamped to [-2, 2.5] (f32) and the int8 range,
 * with random int8 rescalings (one operand's multiplier exactly 1/2 in a third, as TFLite makes the
 * larger-scale one's). */
static inline void unit_post_add(rt_binary_params *ap, rt_opt_post_add *post, int64_t n, int conv_is_lhs) {
    memset(ap, 0, sizeof *ap);
    ap->bc.rank = 1, ap->bc.dims[0] = (int32_t)n, ap->bc.stride1[0] = 1, ap->bc.stride2[0] = 1;
    ap->act_min = -2.0f, ap->act_max = 2.5f, ap->act_qmin = -128, ap->act_qmax = 127, ap->left_shift = 20;
    ap->in1_offset = -rnd_in(-128, 127), ap->in2_offset = -rnd_in(-128, 127), ap->out_offset = rnd_in(-128, 127);
    ap->in1_shift = rnd_in(-8, -1), ap->in2_shift = rnd_in(-8, -1), ap->out_shift = rnd_in(-22, -16);
    ap->in1_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
    ap->in2_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
    ap->out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
    if (rnd_in(0, 2) == 0) {
        if (rnd_in(0, 1)) ap->in1_mult = (int32_t)1 << 30, ap->in1_shift = 0;
        else ap->in2_mult = (int32_t)1 << 30, ap->in2_shift = 0;
    }
    memset(post, 0, sizeof *post); /* (no fused PRELU: alpha NULL) */
    post->add = ap, post->conv_is_lhs = conv_is_lhs;
}

static inline int rnd_conv(rt_conv_params *p, int t) {
    memset(p, 0, sizeof *p);
    /* every 7th: a filter row longer than 64 bytes (int8 im2col runs in several chunks) */
    p->batches = rnd_in(1, 2), p->in_h = rnd_in(1, 9), p->in_w = rnd_in(1, 9), p->in_c = t % 7 == 3 ? rnd_in(22, 70) : rnd_in(1, 20);
    p->filter_h = rnd_in(1, 3), p->filter_w = rnd_in(1, 3), p->filter_c = p->in_c, p->out_c = rnd_in(1, 35);
    p->stride_h = rnd_in(1, 2), p->stride_w = rnd_in(1, 2), p->dil_h = rnd_in(1, 2), p->dil_w = t % 6 == 5 ? 2 : 1;
    p->pad_h = rnd_in(0, 1), p->pad_w = rnd_in(0, 1);
    if (t % 5 == 0) p->filter_h = p->filter_w = 1, p->stride_h = p->stride_w = 1, p->pad_h = p->pad_w = 0;
    p->out_h = (p->in_h + 2 * p->pad_h - p->dil_h * (p->filter_h - 1) - 1) / p->stride_h + 1;
    p->out_w = (p->in_w + 2 * p->pad_w - p->dil_w * (p->filter_w - 1) - 1) / p->stride_w + 1;
    return p->out_h > 0 && p->out_w > 0;
}

/* The scheduled kernels' params for the same convolution (float clamp from p), `rows` rows per block. */
static inline rt_opt_conv_params opt_conv(const rt_conv_params *p, int32_t rows) {
    rt_opt_conv_params c;
    memset(&c, 0, sizeof c);
    c.gemm.n = p->out_c, c.gemm.k = p->filter_h * p->filter_w * p->in_c, c.gemm.ldc = p->out_c;
    c.gemm.act_min = p->act_min, c.gemm.act_max = p->act_max;
    c.batches = p->batches, c.in_h = p->in_h, c.in_w = p->in_w, c.in_c = p->in_c, c.out_h = p->out_h;
    c.out_w = p->out_w, c.filter_h = p->filter_h, c.filter_w = p->filter_w, c.stride_h = p->stride_h;
    c.stride_w = p->stride_w, c.dil_h = p->dil_h, c.dil_w = p->dil_w, c.pad_h = p->pad_h, c.pad_w = p->pad_w;
    c.direct = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 && !p->pad_h && !p->pad_w;
    c.rows = rows;
    return c;
}

/* A 1x1 expansion CONV_2D (RELU6) and the depthwise convolution reading it (pass fuse_dw's pattern). */
static inline void rnd_expand_dw(rt_conv_params *cp, rt_dwconv_params *d, int t) {
    memset(cp, 0, sizeof *cp);
    memset(d, 0, sizeof *d);
    cp->batches = rnd_in(1, 2), cp->in_h = rnd_in(1, 11), cp->in_w = rnd_in(1, 11), cp->in_c = rnd_in(1, 24);
    cp->out_c = t % 3 ? 16 * rnd_in(1, 4) : rnd_in(1, 50), cp->filter_c = cp->in_c;
    cp->filter_h = cp->filter_w = cp->stride_h = cp->stride_w = cp->dil_h = cp->dil_w = 1;
    cp->out_h = cp->in_h, cp->out_w = cp->in_w, cp->act_min = 0.0f, cp->act_max = 6.0f;
    d->batches = cp->batches, d->in_h = cp->in_h, d->in_w = cp->in_w, d->in_c = cp->out_c, d->depth_mult = 1;
    d->filter_h = d->filter_w = t % 4 == 3 ? rnd_in(1, 5) : 3, d->stride_h = d->stride_w = rnd_in(1, 2);
    d->dil_h = d->dil_w = t % 5 == 4 ? 2 : 1, d->pad_h = d->pad_w = rnd_in(0, 1);
    d->out_h = (d->in_h + 2 * d->pad_h - d->dil_h * (d->filter_h - 1) - 1) / d->stride_h + 1;
    d->out_w = (d->in_w + 2 * d->pad_w - d->dil_w * (d->filter_w - 1) - 1) / d->stride_w + 1;
    d->act_min = 0.0f, d->act_max = 6.0f;
}

#endif
