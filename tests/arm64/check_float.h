/* check_float.h - what the float GEMM checks in tests/arm64 (gemm_f32_check.c, gemm16_check.c) share: random
 * values, random clamps, and the convolution oracle (one fmaf per product in filter order from the bias, then
 * the clamp). Include after check_main.h and rt_opt.h. */
#ifndef CHECK_FLOAT_H
#define CHECK_FLOAT_H

#include <math.h>
#include <string.h>

static float rnd(void) { return (float)((int32_t)(next() % 20001u) - 10000) / 2500.0f; }

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

/* No clamp, RELU, a random range, RELU6, or the compiler's "none" (+-FLT_MAX). */
static void clamps(float *lo, float *hi) {
    uint32_t r = next() % 3;
    *lo = r == 0 ? -INFINITY : r == 1 ? 0.0f : -rnd() * rnd();
    *hi = r == 0 ? INFINITY : r == 1 ? INFINITY : *lo + 1.0f + fabsf(rnd());
    if (next() % 8 == 0) *lo = 0.0f, *hi = 6.0f;
    if (next() % 8 == 0) *lo = -3.40282347e+38f, *hi = 3.40282347e+38f;
}

/* A random convolution shape into p (zeroed first): images up to 2 x 9 x 9 x 20, filters 1..3 or 5, dilation
 * 1 or 2, stride 1 or 2, padding 0..2, the input grown to the filter's extent; direct: one case in five is a
 * 1x1 stride-1 unpadded filter, and p->direct says which. Returns the output channels (1..40), set in p->gemm
 * with K and the clamp. */
static int32_t draw_conv(rt_opt_conv_params *p, int direct) {
    int32_t ext_h, ext_w, oc;
    memset(p, 0, sizeof *p);
    p->batches = range(1, 2);
    p->in_h = range(1, 9), p->in_w = range(1, 9), p->in_c = range(1, 20);
    p->filter_h = p->filter_w = next() % 8 ? range(1, 3) : 5;
    p->filter_w = next() % 4 ? p->filter_h : range(1, 3);
    p->dil_h = p->dil_w = next() % 8 ? 1 : 2;
    p->stride_h = range(1, 2), p->stride_w = range(1, 2);
    p->pad_h = range(0, 2), p->pad_w = range(0, 2);
    if (direct && next() % 5 == 0)
        p->filter_h = p->filter_w = p->dil_h = p->dil_w = p->stride_h = p->stride_w = 1, p->pad_h = p->pad_w = 0;
    ext_h = (p->filter_h - 1) * p->dil_h + 1, ext_w = (p->filter_w - 1) * p->dil_w + 1;
    if (p->in_h + 2 * p->pad_h < ext_h) p->in_h = ext_h;
    if (p->in_w + 2 * p->pad_w < ext_w) p->in_w = ext_w;
    p->out_h = (p->in_h + 2 * p->pad_h - ext_h) / p->stride_h + 1;
    p->out_w = (p->in_w + 2 * p->pad_w - ext_w) / p->stride_w + 1;
    if (direct)
        p->direct = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0 &&
                    p->pad_w == 0;
    oc = range(1, 40);
    p->gemm.n = oc, p->gemm.k = p->filter_h * p->filter_w * p->in_c, p->gemm.ldc = oc;
    clamps(&p->gemm.act_min, &p->gemm.act_max);
    return oc;
}

/* want = the convolution p of `in` (NHWC) by f ([oc][filter_h][filter_w][in_c]) plus bias, clamped. */
static void conv_oracle(const rt_opt_conv_params *p, int32_t oc, const float *in, const float *f, const float *bias,
                        float *want) {
    const int32_t kdim = p->filter_h * p->filter_w * p->in_c;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++)
                for (int32_t o = 0; o < oc; o++) {
                    float s = bias[o];
                    for (int32_t fy = 0; fy < p->filter_h; fy++)
                        for (int32_t fx = 0; fx < p->filter_w; fx++)
                            for (int32_t c = 0; c < p->in_c; c++) {
                                int32_t y = oy * p->stride_h - p->pad_h + fy * p->dil_h;
                                int32_t x = ox * p->stride_w - p->pad_w + fx * p->dil_w;
                                float v = y < 0 || y >= p->in_h || x < 0 || x >= p->in_w
                                              ? 0.0f : in[((b * p->in_h + y) * p->in_w + x) * p->in_c + c];
                                s = fmaf(v, f[o * kdim + (fy * p->filter_w + fx) * p->in_c + c], s);
                            }
                    want[((b * p->out_h + oy) * p->out_w + ox) * oc + o] = clampf(s, p->gemm.act_min, p->gemm.act_max);
                }
}

#endif
