/* rt_opt_amx.c - the AMX tile unit (Linux, built with -mamx-tile and
 * -mamx-bf16/-mamx-int8): the tile configuration shared by the bf16 FC
 * (rt_opt_gemm_half.c) and the int8 GEMM (rt_opt_gemm_s8.c), the request for
 * the tile state, and the int8 tile product. Without AMX this file is empty. */
#if defined(__linux__) && defined(__AMX_TILE__)
#define _GNU_SOURCE /* syscall() */
#endif
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AMX)
#include <sys/syscall.h>
#include <unistd.h>

static int amx_state;

/* Linux gives the tile state to a process only on request, granted once for the whole process, so the answer
 * is asked for once and kept (0 not asked yet, 1 granted, 2 refused) rather than by a system call per GEMM
 * (small int8 models, kws_conv1d_int8 at 0.79x XNNPACK on an Emerald Rapids with AMX against 1.5x on the same
 * core without it, made one per convolution; how much of that gap it was is not measured). 0x1023 =
 * ARCH_REQ_XCOMP_PERM, 18 = XFEATURE_XTILEDATA. Threads that ask at once each make the call, with one answer. */
int rt_opt_amx_ready(void) {
    int s = __atomic_load_n(&amx_state, __ATOMIC_ACQUIRE);
    if (!s) {
        s = syscall(SYS_arch_prctl, 0x1023, 18) == 0 ? 1 : 2;
        __atomic_store_n(&amx_state, s, __ATOMIC_RELEASE);
    }
    return s == 1;
}

typedef struct amx_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} amx_config;

void rt_opt_amx_configure(int32_t rem) {
    amx_config c;
    int t;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (t = 0; t < 5; t++) c.rows[t] = 16, c.colsb[t] = 64;
    if (rem) {
        c.rows[5] = 16, c.colsb[5] = (uint16_t)(rem * 4);
        c.rows[6] = c.rows[7] = (uint8_t)rem, c.colsb[6] = c.colsb[7] = 64;
    }
    /* gcc does not see that ldtilecfg reads the struct and drops the stores without this barrier */
    __asm__ __volatile__("" : : "r"(&c) : "memory");
    _tile_loadconfig(&c);
}

#if defined(__AMX_INT8__)
void rt_opt_amx_u8(int32_t kq, const uint8_t *a8, int32_t lda8, const int8_t *b0, const int8_t *b1, int32_t *acc) {
    int32_t full = kq / 16, rem = kq % 16, t;
    _tile_zero(0);
    _tile_zero(1);
    for (t = 0; t < full; t++) {
        _tile_loadd(2, a8 + (int64_t)t * 64, lda8);
        _tile_loadd(3, b0 + (int64_t)t * 16 * 64, 64);
        _tile_dpbusd(0, 2, 3);
        _tile_loadd(4, b1 + (int64_t)t * 16 * 64, 64);
        _tile_dpbusd(1, 2, 4);
    }
    if (rem) {
        _tile_loadd(5, a8 + (int64_t)full * 64, lda8);
        _tile_loadd(6, b0 + (int64_t)full * 16 * 64, 64);
        _tile_dpbusd(0, 5, 6);
        _tile_loadd(7, b1 + (int64_t)full * 16 * 64, 64);
        _tile_dpbusd(1, 5, 7);
    }
    _tile_stored(0, acc, 64);
    _tile_stored(1, acc + 16 * 16, 64);
}
#endif
#else
typedef int rt_opt_amx_unused; /* ISO C: a translation unit is not empty */
#endif
