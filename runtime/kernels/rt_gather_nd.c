/* rt_gather_nd.c - GATHER_ND kernels (TFLite reference semantics). */
#include <string.h>

#include "mpcc_rt.h"

#define GATHER_ND(NAME, T)                                                                 \
    void NAME(const rt_gather_nd_params *p, const void *in, const T *idx, void *out) {     \
        int64_t s;                                                                         \
        int32_t j;                                                                         \
        for (s = 0; s < p->slices; s++) {                                                  \
            uint8_t *dst = (uint8_t *)out + s * p->slice_bytes;                            \
            int64_t src = 0;                                                               \
            int ok = 1;                                                                    \
            for (j = 0; j < p->depth; j++) {                                               \
                int64_t i = (int64_t)idx[s * p->depth + j];                                \
                if (i < 0 || i >= p->dims[j]) ok = 0;                                      \
                else src += i * p->stride_bytes[j];                                        \
            }                                                                              \
            if (ok) memcpy(dst, (const uint8_t *)in + src, (size_t)p->slice_bytes);        \
            else memset(dst, 0, (size_t)p->slice_bytes);                                   \
        }                                                                                  \
    }

GATHER_ND(rt_gather_nd_i32, int32_t)
GATHER_ND(rt_gather_nd_i64, int64_t)
