/* rt_embedding_lookup.c - EMBEDDING_LOOKUP kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_embedding_lookup(const rt_embedding_lookup_params *p, const int32_t *ids, const void *value, void *out) {
    const uint8_t *src = (const uint8_t *)value;
    uint8_t *dst = (uint8_t *)out;
    int64_t row_bytes = p->row_elems * p->elem_size, k;
    int32_t i;
    for (i = 0; i < p->n_ids; i++) {
        int32_t id = ids[i];
        uint8_t *o = dst + (int64_t)i * row_bytes;
        if (id < 0 || id >= p->rows) {
            for (k = 0; k < row_bytes; k++) o[k] = 0;
            continue;
        }
        for (k = 0; k < row_bytes; k++) o[k] = src[(int64_t)id * row_bytes + k];
    }
}

void rt_embedding_lookup_i8_f32(const rt_embedding_lookup_params *p, const int32_t *ids, const int8_t *value,
                                float *out) {
    int64_t k;
    int32_t i;
    for (i = 0; i < p->n_ids; i++) {
        int32_t id = ids[i];
        float *o = out + (int64_t)i * p->row_elems;
        float s;
        if (id < 0 || id >= p->rows) {
            for (k = 0; k < p->row_elems; k++) o[k] = 0.0f;
            continue;
        }
        if (p->block) {
            const int64_t nb = p->row_elems / p->block;
            for (k = 0; k < p->row_elems; k++)
                o[k] = (float)value[(int64_t)id * p->row_elems + k] *
                       (p->scales ? p->scales[(int64_t)id * nb + k / p->block] : p->scale);
            continue;
        }
        s = p->scales ? p->scales[id] : p->scale;
        for (k = 0; k < p->row_elems; k++) o[k] = (float)value[(int64_t)id * p->row_elems + k] * s;
    }
}
