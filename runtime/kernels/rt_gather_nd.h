/* rt_gather_nd.h - GATHER_ND kernels (any data dtype; indices int32 or int64). */
#ifndef MPCC_RT_GATHER_ND_H
#define MPCC_RT_GATHER_ND_H

typedef struct rt_gather_nd_params {
    int64_t slices;                   /* index tuples: product of indices dims but the last */
    int32_t depth;                    /* indices' last dim: params dims addressed by one tuple */
    int32_t dims[RT_MAX_RANK];        /* params dims [0, depth) */
    int64_t stride_bytes[RT_MAX_RANK];/* bytes between consecutive indices of params dim j < depth */
    int64_t slice_bytes;              /* bytes of one gathered slice (params dims [depth, rank)) */
} rt_gather_nd_params;

/* out[s][:] = in[idx[s][0]]...[idx[s][depth-1]][:]. A tuple outside params
 * (an error in TFLite) yields a slice of zero bytes. */
void rt_gather_nd_i32(const rt_gather_nd_params *p, const void *in, const int32_t *idx, void *out);
void rt_gather_nd_i64(const rt_gather_nd_params *p, const void *in, const int64_t *idx, void *out);

#endif
