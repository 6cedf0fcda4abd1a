/* test_attention_kernels.c - the fused attention's row and tile kernels (runtime/rt_opt_attention.c,
 * rt_opt_act.c) against references on random shapes and data: the int8 table lookup and the softmax
 * exponential rows, and the attention on int8 Q, K, V against the same kernel on their dequantized
 * floats. Built by `make unit` (generic, ASan+UBSan) and by tests/test_opt_kernels.py at -march=native.
 * The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#include "unit_check.h"

/* rt_opt_lut_i8 against the reference kernels' table walk (rt_act_lut_i8): every table entry reached, tails
 * of 1..63 lanes, in place too; and the attention's bf16 exponentials against the f32 row rounded. */
static void test_lut_exp(void) {
    char msg[96];
    int8_t lut[256], in[300], want[300], got[300];
    float x[300], y[300];
    uint16_t y16[300];
    for (int t = 0; t < 24; t++) {
        const int n = t < 4 ? 256 + t : rnd_in(0, 300);
        for (int i = 0; i < 256; i++) lut[i] = (int8_t)rnd_in(-128, 127);
        for (int i = 0; i < n; i++) in[i] = (int8_t)(t < 4 ? i - 128 : rnd_in(-128, 127));
        rt_act_lut_i8(lut, n, in, want);
        rt_opt_lut_i8(lut, n, in, got);
        snprintf(msg, sizeof msg, "n %d", n);
        check(memcmp(want, got, (size_t)n) == 0, "int8 table lookup vs the reference", msg);
        memcpy(got, in, (size_t)n);
        rt_opt_lut_i8(lut, n, got, got);
        check(memcmp(want, got, (size_t)n) == 0, "int8 table lookup in place", msg);
        const float beta = 0.125f * (float)rnd_in(1, 16), sub = rnd_f();
        for (int i = 0; i < n; i++) x[i] = 40.0f * rnd_f();
        if (n > 2) x[n / 2] = -1e30f; /* a masked score: exp clamps */
        /* the bf16 row's exponentials (a cheaper polynomial with AVX-512) within one bf16 step of the f32 row's
         * (below e^-87 the f32 row stops at e^-87, the bf16 one goes on to 0: 2e-38 apart at most), and their
         * sum within the polynomial's 2.7e-6, the arguments' rounding (2^-22 of the largest |beta (x - sub)|,
         * an exponent near 88 moving the result by 2e-5) and the additions' (n 2^-24), plus n times 2e-38; a
         * flat 1e-5 failed honest sums for 5 seeds in 400 */
        const float s32 = rt_opt_exp_row_f32(n, beta, sub, x, y), s16 = rt_opt_exp_row_bf16(n, beta, sub, x, y16);
        double amax = 0;
        for (int i = 0; i < n; i++)
            if (x[i] > -1e29f && fabs((double)beta * (x[i] - sub)) > amax) amax = fabs((double)beta * (x[i] - sub));
        const double stol = 2.7e-6 + amax * ldexp(1.0, -22) + n * ldexp(1.0, -24);
        int same = s32 == s16 || fabs((double)s32 - s16) <= stol * fabs((double)s32) + 2e-38 * n ||
                   (s32 != s32 && s16 != s16);
        for (int i = 0; i < n; i++)
            same &= y16[i] == rt_f32_to_bf16(y[i]) || fabsf(rt_bf16_to_f32(y16[i]) - y[i]) <= 0.0079f * fabsf(y[i]) + 2e-38f;
        check(same, "exp row as bf16 vs the f32 row (and the sum)", msg);
    }
}

/* The int8 P.V (pv_u8) in doubles: exact scores (the dequantized products), masked, q_j = round(255 exp(beta
 * (s_j - max))), out = sv sum_j q_j (v_j - zv) / sum_j q_j; tol[h * lq + i] = how far the kernel may be off in
 * that row, against V's largest value: 4 steps of q (an exponential within 2.7e-6 rounding the other way)
 * plus sqrt(lk) steps, since a key tile whose maximum was not the row's rounds its q against that maximum
 * and is rescaled, each q then off by up to a step in either direction (4 steps alone failed 1 element in
 * ~1000 for some seeds, at up to 1.18 times the 4 steps). */
#if defined(RT_OPT_S8_PV)
static void attention_u8_model(const rt_opt_attn_params *p, int heads, int qt, int mk, const int8_t *q8,
                               const int8_t *k8, const int8_t *v8, const uint8_t *m, double *want, double *tol) {
    const int lq = p->qk.m, lk = p->qk.n, d = p->qk.k, dv = p->pv.n;
    double *sc = malloc(sizeof(double) * (size_t)lk), *qq = malloc(sizeof(double) * (size_t)lk);
    for (int h = 0; h < heads; h++)
        for (int i = 0; i < lq; i++) {
            double mx = -1e300, sum = 0.0;
            for (int j = 0; j < lk; j++) {
                int64_t acc = 0;
                for (int c = 0; c < d; c++) {
                    const int64_t qi = (int64_t)h * lq * d + (qt ? (int64_t)c * lq + i : (int64_t)i * d + c);
                    acc += (int64_t)(q8[qi] - p->qzero[0]) * (k8[((int64_t)h * lk + j) * d + c] - p->qzero[1]);
                }
                const uint8_t mv = m[(mk == 1 ? (int64_t)i * lk : 0) + j];
                const int keep = mk == 0 || (mk == 1 ? mv != 0 : mv == 0);
                sc[j] = keep ? (double)acc * p->qscale[0] * p->qscale[1] * p->scale : (double)p->fill;
                mx = sc[j] > mx ? sc[j] : mx;
            }
            for (int j = 0; j < lk; j++) qq[j] = nearbyint(255.0 * exp(p->beta * (sc[j] - mx))), sum += qq[j];
            for (int c = 0; c < dv; c++) {
                double o = 0.0;
                for (int j = 0; j < lk; j++) o += qq[j] * (v8[((int64_t)h * lk + j) * dv + c] - p->qzero[2]);
                want[((int64_t)h * lq + i) * dv + c] = p->qscale[2] * o / sum;
            }
            tol[(int64_t)h * lq + i] = (4.0 + sqrt((double)lk)) * 256.0 * p->qscale[2] / sum;
        }
    free(sc), free(qq);
}
#endif

/* The fused attention on int8 Q, K, V (their DEQUANTIZE folded in: scores from exact int32 sums of the
 * bytes, V dequantized as it is packed) against the same kernel on the dequantized floats: random heads,
 * lengths, D (not a multiple of 4, and over 64, included), Q stored by rows or transposed (the copy
 * path), zero points, tiles and masks (none, KEEP [Lq, Lk], FILL broadcast over queries). f32 products
 * within 1e-4 of the largest output; with bf16 P.V (AVX512-BF16 builds) within 2e-2; with 8-bit
 * probabilities (pv_u8, VNNI builds) within 5e-2, and against attention_u8_model within its row's bound (a
 * build without the int8 P.V computes f32 P.V: there the 5e-2 alone). */
static void test_attention_s8(void) {
    char msg[200];
    for (int t = 0; t < 24; t++) {
        rt_opt_attn_params p;
        memset(&p, 0, sizeof p);
        const int heads = rnd_in(1, 3), lq = rnd_in(1, 50), lk = rnd_in(1, 150), d = t < 3 ? 64 : rnd_in(1, 80);
        const int dv = rnd_in(1, 40), qt = rnd_in(0, 3) == 0, mk = t % 3;
        p.qk.batch_rank = p.pv.batch_rank = 1;
        p.qk.batch_dims[0] = p.pv.batch_dims[0] = heads;
        p.qk.m = lq, p.qk.n = lk, p.qk.k = d;
        p.qk.lhs_si = qt ? 1 : d, p.qk.lhs_sk = qt ? lq : 1, p.qk.lhs_bstride[0] = lq * d;
        p.qk.rhs_sk = 1, p.qk.rhs_sj = d, p.qk.rhs_bstride[0] = lk * d;
        p.pv.m = lq, p.pv.n = dv, p.pv.k = lk;
        p.pv.lhs_si = lk, p.pv.lhs_sk = 1, p.pv.lhs_bstride[0] = lq * lk;
        p.pv.rhs_sk = dv, p.pv.rhs_sj = 1, p.pv.rhs_bstride[0] = lk * dv;
        p.scale = 0.125f, p.beta = 1.0f, p.fill = t & 1 ? -3.0e38f : -1.0e9f;
        p.mask = mk == 0 ? RT_OPT_MASK_NONE : mk == 1 ? RT_OPT_MASK_KEEP : RT_OPT_MASK_FILL;
        p.n_mask = mk ? 1 : 0;
        p.mask_sq[0] = mk == 1 ? lk : 0, p.mask_sk[0] = 1;
        p.q_block = rnd_in(1, 40), p.kv_block = 16 * rnd_in(1, 8), p.slots = 1;
        const int64_t nq = (int64_t)heads * lq * d, nk = (int64_t)heads * lk * d, nv = (int64_t)heads * lk * dv;
        const int64_t no = (int64_t)heads * lq * dv;
        int8_t *q8 = malloc((size_t)nq), *k8 = malloc((size_t)nk), *v8 = malloc((size_t)nv);
        float *qf = malloc(sizeof(float) * (size_t)nq), *kf = malloc(sizeof(float) * (size_t)nk);
        float *vf = malloc(sizeof(float) * (size_t)nv), *want = malloc(sizeof(float) * (size_t)no);
        float *got = malloc(sizeof(float) * (size_t)no);
        uint8_t *m = malloc((size_t)lq * (size_t)lk);
        for (int k = 0; k < 3; k++) p.qscale[k] = 0.004f + 0.03f * (float)rnd_in(0, 1000) / 1000.0f, p.qzero[k] = rnd_in(-20, 20);
        for (int64_t i = 0; i < nq; i++) q8[i] = (int8_t)rnd_in(-128, 127), qf[i] = p.qscale[0] * (float)((int32_t)q8[i] - p.qzero[0]);
        for (int64_t i = 0; i < nk; i++) k8[i] = (int8_t)rnd_in(-128, 127), kf[i] = p.qscale[1] * (float)((int32_t)k8[i] - p.qzero[1]);
        for (int64_t i = 0; i < nv; i++) v8[i] = (int8_t)rnd_in(-128, 127), vf[i] = p.qscale[2] * (float)((int32_t)v8[i] - p.qzero[2]);
        for (int64_t i = 0; i < (int64_t)lq * lk; i++) m[i] = (uint8_t)(rnd_in(0, 3) != 0);
        rt_opt_attn_params pf = p;
        for (int bf = 0; bf < 3; bf++) { /* f32 P.V, bf16 products, 8-bit probabilities (bf 2) */
            void *s1 = malloc(rt_opt_attention_scratch_bytes(&pf)), *s2;
            rt_opt_attention_f32(&pf, qf, kf, vf, m, NULL, want, s1, NULL);
            p.tq = p.tk = p.tv = RT_I8;
            p.bf16 = bf == 1;
            p.pv_u8 = bf == 2;
            s2 = malloc(rt_opt_attention_scratch_bytes(&p));
            rt_opt_attention_f32(&p, q8, k8, v8, m, NULL, got, s2, NULL);
            double rel = max_rel_f32(got, want, no);
            snprintf(msg, sizeof msg, "heads %d lq %d lk %d d %d dv %d qt %d mask %d tiles %dx%d bf16 %d u8 %d: max rel err %.2e",
                     heads, lq, lk, d, dv, qt, mk, p.q_block, p.kv_block, p.bf16, p.pv_u8, rel);
            check(rel <= (bf == 1 ? 2e-2 : bf == 2 ? 5e-2 : 1e-4), "attention on int8 Q, K, V vs on their dequantized floats",
                  msg);
#if defined(RT_OPT_S8_PV)
            if (bf == 2) { /* the 8-bit probabilities' own arithmetic (built here) */
                double *w8 = malloc(sizeof(double) * (size_t)no), *tol = malloc(sizeof(double) * (size_t)heads * lq);
                int bad = 0;
                attention_u8_model(&p, heads, qt, mk, q8, k8, v8, m, w8, tol);
                for (int64_t e = 0; e < no; e++) bad += fabs((double)got[e] - w8[e]) > tol[e / dv] + 1e-6 * fabs(w8[e]);
                snprintf(msg, sizeof msg, "heads %d lq %d lk %d d %d dv %d qt %d mask %d tiles %dx%d: %d of %lld off",
                         heads, lq, lk, d, dv, qt, mk, p.q_block, p.kv_block, bad, (long long)no);
                check(bad == 0, "attention with 8-bit probabilities vs the same in doubles", msg);
                free(w8), free(tol);
            }
#endif
            free(s1), free(s2);
        }
        free(q8), free(k8), free(v8), free(qf), free(kf), free(vf), free(want), free(got), free(m);
    }
}

/* The attention's operand packing and output strides on f32 Q, K, V (bf16 products and f32): Q, K and V
 * stored as rows (AVX512-BF16 builds pack those 16 lanes at a time) against the same values stored
 * transposed (packed element by element): the same bf16 or f32 operands, so outputs identical; random
 * heads, lengths, D and Dv (odd, over 32 included), tiles and masks. Then the output written through
 * out_bstride / out_sq as [Lq][heads][Dv] (a folded TRANSPOSE) against the dense output moved there, in
 * f32 and in bf16 (tout). */
static void test_attention_layouts(void) {
    char msg[200];
    for (int t = 0; t < 24; t++) {
        rt_opt_attn_params p, pt;
        memset(&p, 0, sizeof p);
        const int heads = rnd_in(1, 3), lq = rnd_in(1, 40), lk = rnd_in(1, 90), d = rnd_in(1, 72), dv = rnd_in(1, 70);
        const int mk = t % 2;
        p.qk.batch_rank = p.pv.batch_rank = 1;
        p.qk.batch_dims[0] = p.pv.batch_dims[0] = heads;
        p.qk.m = lq, p.qk.n = lk, p.qk.k = d;
        p.qk.lhs_si = d, p.qk.lhs_sk = 1, p.qk.lhs_bstride[0] = lq * d;
        p.qk.rhs_sk = 1, p.qk.rhs_sj = d, p.qk.rhs_bstride[0] = lk * d;
        p.pv.m = lq, p.pv.n = dv, p.pv.k = lk;
        p.pv.lhs_si = lk, p.pv.lhs_sk = 1, p.pv.lhs_bstride[0] = lq * lk;
        p.pv.rhs_sk = dv, p.pv.rhs_sj = 1, p.pv.rhs_bstride[0] = lk * dv;
        p.scale = 0.2f, p.beta = 1.0f, p.fill = -1.0e9f;
        p.mask = mk ? RT_OPT_MASK_KEEP : RT_OPT_MASK_NONE;
        p.n_mask = mk;
        p.mask_sq[0] = lk, p.mask_sk[0] = 1;
        p.q_block = rnd_in(1, 40), p.kv_block = 16 * rnd_in(1, 4), p.slots = 1;
        p.bf16 = t % 3 != 2;
        /* the transposed copies: Q^T and K^T [D][L] per head, V^T [Dv][Lk] per head */
        pt = p;
        pt.qk.lhs_si = 1, pt.qk.lhs_sk = lq;
        pt.qk.rhs_sk = lk, pt.qk.rhs_sj = 1;
        pt.pv.rhs_sk = 1, pt.pv.rhs_sj = lk;
        const int64_t nq = (int64_t)heads * lq * d, nk = (int64_t)heads * lk * d, nv = (int64_t)heads * lk * dv;
        const int64_t no = (int64_t)heads * lq * dv;
        float *q = malloc(sizeof(float) * (size_t)nq), *k = malloc(sizeof(float) * (size_t)nk);
        float *v = malloc(sizeof(float) * (size_t)nv), *qt = malloc(sizeof(float) * (size_t)nq);
        float *kt = malloc(sizeof(float) * (size_t)nk), *vt = malloc(sizeof(float) * (size_t)nv);
        float *want = malloc(sizeof(float) * (size_t)no), *got = malloc(sizeof(float) * (size_t)no);
        uint8_t *m = malloc((size_t)lq * (size_t)lk);
        for (int64_t i = 0; i < nq; i++) q[i] = rnd_f();
        for (int64_t i = 0; i < nk; i++) k[i] = rnd_f();
        for (int64_t i = 0; i < nv; i++) v[i] = rnd_f();
        for (int64_t i = 0; i < (int64_t)lq * lk; i++) m[i] = (uint8_t)(rnd_in(0, 3) != 0);
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < lq; i++)
                for (int c = 0; c < d; c++) qt[(int64_t)h * lq * d + (int64_t)c * lq + i] = q[(int64_t)h * lq * d + (int64_t)i * d + c];
            for (int j = 0; j < lk; j++) {
                for (int c = 0; c < d; c++) kt[(int64_t)h * lk * d + (int64_t)c * lk + j] = k[(int64_t)h * lk * d + (int64_t)j * d + c];
                for (int c = 0; c < dv; c++)
                    vt[(int64_t)h * lk * dv + (int64_t)c * lk + j] = v[(int64_t)h * lk * dv + (int64_t)j * dv + c];
            }
        }
        void *s1 = malloc(rt_opt_attention_scratch_bytes(&p)), *s2 = malloc(rt_opt_attention_scratch_bytes(&pt));
        rt_opt_attention_f32(&pt, qt, kt, vt, m, NULL, want, s2, NULL);
        rt_opt_attention_f32(&p, q, k, v, m, NULL, got, s1, NULL);
        snprintf(msg, sizeof msg, "heads %d lq %d lk %d d %d dv %d mask %d tiles %dx%d bf16 %d", heads, lq, lk, d, dv, mk,
                 p.q_block, p.kv_block, p.bf16);
        check(memcmp(got, want, sizeof(float) * (size_t)no) == 0, "attention on rows vs on transposed operands", msg);
        p.out_bstride[0] = dv, p.out_sq = heads * dv;
        rt_opt_attention_f32(&p, q, k, v, m, NULL, got, s1, NULL);
        int same = 1;
        for (int h = 0; h < heads; h++)
            for (int i = 0; i < lq; i++)
                same &= memcmp(got + ((int64_t)i * heads + h) * dv, want + ((int64_t)h * lq + i) * dv, sizeof(float) * (size_t)dv) == 0;
        check(same, "attention written through out_bstride / out_sq", msg);
        /* stored as bf16: each value the f32 output rounded (rt_f32_to_bf16) */
        uint16_t *g16 = malloc(sizeof(uint16_t) * (size_t)no);
        p.tout = RT_BF16;
        rt_opt_attention_f32(&p, q, k, v, m, NULL, g16, s1, NULL);
        same = 1;
        for (int h = 0; h < heads; h++)
            for (int i = 0; i < lq; i++)
                for (int c = 0; c < dv; c++)
                    same &= g16[((int64_t)i * heads + h) * dv + c] == rt_f32_to_bf16(want[((int64_t)h * lq + i) * dv + c]);
        check(same, "attention output stored as bf16", msg);
        /* Q, K and V stored as bf16 with the heads interleaved ([L][heads][D], a head's rows heads * D apart:
         * even D reads Q's rows in place through a row table) against the same rounded values as f32 in the
         * dense layout: identical outputs (the products round to bf16, or widen exactly, either way) */
        {
            rt_opt_attn_params pd = p, pi = p;
            uint16_t *q16 = malloc(sizeof(uint16_t) * (size_t)nq), *k16 = malloc(sizeof(uint16_t) * (size_t)nk);
            uint16_t *v16 = malloc(sizeof(uint16_t) * (size_t)nv);
            pd.tout = RT_F32, pd.out_sq = 0, pd.out_bstride[0] = 0;
            pi = pd;
            pi.tq = pi.tk = pi.tv = RT_BF16;
            pi.qk.lhs_si = heads * d, pi.qk.lhs_bstride[0] = d;
            pi.qk.rhs_sj = heads * d, pi.qk.rhs_bstride[0] = d;
            pi.pv.rhs_sk = heads * dv, pi.pv.rhs_bstride[0] = dv;
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < lq; i++)
                    for (int c = 0; c < d; c++) {
                        const int64_t at = (int64_t)h * lq * d + (int64_t)i * d + c;
                        q16[((int64_t)i * heads + h) * d + c] = rt_f32_to_bf16(q[at]);
                        q[at] = rt_bf16_to_f32(rt_f32_to_bf16(q[at]));
                    }
                for (int j = 0; j < lk; j++) {
                    for (int c = 0; c < d; c++) {
                        const int64_t at = (int64_t)h * lk * d + (int64_t)j * d + c;
                        k16[((int64_t)j * heads + h) * d + c] = rt_f32_to_bf16(k[at]);
                        k[at] = rt_bf16_to_f32(rt_f32_to_bf16(k[at]));
                    }
                    for (int c = 0; c < dv; c++) {
                        const int64_t at = (int64_t)h * lk * dv + (int64_t)j * dv + c;
                        v16[((int64_t)j * heads + h) * dv + c] = rt_f32_to_bf16(v[at]);
                        v[at] = rt_bf16_to_f32(rt_f32_to_bf16(v[at]));
                    }
                }
            }
            void *s3 = malloc(rt_opt_attention_scratch_bytes(&pi));
            rt_opt_attention_f32(&pd, q, k, v, m, NULL, want, s1, NULL);
            rt_opt_attention_f32(&pi, q16, k16, v16, m, NULL, got, s3, NULL);
            check(memcmp(got, want, sizeof(float) * (size_t)no) == 0, "attention on bf16 Q, K, V with interleaved heads",
                  msg);
            free(s3), free(q16), free(k16), free(v16);
        }
        free(g16);
        free(s1), free(s2), free(q), free(k), free(v), free(qt), free(kt), free(vt), free(want), free(got), free(m);
    }
}

int main(void) {
    unit_seed(20261123ULL, rt_opt_isa());
    test_lut_exp();
    test_attention_s8();
    test_attention_layouts();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
