/* rt_embedding_lookup.h - EMBEDDING_LOOKUP kernels: out[i] = value[ids[i]]. */
#ifndef MPCC_RT_EMBEDDING_LOOKUP_H
#define MPCC_RT_EMBEDDING_LOOKUP_H

typedef struct rt_embedding_lookup_params {
    int32_t n_ids;       /* number of ids */
    int32_t rows;        /* value dims[0] */
    int64_t row_elems;   /* elements per row */
    int32_t elem_size;   /* bytes per value element (byte-copy kernel) */
    const float *scales; /* hybrid: per-row scales, or NULL to use scale */
    float scale;         /* hybrid: per-tensor scale */
    int32_t block;       /* hybrid, block-wise (TFLite BlockwiseQuantization): scales holds rows x (row_elems /
                          * block) scales, value k of a row taking its block k / block's; 0: per row / tensor */
} rt_embedding_lookup_params;

/* Same dtype in and out: row copy. An id outside [0, rows) (an error in
 * TFLite) yields a row of zero bytes. */
void rt_embedding_lookup(const rt_embedding_lookup_params *p, const int32_t *ids, const void *value, void *out);
/* Hybrid: int8 value table, f32 output = q * scale (zero point ignored, as TFLite). */
void rt_embedding_lookup_i8_f32(const rt_embedding_lookup_params *p, const int32_t *ids, const int8_t *value,
                                float *out);

#endif
