/* fuzz_compile.c - libFuzzer target for the whole pipeline, in memory:
 * tfl_import, pass_run_pipeline (verifier after every pass), cg_emit_model
 * (constants embedded, and as a weights blob), and, when the model is small
 * enough to be cheap, interp_run on inputs drawn from the fuzz data.
 * User errors are expected; internal errors, crashes and sanitizer reports
 * are bugs.
 * MPCC_FUZZ_SKIP_INTERP_OPS=DIV,SVDF skips the interpreter for graphs holding
 * those ops: known kernel bugs (tests/fuzz/known_op_bugs.txt) owned by the
 * op files, so the fuzzer can look for new ones meanwhile. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c.h"
#include "interp.h"
#include "ir.h"
#include "ops.h"
#include "passes.h"
#include "tfl_import.h"

/* Run the interpreter only below these (keeps one execution well under a second). */
#define FUZZ_INTERP_MAX_BYTES ((int64_t)8 << 20)
#define FUZZ_INTERP_MAX_MACS  ((int64_t)20000000)

static void fail_if_internal(int rc, const Diag *d, const char *where) {
    if (rc == DIAG_INTERNAL || d->kind == DIAG_INTERNAL) {
        fprintf(stderr, "internal error in %s: %s\n", where, d->msg);
        abort();
    }
}

/* 1 if op kind k is listed in $MPCC_FUZZ_SKIP_INTERP_OPS. */
static int skipped_op(OpKind k) {
    const char *list = getenv("MPCC_FUZZ_SKIP_INTERP_OPS");
    const char *name = ir_op_name(k);
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static int cheap_to_run(Graph *g) {
    int64_t bytes = 0, macs = 0;
    for (int i = 0; i < g->n_tensors; i++) {
        int64_t b = ir_tensor_bytes(&g->tensors[i]);
        if (b < 0) return 0;
        bytes += b;
        if (bytes > FUZZ_INTERP_MAX_BYTES) return 0;
    }
    for (int i = 0; i < g->n_ops; i++) {
        const OpDef *def = op_def(g->ops[i].kind);
        if (g->ops[i].dead) continue;
        if (skipped_op(g->ops[i].kind)) return 0;
        if (!def || !def->macs) continue;
        int64_t m = def->macs(g, &g->ops[i]);
        if (m < 0 || m > FUZZ_INTERP_MAX_MACS) return 0;
        macs += m;
        if (macs > FUZZ_INTERP_MAX_MACS) return 0;
    }
    return 1;
}

static void run_interp(Graph *g, const uint8_t *data, size_t size) {
    const void *ins[TFL_MAX_IO_PTRS];
    void *outs[TFL_MAX_IO_PTRS];
    int n_in = g->n_inputs, n_out = g->n_outputs, made_in = 0, made_out = 0;
    if (n_in > TFL_MAX_IO_PTRS || n_out > TFL_MAX_IO_PTRS) return;
    uint32_t state = (uint32_t)size * 2654435761u;
    for (int i = 0; i < n_in; i++, made_in++) {
        size_t n = (size_t)ir_tensor_bytes(&g->tensors[g->inputs[i]]);
        uint8_t *b = malloc(n + 1);
        if (!b) goto done;
        /* Input bytes: a cheap generator seeded from the fuzz data, so the
         * fuzzer can steer values (NaN, extremes) without a second corpus. */
        for (size_t k = 0; k < n; k++) {
            state = state * 1664525u + 1013904223u + (size ? data[k % size] : 0);
            b[k] = (uint8_t)(state >> 24);
        }
        ins[i] = b;
    }
    for (int i = 0; i < n_out; i++, made_out++) {
        size_t n = (size_t)ir_tensor_bytes(&g->tensors[g->outputs[i]]);
        outs[i] = malloc(n + 1);
        if (!outs[i]) goto done;
    }
    Diag d;
    diag_init(&d);
    int rc = interp_run(g, ins, outs, &d);
    fail_if_internal(rc, &d, "interp_run");
done:
    for (int i = 0; i < made_in; i++) free((void *)ins[i]);
    for (int i = 0; i < made_out; i++) free(outs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Diag d;
    diag_init(&d);
    Graph *g = ir_graph_new("fuzz.tflite");
    if (!g) return 0;
    int rc = tfl_import(g, data, size, 0, NULL, &d);
    fail_if_internal(rc, &d, "tfl_import");
    if (!rc) {
        PipelineOptions po = {1, NULL, NULL};
        rc = pass_run_pipeline(g, &po, &d);
        fail_if_internal(rc, &d, "pass_run_pipeline");
    }
    for (int weights_file = 0; !rc && weights_file < 2; weights_file++) {
        EmitOptions eo = {"model", "model.h", "fuzz.tflite", weights_file, 0, CG_MAX_EMBED_BYTES, 0};
        FILE *c = tmpfile(), *h = tmpfile(), *w = tmpfile();
        diag_init(&d);
        int erc = c && h && w ? cg_emit_model(g, &eo, c, h, w, &d) : 0;
        fail_if_internal(erc, &d, "cg_emit_model");
        if (c) fclose(c);
        if (h) fclose(h);
        if (w) fclose(w);
        if (erc) rc = erc;
    }
    if (!rc && cheap_to_run(g)) run_interp(g, data, size);
    ir_graph_free(g);
    return 0;
}
