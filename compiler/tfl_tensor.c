/* tfl_tensor.c - one TFLite tensor -> an IrTensor: dtype, shape, quantization (per tensor, per channel,
 * int4 unpacked to int8), sparse constants densified, constant data bounds-checked against its buffer.
 * The file is untrusted: every index, count, dtype and size is checked before use. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fb.h"
#include "mpcc_rt.h"
#include "tfl_import_internal.h"
#include "tfl_schema.h"
#include "tfl_sparsity.h"

static int map_dtype(int tfl_type, IrDType *out) {
    switch (tfl_type) {
    case TFL_TYPE_FLOAT32: *out = IR_F32; return 0;
    case TFL_TYPE_FLOAT16: *out = IR_F16; return 0;
    case TFL_TYPE_BFLOAT16: *out = IR_BF16; return 0;
    case TFL_TYPE_INT8: *out = IR_I8; return 0;
    case TFL_TYPE_UINT8: *out = IR_U8; return 0;
    case TFL_TYPE_INT16: *out = IR_I16; return 0;
    case TFL_TYPE_INT32: *out = IR_I32; return 0;
    case TFL_TYPE_INT64: *out = IR_I64; return 0;
    case TFL_TYPE_BOOL: *out = IR_BOOL; return 0;
    case TFL_TYPE_COMPLEX64: *out = IR_C64; return 0;
    default: return -1;
    }
}

static const char *tfl_type_name(int t) {
    static const char *names[] = {"FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16",
                                  "COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
                                  "UINT32", "UINT16", "INT4", "BFLOAT16"};
    return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* Lenient import (inspect): an unsupported feature of a tensor is listed and
 * the tensor marked unknown; strict import stops at it. */
static int tensor_unsupported(Importer *im, IrTensor *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int tensor_unsupported(Importer *im, IrTensor *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vuser(im->d, fmt, ap);
    va_end(ap);
    im->info->unsupported++;
    if (t) {
        t->unknown = 2;
        t->data = NULL;
        t->data_size = 0;
    }
    return im->lenient ? 0 : DIAG_USER;
}

/* Constant data of buffer `bi` (NULL/0 if empty). */
static int buffer_data(Importer *im, uint32_t bi, const char *tname, const uint8_t **data, size_t *size) {
    *data = NULL;
    *size = 0;
    if (bi == 0) return 0;
    if (bi >= (uint32_t)im->n_buffers)
        return diag_user(im->d, "tensor '%s': buffer index %u out of range (model has %d buffers)", tname, bi,
                         im->n_buffers);
    FbTable bt;
    FbVec v;
    int present = 0;
    uint64_t off = 0, sz = 0;
    if (fb_vec_table(&im->buffers, bi, &bt, im->d)) return DIAG_USER;
    if (fb_vector(&bt, TFL_BUFFER_DATA, 1, &v, &present, im->d)) return DIAG_USER;
    if (fb_u64(&bt, TFL_BUFFER_OFFSET, 0, &off, im->d) || fb_u64(&bt, TFL_BUFFER_SIZE, 0, &sz, im->d))
        return DIAG_USER;
    if (present && v.len > 0) {
        *data = fb_vec_bytes(&v);
        *size = v.len;
    } else if (off > 1) {
        /* Large models keep data after the FlatBuffer; offset is from the file start. */
        if (off > im->buf->size || sz > im->buf->size - off)
            return diag_user(im->d, "tensor '%s': buffer %u data at byte %llu + %llu bytes runs past the end of the file (%zu bytes)",
                             tname, bi, (unsigned long long)off, (unsigned long long)sz, im->buf->size);
        *data = im->buf->data + off;
        *size = (size_t)sz;
    }
    return 0;
}

/* An INT4 tensor (TFLite packs two values a byte, the first in the low nibble, over the whole
 * tensor): only constants, unpacked to int8 values in [-8, 7]. */
static int import_int4(Importer *im, IrTensor *t, int index, uint32_t bufi, const uint8_t *data, size_t size,
                       int is_var) {
    if (!data || is_var)
        return tensor_unsupported(im, t, "tensor %d '%s': dtype INT4 is supported only for constant weights", index,
                                  t->name);
    int64_t n = ir_tensor_numel(t);
    if (n < 0 || (uint64_t)(n / 2 + n % 2) != size)
        return diag_user(im->d, "tensor %d '%s': INT4 buffer %u has %zu bytes but shape needs %lld (two values a byte)",
                         index, t->name, bufi, size, n < 0 ? -1LL : (long long)(n / 2 + n % 2));
    int8_t *v = ir_alloc(im->g, n ? (size_t)n : 1);
    if (!v) return diag_internal(im->d, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        int nib = (data[i / 2] >> (i % 2 * 4)) & 15;
        v[i] = (int8_t)(nib >= 8 ? nib - 16 : nib);
    }
    t->int4 = 1;
    t->data = (const uint8_t *)v;
    t->data_size = (size_t)n;
    return 0;
}

/* BlockwiseQuantization (litert-torch's dynamic_int4_block32/128, AI Edge Quantizer's blocked recipes): the
 * block size and the scales tensor's index are noted here; tfl_resolve_blockwise reads the scales once every
 * tensor of the subgraph is imported (the scales tensor may come later). */
static int import_blockwise(Importer *im, FbTable *qt, IrTensor *t) {
    FbTable bt;
    int present = 0;
    int32_t scales = -1, zero_points = -1, block = 0;
    if (fb_table(qt, TFL_QUANTIZATION_DETAILS, &bt, &present, im->d)) return DIAG_USER;
    if (!present)
        return diag_user(im->d, "tensor %d '%s': block-wise quantization without its details table", t->tfl_index,
                         t->name);
    if (fb_i32(&bt, TFL_BLOCKWISE_SCALES, -1, &scales, im->d) ||
        fb_i32(&bt, TFL_BLOCKWISE_ZERO_POINTS, -1, &zero_points, im->d) ||
        fb_i32(&bt, TFL_BLOCKWISE_BLOCK_SIZE, 0, &block, im->d))
        return DIAG_USER;
    FbVec shape;
    int has_shape = 0;
    if (fb_vector(&bt, TFL_BLOCKWISE_BLOCK_SHAPE, 4, &shape, &has_shape, im->d)) return DIAG_USER;
    if (has_shape && shape.len > 0)
        return tensor_unsupported(im, t, "tensor %d '%s': block-wise quantization with a block_shape (%u dimensions) "
                                  "is not supported (only block_size blocks along the input depth)", t->tfl_index,
                                  t->name, shape.len);
    if (zero_points != -1)
        return tensor_unsupported(im, t, "tensor %d '%s': block-wise zero points (tensor %d) are not supported "
                                  "(only symmetric blocks, zero_points -1)", t->tfl_index, t->name, zero_points);
    if (block <= 0 || block > 65536) /* the kernels' int32 block sums are exact up to 2^17 values */
        return diag_user(im->d, "tensor %d '%s': block-wise quantization with block size %d (1 to 65536)",
                         t->tfl_index, t->name, block);
    if (!im->block_scales) return diag_internal(im->d, "block-wise tensor outside a subgraph");
    t->q.block = block;
    im->block_scales[t->tfl_index] = scales;
    return 0;
}

int tfl_resolve_blockwise(Importer *im, int n_tensors) {
    Graph *g = im->g;
    for (int i = 0; i < n_tensors; i++) {
        int si = im->block_scales[i];
        IrTensor *t = &g->tensors[i];
        if (si == -1 || !t->q.block) continue;
        int block = t->q.block;
        if (t->rank != 2 || !t->data)
            return diag_user(im->d, "tensor %d '%s': block-wise quantization is supported only for rank-2 constant "
                             "weights (this one has rank %d%s)", i, t->name, t->rank, t->data ? "" : ", no data");
        if (t->dims[1] % block)
            return diag_user(im->d, "tensor %d '%s': block size %d does not divide its input depth %lld", i, t->name,
                             block, (long long)t->dims[1]);
        if (si < 0 || si >= n_tensors)
            return diag_user(im->d, "tensor %d '%s': block-wise scales tensor index %d out of range (subgraph has %d "
                             "tensors)", i, t->name, si, n_tensors);
        const IrTensor *s = &g->tensors[si];
        int64_t rows = t->dims[0], nb = t->dims[1] / block;
        if (s->dtype != IR_F16 && s->dtype != IR_F32)
            return diag_user(im->d, "tensor %d '%s': block-wise scales tensor %d '%s' is %s, not FLOAT16", i, t->name,
                             si, s->name, ir_dtype_name(s->dtype));
        if (s->rank != 2 || s->dims[0] != rows || s->dims[1] != nb)
            return diag_user(im->d, "tensor %d '%s': block-wise scales tensor %d '%s' has rank %d shape [%lld, %lld], "
                             "want [%lld, %lld] (rows, %lld / block size %d)", i, t->name, si, s->name, s->rank,
                             s->rank > 0 ? (long long)s->dims[0] : -1LL, s->rank > 1 ? (long long)s->dims[1] : -1LL,
                             (long long)rows, (long long)nb, (long long)t->dims[1], block);
        if (!s->data || s->data_size != (size_t)(rows * nb) * ir_dtype_size(s->dtype))
            return diag_user(im->d, "tensor %d '%s': block-wise scales tensor %d '%s' is not a constant", i, t->name,
                             si, s->name);
        float *scale = ir_alloc(g, sizeof(float) * (size_t)(rows * nb + 1));
        int64_t *zp = ir_alloc(g, sizeof(int64_t) * (size_t)(rows * nb + 1));
        if (!scale || !zp) return diag_internal(im->d, "out of memory");
        for (int64_t j = 0; j < rows * nb; j++) {
            if (s->dtype == IR_F16) {
                uint16_t h;
                memcpy(&h, s->data + 2 * j, 2);
                scale[j] = rt_f16_to_f32(h);
            } else {
                memcpy(&scale[j], s->data + 4 * j, 4);
            }
            if (!(scale[j] > 0.0f && scale[j] < 3.0e38f))
                return diag_user(im->d, "tensor %d '%s': block-wise scale %lld (row %lld, block %lld) is %g, not a "
                                 "positive finite number", i, t->name, (long long)j, (long long)(j / nb),
                                 (long long)(j % nb), (double)scale[j]);
            zp[j] = 0;
        }
        t->q.count = (int)(rows * nb);
        t->q.dim = 0;
        t->q.scale = scale;
        t->q.zero_point = zp;
        if (rows * nb > INT32_MAX / 2)
            return diag_user(im->d, "tensor %d '%s': %lld block-wise scales is too many", i, t->name,
                             (long long)(rows * nb));
    }
    return 0;
}

static int import_quant(Importer *im, FbTable *tt, IrTensor *t) {
    FbTable qt;
    int present = 0;
    if (fb_table(tt, TFL_TENSOR_QUANTIZATION, &qt, &present, im->d)) return DIAG_USER;
    if (!present) return 0;
    FbVec sv, zv;
    int has_s = 0, has_z = 0;
    int32_t qdim = 0;
    uint8_t details = 0;
    if (fb_vector(&qt, TFL_QUANTIZATION_SCALE, 4, &sv, &has_s, im->d) ||
        fb_vector(&qt, TFL_QUANTIZATION_ZERO_POINT, 8, &zv, &has_z, im->d) ||
        fb_i32(&qt, TFL_QUANTIZATION_QUANTIZED_DIMENSION, 0, &qdim, im->d) ||
        fb_u8(&qt, TFL_QUANTIZATION_DETAILS_TYPE, 0, &details, im->d))
        return DIAG_USER;
    if (details == TFL_QDETAILS_BLOCKWISE_QUANTIZATION) return import_blockwise(im, &qt, t);
    if (details != 0)
        return tensor_unsupported(im, t, "tensor '%s': custom quantization details are not supported", t->name);
    if (!has_s || sv.len == 0) return 0;
    if (sv.len > (uint32_t)TFL_MAX_TENSORS)
        return diag_user(im->d, "tensor '%s': %u quantization scales is too many", t->name, sv.len);
    if (!has_z || zv.len != sv.len)
        return diag_user(im->d, "tensor '%s': %u quantization scales but %u zero points", t->name, sv.len,
                         has_z ? zv.len : 0);
    float *scale = ir_alloc(im->g, sizeof(float) * sv.len);
    int64_t *zp = ir_alloc(im->g, sizeof(int64_t) * sv.len);
    if (!scale || !zp) return diag_internal(im->d, "out of memory");
    for (uint32_t i = 0; i < sv.len; i++) {
        if (fb_vec_f32(&sv, i, &scale[i], im->d) || fb_vec_i64(&zv, i, &zp[i], im->d)) return DIAG_USER;
    }
    /* Some converters leave the filter's quantized_dimension on a 1-D bias;
     * TFLite ignores it there, and so do we: a vector's channels are dim 0. */
    if (t->rank == 1 && sv.len > 1 && (int64_t)sv.len == t->dims[0]) qdim = 0;
    t->q.count = (int)sv.len;
    t->q.dim = qdim;
    t->q.scale = scale;
    t->q.zero_point = zp;
    return 0;
}

int tfl_import_tensor(Importer *im, FbTable *tt, int index) {
    Diag *d = im->d;
    const char *name = NULL;
    uint32_t name_len = 0;
    int has_name = 0;
    int8_t type = 0;
    uint32_t bufi = 0;
    int is_var = 0;
    FbVec shape, sig;
    int has_shape = 0, has_sig = 0;
    if (fb_string(tt, TFL_TENSOR_NAME, &name, &name_len, &has_name, d)) return DIAG_USER;
    char fallback[32];
    if (!has_name || name_len == 0) {
        snprintf(fallback, sizeof fallback, "tensor%d", index);
        name = fallback;
    }
    if (fb_i8(tt, TFL_TENSOR_TYPE, 0, &type, d) || fb_u32(tt, TFL_TENSOR_BUFFER, 0, &bufi, d) ||
        fb_bool(tt, TFL_TENSOR_IS_VARIABLE, 0, &is_var, d) ||
        fb_vector(tt, TFL_TENSOR_SHAPE, 4, &shape, &has_shape, d) ||
        fb_vector(tt, TFL_TENSOR_SHAPE_SIGNATURE, 4, &sig, &has_sig, d))
        return DIAG_USER;
    IrDType dt;
    /* A RESOURCE tensor is a variable's handle (tfl_variables.c): no op of the IR reads it. */
    int resource = type == TFL_TYPE_RESOURCE;
    int int4 = type == TFL_TYPE_INT4; /* unpacked to int8 below (constants only) */
    int bad_dtype = resource || int4 ? (dt = resource ? IR_I32 : IR_I8, 0) : map_dtype(type, &dt);
    if (bad_dtype) dt = IR_U8; /* a placeholder, the tensor is unknown (lenient only) */
    if (has_shape && shape.len > IR_MAX_RANK)
        return diag_user(d, "tensor %d '%s': rank %u exceeds the maximum of %d", index, name, shape.len, IR_MAX_RANK);
    int64_t dims[IR_MAX_RANK];
    int rank = has_shape ? (int)shape.len : 0;
    for (int i = 0; i < rank; i++) {
        int32_t v;
        if (fb_vec_i32(&shape, (uint32_t)i, &v, d)) return DIAG_USER;
        if (v < 0)
            return diag_user(d, "tensor %d '%s': dimension %d is %d (negative)", index, name, i, v);
        dims[i] = v;
    }
    int id = ir_add_tensor(im->g, name, dt, rank, dims);
    if (id < 0) return diag_internal(d, "out of memory");
    IrTensor *t = &im->g->tensors[id];
    t->tfl_index = index;
    t->is_variable = is_var;
    if (has_sig) {
        if (sig.len != (uint32_t)rank)
            return diag_user(d, "tensor %d '%s': shape_signature has rank %u but shape has rank %d", index, name,
                             sig.len, rank);
        t->has_signature = 1;
        for (int i = 0; i < rank; i++) {
            int32_t v;
            if (fb_vec_i32(&sig, (uint32_t)i, &v, d)) return DIAG_USER;
            t->signature[i] = v;
        }
    }
    if (bad_dtype)
        return tensor_unsupported(im, t, "tensor %d '%s': dtype %s (%d) is not supported", index, t->name,
                                  tfl_type_name(type), type);
    if (import_quant(im, tt, t)) return DIAG_USER;
    if (t->unknown) return 0;
    const uint8_t *data;
    size_t size;
    if (buffer_data(im, bufi, t->name, &data, &size)) return DIAG_USER;
    /* complex64 exists only between RFFT2D and the ops reading its result: no constant or state of it. */
    if (dt == IR_C64 && (data || is_var))
        return tensor_unsupported(im, t, "tensor %d '%s': a %s COMPLEX64 tensor is not supported (only the results "
                                  "of RFFT2D)", index, t->name, is_var ? "variable" : "constant");
    FbTable sparsity;
    int sparse = 0;
    if (fb_table(tt, TFL_TENSOR_SPARSITY, &sparsity, &sparse, d)) return DIAG_USER;
    if (sparse && int4)
        return tensor_unsupported(im, t, "tensor %d '%s': sparse INT4 storage is not supported", index, t->name);
    if (sparse) {
        /* Sparse weights are expanded here: every kernel reads them dense. */
        if (!data || is_var)
            return tensor_unsupported(im, t, "tensor %d '%s': sparse storage is supported only for constants", index,
                                      t->name);
        const uint8_t *dense;
        int rc = tfl_densify(im->g, &sparsity, t, index, data, size, &dense, d);
        if (rc == DIAG_USER && im->lenient) { /* listed (the message is in d); the tensor is unknown */
            im->info->unsupported++;
            t->unknown = 2;
            return 0;
        }
        if (rc) return rc;
        t->data = dense;
        t->data_size = (size_t)ir_tensor_bytes(t);
        return 0;
    }
    if (int4) return import_int4(im, t, index, bufi, data, size, is_var);
    if (data && !is_var) {
        int64_t want = ir_tensor_bytes(t);
        if (want < 0 || (uint64_t)want != size)
            return diag_user(d, "tensor %d '%s': buffer %u has %zu bytes but shape x dtype needs %lld", index,
                             t->name, bufi, size, (long long)want);
        /* Kernels read constants through typed pointers, which need their
         * type's alignment. Only misaligned data is copied: converters align
         * buffers to 4 bytes, and copying every f32 weight would double the
         * memory a large model takes to compile. */
        if ((uintptr_t)data % ir_dtype_size(dt) != 0) {
            uint8_t *copy = ir_alloc(im->g, size ? size : 1);
            if (!copy) return diag_internal(d, "out of memory");
            memcpy(copy, data, size);
            data = copy;
        }
        t->data = data;
        t->data_size = size;
    }
    return 0;
}
