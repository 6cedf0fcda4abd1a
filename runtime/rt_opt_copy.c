/* rt_opt_copy.c - the strided copy of the data-movement ops (TRANSPOSE,
 * SLICE, STRIDED_SLICE, BROADCAST_TO, DEPTH_TO_SPACE, SPACE_TO_DEPTH) with
 * each contiguous run moved by memcpy (fixed-size for 1/2/4/8-byte runs, so
 * element-wise transposes become plain loads and stores) instead of a byte
 * loop. Same params and result as rt_copy_strided. Also CONCATENATION's
 * int8 rescale without a libm call per element, and its plain copies. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "arm64/rt_a64_copy.h" /* the AArch64 interleave (RT_A64) */

#define RUN_LOOP(SIZE)                                              \
    for (n = 0; n < total; n++) {                                   \
        memcpy(dst + so, src + si, SIZE);                           \
        rt_copy_next(p, idx, &si, &so);                             \
    }

/* Element-wise moves (a transpose's 1..8-byte runs): the loop over the
 * longest axis read or written contiguously runs innermost, strided, and the
 * odometer steps only over the other axes. */
#define AXIS_LOOP(SIZE)                                                                   \
    for (n = 0; n < total; n++) {                                                         \
        for (i = 0; i < len; i++) memcpy(dst + so + i * os, src + si + i * is, SIZE);     \
        rt_copy_next(&rest, idx, &si, &so);                                               \
    }

static int axis_loop(const struct rt_copy_params *p, const uint8_t *src, uint8_t *dst) {
    struct rt_copy_params rest = *p;
    int32_t idx[RT_MAX_RANK] = {0}, k, best = -1;
    int64_t si = p->in_offset, so = p->out_offset, n, i, total, len, is, os;
    for (k = 0; k < p->rank; k++)
        if ((p->in_strides[k] == p->run || p->out_strides[k] == p->run) && (best < 0 || p->dims[k] > p->dims[best]))
            best = k;
    if (best < 0 || p->dims[best] < 8) return 0;
    len = p->dims[best], is = p->in_strides[best], os = p->out_strides[best];
    for (k = best; k + 1 < p->rank; k++) {
        rest.dims[k] = p->dims[k + 1];
        rest.in_strides[k] = p->in_strides[k + 1];
        rest.out_strides[k] = p->out_strides[k + 1];
    }
    rest.rank = p->rank - 1;
    total = rt_copy_points(&rest);
    switch (p->run) {
    case 1: AXIS_LOOP(1) break;
    case 2: AXIS_LOOP(2) break;
    case 4: AXIS_LOOP(4) break;
    default: AXIS_LOOP(8) break;
    }
    return 1;
}

/* C (2..4) planes of 1-byte elements interleaved into pixels (a PyTorch export's NCHW image transposed
 * to NHWC: dims {len, C}, input strides {1, plane}, output {C, 1}): the output written in order, C a
 * constant so the compiler vectorizes the interleave (the axis loop stored one byte at a time, MobileNetV2's
 * 224 x 224 x 3 input 40 us). */
#define INTERLEAVE(C)                                                                                   \
    for (; i < len; i++) {                                                                          \
        int32_t k_;                                                                                 \
        for (k_ = 0; k_ < (C); k_++) d[i * (C) + k_] = s[k_ * plane + i];                           \
    }

static int interleave(const struct rt_copy_params *p, const uint8_t *src, uint8_t *dst) {
    const int64_t len = p->rank == 2 ? p->dims[0] : 0, c = p->rank == 2 ? p->dims[1] : 0;
    const uint8_t *s = src + p->in_offset;
    uint8_t *d = dst + p->out_offset;
    int64_t i, plane;
    if (p->rank != 2 || p->run != 1 || c < 2 || c > 4 || p->in_strides[0] != 1 || p->out_strides[0] != c ||
        p->out_strides[1] != 1 || src == dst)
        return 0;
    plane = p->in_strides[1];
    i = 0;
#if defined(RT_A64)
    i = rt_a64_interleave_u8(s, d, len, c, plane); /* 16 pixels a step, the rest below */
#endif
    switch (c) {
    case 2: INTERLEAVE(2) break;
    case 3: INTERLEAVE(3) break;
    default: INTERLEAVE(4) break;
    }
    return 1;
}

void rt_opt_copy(const struct rt_copy_params *p, const void *in, void *out) {
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = p->in_offset, so = p->out_offset, n, total = rt_copy_points(p);
    size_t run = (size_t)p->run;
    if (src == dst && si == so && total == 1) return; /* aliased identity copy */
    if (interleave(p, src, dst)) return;
    if ((run == 1 || run == 2 || run == 4 || run == 8) && p->rank >= 1 && axis_loop(p, src, dst)) return;
    switch (run) {
    case 1: RUN_LOOP(1) break;
    case 2: RUN_LOOP(2) break;
    case 4: RUN_LOOP(4) break;
    case 8: RUN_LOOP(8) break;
    default: RUN_LOOP(run) break;
    }
}

/* round(x) (halves away from zero) + zp clamped to [qmin, qmax], as rt_concatenation's rescale: x is
 * first held within a unit beyond the bounds (NaN to the lower, as there), which changes no result and
 * keeps the conversion in range; x - trunc(x) is exact there. */
static inline int8_t rescale_i8(float x, float lo, float hi, int32_t zp, int32_t qmin, int32_t qmax) {
    float t, d;
    int32_t r;
    x = x > hi ? hi : x;
    x = x >= lo ? x : lo;
    t = (float)(int32_t)x;
    d = x - t;
    r = (int32_t)t + (d >= 0.5f) - (d <= -0.5f) + zp;
    return (int8_t)(r < qmin ? qmin : (r > qmax ? qmax : r));
}

#if defined(RT_OPT_AVX512)
/* 1 where this build contracts x * y + z into one rounding (clang's default, GCC's in GNU C mode; not
 * GCC's in ISO C mode): probed with a product whose rounding shows, so that rescale16 rounds as the
 * scalar loop and the reference kernel compiled with the same flags do. */
static int fused_madd(void) {
    volatile float va = 1.0f + 0x1p-12f, vc = -(1.0f + 0x1p-11f);
    const float a = va, c = vc;
    return a * a + c != 0.0f; /* 2^-24 fused, 0 rounded first (a tie to even) */
}

/* rescale_i8 of n int8 values, 16 lanes at a time: the same float products and sums (fused as the
 * scalar loop is in this build) and the same rounding (the run of ViT's patch embeddings went by
 * element, 0.22 us for 1024 values); fused: fused_madd(), probed once per call of the op. Returns the
 * values done. */
static int64_t rescale16(const int8_t *s, int8_t *d, int64_t n, int fused, float scale, float bias, float lo,
                         float hi, int32_t zp, int32_t qmin, int32_t qmax) {
    const __m512 vs = _mm512_set1_ps(scale), vb = _mm512_set1_ps(bias), vlo = _mm512_set1_ps(lo);
    const __m512 vhi = _mm512_set1_ps(hi), half = _mm512_set1_ps(0.5f), mhalf = _mm512_set1_ps(-0.5f);
    const __m512i one = _mm512_set1_epi32(1), vz = _mm512_set1_epi32(zp);
    const __m512i qlo = _mm512_set1_epi32(qmin), qhi = _mm512_set1_epi32(qmax);
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16) {
        const __m512i v = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        const __m512 xf = _mm512_cvtepi32_ps(v);
        __m512 x = fused ? _mm512_fmadd_ps(xf, vs, vb) : _mm512_add_ps(_mm512_mul_ps(xf, vs), vb), t, f;
        __m512i r;
        x = _mm512_max_ps(_mm512_min_ps(x, vhi), vlo);
        t = _mm512_roundscale_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        f = _mm512_sub_ps(x, t);
        r = _mm512_cvttps_epi32(t);
        r = _mm512_mask_add_epi32(r, _mm512_cmp_ps_mask(f, half, _CMP_GE_OQ), r, one);
        r = _mm512_mask_sub_epi32(r, _mm512_cmp_ps_mask(f, mhalf, _CMP_LE_OQ), r, one);
        r = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(r, vz), qlo), qhi);
        _mm_storeu_si128((__m128i *)(void *)(d + i), _mm512_cvtepi32_epi8(r));
    }
    return i;
}
#endif

/* CONCATENATION that only moves values (no activation, no rescale): part k as rt_opt_copy (BirdNET's two
 * [1,96,511,1] spectrograms interleaved into [1,96,511,2]: one strided loop per part, not a memmove and an
 * odometer step per 4-byte element, 0.33 ms). */
void rt_opt_concatenation(const struct rt_concat_params *p, int32_t k, const void *in, void *out) {
    rt_opt_copy(&p->parts[k], in, out);
}

void rt_opt_concatenation_i8(const struct rt_concat_params *p, int32_t k, const int8_t *in, int8_t *out) {
    const rt_copy_params *c = &p->parts[k];
    const float scale = p->scale[k], bias = p->bias[k];
    const float lo = (float)(p->qmin - p->out_zp - 1), hi = (float)(p->qmax - p->out_zp + 1);
    const int32_t same = p->same[k], zp = p->out_zp, qmin = p->qmin, qmax = p->qmax;
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = c->in_offset, so = c->out_offset, n, j, total = rt_copy_points(c), run = c->run; /* a local: the
                                                                           int8 stores could alias c->run */
#if defined(RT_OPT_AVX512)
    const int fused = !same && fused_madd();
#endif
    for (n = 0; n < total; n++) {
        const int8_t *s = in + si;
        int8_t *d = out + so;
        if (same)
            for (j = 0; j < run; j++) d[j] = (int8_t)(s[j] < qmin ? qmin : (s[j] > qmax ? qmax : s[j]));
        else {
            j = 0;
#if defined(RT_OPT_AVX512)
            j = rescale16(s, d, run, fused, scale, bias, lo, hi, zp, qmin, qmax);
#endif
            for (; j < run; j++) d[j] = rescale_i8((float)s[j] * scale + bias, lo, hi, zp, qmin, qmax);
        }
        rt_copy_next(c, idx, &si, &so);
    }
}
