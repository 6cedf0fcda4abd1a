/* check_main.h - what the kernel checks in tests/arm64 share: a seeded xorshift64* stream, a count
 * of values compared, and `main(SEED, N)` running one_case(0..N-1) (defined by the including file,
 * which returns 1 after printing its first mismatch). Prints "ok COUNT" when every case matched. */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;
static uint32_t next(void) { /* xorshift64* */
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return (uint32_t)((state * UINT64_C(2685821657736338717)) >> 32);
}

static int32_t range(int32_t lo, int32_t hi) { /* uniform in [lo, hi] */
    return lo + (int32_t)(next() % (uint32_t)(hi - lo + 1));
}

static long checked; /* values compared so far */

static int one_case(long k);

int main(int argc, char **argv) {
    long n, k;
    if (argc != 3) {
        fprintf(stderr, "usage: %s SEED N\n", argv[0]);
        return 1;
    }
    state = strtoull(argv[1], NULL, 10) * UINT64_C(0x9E3779B97F4A7C15) + 1;
    n = strtol(argv[2], NULL, 10);
    for (k = 0; k < n; k++)
        if (one_case(k)) return 1;
    printf("ok %ld\n", checked);
    return 0;
}

#endif
