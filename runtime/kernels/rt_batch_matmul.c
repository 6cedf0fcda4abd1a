/* rt_batch_matmul.c - BATCH_MATMUL reference kernels (TFLite
 * reference_ops::BatchMatMul semantics). */
#include "mpcc_rt.h"

void rt_batch_matmul_f32(const rt_bmm_params *p, const float *lhs, const float *rhs, float *out) {
    int64_t b, nb = rt_bmm_batch_count(p);
    int32_t i, j, k;
    for (b = 0; b < nb; b++) {
        int64_t lo, ro;
        rt_bmm_batch_offsets(p, b, &lo, &ro);
        for (i = 0; i < p->m; i++)
            for (j = 0; j < p->n; j++) {
                float acc = 0.0f;
                for (k = 0; k < p->k; k++)
                    acc += lhs[lo + (int64_t)i * p->lhs_si + (int64_t)k * p->lhs_sk] *
                           rhs[ro + (int64_t)k * p->rhs_sk + (int64_t)j * p->rhs_sj];
                out[(b * p->m + i) * p->n + j] = acc;
            }
    }
}

void rt_batch_matmul_i8(const rt_bmm_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out) {
    int64_t b, nb = rt_bmm_batch_count(p);
    int32_t i, j, k;
    for (b = 0; b < nb; b++) {
        int64_t lo, ro;
        rt_bmm_batch_offsets(p, b, &lo, &ro);
        for (i = 0; i < p->m; i++)
            for (j = 0; j < p->n; j++) {
                int32_t acc = 0;
                for (k = 0; k < p->k; k++)
                    acc = rt_wrap_add_i32(acc, ((int32_t)lhs[lo + (int64_t)i * p->lhs_si + (int64_t)k * p->lhs_sk] + p->lhs_offset) *
                                                   ((int32_t)rhs[ro + (int64_t)k * p->rhs_sk + (int64_t)j * p->rhs_sj] + p->rhs_offset));
                acc = rt_mul_by_quantized_multiplier(acc, p->mult, p->shift) + p->out_offset;
                out[(b * p->m + i) * p->n + j] = (int8_t)rt_clamp_i32(acc, -128, 127);
            }
    }
}
