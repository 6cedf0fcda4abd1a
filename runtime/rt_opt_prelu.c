/* rt_opt_prelu.c - PRELU (x >= 0 ? x : alpha * x) with alpha's broadcast
 * walked by an odometer over the outer dims instead of an index division per
 * element (rt_prelu.c): the innermost dim runs as a plain loop the compiler
 * vectorizes, alpha read contiguously (stride 1: per channel) or as one
 * value (stride 0). Same params and results as rt_prelu_f32 / rt_prelu_i8
 * (int8: the same two requantizations, bit-exact). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

/* The rows (all dims but the last) of p's shape, in order: their count, length and alpha's stride
 * along them (1 or 0). */
static int64_t rows_of(const struct rt_prelu_params *p, int64_t *row, int32_t *stride) {
    int32_t r = p->shape.rank, k;
    int64_t rows = 1;
    for (k = 0; k + 1 < r; k++) rows *= p->shape.dims[k];
    *row = r > 0 ? p->shape.dims[r - 1] : 1;
    *stride = r > 0 ? p->alpha_stride[r - 1] : 0;
    return rows;
}

/* Steps the odometer over the outer dims; *alpha_at follows alpha's offset. */
static void next_row(const struct rt_prelu_params *p, int32_t *idx, int64_t *alpha_at) {
    int32_t k;
    for (k = p->shape.rank - 2; k >= 0; k--) {
        *alpha_at += p->alpha_stride[k];
        if (++idx[k] < p->shape.dims[k]) return;
        *alpha_at -= (int64_t)p->alpha_stride[k] * p->shape.dims[k];
        idx[k] = 0;
    }
}

#ifdef RT_OPT_VEC
typedef float prelu_v8f __attribute__((vector_size(32)));
typedef int32_t prelu_v8i __attribute__((vector_size(32)));
#endif

/* o = x >= 0 ? x : x * a over n elements (rt_opt_internal.h). The vector path selects with the
 * comparison's mask, so a NaN takes x * a as in the scalar form. */
void rt_opt_prelu_row_f32(const float *x, const float *a, int a_step, float *o, int64_t n) {
    int64_t j = 0;
#ifdef RT_OPT_VEC
    prelu_v8f va = {a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0]};
    const prelu_v8f zero = {0};
    for (; j + 8 <= n; j += 8) {
        prelu_v8f v, neg;
        prelu_v8i m;
        memcpy(&v, x + j, sizeof v);
        if (a_step) memcpy(&va, a + j, sizeof va);
        neg = v * va;
        m = v >= zero;
        v = (prelu_v8f)(((prelu_v8i)v & m) | ((prelu_v8i)neg & ~m));
        memcpy(o + j, &v, sizeof v);
    }
#endif
    for (; j < n; j++) {
        const float v = x[j], s = a[a_step ? j : 0];
        o[j] = v >= 0.0f ? v : v * s;
    }
}

void rt_opt_prelu_rows_f32(float *o, const float *a, int64_t rows, int32_t c) {
    int64_t r;
#ifdef RT_OPT_VEC
    if (c % 8 == 0 && c <= 64) { /* the slopes in registers for all rows */
        prelu_v8f va[8];
        const prelu_v8f zero = {0};
        int32_t q, nq = c / 8;
        for (q = 0; q < nq; q++) memcpy(&va[q], a + 8 * q, sizeof va[q]);
        for (r = 0; r < rows; r++, o += c)
            for (q = 0; q < nq; q++) {
                prelu_v8f v, neg;
                prelu_v8i m;
                memcpy(&v, o + 8 * q, sizeof v);
                neg = v * va[q];
                m = v >= zero;
                v = (prelu_v8f)(((prelu_v8i)v & m) | ((prelu_v8i)neg & ~m));
                memcpy(o + 8 * q, &v, sizeof v);
            }
        return;
    }
#endif
    for (r = 0; r < rows; r++, o += c) rt_opt_prelu_row_f32(o, a, 1, o, c);
}

void rt_opt_prelu_f32(const struct rt_prelu_params *p, const float *in, const float *alpha, float *out) {
    int32_t idx[RT_MAX_RANK] = {0}, stride;
    int64_t row, rows = rows_of(p, &row, &stride), r, at = 0, ai = 0;
    for (r = 0; r < rows; r++, at += row) {
        rt_opt_prelu_row_f32(in + at, alpha + ai, stride != 0, out + at, row);
        next_row(p, idx, &ai);
    }
}

/* TFLite's int8 PRELU value (rt_prelu.c's prelu_q) with the vectorizable requantization. */
static inline int8_t prelu_s8(const struct rt_prelu_params *p, int32_t in, int32_t alpha) {
    int32_t x = p->in_offset + in, v;
    v = x >= 0 ? rq_double(x, p->mult_1, p->shift_1) : rq_double(x * (p->alpha_offset + alpha), p->mult_2, p->shift_2);
    v += p->out_offset;
    return (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
}

void rt_opt_prelu_i8(const struct rt_prelu_params *p, const int8_t *in, const int8_t *alpha, int8_t *out) {
    int32_t idx[RT_MAX_RANK] = {0}, stride;
    int64_t row, rows = rows_of(p, &row, &stride), r, j, at = 0, ai = 0;
    for (r = 0; r < rows; r++, at += row) {
        const int8_t *x = in + at, *a = alpha + ai;
        int8_t *o = out + at;
        if (stride) {
            for (j = 0; j < row; j++) o[j] = prelu_s8(p, x[j], a[j]);
        } else {
            const int32_t s = a[0];
            for (j = 0; j < row; j++) o[j] = prelu_s8(p, x[j], s);
        }
        next_row(p, idx, &ai);
    }
}

void rt_opt_prelu_lut_i8(int64_t rows, int32_t c, const int8_t *lut, const int8_t *in, int8_t *out) {
    int64_t r;
    int32_t j;
    if (c == 1) {
        int64_t i, n = rows;
        for (i = 0; i < n; i++) out[i] = lut[(uint8_t)in[i]];
        return;
    }
    for (r = 0; r < rows; r++, in += c, out += c)
        for (j = 0; j < c; j++) out[j] = lut[(int64_t)j * 256 + (uint8_t)in[j]];
}

/* The reference's expression (rt_hard_swish.c) element by element: the clamp selects computed values only, so
 * the loop vectorizes; the product and the division round as there. */
void rt_opt_hard_swish_rows_f32(float *o, int64_t n) {
    int64_t i;
#if defined(RT_OPT_AVX512)
    rt_opt_hard_swish_rows_f32_512(o, n); /* the same bits without a division (rt_opt_hswish_f32_avx512.c) */
    return;
#endif
    for (i = 0; i < n; i++) {
        const float x = o[i];
        float r = x + 3.0f;
        r = r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r);
        o[i] = x * r / 6.0f;
    }
}

/* rt_opt_hard_swish_rows_f32 on channels c0..c1 of n pixels of c channels (all of them: one run). */
void rt_opt_hard_swish_px_f32(float *o, int64_t n, int32_t c, int32_t c0, int32_t c1) {
    int64_t i;
    if (c0 == 0 && c1 == c) {
        rt_opt_hard_swish_rows_f32(o, n * c);
        return;
    }
    for (i = 0; i < n; i++) rt_opt_hard_swish_rows_f32(o + i * c + c0, c1 - c0);
}
