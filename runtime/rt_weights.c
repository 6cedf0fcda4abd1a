/* rt_weights.c - the weights blob of `mpcc --weights file`: its header and
 * content hash. The compiler computes the hash with these same functions
 * while it writes the blob, and the generated <prefix>_check_weights and
 * <prefix>_run check a blob with them, so the two cannot disagree.
 *
 * Blob layout: 8 bytes "mpccwts1", the 64-bit hash of the payload
 * (little-endian), then the payload (the constants, each 16-byte aligned).
 * The hash is not cryptographic: it tells a blob of another model, another
 * compile of a changed model or a truncated or damaged file from the right
 * one; it does not stop a deliberate forgery. */
#include "mpcc_rt.h"

static const unsigned char rt_weights_magic[8] = {'m', 'p', 'c', 'c', 'w', 't', 's', '1'};

static uint64_t rt_load64le(const unsigned char *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

uint64_t rt_hash_update(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t w = rt_load64le(p + i) * UINT64_C(0xbf58476d1ce4e5b9);
        w ^= w >> 31;
        h = (h ^ w) * UINT64_C(0x94d049bb133111eb);
        h = (h << 27) | (h >> 37);
    }
    return h;
}

uint64_t rt_hash_final(uint64_t h, uint64_t total_bytes) {
    h ^= total_bytes * UINT64_C(0x9e3779b97f4a7c15);
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

uint64_t rt_hash(const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    unsigned char tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t whole = n / 8 * 8, i;
    uint64_t h = rt_hash_update(RT_HASH_SEED, p, whole);
    if (whole < n) {
        for (i = whole; i < n; i++) tail[i - whole] = p[i];
        h = rt_hash_update(h, tail, 8);
    }
    return rt_hash_final(h, (uint64_t)n);
}

void rt_weights_header(unsigned char out[RT_WEIGHTS_HEADER_BYTES], uint64_t hash) {
    int i;
    for (i = 0; i < 8; i++) out[i] = rt_weights_magic[i];
    for (i = 0; i < 8; i++) out[8 + i] = (unsigned char)(hash >> (8 * i));
}

int rt_weights_header_ok(const void *blob, uint64_t hash) {
    unsigned char want[RT_WEIGHTS_HEADER_BYTES];
    const unsigned char *p = (const unsigned char *)blob;
    int i;
    rt_weights_header(want, hash);
    for (i = 0; i < RT_WEIGHTS_HEADER_BYTES; i++)
        if (p[i] != want[i]) return 0;
    return 1;
}

int rt_weights_check(const void *blob, size_t n, size_t want_bytes, uint64_t want_hash) {
    const unsigned char *p = (const unsigned char *)blob;
    if (!blob) return RT_ERR_NULL_ARG;
    if (n != want_bytes || n < RT_WEIGHTS_HEADER_BYTES) return RT_ERR_WEIGHTS_SIZE;
    if (!rt_weights_header_ok(blob, want_hash)) return RT_ERR_WEIGHTS_HASH;
    if (rt_hash(p + RT_WEIGHTS_HEADER_BYTES, n - RT_WEIGHTS_HEADER_BYTES) != want_hash) return RT_ERR_WEIGHTS_HASH;
    return RT_OK;
}
