/* mpcc_cuda_misc.cuh - the remaining single ops of mpcc's CUDA target:
 *
 *   mpcc_misc_elem_body   ABS int32 (op 0); a byte copy (op 1: SHAPE, whose values the compiler knows)
 *   mpcc_reduce_prod_body REDUCE_PROD f32 / int32, one thread per output
 *   mpcc_embedding_body   EMBEDDING_LOOKUP (any dtype, one thread per output byte; int8 -> f32 per element)
 *   mpcc_l2norm_s8_body   L2_NORMALIZATION int8, one thread per row
 *   mpcc_log_softmax_s8_body  LOG_SOFTMAX int8, one thread per row
 *
 * Integer results are bit-exact with mpcc's reference kernels (runtime/kernels/rt_abs.c,
 * rt_reduce_prod.c, rt_embedding_lookup.c, rt_l2_normalization.c, rt_log_softmax.c): the same
 * gemmlowp fixed-point steps, in the same order. REDUCE_PROD f32 multiplies in the reference's
 * order (the same bits). Written against mpcc_cuda.cuh and mpcc_cuda_int8.cuh alone (nvcc, NVRTC,
 * the CPU emulator). Grid-stride bodies: any grid is correct. */
#ifndef MPCC_CUDA_MISC_CUH
#define MPCC_CUDA_MISC_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"
#include "mpcc_cuda_int8.cuh"

MPCC_DEV void mpcc_misc_elem_body(const mpcc_misc_elem_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        if (p.op == 0) {
            const int32_t x = ((const int32_t *)p.in)[e];
            ((int32_t *)p.out)[e] = x < 0 ? (int32_t)(0u - (uint32_t)x) : x;
        } else {
            ((unsigned char *)p.out)[e] = ((const unsigned char *)p.in)[e];
        }
    }
}

MPCC_DEV void mpcc_reduce_prod_body(const mpcc_reduce_prod_args &p) {
    for (long long o = mpcc_tid(); o < p.out_count; o += mpcc_nthreads()) {
        long long base = 0, rem = o, s = 1;
        for (int d = p.rank - 1; d >= 0; d--) {
            if (!p.reduced[d]) base += (rem % p.dims[d]) * s, rem /= p.dims[d];
            s *= p.dims[d];
        }
        float f = 1.0f;
        uint32_t u = 1u;
        for (long long r = 0; r < p.reduce_count; r++) {
            long long off = base, q = r, st = 1;
            for (int d = p.rank - 1; d >= 0; d--) {
                if (p.reduced[d]) off += (q % p.dims[d]) * st, q /= p.dims[d];
                st *= p.dims[d];
            }
            if (p.i32) u = (uint32_t)((const int32_t *)p.in)[off] * u;
            else f = ((const float *)p.in)[off] * f;
        }
        if (p.i32) ((int32_t *)p.out)[o] = (int32_t)u;
        else ((float *)p.out)[o] = f;
    }
}

MPCC_DEV void mpcc_embedding_body(const mpcc_embedding_args &p) {
    for (long long e = mpcc_tid(); e < p.total; e += mpcc_nthreads()) {
        const int32_t id = p.ids[e / p.row_bytes];
        const int in = id >= 0 && id < p.rows;
        if (p.hybrid) {
            const float q = in ? (float)((const int8_t *)p.value)[(long long)id * p.row_bytes + e % p.row_bytes] : 0.0f;
            ((float *)p.out)[e] = in ? q * (p.scales ? p.scales[id] : p.scale) : 0.0f;
        } else {
            p.out[e] = in ? p.value[(long long)id * p.row_bytes + e % p.row_bytes] : 0;
        }
    }
}

/* ---- L2_NORMALIZATION int8 ---- */

/* TFLite's GetInvSqrtQuantizedMultiplierExp(input, -1) as rt_l2_normalization.c's inv_sqrt_multiplier. */
MPCC_DEV int32_t mpcc_inv_sqrt_mult(int32_t input, int *shift) {
    if (input <= 1) {
        *shift = 0;
        return 2147483647;
    }
    int out_shift = 11, lz = 0;
    while (input >= (1 << 29)) {
        input /= 4;
        out_shift++;
    }
    for (uint32_t u = (uint32_t)input; !(u & 0x80000000u); u <<= 1) lz++;
    const int pairs = (lz - 1) / 2 - 1;
    out_shift -= pairs;
    input = (int32_t)((uint32_t)input << (2 * pairs));
    const int32_t half_input = mpcc_rdbpot(input >> 1, 1);
    int32_t x = 1 << 28; /* 1.0 in Q3.28 */
    for (int k = 0; k < 5; k++) {
        const int32_t x3 = mpcc_fp_mul_pot(mpcc_srdhm(mpcc_srdhm(x, x), x), 6);
        const int32_t a = mpcc_srdhm((1 << 28) + (1 << 27), x);
        const int32_t b = mpcc_srdhm(half_input, x3);
        x = mpcc_fp_mul_pot((int32_t)((uint32_t)a - (uint32_t)b), 3);
    }
    x = mpcc_srdhm(x, 1518500250);
    if (out_shift < 0) {
        x = (int32_t)((uint32_t)x << -out_shift);
        out_shift = 0;
    }
    *shift = -out_shift;
    return x;
}

MPCC_DEV void mpcc_l2norm_s8_body(const mpcc_rows_s8_args &p) {
    for (long long row = mpcc_tid(); row < p.rows; row += mpcc_nthreads()) {
        const int8_t *x = p.in + row * p.depth;
        int8_t *y = p.out + row * p.depth;
        int32_t acc = 0;
        for (int c = 0; c < p.depth; c++) {
            const int32_t v = (int32_t)x[c] - p.in_zp;
            acc = mpcc_wrap_add(acc, v * v);
        }
        int shift;
        const int32_t mult = mpcc_inv_sqrt_mult(acc, &shift);
        for (int c = 0; c < p.depth; c++)
            y[c] = (int8_t)mpcc_s8_clamp(mpcc_s8_requant((int32_t)x[c] - p.in_zp, mult, shift + 7), -128, 127);
    }
}

/* ---- LOG_SOFTMAX int8 ---- */

MPCC_DEV int32_t mpcc_fp_sat_add(int32_t a, int32_t b) {
    const long long s = (long long)a + b;
    return (int32_t)(s > 2147483647ll ? 2147483647ll : s < -2147483648ll ? -2147483648ll : s);
}
MPCC_DEV int mpcc_clz32(uint32_t x) {
    int n = 0;
    if (x == 0) return 32;
    while (!(x & 0x80000000u)) x <<= 1, n++;
    return n;
}
MPCC_DEV int32_t mpcc_fp_half_sum(int32_t a, int32_t b) {
    const long long s = (long long)a + (long long)b;
    return (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

/* log(x), x >= 1 in Q12.19, result Q5.26: rt_log_softmax.c's log_x_q12_to_q5 step by step. */
MPCC_DEV int32_t mpcc_log_q12_to_q5(int32_t x) {
    const int in_bits = 12, accum_bits = 6;
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int32_t shifted_quarter = mpcc_fp_mul_pot(536870912, -accum_bits);
    const int z_a_hp1 = mpcc_clz32((uint32_t)x);
    const int32_t r_a_tmp = mpcc_fp_mul_pot(x, z_a_hp1 - 1);
    const int32_t r_a = mpcc_fp_mul_pot(mpcc_srdhm(r_a_tmp, sqrt_half), 1);
    const int32_t z_a_adj = mpcc_fp_sat_add(mpcc_fp_mul_pot(in_bits - z_a_hp1, 31 - accum_bits), shifted_quarter);
    const int32_t z_b = mpcc_srdhm(x, sqrt_half);
    const int z_b_headroom = mpcc_clz32((uint32_t)z_b) - 1;
    const int32_t r_b = mpcc_fp_mul_pot(x, z_b_headroom);
    const int32_t z_b_adj = mpcc_fp_sat_add(mpcc_fp_mul_pot(in_bits - z_b_headroom, 31 - accum_bits), -shifted_quarter);
    const int32_t r = r_a < r_b ? r_a : r_b, z_adj = z_a_adj > z_b_adj ? z_a_adj : z_b_adj;
    const int32_t pp = mpcc_fp_half_sum(r, sqrt_sqrt_half);
    int32_t q = (int32_t)((uint32_t)r - (uint32_t)sqrt_sqrt_half);
    q = mpcc_wrap_add(q, q);
    const int32_t common_sq = mpcc_srdhm(q, q);
    const int32_t num = mpcc_wrap_add(mpcc_srdhm(q, r), mpcc_srdhm(mpcc_srdhm(q, common_sq), alpha_n));
    const int32_t denom_minus_one =
        mpcc_wrap_add(mpcc_srdhm(pp, mpcc_wrap_add(mpcc_wrap_add(alpha_i, q), mpcc_srdhm(alpha_d, common_sq))),
                      mpcc_srdhm(alpha_f, q));
    const int32_t recip_denom = mpcc_fp_one_over_one_plus_x(denom_minus_one);
    const int32_t num_scaled = mpcc_fp_mul_pot(num, -accum_bits);
    const int32_t sum = mpcc_wrap_add(mpcc_srdhm(z_adj, log_2), mpcc_srdhm(num_scaled, recip_denom));
    return mpcc_fp_mul_pot(sum, accum_bits - 5);
}

MPCC_DEV void mpcc_log_softmax_s8_body(const mpcc_rows_s8_args &p) {
    for (long long row = mpcc_tid(); row < p.rows; row += mpcc_nthreads()) {
        const int8_t *x = p.in + row * p.depth;
        int8_t *y = p.out + row * p.depth;
        int32_t mx = -128, sum = 0;
        for (int c = 0; c < p.depth; c++) mx = x[c] > mx ? x[c] : mx;
        for (int c = 0; c < p.depth; c++) {
            const int32_t diff = (int32_t)x[c] - mx;
            if (diff >= p.diff_min) sum = mpcc_wrap_add(sum, p.exp_q12[-diff]);
        }
        const int32_t log_sum = mpcc_log_q12_to_q5(sum);
        const int32_t rev = mpcc_s8_requant(mpcc_wrap_add(log_sum, -2147483647 - 1), p.rev_mult, -p.rev_rshift);
        const int32_t adjusted_diff_min = p.diff_min - 1 > rev ? p.diff_min - 1 : rev;
        for (int c = 0; c < p.depth; c++) {
            const int32_t diff = (int32_t)x[c] - mx;
            int32_t v = -128;
            if (diff > adjusted_diff_min) {
                const int32_t scaled = mpcc_s8_requant(diff, p.in_mult, p.in_shift);
                v = mpcc_s8_clamp(mpcc_rdbpot((int32_t)((uint32_t)scaled - (uint32_t)log_sum), 31 - 5 - 4) + 127, -128, 127);
            }
            y[c] = (int8_t)v;
        }
    }
}

#endif
