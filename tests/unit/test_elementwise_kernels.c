/* test_elementwise_kernels.c - the optimized element-wise kernels (runtime/rt_opt_elementwise.c, rt_opt_cast.c,
 * rt_opt_softmax_s8.c, rt_opt_select.c) against the reference kernels on random shapes, broadcasts and data: the
 * binary ops (f32 and int8), int8 ADD/SUB rescalings, QUANTIZE/DEQUANTIZE, CAST complex64->f32, int8 SOFTMAX, SELECT and LOGICAL.
 * Integer and bitwise results must be identical, f32 within 1e-6 of the largest |reference|. Built by `make unit`
 * (generic, ASan+UBSan) and by tests/test_opt_kernels.py at -O3 -march=native. The seed is printed; MPCC_SEED=<n>
 * reproduces a run. (Split from test_opt_kernels.c.) */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "sched_float_rq.h"
#include "rt_opt_internal.h"

#include "unit_check.h"

/* Random broadcast of two shapes onto an output of rank <= 4. */
static void rnd_bcast(rt_bcast *bc) {
    int32_t s1 = 1, s2 = 1;
    memset(bc, 0, sizeof *bc);
    bc->rank = rnd_in(0, 4);
    for (int d = bc->rank - 1; d >= 0; d--) {
        bc->dims[d] = rnd_in(1, 7);
        int b1 = rnd_in(0, 3) == 0, b2 = rnd_in(0, 3) == 0;
        bc->stride1[d] = b1 ? 0 : s1;
        bc->stride2[d] = b2 ? 0 : s2;
        if (!b1) s1 *= bc->dims[d];
        if (!b2) s2 *= bc->dims[d];
    }
}

typedef void (*bin_f32)(const rt_binary_params *, const float *, const float *, float *);
typedef void (*bin_i8)(const rt_binary_params *, const int8_t *, const int8_t *, int8_t *);

static void test_binary(void) {
    static const struct {
        const char *name;
        bin_f32 ref_f, opt_f;
        bin_i8 ref_q, opt_q;
    } ops[] = {
        {"add", rt_add_f32, rt_opt_add_f32, rt_add_i8, rt_opt_add_i8},
        {"sub", rt_sub_f32, rt_opt_sub_f32, rt_sub_i8, rt_opt_sub_i8},
        {"mul", rt_mul_f32, rt_opt_mul_f32, rt_mul_i8, rt_opt_mul_i8},
        {"squared_difference", rt_squared_difference_f32, rt_opt_squared_difference_f32, rt_squared_difference_i8,
         rt_opt_squared_difference_i8},
        {"maximum", rt_maximum_f32, rt_opt_maximum_f32, rt_maximum_i8, rt_opt_maximum_i8},
        {"minimum", rt_minimum_f32, rt_opt_minimum_f32, rt_minimum_i8, rt_opt_minimum_i8},
    };
    char what[64], msg[160];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int t = 0; t < 25; t++) {
            rt_binary_params p;
            memset(&p, 0, sizeof p);
            rnd_bcast(&p.bc);
            if (t >= 18) { /* long contiguous runs (the int8 ADD/SUB table path), one operand broadcast at times */
                p.bc.rank = 1, p.bc.dims[0] = rnd_in(256, 2500), p.bc.stride1[0] = 1;
                p.bc.stride2[0] = t % 3 == 0 ? 0 : 1;
            }
            int64_t n = rt_bcast_numel(&p.bc);
            float a[2500], b[2500], got[2500], want[2500];
            int8_t a8[2500], b8[2500], g8[2500], w8[2500];
            for (int i = 0; i < 2500; i++) a[i] = rnd_f(), b[i] = rnd_f(), a8[i] = (int8_t)rnd_in(-128, 127);
            for (int i = 0; i < 2500; i++) b8[i] = (int8_t)rnd_in(-128, 127);
            p.act_min = -1.0f, p.act_max = 1.5f;
            if (o >= 4 && t % 2) /* MAXIMUM / MINIMUM: NaN, -0 and equal values give the reference's bits */
                for (int i = 0; i + 2 < 2500; i += 7) a[i] = i % 3 ? NAN : -0.0f, b[i + 1] = NAN, b[i + 2] = a[i + 2];
            ops[o].ref_f(&p, a, b, want);
            ops[o].opt_f(&p, a, b, got);
            snprintf(what, sizeof what, "%s f32", ops[o].name);
            snprintf(msg, sizeof msg, "rank %d, %lld elements", p.bc.rank, (long long)n);
            check(o >= 4 ? memcmp(got, want, sizeof(float) * (size_t)n) == 0 : max_rel_f32(got, want, n) <= 1e-6, what,
                  msg);
            /* clamps at the int8 limits and inside them */
            p.act_qmin = t % 2 ? -128 : rnd_in(-128, -60), p.act_qmax = t % 3 ? 127 : rnd_in(60, 127);
            p.in1_offset = -rnd_in(-128, 127), p.in2_offset = -rnd_in(-128, 127);
            p.out_offset = rnd_in(-128, 127), p.left_shift = 20;
            /* shift 0 with 2^30 is the input with the larger scale (real multiplier 1/2) */
            p.in1_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.in1_shift = rnd_in(-8, -1);
            p.in2_mult = t % 5 == 1 ? (int32_t)1 << 30 : (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            p.in2_shift = t % 5 == 1 ? 0 : rnd_in(-8, -1);
            p.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            p.out_shift = o == 2 ? rnd_in(-10, -6) : t % 4 == 3 ? rnd_in(-31, -24) : rnd_in(-22, -16);
            if (o == 3) p.left_shift = 7, p.out_shift = rnd_in(-14, -10);
            ops[o].ref_q(&p, a8, b8, w8);
            ops[o].opt_q(&p, a8, b8, g8);
            snprintf(what, sizeof what, "%s int8", ops[o].name);
            snprintf(msg, sizeof msg, "rank %d, %lld of %lld differ", p.bc.rank, (long long)count_diff_i8(g8, w8, n),
                     (long long)n);
            check(count_diff_i8(g8, w8, n) == 0, what, msg);
        }
    /* DIV f32 (no int8 kernel): the same quotients and clamp, bit for bit, zeros and NaNs among the divisors */
    for (int t = 0; t < 25; t++) {
        rt_binary_params p;
        float a[2500], b[2500], got[2500], want[2500];
        memset(&p, 0, sizeof p);
        rnd_bcast(&p.bc);
        if (t >= 18) p.bc.rank = 1, p.bc.dims[0] = rnd_in(256, 2500), p.bc.stride1[0] = 1, p.bc.stride2[0] = t % 3 ? 1 : 0;
        for (int i = 0; i < 2500; i++) a[i] = rnd_f(), b[i] = i % 11 == 3 ? 0.0f : i % 13 == 5 ? NAN : rnd_f();
        p.act_min = t % 2 ? -3.0f : -FLT_MAX, p.act_max = t % 2 ? 2.5f : FLT_MAX;
        int64_t n = rt_bcast_numel(&p.bc);
        rt_div_f32(&p, a, b, want);
        rt_opt_div_f32(&p, a, b, got);
        snprintf(msg, sizeof msg, "rank %d, %lld elements", p.bc.rank, (long long)n);
        check(memcmp(got, want, sizeof(float) * (size_t)n) == 0, "div f32", msg);
    }
}

/* int8 SOFTMAX (rt_opt_softmax_i8) against the reference bit for bit: random beta x scale (its multiplier,
 * left shift and diff_min as TFLite derives them), depths 1..300 (vector bodies and tails), rows of equal
 * values, extremes, the table made per call or given, and 600-class rows (the reference's float-table rows). */
static void test_softmax_s8(void) {
    enum { MAXN = 4 * 600 };
    static int8_t in[MAXN], got[MAXN], want[MAXN];
    static int32_t table[256];
    static float ftab[256];
    char msg[200];
    for (int t = 0; t < 80; t++) {
        rt_softmax_params p;
        memset(&p, 0, sizeof p);
        p.outer = rnd_in(1, 4), p.depth = t % 10 == 9 ? 600 : t % 3 == 0 ? rnd_in(1, 40) : rnd_in(16, 300);
        p.input_multiplier = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        p.input_left_shift = rnd_in(18, 28);
        /* TFLite's CalculateInputRadius(5, left_shift, 31) */
        p.diff_min = -(int32_t)floor(31.0 * (double)(1LL << 26) / (double)(1LL << p.input_left_shift));
        for (int i = 0; i < p.outer * p.depth; i++)
            in[i] = (int8_t)(t % 7 == 3 ? 17 : t % 11 == 5 ? (i % 2 ? 127 : -128) : rnd_in(-128, 127));
        if (p.depth == 600) {
            const double s = ldexp((double)p.input_multiplier, p.input_left_shift - 31 - 26); /* beta x scale */
            for (int v = 0; v < 256; v++) ftab[v] = (float)exp(-s * v);
            p.exp_table = ftab, p.out_scale = 1.0f / 256.0f;
        }
        if (t % 2) rt_softmax_exp_table_q0(&p, table), p.exp_q0 = table;
        rt_softmax_i8(&p, in, want);
        memset(got, 0x55, sizeof got);
        rt_opt_softmax_i8(&p, in, got);
        int64_t n = (int64_t)p.outer * p.depth;
        snprintf(msg, sizeof msg, "%d rows x %d, mult %d shift %d diff_min %d, table %s: %lld of %lld differ", p.outer,
                 p.depth, p.input_multiplier, p.input_left_shift, p.diff_min, p.exp_q0 ? "given" : "per call",
                 (long long)count_diff_i8(got, want, n), (long long)n);
        check(count_diff_i8(got, want, n) == 0, "softmax int8", msg);
    }
}

/* SELECT / SELECT_V2 (rt_opt_select, element sizes 1, 2, 4, 8 and 3: the reference's) and LOGICAL_AND / OR
 * (rt_opt_logical) over random three-input broadcasts, against the reference byte for byte. */
static void test_select_logical(void) {
    enum { MAXN = 7 * 7 * 7 * 7 * 8 };
    static uint8_t cond[MAXN], x[MAXN], y[MAXN], got[MAXN], want[MAXN];
    char msg[200];
    for (int t = 0; t < 120; t++) {
        rt_bcast3 bc;
        int32_t st[3] = {1, 1, 1};
        memset(&bc, 0, sizeof bc);
        bc.rank = rnd_in(0, 4);
        for (int d = bc.rank - 1; d >= 0; d--) {
            bc.dims[d] = rnd_in(1, 7);
            for (int k = 0; k < 3; k++) {
                int b = rnd_in(0, 3) == 0;
                bc.stride[k][d] = b ? 0 : st[k];
                if (!b) st[k] *= bc.dims[d];
            }
        }
        int64_t n = 1;
        for (int d = 0; d < bc.rank; d++) n *= bc.dims[d];
        for (int i = 0; i < MAXN; i++) cond[i] = (uint8_t)(rnd_in(0, 2) == 0 ? 0 : rnd_in(1, 3)), x[i] = (uint8_t)rnd(),
                                       y[i] = (uint8_t)rnd();
        rt_select_params sp;
        static const int32_t sizes[] = {1, 2, 4, 8, 3};
        sp.bc = bc, sp.elem_size = sizes[t % 5];
        memset(got, 0xA5, sizeof got), memset(want, 0x5A, sizeof want);
        rt_select(&sp, cond, x, y, want);
        rt_opt_select(&sp, cond, x, y, got);
        snprintf(msg, sizeof msg, "rank %d, %lld elements of %d bytes", bc.rank, (long long)n, sp.elem_size);
        check(memcmp(got, want, (size_t)(n * sp.elem_size)) == 0, "select", msg);
        rt_logical_params lp;
        lp.bc = bc, lp.op = t % 2 ? RT_LOGICAL_OR : RT_LOGICAL_AND;
        rt_logical(&lp, cond, x, want);
        rt_opt_logical(&lp, cond, x, got);
        snprintf(msg, sizeof msg, "%s, rank %d, %lld elements", t % 2 ? "or" : "and", bc.rank, (long long)n);
        check(memcmp(got, want, (size_t)n) == 0, "logical", msg);
    }
}

/* int8 ADD/SUB over every value of one operand (the other broadcast), for many multipliers and
 * shifts of both inputs: the optimized rescalings (32-bit for an int8 operand, 64-bit otherwise)
 * against the reference on all 256 values, shifts 0 and 2^30 multipliers included. */
static void test_addsub_sweep(void) {
    char msg[200];
    int8_t a[256], b[1], got[256], want[256];
    for (int i = 0; i < 256; i++) a[i] = (int8_t)(i - 128);
    for (int t = 0; t < 600; t++) {
        rt_binary_params p;
        memset(&p, 0, sizeof p);
        p.bc.rank = 1, p.bc.dims[0] = 256, p.bc.stride1[0] = 1, p.bc.stride2[0] = 0;
        b[0] = (int8_t)rnd_in(-128, 127);
        p.act_qmin = -128, p.act_qmax = 127, p.left_shift = t % 7 == 0 ? rnd_in(8, 22) : 20;
        p.in1_offset = -rnd_in(-128, 127), p.in2_offset = -rnd_in(-128, 127), p.out_offset = rnd_in(-128, 127);
        p.in1_mult = t % 4 == 0 ? (int32_t)1 << 30 : (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        p.in1_shift = t % 4 == 0 ? 0 : -rnd_in(0, 12);
        p.in2_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.in2_shift = -rnd_in(0, 12);
        p.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        p.out_shift = -rnd_in(p.left_shift - 4, p.left_shift + 2); /* outputs spread over the int8 range */
        if (t % 3 == 2) /* a fused ReLU / ReLU6: bounds from the zero point (no negative-product correction) */
            p.act_qmin = p.out_offset, p.act_qmax = p.out_offset + 50 < 127 ? p.out_offset + 50 : 127;
        const int sub = t % 2;
        (sub ? rt_sub_i8 : rt_add_i8)(&p, a, b, want);
        (sub ? rt_opt_sub_i8 : rt_opt_add_i8)(&p, a, b, got);
        snprintf(msg, sizeof msg, "%s: left %d, in1 %d/%d off %d, %lld of 256 differ", sub ? "sub" : "add",
                 p.left_shift, p.in1_mult, p.in1_shift, p.in1_offset, (long long)count_diff_i8(got, want, 256));
        check(count_diff_i8(got, want, 256) == 0, "int8 add/sub sweep", msg);
    }
}

/* int8 ADD/SUB requantized in float (pass schedule's sched_float_rq): for random scales and zero
 * points, every one of the 65536 input pairs through the optimized kernel, out of place and in place
 * (the fused residual ADD writes over either operand), against the reference. Both float modes
 * must occur (no near-ties at all, and near-ties sent to the integer path). */
static void test_addsub_float(void) {
    static int8_t a[65536], b[65536], got[65536], want[65536];
    char msg[200];
    int modes[3] = {0, 0, 0};
    for (int i = 0; i < 65536; i++) a[i] = (int8_t)((i >> 8) - 128), b[i] = (int8_t)((i & 255) - 128);
    for (int t = 0; t < 120; t++) {
        rt_binary_params p;
        memset(&p, 0, sizeof p);
        p.bc.rank = 1, p.bc.dims[0] = 65536, p.bc.stride1[0] = 1, p.bc.stride2[0] = 1;
        p.act_qmin = -128, p.act_qmax = 127, p.left_shift = 20;
        p.in1_offset = -rnd_in(-128, 127), p.in2_offset = -rnd_in(-128, 127), p.out_offset = rnd_in(-128, 127);
        /* TFLite's form: the larger-scale input gets 2^30 with shift 0 (a real multiplier of 1/2) */
        p.in1_mult = (int32_t)1 << 30, p.in1_shift = 0;
        p.in2_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.in2_shift = -rnd_in(0, 3);
        if (t % 2) p.in2_mult = (int32_t)1 << 30, p.in2_shift = -rnd_in(0, 1); /* equal or dyadic scales */
        p.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.out_shift = -rnd_in(16, 20);
        if (t % 3 == 2) p.act_qmin = p.out_offset; /* a fused ReLU */
        const int sub = t % 4 == 3;
        int ties = 0;
        const int mode = sched_float_rq(&p, sub ? -1 : 1, &ties);
        modes[mode]++;
        (sub ? rt_sub_i8 : rt_add_i8)(&p, a, b, want);
        (sub ? rt_opt_sub_i8 : rt_opt_add_i8)(&p, a, b, got);
        snprintf(msg, sizeof msg, "%s mode %d (%d near-ties): in2 %d/%d, out %d/%d off %d; %lld of 65536 differ",
                 sub ? "sub" : "add", mode, ties, p.in2_mult, p.in2_shift, p.out_mult, p.out_shift, p.out_offset,
                 (long long)count_diff_i8(got, want, 65536));
        check(count_diff_i8(got, want, 65536) == 0, "int8 add/sub float requantization", msg);
        if (sub) continue;
        { /* one operand broadcast (stride 0), each side in turn */
            const int8_t one = b[(t * 97) & 65535];
            int64_t bad = 0;
            rt_opt_add_run_i8(&p, a, 1, &one, 0, got, 65536);
            for (int i = 0; i < 65536; i++) bad += got[i] != (int8_t)rt_addsub_q(&p, a[i], one, 1);
            rt_opt_add_run_i8(&p, &one, 0, a, 1, got, 65536);
            for (int i = 0; i < 65536; i++) bad += got[i] != (int8_t)rt_addsub_q(&p, one, a[i], 1);
            check(bad == 0, "int8 add float requantization, one operand broadcast", msg);
        }
        { /* a run whose length is not a multiple of 64 or 16, from an odd offset (the 64-lane loop's tail) */
            const int64_t n = 65536 - 4242 - 5;
            memset(got, 0x55, sizeof got);
            rt_opt_add_run_i8(&p, a + 5, 1, b + 5, 1, got, n);
            check(count_diff_i8(got, want + 5, n) == 0 && got[n] == 0x55, "int8 add float requantization, odd run", msg);
        }
        memcpy(got, a, sizeof got); /* in place over the first operand, then over the second */
        rt_opt_add_run_i8(&p, got, 1, b, 1, got, 65536);
        check(count_diff_i8(got, want, 65536) == 0, "int8 add float requantization, in place (first operand)", msg);
        memcpy(got, b, sizeof got);
        rt_opt_add_run_i8(&p, a, 1, got, 1, got, 65536);
        check(count_diff_i8(got, want, 65536) == 0, "int8 add float requantization, in place (second operand)", msg);
    }
    snprintf(msg, sizeof msg, "modes 0/1/2: %d/%d/%d of 120", modes[0], modes[1], modes[2]);
    check(modes[1] > 0 && modes[2] > 0, "int8 add/sub float requantization: both float modes exercised", msg);
    /* scales 1 and 1/2 exactly: a + b/2 is a tie for every odd b, which TFLite rounds away from zero and
     * the float form to even; far too many near-ties, so the integer path (mode 0) must be kept */
    {
        rt_binary_params p;
        int ties = 0;
        memset(&p, 0, sizeof p);
        p.bc.rank = 1, p.bc.dims[0] = 65536, p.bc.stride1[0] = 1, p.bc.stride2[0] = 1;
        p.act_qmin = -128, p.act_qmax = 127, p.left_shift = 20, p.in1_offset = 3, p.in2_offset = -5, p.out_offset = 1;
        p.in1_mult = (int32_t)1 << 30, p.in1_shift = 0, p.in2_mult = (int32_t)1 << 30, p.in2_shift = -1;
        p.out_mult = (int32_t)1 << 30, p.out_shift = -18;
        const int mode = sched_float_rq(&p, 1, &ties);
        rt_add_i8(&p, a, b, want);
        rt_opt_add_i8(&p, a, b, got);
        snprintf(msg, sizeof msg, "mode %d with %d near-ties, %lld of 65536 differ", mode, ties,
                 (long long)count_diff_i8(got, want, 65536));
        check(mode == 0 && ties > 655 && count_diff_i8(got, want, 65536) == 0,
              "int8 add float requantization refused on exact ties", msg);
    }
}

/* Per-tensor QUANTIZE/DEQUANTIZE: identical to the reference on random values, exact halves,
 * values far out of range, infinities and NaN. */
static void test_cast(void) {
    enum { N = 4099 };
    static float x[N], back_ref[N], back_opt[N];
    static int8_t q_ref[N], q_opt[N];
    char detail[128];
    for (int trial = 0; trial < 20; trial++) {
        rt_quant_params p;
        memset(&p, 0, sizeof p);
        p.n = N - (trial % 7);
        p.in_type = RT_F32, p.out_type = RT_I8;
        p.scale = (float)rnd_in(1, 100000) / 1.0e6f;
        p.zero_point = rnd_in(-128, 127);
        for (int i = 0; i < N; i++) {
            switch (rnd() % 8) {
            case 0: x[i] = p.scale * ((float)rnd_in(-300, 300) + 0.5f); break; /* exact halves */
            case 1: x[i] = rnd_f() * 1e9f; break;
            case 2: x[i] = nextafterf(p.scale * ((float)rnd_in(-300, 300) + 0.5f), 0.0f); break; /* just inside */
            default: x[i] = rnd_f() * p.scale * 150.0f; break;
            }
        }
        x[0] = INFINITY, x[1] = -INFINITY, x[2] = NAN, x[3] = -0.0f;
        rt_quantize_f32(&p, x, q_ref);
        rt_opt_quantize_f32_s8(&p, x, q_opt);
        int64_t bad = count_diff_i8(q_ref, q_opt, p.n);
        snprintf(detail, sizeof detail, "scale %g zp %d: %lld of %lld differ", (double)p.scale, (int)p.zero_point,
                 (long long)bad, (long long)p.n);
        check(bad == 0, "quantize f32->s8", detail);
        /* mpcc's float quantization (x times 1 / scale, one fused multiply-add): the same on the same
         * values, and within one step of TFLite's division wherever that is in range. */
        p.inv_scale = (float)(1.0 / (double)p.scale);
        rt_quantize_f32(&p, x, q_ref);
        rt_opt_quantize_f32_s8(&p, x, q_opt);
        bad = count_diff_i8(q_ref, q_opt, p.n);
        int64_t far = 0;
        for (int64_t i = 4; i < p.n; i++) {
            /* clamped in double first: x / scale past int32 (a small scale) no longer wraps in the conversion */
            double e = nearbyint((double)(x[i] / p.scale)) + p.zero_point;
            e = e < -128.0 ? -128.0 : e > 127.0 ? 127.0 : e;
            int32_t d = (int32_t)q_ref[i] - (int32_t)e;
            far += fabsf(x[i]) < 1e6f && (d > 1 || d < -1);
        }
        snprintf(detail, sizeof detail, "scale %g zp %d: %lld of %lld differ, %lld more than 1 from x / scale",
                 (double)p.scale, (int)p.zero_point, (long long)bad, (long long)p.n, (long long)far);
        check(bad == 0 && far == 0 && q_ref[2] == -128 && q_ref[0] == 127 && q_ref[1] == -128,
              "quantize f32->s8, float form", detail);
        p.inv_scale = 0.0f;
        rt_quantize_f32(&p, x, q_ref);
        p.in_type = RT_I8, p.out_type = RT_F32;
        rt_dequantize_int(&p, q_ref, back_ref);
        rt_opt_dequantize_s8_f32(&p, q_ref, back_opt);
        check(memcmp(back_ref, back_opt, sizeof(float) * (size_t)p.n) == 0, "dequantize s8->f32", detail);
        /* CAST complex64 -> float32: x read as (re, im) pairs, the real parts */
        p.n = N / 2 - (trial % 5);
        p.in_type = RT_C64, p.out_type = RT_F32;
        rt_cast(&p, x, back_ref);
        rt_opt_cast_c64_f32(&p, x, back_opt);
        check(memcmp(back_ref, back_opt, sizeof(float) * (size_t)p.n) == 0, "cast c64->f32", detail);
    }
}

int main(void) {
    unit_seed(20261123ULL, rt_opt_isa());
    test_binary();
    test_addsub_sweep();
    test_addsub_float();
    test_cast();
    test_softmax_s8();
    test_select_logical();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
