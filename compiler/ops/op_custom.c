/* op_custom.c - CUSTOM: an operator TFLite itself does not define, run by a
 * user kernel named with --custom-op NAME=FUNC (runtime/mpcc_custom.h).
 * The importer binds the kernel and the custom_options bytes (op->custom);
 * a custom op without a kernel never gets here. Output shapes cannot be
 * inferred, so they are the ones the model declares. The generated code
 * passes constant descriptors of every input and output (dtype, shape,
 * quantization, name) and the options bytes; `mpcc run` calls the same
 * function loaded from --custom-lib. */
#include <stdlib.h>

#include "op_util.h"
#include "text.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    (void)g, (void)opts;
    if (!op->custom) return diag_internal(d, "operator %d: CUSTOM without a bound kernel", op->tfl_index);
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *t = op_out(g, op, k);
        if (t->infer_shape)
            return op_error(d, op,
                            "custom operator '%s': its output '%s' depends on the input shapes, which mpcc cannot "
                            "infer for a custom kernel (--input-shape changed them)",
                            op->custom->code, t->name);
    }
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    (void)g, (void)d;
    op->params = op->custom;
    return 0;
}

/* A tensor's descriptor; dims point into dims_store (rank entries). */
static mpcc_tensor_desc describe(const IrTensor *t, int32_t *dims_store) {
    mpcc_tensor_desc s = {MPCC_ABSENT, 0, NULL, 0, 0.0f, 0, ""};
    if (!t) return s;
    s.dtype = op_rt_dtype(t->dtype);
    s.rank = t->rank;
    for (int i = 0; i < t->rank; i++) dims_store[i] = (int32_t)t->dims[i];
    s.dims = dims_store;
    s.size = ir_tensor_numel(t);
    if (t->q.count == 1) {
        s.scale = t->q.scale[0];
        s.zero_point = (int32_t)t->q.zero_point[0];
    }
    s.name = t->name;
    return s;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    IrCustom *c = op->custom;
    int n = op->n_in + op->n_out;
    mpcc_tensor_desc *desc = calloc((size_t)n + 1, sizeof *desc);
    int32_t *dims = calloc((size_t)n * IR_MAX_RANK + 1, sizeof *dims);
    c->status = -1;
    if (desc && dims && c->fn) {
        for (int k = 0; k < n; k++) {
            int id = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            desc[k] = describe(id < 0 ? NULL : &g->tensors[id], dims + (size_t)k * IR_MAX_RANK);
        }
        mpcc_custom_ctx ctx = {c->code, op->tfl_index, c->options, (int32_t)c->options_len, op->n_in, op->n_out,
                               desc, desc + op->n_in};
        c->status = ((mpcc_custom_fn)c->fn)(&ctx, in, out);
    }
    free(desc);
    free(dims);
}

static const char *const dtype_names[] = {"MPCC_F32", "MPCC_F16", "MPCC_BF16", "MPCC_I8", "MPCC_U8",
                                          "MPCC_I16", "MPCC_I32", "MPCC_I64", "MPCC_BOOL"};

static void emit_descs(CgCtx *cg, const Graph *g, const IrOp *op, int is_out) {
    int n = is_out ? op->n_out : op->n_in;
    for (int k = 0; k < n; k++) {
        int id = is_out ? op->out[k] : op->in[k];
        if (id < 0 || g->tensors[id].rank == 0) continue;
        const IrTensor *t = &g->tensors[id];
        char dims[256] = "";
        size_t len = 0;
        for (int i = 0; i < t->rank && len < sizeof dims; i++) {
            int w = snprintf(dims + len, sizeof dims - len, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
            if (w > 0) len += (size_t)w;
        }
        cg_line(cg, "static const int32_t %s_dims%d[%d] = {%s};", is_out ? "out" : "in", k, t->rank, dims);
    }
    cg_open(cg, "static const mpcc_tensor_desc %s[%d] = {", is_out ? "outs" : "ins", n > 0 ? n : 1);
    for (int k = 0; k < n; k++) {
        int id = is_out ? op->out[k] : op->in[k];
        if (id < 0) {
            cg_line(cg, "{MPCC_ABSENT, 0, 0, 0, 0.0f, 0, \"\"},");
            continue;
        }
        int32_t store[IR_MAX_RANK];
        const IrTensor *t = &g->tensors[id];
        mpcc_tensor_desc s = describe(t, store);
        char dims[32] = "0", lit[TXT_LITERAL_CAP];
        if (t->rank > 0) snprintf(dims, sizeof dims, "%s_dims%d", is_out ? "out" : "in", k);
        cg_line(cg, "{%s, %d, %s, %lld, %s, %d, %s},", dtype_names[s.dtype], s.rank, dims, (long long)s.size, cg_f32(cg, s.scale),
                s.zero_point, txt_c_string(lit, sizeof lit, t->name));
    }
    if (n == 0) cg_line(cg, "{MPCC_ABSENT, 0, 0, 0, 0.0f, 0, \"\"}");
    cg_close(cg, "};");
}

void custom_emit_ctx(CgCtx *cg, const Graph *g, const IrOp *op, const char *name) {
    const IrCustom *c = op->custom;
    char lit[TXT_LITERAL_CAP];
    emit_descs(cg, g, op, 0);
    emit_descs(cg, g, op, 1);
    if (c->options_len) cg_array_u8(cg, "options", c->options, (int64_t)c->options_len);
    cg_line(cg, "static const mpcc_custom_ctx %s = {%s, %d, %s, %zu, %d, %d, ins, outs};", name,
            txt_c_string(lit, sizeof lit, c->code), op->tfl_index, c->options_len ? "options" : "0", c->options_len,
            op->n_in, op->n_out);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const IrCustom *c = op->custom;
    custom_emit_ctx(cg, g, op, "ctx");
    /* The user kernel (runtime/mpcc_custom.h), defined outside the generated code. */
    cg_line(cg, "int %s(const mpcc_custom_ctx *ctx, const void *const *inputs, void *const *outputs);", c->func);
    cg_line(cg, "const void *in[%d];", op->n_in > 0 ? op->n_in : 1);
    cg_line(cg, "void *out[%d];", op->n_out > 0 ? op->n_out : 1);
    for (int k = 0; k < op->n_in; k++) cg_line(cg, "in[%d] = %s;", k, cg_in(cg, op, k));
    for (int k = 0; k < op->n_out; k++) cg_line(cg, "out[%d] = %s;", k, cg_out(cg, op, k));
    cg_line(cg, "if (%s(&ctx, in, out) != 0) return RT_ERR_CUSTOM_OP;", c->func);
    return 0;
}

const OpDef op_def_custom = {"CUSTOM", parse, check, prepare, eval, emit_c, NULL, 0};
