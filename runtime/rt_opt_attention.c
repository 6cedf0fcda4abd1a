/* rt_opt_attention.c - fused attention (pass fuse_attention):
 *   out = softmax(beta * mask(scale * Q.K^T)) . V
 * computed one block of query rows at a time with an online softmax over
 * blocks of keys (running max m and sum l per row, earlier partial results
 * rescaled by exp(beta (m_old - m_new)) when the max grows), so the score
 * matrix [Lq, Lk] never exists: scratch holds K and V of one batch packed
 * into micro-kernel panels (linear in the sequence length) and one
 * q_block x kv_block tile of scores. Both products run on the f32 GEMM
 * micro-kernel, on bf16 pairs (p->bf16), or, for int8 Q and K (their
 * DEQUANTIZE folded in), the scores on the int8 GEMM micro-kernel: exact
 * int32 sums of the stored bytes, corrected for the zero points and scaled. */
#include <string.h>

#include "rt_opt_attention_internal.h"

/* int8 Q and K: the scratch has room for their int8 scores (rt_opt_scores_s8 over pairs of 16-key panels,
 * tile rows round32(kv_block) wide) in every build, so the compiler's size holds for any; the scores take
 * that path where the VNNI kernels are built (s8_scores), else the f32 or bf16 products of the dequantized
 * values. */
static int s8_scores(const rt_opt_attn_params *p) {
#if defined(RT_OPT_S8_VNNI)
    return int8_qk(p);
#else
    (void)p;
    return 0;
#endif
}

/* The bf16 products (p->bf16): built in, and the blocks of keys whole panels of 16. */
static int bf16_products(const rt_opt_attn_params *p) {
    return p->bf16 && p->kv_block % NR == 0 && rt_opt_fc_bf16_rows(NULL, NULL, NULL, NULL, NULL, NULL);
}

/* The probabilities in 8 bits and P.V on the int8 kernel (p->pv_u8): room in the scratch wherever asked (so
 * the compiler's size holds for any build), taken where the VNNI kernels and rt_opt_exp_rows_s8 are built
 * (and the products are not on bf16). */
static int pv_u8_room(const rt_opt_attn_params *p) { return p->pv_u8 && int8_qk(p) && p->tv == RT_I8; }
static int pv_u8_on(const rt_opt_attn_params *p) {
#if defined(RT_OPT_S8_PV)
    return pv_u8_room(p) && !bf16_products(p);
#else
    (void)p;
    return 0;
#endif
}

/* Scratch in floats, in the order the kernel carves it (the bf16 products use less of the first three
 * and one more piece: a tile's probabilities as bf16 pairs). */
static void layout(const rt_opt_attn_params *p, int64_t *sizes) {
    int64_t lk = p->qk.n, d = p->qk.k, dv = p->pv.n, qb = p->q_block, kb = p->kv_block, s8 = int8_qk(p);
    int64_t k8 = s8 ? (round32(lk) * RT_OPT_K4(d) + 3) / 4 : 0; /* int8 K panels, in floats */
    sizes[0] = round16(lk) * d > k8 ? round16(lk) * d : k8; /* K panels */
    sizes[1] = lk * round16(dv);         /* V panels, per key block */
    sizes[2] = qb * (d > 1 ? d : 2);     /* Q rows (when Q is not row-contiguous; int8: 4-byte quads) */
    sizes[3] = qb * (s8 ? round32(kb) : kb); /* scores / probabilities of one tile */
    sizes[4] = qb * round16(dv);         /* P.V of one tile */
    sizes[5] = qb * round16(dv);         /* running output */
    sizes[6] = 3 * qb;                   /* running max, sum, rescale factor */
    sizes[7] = kb > round16(dv) ? kb : round16(dv); /* zero bias */
    /* bf16 pairs of one tile's probabilities, then the packing's lines (2 max(Lk, Dv) + 2 floats) or a Q row */
    sizes[8] = p->bf16 ? qb * ((kb + 1) / 2) + 2 * (lk > round16(dv) ? lk : round16(dv)) + 2 * (d + 2) : 0;
    sizes[9] = s8 ? round32(lk) + qb : 0; /* int8 scores: per key and per query row zero-point terms (int32) */
    /* pv_u8: a tile's probabilities (qb rows of K4(kv_block) bytes), then their rows' sums (int32) */
    sizes[10] = pv_u8_room(p) ? (qb * RT_OPT_K4(kb) + 3) / 4 + qb : 0;
}

size_t rt_opt_attention_scratch_bytes(const rt_opt_attn_params *p) {
    int64_t s[11], total = 0;
    int i;
    layout(p, s);
    for (i = 0; i < 11; i++) total += s[i];
    return (size_t)total * sizeof(float);
}

/* Element offset of the mask operand m for batch number b. */
static int64_t mask_offset(const rt_opt_attn_params *p, int m, int64_t b) {
    int64_t off = 0;
    int32_t d;
    for (d = p->pv.batch_rank - 1; d >= 0; d--) {
        off += (b % p->pv.batch_dims[d]) * p->mask_bstride[m][d];
        b /= p->pv.batch_dims[d];
    }
    return off;
}

/* Element offset of output row 0 of batch number b, and the distance between rows (p->out_sq: a folded
 * TRANSPOSE's strides; else dense). */
static int64_t out_offset(const rt_opt_attn_params *p, int64_t b, int64_t *row_step) {
    int64_t off = 0;
    int32_t d;
    *row_step = p->out_sq > 0 ? p->out_sq : p->pv.n;
    if (p->out_sq <= 0) return b * p->qk.m * p->pv.n;
    for (d = p->pv.batch_rank - 1; d >= 0; d--) {
        off += (b % p->pv.batch_dims[d]) * p->out_bstride[d];
        b /= p->pv.batch_dims[d];
    }
    return off;
}

/* row[c] = mask(scale * row[c]) for keys k0..k0+n of query row i. */
static void apply_mask(const rt_opt_attn_params *p, const void *const *mask, const int64_t *mo, int64_t i, int64_t k0,
                       int32_t n, float *row) {
    int32_t c;
    if (p->mask == RT_OPT_MASK_NONE) {
        for (c = 0; c < n; c++) row[c] *= p->scale;
    } else if (p->mask == RT_OPT_MASK_ADD) {
        const int64_t a = mo[0] + i * p->mask_sq[0] + k0 * p->mask_sk[0];
        if (p->tmask == RT_F32) {
            const float *af = (const float *)mask[0] + a;
            for (c = 0; c < n; c++) row[c] = row[c] * p->scale + af[(int64_t)c * p->mask_sk[0]];
        } else { /* a 16-bit mask: widened in pieces */
            float m[64];
            int32_t c0, w;
            for (c0 = 0; c0 < n; c0 += 64) {
                w = n - c0 < 64 ? n - c0 : 64;
                rt_attn_gather_q(mask[0], p->tmask, 1.0f, 0, a + (int64_t)c0 * p->mask_sk[0], p->mask_sk[0], w, w, m);
                for (c = 0; c < w; c++) row[c0 + c] = row[c0 + c] * p->scale + m[c];
            }
        }
    } else {
        const uint8_t *a = (const uint8_t *)mask[0] + mo[0] + i * p->mask_sq[0] + k0 * p->mask_sk[0];
        const uint8_t *b = p->n_mask > 1 ? (const uint8_t *)mask[1] + mo[1] + i * p->mask_sq[1] + k0 * p->mask_sk[1] : a;
        int32_t sa = p->mask_sk[0], sb = p->n_mask > 1 ? p->mask_sk[1] : sa;
        const float keep = p->mask == RT_OPT_MASK_KEEP ? 1.0f : 0.0f, scale = p->scale, fill = p->fill;
#if defined(RT_OPT_AVX2) && !defined(RT_OPT_AVX512)
        /* GCC leaves the loops below scalar on AVX2 (a branch per key, mispredicted on a mixed mask: 6 % of
         * BERT's time): 8 keys a vector, a lane's "off" (either byte zero) choosing between x and the fill */
        if (sa == 1 && sb <= 1) {
            const __m256 vs = _mm256_set1_ps(scale), vf = _mm256_set1_ps(fill), zf = _mm256_setzero_ps();
            const __m256i z = _mm256_setzero_si256();
            const __m256 boff = sb == 0 && b[0] == 0 ? _mm256_castsi256_ps(_mm256_cmpeq_epi32(z, z)) : zf;
            for (c = 0; c + 8 <= n; c += 8) {
                __m256 off = _mm256_or_ps(boff, _mm256_castsi256_ps(_mm256_cmpeq_epi32(
                                                    _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(a + c))), z)));
                const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(row + c), vs);
                if (sb == 1)
                    off = _mm256_or_ps(off, _mm256_castsi256_ps(_mm256_cmpeq_epi32(
                                                _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(b + c))), z)));
                /* KEEP: x where on, else the fill; FILL: the fill where on, else x */
                _mm256_storeu_ps(row + c, keep != 0.0f ? _mm256_blendv_ps(x, vf, off) : _mm256_blendv_ps(vf, x, off));
            }
            a += c, b += sb * c, row += c, n -= c;
        }
#elif defined(RT_A64)
        if (sa == 1 && sb <= 1) { /* as the AVX2 loop: 8 keys a step, a lane's "off" (either byte zero) all ones */
            const float32x4_t vs = vdupq_n_f32(scale), vf = vdupq_n_f32(fill);
            const uint8x8_t boff = vdup_n_u8(sb == 0 && b[0] == 0 ? 0xFF : 0);
            for (c = 0; c + 8 <= n; c += 8) {
                uint8x8_t off = vorr_u8(boff, vceq_u8(vld1_u8(a + c), vdup_n_u8(0)));
                int16x8_t w;
                uint32x4_t o0, o1;
                if (sb == 1) off = vorr_u8(off, vceq_u8(vld1_u8(b + c), vdup_n_u8(0)));
                w = vmovl_s8(vreinterpret_s8_u8(off));
                o0 = vreinterpretq_u32_s32(vmovl_s16(vget_low_s16(w)));
                o1 = vreinterpretq_u32_s32(vmovl_s16(vget_high_s16(w)));
                { /* KEEP: x where on, else the fill; FILL: the fill where on, else x */
                    const float32x4_t x0 = vmulq_f32(vld1q_f32(row + c), vs), x1 = vmulq_f32(vld1q_f32(row + c + 4), vs);
                    vst1q_f32(row + c, keep != 0.0f ? vbslq_f32(o0, vf, x0) : vbslq_f32(o0, x0, vf));
                    vst1q_f32(row + c + 4, keep != 0.0f ? vbslq_f32(o1, vf, x1) : vbslq_f32(o1, x1, vf));
                }
            }
            a += c, b += sb * c, row += c, n -= c;
        }
#endif
        if (sa == 1 && sb == 1) { /* the common layouts (the AVX2 loop above leaves only a tail) */
            for (c = 0; c < n; c++) {
                float on = (float)((a[c] != 0) & (b[c] != 0)), x = row[c] * scale;
                row[c] = on == keep ? x : fill;
            }
        } else if (sa == 1 && sb == 0) {
            int bon = b[0] != 0;
            for (c = 0; c < n; c++) {
                float on = (float)((a[c] != 0) & bon), x = row[c] * scale;
                row[c] = on == keep ? x : fill;
            }
        } else {
            for (c = 0; c < n; c++) {
                float on = (float)((a[(int64_t)c * sa] != 0) & (b[(int64_t)c * sb] != 0)), x = row[c] * scale;
                row[c] = on == keep ? x : fill;
            }
        }
    }
}

/* Query row i's scores over keys k0..k0+n from the int8 product's int32 sums (rt_opt_scores_s8 with the key
 * terms) and the row's term rt: mask(scale * (sqk * (irow[c] + rt))) into row, as apply_mask would make
 * them; returns their max (as rt_opt_max_f32). With AVX-512 and contiguous bool masks (or none) in one
 * pass: the sums converted, scaled, masked and their max taken 16 lanes at a time. */
static float s8_row(const rt_opt_attn_params *p, const void *const *mask, const int64_t *mo, int64_t i, int64_t k0,
                    int32_t n, const int32_t *irow, uint32_t rt, float sqk, float *row) {
    int32_t c;
#if defined(RT_OPT_AVX512)
    const int bools = p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL;
    if (p->mask == RT_OPT_MASK_NONE || (bools && p->mask_sk[0] == 1 && (p->n_mask < 2 || p->mask_sk[1] <= 1))) {
        const uint8_t *a = bools ? (const uint8_t *)mask[0] + mo[0] + i * p->mask_sq[0] + k0 : NULL;
        const uint8_t *b = bools && p->n_mask > 1 ? (const uint8_t *)mask[1] + mo[1] + i * p->mask_sq[1] + k0 * p->mask_sk[1]
                                                  : NULL;
        const __mmask16 all_b = (__mmask16)(b && p->mask_sk[1] == 0 && !b[0] ? 0 : 0xFFFF); /* a broadcast b */
        const __m512i vrt = _mm512_set1_epi32((int32_t)rt);
        const __m512 vq = _mm512_set1_ps(sqk), vs = _mm512_set1_ps(p->scale), vf = _mm512_set1_ps(p->fill);
        __m512 m = _mm512_set1_ps(-3.40282347e+38f);
        if (b && p->mask_sk[1] == 0) b = NULL;
        for (c = 0; c < n; c += NR) {
            const __mmask16 k = (__mmask16)(n - c >= NR ? 0xFFFF : (1u << (n - c)) - 1u);
            __m512 x = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_maskz_loadu_epi32(k, irow + c), vrt));
            x = _mm512_mul_ps(_mm512_mul_ps(x, vq), vs);
            if (a) {
                const __m512i va = _mm512_maskz_loadu_epi8((__mmask64)k, a + c);
                __mmask16 on = (__mmask16)_mm512_test_epi8_mask(va, va) & all_b;
                if (b) {
                    const __m512i vb = _mm512_maskz_loadu_epi8((__mmask64)k, b + c);
                    on &= (__mmask16)_mm512_test_epi8_mask(vb, vb);
                }
                x = _mm512_mask_blend_ps(p->mask == RT_OPT_MASK_KEEP ? on : (__mmask16)~on, vf, x);
            }
            _mm512_mask_storeu_ps(row + c, k, x);
            m = _mm512_mask_max_ps(m, k, x, m);
        }
        return _mm512_reduce_max_ps(m);
    }
#endif
    for (c = 0; c < n; c++) row[c] = (float)(int32_t)((uint32_t)irow[c] + rt) * sqk;
    apply_mask(p, mask, mo, i, k0, n, row);
    return rt_opt_max_f32(n, row);
}

/* One tile's int32 score sums (rt_opt_scores_s8) into s, rows ls apart; reached only where s8_scores. */
static void tile_scores_s8(int32_t qb, int32_t kl, int32_t kq, const int8_t *a8, int32_t lda, const int8_t *kp,
                           const int32_t *colterm, float *s, int32_t ls) {
#if defined(RT_OPT_S8_VNNI)
    rt_opt_scores_s8(qb, (kl + NR - 1) / NR, kq, a8, lda, kp, colterm, (int32_t *)(void *)s, ls);
#else
    (void)qb, (void)kl, (void)kq, (void)a8, (void)lda, (void)kp, (void)colterm, (void)s, (void)ls;
#endif
}

/* C[m][n] = A[m][k] . packed B, no bias (zeros), no clamp. */
static void tile_gemm(rt_opt_gemm_params *g, int32_t m, int32_t n, int32_t k, const float *a, int32_t lda,
                      const float *b, const float *zero, float *c, int32_t ldc) {
    g->m = m;
    g->n = n;
    g->k = k;
    g->lda = lda;
    g->ldc = ldc;
    rt_opt_gemm_f32(g, a, b, zero, c);
}

/* Query rows of a tile read in place through a table (bf16 Q with the heads interleaved): up to this many. */
#define Q_TAB 64

typedef struct attn_job {
    const rt_opt_attn_params *p;
    const void *q, *k, *v;
    const void *mask0, *mask1;
    void *out;
    void *scratch;
    int32_t tasks;
} attn_job;

/* Batches (heads) t, t + tasks, ... with scratch copy t. */
static void attn_task(void *vj, int task) {
    const attn_job *jb = vj;
    const rt_opt_attn_params *p = jb->p;
    const void *q = jb->q, *k = jb->k, *v = jb->v;
    void *out = jb->out;
    void *scratch = jb->scratch ? (char *)jb->scratch + (int64_t)task * (int64_t)rt_opt_attention_scratch_bytes(p) : NULL;
    const int32_t lq = p->qk.m, lk = p->qk.n, d = p->qk.k, dv = p->pv.n, qbk = p->q_block, kbk = p->kv_block;
    const int32_t dvp = (int32_t)round16(dv), s8 = s8_scores(p), ls = s8 ? (int32_t)round32(kbk) : kbk;
    const int32_t kq = RT_OPT_K4(d) / 4;
    const float sqk = p->qscale[0] * p->qscale[1];
    const void *mask[2];
    int64_t sizes[11], nb = rt_bmm_batch_count(&p->pv), b;
    float *kp, *vp, *qa, *s, *t, *o, *ot, *mx, *l, *alpha, *zero;
    rt_opt_gemm_params g;
    const int bf = bf16_products(p), u8 = pv_u8_on(p);
    const int32_t d2 = (d + 1) / 2, ldp = (int32_t)RT_OPT_K4(kbk);
    uint32_t *pb;
    float *row;
    int32_t *colterm, *rowterm, *lsum;
    int8_t *pq;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
    const uint32_t *qtab[Q_TAB];
    int qtab_rows = 0;
#endif
    mask[0] = jb->mask0;
    mask[1] = jb->mask1;
    layout(p, sizes);
    kp = (float *)scratch;
    vp = kp + sizes[0];
    qa = vp + sizes[1];
    s = qa + sizes[2];
    t = s + sizes[3];
    o = t + sizes[4];
    mx = o + sizes[5];
    l = mx + qbk;
    alpha = l + qbk;
    zero = mx + sizes[6];
    pb = (uint32_t *)(void *)(zero + sizes[7]);
    row = (float *)(void *)(pb + (int64_t)qbk * ((kbk + 1) / 2));
    colterm = (int32_t *)(void *)((float *)(void *)pb + sizes[8]);
    rowterm = colterm + round32(lk);
    pq = (int8_t *)(void *)((float *)(void *)colterm + sizes[9]);
    lsum = (int32_t *)(void *)((float *)(void *)pq + (qbk * ldp + 3) / 4);
    memset(zero, 0, sizeof(float) * (size_t)sizes[7]);
    memset(&g, 0, sizeof g);
    g.act_min = -INFINITY;
    g.act_max = INFINITY;
    for (b = task; b < nb; b += jb->tasks) {
        int64_t qo, ko, po, vo, mo[2] = {0, 0}, j, kk, i0, k0, os, ob = out_offset(p, b, &os);
        rt_bmm_batch_offsets(&p->qk, b, &qo, &ko);
        rt_bmm_batch_offsets(&p->pv, b, &po, &vo);
        if (p->n_mask > 0) mo[0] = mask_offset(p, 0, b);
        if (p->n_mask > 1) mo[1] = mask_offset(p, 1, b);
        /* K^T as the right operand: panel jp holds keys 16jp..16jp+15 as
         * [D][16]; V per key block: the block at k0 * dvp is a
         * [dvp/16][rows][16] panel set. Stores run contiguously. */
        if (s8) {
            rt_attn_pack_k_s8(p, (const int8_t *)k, ko, (int8_t *)(void *)kp, colterm);
        } else if (bf) {
            rt_attn_pack_k_bf16(p, k, ko, row, (uint16_t *)(void *)kp);
        } else if (p->qk.rhs_sk == 1) { /* rows of keys: 16 at a time */
            for (j = 0; j < round16(lk); j += NR)
                rt_attn_panel_keys(p, k, ko + j * p->qk.rhs_sj, p->qk.rhs_sj, (int32_t)(lk - j < NR ? lk - j : NR), d, kp + j * d,
                           qa);
        } else {
            for (j = 0; j < round16(lk); j += NR)
                for (kk = 0; kk < d; kk++)
                    rt_attn_gather_op(p, 1, k, ko + kk * p->qk.rhs_sk + j * p->qk.rhs_sj, p->qk.rhs_sj,
                           (int32_t)(lk - j < NR ? lk - j : NR), NR, kp + j * d + kk * NR);
        }
        if (bf) rt_attn_pack_v_bf16(p, v, vo, row, (uint16_t *)(void *)vp);
#if defined(RT_OPT_S8_PV)
        if (u8) rt_attn_pack_v_s8(p, (const int8_t *)v, vo, (int8_t *)(void *)vp);
#endif
        for (k0 = 0; k0 < lk && !bf && !u8; k0 += kbk) {
            int64_t rows = lk - k0 < kbk ? lk - k0 : kbk, r, c0;
            float *blk = vp + k0 * dvp;
            for (c0 = 0; c0 < dvp; c0 += NR) {
                const int32_t n = (int32_t)(dv - c0 < NR ? dv - c0 : NR);
#if defined(RT_OPT_AVX512)
                if (p->pv.rhs_sj == 1) { /* rows of V: one vector each, zeros past n (rt_attn_gather_op's values) */
                    /* p's fields in locals: the stores may alias them, so they were reloaded every row */
                    const int32_t t = p->tv, es = type_bytes(t), vz = p->qzero[2];
                    const float vs = p->qscale[2];
                    const int64_t vstep = p->pv.rhs_sk * es;
                    const char *src = (const char *)v + (vo + k0 * p->pv.rhs_sk + c0) * es;
                    float *dst = blk + c0 * rows;
                    const __mmask16 kc = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1u);
                    for (r = 0; r < rows; r++, src += vstep, dst += NR) _mm512_storeu_ps(dst, load_f32(t, vs, vz, src, kc));
                    continue;
                }
#elif defined(RT_A64)
                if (p->pv.rhs_sj == 1 && p->tv == RT_F32 && n == NR) { /* rows of f32 V: four vectors each */
                    const float *src = (const float *)v + vo + k0 * p->pv.rhs_sk + c0;
                    const int64_t vstep = p->pv.rhs_sk;
                    float *dst = blk + c0 * rows;
                    for (r = 0; r < rows; r++, src += vstep, dst += NR) {
                        const float32x4_t x0 = vld1q_f32(src), x1 = vld1q_f32(src + 4), x2 = vld1q_f32(src + 8);
                        const float32x4_t x3 = vld1q_f32(src + 12);
                        vst1q_f32(dst, x0), vst1q_f32(dst + 4, x1), vst1q_f32(dst + 8, x2), vst1q_f32(dst + 12, x3);
                    }
                    continue;
                }
#endif
                for (r = 0; r < rows; r++)
                    rt_attn_gather_op(p, 2, v, vo + (k0 + r) * p->pv.rhs_sk + c0 * p->pv.rhs_sj, p->pv.rhs_sj, n, NR,
                              blk + c0 * rows + r * NR);
            }
        }
        for (i0 = 0; i0 < lq; i0 += qbk) {
            int32_t qb = lq - i0 < qbk ? (int32_t)(lq - i0) : qbk, r, c;
            const float *a = NULL;
            const int8_t *a8 = NULL;
            int32_t lda = 0;
            if (s8) {
                a8 = rt_attn_rows_q_s8(p, (const int8_t *)q, qo + i0 * p->qk.lhs_si, qb, (int8_t *)(void *)qa, rowterm, &lda);
            } else if (bf) { /* Q rows as bf16 pairs: as they are when stored so, else rounded into qa */
                const uint16_t *q16 = (const uint16_t *)q + qo + i0 * p->qk.lhs_si;
                lda = 2 * d2;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
                qtab_rows = 0;
#endif
                if (p->tq == RT_BF16 && p->qk.lhs_sk == 1 && p->qk.lhs_si == d && !(d & 1) && !((uintptr_t)q16 & 3u)) {
                    a = (const float *)(const void *)q16;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
                } else if (p->tq == RT_BF16 && p->qk.lhs_sk == 1 && !(p->qk.lhs_si & 1) && !(d & 1) &&
                           !((uintptr_t)q16 & 3u) && qb <= Q_TAB) {
                    /* rows of pairs lhs_si apart (heads interleaved): read in place through a row table
                     * (copied into qa, ViT's 17 x 32 queries took a quarter of the bf16 attention's time) */
                    for (r = 0; r < qb; r++) qtab[r] = (const uint32_t *)(const void *)(q16 + (int64_t)r * p->qk.lhs_si);
                    qtab_rows = 1;
#endif
                } else {
                    r = 0;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
                    if (p->qk.lhs_sk == 1) { /* rows of Q: 16 pairs a vector */
                        const int32_t es = type_bytes(p->tq);
                        for (r = 0; r < qb; r++)
                            for (c = 0; c < d2; c += NR) {
                                uint32_t *dst = (uint32_t *)(void *)qa + (int64_t)r * d2 + c;
                                const __m512i x = pairs32(p, 0, (const char *)q + (qo + (i0 + r) * p->qk.lhs_si) * es,
                                                          2 * (int64_t)c, d);
                                if (d2 - c >= NR) _mm512_storeu_si512((void *)dst, x);
                                else _mm512_mask_storeu_epi32(dst, (__mmask16)((1u << (d2 - c)) - 1u), x);
                            }
                        r = qb;
                    }
#endif
                    for (; r < qb; r++) {
                        uint16_t *qr = (uint16_t *)(void *)qa + (int64_t)r * 2 * d2;
                        rt_attn_gather_op(p, 0, q, qo + (i0 + r) * p->qk.lhs_si, p->qk.lhs_sk, d, d, row);
                        rt_opt_from_f32(row, d, RT_BF16, qr);
                        if (d & 1) qr[d] = 0;
                    }
                    a = qa;
                }
            } else if (p->qk.lhs_sk == 1 && p->tq == RT_F32) {
                a = (const float *)q + qo + i0 * p->qk.lhs_si;
                lda = p->qk.lhs_si;
            } else {
                for (r = 0; r < qb; r++)
                    rt_attn_gather_op(p, 0, q, qo + (i0 + r) * p->qk.lhs_si, p->qk.lhs_sk, d, d, qa + (int64_t)r * d);
                a = qa;
                lda = d;
            }
            for (r = 0; r < qb; r++) {
                mx[r] = -3.40282347e+38f;
                l[r] = 0.0f;
            }
            if (lk == 0) memset(o, 0, sizeof(float) * (size_t)qb * (size_t)dvp); /* else the first block writes it */
            for (k0 = 0; k0 < lk; k0 += kbk) {
                int32_t kl = lk - k0 < kbk ? (int32_t)(lk - k0) : kbk;
                /* scores of the tile */
                if (s8) { /* exact int32 sums (key terms included); s8_row makes the scores in place */
                    tile_scores_s8(qb, kl, kq, a8, lda, (const int8_t *)(const void *)kp + (int64_t)(k0 / NR) * kq * 4 * NR,
                                   colterm + k0, s, ls);
                } else if (bf) {
                    const uint16_t *kpb = (const uint16_t *)(const void *)kp + (k0 / NR) * d2 * NR * 2;
                    g.m = qb, g.n = kl, g.k = 2 * d2, g.lda = lda, g.ldc = ls;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
                    if (qtab_rows) /* as rt_opt_fc_bf16_rows computes it for rows in place (one_row likewise) */
                        rt_opt_fc_bf16_pairs(&g, qb, NULL, qtab, 1, d2, kpb, zero, s, RT_F32, qb == 1);
                    else
#endif
                        rt_opt_fc_bf16_rows(&g, (const uint16_t *)(const void *)a, kpb, zero, s, NULL);
                } else
                    tile_gemm(&g, qb, kl, d, a, lda, kp + k0 * d, zero, s, ls);
                /* no mask: the rows scaled and their maxima taken 16 at a time (into alpha, free until below) */
                if (!s8 && p->mask == RT_OPT_MASK_NONE) rt_opt_scale_max_rows(qb, kl, p->scale, s, ls, alpha);
                for (r = 0; r < qb; r++) {
                    float *row = s + (int64_t)r * ls, m_new;
                    if (s8) {
                        m_new = s8_row(p, mask, mo, i0 + r, k0, kl, (const int32_t *)(const void *)row,
                                       (uint32_t)rowterm[r], sqk, row);
                    } else if (p->mask == RT_OPT_MASK_NONE) {
                        m_new = alpha[r];
                    } else {
                        apply_mask(p, mask, mo, i0 + r, k0, kl, row);
                        m_new = rt_opt_max_f32(kl, row);
                    }
                    m_new = m_new > mx[r] ? m_new : mx[r];
                    /* the first block's rescale multiplies a zero sum and no output: not computed (a scalar
                     * exp per row was a fifth of a 17-key row's softmax) */
                    alpha[r] = k0 == 0 ? 0.0f : rt_opt_expf((mx[r] - m_new) * p->beta);
                    mx[r] = m_new;
                }
                /* the probabilities (bf16: straight into bf16 pairs), rows two at a time */
                for (r = 0; r < qb; r += 16) {
                    const int32_t nr = qb - r < 16 ? qb - r : 16, kl2 = (kl + 1) / 2;
                    float sums[16];
                    if (u8) { /* 8-bit probabilities, their sums exact */
#if defined(RT_OPT_S8_PV)
                        rt_opt_exp_rows_s8(nr, kl, p->beta, mx + r, s + (int64_t)r * ls, ls, pq + (int64_t)r * ldp, ldp,
                                           lsum + r);
#endif
                        for (c = 0; c < nr; c++) sums[c] = (float)lsum[r + c];
                    } else if (bf) {
                        uint16_t *pr = (uint16_t *)(void *)(pb + (int64_t)r * kl2);
                        rt_opt_exp_rows(nr, kl, p->beta, mx + r, s + (int64_t)r * ls, ls, NULL, pr, 2 * kl2, sums);
                        for (c = 0; c < nr && (kl & 1); c++) pr[(int64_t)c * 2 * kl2 + kl] = 0;
                    } else
                        rt_opt_exp_rows(nr, kl, p->beta, mx + r, s + (int64_t)r * ls, ls, s + (int64_t)r * ls, NULL, ls,
                                        sums);
                    for (c = 0; c < nr; c++) l[r + c] = l[r + c] * alpha[r + c] + sums[c];
                }
                /* P.V of the tile, folded into the running output; the first block's is the output so far */
                ot = k0 == 0 ? o : t;
#if defined(RT_OPT_S8_PV)
                if (u8) { /* int32 sums of q (v - zv): the kernel's q v less zv times the row's sum of q */
                    const int32_t *ti = (const int32_t *)(const void *)t;
                    tile_scores_s8(qb, dvp, (kl + 3) / 4, pq, ldp, (const int8_t *)(const void *)vp + k0 * dvp,
                                   (const int32_t *)(const void *)zero, t, dvp);
                    for (r = 0; r < qb; r++) { /* whole vectors: o and t rows are dvp wide */
                        float *orow = o + (int64_t)r * dvp;
                        const int32_t *trow = ti + (int64_t)r * dvp;
                        const __m512i zl = _mm512_set1_epi32((int32_t)((uint32_t)p->qzero[2] * (uint32_t)lsum[r]));
                        const __m512 al = _mm512_set1_ps(alpha[r]);
                        for (c = 0; c < dvp; c += NR) {
                            const __m512 x = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_loadu_si512((const void *)(trow + c)), zl));
                            _mm512_storeu_ps(orow + c, k0 == 0 ? x : _mm512_fmadd_ps(_mm512_loadu_ps(orow + c), al, x));
                        }
                    }
                    continue;
                }
#endif
                if (bf) {
                    const int32_t kl2 = (kl + 1) / 2;
                    g.m = qb, g.n = dv, g.k = 2 * kl2, g.lda = 2 * kl2, g.ldc = dvp;
                    rt_opt_fc_bf16_rows(&g, (const uint16_t *)(const void *)pb,
                                        (const uint16_t *)(const void *)vp + k0 * dvp, zero, ot, NULL);
                } else
                    tile_gemm(&g, qb, dv, kl, s, ls, vp + k0 * dvp, zero, ot, dvp);
                for (r = 0; r < qb && k0 > 0; r++) {
                    float *orow = o + (int64_t)r * dvp, al = alpha[r];
                    const float *trow = t + (int64_t)r * dvp;
                    for (c = 0; c < dv; c++) orow[c] = RT_FMAF(orow[c], al, trow[c]);
                }
            }
            for (r = 0; r < qb; r++) {
                float inv = (u8 ? p->qscale[2] : 1.0f) / l[r], *orow = o + (int64_t)r * dvp; /* u8: o in V's steps */
#if defined(RT_OPT_AVX512)
                if (p->tout == RT_F32) { /* normalized straight into the output, 16 columns at a time */
                    float *dst = (float *)out + ob + (i0 + r) * os;
                    for (c = 0; c < dv; c += NR) {
                        const __mmask16 kc = (__mmask16)(dv - c >= NR ? 0xFFFF : (1u << (dv - c)) - 1u);
                        rt_store16(dst + c, kc, _mm512_mul_ps(rt_load16(kc, orow + c), _mm512_set1_ps(inv)));
                    }
                    continue;
                }
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
                if (p->tout == RT_BF16) { /* the same, rounded as rt_opt_from_f32 rounds */
                    uint16_t *dst = (uint16_t *)out + ob + (i0 + r) * os;
                    for (c = 0; c < dv; c += NR) {
                        const __mmask16 kc = (__mmask16)(dv - c >= NR ? 0xFFFF : (1u << (dv - c)) - 1u);
                        rt_store16_bf16(dst + c, kc, _mm512_mul_ps(rt_load16(kc, orow + c), _mm512_set1_ps(inv)));
                    }
                    continue;
                }
#endif
#endif
                for (c = 0; c < dv; c++) orow[c] *= inv;
                rt_opt_from_f32(orow, dv, p->tout, (char *)out + (ob + (i0 + r) * os) * (p->tout == RT_F32 ? 4 : 2));
            }
        }
    }
}

void rt_opt_attention_f32(const rt_opt_attn_params *p, const void *q, const void *k, const void *v,
                          const void *mask0, const void *mask1, void *out, void *scratch, const mpcc_parallel *par) {
    attn_job j = {p, q, k, v, mask0, mask1, out, scratch, 1};
    int64_t nb = rt_bmm_batch_count(&p->pv);
    j.tasks = rt_opt_tasks(par, p->slots);
    j.tasks = j.tasks < nb ? j.tasks : (int32_t)(nb > 0 ? nb : 1);
    if (j.tasks > 1) par->run(par->pool, attn_task, &j, j.tasks);
    else attn_task(&j, 0);
}
