/* cuda_emit_cf.c - --target cuda: control flow, resource variables and signature entry points
 * (docs/cuda-control-flow.md).
 *
 * Every subgraph a model runs (an IF branch, a WHILE cond/body, a signature's subgraph) is emitted
 * as it is for subgraph 0: its ops' kernels (named PREFIX_s<K>_k<op>) and a host function
 * PREFIX_subgraph<K>(ctx, stream, inputs, outputs, arena) that enqueues them, with device pointers
 * and the C target's conventions (docs/control-flow.md): the caller's arena for the subgraph is
 * the op's scratch. The control itself runs on the host: IF copies its condition (one bool) from
 * the device and calls one branch; WHILE keeps the loop variables in the op's outputs, calls cond,
 * copies its bool back, breaks or calls body and copies body's outputs back (device to device).
 * Reading a condition waits for the stream, so such a model cannot be captured into a CUDA graph:
 * PREFIX_cuda_run_graph then runs it as PREFIX_cuda_run does. STABLEHLO_COMPOSITE calls its
 * decomposition with the op's scratch as its arena, with no sync (it stays capturable). READ_VARIABLE / ASSIGN_VARIABLE are
 * device-to-device copies of the state at the arena's start, set by PREFIX_cuda_init (CALL_ONCE's
 * initial values travel in the weights blob) and kept across runs. Each signature gets
 * PREFIX_<key>_cuda_run, running its subgraph after the state as the C target does. */
#include "cuda_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_flow_common.h"
#include "text.h"

CuKind cu_classify_cf(const Graph *g, const IrOp *op, const char **why, int *mine) {
    (void)g, (void)why;
    *mine = op->kind == OP_IF || op->kind == OP_WHILE || op->kind == OP_READ_VARIABLE || op->kind == OP_ASSIGN_VARIABLE ||
            op->kind == OP_STABLEHLO_COMPOSITE || (op->kind == OP_CUSTOM && op->custom && op->custom->func);
    return *mine ? CU_CONTROL : CU_NONE;
}

/* need[k] = 1 for every subgraph k the CUDA code runs: subgraph 0, the signatures' subgraphs and
 * every IF/WHILE/STABLEHLO_COMPOSITE callee of those (transitively). Other imported subgraphs
 * (CALL_ONCE's init, read at compile time) are not emitted. */
void cu_cf_reach(const Graph *root, unsigned char *need) {
    int n = root->n_sub > 1 ? root->n_sub : 1, more = 1;
    memset(need, 0, (size_t)n);
    need[0] = 1;
    for (int e = 0; e < root->n_entries; e++)
        if (ir_subgraph(root, root->entry_sub[e])) need[root->entry_sub[e]] = 1;
    while (more) {
        more = 0;
        for (int k = 0; k < n; k++) {
            const Graph *sg = k == 0 ? root : root->sub[k];
            for (int i = 0; need[k] && sg && i < sg->n_ops; i++) {
                const IrOp *op = &sg->ops[i];
                if (op->dead || (op->kind != OP_IF && op->kind != OP_WHILE && op->kind != OP_STABLEHLO_COMPOSITE)) continue;
                for (int c = 0; c < op->n_callee; c++)
                    if (ir_subgraph(root, op->callee[c]) && !need[op->callee[c]]) need[op->callee[c]] = 1, more = 1;
            }
        }
    }
}

/* 1 if subgraph sg of root waits for the stream on the host: IF, WHILE, a custom operator, a
 * shape input checked at run time (cuda_emit_guard.c), also inside a composite's decomposition (a plain call: it runs in the caller's stream order). */
static int host_sync(const Graph *root, const Graph *sg, int depth) {
    for (int i = 0; sg && i < sg->n_ops; i++) {
        const IrOp *op = &sg->ops[i];
        if (op->dead) continue;
        if (op->kind == OP_IF || op->kind == OP_WHILE || op->kind == OP_CUSTOM || op->guard) return 1;
        if (op->kind == OP_STABLEHLO_COMPOSITE && op->n_callee > 0 &&
            (depth > 64 || host_sync(root, ir_subgraph(root, op->callee[0]), depth + 1)))
            return 1;
    }
    return 0;
}

/* 1 if graph g (subgraph 0) waits for the stream on the host. */
int cu_cf_host_sync(const Graph *g) {
    return host_sync(g, g, 0);
}

/* Bytes of a custom operator's host staging: its inputs then its outputs, each 64-byte aligned;
 * *at (optional) gets each one's offset, inputs first. */
static int64_t custom_staging(const Graph *g, const IrOp *op, int64_t *at) {
    int64_t n = 0;
    for (int k = 0; k < op->n_in + op->n_out; k++) {
        int id = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (at) at[k] = n;
        if (id >= 0) n += (ir_tensor_bytes(&g->tensors[id]) + 63) / 64 * 64;
    }
    return n;
}

/* The pinned host buffer the custom operators of the model (every graph the code runs) stage
 * their inputs and outputs in: the most any one needs, 0 when there is none. With `protos`,
 * also writes the user kernels' C prototypes (once per function) to it. */
int64_t cu_custom_host(const Graph *root, CgBuf *protos) {
    int n_g = root->n_sub > 1 ? root->n_sub : 1;
    int64_t most = 0;
    unsigned char *need = malloc((size_t)n_g);
    if (!need) return -1;
    cu_cf_reach(root, need);
    for (int k = 0; k < n_g; k++) {
        const Graph *sg = k == 0 ? root : root->sub[k];
        for (int i = 0; need[k] && sg && i < sg->n_ops; i++) {
            const IrOp *op = &sg->ops[i];
            if (op->dead || op->kind != OP_CUSTOM || !op->custom || !op->custom->func) continue;
            int64_t n = custom_staging(sg, op, NULL);
            most = n > most ? n : most;
            int seen = 0; /* an earlier op with the same kernel */
            for (int q = 0; q <= k && !seen; q++) {
                const Graph *o = q == 0 ? root : root->sub[q];
                for (int j = 0; need[q] && o && j < (q == k ? i : o->n_ops) && !seen; j++)
                    seen = o->ops[j].kind == OP_CUSTOM && !o->ops[j].dead && o->ops[j].custom &&
                           o->ops[j].custom->func && strcmp(o->ops[j].custom->func, op->custom->func) == 0;
            }
            if (protos && !seen)
                cgbuf_printf(protos, "extern \"C\" int %s(const mpcc_custom_ctx *ctx, const void *const *inputs, void *const *outputs);\n",
                             op->custom->func);
        }
    }
    free(need);
    return most;
}

/* `if ((rc = PREFIX_subgraphK(ctx, s, in, out, arena)) != 0) return rc;` */
static void call_sub(CuEmit *e, int k, const char *in, const char *out, const char *arena) {
    cg_line(&e->cg, "if ((rc = %s_subgraph%d(ctx, s, %s, %s, %s)) != 0) return rc;", e->host_prefix, k, in, out, arena);
}

/* A device-to-device copy of n bytes on the stream (nothing when src is dst). */
static void copy_d2d(CuEmit *e, int index, const char *dst, const char *src, int64_t n) {
    if (strcmp(dst, src) == 0 || n <= 0) return;
    cg_line(&e->cg, "if ((err = cudaMemcpyAsync(%s, %s, %lld, cudaMemcpyDeviceToDevice, s)) != cudaSuccess) return %s_fail(ctx, err, %d);",
            dst, src, (long long)n, e->o->prefix, index);
}

/* The bool at device pointer `cond` into the host's `c` (waits for the stream). */
static void read_cond(CuEmit *e, int index, const char *cond) {
    cg_line(&e->cg, "if ((err = cudaMemcpyAsync(&c, %s, 1, cudaMemcpyDeviceToHost, s)) != cudaSuccess ||", cond);
    cg_line(&e->cg, "    (err = cudaStreamSynchronize(s)) != cudaSuccess) return %s_fail(ctx, err, %d);", e->o->prefix, index);
}

/* The host code of op `index` (CU_CONTROL), into the run function. */
int cu_emit_cf(CuEmit *e, int index, const IrOp *op, Diag *d) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    char dst[CG_POOL_LEN], src[CG_POOL_LEN];
    e->uses_a = 1;
    switch (op->kind) {
    case OP_READ_VARIABLE: case OP_ASSIGN_VARIABLE: {
        int from = op->kind == OP_READ_VARIABLE ? op->in[0] : op->in[1];
        int to = op->kind == OP_READ_VARIABLE ? op->out[0] : op->in[0];
        snprintf(dst, sizeof dst, "%s", cu_ptr(e, to, "unsigned char"));
        snprintf(src, sizeof src, "%s", cu_ptr(e, from, "const unsigned char"));
        cg_line(cg, "/* %s: a device-to-device copy %s the state */", ir_op_name(op->kind),
                op->kind == OP_READ_VARIABLE ? "out of" : "into");
        copy_d2d(e, index, dst, src, ir_tensor_bytes(&g->tensors[from]));
        return 0;
    }
    case OP_IF: {
        cg_line(cg, "const void *in[%d];", op->n_in > 1 ? op->n_in - 1 : 1);
        cg_line(cg, "void *out[%d];", op->n_out > 0 ? op->n_out : 1);
        cg_line(cg, "unsigned char c = 0;");
        cg_line(cg, "int rc;");
        for (int k = 1; k < op->n_in; k++) cg_line(cg, "in[%d] = %s;", k - 1, cu_ptr(e, op->in[k], "const void"));
        for (int k = 0; k < op->n_out; k++) cg_line(cg, "out[%d] = %s;", k, cu_ptr(e, op->out[k], "void"));
        cg_line(cg, "(void)in, (void)out;");
        read_cond(e, index, cu_ptr(e, op->in[0], "const void"));
        char arena[64];
        snprintf(arena, sizeof arena, "a + %lld", (long long)op->scratch_offset);
        cg_open(cg, "if (c) {");
        call_sub(e, op->callee[0], "in", "out", op->scratch_bytes ? arena : "a");
        cg_close(cg, "}");
        cg_open(cg, "else {");
        call_sub(e, op->callee[1], "in", "out", op->scratch_bytes ? arena : "a");
        cg_close(cg, "}");
        return 0;
    }
    case OP_WHILE: {
        const WhileParams *p = op->params;
        int n = op->n_out;
        cg_line(cg, "unsigned char *sc = a + %lld, c = 0;", (long long)op->scratch_offset);
        cg_line(cg, "const void *vars[%d];", n > 0 ? n : 1);
        cg_line(cg, "void *next[%d];", n > 0 ? n : 1);
        cg_line(cg, "void *cond[1];");
        cg_line(cg, "int rc;");
        for (int k = 0; k < n; k++) {
            /* The loop variables live in the op's outputs. */
            snprintf(dst, sizeof dst, "%s", cu_ptr(e, op->out[k], "unsigned char"));
            snprintf(src, sizeof src, "%s", cu_ptr(e, op->in[k], "const unsigned char"));
            copy_d2d(e, index, dst, src, ir_tensor_bytes(&g->tensors[op->out[k]]));
            cg_line(cg, "vars[%d] = %s;", k, dst);
            cg_line(cg, "next[%d] = sc + %lld;", k, (long long)p->body_out[k]);
        }
        cg_line(cg, "cond[0] = sc + %lld;", (long long)p->cond_out);
        cg_open(cg, "for (;;) {");
        char arena[64];
        snprintf(arena, sizeof arena, "sc + %lld", (long long)p->arena);
        call_sub(e, op->callee[0], "vars", "cond", arena);
        read_cond(e, index, "cond[0]");
        cg_line(cg, "if (!c) break;");
        call_sub(e, op->callee[1], "vars", "next", arena);
        for (int k = 0; k < n; k++) {
            snprintf(dst, sizeof dst, "%s", cu_ptr(e, op->out[k], "unsigned char"));
            snprintf(src, sizeof src, "next[%d]", k);
            copy_d2d(e, index, dst, src, ir_tensor_bytes(&g->tensors[op->out[k]]));
        }
        cg_close(cg, "}");
        return 0;
    }
    case OP_CUSTOM: {
        /* The user kernel of the C target (runtime/mpcc_custom.h) runs on the host: inputs copied
         * into the pinned staging buffer, the kernel called, its outputs copied back. */
        int64_t at[2 * 64];
        if (op->n_in + op->n_out > 2 * 64) return diag_user(d, "operator %d (CUSTOM): more than 128 inputs and outputs", op->tfl_index);
        custom_staging(g, op, at);
        custom_emit_ctx(cg, g, op, "cctx");
        cg_line(cg, "unsigned char *h = (unsigned char *)ctx->host;");
        cg_line(cg, "const void *in[%d];", op->n_in > 0 ? op->n_in : 1);
        cg_line(cg, "void *out[%d];", op->n_out > 0 ? op->n_out : 1);
        for (int k = 0; k < op->n_in; k++) {
            if (op->in[k] < 0) {
                cg_line(cg, "in[%d] = NULL;", k);
                continue;
            }
            cg_line(cg, "in[%d] = h + %lld;", k, (long long)at[k]);
            cg_line(cg, "if ((err = cudaMemcpyAsync(h + %lld, %s, %lld, cudaMemcpyDeviceToHost, s)) != cudaSuccess) return %s_fail(ctx, err, %d);",
                    (long long)at[k], cu_ptr(e, op->in[k], "const void"), (long long)ir_tensor_bytes(&g->tensors[op->in[k]]),
                    e->o->prefix, index);
        }
        for (int k = 0; k < op->n_out; k++) cg_line(cg, "out[%d] = h + %lld;", k, (long long)at[op->n_in + k]);
        cg_line(cg, "if ((err = cudaStreamSynchronize(s)) != cudaSuccess) return %s_fail(ctx, err, %d);", e->o->prefix, index);
        char lit[TXT_LITERAL_CAP];
        cg_open(cg, "if (%s(&cctx, in, out) != 0) {", op->custom->func);
        cg_line(cg, "snprintf(ctx->error, sizeof ctx->error, \"%s: op %d: the custom operator's kernel %%s failed\", %s);",
                e->host_prefix, index, txt_c_string(lit, sizeof lit, op->custom->func));
        cg_line(cg, "return 5;");
        cg_close(cg, "}");
        for (int k = 0; k < op->n_out; k++)
            cg_line(cg, "if ((err = cudaMemcpyAsync(%s, h + %lld, %lld, cudaMemcpyHostToDevice, s)) != cudaSuccess) return %s_fail(ctx, err, %d);",
                    cu_ptr(e, op->out[k], "void"), (long long)at[op->n_in + k], (long long)ir_tensor_bytes(&g->tensors[op->out[k]]),
                    e->o->prefix, index);
        /* the buffer is free again only when the copies are done */
        cg_line(cg, "if ((err = cudaStreamSynchronize(s)) != cudaSuccess) return %s_fail(ctx, err, %d);", e->o->prefix, index);
        return 0;
    }
    case OP_STABLEHLO_COMPOSITE: {
        /* An unconditional call of the decomposition with the op's scratch as its arena, as on the
         * C target: no host sync, so it stays inside a CUDA graph's capture. */
        cg_line(cg, "const void *in[%d];", op->n_in > 0 ? op->n_in : 1);
        cg_line(cg, "void *out[%d];", op->n_out > 0 ? op->n_out : 1);
        cg_line(cg, "int rc;");
        for (int k = 0; k < op->n_in; k++) cg_line(cg, "in[%d] = %s;", k, cu_ptr(e, op->in[k], "const void"));
        for (int k = 0; k < op->n_out; k++) cg_line(cg, "out[%d] = %s;", k, cu_ptr(e, op->out[k], "void"));
        char arena[64];
        snprintf(arena, sizeof arena, "a + %lld", (long long)op->scratch_offset);
        call_sub(e, op->callee[0], "in", "out", op->scratch_bytes ? arena : "a");
        return 0;
    }
    default: return diag_internal(d, "operator %d: %s is not control flow", op->tfl_index, ir_op_name(op->kind));
    }
}

/* The initial values of resource variables (CALL_ONCE) go into the weights blob: extra constants
 * keyed by op -1 - tensor id (no op has a negative index). */
int cu_state_consts(CuEmit *e) {
    const Graph *g = e->g;
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        if (t->is_variable && t->offset >= 0 && t->init && cu_xconst_copy(e, -1 - i, 0, t->init, ir_tensor_bytes(t)))
            return -1;
    }
    return 0;
}

/* PREFIX_cuda_init's part that resets the state (variable tensors at the arena's start), as
 * PREFIX_init does on the C target. */
void cu_emit_state_init(CuEmit *e, CgBuf *c) {
    const Graph *g = e->g;
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        if (!t->is_variable || t->offset < 0) continue;
        char safe[TXT_COMMENT_CAP];
        long long off = (long long)t->offset, n = (long long)ir_tensor_bytes(t);
        if (t->init) {
            long long w = 0;
            for (int q = 0; q < e->n_xc; q++)
                if (e->xc[q].op == -1 - i) w = (long long)e->xc[q].off;
            cgbuf_printf(c, "    /* state %s: its initial value (CALL_ONCE) */\n", txt_comment(safe, sizeof safe, t->name));
            cgbuf_printf(c, "    if ((err = cudaMemcpy((unsigned char *)ctx->arena + %lld, (unsigned char *)ctx->weights + %lld, %lld, "
                            "cudaMemcpyDeviceToDevice)) != cudaSuccess)\n        return %s_fail(ctx, err, -1);\n",
                         off, w, n, e->o->prefix);
            continue;
        }
        cgbuf_printf(c, "    /* state %s */\n", txt_comment(safe, sizeof safe, t->name));
        cgbuf_printf(c, "    if ((err = cudaMemset((unsigned char *)ctx->arena + %lld, %d, %lld)) != cudaSuccess) return %s_fail(ctx, err, -1);\n",
                     off, ir_variable_reset_value(t), n, e->o->prefix);
    }
}

/* The upper-case form of PREFIX_<entry_c> for the header's macros. */
static void entry_macro(char *EP, size_t cap, const char *P, const char *c_name) {
    snprintf(EP, cap, "%s_", P);
    size_t j = strlen(EP);
    for (const char *c = c_name; *c && j + 1 < cap; c++) EP[j++] = (char)toupper((unsigned char)*c);
    EP[j] = '\0';
}

/* The signatures' entry points in the header (docs/signatures.md, here with the CUDA API). */
void cu_emit_entries_header(CgBuf *h, const Graph *g, const char *pf, const char *P) {
    for (int e = 0; e < g->n_entries; e++) {
        const Graph *sg = g->entry_sub[e] == 0 ? g : ir_subgraph(g, g->entry_sub[e]);
        if (!sg) continue;
        char kb[TXT_COMMENT_CAP], EP[TXT_IDENT_MAX + 160];
        entry_macro(EP, sizeof EP, P, g->entry_c[e]);
        cgbuf_printf(h,
                     "\n/* Signature %d \"%s\" (TFLite subgraph %d): %s_%s_cuda_run, the same arguments, context and\n"
                     " * return codes as %s_cuda_run%s. Its inputs and outputs, in this order: */\n",
                     e, txt_comment(kb, sizeof kb, g->entry_key[e]), g->entry_sub[e], pf, g->entry_c[e], pf,
                     g->entry_sub[e] == 0 ? " (it runs the same code)" : "");
        cgbuf_printf(h, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", EP, sg->n_inputs, EP, sg->n_outputs);
        cg_emit_io_macros(h, sg, EP, 0);
        cg_emit_io_macros(h, sg, EP, 1);
        cgbuf_printf(h, "int %s_%s_cuda_run(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs);\n",
                     pf, g->entry_c[e], pf);
    }
}

/* Their definitions: subgraph 0's is PREFIX_cuda_run; subgraph K's runs after the state. */
void cu_emit_entries(CgBuf *c, const Graph *g, const char *pf) {
    for (int e = 0; e < g->n_entries; e++) {
        int k = g->entry_sub[e];
        if (k > 0 && !ir_subgraph(g, k)) continue;
        cgbuf_printf(c, "int %s_%s_cuda_run(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs) {\n",
                     pf, g->entry_c[e], pf);
        if (k == 0) {
            cgbuf_printf(c, "    return %s_cuda_run(ctx, stream, inputs, outputs);\n}\n\n", pf);
            continue;
        }
        cgbuf_printf(c, "    if (!ctx || !inputs || !outputs || !ctx->arena) return 1;\n");
        cgbuf_printf(c, "    /* after the state (%lld bytes): the arena of TFLite subgraph %d */\n", (long long)g->state_bytes, k);
        cgbuf_printf(c, "    return %s_subgraph%d(ctx, (cudaStream_t)stream, inputs, outputs, (unsigned char *)ctx->arena + %lld);\n}\n\n",
                     pf, k, (long long)ir_entry_at(g));
    }
}
