/* rt_opt_bmm.c - BATCH_MATMUL: both operands are activations, so the RHS of each batch is packed into
 * panels at run time (scratch) and the f32 GEMM's micro-kernels run (rt_opt_gemm_f32); the packing is
 * O(K*N) against O(M*N*K) of work. */
#include <math.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define NR RT_OPT_NR

size_t rt_opt_bmm_scratch_bytes(const rt_bmm_params *p, int is_s8) {
    size_t np = (size_t)(p->n + NR - 1) / NR * NR, k = (size_t)p->k, m = (size_t)p->m;
    if (!is_s8) return (np * k + m * k + np) * sizeof(float);
    k = (size_t)RT_OPT_K4(p->k);
    return np * k + m * k + (3 * np + m) * sizeof(int32_t) + 4;
}

rt_opt_gemm_params rt_opt_bmm_gemm(const rt_bmm_params *p) {
    rt_opt_gemm_params g;
    memset(&g, 0, sizeof g);
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.ldc = p->n;
    return g;
}

void rt_opt_bmm_f32(const rt_bmm_params *p, const float *lhs, const float *rhs, float *out, void *scratch) {
    int64_t b, nb = rt_bmm_batch_count(p);
    int32_t np = (p->n + NR - 1) / NR * NR, i, j, kk;
    float *pb = (float *)scratch, *pa = pb + (int64_t)np * p->k, *bias = pa + (int64_t)p->m * p->k;
    rt_opt_gemm_params g = rt_opt_bmm_gemm(p);
    g.act_min = -INFINITY;
    g.act_max = INFINITY;
    for (j = 0; j < np; j++) bias[j] = 0.0f;
    for (b = 0; b < nb; b++) {
        int64_t lo, ro;
        const float *a;
        rt_bmm_batch_offsets(p, b, &lo, &ro);
        for (j = 0; j < np; j += NR)
            for (kk = 0; kk < p->k; kk++) {
                float *d = pb + ((int64_t)j * p->k) + (int64_t)kk * NR;
                const float *s = rhs + ro + (int64_t)kk * p->rhs_sk;
                for (i = 0; i < NR; i++) d[i] = j + i < p->n ? s[(int64_t)(j + i) * p->rhs_sj] : 0.0f;
            }
        if (p->lhs_sk == 1) {
            a = lhs + lo;
            g.lda = p->lhs_si;
        } else {
            for (i = 0; i < p->m; i++)
                for (kk = 0; kk < p->k; kk++)
                    pa[(int64_t)i * p->k + kk] = lhs[lo + (int64_t)i * p->lhs_si + (int64_t)kk * p->lhs_sk];
            a = pa;
            g.lda = p->k;
        }
        rt_opt_gemm_f32(&g, a, pb, bias, out + b * p->m * p->n);
    }
}

