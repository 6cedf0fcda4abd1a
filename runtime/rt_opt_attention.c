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

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define NR RT_OPT_NR

static int64_t round16(int64_t n) { return (n + NR - 1) / NR * NR; }
static int64_t round32(int64_t n) { return (n + 2 * NR - 1) / (2 * NR) * (2 * NR); }

/* int8 Q and K: the scratch has room for their int8 scores (rt_opt_scores_s8 over pairs of 16-key panels,
 * tile rows round32(kv_block) wide) in every build, so the compiler's size holds for any; the scores take
 * that path where the VNNI kernels are built (s8_scores), else the f32 or bf16 products of the dequantized
 * values. */
static int int8_qk(const rt_opt_attn_params *p) { return p->tq == RT_I8 && p->tk == RT_I8; }
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

/* dst[l] = element off + l * s of x (stored as type t) as a float for l < n, 0 for n <= l < width (the
 * attention's operands may be stored in 16 bits, pass half_storage, or in int8: qs * (v - qz), as
 * DEQUANTIZE computes it). */
static void gather_q(const void *x, int32_t t, float qs, int32_t qz, int64_t off, int64_t s, int32_t n, int32_t width,
                     float *dst) {
    int32_t l;
    if (t == RT_I8) {
        const int8_t *v = (const int8_t *)x + off;
        for (l = 0; l < n; l++) dst[l] = qs * (float)((int32_t)v[l * s] - qz);
    } else
        rt_opt_gather_f32(t, (const char *)x + off * (t == RT_F32 ? 4 : 2), s, n, dst);
    for (l = n; l < width; l++) dst[l] = 0.0f;
}
/* Operand `which` (0 Q, 1 K, 2 V): its storage type, and gather_q with its scale and zero point. */
static int32_t op_type(const rt_opt_attn_params *p, int which) { return which == 0 ? p->tq : which == 1 ? p->tk : p->tv; }
static void gather_op(const rt_opt_attn_params *p, int which, const void *x, int64_t off, int64_t s, int32_t n,
                      int32_t width, float *dst) {
    gather_q(x, op_type(p, which), p->qscale[which], p->qzero[which], off, s, n, width, dst);
}

/* n (<= 16) keys stored as rows (stride rs elements of type t, the first at element off of k) as one
 * panel [d][16] of K^T in f32, keys n..15 zero. With AVX-512 16x16 blocks transposed in registers
 * (element by element, the strided stores and per-element calls cost ViT's 17-key attention a fifth
 * of its time); else each key's row widened into tmp (d floats) and written down its column. */
#if defined(RT_OPT_AVX512)
/* Bytes of one element stored as type t (f32, int8 or 16-bit). */
static int32_t type_bytes(int32_t t) { return t == RT_F32 ? 4 : t == RT_I8 ? 1 : 2; }

/* 16 values of type t from x as floats (lanes kc; exact widenings of bf16/f16; int8 as qs * (v - qz)). */
static inline __m512 load_f32(int32_t t, float qs, int32_t qz, const void *x, __mmask16 kc) {
    __m256i h;
    if (t == RT_F32) return _mm512_maskz_loadu_ps(kc, x);
    if (t == RT_I8)
        return _mm512_mul_ps(_mm512_set1_ps(qs), _mm512_cvtepi32_ps(_mm512_sub_epi32(
                                                     _mm512_cvtepi8_epi32(_mm512_castsi512_si128(_mm512_maskz_loadu_epi8((__mmask64)kc, x))),
                                                     _mm512_set1_epi32(qz))));
    h = _mm512_castsi512_si256(_mm512_maskz_loadu_epi16((__mmask32)kc, x));
    if (t == RT_BF16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    return _mm512_cvtph_ps(h);
}

static void panel_keys(const rt_opt_attn_params *p, const void *k, int64_t off, int64_t rs, int32_t n, int32_t d,
                       float *dst, float *tmp) {
    const int32_t t = p->tk, es = type_bytes(t);
    int32_t c, i;
    (void)tmp;
    for (c = 0; c < d; c += NR) {
        const __mmask16 kc = (__mmask16)(d - c >= NR ? 0xFFFF : (1u << (d - c)) - 1u);
        __m512 r[NR];
        for (i = 0; i < NR; i++)
            r[i] = i < n ? load_f32(t, p->qscale[1], p->qzero[1], (const char *)k + (off + i * rs + c) * es, kc)
                         : _mm512_setzero_ps();
        transpose16(r);
        for (i = 0; i < NR && c + i < d; i++) _mm512_storeu_ps(dst + (int64_t)(c + i) * NR, r[i]);
    }
}
#else
static void panel_keys(const rt_opt_attn_params *p, const void *k, int64_t off, int64_t rs, int32_t n, int32_t d,
                       float *dst, float *tmp) {
    int32_t c, i;
    for (i = 0; i < NR; i++) {
        if (i < n) gather_op(p, 1, k, off + i * rs, 1, d, d, tmp);
        else memset(tmp, 0, sizeof(float) * (size_t)d);
        for (c = 0; c < d; c++) dst[(int64_t)c * NR + i] = tmp[c];
    }
}
#endif

/* int8 K (p->tk RT_I8) as rt_opt_scores_s8's panels: keys 0..round32(Lk) (zeros past Lk) over kq quads of
 * the D dimensions (zeros past D), and per key j the zero-point term colterm[j] = (128 + zq)(zk D - sum_c
 * k[j][c]): with the kernel's sum of (q + 128) k and the query row's -zk sum_c (q + 128) it makes
 * sum_c (q - zq)(k - zk) exactly (wrapping int32). With AVX512-VNNI 16 keys of up to 64 contiguous bytes
 * at a time, transposed in registers as 16 x 16 quads and summed by vpdpbusd against ones. */
static void pack_k_s8(const rt_opt_attn_params *p, const int8_t *k, int64_t ko, int8_t *kp, int32_t *colterm) {
    const int32_t lk = p->qk.n, d = p->qk.k, kq = RT_OPT_K4(d) / 4, n32 = (int32_t)round32(lk);
    const uint32_t zq = (uint32_t)(128 + p->qzero[0]), zkd = (uint32_t)p->qzero[1] * (uint32_t)d;
    int32_t j, c;
#if defined(RT_OPT_AVX512) && defined(__AVX512VNNI__)
    if (p->qk.rhs_sk == 1 && d <= 64) {
        const __mmask64 kc = d == 64 ? ~(__mmask64)0 : ((__mmask64)1 << d) - 1u;
        const __m512i ones = _mm512_set1_epi8(1);
        int32_t i;
        for (j = 0; j < n32; j += NR) {
            __m512 r[NR];
            __m512i sum = _mm512_setzero_si512();
            for (i = 0; i < NR; i++)
                r[i] = j + i < lk ? _mm512_castsi512_ps(_mm512_maskz_loadu_epi8(kc, k + ko + (int64_t)(j + i) * p->qk.rhs_sj))
                                  : _mm512_setzero_ps();
            transpose16(r);
            for (c = 0; c < kq; c++) {
                const __m512i x = _mm512_castps_si512(r[c]);
                _mm512_storeu_si512((void *)(kp + (int64_t)(j / NR) * kq * 4 * NR + (int64_t)c * 4 * NR), x);
                sum = _mm512_dpbusd_epi32(sum, ones, x);
            }
            _mm512_storeu_si512((void *)(colterm + j),
                                _mm512_mullo_epi32(_mm512_set1_epi32((int32_t)zq),
                                                   _mm512_sub_epi32(_mm512_set1_epi32((int32_t)zkd), sum)));
        }
        return;
    }
#endif
    for (j = 0; j < n32; j++) {
        int8_t *dst = kp + (int64_t)(j / NR) * kq * 4 * NR + (j % NR) * 4;
        uint32_t sum = 0;
        for (c = 0; c < 4 * kq; c++) {
            const int8_t x = j < lk && c < d ? k[ko + (int64_t)j * p->qk.rhs_sj + (int64_t)c * p->qk.rhs_sk] : 0;
            dst[(c / 4) * 4 * NR + c % 4] = x;
            sum += (uint32_t)(int32_t)x;
        }
        colterm[j] = (int32_t)(zq * (zkd - sum));
    }
}

/* Query rows off.. (qb of them) of int8 Q for rt_opt_scores_s8: in place when each row is contiguous in
 * whole quads (lhs_sk 1, D a multiple of 4), else copied into q8 with zero padding; rowterm[r] = -zk
 * sum_c (q[r][c] + 128). Returns the rows, *lda their distance. */
static const int8_t *rows_q_s8(const rt_opt_attn_params *p, const int8_t *q, int64_t off, int32_t qb, int8_t *q8,
                               int32_t *rowterm, int32_t *lda) {
    const int32_t d = p->qk.k, k4 = RT_OPT_K4(d);
    const uint32_t zk = (uint32_t)p->qzero[1];
    const int8_t *rows = q + off;
    int32_t r, c;
    if (p->qk.lhs_sk == 1 && d % 4 == 0) {
        *lda = p->qk.lhs_si;
    } else {
        for (r = 0; r < qb; r++)
            for (c = 0; c < k4; c++)
                q8[(int64_t)r * k4 + c] = c < d ? q[off + (int64_t)r * p->qk.lhs_si + (int64_t)c * p->qk.lhs_sk] : 0;
        rows = q8;
        *lda = k4;
    }
    for (r = 0; r < qb; r++) {
        const int8_t *x = rows + (int64_t)r * *lda;
        int32_t sum = 0;
#if defined(RT_OPT_AVX512)
        if (d <= 64) { /* sum_c (x + 128) of the row by one vpsadbw (the bytes past d zero) */
            const __mmask64 k = d == 64 ? ~(__mmask64)0 : ((__mmask64)1 << d) - 1;
            const __m512i u = _mm512_maskz_mov_epi8(k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)x),
                                                                         _mm512_set1_epi8((char)0x80)));
            rowterm[r] = (int32_t)(0u - zk * (uint32_t)_mm512_reduce_add_epi64(_mm512_sad_epu8(u, _mm512_setzero_si512())));
            continue;
        }
#endif
        for (c = 0; c < d; c++) sum += x[c];
        rowterm[r] = (int32_t)(0u - zk * ((uint32_t)sum + 128u * (uint32_t)d));
    }
    return rows;
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
                gather_q(mask[0], p->tmask, 1.0f, 0, a + (int64_t)c0 * p->mask_sk[0], p->mask_sk[0], w, w, m);
                for (c = 0; c < w; c++) row[c0 + c] = row[c0 + c] * p->scale + m[c];
            }
        }
    } else {
        const uint8_t *a = (const uint8_t *)mask[0] + mo[0] + i * p->mask_sq[0] + k0 * p->mask_sk[0];
        const uint8_t *b = p->n_mask > 1 ? (const uint8_t *)mask[1] + mo[1] + i * p->mask_sq[1] + k0 * p->mask_sk[1] : a;
        int32_t sa = p->mask_sk[0], sb = p->n_mask > 1 ? p->mask_sk[1] : sa;
        const float keep = p->mask == RT_OPT_MASK_KEEP ? 1.0f : 0.0f, scale = p->scale, fill = p->fill;
        if (sa == 1 && sb == 1) { /* the common layouts, in a loop that vectorizes */
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

/* The bf16 operands (p->bf16), in the layout of rt_opt_fc_bf16_rows's packed weights: panels of 16 columns
 * holding [pairs][16][2] halves. K^T: panel jp = keys 16jp..16jp+15 over pairs of the D dimensions (d2 =
 * (D + 1) / 2, zero padded); V: per block of keys at k0, its panels of 16 of the Dv columns over pairs of
 * the block's keys. Both are built from lines along the panels' columns (keys of one dimension of K, columns
 * of one key of V), two lines making a row of pairs; other layouts go element by element. */

/* n elements of x (type t) from off, stride s, as bf16 in a line: the stored halves themselves when they
 * are bf16 and adjacent, else rounded into tmp16 (via tmp32, n floats). */
static const uint16_t *line_bf16(const rt_opt_attn_params *p, int which, const void *x, int64_t off, int64_t s,
                                 int32_t n, float *tmp32, uint16_t *tmp16) {
    if (op_type(p, which) == RT_BF16 && s == 1) return (const uint16_t *)x + off;
    gather_op(p, which, x, off, s, n, n, tmp32);
    rt_opt_from_f32(tmp32, n, RT_BF16, tmp16);
    return tmp16;
}

/* Row `pair` of every panel from lines a and b (b NULL: zeros) of n columns: panel jp's 16 (a, b) pairs at
 * dst + jp * panel_halves, columns past n zero. */
static void pair_lines(const uint16_t *a, const uint16_t *b, int32_t n, int64_t panel_halves, uint16_t *dst) {
    int32_t j0, jj;
    for (j0 = 0; j0 < n; j0 += NR, dst += panel_halves) {
        const int32_t w = n - j0 < NR ? n - j0 : NR;
        for (jj = 0; jj < w; jj++) {
            dst[2 * jj] = a[j0 + jj];
            dst[2 * jj + 1] = b ? b[j0 + jj] : 0;
        }
        for (; jj < NR; jj++) dst[2 * jj] = dst[2 * jj + 1] = 0;
    }
}

#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
/* With AVX512-BF16, operands stored as rows (K: a key's D values, V: a key's Dv columns, contiguous; f32,
 * bf16 or int8) are packed 16 lanes at a time, rounded by vcvtne2ps2bf16 as rt_opt_from_f32 rounds; stored
 * bf16 halves are copied as they are. A scalar pass per element ran a 17-key ViT attention at 2.2 us a call
 * against 1.5 on f32 products. */

/* 16 bf16 pairs (32 halves) from the row x of operand `which`, elements e.. of n: e, e + 1 in pair 0, ...
 * (zeros past n). */
static inline __m512i pairs32(const rt_opt_attn_params *p, int which, const void *x, int64_t e, int32_t n) {
    const int32_t t = op_type(p, which), rest = n - (int32_t)e;
    const __mmask16 k0 = (__mmask16)(rest >= NR ? 0xFFFF : rest > 0 ? (1u << rest) - 1u : 0u);
    const __mmask16 k1 = (__mmask16)(rest >= 2 * NR ? 0xFFFF : rest > NR ? (1u << (rest - NR)) - 1u : 0u);
    const char *at = (const char *)x + e * type_bytes(t);
    if (t == RT_BF16) /* whole vectors by plain loads: a masked one costs several times more on some CPUs */
        return rest >= 2 * NR ? _mm512_loadu_si512((const void *)at)
                              : _mm512_maskz_loadu_epi16((__mmask32)((uint32_t)k0 | (uint32_t)k1 << 16), at);
    return (__m512i)_mm512_cvtne2ps_pbh(load_f32(t, p->qscale[which], p->qzero[which], at + NR * type_bytes(t), k1),
                                        load_f32(t, p->qscale[which], p->qzero[which], at, k0));
}

/* K rows (qk.rhs_sk 1) as rt_opt_fc_bf16_rows's panels: 16 keys' rows of pairs transposed in registers. */
static void pack_k_bf16_rows(const rt_opt_attn_params *p, const void *k, int64_t ko, uint16_t *kp) {
    const int32_t lk = p->qk.n, d = p->qk.k, d2 = (d + 1) / 2, es = type_bytes(p->tk);
    uint32_t *kp32 = (uint32_t *)(void *)kp;
    int32_t j, c0, i;
    for (j = 0; j < lk; j += NR)
        for (c0 = 0; c0 < d2; c0 += NR) {
            __m512 r[NR];
            for (i = 0; i < NR; i++)
                r[i] = j + i < lk ? _mm512_castsi512_ps(pairs32(p, 1, (const char *)k + (ko + (int64_t)(j + i) * p->qk.rhs_sj) * es,
                                                                2 * (int64_t)c0, d))
                                  : _mm512_setzero_ps();
            transpose16(r);
            for (i = 0; i < NR && c0 + i < d2; i++)
                _mm512_storeu_ps((float *)(void *)(kp32 + ((int64_t)(j / NR) * d2 + c0 + i) * NR), r[i]);
        }
}

/* V rows (pv.rhs_sj 1) as the per-key-block panels: keys 2r and 2r + 1 of a block interleaved column by
 * column (vpermt2w), 16 columns a vector. */
static void pack_v_bf16_rows(const rt_opt_attn_params *p, const void *v, int64_t vo, uint16_t *vp) {
    const int32_t lk = p->qk.n, dv = p->pv.n, dvp = (int32_t)round16(dv), kbk = p->kv_block, es = type_bytes(p->tv);
    const __m512i zip = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6,
                                         37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
    int64_t k0, r, c0;
    for (k0 = 0; k0 < lk; k0 += kbk) {
        const int64_t rows = lk - k0 < kbk ? lk - k0 : kbk, r2 = (rows + 1) / 2;
        uint16_t *blk = vp + k0 * dvp;
        for (r = 0; r < r2; r++) {
            const char *a = (const char *)v + (vo + (k0 + 2 * r) * p->pv.rhs_sk) * es;
            const char *b = 2 * r + 1 < rows ? a + p->pv.rhs_sk * es : NULL;
            for (c0 = 0; c0 < dvp; c0 += 2 * NR) { /* 32 columns: rows a and b as pairs32 makes them, then zipped */
                const __m512i x = pairs32(p, 2, a, c0, dv), y = b ? pairs32(p, 2, b, c0, dv) : _mm512_setzero_si512();
                _mm512_storeu_si512((void *)(blk + (c0 / NR) * r2 * NR * 2 + r * NR * 2), _mm512_permutex2var_epi16(x, zip, y));
                if (c0 + NR < dvp)
                    _mm512_storeu_si512((void *)(blk + (c0 / NR + 1) * r2 * NR * 2 + r * NR * 2),
                                        _mm512_permutex2var_epi16(x, _mm512_add_epi16(zip, _mm512_set1_epi16(16)), y));
            }
        }
    }
}
#endif

/* tmp: scratch of 2 * max(Lk, Dv) + 2 floats. */
static void pack_k_bf16(const rt_opt_attn_params *p, const void *k, int64_t ko, float *tmp, uint16_t *kp) {
    const int32_t lk = p->qk.n, d = p->qk.k, d2 = (d + 1) / 2;
    int64_t j, c;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
    if (p->qk.rhs_sk == 1) {
        pack_k_bf16_rows(p, k, ko, kp);
        return;
    }
#endif
    if (p->qk.rhs_sj == 1) { /* K^T rows: the keys of one dimension are a line */
        uint16_t *t16 = (uint16_t *)(void *)(tmp + lk + 1);
        for (c = 0; c < d2; c++) {
            const uint16_t *a = line_bf16(p, 1, k, ko + 2 * c * p->qk.rhs_sk, 1, lk, tmp, t16);
            const uint16_t *b = 2 * c + 1 < d ? line_bf16(p, 1, k, ko + (2 * c + 1) * p->qk.rhs_sk, 1, lk, tmp,
                                                          t16 + lk + 1)
                                              : NULL;
            pair_lines(a, b, lk, (int64_t)d2 * NR * 2, kp + c * NR * 2);
        }
        return;
    }
    for (j = 0; j < round16(lk); j++) {
        uint16_t *dst = kp + (j / NR) * d2 * NR * 2 + (j % NR) * 2;
        if (j < lk) gather_op(p, 1, k, ko + j * p->qk.rhs_sj, p->qk.rhs_sk, d, d + 1, tmp);
        else memset(tmp, 0, sizeof(float) * (size_t)(d + 1));
        for (c = 0; c < d2; c++) {
            dst[c * NR * 2] = rt_f32_to_bf16(tmp[2 * c]);
            dst[c * NR * 2 + 1] = rt_f32_to_bf16(tmp[2 * c + 1]);
        }
    }
}

static void pack_v_bf16(const rt_opt_attn_params *p, const void *v, int64_t vo, float *tmp, uint16_t *vp) {
    const int32_t lk = p->qk.n, dv = p->pv.n, dvp = (int32_t)round16(dv), kbk = p->kv_block;
    uint16_t *t16 = (uint16_t *)(void *)(tmp + dvp + 1);
    int64_t k0, r, c;
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
    if (p->pv.rhs_sj == 1) {
        pack_v_bf16_rows(p, v, vo, vp);
        return;
    }
#endif
    for (k0 = 0; k0 < lk; k0 += kbk) {
        const int64_t rows = lk - k0 < kbk ? lk - k0 : kbk, r2 = (rows + 1) / 2;
        uint16_t *blk = vp + k0 * dvp;
        if (p->pv.rhs_sj == 1) { /* V rows: the columns of one key are a line */
            for (r = 0; r < r2; r++) {
                const int64_t key = k0 + 2 * r;
                const uint16_t *a = line_bf16(p, 2, v, vo + key * p->pv.rhs_sk, 1, dv, tmp, t16);
                const uint16_t *b = 2 * r + 1 < rows
                                        ? line_bf16(p, 2, v, vo + (key + 1) * p->pv.rhs_sk, 1, dv, tmp,
                                                    t16 + dv + 1)
                                        : NULL;
                pair_lines(a, b, dv, r2 * NR * 2, blk + r * NR * 2);
            }
            continue;
        }
        for (r = 0; r < 2 * r2; r++) {
            if (r < rows) gather_op(p, 2, v, vo + (k0 + r) * p->pv.rhs_sk, p->pv.rhs_sj, dv, dvp, tmp);
            else memset(tmp, 0, sizeof(float) * (size_t)dvp);
            for (c = 0; c < dvp; c++) blk[(c / NR) * r2 * NR * 2 + (r / 2) * NR * 2 + (c % NR) * 2 + (r & 1)] =
                rt_f32_to_bf16(tmp[c]);
        }
    }
}

#if defined(RT_OPT_S8_PV)
/* int8 V (pv_u8) as rt_opt_scores_s8's panels, per block of keys (the block at k0 from byte k0 * dvp): panel
 * jp holds columns 16 jp.. over quads of the block's keys ([quads][16][4], keys and columns past the ends
 * zero). V rows (pv.rhs_sj 1): 4 keys' 16 columns a vector, their 4-byte groups transposed across the
 * 128-bit lanes (vpermd), then each lane's 4 x 4 bytes (vpshufb); else byte by byte. */
static void pack_v_s8(const rt_opt_attn_params *p, const int8_t *v, int64_t vo, int8_t *vp) {
    const int32_t lk = p->qk.n, dv = p->pv.n, dvp = (int32_t)round16(dv), kbk = p->kv_block, np = dvp / NR;
    const int64_t sk = p->pv.rhs_sk, sj = p->pv.rhs_sj;
    const __m512i groups = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i bytes = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    int64_t k0;
    for (k0 = 0; k0 < lk; k0 += kbk) {
        const int32_t rows = lk - k0 < kbk ? (int32_t)(lk - k0) : kbk, kq = (rows + 3) / 4;
        int8_t *blk = vp + k0 * dvp;
        int32_t jp, kk, i, c;
        for (jp = 0; jp < np; jp++)
            for (kk = 0; kk < kq; kk++) {
                int8_t *dst = blk + ((int64_t)jp * kq + kk) * 4 * NR;
                if (sj == 1) {
                    const __mmask16 kc = (__mmask16)(dv - jp * NR >= NR ? 0xFFFF : (1u << (dv - jp * NR)) - 1u);
                    const int8_t *src = v + vo + (k0 + 4 * kk) * sk + jp * NR;
                    const int32_t n = rows - 4 * kk; /* keys of this quad in the block */
                    const __m128i r0 = _mm_maskz_loadu_epi8(kc, src);
                    const __m128i r1 = n > 1 ? _mm_maskz_loadu_epi8(kc, src + sk) : _mm_setzero_si128();
                    const __m128i r2 = n > 2 ? _mm_maskz_loadu_epi8(kc, src + 2 * sk) : _mm_setzero_si128();
                    const __m128i r3 = n > 3 ? _mm_maskz_loadu_epi8(kc, src + 3 * sk) : _mm_setzero_si128();
                    const __m512i x = _mm512_inserti32x4(
                        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(r0), r1, 1), r2, 2), r3, 3);
                    _mm512_storeu_si512((void *)dst, _mm512_shuffle_epi8(_mm512_permutexvar_epi32(groups, x), bytes));
                    continue;
                }
                for (c = 0; c < NR; c++)
                    for (i = 0; i < 4; i++) {
                        const int32_t key = 4 * kk + i, col = jp * NR + c;
                        dst[4 * c + i] = key < rows && col < dv ? v[vo + (k0 + key) * sk + col * sj] : 0;
                    }
            }
    }
}
#endif

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
            pack_k_s8(p, (const int8_t *)k, ko, (int8_t *)(void *)kp, colterm);
        } else if (bf) {
            pack_k_bf16(p, k, ko, row, (uint16_t *)(void *)kp);
        } else if (p->qk.rhs_sk == 1) { /* rows of keys: 16 at a time */
            for (j = 0; j < round16(lk); j += NR)
                panel_keys(p, k, ko + j * p->qk.rhs_sj, p->qk.rhs_sj, (int32_t)(lk - j < NR ? lk - j : NR), d, kp + j * d,
                           qa);
        } else {
            for (j = 0; j < round16(lk); j += NR)
                for (kk = 0; kk < d; kk++)
                    gather_op(p, 1, k, ko + kk * p->qk.rhs_sk + j * p->qk.rhs_sj, p->qk.rhs_sj,
                           (int32_t)(lk - j < NR ? lk - j : NR), NR, kp + j * d + kk * NR);
        }
        if (bf) pack_v_bf16(p, v, vo, row, (uint16_t *)(void *)vp);
#if defined(RT_OPT_S8_PV)
        if (u8) pack_v_s8(p, (const int8_t *)v, vo, (int8_t *)(void *)vp);
#endif
        for (k0 = 0; k0 < lk && !bf && !u8; k0 += kbk) {
            int64_t rows = lk - k0 < kbk ? lk - k0 : kbk, r, c0;
            float *blk = vp + k0 * dvp;
            for (c0 = 0; c0 < dvp; c0 += NR) {
                const int32_t n = (int32_t)(dv - c0 < NR ? dv - c0 : NR);
#if defined(RT_OPT_AVX512)
                if (p->pv.rhs_sj == 1) { /* rows of V: one vector each, zeros past n (gather_op's values) */
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
#endif
                for (r = 0; r < rows; r++)
                    gather_op(p, 2, v, vo + (k0 + r) * p->pv.rhs_sk + c0 * p->pv.rhs_sj, p->pv.rhs_sj, n, NR,
                              blk + c0 * rows + r * NR);
            }
        }
        for (i0 = 0; i0 < lq; i0 += qbk) {
            int32_t qb = lq - i0 < qbk ? (int32_t)(lq - i0) : qbk, r, c;
            const float *a = NULL;
            const int8_t *a8 = NULL;
            int32_t lda = 0;
            if (s8) {
                a8 = rows_q_s8(p, (const int8_t *)q, qo + i0 * p->qk.lhs_si, qb, (int8_t *)(void *)qa, rowterm, &lda);
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
                        gather_op(p, 0, q, qo + (i0 + r) * p->qk.lhs_si, p->qk.lhs_sk, d, d, row);
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
                    gather_op(p, 0, q, qo + (i0 + r) * p->qk.lhs_si, p->qk.lhs_sk, d, d, qa + (int64_t)r * d);
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
