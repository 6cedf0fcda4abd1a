/* cuda_emit_guard.c - --target cuda: shape inputs computed at run time (docs/cuda-misc.md).
 *
 * An op whose shape input (TRANSPOSE_CONV's output_shape, a RESHAPE's shape) is a run-time tensor
 * was compiled for the shape the model declares (op->guard). As on the C target, the run checks
 * the input first and returns 4 (RT_ERR_SHAPE_INPUT) when it differs: the host copies those few
 * integers from the device and waits for the stream, as IF does with its condition, so such a
 * model is a host-sync model (cu_cf_host_sync) that PREFIX_cuda_run_graph runs uncaptured. */
#include "cuda_internal.h"

#include <stdio.h>

/* The host check of op `index`'s shape input, before its kernel, into the run function. */
void cu_emit_guard(CuEmit *e, int index, const IrOp *op) {
    const IrGuard *gd = op->guard;
    if (!gd) return;
    CgCtx *cg = &e->cg;
    int i64 = e->g->tensors[op->in[gd->input]].dtype == IR_I64;
    const char *ty = i64 ? "long long" : "int";
    char vals[512] = "";
    size_t len = 0;
    for (int i = 0; i < gd->n && len < sizeof vals; i++) {
        int w = snprintf(vals + len, sizeof vals - len, "%s%lld%s", i ? ", " : "", (long long)gd->values[i], i64 ? "LL" : "");
        if (w > 0) len += (size_t)w;
    }
    cg_open(cg, "{ /* input %d is computed at run time: it must hold the values compiled for (else status 4) */", gd->input);
    cg_line(cg, "static const %s want[%d] = {%s};", ty, gd->n, vals);
    cg_line(cg, "%s got[%d];", ty, gd->n);
    cg_line(cg, "int q, same = 1;");
    cg_line(cg, "if ((err = cudaMemcpyAsync(got, %s, sizeof got, cudaMemcpyDeviceToHost, s)) != cudaSuccess ||",
            cu_ptr(e, op->in[gd->input], "const void"));
    cg_line(cg, "    (err = cudaStreamSynchronize(s)) != cudaSuccess) return %s_fail(ctx, err, %d);", e->o->prefix, index);
    cg_line(cg, "for (q = 0; q < %d; q++) same = same && (got[q] == want[q]%s);", gd->n, gd->wildcard ? " || got[q] == -1" : "");
    cg_open(cg, "if (!same) {");
    cg_line(cg, "snprintf(ctx->error, sizeof ctx->error, \"%s: op %d: a shape input differs from the shape compiled for\");",
            e->host_prefix, index);
    cg_line(cg, "return 4;");
    cg_close(cg, "}");
    cg_close(cg, "}");
}
