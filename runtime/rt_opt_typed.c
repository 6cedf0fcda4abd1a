/* rt_opt_typed.c - 16-bit activation storage (compiler pass half_storage):
 * conversions between f32 and bf16 / fp16 rows, and the typed entry points
 * of the float kernels whose inputs and outputs may be stored in 16 bits.
 *
 * Every entry point computes in f32 and rounds only what it stores: it
 * widens a bounded piece of each 16-bit input (a chunk of a run, a row, a
 * block of rows) to f32 on the stack or in its scratch, runs the f32
 * kernel's own arithmetic on it, and rounds the result to the output's type
 * (round to nearest even, bit-exact with rt_f32_to_bf16 / rt_f32_to_f16).
 * A piece is read whole before it is written, so outputs may overwrite a
 * same-typed input in place, as the f32 kernels allow. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define CHUNK 256

static int64_t esize(int32_t type) { return type == RT_F32 ? 4 : 2; }

static const void *at(const void *p, int32_t type, int64_t i) { return (const char *)p + i * esize(type); }

void rt_opt_to_f32(int32_t type, const void *src, int64_t n, float *dst) {
    int64_t i = 0;
    if (type == RT_F32) {
        if ((const void *)dst != src) memmove(dst, src, (size_t)n * sizeof(float));
        return;
    }
    if (type == RT_BF16) {
        const uint16_t *s = src;
#if defined(RT_OPT_AVX2)
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                                _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(s + i))), 16));
#endif
        for (; i < n; i++) {
            uint32_t u = (uint32_t)s[i] << 16;
            memcpy(dst + i, &u, sizeof u);
        }
        return;
    }
#if defined(RT_OPT_AVX2) && defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)((const uint16_t *)src + i))));
#endif
    for (; i < n; i++) dst[i] = rt_f16_to_f32(((const uint16_t *)src)[i]);
}

void rt_opt_from_f32(const float *src, int64_t n, int32_t type, void *dst) {
    int64_t i = 0;
    uint16_t *d = dst;
    if (type == RT_F32) {
        if ((const void *)src != dst) memmove(dst, src, (size_t)n * sizeof(float));
        return;
    }
    if (type == RT_BF16) {
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
        for (; i + 16 <= n; i += 16)
            _mm256_storeu_si256((__m256i *)(void *)(d + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(src + i)));
#elif defined(RT_OPT_AVX2)
        for (; i + 16 <= n; i += 16) { /* two rounded vectors' high halves, packed (packus works per 128 bits) */
            __m256i lo = _mm256_srli_epi32(rt_round8_bf16(_mm256_loadu_ps(src + i)), 16);
            __m256i hi = _mm256_srli_epi32(rt_round8_bf16(_mm256_loadu_ps(src + i + 8)), 16);
            _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8));
        }
#endif
        for (; i < n; i++) d[i] = rt_f32_to_bf16(src[i]);
        return;
    }
#if defined(RT_OPT_AVX2) && defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(d + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; i < n; i++) d[i] = rt_f32_to_f16(src[i]);
}

void rt_opt_gather_f32(int32_t type, const void *x, int64_t s, int64_t n, float *dst) {
    int64_t l;
    if (type == RT_F32) {
        const float *f = x;
        for (l = 0; l < n; l++) dst[l] = f[l * s];
    } else if (s == 1) {
        rt_opt_to_f32(type, x, n, dst);
    } else if (type == RT_BF16) {
        const uint16_t *h = x;
        for (l = 0; l < n; l++) {
            uint32_t u = (uint32_t)h[l * s] << 16;
            memcpy(dst + l, &u, sizeof u);
        }
    } else {
        const uint16_t *h = x;
        for (l = 0; l < n; l++) dst[l] = rt_f16_to_f32(h[l * s]);
    }
}

typedef struct binary_ctx {
    const rt_binary_params *p;
    int32_t op, ta, tb, to;
    const void *a, *b;
    void *out;
} binary_ctx;

static void binary_run(void *v, int64_t off1, int64_t s1, int64_t off2, int64_t s2, int64_t out_off, int64_t inner) {
    const binary_ctx *c = v;
    const rt_binary_params *p = c->p;
    float x[CHUNK], y[CHUNK];
    int64_t i0, i;
    for (i0 = 0; i0 < inner; i0 += CHUNK) {
        int64_t n = inner - i0 < CHUNK ? inner - i0 : CHUNK;
        rt_opt_gather_f32(c->ta, at(c->a, c->ta, off1 + i0 * s1), s1, n, x);
        rt_opt_gather_f32(c->tb, at(c->b, c->tb, off2 + i0 * s2), s2, n, y);
        switch (c->op) {
        case RT_OPT_BIN_ADD:
            for (i = 0; i < n; i++) x[i] = rt_clamp_f32(x[i] + y[i], p->act_min, p->act_max);
            break;
        case RT_OPT_BIN_SUB:
            for (i = 0; i < n; i++) x[i] = rt_clamp_f32(x[i] - y[i], p->act_min, p->act_max);
            break;
        case RT_OPT_BIN_MUL:
            for (i = 0; i < n; i++) x[i] = rt_clamp_f32(x[i] * y[i], p->act_min, p->act_max);
            break;
        default:
            for (i = 0; i < n; i++) x[i] = (x[i] - y[i]) * (x[i] - y[i]);
            break;
        }
        rt_opt_from_f32(x, n, c->to, (char *)c->out + (out_off + i0) * esize(c->to));
    }
}

void rt_opt_binary_typed(const rt_binary_params *p, int32_t op, int32_t ta, const void *a, int32_t tb, const void *b,
                         int32_t to, void *out) {
    binary_ctx c;
    c.p = p, c.op = op, c.ta = ta, c.tb = tb, c.to = to, c.a = a, c.b = b, c.out = out;
    rt_opt_bcast_runs(&p->bc, binary_run, &c);
}

void rt_opt_gelu_typed(const rt_act_params *p, int32_t ti, const void *in, int32_t to, void *out) {
    float buf[CHUNK];
    rt_act_params q = *p;
    int64_t i0;
    for (i0 = 0; i0 < p->n; i0 += CHUNK) {
        const float *src = buf;
        q.n = p->n - i0 < CHUNK ? p->n - i0 : CHUNK;
        if (ti == RT_F32) src = (const float *)in + i0; /* f32 in (the FC before it writes f32 under bf16): no copy */
        else rt_opt_to_f32(ti, at(in, ti, i0), q.n, buf);
        /* bf16 out: rt_opt_gelu_f32_bf16's erf, accurate to bf16, where it is built; else f32's, rounded */
        if (to == RT_BF16 && rt_opt_gelu_f32_bf16(&q, src, (uint16_t *)out + i0)) continue;
        rt_opt_gelu_f32(&q, src, buf);
        rt_opt_from_f32(buf, q.n, to, (char *)out + i0 * esize(to));
    }
}

void rt_opt_layer_norm_typed(const rt_opt_ln_params *p, int32_t tx, const void *x, const float *gamma,
                             const float *beta, int32_t ty, void *y, float *scratch) {
    rt_opt_ln_params q = *p;
    int32_t r;
    q.rows = 1;
    for (r = 0; r < p->rows; r++) {
        rt_opt_to_f32(tx, at(x, tx, (int64_t)r * p->cols), p->cols, scratch);
        rt_opt_layer_norm_f32(&q, scratch, gamma, beta, scratch);
        rt_opt_from_f32(scratch, p->cols, ty, (char *)y + (int64_t)r * p->cols * esize(ty));
    }
}

/* FULLY_CONNECTED with 16-bit weights and 16-bit A and/or C, in blocks of
 * rows: RT_OPT_TYPED_ROWS rows when A is f32 or, bf16 against bf16 weights
 * with AVX512-BF16, taken as it is by rt_opt_fc_bf16_rows (the rows are the
 * micro-kernel's pairs); otherwise WIDEN_ROWS rows widened into scratch for
 * rt_opt_fc_half (fewer rows: the widened copy and rt_opt_fc_half's own
 * rounded copy of them stay small for deep layers). A 16-bit C is made COLS
 * columns (whole panel pairs) at a time in scratch and rounded there. With
 * f32 A and C it is rt_opt_fc_half itself. */
#define COLS 256
#define WIDEN_ROWS 8
static int64_t block_rows(int32_t m) { return m < RT_OPT_TYPED_ROWS ? m : RT_OPT_TYPED_ROWS; }
static int64_t widen_rows(int32_t m) { return m < WIDEN_ROWS ? m : WIDEN_ROWS; }
static int64_t block_cols(int32_t n) { return n < COLS ? n : COLS; }
static int64_t align64(int64_t n) { return (n + 63) / 64 * 64; }

/* Scratch: A's block (widened rows, or an odd K's bf16 pairs), C's block, rt_opt_fc_half's scratch. */
static int64_t a_bytes(int32_t ta, int32_t m, int32_t k) {
    int64_t wide = widen_rows(m) * k * 4, pairs = k & 1 ? block_rows(m) * ((k + 1) / 2) * 4 : 0;
    return ta == RT_F32 ? 0 : align64(wide > pairs ? wide : pairs);
}

int64_t rt_opt_fc_typed_scratch(int32_t type, int32_t ta, int32_t tc, int32_t m, int32_t n, int32_t k) {
    if (ta == RT_F32 && tc == RT_F32) return rt_opt_fc_half_scratch(type, m, n, k);
    return a_bytes(ta, m, k) + align64(tc != RT_F32 ? block_rows(m) * block_cols(n) * 4 : 0) +
           rt_opt_fc_half_scratch(type, (int32_t)(ta == RT_F32 ? block_rows(m) : widen_rows(m)), n, k);
}

void rt_opt_fc_typed(const rt_opt_gemm_params *p, int32_t type, int32_t ta, const void *a, const uint16_t *packed_b,
                     const float *bias, int32_t tc, void *c, void *scratch) {
    const int64_t cols = tc == RT_F32 ? p->n : block_cols(p->n), k2 = (p->k + 1) / 2;
    const int direct16 = ta == RT_BF16 && type == RT_BF16 && rt_opt_fc_bf16_rows(NULL, NULL, NULL, NULL, NULL, NULL);
    const int64_t r = ta == RT_F32 || direct16 ? block_rows(p->m) : widen_rows(p->m);
    float *wa = scratch, *wc = (float *)(void *)((char *)scratch + a_bytes(ta, p->m, p->k));
    void *rest = (char *)wc + align64(tc != RT_F32 ? block_rows(p->m) * block_cols(p->n) * 4 : 0);
    int64_t i0, j0, i;
    rt_opt_gemm_params q = *p;
    q.slot_bytes = p->slot_bytes - ((char *)rest - (char *)scratch); /* rt_opt_fc_half's room */
    if (ta == RT_F32 && tc == RT_F32) {
        rt_opt_fc_half(p, type, a, packed_b, bias, c, scratch);
        return;
    }
    /* f32 A, bf16 weights and C: A's rows rounded into pairs, C rounded by the micro-kernel as it stores (only
     * where the build rounds f32 inputs: else the f32 arithmetic below, then C rounded) */
    if (ta == RT_F32 && type == RT_BF16 && tc == RT_BF16 && rt_opt_half_rounds_inputs(RT_BF16) &&
        rt_opt_fc_bf16_to(p, a, packed_b, bias, c, tc, rest))
        return;
    for (i0 = 0; i0 < p->m; i0 += r) {
        int64_t rows = p->m - i0 < r ? p->m - i0 : r;
        const void *ab = at(a, ta, i0 * p->lda);
        q.m = (int32_t)rows;
        q.lda = p->lda;
        if (ta != RT_F32 && !direct16) {
            for (i = 0; i < rows; i++) rt_opt_to_f32(ta, at(a, ta, (i0 + i) * p->lda), p->k, wa + i * p->k);
            ab = wa;
            q.lda = p->k;
        }
        if (direct16 && (tc == RT_F32 || tc == RT_BF16)) { /* C stored by the micro-kernel, bf16 rounded there */
            q.n = p->n;
            q.ldc = p->ldc;
            rt_opt_fc_bf16_rows_to(&q, ab, packed_b, bias, (char *)c + i0 * p->ldc * esize(tc), tc, wa);
            continue;
        }
        for (j0 = 0; j0 < p->n; j0 += cols) {
            float *cb = (float *)(void *)((char *)c + (i0 * p->ldc + j0) * esize(tc));
            q.n = (int32_t)(p->n - j0 < cols ? p->n - j0 : cols);
            q.ldc = p->ldc;
            if (tc != RT_F32) {
                cb = wc;
                q.ldc = q.n;
            }
            /* columns j0.. are panels j0 / NR.. ([N / NR][k2][NR][2] halves) */
            if (direct16) rt_opt_fc_bf16_rows(&q, ab, packed_b + j0 * k2 * 2, bias + j0, cb, wa);
#if defined(RT_OPT_HALF_F32_AVX2) || defined(RT_OPT_HALF_F32_A64)
            /* 16-bit storage, f32 arithmetic: A read as it is (widened, or f32), no rounded copy */
            else if (RT_OPT_FC_HALF_F32(&q, type, ab, packed_b + j0 * k2 * 2, bias + j0, cb)) {
            }
#endif
            else rt_opt_fc_half(&q, type, ab, packed_b + j0 * k2 * 2, bias + j0, cb, rest);
            if (tc != RT_F32)
                for (i = 0; i < rows; i++)
                    rt_opt_from_f32(wc + i * q.n, q.n, tc, (char *)c + ((i0 + i) * p->ldc + j0) * esize(tc));
        }
    }
}
