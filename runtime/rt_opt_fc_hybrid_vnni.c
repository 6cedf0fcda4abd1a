/* rt_opt_fc_hybrid_vnni.c - the hybrid FULLY_CONNECTED's several input rows (prefill) on AVX512-VNNI: the
 * int32 dots of every input row with 32 weight rows at a time as a GEMM, one vpdpbusd per 64 products.
 * The weights are stored [out][in] (the decode GEMV streams them so); each block of 32 rows is transposed
 * here into the int8 GEMM's panel layout ([2][K / 4][16][4]: a 16x16 transpose of 4-byte quads per 64
 * inputs, in L1) and multiplied by rt_opt_scores_s8, which adds 128 to the quantized inputs (vpdpbusd's
 * unsigned operand); the block's bias, -128 x each row's weight sum (taken from the packed vectors by one
 * more vpdpbusd on ones), takes the 128 back. Every sum is exact int32 arithmetic (wrapping), so the dots
 * equal rt_opt_fc_hybrid's and the reference's. */
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
                _mm512_store_si512((void *)(dst + (int64_t)(k0 / 4 + 4 * L + j) * 64), o[L]);
                cs = _mm512_dpbusd_epi32(cs, ones, o[L]);
            }
        }
    }
    *colsum = cs;
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
            const __m512i xv = _mm512_load_si512((const void *)(xu + k));
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
            const __m512i xv = _mm512_load_si512((const void *)(xu + k));
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
