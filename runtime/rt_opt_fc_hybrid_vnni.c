/* rt_opt_fc_hybrid_vnni.c - the hybrid FULLY_CONNECTED's several input rows (prefill) on AVX512-VNNI: the
 * int32 dots of every input row with 32 weight rows at a time as a GEMM, one vpdpbusd per 64 products.
 * The weights are stored [out][in] (the decode GEMV streams them so); each block of 32 rows is transposed
 * here into the int8 GEMM's panel layout ([2][K / 4][16][4]: a 16x16 transpose of 4-byte quads per 64
 * inputs, in L1) and multiplied by rt_opt_scores_s8, which adds 128 to the quantized inputs (vpdpbusd's
 * unsigned operand); the block's bias, -128 x each row's weight sum (taken from the packed vectors by one
 * more vpdpbusd on ones), takes the 128 back. Every sum is exact int32 arithmetic (wrapping), so the dots
 * equal rt_opt_fc_hybrid's and the reference's. */
#include <math.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_S8_VNNI)

/* 16 weight rows (k_stride bytes apart, K bytes each) from w as one panel of kq16 quads (K padded with
 * zeros to 4 kq16 bytes, kq16 a multiple of 16) at dst; colsum[c] += the sum of row c's bytes. */
static void pack_panel(const int8_t *w, int64_t k_stride, int32_t K, int32_t kq16, int8_t *dst, __m512i *colsum) {
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i cs = *colsum;
    int32_t k0, r, j, g;
    for (k0 = 0; k0 < 4 * kq16; k0 += 64) {
        const __mmask64 m = K - k0 >= 64 ? ~(__mmask64)0 : K > k0 ? ((__mmask64)1 << (K - k0)) - 1 : 0;
        __m512i v[16], a[16];
        for (r = 0; r < 16; r++) v[r] = _mm512_maskz_loadu_epi8(m, (const void *)(w + r * k_stride + k0));
        /* rows 2i, 2i + 1 interleaved by quads, then rows 4g..4g+3: b[4g + j] holds in its 128-bit lane L quad
         * 4L + j of rows 4g..4g+3 */
        for (r = 0; r < 16; r += 2) {
            a[r] = _mm512_unpacklo_epi32(v[r], v[r + 1]);
            a[r + 1] = _mm512_unpackhi_epi32(v[r], v[r + 1]);
        }
        for (g = 0; g < 16; g += 4) {
            v[g] = _mm512_unpacklo_epi64(a[g], a[g + 2]);
            v[g + 1] = _mm512_unpackhi_epi64(a[g], a[g + 2]);
            v[g + 2] = _mm512_unpacklo_epi64(a[g + 1], a[g + 3]);
            v[g + 3] = _mm512_unpackhi_epi64(a[g + 1], a[g + 3]);
        }
        /* quad 4L + j of all 16 rows: lane L of v[j], v[4 + j], v[8 + j], v[12 + j] */
        for (j = 0; j < 4; j++) {
            const __m512i c0 = _mm512_shuffle_i32x4(v[j], v[4 + j], 0x44), c1 = _mm512_shuffle_i32x4(v[j], v[4 + j], 0xEE);
            const __m512i c2 = _mm512_shuffle_i32x4(v[8 + j], v[12 + j], 0x44),
                          c3 = _mm512_shuffle_i32x4(v[8 + j], v[12 + j], 0xEE);
            const __m512i o[4] = {_mm512_shuffle_i32x4(c0, c2, 0x88), _mm512_shuffle_i32x4(c0, c2, 0xDD),
                                  _mm512_shuffle_i32x4(c1, c3, 0x88), _mm512_shuffle_i32x4(c1, c3, 0xDD)};
            int L;
            for (L = 0; L < 4; L++) {
                _mm512_storeu_si512((void *)(dst + (int64_t)(k0 / 4 + 4 * L + j) * 64), o[L]);
                cs = _mm512_dpbusd_epi32(cs, ones, o[L]);
            }
        }
    }
    *colsum = cs;
}

/* rt_hybrid_quantize_row's results (rt_hybrid_common.c: TFLite's x86 quantizer), 16 values a step: the range
 * by vector min / max (NaN ignored as the scalar compares do), the same scale and zero point, each product
 * x * inv rounded to float, then trunc(p +- 0.5f) for the whole groups of 8 (the reference's to_i32 bounds:
 * +-1024, NaN low) and roundf for the rest; q padded with zeros to kp. */
void rt_opt_hybrid_quantize_row_vnni(const float *x, int32_t n, int32_t asymmetric, int8_t *q, int64_t kp, float *scale,
                                     int32_t *zp) {
    const int32_t vec_end = n / 8 * 8;
    int32_t i = 0, z = 0, lo = -127;
    float inv;
    __m512 vmn = _mm512_set1_ps(asymmetric || n == 0 ? 0.0f : x[0]), vmx = vmn;
    for (; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        const __m512 v = _mm512_mask_loadu_ps(vmn, m, x + i); /* lanes past n: the running minimum, no effect */
        vmn = _mm512_min_ps(v, vmn), vmx = _mm512_max_ps(_mm512_mask_mov_ps(vmx, m, v), vmx);
    }
    {
        const float mn = _mm512_reduce_min_ps(vmn), mx = _mm512_reduce_max_ps(vmx);
        if (!asymmetric) {
            const float range = fabsf(mn) > fabsf(mx) ? fabsf(mn) : fabsf(mx);
            if (range == 0.0f || mn != mn) { /* zero (or a NaN first value): the scalar quantizer's rules */
                rt_hybrid_quantize_row(x, n, asymmetric, q, scale, zp);
                memset(q + n, 0, (size_t)(kp - n));
                return;
            }
            *scale = range / 127.0f;
            inv = 127.0f / range;
        } else {
            double s, from_min, from_max, zz;
            if (mn == mx) {
                rt_hybrid_quantize_row(x, n, asymmetric, q, scale, zp);
                memset(q + n, 0, (size_t)(kp - n));
                return;
            }
            s = (double)(mx - mn) / 255.0;
            from_min = -128.0 - mn / s;
            from_max = 127.0 - mx / s;
            zz = 128.0 + fabs(mn / s) < 127.0 + fabs(mx / s) ? from_min : from_max;
            z = zz <= -128.0 ? -128 : zz >= 127.0 ? 127 : (int32_t)round(zz);
            *scale = (float)s;
            inv = (float)(1.0 / (double)*scale);
            lo = -128;
        }
    }
    *zp = z;
    {
        const __m512 vinv = _mm512_set1_ps(inv), half = _mm512_set1_ps(0.5f), mhalf = _mm512_set1_ps(-0.5f);
        const __m512 flo = _mm512_set1_ps(-1024.0f), fhi = _mm512_set1_ps(1024.0f);
        const __m512i vz = _mm512_set1_epi32(z), vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(127);
        for (i = 0; i < vec_end; i += 16) {
            const __mmask16 m = vec_end - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)0xFF;
            __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), vinv), t;
            __asm__("" : "+v"(p)); /* rounded before the +-0.5 */
            t = _mm512_add_ps(p, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(p, _mm512_setzero_ps(), _CMP_LT_OQ), half, mhalf));
            t = _mm512_min_ps(_mm512_max_ps(t, flo), fhi); /* NaN: max_ps gives its second operand, -1024 */
            _mm512_mask_cvtepi32_storeu_epi8(q + i, m,
                                             _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(t), vz), vlo), vhi));
        }
    }
    for (i = vec_end; i < n; i++) {
        const float p = x[i] * inv, r = roundf(p);
        const int32_t t = !(r > -1024.0f) ? -1024 : r > 1024.0f ? 1024 : (int32_t)r;
        const int32_t v = t + z;
        q[i] = (int8_t)(v < lo ? lo : v > 127 ? 127 : v);
    }
    memset(q + n, 0, (size_t)(kp - n));
}

int32_t rt_opt_fc_hybrid_vnni(int32_t B, int32_t K, int32_t N, const int8_t *x8, int64_t kp, const int8_t *w,
                              int32_t *c, void *scratch) {
    const int32_t kq16 = (K + 63) / 64 * 16, n32 = N / 32 * 32;
    int8_t *packed = (int8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    int32_t *bias = (int32_t *)(void *)(packed + (int64_t)2 * kq16 * 64);
    int32_t n, h;
    for (n = 0; n < n32; n += 32) {
        for (h = 0; h < 2; h++) {
            __m512i cs = _mm512_setzero_si512();
            pack_panel(w + (int64_t)(n + 16 * h) * K, K, K, kq16, packed + (int64_t)h * kq16 * 64, &cs);
            _mm512_storeu_si512((void *)(bias + 16 * h), _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(cs, 7)));
        }
        if (n + 64 <= n32) { /* the next block into L2 while this one's GEMM runs (its packing stalled on DRAM) */
            const char *nb = (const char *)(w + (int64_t)(n + 32) * K);
            int64_t o;
            for (o = 0; o < (int64_t)32 * K; o += 64) _mm_prefetch(nb + o, _MM_HINT_T1);
        }
        rt_opt_scores_s8(B, 2, kq16, x8, (int32_t)kp, packed, bias, c + n, N);
    }
    return n32;
}

/* One input row (decode): dots c[n] = sum_k x8[k] w[n * K + k] for every n < N, four stored weight rows at a
 * time, 64 products per vpdpbusd on the row as + 128 bytes (xu: kp >= K rounded up to 64 bytes, zero-padded
 * as x8's + 128), the 128 taken back by the rows' sums (one more vpdpbusd on ones); prefetches the four rows
 * after next, four cache lines per 64 inputs. Memory-bound from DRAM: ~10% over the 16-bit AVX2 rows. */
void rt_opt_fc_hybrid_vnni_gemv(int32_t K, int32_t N, const uint8_t *xu, const int8_t *w, int32_t *c) {
    const __m512i ones = _mm512_set1_epi8(1);
    const int32_t kfull = K / 64 * 64;
    const __mmask64 mt = K > kfull ? ((__mmask64)1 << (K - kfull)) - 1 : 0;
    int32_t n, k;
    for (n = 0; n < N; n += 4) {
        const int nr = N - n < 4 ? N - n : 4;
        const int8_t *wn = w + (int64_t)n * K;
        const int8_t *pf = N - n - nr >= 8 ? wn + (int64_t)2 * nr * K : wn; /* past the weights: this block's */
        __m512i acc[4], sum[4];
        int r;
        for (r = 0; r < 4; r++) acc[r] = sum[r] = _mm512_setzero_si512();
        for (k = 0; k < kfull; k += 64) {
            const __m512i xv = _mm512_loadu_si512((const void *)(xu + k));
            _mm_prefetch((const char *)(pf + 4 * k), _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + 4 * k + 64), _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + 4 * k + 128), _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + 4 * k + 192), _MM_HINT_T0);
            for (r = 0; r < nr; r++) {
                const __m512i wv = _mm512_loadu_si512((const void *)(wn + (int64_t)r * K + k));
                acc[r] = _mm512_dpbusd_epi32(acc[r], xv, wv);
                sum[r] = _mm512_dpbusd_epi32(sum[r], ones, wv);
            }
        }
        if (mt) {
            const __m512i xv = _mm512_loadu_si512((const void *)(xu + k));
            for (r = 0; r < nr; r++) {
                const __m512i wv = _mm512_maskz_loadu_epi8(mt, (const void *)(wn + (int64_t)r * K + k));
                acc[r] = _mm512_dpbusd_epi32(acc[r], xv, wv);
                sum[r] = _mm512_dpbusd_epi32(sum[r], ones, wv);
            }
        }
        for (r = 0; r < nr; r++) c[n + r] = _mm512_reduce_add_epi32(_mm512_sub_epi32(acc[r], _mm512_slli_epi32(sum[r], 7)));
    }
}

#endif
