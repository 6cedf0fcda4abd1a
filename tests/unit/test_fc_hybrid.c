/* test_fc_hybrid.c - the scheduled hybrid FULLY_CONNECTED (rt_opt_fc_hybrid: int8 weight rows
 * streamed, 16-bit products, and with several input rows 8-bit products where a block of rows has
 * no -128) against the reference rt_fully_connected_hybrid, bit for bit, on random shapes: depths
 * around the 16- and 32-byte steps, 1 to 5 rows, symmetric and asymmetric input quantization,
 * per-tensor and per-channel scales, weights with and without -128, inputs of one sign; and
 * rt_opt_fc_hybrid_w4 on int4 weights (values in [-8, 7], packed by sched_pack_int4) the same way,
 * depths around its 64-value blocks; and rt_opt_fc_hybrid_w4 with block-wise scales (p.block 8 to 128, weights
 * packed by sched_pack_int4_blocks: rt_opt_fc_hybrid_blk.c) against rt_fully_connected_hybrid_blockwise. A third of the cases take 2 to 12 rows and 32 to 70 outputs: on
 * AVX512-VNNI builds (tests/test_opt_kernels.py builds this file with -march=native) their whole blocks of 32
 * weight rows run the transposed-panel GEMM (rt_opt_fc_hybrid_vnni.c). Then 150 block-wise cases of 1 to 70 rows,
 * odd output counts, blocks 8 to 128 (the AVX512-VNNI tile over pairs of groups, rt_opt_fc_hybrid_blk512.c).
 * The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <stdio.h>
#include <string.h>

#include "mpcc_rt.h"
#include "sched_pack.h"

#include "unit_check.h"

int main(void) {
    enum { MAXB = 12, MAXK = 200, MAXN = 70, CASES = 400 };
    static float x[MAXB * MAXK], bias[MAXN], ws[MAXN], ref[MAXB * MAXN], got[MAXB * MAXN], bs[MAXN * MAXK];
    static int8_t w[MAXN * MAXK], scratch_ref[MAXK];
    static unsigned char scratch[1 << 16];
    static uint8_t w4[MAXN * (MAXK + 63) / 64 * 32], w4b[(MAXN + 7) / 8 * 8 * (MAXK / 2 + MAXK / 8 * 2)];
    int bad = 0, bad4 = 0, badb = 0, nblk = 0, with_min = 0, without_min = 0;
    char msg[160] = "", msg2[80];
    (void)max_rel_f32, (void)max_err_over_bound, (void)count_diff_i8, (void)rnd_requant;
    unit_seed(20261129, rt_opt_isa());
    for (int it = 0; it < CASES; it++) {
        const int wide = it % 3 == 2;
        const int B = wide ? rnd_in(2, MAXB) : rnd_in(1, 5), K = rnd_in(1, MAXK), N = wide ? rnd_in(32, MAXN) : rnd_in(1, 11);
        rt_fc_params p;
        int has_min = 0;
        memset(&p, 0, sizeof p);
        p.batches = B, p.in_depth = K, p.out_depth = N, p.act_min = -1e30f, p.act_max = 1e30f;
        p.asymmetric = it & 1, p.w_scale = 0.01f, p.w_scales = (it & 2) ? ws : NULL;
        for (int i = 0; i < B * K; i++) x[i] = rnd_f() * ((it % 3) ? 1.0f : 300.0f) + ((it & 4) ? 2.5f : 0.0f);
        for (int i = 0; i < N * K; i++) w[i] = (int8_t)rnd_in(-128, 127);
        if (it % 4 == 0)
            for (int i = 0; i < N * K; i++) w[i] = w[i] == -128 ? -127 : w[i];
        for (int i = 0; i < N * K; i++) has_min |= w[i] == -128;
        with_min += has_min, without_min += !has_min;
        for (int i = 0; i < N; i++) bias[i] = rnd_f(), ws[i] = 0.001f * (float)rnd_in(1, 50);
        if (rt_opt_fc_hybrid_scratch(B, K, N) > sizeof scratch) {
            check(0, "scratch", "rt_opt_fc_hybrid_scratch over the test's buffer");
            return 1;
        }
        rt_fully_connected_hybrid(&p, x, w, bias, ref, scratch_ref);
        rt_opt_fc_hybrid(&p, x, w, bias, got, scratch);
        if (memcmp(ref, got, sizeof(float) * (size_t)(B * N))) {
            if (!bad) snprintf(msg, sizeof msg, "first at case %d (B %d, K %d, N %d, asymmetric %d)", it, B, K, N, it & 1);
            bad++;
        }
        /* The same case with int4 weights. */
        for (int i = 0; i < N * K; i++) w[i] = (int8_t)rnd_in(-8, 7);
        sched_pack_int4(w, N, K, w4);
        if (rt_opt_fc_hybrid_w4_scratch(B, K, N) > sizeof scratch) {
            check(0, "scratch", "rt_opt_fc_hybrid_w4_scratch over the test's buffer");
            return 1;
        }
        rt_fully_connected_hybrid(&p, x, w, bias, ref, scratch_ref);
        rt_opt_fc_hybrid_w4(&p, x, w4, bias, got, scratch);
        if (memcmp(ref, got, sizeof(float) * (size_t)(B * N))) {
            if (!bad4) printf("int4: first difference at case %d (B %d, K %d, N %d, asymmetric %d)\n", it, B, K, N, it & 1);
            bad4++;
        }
        /* The same int4 weights with block-wise scales: K cut to a multiple of the block. */
        {
            static const int32_t blocks[] = {32, 64, 128, 16, 8};
            const int32_t blk = blocks[it % 5], Kb = K / blk * blk;
            rt_fc_params pb = p;
            if (Kb == 0) continue;
            for (int n = 0; n < N; n++)
                for (int k = 0; k < Kb; k++) w[n * Kb + k] = (int8_t)rnd_in(-8, 7);
            for (int i = 0; i < N * (Kb / blk); i++) bs[i] = (float)rnd_in(1, 2000) / 65536.0f; /* fp16 values */
            pb.in_depth = Kb, pb.block = blk, pb.w_scales = (it & 8) && Kb == blk && N == 1 ? NULL : bs;
            pb.w_scale = bs[0];
            if (sched_pack_int4_blocks(w, bs, N, Kb, blk, w4b)) {
                check(0, "pack", "sched_pack_int4_blocks refused fp16 scales");
                return 1;
            }
            if (rt_opt_fc_hybrid_w4b_scratch(B, Kb, blk) > sizeof scratch) {
                check(0, "scratch", "rt_opt_fc_hybrid_w4b_scratch over the test's buffer");
                return 1;
            }
            rt_fully_connected_hybrid(&pb, x, w, bias, ref, scratch_ref);
            rt_opt_fc_hybrid_w4(&pb, x, w4b, bias, got, scratch);
            nblk++;
            if (memcmp(ref, got, sizeof(float) * (size_t)(B * N))) {
                if (!badb) printf("block-wise: first difference at case %d (B %d, K %d, N %d, block %d)\n", it, B, Kb, N, blk);
                badb++;
            }
        }
    }
    /* Block-wise, prefill shapes: 1 to 70 rows (the AVX512-VNNI tile of up to 8 rows over pairs of 8-row groups
     * and its rests), odd output counts, blocks 8 to 128. */
    for (int it = 0; it < 150; it++) {
        static float xb[70 * 256], refb[70 * 90], gotb[70 * 90], bsb[90 * 32], biasb[90];
        static int8_t wb[90 * 256], sref[256];
        static uint8_t w4bb[96 * (128 + 64)];
        static const int32_t blocks[] = {16, 32, 64, 128, 8};
        const int32_t blk = blocks[it % 5], B = it < 70 ? it + 1 : rnd_in(1, 70), Kb = blk * rnd_in(1, 256 / blk);
        const int32_t N = it % 2 ? 2 * rnd_in(1, 45) - 1 : rnd_in(1, 90);
        rt_fc_params pb;
        memset(&pb, 0, sizeof pb);
        pb.batches = B, pb.in_depth = Kb, pb.out_depth = N, pb.act_min = it % 7 == 3 ? 0.0f : -1e30f;
        pb.act_max = 1e30f, pb.asymmetric = 1, pb.block = blk, pb.w_scales = bsb, pb.w_scale = 0.01f;
        for (int i = 0; i < B * Kb; i++) xb[i] = rnd_f() * ((it % 3) ? 1.0f : 300.0f) + ((it & 4) ? 2.5f : 0.0f);
        for (int i = 0; i < N * Kb; i++) wb[i] = (int8_t)rnd_in(-8, 7);
        for (int i = 0; i < N * (Kb / blk); i++) bsb[i] = (float)rnd_in(1, 2000) / 65536.0f;
        for (int i = 0; i < N; i++) biasb[i] = rnd_f();
        if (sched_pack_int4_blocks(wb, bsb, N, Kb, blk, w4bb) || rt_opt_fc_hybrid_w4b_scratch(B, Kb, blk) > sizeof scratch) {
            check(0, "pack", "sched_pack_int4_blocks refused fp16 scales, or scratch over the test's buffer");
            return 1;
        }
        rt_fully_connected_hybrid(&pb, xb, wb, (it / 5) % 3 == 1 ? NULL : biasb, refb, sref);
        rt_opt_fc_hybrid_w4(&pb, xb, w4bb, (it / 5) % 3 == 1 ? NULL : biasb, gotb, scratch);
        nblk++;
        if (memcmp(refb, gotb, sizeof(float) * (size_t)(B * N))) {
            if (!badb) printf("block-wise: first difference at case %d (B %d, K %d, N %d, block %d)\n", it, B, Kb, N, blk);
            badb++;
        }
    }
    snprintf(msg2, sizeof msg2, "%d cases (blocks 8 to 128)", nblk);
    check(badb == 0, "rt_opt_fc_hybrid_w4 with block-wise scales == rt_fully_connected_hybrid_blockwise, bit for bit",
          badb ? "see above" : msg2);
    check(bad4 == 0, "rt_opt_fc_hybrid_w4 == rt_fully_connected_hybrid on int4 values, bit for bit",
          bad4 ? "see above" : "400 cases");
    snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%d of %d cases differ (%d with a -128 weight, %d without)",
             msg[0] ? "; " : "", bad, CASES, with_min, without_min);
    check(bad == 0, "rt_opt_fc_hybrid == rt_fully_connected_hybrid, bit for bit", msg);
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
