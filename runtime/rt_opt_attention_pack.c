/* rt_opt_attention_pack.c - the fused attention's operands (rt_opt_attention.c) gathered as floats and
 * packed into the panels its micro-kernels read: f32 K^T panels, int8 K and Q quads for the int8 scores,
 * bf16 pairs for the bf16 products, int8 V quads for P.V on the int8 kernel. */
#include <string.h>

#include "rt_opt_attention_internal.h"

/* dst[l] = element off + l * s of x (stored as type t) as a float for l < n, 0 for n <= l < width (the
 * attention's operands may be stored in 16 bits, pass half_storage, or in int8: qs * (v - qz), as
 * DEQUANTIZE computes it). */
void rt_attn_gather_q(const void *x, int32_t t, float qs, int32_t qz, int64_t off, int64_t s, int32_t n, int32_t width,
                     float *dst) {
    int32_t l;
    if (t == RT_I8) {
        const int8_t *v = (const int8_t *)x + off;
        for (l = 0; l < n; l++) dst[l] = qs * (float)((int32_t)v[l * s] - qz);
    } else
        rt_opt_gather_f32(t, (const char *)x + off * (t == RT_F32 ? 4 : 2), s, n, dst);
    for (l = n; l < width; l++) dst[l] = 0.0f;
}
/* Operand `which`: rt_attn_gather_q with its scale and zero point. */
void rt_attn_gather_op(const rt_opt_attn_params *p, int which, const void *x, int64_t off, int64_t s, int32_t n,
                      int32_t width, float *dst) {
    rt_attn_gather_q(x, op_type(p, which), p->qscale[which], p->qzero[which], off, s, n, width, dst);
}

/* n (<= 16) keys stored as rows (stride rs elements of type t, the first at element off of k) as one
 * panel [d][16] of K^T in f32, keys n..15 zero. With AVX-512 16x16 blocks transposed in registers
 * (element by element, the strided stores and per-element calls cost ViT's 17-key attention a fifth
 * of its time); else each key's row widened into tmp (d floats) and written down its column. */
#if defined(RT_OPT_AVX512)
void rt_attn_panel_keys(const rt_opt_attn_params *p, const void *k, int64_t off, int64_t rs, int32_t n, int32_t d,
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
void rt_attn_panel_keys(const rt_opt_attn_params *p, const void *k, int64_t off, int64_t rs, int32_t n, int32_t d,
                       float *dst, float *tmp) {
    int32_t c, i;
#if defined(RT_A64)
    if (p->tk == RT_F32 && n == NR && d % 4 == 0) { /* f32 keys: 4 x 4 blocks transposed in registers */
        const float *kf = (const float *)k + off;
        for (c = 0; c < d; c += 4)
            for (i = 0; i < NR; i += 4) {
                const float *r = kf + (int64_t)i * rs + c;
                const float32x4x2_t t01 = vtrnq_f32(vld1q_f32(r), vld1q_f32(r + rs));
                const float32x4x2_t t23 = vtrnq_f32(vld1q_f32(r + 2 * rs), vld1q_f32(r + 3 * rs));
                float *o = dst + (int64_t)c * NR + i;
                vst1q_f32(o, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
                vst1q_f32(o + NR, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
                vst1q_f32(o + 2 * NR, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
                vst1q_f32(o + 3 * NR, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
            }
        return;
    }
#endif
    for (i = 0; i < NR; i++) {
        if (i < n) rt_attn_gather_op(p, 1, k, off + i * rs, 1, d, d, tmp);
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
void rt_attn_pack_k_s8(const rt_opt_attn_params *p, const int8_t *k, int64_t ko, int8_t *kp, int32_t *colterm) {
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
const int8_t *rt_attn_rows_q_s8(const rt_opt_attn_params *p, const int8_t *q, int64_t off, int32_t qb, int8_t *q8,
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
    rt_attn_gather_op(p, which, x, off, s, n, n, tmp32);
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
void rt_attn_pack_k_bf16(const rt_opt_attn_params *p, const void *k, int64_t ko, float *tmp, uint16_t *kp) {
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
        if (j < lk) rt_attn_gather_op(p, 1, k, ko + j * p->qk.rhs_sj, p->qk.rhs_sk, d, d + 1, tmp);
        else memset(tmp, 0, sizeof(float) * (size_t)(d + 1));
        for (c = 0; c < d2; c++) {
            dst[c * NR * 2] = rt_f32_to_bf16(tmp[2 * c]);
            dst[c * NR * 2 + 1] = rt_f32_to_bf16(tmp[2 * c + 1]);
        }
    }
}

void rt_attn_pack_v_bf16(const rt_opt_attn_params *p, const void *v, int64_t vo, float *tmp, uint16_t *vp) {
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
            if (r < rows) rt_attn_gather_op(p, 2, v, vo + (k0 + r) * p->pv.rhs_sk, p->pv.rhs_sj, dv, dvp, tmp);
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
void rt_attn_pack_v_s8(const rt_opt_attn_params *p, const int8_t *v, int64_t vo, int8_t *vp) {
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
