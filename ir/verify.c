/* verify.c - structural well-formedness of a Graph (see ir_verify in ir.h).
 * Runs after the importer and after every pass in debug and test builds. */
#include "ir.h"

#include <math.h>
#include <stdlib.h>

int ir_verify_tensor(const Graph *g, int id, Diag *d) {
    const IrTensor *t = &g->tensors[id];
    if (t->rank < 0 || t->rank > IR_MAX_RANK)
        return diag_user(d, "tensor %d '%s': rank %d out of range 0..%d", id, t->name, t->rank, IR_MAX_RANK);
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] < 0)
            return diag_user(d, "tensor %d '%s': dimension %d is %lld (negative)", id, t->name, i,
                             (long long)t->dims[i]);
    int64_t bytes = ir_tensor_bytes(t);
    if (bytes < 0 || bytes > ((int64_t)1 << 40))
        return diag_user(d, "tensor %d '%s': size overflows (element count x dtype size beyond 2^40 bytes)",
                         id, t->name);
    /* The runtime's parameter structs and kernels count elements in int32
     * (as TFLite does); a larger tensor is refused here, by name, instead of
     * wrapping to a negative count in the generated code. */
    int64_t numel = ir_tensor_numel(t);
    if (numel > INT32_MAX)
        return diag_user(d,
                         "tensor %d '%s': %lld elements, more than the %ld that the kernels' int32 element "
                         "counts hold",
                         id, t->name, (long long)numel, (long)INT32_MAX);
    if (t->data && !t->unknown && (int64_t)t->data_size != bytes)
        return diag_user(d, "tensor %d '%s': constant buffer has %zu bytes, shape x dtype needs %lld", id,
                         t->name, t->data_size, (long long)bytes);
    if (t->q.block) {
        if (t->rank != 2 || t->q.block < 0 || t->dims[1] % t->q.block ||
            t->q.count != t->dims[0] * (t->dims[1] / t->q.block))
            return diag_user(d, "tensor %d '%s': %d block-wise scales do not fit blocks of %d on rank %d", id,
                             t->name, t->q.count, t->q.block, t->rank);
    } else if (t->q.count > 1) {
        if (t->q.dim < 0 || t->q.dim >= t->rank)
            return diag_user(d, "tensor %d '%s': quantized_dimension %d out of range for rank %d", id, t->name,
                             t->q.dim, t->rank);
        if (t->q.count != t->dims[t->q.dim])
            return diag_user(d, "tensor %d '%s': %d per-channel scales but dimension %d has %lld channels", id,
                             t->name, t->q.count, t->q.dim, (long long)t->dims[t->q.dim]);
    }
    /* Kernels add the zero point to values of the tensor's own type in int32
     * arithmetic: one outside that type's range is a corrupt file, not a number
     * to compute with (it would overflow). */
    int64_t zmin = 0, zmax = 0;
    switch (t->dtype) {
    case IR_I8: zmin = -128, zmax = 127; break;
    case IR_U8: zmin = 0, zmax = 255; break;
    case IR_I16: zmin = -32768, zmax = 32767; break;
    case IR_I32: zmin = INT32_MIN, zmax = INT32_MAX; break;
    default: zmin = INT64_MIN, zmax = INT64_MAX; break;
    }
    for (int i = 0; i < t->q.count; i++) {
        float s = t->q.scale[i];
        if (!(s > 0.0f) || !isfinite(s))
            return diag_user(d, "tensor %d '%s': quantization scale[%d] = %g is not a positive finite number",
                             id, t->name, i, (double)s);
        int64_t z = t->q.zero_point[i];
        if (z < zmin || z > zmax)
            return diag_user(d, "tensor %d '%s': zero_point[%d] = %lld is out of range for %s (%lld..%lld)", id,
                             t->name, i, (long long)z, ir_dtype_name(t->dtype), (long long)zmin, (long long)zmax);
    }
    return 0;
}

int ir_verify(const Graph *g, Diag *d) {
    int nt = g->n_tensors;
    int *writer = calloc((size_t)(nt > 0 ? nt : 1), sizeof(int));
    if (!writer) return diag_internal(d, "out of memory");
    for (int i = 0; i < nt; i++) writer[i] = -1;
    int rc = 0;
    for (int i = 0; i < nt && !rc; i++) rc = ir_verify_tensor(g, i, d);
    if (!rc && g->n_outputs == 0) rc = diag_user(d, "the graph has no outputs: there is nothing to compute");
    for (int i = 0; i < g->n_inputs && !rc; i++) {
        int id = g->inputs[i];
        if (id < 0 || id >= nt) rc = diag_user(d, "graph input %d: tensor index %d out of range", i, id);
        else if (g->tensors[id].data)
            /* The caller fills a graph input: a constant buffer behind one is
             * either ignored or overwritten, neither of which is meant. */
            rc = diag_user(d, "graph input %d: tensor '%s' has constant data (%zu bytes); a graph input must "
                              "not be a constant",
                           i, g->tensors[id].name, g->tensors[id].data_size);
        else writer[id] = -2; /* defined on entry */
    }
    for (int i = 0; i < nt && !rc; i++)
        if (g->tensors[i].data || g->tensors[i].is_variable || g->tensors[i].unknown) writer[i] = -2;
    for (int oi = 0; oi < g->n_ops && !rc; oi++) {
        const IrOp *op = &g->ops[oi];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in && !rc; k++) {
            int id = op->in[k];
            if (id == -1) continue;
            if (id < 0 || id >= nt) {
                rc = diag_user(d, "operator %d (%s): input %d refers to tensor %d, but there are %d tensors",
                               op->tfl_index, ir_op_name(op->kind), k, id, nt);
            } else if (g->tensors[id].q.block && !(k == 1 && (op->kind == OP_FULLY_CONNECTED ||
                                                             op->kind == OP_EMBEDDING_LOOKUP))) {
                /* Kernels read q.scale per channel: only these two know the row-by-row block layout. */
                rc = diag_user(d, "operator %d (%s): input %d tensor '%s' is block-wise quantized, which is supported "
                                  "only as the weights of FULLY_CONNECTED and the table of EMBEDDING_LOOKUP",
                               op->tfl_index, ir_op_name(op->kind), k, g->tensors[id].name);
            } else if (writer[id] == -1) {
                rc = diag_user(d,
                               "operator %d (%s): input %d tensor '%s' is used before it is defined "
                               "(not a constant, graph input, or output of an earlier operator; cycle?)",
                               op->tfl_index, ir_op_name(op->kind), k, g->tensors[id].name);
            }
        }
        for (int k = 0; k < op->n_out && !rc; k++) {
            int id = op->out[k];
            if (id < 0 || id >= nt) {
                rc = diag_user(d, "operator %d (%s): output %d refers to tensor %d, but there are %d tensors",
                               op->tfl_index, ir_op_name(op->kind), k, id, nt);
            } else if (writer[id] != -1 && !((g->tensors[id].is_variable || g->tensors[id].unknown) && writer[id] == -2)) {
                /* State may be (re)written by an op, e.g. a DEQUANTIZE of its initial value. */
                const char *why = g->tensors[id].data ? "a constant"
                                  : writer[id] == -2  ? "a graph input or state"
                                                      : "already written by another operator";
                rc = diag_user(d, "operator %d (%s): output %d tensor '%s' is %s", op->tfl_index,
                               ir_op_name(op->kind), k, g->tensors[id].name, why);
            } else {
                writer[id] = oi;
            }
        }
    }
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        int id = g->outputs[i];
        if (id < 0 || id >= nt) rc = diag_user(d, "graph output %d: tensor index %d out of range", i, id);
        else if (writer[id] == -1)
            rc = diag_user(d, "graph output %d: tensor '%s' is never computed", i, g->tensors[id].name);
    }
    free(writer);
    return rc;
}
