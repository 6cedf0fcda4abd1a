/* rt_opt_dwconv_vnni.c - int8 depthwise convolution (depth multiplier 1) on AVX512-VNNI, the kernel
 * rt_opt_dwconv.c's dw_s8_rows hands it to (rt_opt_dw_vnni_s8, declared in rt_opt_internal.h): four
 * taps summed per vpdpbusd, TFLite's requantization per lane; results equal the reference kernels. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_DW_VNNI)
/* Requantized int32 lanes with the output zero point (rq16_prepare_z), clamped to [lo, hi]. */
static inline __m512i dw_rq(__m512i acc, const rq16 *k, __m512i lo, __m512i hi) {
    return _mm512_min_epi32(_mm512_max_epi32(rq16_apply_zb(acc, k), lo), hi);
}

/* Byte lanes of four tap vectors (64 channels each) regrouped so each int32
 * lane holds one channel's four taps, as vpdpbusd multiplies them: q[j]'s
 * 128-bit lane L holds channels 16L + 4j .. 16L + 4j + 3 (the in-lane
 * unpacks' order; weights go through the same regrouping). */
static inline void dw_quads(__m512i t0, __m512i t1, __m512i t2, __m512i t3, __m512i q[4]) {
    __m512i a = _mm512_unpacklo_epi8(t0, t1), b = _mm512_unpackhi_epi8(t0, t1);
    __m512i c = _mm512_unpacklo_epi8(t2, t3), d = _mm512_unpackhi_epi8(t2, t3);
    q[0] = _mm512_unpacklo_epi16(a, c), q[1] = _mm512_unpackhi_epi16(a, c);
    q[2] = _mm512_unpacklo_epi16(b, d), q[3] = _mm512_unpackhi_epi16(b, d);
}

/* Per-channel int32 values in dw_quads' order: s[L] holds channels 16L .. 16L + 15 in natural
 * order, v[j] lane 4L + i gets channel 16L + 4j + i, i.e. v[j]'s 128-bit block L is s[L]'s
 * block j (a 4x4 transpose of 128-bit blocks). */
static inline void dw_perm(const __m512i s[4], __m512i v[4]) {
    const __m512i a = _mm512_shuffle_i32x4(s[0], s[1], 0x44), b = _mm512_shuffle_i32x4(s[0], s[1], 0xEE);
    const __m512i c = _mm512_shuffle_i32x4(s[2], s[3], 0x44), d = _mm512_shuffle_i32x4(s[2], s[3], 0xEE);
    v[0] = _mm512_shuffle_i32x4(a, c, 0x88), v[1] = _mm512_shuffle_i32x4(a, c, 0xDD);
    v[2] = _mm512_shuffle_i32x4(b, d, 0x88), v[3] = _mm512_shuffle_i32x4(b, d, 0xDD);
}

/* The lanes of the L-th group of 16 that hold one of n (<= 64) channels. */
static inline __mmask16 dw_mask16(int32_t n, int32_t L) {
    const int32_t m = n - 16 * L < 0 ? 0 : n - 16 * L > 16 ? 16 : n - 16 * L;
    return (__mmask16)((1u << m) - 1u);
}

/* The n (<= 64) int32 values at src as dw_perm's four natural-order vectors (zero past n). */
static inline void dw_load4(const int32_t *src, int32_t n, __m512i s[4]) {
    int32_t L;
    for (L = 0; L < 4; L++) s[L] = _mm512_maskz_loadu_epi32(dw_mask16(n, L), (const void *)(src + 16 * L));
}

/* dw_perm of natural-order vectors nat[] either as they are (C >= 64) or, for `pix` adjacent
 * pixels of C = 64 / pix channels in one vector, each lane 16L + l taking channel
 * (16L + l) mod C: block row L reads nat[(16L mod C) / 16]. */
static inline void dw_perm_rep(const __m512i nat[4], int32_t C, int32_t pix, __m512i v[4]) {
    __m512i r[4];
    int32_t L;
    for (L = 0; L < 4; L++) r[L] = nat[pix > 1 ? (16 * L % C) / 16 : L];
    if (pix > 1 && C == 8) /* lanes 8..15 repeat channels 0..7 */
        for (L = 0; L < 4; L++) r[L] = _mm512_shuffle_i64x2(r[L], r[L], 0x44);
    dw_perm(r, v);
}

/* One tap of dw3x3_body: 64 bytes at src (FULL), the lanes k, (GATHER) pixel j's 64 / pk bytes at
 * src + j step (step = skew + 64 / pk) into lanes [j 64 / pk, (j + 1) 64 / pk), or (S2: stride 2, 64 / lanes pixels) every other
 * `lanes` bytes of the 128 at src (the second 64 read up to the last pixel's last byte: mask m2);
 * then +128 (the vpdpbusd operand is unsigned). */
RT_OPT_INLINE __m512i dw3x3_tap(const int FULL, const int GATHER, const int S2, const int8_t *src, __mmask64 k,
                                int32_t pk, int64_t skew, __m512i flip, __m512i even, __mmask64 m2) {
    __m512i v;
    if (S2)
        v = _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)src), even,
                                      _mm512_maskz_loadu_epi8(m2, (const void *)(src + 64)));
    else if (GATHER) { /* plain 16- / 32-byte loads put in place, not masked merging loads */
        const int64_t st = skew + 64 / pk; /* one pixel's distance */
        if (pk == 4) {
            v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)src));
            v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(src + st)), 1);
            v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * st)), 2);
            v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(src + 3 * st)), 3);
        } else
            v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)src)),
                                   _mm256_loadu_si256((const __m256i *)(const void *)(src + st)), 1);
    }
    else
        v = FULL ? _mm512_loadu_si512((const void *)src) : _mm512_maskz_loadu_epi8(k, (const void *)src);
    return _mm512_xor_si512(v, flip);
}

/* A run of n output vectors of a 3x3 depthwise convolution whose taps all lie inside the image:
 * `px` the first one's top-left tap, `col` / `row` the distances of the next tap along a filter
 * row / to the next filter row, `step` (input) and `ostep` (output) from one vector to the next;
 * lanes `k` loaded and stored. Everything it reads is an argument or a local, so the loop keeps no
 * bounds checks, index multiplications or reloads of the parameters after the int8 stores
 * (per 64 outputs the pixel-by-pixel loop spent ~25 cycles on those, as many as on the taps).
 * GATHER: the vector holds pk pixels of the last channel group of `lanes` = 16 or 32 channels
 * (C = 144, 96, ...), pixel j's bytes per tap moved into lanes [j lanes, (j + 1) lanes) by a plain
 * 16- or 32-byte load and an insert, and stored back from an extract (`step` / `ostep` then one
 * pixel's distances), so that tail costs a quarter or half of a full group per pixel instead of a
 * whole one (masked merging loads and masked stores there had cost MobileNetV2 0.35 int8 ~3 %). */
RT_OPT_INLINE void dw3x3_body(const int FULL, const int CLAMP, const int GATHER, const int S2, const int8_t *px,
                              int64_t col,
                              int64_t row, int64_t step, int8_t *o, int64_t ostep, int32_t n, __mmask64 k, int32_t pk,
                              int32_t lanes, const __m512i w[][4], const __m512i vb[4], const rq16 kq[4], __m512i lo,
                              __m512i hi) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const rq16 k0 = kq[0], k1 = kq[1], k2 = kq[2], k3 = kq[3];
    const int64_t vstep = GATHER ? pk * step : step, vostep = GATHER ? pk * ostep : ostep;
    /* S2: the even `lanes`-byte blocks of two vectors (as qwords: 0, 2, .. 14 for 8 lanes) */
    const __m512i even = lanes == 8    ? _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0)
                         : lanes == 16 ? _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0)
                                       : _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const __mmask64 m2 = S2 ? ((__mmask64)1 << (64 - lanes)) - 1 : 0;
    int32_t i;
    for (i = 0; i < n; i++, px += vstep, o += vostep) {
        const int8_t *r1 = px + row, *r2 = px + 2 * row;
        __m512i a0 = vb[0], a1 = vb[1], a2 = vb[2], a3 = vb[3], q[4];
#define DW_T(src) dw3x3_tap(FULL, GATHER, S2, (src), k, pk, step - lanes, flip, even, m2)
#define DW_Q(j, t0, t1, t2, t3)                                                                                     \
    dw_quads(t0, t1, t2, t3, q);                                                                                    \
    RT_DPBUSD(a0, q[0], w[j][0]);                                                                                   \
    RT_DPBUSD(a1, q[1], w[j][1]);                                                                                   \
    RT_DPBUSD(a2, q[2], w[j][2]);                                                                                   \
    RT_DPBUSD(a3, q[3], w[j][3]);
        DW_Q(0, DW_T(px), DW_T(px + col), DW_T(px + 2 * col), DW_T(r1))
        DW_Q(1, DW_T(r1 + col), DW_T(r1 + 2 * col), DW_T(r2), DW_T(r2 + col))
        DW_Q(2, DW_T(r2 + 2 * col), flip, flip, flip) /* taps 9..11 have zero weights */
#undef DW_T
#undef DW_Q
        if (CLAMP)
            a0 = dw_rq(a0, &k0, lo, hi), a1 = dw_rq(a1, &k1, lo, hi), a2 = dw_rq(a2, &k2, lo, hi), a3 = dw_rq(a3, &k3, lo, hi);
        else /* the bounds are int8's: the saturating packs apply them */
            a0 = rq16_apply_z(a0, &k0), a1 = rq16_apply_z(a1, &k1), a2 = rq16_apply_z(a2, &k2), a3 = rq16_apply_z(a3, &k3);
        a0 = _mm512_packs_epi16(_mm512_packs_epi32(a0, a1), _mm512_packs_epi32(a2, a3));
        if (GATHER) {
            if (pk == 4) {
                _mm_storeu_si128((__m128i *)(void *)o, _mm512_castsi512_si128(a0));
                _mm_storeu_si128((__m128i *)(void *)(o + ostep), _mm512_extracti32x4_epi32(a0, 1));
                _mm_storeu_si128((__m128i *)(void *)(o + 2 * ostep), _mm512_extracti32x4_epi32(a0, 2));
                _mm_storeu_si128((__m128i *)(void *)(o + 3 * ostep), _mm512_extracti32x4_epi32(a0, 3));
            } else {
                _mm256_storeu_si256((__m256i *)(void *)o, _mm512_castsi512_si256(a0));
                _mm256_storeu_si256((__m256i *)(void *)(o + ostep), _mm512_extracti64x4_epi64(a0, 1));
            }
        }
        else if (FULL)
            _mm512_storeu_si512((void *)o, a0);
        else
            _mm512_mask_storeu_epi8((void *)o, k, a0);
    }
}

/* dw3x3_body for pk = 1 pixel per vector with all 64 lanes (plain loads and stores) or the lanes k, or
 * for pk > 1 pixels of `lanes` channels gathered; clamped to [qmin, qmax] unless those are int8's. */
static void dw3x3_run(const int8_t *px, int64_t col, int64_t row, int64_t step, int8_t *o, int64_t ostep, int32_t n,
                      __mmask64 k, int32_t pk, int32_t lanes, int32_t s2, const __m512i w[][4], const __m512i vb[4],
                      const rq16 kq[4], int32_t qmin, int32_t qmax) {
    const __m512i lo = _mm512_set1_epi32(qmin), hi = _mm512_set1_epi32(qmax);
    const int full = k == ~(__mmask64)0, clamp = qmin > -128 || qmax < 127;
#define DW3(F, C, G) dw3x3_body(F, C, G, 0, px, col, row, step, o, ostep, n, k, pk, lanes, w, vb, kq, lo, hi)
    if (s2) { /* stride 2: 64 / lanes pixels of `lanes` channels per vector, all 64 lanes */
        if (clamp) dw3x3_body(1, 1, 0, 1, px, col, row, step, o, ostep, n, k, 1, lanes, w, vb, kq, lo, hi);
        else dw3x3_body(1, 0, 0, 1, px, col, row, step, o, ostep, n, k, 1, lanes, w, vb, kq, lo, hi);
    } else if (pk > 1) {
        if (clamp) DW3(0, 1, 1);
        else DW3(0, 0, 1);
    } else if (full) {
        if (clamp) DW3(1, 1, 0);
        else DW3(1, 0, 0);
    } else {
        if (clamp) DW3(0, 1, 0);
        else DW3(0, 0, 0);
    }
#undef DW3
}

/* Depth multiplier 1 on 8-bit dot products: per output pixel and 64
 * channels, each quad of taps is regrouped (dw_quads) and summed by four
 * vpdpbusd on (x + 128) bytes; the +128 is taken back, and the input
 * offset added, through the bias: sum (x + off) w = sum (x + 128) w +
 * (off - 128) sum w. Taps outside the image read the input zero point
 * (x + off = 0), so every pixel sums all taps. Exact int32 sums (wrapping
 * like the reference's), TFLite requantization. */
void rt_opt_dw_vnni_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, fw = p->filter_w, taps = p->filter_h * fw, quads = (taps + 3) / 4;
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    int8_t zp[64];
    const int8_t *tp[4 * RT_OPT_DW_QUADS];
    int64_t toff[4 * RT_OPT_DW_QUADS];
    int32_t tdy[4 * RT_OPT_DW_QUADS], tdx[4 * RT_OPT_DW_QUADS];
    __m512i w[RT_OPT_DW_QUADS][4], vb[4], vm[4], vs[4], wt[RT_OPT_DW_QUADS][4], vbt[4], vmt[4], vst[4];
    rq16 kq[4], kqt[4];
    /* pixels per vector: with 8, 16 or 32 channels (the only C < 64 dw_s8_rows sends here) and stride
     * 1, adjacent pixels fill the 64 lanes; with stride 2 (3x3 runs only), every other pixel's */
    const int32_t s2 = p->stride_w == 2 && p->dil_w == 1 && taps == 9 && fw == 3 && C < 64 && 64 % C == 0;
    const int32_t pix = (p->stride_w == 1 || s2) && p->dil_w == 1 && C < 64 && 64 % C == 0 ? 64 / C : 1;
    const __m512i vlo = _mm512_set1_epi32(p->act_qmin), vhi = _mm512_set1_epi32(p->act_qmax);
    /* the last output column whose taps all lie inside the image's width */
    const int32_t ox_in = (p->in_w - 1 - (fw - 1) * p->dil_w + p->pad_w) >= 0
                              ? (p->in_w - 1 - (fw - 1) * p->dil_w + p->pad_w) / p->stride_w
                              : -1;
    int32_t c0, r, ox, t, j, i;
    memset(zp, (int)(int8_t)(-p->in_offset), sizeof zp);
    for (t = 0, j = 0, i = 0; t < 4 * quads; t++) { /* tap t: filter row j, column i (no division per tap) */
        tdy[t] = j * p->dil_h, tdx[t] = i * p->dil_w;
        toff[t] = t < taps ? ((int64_t)tdy[t] * p->in_w + tdx[t]) * C : 0;
        if (++i == fw) i = 0, j++;
    }
    for (c0 = 0; c0 < C; c0 += 64) {
        const int32_t n = C - c0 < 64 ? C - c0 : 64;
        const __mmask64 k = n == 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        /* a last group of 16 or 32 channels after full ones: pk pixels per vector (dw3x3_body GATHER) */
        const int32_t pk = c0 > 0 && (n == 16 || n == 32) && taps == 9 && fw == 3 ? 64 / n : 1;
        const int32_t rep = pix > 1 ? pix : pk; /* pixels per vector of the repeated constants */
        __m512i nat[3][4], tadd[4]; /* tadd: the repeated pixels' weight-sum term of vbt */
        for (j = 0; j < quads; j++) {
            __m512i tw[4], tt4[4];
            for (i = 0; i < 4; i++) {
                const int8_t *f = filter + (int64_t)(4 * j + i) * C;
                const int tap = 4 * j + i < taps;
                tw[i] = tap ? _mm512_maskz_loadu_epi8(k, (const void *)(f + c0)) : _mm512_setzero_si512();
                /* with `pix` pixels per vector: the tap's C weights repeated */
                tt4[i] = !tap || rep == 1 ? _mm512_setzero_si512()
                         : n == 8         ? _mm512_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(f + c0)))
                         : n == 16        ? _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)(f + c0)))
                                          : _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(const void *)(f + c0)));
            }
            dw_quads(tw[0], tw[1], tw[2], tw[3], w[j]);
            if (rep > 1) dw_quads(tt4[0], tt4[1], tt4[2], tt4[3], wt[j]);
            else
                for (i = 0; i < 4; i++) wt[j][i] = w[j][i]; /* (unused then) */
        }
        /* bias + (off - 128) * sum of the channel's weights, wrapping: the sums by vpdpbusd of ones and
         * the regrouped quads, already in their lanes' order (a load, widening and add per tap and 16
         * channels had cost ~100 operations a group of 64) */
        if (bias) dw_load4(bias + c0, n, nat[0]);
        else
            for (i = 0; i < 4; i++) nat[0][i] = _mm512_setzero_si512();
        dw_perm_rep(nat[0], C, 1, vb);
        for (i = 0; i < 4; i++) {
            const __m512i ones = _mm512_set1_epi8(1), off = _mm512_set1_epi32(p->in_offset - 128);
            __m512i ws = _mm512_setzero_si512(), wst = _mm512_setzero_si512();
            for (j = 0; j < quads; j++) {
                ws = _mm512_dpbusd_epi32(ws, ones, w[j][i]);
                if (rep > 1) wst = _mm512_dpbusd_epi32(wst, ones, wt[j][i]);
            }
            vb[i] = _mm512_add_epi32(vb[i], _mm512_mullo_epi32(ws, off));
            tadd[i] = _mm512_mullo_epi32(wst, off);
        }
        dw_load4(p->mult + c0, n, nat[1]);
        dw_load4(p->shift + c0, n, nat[2]);
        dw_perm_rep(nat[1], C, 1, vm), dw_perm_rep(nat[2], C, 1, vs);
        for (i = 0; i < 4; i++) kq[i] = rq16_prepare_z(vm[i], vs[i], p->out_offset), rq16_bound(&kq[i], p->act_qmin, p->out_offset);
        if (rep > 1) { /* the constants of `rep` pixels of n channels in one vector */
            dw_perm_rep(nat[1], n, rep, vmt), dw_perm_rep(nat[2], n, rep, vst);
            dw_perm_rep(nat[0], n, rep, vbt);
            for (i = 0; i < 4; i++) vbt[i] = _mm512_add_epi32(vbt[i], tadd[i]);
            for (i = 0; i < 4; i++)
                kqt[i] = rq16_prepare_z(vmt[i], vst[i], p->out_offset), rq16_bound(&kqt[i], p->act_qmin, p->out_offset);
        } else /* unused then; copied, not recomputed, so nothing is read uninitialized */
            for (i = 0; i < 4; i++) vbt[i] = vb[i], kqt[i] = kq[i];
        for (r = r0; r < r1; r++) {
            int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
            const int8_t *img = in + (int64_t)b * p->in_h * p->in_w * C + c0;
            int row_inside = y0 >= 0 && y0 + (p->filter_h - 1) * p->dil_h < p->in_h;
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w;
                __m512i acc[4] = {vb[0], vb[1], vb[2], vb[3]};
                int inside = row_inside && x0 >= 0 && x0 + (fw - 1) * p->dil_w < p->in_w;
                if (inside && taps == 9 && p->filter_w == 3) {
                    /* the run of output columns from here whose taps are all inside: one call */
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    int8_t *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0;
                    const int32_t cnt = (ox_in < p->out_w - 1 ? ox_in : p->out_w - 1) - ox + 1;
                    const int64_t col = (int64_t)p->dil_w * C, rw = (int64_t)p->dil_h * p->in_w * C;
                    if (pix > 1 && cnt >= pix) {
                        dw3x3_run(px, col, rw, (int64_t)pix * p->stride_w * C, o, (int64_t)pix * C, cnt / pix,
                                  ~(__mmask64)0, 1, n, s2, (const __m512i(*)[4])wt, vbt, kqt, p->act_qmin, p->act_qmax);
                        ox += cnt / pix * pix - 1;
                        continue;
                    }
                    { /* one pixel per vector (pix > 1: fewer than pix left), a 16/32-channel tail gathered */
                        const int64_t st = (int64_t)p->stride_w * C;
                        const int32_t done = pk > 1 ? cnt / pk * pk : 0;
                        if (done)
                            dw3x3_run(px, col, rw, st, o, C, done / pk, k, pk, n, 0, (const __m512i(*)[4])wt, vbt, kqt,
                                      p->act_qmin, p->act_qmax);
                        if (cnt > done)
                            dw3x3_run(px + done * st, col, rw, st, o + (int64_t)done * C, C, cnt - done, k, 1, n, 0,
                                      (const __m512i(*)[4])w, vb, kq, p->act_qmin, p->act_qmax);
                        ox += cnt - 1;
                        continue;
                    }
                }
                if (pix > 1 && !s2 && inside && ox + pix <= p->out_w && x0 + pix - 1 + (fw - 1) * p->dil_w < p->in_w) {
                    /* stride 1, `pix` pixels inside the image: their channels are 64 contiguous bytes per tap */
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    for (i = 0; i < 4; i++) acc[i] = vbt[i];
                    for (j = 0; j < quads; j++) {
                        __m512i q[4], tv[4];
                        for (i = 0; i < 4; i++)
                            tv[i] = 4 * j + i < taps ? _mm512_xor_si512(_mm512_loadu_si512((const void *)(px + toff[4 * j + i])), flip)
                                                     : flip;
                        dw_quads(tv[0], tv[1], tv[2], tv[3], q);
                        for (i = 0; i < 4; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], q[i], wt[j][i]);
                    }
                    for (i = 0; i < 4; i++)
                        acc[i] = dw_rq(acc[i], &kqt[i], vlo, vhi);
                    _mm512_storeu_si512((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C),
                                        _mm512_packs_epi16(_mm512_packs_epi32(acc[0], acc[1]), _mm512_packs_epi32(acc[2], acc[3])));
                    ox += pix - 1;
                    continue;
                }
                if (inside) {
                    const int8_t *px = img + ((int64_t)y0 * p->in_w + x0) * C;
                    for (t = 0; t < 4 * quads; t++) tp[t] = t < taps ? px + toff[t] : zp;
                } else {
                    for (t = 0; t < 4 * quads; t++) {
                        int32_t y = y0 + tdy[t], x = x0 + tdx[t];
                        tp[t] = t < taps && y >= 0 && y < p->in_h && x >= 0 && x < p->in_w
                                    ? img + ((int64_t)y * p->in_w + x) * C
                                    : zp;
                    }
                }
                for (j = 0; j < quads; j++) {
                    __m512i q[4];
                    dw_quads(_mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j]), flip),
                             _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j + 1]), flip),
                             _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j + 2]), flip),
                             _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)tp[4 * j + 3]), flip), q);
                    for (i = 0; i < 4; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], q[i], w[j][i]);
                }
                for (i = 0; i < 4; i++)
                    acc[i] = dw_rq(acc[i], &kq[i], vlo, vhi);
                _mm512_mask_storeu_epi8((void *)(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0), k,
                                        _mm512_packs_epi16(_mm512_packs_epi32(acc[0], acc[1]),
                                                           _mm512_packs_epi32(acc[2], acc[3])));
            }
        }
    }
}
#if defined(__AVX512VBMI__)
/* Narrow depthwise convolutions: C = in_c * depth_mult of 8 or 16 channels and filters at most 4 wide
 * (the first layers of small MobileNets: 1 channel x 8, 8 or 16 channels; with 32 the regrouping kernel
 * above is faster, 112x112x32: 67 vs 89 us). A vector holds 64 / C
 * whole output pixels. Per filter row, the input bytes all of them read (at most 128: `span`) are
 * loaded once, the bytes outside the image (padding) filled with the zero point by the loads' masks,
 * and each accumulator's vpdpbusd operand picked from them by one byte permutation (vpermi2b): a lane's
 * four bytes are its pixel's taps along the filter row (a fourth weight of zero when the filter is
 * 3 wide) in its output channel's input channel. So edges, padding rows, strides and depth
 * multipliers take the same path as the interior. Accumulator i's lane 4L + k holds output byte
 * 16L + 4i + k, the order the saturating packs put back in line; the input offset goes into the bias
 * as in rt_opt_dw_vnni_s8. */
int rt_opt_dw_narrow_applies(const struct rt_dwconv_params *p) {
    const int32_t C = p->in_c * p->depth_mult, pix = C > 0 && C <= 64 && 64 % C == 0 ? 64 / C : 0;
    const int64_t span = ((int64_t)(pix - 1) * p->stride_w + (int64_t)(p->filter_w - 1) * p->dil_w + 1) * p->in_c;
    return (C == 8 || C == 16) && p->filter_w <= 4 && p->filter_h <= RT_OPT_DW_QUADS && span <= 128 &&
           p->in_offset >= -127 && p->in_offset <= 128;
}

/* Bits [lo, hi) of a 64-bit mask, the bounds clamped to [0, 64]. */
static inline __mmask64 dw_bits(int64_t lo, int64_t hi) {
    lo = lo < 0 ? 0 : lo > 64 ? 64 : lo, hi = hi < 0 ? 0 : hi > 64 ? 64 : hi;
    if (hi <= lo) return 0;
    return (hi == 64 ? ~(__mmask64)0 : ((__mmask64)1 << hi) - 1) & ~(((__mmask64)1 << lo) - 1);
}

void rt_opt_dw_narrow_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                         int8_t *out, int32_t r0, int32_t r1) {
    const int32_t M = p->depth_mult, C = p->in_c * M, pix = 64 / C, fw = p->filter_w, fh = p->filter_h;
    const int64_t row_bytes = (int64_t)p->in_w * p->in_c;
    const int64_t span = ((int64_t)(pix - 1) * p->stride_w + (int64_t)(fw - 1) * p->dil_w + 1) * p->in_c;
    const __m512i flip = _mm512_set1_epi8((char)0x80), zpv = _mm512_set1_epi8((char)(int8_t)(-p->in_offset));
    const __m512i lo = _mm512_set1_epi32(p->act_qmin), hi = _mm512_set1_epi32(p->act_qmax);
    __m512i idx[4], w[RT_OPT_DW_QUADS][4], vb[4];
    rq16 kq[4];
    int32_t i, j, r, L, k, b, ox;
    for (i = 0; i < 4; i++) {
        uint8_t ib[64];
        int8_t wb[RT_OPT_DW_QUADS][64];
        int32_t cb[16], cm[16], cs[16];
        for (L = 0; L < 4; L++)
            for (k = 0; k < 4; k++) {
                const int32_t lane = 4 * L + k, byte = 16 * L + 4 * i + k, px = byte / C, c = byte % C, ci = c / M;
                uint32_t wsum = 0;
                for (b = 0; b < 4; b++)
                    ib[4 * lane + b] = (uint8_t)(b < fw ? ((int64_t)px * p->stride_w + (int64_t)b * p->dil_w) * p->in_c + ci : 0);
                for (j = 0; j < fh; j++)
                    for (b = 0; b < 4; b++) {
                        const int8_t wt = b < fw ? filter[((int64_t)j * fw + b) * C + c] : 0;
                        wb[j][4 * lane + b] = wt;
                        wsum += (uint32_t)(int32_t)wt;
                    }
                /* bias + (off - 128) * sum of the channel's weights, wrapping */
                cb[lane] = (int32_t)((bias ? (uint32_t)bias[c] : 0u) + wsum * (uint32_t)(p->in_offset - 128));
                cm[lane] = p->mult[c], cs[lane] = p->shift[c];
            }
        idx[i] = _mm512_loadu_si512((const void *)ib);
        for (j = 0; j < fh; j++) w[j][i] = _mm512_loadu_si512((const void *)wb[j]);
        vb[i] = _mm512_loadu_si512((const void *)cb);
        kq[i] = rq16_prepare_z(_mm512_loadu_si512((const void *)cm), _mm512_loadu_si512((const void *)cs), p->out_offset);
        rq16_bound(&kq[i], p->act_qmin, p->out_offset);
    }
    for (r = r0; r < r1; r++) {
        const int32_t bt = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
        const int8_t *img = in + (int64_t)bt * p->in_h * row_bytes;
        int8_t *orow = out + ((int64_t)bt * p->out_h + oy) * p->out_w * C;
        for (ox = 0; ox < p->out_w; ox += pix) {
            const int32_t np = p->out_w - ox < pix ? p->out_w - ox : pix;
            /* the chunk's first byte: image row byte `first` (negative in the left padding) */
            const int64_t first = ((int64_t)ox * p->stride_w - p->pad_w) * p->in_c;
            const __mmask64 m0 = dw_bits(-first, span < row_bytes - first ? span : row_bytes - first);
            const __mmask64 m1 = dw_bits(-first - 64, (span < row_bytes - first ? span : row_bytes - first) - 64);
            __m512i a0 = vb[0], a1 = vb[1], a2 = vb[2], a3 = vb[3];
            for (j = 0; j < fh; j++) {
                const int32_t y = y0 + j * p->dil_h;
                __m512i t0 = flip, t1 = flip; /* the zero point + 128 where the row lies outside */
                if (y >= 0 && y < p->in_h) {
                    /* masked loads read only the image's bytes; the address may lie before the row */
                    const uintptr_t src = (uintptr_t)(img + (int64_t)y * row_bytes) + (uintptr_t)first;
                    t0 = _mm512_xor_si512(_mm512_mask_loadu_epi8(zpv, m0, (const void *)src), flip);
                    if (span > 64) t1 = _mm512_xor_si512(_mm512_mask_loadu_epi8(zpv, m1, (const void *)(src + 64)), flip);
                } else {
                    t0 = t1 = _mm512_xor_si512(zpv, flip);
                }
                RT_DPBUSD(a0, _mm512_permutex2var_epi8(t0, idx[0], t1), w[j][0]);
                RT_DPBUSD(a1, _mm512_permutex2var_epi8(t0, idx[1], t1), w[j][1]);
                RT_DPBUSD(a2, _mm512_permutex2var_epi8(t0, idx[2], t1), w[j][2]);
                RT_DPBUSD(a3, _mm512_permutex2var_epi8(t0, idx[3], t1), w[j][3]);
            }
            a0 = dw_rq(a0, &kq[0], lo, hi), a1 = dw_rq(a1, &kq[1], lo, hi);
            a2 = dw_rq(a2, &kq[2], lo, hi), a3 = dw_rq(a3, &kq[3], lo, hi);
            _mm512_mask_storeu_epi8((void *)(orow + (int64_t)ox * C), dw_bits(0, (int64_t)np * C),
                                    _mm512_packs_epi16(_mm512_packs_epi32(a0, a1), _mm512_packs_epi32(a2, a3)));
        }
    }
}
#endif
#endif
