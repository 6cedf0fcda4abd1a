/* tfl_sparsity.c - densify sparse constants (see tfl_sparsity.h).
 *
 * The format: the tensor's dimensions, each blocked dimension split into
 * (blocks, block size), are visited in traversal order, one "level" each.
 * A dense level enumerates all its coordinates; a CSR level enumerates only
 * the coordinates listed in its indices array, the ones for parent position
 * p being indices[segments[p] .. segments[p+1]). Every complete coordinate
 * takes the next stored value. */
#include "tfl_sparsity.h"

#include <stdlib.h>
#include <string.h>

#include "tfl_schema.h"

#define MAX_LEVELS (2 * IR_MAX_RANK)

typedef struct Level {
    int dim;            /* expanded dimension: < rank an original one, else block rank-dim */
    int csr;
    int32_t size;       /* dense: coordinates on this level */
    int32_t *segments, *indices;
    uint32_t n_segments, n_indices;
} Level;

typedef struct Densify {
    const IrTensor *t;
    int index, rank, n_levels;
    Level level[MAX_LEVELS];
    int block_of[IR_MAX_RANK];      /* per original dim: its block (index into block_map), -1 */
    int32_t block_size[IR_MAX_RANK]; /* per block */
    int32_t coord[MAX_LEVELS];       /* per expanded dim: the current coordinate */
    const uint8_t *values;
    size_t n_values, next, esize;
    uint8_t *dense;
    Diag *d;
} Densify;

static int bad(Densify *z, const char *what) {
    return diag_user(z->d, "tensor %d '%s': sparse format: %s", z->index, z->t->name, what);
}

/* An Int32Vector / Uint16Vector / Uint8Vector union member as int32 values (malloc'd). */
static int index_vector(Densify *z, const FbTable *dm, int type_field, int field, int32_t **out, uint32_t *n) {
    uint8_t type = 0;
    FbTable vt;
    FbVec v;
    int present = 0;
    *out = NULL;
    *n = 0;
    if (fb_u8(dm, type_field, 0, &type, z->d) || fb_table(dm, field, &vt, &present, z->d)) return DIAG_USER;
    if (!present || type == TFL_SPARSE_INDEX_VECTOR_NONE) return bad(z, "a CSR level lacks its segments or indices");
    uint32_t es = type == TFL_SPARSE_INDEX_VECTOR_INT32_VECTOR    ? 4
                  : type == TFL_SPARSE_INDEX_VECTOR_UINT16_VECTOR ? 2
                  : type == TFL_SPARSE_INDEX_VECTOR_UINT8_VECTOR  ? 1
                                                                  : 0;
    if (!es) return bad(z, "unknown index vector type");
    /* Int32Vector, Uint16Vector and Uint8Vector all hold one field `values` in slot 0. */
    if (fb_vector(&vt, TFL_INT32_VECTOR_VALUES, es, &v, &present, z->d)) return DIAG_USER;
    if (!present) return bad(z, "an index vector has no values");
    int32_t *a = malloc(sizeof(int32_t) * (size_t)(v.len ? v.len : 1));
    if (!a) return diag_internal(z->d, "out of memory");
    const uint8_t *p = fb_vec_bytes(&v);
    for (uint32_t i = 0; i < v.len; i++) {
        uint32_t u = 0;
        for (uint32_t k = 0; k < es; k++) u |= (uint32_t)p[i * es + k] << (8 * k);
        if (u > (uint32_t)INT32_MAX) {
            free(a);
            return bad(z, "negative index or segment");
        }
        a[i] = (int32_t)u;
    }
    *out = a;
    *n = v.len;
    return 0;
}

/* Size of an expanded dimension: a blocked original dim counts blocks. */
static int64_t expanded_size(const Densify *z, int dim) {
    if (dim >= z->rank) return z->block_size[dim - z->rank];
    int b = z->block_of[dim];
    return b < 0 ? z->t->dims[dim] : z->t->dims[dim] / z->block_size[b];
}

static int visit(Densify *z, int lv, int64_t pos) {
    if (lv == z->n_levels) {
        int64_t flat = 0;
        for (int i = 0; i < z->rank; i++) {
            int64_t c = z->coord[i];
            if (z->block_of[i] >= 0) c = c * z->block_size[z->block_of[i]] + z->coord[z->rank + z->block_of[i]];
            flat = flat * z->t->dims[i] + c;
        }
        if (z->next >= z->n_values) return bad(z, "more coordinates than stored values");
        memcpy(z->dense + flat * (int64_t)z->esize, z->values + z->next * z->esize, z->esize);
        z->next++;
        return 0;
    }
    Level *l = &z->level[lv];
    int64_t n = expanded_size(z, l->dim);
    if (!l->csr) {
        for (int64_t i = 0; i < n; i++) {
            z->coord[l->dim] = (int32_t)i;
            int rc = visit(z, lv + 1, pos * n + i);
            if (rc) return rc;
        }
        return 0;
    }
    if (pos < 0 || (uint64_t)pos + 1 >= l->n_segments) return bad(z, "a segments array is too short");
    int32_t lo = l->segments[pos], hi = l->segments[pos + 1];
    if (lo > hi || (uint32_t)hi > l->n_indices) return bad(z, "segments out of order or past the indices");
    for (int32_t i = lo; i < hi; i++) {
        if (l->indices[i] >= n) return bad(z, "an index is out of range for its dimension");
        z->coord[l->dim] = l->indices[i];
        int rc = visit(z, lv + 1, i);
        if (rc) return rc;
    }
    return 0;
}

static int read_int_list(Densify *z, const FbTable *sp, int field, int32_t *out, int max, int *n) {
    FbVec v;
    int present = 0;
    *n = 0;
    if (fb_vector(sp, field, 4, &v, &present, z->d)) return DIAG_USER;
    if (!present) return 0;
    if (v.len > (uint32_t)max) return bad(z, "too many traversal levels or blocks");
    for (uint32_t i = 0; i < v.len; i++)
        if (fb_vec_i32(&v, i, &out[i], z->d)) return DIAG_USER;
    *n = (int)v.len;
    return 0;
}

static int densify(Densify *z, const FbTable *sp) {
    int32_t order[MAX_LEVELS], block_map[IR_MAX_RANK];
    int n_order, n_blocks, rc;
    if ((rc = read_int_list(z, sp, TFL_SPARSITY_PARAMETERS_TRAVERSAL_ORDER, order, MAX_LEVELS, &n_order)) ||
        (rc = read_int_list(z, sp, TFL_SPARSITY_PARAMETERS_BLOCK_MAP, block_map, IR_MAX_RANK, &n_blocks)))
        return rc;
    z->n_levels = n_order;
    if (n_order != z->rank + n_blocks) return bad(z, "the traversal order must list every dimension and block once");
    for (int i = 0; i < z->rank; i++) z->block_of[i] = -1;
    for (int b = 0; b < n_blocks; b++) {
        if (block_map[b] < 0 || block_map[b] >= z->rank || (b > 0 && block_map[b] <= block_map[b - 1]))
            return bad(z, "the block map must name increasing dimensions");
        z->block_of[block_map[b]] = b;
    }
    int seen[MAX_LEVELS] = {0};
    for (int i = 0; i < n_order; i++) {
        /* Original dimensions first, then the block dimensions (TFLite's layout). */
        if (order[i] < 0 || order[i] >= n_order || seen[order[i]] || (i < z->rank) != (order[i] < z->rank))
            return bad(z, "the traversal order is not a permutation of the dimensions, blocks last");
        seen[order[i]] = 1;
    }
    FbVec dims;
    int present = 0;
    if (fb_vector(sp, TFL_SPARSITY_PARAMETERS_DIM_METADATA, 4, &dims, &present, z->d)) return DIAG_USER;
    if (!present || dims.len != (uint32_t)n_order) return bad(z, "one dim_metadata entry per traversal level is needed");
    for (int i = 0; i < n_order; i++) {
        FbTable dm;
        int8_t format = 0;
        int32_t dense_size = 0;
        Level *l = &z->level[i];
        l->dim = order[i];
        if (fb_vec_table(&dims, (uint32_t)i, &dm, z->d) || fb_i8(&dm, TFL_DIMENSION_METADATA_FORMAT, 0, &format, z->d) ||
            fb_i32(&dm, TFL_DIMENSION_METADATA_DENSE_SIZE, 0, &dense_size, z->d))
            return DIAG_USER;
        if (format != TFL_DIMENSION_TYPE_DENSE && format != TFL_DIMENSION_TYPE_SPARSE_CSR)
            return bad(z, "unknown dimension format");
        l->csr = format == TFL_DIMENSION_TYPE_SPARSE_CSR;
        l->size = dense_size;
        if (l->dim >= z->rank) {
            if (l->csr || dense_size <= 0) return bad(z, "a block dimension must be dense with a positive size");
            z->block_size[l->dim - z->rank] = dense_size;
        }
        if (l->csr) {
            if ((rc = index_vector(z, &dm, TFL_DIMENSION_METADATA_ARRAY_SEGMENTS_TYPE, TFL_DIMENSION_METADATA_ARRAY_SEGMENTS,
                                   &l->segments, &l->n_segments)) ||
                (rc = index_vector(z, &dm, TFL_DIMENSION_METADATA_ARRAY_INDICES_TYPE, TFL_DIMENSION_METADATA_ARRAY_INDICES,
                                   &l->indices, &l->n_indices)))
                return rc;
        }
    }
    for (int i = 0; i < z->rank; i++) {
        int b = z->block_of[i];
        if (b >= 0 && z->t->dims[i] % z->block_size[b] != 0)
            return bad(z, "a block size does not divide its dimension");
    }
    for (int i = 0; i < n_order; i++)
        if (!z->level[i].csr && z->level[i].size != expanded_size(z, z->level[i].dim))
            return bad(z, "a dense level's size differs from its dimension");
    if ((rc = visit(z, 0, 0))) return rc;
    if (z->next != z->n_values) return bad(z, "stored values left over after the last coordinate");
    return 0;
}

int tfl_densify(Graph *g, const FbTable *sparsity, const IrTensor *t, int index, const uint8_t *data, size_t size,
                const uint8_t **dense, Diag *d) {
    Densify z;
    memset(&z, 0, sizeof z);
    z.t = t;
    z.index = index;
    z.rank = t->rank;
    z.d = d;
    z.esize = ir_dtype_size(t->dtype);
    int64_t bytes = ir_tensor_bytes(t);
    /* The dense form is allocated (zero-filled) before the sparse structure is walked: a few bytes of
     * metadata must not claim gigabytes (the fuzzer's 4.7 KB file asked for 1.85 GB). Real sparse weights
     * are a few times their stored values; 256 times plus 64 MiB, and 1 GiB in all, leave room. */
    if (bytes < 0 || bytes > ((int64_t)1 << 30)) return bad(&z, "the dense tensor is too large (over 1 GiB)");
    if (bytes > 256 * (int64_t)size + ((int64_t)64 << 20))
        return bad(&z, "the dense tensor is too large for its stored values (over 256 times their bytes plus 64 MiB)");
    if (size % z.esize != 0) return bad(&z, "the values are not a whole number of elements");
    z.values = data;
    z.n_values = size / z.esize;
    z.dense = ir_alloc(g, (size_t)bytes ? (size_t)bytes : 1); /* zero-filled */
    if (!z.dense) return diag_internal(d, "out of memory");
    int rc = densify(&z, sparsity);
    for (int i = 0; i < MAX_LEVELS; i++) {
        free(z.level[i].segments);
        free(z.level[i].indices);
    }
    if (!rc) *dense = z.dense;
    return rc;
}
