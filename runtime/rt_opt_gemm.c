/* rt_opt_gemm.c - packed-weight GEMM micro-kernels (f32 FMA, int8 VNNI) with
 * fused epilogues (bias, clamp, TFLite requantization), and convolution as
 * GEMM over im2col row blocks. See rt_opt.h for layouts. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(__GNUC__) && !defined(RT_OPT_SCALAR)
#define RT_OPT_VEC 1
typedef float rt_v8f __attribute__((vector_size(32)));
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512F__)
#define RT_OPT_VNNI 1
#endif
#if defined(__FMA__) || defined(RT_OPT_VNNI)
#include <immintrin.h>
#endif
#endif

#define MR_F32 6
#define NR RT_OPT_NR

const char *rt_opt_isa(void) {
#if defined(RT_OPT_VNNI)
    return "vector-extensions+fma+avx512-vnni";
#elif defined(RT_OPT_VEC) && defined(__FMA__)
    return "vector-extensions+fma";
#elif defined(RT_OPT_VEC)
    return "vector-extensions";
#else
    return "scalar";
#endif
}

/* ---- f32 ------------------------------------------------------------- */

#if defined(RT_OPT_VEC)
/* Unaligned vector load/store (macros: no vector values cross a call ABI). */
#define LD8(v, p) memcpy(&(v), (p), sizeof(rt_v8f))
#define ST8(p, v) memcpy((p), &(v), sizeof(rt_v8f))
#if defined(__FMA__)
#define FMA8(acc, b, s) ((acc) = (rt_v8f)_mm256_fmadd_ps((__m256)(b), _mm256_set1_ps(s), (__m256)(acc)))
#else
#define FMA8(acc, b, s) ((acc) += (b) * (s))
#endif

/* C[0..mr)[0..nr) = clamp(bias + A[0..mr) . panel); MR_F32 x 16 in registers. */
static void ukr_f32(int32_t k, const float *a, int32_t lda, int32_t mr, const float *b, const float *bias, float lo,
                    float hi, float *c, int32_t ldc, int32_t nr) {
    const float *a0 = a, *a1 = a + (mr > 1 ? lda : 0), *a2 = a + (mr > 2 ? 2 * lda : 0);
    const float *a3 = a + (mr > 3 ? 3 * lda : 0), *a4 = a + (mr > 4 ? 4 * lda : 0), *a5 = a + (mr > 5 ? 5 * lda : 0);
    rt_v8f c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, b0, b1;
    int32_t kk, r, j;
    LD8(c00, bias);
    LD8(c01, bias + 8);
    c10 = c20 = c30 = c40 = c50 = c00;
    c11 = c21 = c31 = c41 = c51 = c01;
    for (kk = 0; kk < k; kk++) {
        LD8(b0, b);
        LD8(b1, b + 8);
        b += NR;
        FMA8(c00, b0, a0[kk]);
        FMA8(c01, b1, a0[kk]);
        FMA8(c10, b0, a1[kk]);
        FMA8(c11, b1, a1[kk]);
        FMA8(c20, b0, a2[kk]);
        FMA8(c21, b1, a2[kk]);
        FMA8(c30, b0, a3[kk]);
        FMA8(c31, b1, a3[kk]);
        FMA8(c40, b0, a4[kk]);
        FMA8(c41, b1, a4[kk]);
        FMA8(c50, b0, a5[kk]);
        FMA8(c51, b1, a5[kk]);
    }
    {
        float t[MR_F32][NR];
        ST8(t[0], c00);
        ST8(t[0] + 8, c01);
        ST8(t[1], c10);
        ST8(t[1] + 8, c11);
        ST8(t[2], c20);
        ST8(t[2] + 8, c21);
        ST8(t[3], c30);
        ST8(t[3] + 8, c31);
        ST8(t[4], c40);
        ST8(t[4] + 8, c41);
        ST8(t[5], c50);
        ST8(t[5] + 8, c51);
        for (r = 0; r < mr; r++) {
            for (j = 0; j < NR; j++) {
                float v = t[r][j];
                v = v < lo ? lo : v;
                t[r][j] = v > hi ? hi : v;
            }
            memcpy(c + (int64_t)r * ldc, t[r], sizeof(float) * (size_t)nr);
        }
    }
}
#else
static void ukr_f32(int32_t k, const float *a, int32_t lda, int32_t mr, const float *b, const float *bias, float lo,
                    float hi, float *c, int32_t ldc, int32_t nr) {
    float acc[MR_F32][NR];
    int32_t r, j, kk;
    for (r = 0; r < mr; r++)
        for (j = 0; j < NR; j++) acc[r][j] = bias[j];
    for (kk = 0; kk < k; kk++)
        for (r = 0; r < mr; r++) {
            float s = a[(int64_t)r * lda + kk];
            for (j = 0; j < NR; j++) acc[r][j] += s * b[(int64_t)kk * NR + j];
        }
    for (r = 0; r < mr; r++)
        for (j = 0; j < nr; j++) c[(int64_t)r * ldc + j] = rt_clamp_f32(acc[r][j], lo, hi);
}
#endif

void rt_opt_gemm_f32(const rt_opt_gemm_params *p, const float *a, const float *packed_b, const float *bias, float *c) {
    int32_t j, i;
    /* Panel-outer: one packed panel (K x 16) stays in cache while all rows
     * of A stream past it. */
    for (j = 0; j * NR < p->n; j++) {
        const float *bp = packed_b + (int64_t)j * p->k * NR;
        int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        for (i = 0; i < p->m; i += MR_F32)
            ukr_f32(p->k, a + (int64_t)i * p->lda, p->lda, p->m - i < MR_F32 ? p->m - i : MR_F32, bp, bias + j * NR,
                    p->act_min, p->act_max, c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
    }
}

/* ---- int8 ------------------------------------------------------------ */

#define MR_S8 8

static void requant_row(const rt_opt_gemm_params *p, const int32_t *acc, const int32_t *bias, const int32_t *mult,
                        const int32_t *shift, int8_t *out, int32_t nr) {
    int32_t v[NR], j;
    if (p->rounding == RT_OPT_ROUND_SINGLE) {
        for (j = 0; j < NR; j++) v[j] = rq_single((int32_t)((uint32_t)acc[j] + (uint32_t)bias[j]), mult[j], shift[j]);
    } else {
        for (j = 0; j < NR; j++) v[j] = rq_double((int32_t)((uint32_t)acc[j] + (uint32_t)bias[j]), mult[j], shift[j]);
    }
    for (j = 0; j < NR; j++) {
        int32_t y = v[j] + p->out_offset;
        v[j] = y < p->act_qmin ? p->act_qmin : (y > p->act_qmax ? p->act_qmax : y);
    }
    for (j = 0; j < nr; j++) out[j] = (int8_t)v[j];
}

/* acc[r][0..16) = sum_k (A[r][k] + 128) * panel[k][..] for r < mr (wrapping). */
#if defined(RT_OPT_VNNI)
static void ukr_s8(int32_t k, const int8_t *a, int32_t lda, int32_t mr, const int8_t *b, int32_t acc[MR_S8][NR]) {
    const int8_t *ar[MR_S8];
    __m512i c[MR_S8];
    int32_t r, kk, k4 = k / 4;
    for (r = 0; r < MR_S8; r++) {
        ar[r] = a + (int64_t)(r < mr ? r : mr - 1) * lda;
        c[r] = _mm512_setzero_si512();
    }
    for (kk = 0; kk < k4; kk++) {
        __m512i bv = _mm512_loadu_si512((const void *)(b + (int64_t)kk * 64));
        for (r = 0; r < MR_S8; r++) {
            int32_t w;
            memcpy(&w, ar[r] + 4 * kk, 4);
            c[r] = _mm512_dpbusd_epi32(c[r], _mm512_set1_epi32(w ^ (int32_t)0x80808080u), bv);
        }
    }
    if (k % 4) {
        __m512i bv = _mm512_loadu_si512((const void *)(b + (int64_t)k4 * 64));
        for (r = 0; r < MR_S8; r++) {
            uint8_t t[4] = {0x80, 0x80, 0x80, 0x80}; /* padded taps meet zero weights */
            int32_t w;
            memcpy(t, ar[r] + 4 * k4, (size_t)(k % 4));
            memcpy(&w, t, 4);
            c[r] = _mm512_dpbusd_epi32(c[r], _mm512_set1_epi32(w ^ (int32_t)0x80808080u), bv);
        }
    }
    for (r = 0; r < mr; r++) _mm512_storeu_si512((void *)acc[r], c[r]);
}
#else
static void ukr_s8(int32_t k, const int8_t *a, int32_t lda, int32_t mr, const int8_t *b, int32_t acc[MR_S8][NR]) {
    uint32_t u[MR_S8][NR];
    int32_t r, j, kk;
    for (r = 0; r < mr; r++)
        for (j = 0; j < NR; j++) u[r][j] = 0;
    for (kk = 0; kk < k; kk++) {
        const int8_t *bk = b + (int64_t)(kk / 4) * NR * 4 + kk % 4;
        for (r = 0; r < mr; r++) {
            int32_t s = (int32_t)a[(int64_t)r * lda + kk] + 128;
            for (j = 0; j < NR; j++) u[r][j] += (uint32_t)(s * (int32_t)bk[4 * j]);
        }
    }
    for (r = 0; r < mr; r++)
        for (j = 0; j < NR; j++) acc[r][j] = (int32_t)u[r][j];
}
#endif

void rt_opt_gemm_s8(const rt_opt_gemm_params *p, const int8_t *a, const int8_t *packed_b, const int32_t *bias,
                    int8_t *c) {
    int32_t j, i, r, kp = (p->k + 3) / 4 * 4;
    int32_t acc[MR_S8][NR];
    for (j = 0; j * NR < p->n; j++) {
        const int8_t *bp = packed_b + (int64_t)j * kp * NR;
        int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        for (i = 0; i < p->m; i += MR_S8) {
            int32_t mr = p->m - i < MR_S8 ? p->m - i : MR_S8;
            ukr_s8(p->k, a + (int64_t)i * p->lda, p->lda, mr, bp, acc);
            for (r = 0; r < mr; r++)
                requant_row(p, acc[r], bias + j * NR, p->mult + j * NR, p->shift + j * NR,
                            c + (int64_t)(i + r) * p->ldc + j * NR, nr);
        }
    }
}

/* ---- convolution as GEMM ---------------------------------------------- */

/* Gathers patch rows m0..m0+rows of image `in` into `dst` (rows x K). */
#define IM2COL(T, fill)                                                                                         \
    do {                                                                                                        \
        int32_t r_, fy_, fx_, c_;                                                                               \
        for (r_ = 0; r_ < rows; r_++) {                                                                         \
            int32_t oy_ = (m0 + r_) / p->out_w, ox_ = (m0 + r_) % p->out_w;                                     \
            T *d_ = dst + (int64_t)r_ * kdim;                                                                   \
            for (fy_ = 0; fy_ < p->filter_h; fy_++) {                                                           \
                int32_t y_ = oy_ * p->stride_h - p->pad_h + fy_ * p->dil_h;                                     \
                for (fx_ = 0; fx_ < p->filter_w; fx_++, d_ += p->in_c) {                                        \
                    int32_t x_ = ox_ * p->stride_w - p->pad_w + fx_ * p->dil_w;                                 \
                    if (y_ < 0 || y_ >= p->in_h || x_ < 0 || x_ >= p->in_w) {                                   \
                        for (c_ = 0; c_ < p->in_c; c_++) d_[c_] = (fill);                                       \
                    } else {                                                                                    \
                        memcpy(d_, in + ((int64_t)y_ * p->in_w + x_) * p->in_c, sizeof(T) * (size_t)p->in_c); \
                    }                                                                                           \
                }                                                                                               \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)

void rt_opt_conv_f32(const rt_opt_conv_params *p, const float *in_all, const float *packed_b, const float *bias,
                     float *out_all, void *scratch) {
    int32_t b, m0, mimg = p->out_h * p->out_w, kdim = p->gemm.k, oc = p->gemm.n;
    rt_opt_gemm_params g = p->gemm;
    float *dst = (float *)scratch;
    for (b = 0; b < p->batches; b++) {
        const float *in = in_all + (int64_t)b * p->in_h * p->in_w * p->in_c;
        float *out = out_all + (int64_t)b * mimg * oc;
        if (p->direct) {
            g.m = mimg;
            g.lda = p->in_c;
            rt_opt_gemm_f32(&g, in, packed_b, bias, out);
            continue;
        }
        for (m0 = 0; m0 < mimg; m0 += p->rows) {
            int32_t rows = mimg - m0 < p->rows ? mimg - m0 : p->rows;
            IM2COL(float, 0.0f);
            g.m = rows;
            g.lda = kdim;
            rt_opt_gemm_f32(&g, dst, packed_b, bias, out + (int64_t)m0 * oc);
        }
    }
}

void rt_opt_conv_s8(const rt_opt_conv_params *p, const int8_t *in_all, const int8_t *packed_b, const int32_t *bias,
                    int8_t *out_all, void *scratch) {
    int32_t b, m0, mimg = p->out_h * p->out_w, kdim = p->gemm.k, oc = p->gemm.n;
    rt_opt_gemm_params g = p->gemm;
    int8_t *dst = (int8_t *)scratch;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in = in_all + (int64_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out = out_all + (int64_t)b * mimg * oc;
        if (p->direct) {
            g.m = mimg;
            g.lda = p->in_c;
            rt_opt_gemm_s8(&g, in, packed_b, bias, out);
            continue;
        }
        for (m0 = 0; m0 < mimg; m0 += p->rows) {
            int32_t rows = mimg - m0 < p->rows ? mimg - m0 : p->rows;
            IM2COL(int8_t, (int8_t)p->pad_value);
            g.m = rows;
            g.lda = kdim;
            rt_opt_gemm_s8(&g, dst, packed_b, bias, out + (int64_t)m0 * oc);
        }
    }
}
