/* rt_cm_conv_s8.c - int8 1x1 convolution on the Armv7E-M/Armv8-M DSP extension (SMLAD).
 *
 * The packed weights are pass schedule's s8 panels (rt_opt.h): panel j holds channel j*16 + c,
 * k-quad q at [j][q][c][0..3], K padded to a multiple of 4 with zero weights, and the bias is
 * folded as bias + (in_offset - 128) * sum(w): the kernel sums (a + 128) * w. a + 128 of an
 * int8 is its byte with the top bit flipped (a ^ 0x80), 0..255, so one EOR and two UXTB16 make
 * the four activations of a word two pairs of 16-bit lanes (k0,k2) and (k1,k3); SXTB16 and
 * SXTB16 of the word rotated by 8 do the same for the weights, and SMLAD adds both products of
 * a pair to a 32-bit accumulator. The sums are the portable kernel's exactly; the
 * requantization is rt_cm_requant (rt_opt_requant_i8's values, inline). */
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

/* Sums of rows a0 and a1 (a1 may equal a0) against channels c and c + 1 of one panel. */
static void dot_2x2(const int8_t *a0, const int8_t *a1, const int8_t *panel, int32_t k, int32_t c, int32_t *out) {
    int32_t s[4] = {0, 0, 0, 0}, q, full = k / 4;
    const int8_t *w = panel + c * 4;
    for (q = 0; q < full; q++, w += 4 * RT_OPT_NR) quad_2x2(load4(a0 + 4 * q), load4(a1 + 4 * q), w, s);
    if (k % 4) quad_2x2(load_tail(a0 + 4 * q, k % 4), load_tail(a1 + 4 * q, k % 4), w, s);
    out[0] = s[0], out[1] = s[1], out[RT_OPT_NR] = s[2], out[RT_OPT_NR + 1] = s[3];
}

static void gemm_dsp(const rt_opt_gemm_params *g, int32_t m, const int8_t *a, const int8_t *packed_b,
                     const int32_t *bias, int8_t *c) {
    const int32_t k4 = (g->k + 3) / 4 * 4, panels = (g->n + RT_OPT_NR - 1) / RT_OPT_NR;
    int32_t acc[2 * RT_OPT_NR];
    for (int32_t r = 0; r < m; r += 2) {
        const int8_t *a0 = a + (int64_t)r * g->lda, *a1 = r + 1 < m ? a0 + g->lda : a0;
        for (int32_t j = 0; j < panels; j++) {
            const int8_t *panel = packed_b + (int64_t)j * k4 * RT_OPT_NR;
            int32_t cols = g->n - j * RT_OPT_NR < RT_OPT_NR ? g->n - j * RT_OPT_NR : RT_OPT_NR;
            for (int32_t ch = 0; ch < cols; ch += 2) dot_2x2(a0, a1, panel, g->k, ch, acc + ch);
            for (int32_t i = 0; i < 2 && r + i < m; i++) {
                int32_t col = j * RT_OPT_NR;
                int8_t *o = c + (int64_t)(r + i) * g->ldc + col;
                for (int32_t q = 0; q < cols; q++)
                    o[q] = rt_cm_requant(rt_wrap_add_i32(acc[i * RT_OPT_NR + q], bias[col + q]), g->mult[col + q],
                                         g->shift[col + q], g->rounding, g->out_offset, g->act_qmin, g->act_qmax);
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
    if (p->direct && g->rounding != RT_OPT_ROUND_FLOAT && !g->out_f32) {
        int64_t n = (int64_t)p->batches * g->m * g->n; /* direct: the output is dense, ldc == n */
        gemm_dsp(g, p->batches * g->m, in, packed_b, bias, out);
        if (post) /* a fused residual ADD, elementwise over the whole output */
            rt_opt_add_run_i8(post->add, post->conv_is_lhs ? out : other, 1, post->conv_is_lhs ? other : out, 1, out, n);
        return;
    }
#endif
    rt_opt_conv_s8(p, in, packed_b, bias, out, scratch, post, other, par);
}
