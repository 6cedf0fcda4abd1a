/* rt_batch_matmul.h - BATCH_MATMUL kernels. */
#ifndef MPCC_RT_BATCH_MATMUL_H
#define MPCC_RT_BATCH_MATMUL_H

/* out[batch][i][j] = sum_k lhs(batch, i, k) * rhs(batch, k, j), where
 * lhs(batch, i, k) = lhs[lhs_offset(batch) + i * lhs_si + k * lhs_sk] (the
 * strides encode adj_x), likewise rhs with rhs_sk / rhs_sj (adj_y). The
 * output's batch dims are numpy-broadcast; a broadcast input has stride 0. */
typedef struct rt_bmm_params {
    int32_t batch_rank;
    int32_t batch_dims[RT_MAX_RANK];            /* output batch dims */
    int32_t lhs_bstride[RT_MAX_RANK];           /* element stride per batch dim, 0 if broadcast */
    int32_t rhs_bstride[RT_MAX_RANK];
    int32_t m, n, k;
    int32_t lhs_si, lhs_sk, rhs_sk, rhs_sj;
    int32_t lhs_offset, rhs_offset, out_offset; /* -lhs_zp, -rhs_zp, +out_zp (int8) */
    int32_t mult, shift;                        /* int8 requantization */
} rt_bmm_params;

/* Element offsets of batch number `batch` in lhs and rhs. */
static inline void rt_bmm_batch_offsets(const rt_bmm_params *p, int64_t batch, int64_t *lo, int64_t *ro) {
    int32_t d;
    *lo = 0;
    *ro = 0;
    for (d = p->batch_rank - 1; d >= 0; d--) {
        int64_t idx = batch % p->batch_dims[d];
        batch /= p->batch_dims[d];
        *lo += idx * p->lhs_bstride[d];
        *ro += idx * p->rhs_bstride[d];
    }
}

static inline int64_t rt_bmm_batch_count(const rt_bmm_params *p) {
    int64_t n = 1;
    int32_t d;
    for (d = 0; d < p->batch_rank; d++) n *= p->batch_dims[d];
    return n;
}

void rt_batch_matmul_f32(const rt_bmm_params *p, const float *lhs, const float *rhs, float *out);
void rt_batch_matmul_i8(const rt_bmm_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out);

#endif
