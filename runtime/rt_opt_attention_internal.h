/* rt_opt_attention_internal.h - what rt_opt_attention.c (the fused kernel) and rt_opt_attention_pack.c
 * (its operands gathered and packed into the micro-kernels' panels) share. Private to the two files. */
#ifndef RT_OPT_ATTENTION_INTERNAL_H
#define RT_OPT_ATTENTION_INTERNAL_H

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define NR RT_OPT_NR

static inline int64_t round16(int64_t n) { return (n + NR - 1) / NR * NR; }
static inline int64_t round32(int64_t n) { return (n + 2 * NR - 1) / (2 * NR) * (2 * NR); }
/* int8 Q and K (their scores may take the int8 kernel). */
static inline int int8_qk(const rt_opt_attn_params *p) { return p->tq == RT_I8 && p->tk == RT_I8; }
/* Operand `which` (0 Q, 1 K, 2 V): its storage type. */
static inline int32_t op_type(const rt_opt_attn_params *p, int which) { return which == 0 ? p->tq : which == 1 ? p->tk : p->tv; }

#if defined(RT_OPT_AVX512)
/* Bytes of one element stored as type t (f32, int8 or 16-bit). */
static inline int32_t type_bytes(int32_t t) { return t == RT_F32 ? 4 : t == RT_I8 ? 1 : 2; }

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
#endif

#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
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
#endif

/* Elements off, off + s, ... (n of them) of x stored as type t, as floats in dst (int8: qs (v - qz)),
 * zeros up to width. */
void rt_attn_gather_q(const void *x, int32_t t, float qs, int32_t qz, int64_t off, int64_t s, int32_t n,
                      int32_t width, float *dst);
/* Operand `which` from element off of x (n elements of stride s) as floats in dst, zeros up to width. */
void rt_attn_gather_op(const rt_opt_attn_params *p, int which, const void *x, int64_t off, int64_t s, int32_t n,
                       int32_t width, float *dst);
/* n (<= 16) keys from row off (stride rs) as one f32 panel [d][16] of K^T (tmp: d floats). */
void rt_attn_panel_keys(const rt_opt_attn_params *p, const void *k, int64_t off, int64_t rs, int32_t n, int32_t d,
                        float *dst, float *tmp);
/* int8 K as rt_opt_scores_s8's panels, and its per-key zero-point terms. */
void rt_attn_pack_k_s8(const rt_opt_attn_params *p, const int8_t *k, int64_t ko, int8_t *kp, int32_t *colterm);
/* A tile's query rows as int8 quads (rt_opt_attention_pack.c says how). */
const int8_t *rt_attn_rows_q_s8(const rt_opt_attn_params *p, const int8_t *q, int64_t off, int32_t qb, int8_t *q8,
                                  int32_t *rowterm, int32_t *lda);
/* bf16 K^T and V panels (rt_opt_fc_bf16_rows's layout); tmp: 2 max(Lk, Dv) + 2 floats. */
void rt_attn_pack_k_bf16(const rt_opt_attn_params *p, const void *k, int64_t ko, float *tmp, uint16_t *kp);
void rt_attn_pack_v_bf16(const rt_opt_attn_params *p, const void *v, int64_t vo, float *tmp, uint16_t *vp);
#if defined(RT_OPT_S8_PV)
/* int8 V as rt_opt_scores_s8's panels, per block of keys. */
void rt_attn_pack_v_s8(const rt_opt_attn_params *p, const int8_t *v, int64_t vo, int8_t *vp);
#endif

#endif
