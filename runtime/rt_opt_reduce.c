/* rt_opt_reduce.c - REDUCE_MAX / REDUCE_MIN f32 over adjacent axes (outer x reduced x inner,
 * rt_opt_reduce_blocks), vectorizable; other axes run the reference.
 *
 * The reference keeps the running value and replaces it when `x > v` (MIN: `x < v`), starting from
 * -FLT_MAX (FLT_MAX), as TFLite's reducer does: a NaN never wins, and the result is the largest
 * (smallest) non-NaN value or the start value. With a kept inner axis the rows are combined element
 * by element in the reference's order (the same values, bit for bit). A reduction to one value per
 * row runs on RT_LANES running values, each over every RT_LANES-th element, combined at the end with
 * the same comparison: the same value, since every lane's value is the extreme of its share and never
 * NaN; only where +0 and -0 tie for the extreme may the other zero come out. */
#include <float.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define RT_LANES 16

#define GT(x, v) ((x) > (v))
#define LT(x, v) ((x) < (v))

#define REDUCE_ROWS(NAME, REF, BETTER, INIT)                                                     \
    void NAME(const rt_reduce_params *p, const float *in, float *out) {                          \
        int64_t outer, red, inner, o, r, i;                                                      \
        if (!rt_opt_reduce_blocks(p, &outer, &red, &inner)) {                                    \
            REF(p, in, out);                                                                     \
            return;                                                                              \
        }                                                                                        \
        for (o = 0; o < outer; o++) {                                                            \
            const float *src = in + o * red * inner;                                             \
            float *dst = out + o * inner;                                                        \
            if (inner == 1) {                                                                    \
                float v[RT_LANES], best = INIT;                                                  \
                int32_t k;                                                                       \
                for (k = 0; k < RT_LANES; k++) v[k] = INIT;                                      \
                for (r = 0; r + RT_LANES <= red; r += RT_LANES)                                  \
                    for (k = 0; k < RT_LANES; k++) v[k] = BETTER(src[r + k], v[k]) ? src[r + k] : v[k]; \
                for (; r < red; r++) v[0] = BETTER(src[r], v[0]) ? src[r] : v[0];                \
                for (k = 0; k < RT_LANES; k++) best = BETTER(v[k], best) ? v[k] : best;          \
                dst[0] = best;                                                                   \
            } else {                                                                             \
                for (i = 0; i < inner; i++) dst[i] = INIT;                                       \
                for (r = 0; r < red; r++)                                                        \
                    for (i = 0; i < inner; i++)                                                  \
                        dst[i] = BETTER(src[r * inner + i], dst[i]) ? src[r * inner + i] : dst[i]; \
            }                                                                                    \
        }                                                                                        \
    }

REDUCE_ROWS(rt_opt_reduce_max_f32, rt_reduce_max_f32, GT, -FLT_MAX)
REDUCE_ROWS(rt_opt_reduce_min_f32, rt_reduce_min_f32, LT, FLT_MAX)
