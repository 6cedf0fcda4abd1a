/* test_floor_kernels.c - FLOOR_DIV and FLOOR_MOD reference kernels on the values the model tests never draw:
 * every sign combination against TFLite's definitions (floor of the double quotient; the truncated remainder
 * moved to the divisor's sign), int32 extremes, and the defined results where TFLite fails the call (an integer
 * zero divisor gives 0; INT32_MIN / -1 wraps to INT32_MIN). Built by `make unit` (ASan+UBSan). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpcc_rt.h"

#include "unit_check.h"

#define N 64

static void flat(rt_binary_params *p, int32_t n) {
    memset(p, 0, sizeof *p);
    p->bc.rank = 1, p->bc.dims[0] = n, p->bc.stride1[0] = 1, p->bc.stride2[0] = 1;
}

static void test_i32(void) {
    int32_t a[N], b[N], q[N], r[N];
    static const int32_t edge_a[] = {INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX, -7, 7, -7, 7, 0, 5, INT32_MIN};
    static const int32_t edge_b[] = {-1, 1, -1, INT32_MIN, 2, -2, -2, 2, -3, 0, 0};
    int ne = (int)(sizeof edge_a / sizeof edge_a[0]);
    for (int i = 0; i < N; i++) {
        a[i] = i < ne ? edge_a[i] : (int32_t)rnd() ^ (int32_t)(rnd() << 16);
        b[i] = i < ne ? edge_b[i] : rnd_in(-1000, 1000);
        if (i >= ne && b[i] == 0) b[i] = 3;
    }
    rt_binary_params p;
    flat(&p, N);
    rt_floor_div_i32(&p, a, b, q);
    rt_floor_mod_i32(&p, a, b, r);
    int bad_q = 0, bad_r = 0;
    char detail[160] = "";
    for (int i = 0; i < N; i++) {
        int32_t wq, wr;
        if (b[i] == 0) wq = 0, wr = 0;
        else if (a[i] == INT32_MIN && b[i] == -1) wq = INT32_MIN, wr = 0;
        else {
            wq = (int32_t)floor((double)a[i] / (double)b[i]);
            wr = (int32_t)((int64_t)a[i] - (int64_t)wq * b[i]);
        }
        if (q[i] != wq && !bad_q++)
            snprintf(detail, sizeof detail, "%d // %d = %d, want %d", (int)a[i], (int)b[i], (int)q[i], (int)wq);
        if (r[i] != wr && !bad_r++)
            snprintf(detail, sizeof detail, "%d mod %d = %d, want %d", (int)a[i], (int)b[i], (int)r[i], (int)wr);
    }
    check(bad_q == 0, "floor_div i32 (signs, extremes, zero divisor)", bad_q ? detail : "");
    check(bad_r == 0, "floor_mod i32 (signs, extremes, zero divisor)", bad_r ? detail : "");
}

static void test_i64_f32(void) {
    int64_t a[4] = {INT64_MIN, -7, 7, 9}, b[4] = {-1, 2, -2, 0}, r[4];
    rt_binary_params p;
    flat(&p, 4);
    rt_floor_mod_i64(&p, a, b, r);
    check(r[0] == 0 && r[1] == 1 && r[2] == -1 && r[3] == 0, "floor_mod i64", "");
    float x[5] = {-7.5f, 7.5f, -7.5f, 1.0f, 0.0f}, y[5] = {2.0f, -2.0f, -2.0f, 0.0f, 0.0f}, q[5], m[5];
    flat(&p, 5);
    rt_floor_div_f32(&p, x, y, q);
    rt_floor_mod_f32(&p, x, y, m);
    check(q[0] == -4.0f && q[1] == -4.0f && q[2] == 3.0f && isinf(q[3]) && q[3] > 0 && isnan(q[4]),
          "floor_div f32 (zero divisor: IEEE)", "");
    check(m[0] == 0.5f && m[1] == -0.5f && m[2] == -1.5f && isnan(m[3]), "floor_mod f32 (sign of the divisor)", "");
    /* Random pairs: the remainder has the divisor's sign, is smaller than it and is a - q b. */
    float ra[N], rb[N], rq[N], rm[N];
    for (int i = 0; i < N; i++) {
        ra[i] = rnd_f() * 8.0f;
        rb[i] = rnd_f();
        if (fabsf(rb[i]) < 0.1f) rb[i] = 0.5f;
    }
    flat(&p, N);
    rt_floor_div_f32(&p, ra, rb, rq);
    rt_floor_mod_f32(&p, ra, rb, rm);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += (rm[i] != 0.0f && (rm[i] < 0.0f) != (rb[i] < 0.0f)) || fabsf(rm[i]) >= fabsf(rb[i]) ||
               fabs((double)ra[i] - ((double)rq[i] * rb[i] + rm[i])) > 1e-5 * (1.0 + fabs((double)ra[i]));
    check(bad == 0, "floor_div / floor_mod f32 random pairs", "");
}

int main(void) {
    unit_seed(20261201ULL, "generic");
    test_i32();
    test_i64_f32();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
