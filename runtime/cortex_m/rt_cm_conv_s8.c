/* rt_cm_conv_s8.c - int8 convolution as a GEMM on the Armv7E-M/Armv8-M DSP extension (SMLAD).
 *
 * The packed weights are pass schedule's s8 panels (rt_opt.h): panel j holds channel j*16 + c,
 * k-quad q at [j][q][c][0..3], K padded to a multiple of 4 with zero weights, and the bias is
 * folded as bias + (in_offset - 128) * sum(w): the kernel sums (a + 128) * w. a + 128 of an
 * int8 is its byte with the top bit flipped (a ^ 0x80), 0..255, so one EOR and two UXTB16 make
 * the four activations of a word two pairs of 16-bit lanes (k0,k2) and (k1,k3); SXTB16 and
 * SXTB16 of the word rotated by 8 do the same for the weights, and SMLAD adds both products of
 * a pair to a 32-bit accumulator. The sums are the portable kernel's exactly; the
 * requantization is rt_cm_requant_hi / _fast / rt_cm_requant (rt_opt_requant_i8's values). */
#include <string.h>

#include "rt_cm.h"
#include "rt_opt_internal.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

static inline uint32_t load4(const int8_t *p) {
    uint32_t w;
    memcpy(&w, p, 4); /* one LDR: unaligned word loads are allowed on these cores */
    return w;
}

/* SXTB16 / UXTB16 of the word rotated right by 8 (bytes 1 and 3), one instruction each
 * (GCC does not fold a rotate into the intrinsics). */
static inline int16x2_t sxtb16_ror8(uint32_t x) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}
static inline int16x2_t uxtb16_ror8(uint32_t x) {
    int16x2_t r;
    __asm__("uxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}

/* The last, partial k-quad of a row: the missing bytes are 0 (their weights are 0). */
static inline uint32_t load_tail(const int8_t *p, int32_t n) {
    uint32_t w = 0;
    for (int32_t i = 0; i < n; i++) w |= (uint32_t)(uint8_t)p[i] << (8 * i);
    return w;
}

/* One k-quad: activation words x0 (row 0) and x1 (row 1), weight words of two channels at w. */
static inline void quad_2x2(uint32_t x0, uint32_t x1, const int8_t *w, int32_t *s) {
    uint32_t w0 = load4(w), w1 = load4(w + 4);
    int16x2_t a0e, a0o, a1e, a1o, w0e, w0o, w1e, w1o;
    x0 ^= 0x80808080u, x1 ^= 0x80808080u;
    a0e = (int16x2_t)__uxtb16(x0), a0o = uxtb16_ror8(x0);
    a1e = (int16x2_t)__uxtb16(x1), a1o = uxtb16_ror8(x1);
    w0e = __sxtb16((int8x4_t)w0), w0o = sxtb16_ror8(w0);
    w1e = __sxtb16((int8x4_t)w1), w1o = sxtb16_ror8(w1);
    s[0] = __smlad(a0o, w0o, __smlad(a0e, w0e, s[0]));
    s[1] = __smlad(a0o, w1o, __smlad(a0e, w1e, s[1]));
    s[2] = __smlad(a1o, w0o, __smlad(a1e, w0e, s[2]));
    s[3] = __smlad(a1o, w1o, __smlad(a1e, w1e, s[3]));
}

/* Rows a0 and a1 (a1 may equal a0) against the channel pair whose weights start at w, widened
 * per k-quad (K > CM_KMAX); s[0..3] hold the starting sums. */
static void dot_2x2(const int8_t *a0, const int8_t *a1, const int8_t *w, int32_t k, int32_t *s) {
    int32_t q, full = k / 4;
    for (q = 0; q < full; q++, w += 4 * RT_OPT_NR) quad_2x2(load4(a0 + 4 * q), load4(a1 + 4 * q), w, s);
    if (k % 4) quad_2x2(load_tail(a0 + 4 * q, k % 4), load_tail(a1 + 4 * q, k % 4), w, s);
}

/* K up to this many: rows r and r + 1 widened once into 16-bit lanes on the stack (CM_KMAX words,
 * 4 KiB; a row pair of K = 256 touches 1 KiB), read by every channel pair. Longer rows widen
 * per channel pair (dot_2x2). */
#define CM_KMAX 1024

/* buf[4q + 0..3]: (a + 128) of rows a0 and a1, k-quad q, as the lane pairs (k0,k2) (k1,k3) of a0,
 * then of a1. The bytes past K read as 0 (their weights are 0). */
static void widen_2rows(const int8_t *a0, const int8_t *a1, int32_t k, uint32_t *buf) {
    int32_t q, full = k / 4;
    for (q = 0; q < full; q++, buf += 4) {
        uint32_t x0 = load4(a0 + 4 * q) ^ 0x80808080u, x1 = load4(a1 + 4 * q) ^ 0x80808080u;
        buf[0] = __uxtb16(x0), buf[1] = (uint32_t)uxtb16_ror8(x0);
        buf[2] = __uxtb16(x1), buf[3] = (uint32_t)uxtb16_ror8(x1);
    }
    if (k % 4) {
        uint32_t x0 = load_tail(a0 + 4 * q, k % 4) ^ 0x80808080u, x1 = load_tail(a1 + 4 * q, k % 4) ^ 0x80808080u;
        buf[0] = __uxtb16(x0), buf[1] = (uint32_t)uxtb16_ror8(x0);
        buf[2] = __uxtb16(x1), buf[3] = (uint32_t)uxtb16_ror8(x1);
    }
}

/* 2 rows x 2 channels over the widened rows: per k-quad one pair of weight words (SXTB16 and
 * SXTB16 ROR 8 each), four activation words and eight SMLAD, ~20 instructions for 16 MACs, from
 * the starting sums b0 (channel 0) and b1 (the bias: wrapping adds, the same sums as adding it
 * after); s0 s1 row 0, s2 s3 row 1. */
typedef struct acc4 {
    int32_t s0, s1, s2, s3;
} acc4;

/* One k-quad of dot_2x2w: the weight words at w, the widened activations at x. */
static inline void mac_quad(const uint32_t *x, const int8_t *w, acc4 *a) {
    uint32_t w0 = load4(w), w1 = load4(w + 4);
    int16x2_t w0e = __sxtb16((int8x4_t)w0), w0o = sxtb16_ror8(w0);
    int16x2_t w1e = __sxtb16((int8x4_t)w1), w1o = sxtb16_ror8(w1);
    int16x2_t a0e = (int16x2_t)x[0], a0o = (int16x2_t)x[1], a1e = (int16x2_t)x[2], a1o = (int16x2_t)x[3];
    a->s0 = __smlad(a0o, w0o, __smlad(a0e, w0e, a->s0));
    a->s1 = __smlad(a0o, w1o, __smlad(a0e, w1e, a->s1));
    a->s2 = __smlad(a1o, w0o, __smlad(a1e, w0e, a->s2));
    a->s3 = __smlad(a1o, w1o, __smlad(a1e, w1e, a->s3));
}

static inline acc4 dot_2x2w(const uint32_t *x, int32_t quads, const int8_t *w, int32_t b0, int32_t b1) {
    const uint32_t *end = x + 4 * quads;
    acc4 r;
    r.s0 = b0, r.s1 = b1, r.s2 = b0, r.s3 = b1;
    if (quads & 1) { /* then two k-quads per iteration */
        mac_quad(x, w, &r);
        w += 4 * RT_OPT_NR, x += 4;
    }
    while (x < end) {
        mac_quad(x, w, &r);
        mac_quad(x + 4, w + 4 * RT_OPT_NR, &r);
        w += 8 * RT_OPT_NR, x += 8;
    }
    return r;
}

#if defined(__thumb2__)
/* dot_2x2w in assembly, for weight panels on 4-byte boundaries (LDRD): a k-quad is one LDRD of
 * the two channels' weight words (post-indexed to the next quad, 4 * RT_OPT_NR = 64 bytes on),
 * four SXTB16, two LDRD of the widened rows and eight SMLAD, 15 instructions for 16 MACs (GCC's
 * dot_2x2w spills: ~23). The thirteen values live in registers throughout; quads >= 1. */
typedef char rt_cm_nr_is_16[RT_OPT_NR == 16 ? 1 : -1];

#define CM_QUAD_ASM                                                                              \
    "ldrd %[w0], %[w1], [%[w]], #64\n\t"                                                        \
    "ldrd %[a0], %[a1], [%[x]], #8\n\t"                                                         \
    "sxtb16 %[e0], %[w0]\n\t"                                                                   \
    "sxtb16 %[w0], %[w0], ror #8\n\t"                                                           \
    "sxtb16 %[e1], %[w1]\n\t"                                                                   \
    "sxtb16 %[w1], %[w1], ror #8\n\t"                                                           \
    "smlad %[s0], %[a0], %[e0], %[s0]\n\t"                                                      \
    "smlad %[s1], %[a0], %[e1], %[s1]\n\t"                                                      \
    "smlad %[s0], %[a1], %[w0], %[s0]\n\t"                                                      \
    "smlad %[s1], %[a1], %[w1], %[s1]\n\t"                                                      \
    "ldrd %[a0], %[a1], [%[x]], #8\n\t"                                                         \
    "smlad %[s2], %[a0], %[e0], %[s2]\n\t"                                                      \
    "smlad %[s3], %[a0], %[e1], %[s3]\n\t"                                                      \
    "smlad %[s2], %[a1], %[w0], %[s2]\n\t"                                                      \
    "smlad %[s3], %[a1], %[w1], %[s3]\n\t"

static inline acc4 dot_2x2w_asm(const uint32_t *x, int32_t quads, const int8_t *w, int32_t b0, int32_t b1) {
    const uint32_t *end = x + 4 * quads;
    int32_t s0 = b0, s1 = b1, s2 = b0, s3 = b1;
    uint32_t w0, w1, e0, e1, a0, a1;
    acc4 r;
    if (quads & 1)
        __asm__ volatile(CM_QUAD_ASM
                         : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w),
                           [w0] "=&r"(w0), [w1] "=&r"(w1), [e0] "=&r"(e0), [e1] "=&r"(e1), [a0] "=&r"(a0),
                           [a1] "=&r"(a1)
                         :
                         : "memory");
    if (x < end)
        __asm__ volatile("1:\n\t" CM_QUAD_ASM CM_QUAD_ASM "cmp %[x], %[end]\n\t"
                         "bne 1b"
                         : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w),
                           [w0] "=&r"(w0), [w1] "=&r"(w1), [e0] "=&r"(e0), [e1] "=&r"(e1), [a0] "=&r"(a0),
                           [a1] "=&r"(a1)
                         : [end] "r"(end)
                         : "cc", "memory");
    r.s0 = s0, r.s1 = s1, r.s2 = s2, r.s3 = s3;
    return r;
}
#endif

/* K up to this many for a convolution other than 1x1 stride 1: the patches of two output pixels
 * gathered (IM2COL, the input zero point outside the image) into bytes on the stack, then widened
 * as rows of a 1x1's input. */
#define CM_PATCH RT_CM_PATCH

#define RUN_COPY(d, s, n) memcpy((d), (s), (size_t)(n))

/* Patch rows m0 .. m0 + rows - 1 of convolution p (one batch) at dst, K bytes apart. */
static void patch_rows(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, int8_t *dst) {
    const int32_t kdim = p->gemm.k, ldd = kdim;
    IM2COL(int8_t, int8_t, (int8_t)p->pad_value, RUN_COPY);
}

/* The GEMM of a 1x1 stride-1 convolution (conv NULL: A is the input, rows g->lda apart) or of
 * convolution conv's patches (gathered two at a time, K <= CM_PATCH, one batch), 2 rows x 2
 * channels at a time, each output requantized as soon as it is summed (rt_cm_requant_fast where
 * it holds for the op, else rt_cm_requant). */
static void gemm_dsp(const rt_opt_gemm_params *g, const rt_opt_conv_params *conv, int32_t m, const int8_t *a,
                     const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    const int32_t n = g->n, k = g->k, k4 = (k + 3) / 4 * 4, quads = k4 / 4;
    const int32_t zo = g->out_offset, qmin = g->act_qmin, qmax = g->act_qmax;
    const int fast = rt_cm_requant_fast_ok(g->mult, g->shift, n, g->rounding);
    const int hi = rt_cm_requant_hi_ok(g->mult, g->shift, n, g->rounding), narrow = qmin > -128 || qmax < 127;
    /* the assembly tile: LDRD needs the panels on 4-byte boundaries */
    const int hi2 = k <= CM_KMAX && rt_cm_requant_hi2_ok(g->mult, g->shift, n, g->rounding) == 1 &&
                    ((uintptr_t)packed_b & 3u) == 0;
    const uint32_t lo4 = (uint32_t)(uint8_t)qmin * 0x01010101u, hi4 = (uint32_t)(uint8_t)qmax * 0x01010101u;
    (void)hi2, (void)lo4, (void)hi4; /* unused where the assembly is not Thumb-2 */
    uint32_t buf[CM_KMAX];
    int8_t patch[2 * CM_PATCH];
    for (int32_t r = 0; r < m; r += 2) {
        const int8_t *a0 = patch, *a1 = patch;
        if (conv) {
            patch_rows(conv, a, r, r + 1 < m ? 2 : 1, patch);
            a1 = r + 1 < m ? patch + k : patch;
        } else {
            a0 = a + r * g->lda, a1 = r + 1 < m ? a0 + g->lda : a0;
        }
        int8_t *o0 = c + r * g->ldc, *o1 = r + 1 < m ? o0 + g->ldc : NULL;
        if (k <= CM_KMAX) widen_2rows(a0, a1, k, buf);
        for (int32_t ch = 0; ch < n; ch += 2) {
            const int8_t *w = packed_b + (ch / RT_OPT_NR) * k4 * RT_OPT_NR + (ch % RT_OPT_NR) * 4;
            const int32_t b1 = ch + 1 < n ? bias[ch + 1] : 0;
            const int32_t nc = ch + 1 < n ? 2 : 1;
#if defined(__thumb2__)
            if (hi2 && nc == 2 && o1) { /* the common case: the tile in assembly, 7 instructions an output */
                const acc4 t = dot_2x2w_asm(buf, quads, w, bias[ch], b1);
                const int32_t m0 = g->mult[ch], m1 = g->mult[ch + 1], e0 = -g->shift[ch] - 1, e1 = -g->shift[ch + 1] - 1;
                const int32_t h0 = (int32_t)((1u << (e0 - 1)) + ((uint32_t)zo << e0));
                const int32_t h1 = (int32_t)((1u << (e1 - 1)) + ((uint32_t)zo << e1));
                const uint32_t v = rt_cm_pack4(rt_cm_requant_hi2(t.s0, m0, h0, e0), rt_cm_requant_hi2(t.s1, m1, h1, e1),
                                               rt_cm_requant_hi2(t.s2, m0, h0, e0), rt_cm_requant_hi2(t.s3, m1, h1, e1),
                                               lo4, hi4, narrow);
                const uint16_t v0 = (uint16_t)v, v1 = (uint16_t)(v >> 16);
                memcpy(o0 + ch, &v0, 2), memcpy(o1 + ch, &v1, 2); /* STRH: unaligned stores are allowed */
                continue;
            }
#endif
            int32_t s[4] = {bias[ch], b1, bias[ch], b1};
            if (hi && nc == 2 && o1 && k <= CM_KMAX) { /* the sums in registers */
                const acc4 t = dot_2x2w(buf, quads, w, bias[ch], b1);
                const rt_cm_rq c0 = rt_cm_requant_hi_channel(g->mult[ch], g->shift[ch]);
                const rt_cm_rq c1 = rt_cm_requant_hi_channel(g->mult[ch + 1], g->shift[ch + 1]);
                if (narrow) {
                    o0[ch] = rt_cm_requant_hi(t.s0, c0, zo, qmin, qmax, 1);
                    o0[ch + 1] = rt_cm_requant_hi(t.s1, c1, zo, qmin, qmax, 1);
                    o1[ch] = rt_cm_requant_hi(t.s2, c0, zo, qmin, qmax, 1);
                    o1[ch + 1] = rt_cm_requant_hi(t.s3, c1, zo, qmin, qmax, 1);
                } else {
                    o0[ch] = rt_cm_requant_hi(t.s0, c0, zo, qmin, qmax, 0);
                    o0[ch + 1] = rt_cm_requant_hi(t.s1, c1, zo, qmin, qmax, 0);
                    o1[ch] = rt_cm_requant_hi(t.s2, c0, zo, qmin, qmax, 0);
                    o1[ch + 1] = rt_cm_requant_hi(t.s3, c1, zo, qmin, qmax, 0);
                }
                continue;
            }
            if (k <= CM_KMAX) {
                const acc4 t = dot_2x2w(buf, quads, w, bias[ch], b1);
                s[0] = t.s0, s[1] = t.s1, s[2] = t.s2, s[3] = t.s3;
            } else {
                dot_2x2(a0, a1, w, k, s);
            }
            for (int32_t i = 0; i < nc; i++) {
                const int32_t mul = g->mult[ch + i], sh = g->shift[ch + i];
                if (fast) {
                    const int32_t right = -sh, mask = (int32_t)((1u << right) - 1u);
                    o0[ch + i] = rt_cm_requant_fast(s[i], mul, right, mask, zo, qmin, qmax);
                    if (o1) o1[ch + i] = rt_cm_requant_fast(s[2 + i], mul, right, mask, zo, qmin, qmax);
                } else {
                    o0[ch + i] = rt_cm_requant(s[i], mul, sh, g->rounding, zo, qmin, qmax);
                    if (o1) o1[ch + i] = rt_cm_requant(s[2 + i], mul, sh, g->rounding, zo, qmin, qmax);
                }
            }
        }
    }
}
#endif

void rt_cm_conv_s8(const rt_opt_conv_params *p, const int8_t *in, const int8_t *packed_b, const int32_t *bias,
                   int8_t *out, void *scratch, const rt_opt_post_add *post, const int8_t *other,
                   const mpcc_parallel *par) {
#if defined(__ARM_FEATURE_DSP)
    const rt_opt_gemm_params *g = &p->gemm;
    if (rt_cm_conv_dsp_ok(p->direct, p->batches, g->k, g->rounding, g->out_f32) &&
        (p->direct || (g->ldc == g->n && g->m == p->out_h * p->out_w))) {
        const int64_t rows = p->direct ? (int64_t)p->batches * g->m : g->m;
        gemm_dsp(g, p->direct ? NULL : p, (int32_t)rows, in, packed_b, bias, out);
        if (post) /* a fused residual ADD, elementwise over the whole output (dense: ldc == n) */
            rt_opt_add_run_i8(post->add, post->conv_is_lhs ? out : other, 1, post->conv_is_lhs ? other : out, 1, out,
                              rows * g->n);
        return;
    }
#endif
    rt_opt_conv_s8(p, in, packed_b, bias, out, scratch, post, other, par);
}

void rt_cm_conv_s8_dsp(const rt_opt_conv_params *p, const int8_t *in, const int8_t *packed_b, const int32_t *bias,
                       int8_t *out) {
#if defined(__ARM_FEATURE_DSP)
    gemm_dsp(&p->gemm, p->direct ? NULL : p, p->direct ? p->batches * p->gemm.m : p->gemm.m, in, packed_b, bias, out);
#else
    rt_cm_conv_s8(p, in, packed_b, bias, out, NULL, NULL, NULL, NULL);
#endif
}
