/* tfl_survey.c - what the importer reads from every subgraph before importing
 * any: the operator histogram (inspect) and the control-flow calls, put in an
 * order that imports callees first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "tfl_import_internal.h"
#include "tfl_schema.h"

/* The name an operator code is counted under in the histogram: the builtin
 * name, "CUSTOM:<custom_code>" (raw model bytes: print through txt_terminal),
 * or "builtin code N" for a code this schema does not know. */
static const char *code_label(Graph *g, int code, const char *custom) {
    if (code == TFL_OP_CUSTOM) return ir_sprintf(g, "CUSTOM:%s", custom ? custom : "");
    const char *name = tfl_builtin_name(code);
    return name ? name : ir_sprintf(g, "builtin code %d", code);
}

/* Records which subgraphs an IF / WHILE / CALL_ONCE / STABLEHLO_COMPOSITE operator of subgraph s
 * calls, as edges in im->calls (each index checked against the subgraph count). */
static int called_subgraphs(Importer *im, FbTable *ot, int s, int index, int code) {
    int fields[2], n = 0, opt_field = TFL_OPERATOR_BUILTIN_OPTIONS;
    if (code == TFL_OP_IF) {
        fields[n++] = TFL_IF_OPTIONS_THEN_SUBGRAPH_INDEX;
        fields[n++] = TFL_IF_OPTIONS_ELSE_SUBGRAPH_INDEX;
    } else if (code == TFL_OP_WHILE) {
        fields[n++] = TFL_WHILE_OPTIONS_COND_SUBGRAPH_INDEX;
        fields[n++] = TFL_WHILE_OPTIONS_BODY_SUBGRAPH_INDEX;
    } else if (code == TFL_OP_CALL_ONCE) {
        fields[n++] = TFL_CALL_ONCE_OPTIONS_INIT_SUBGRAPH_INDEX;
    } else if (code == TFL_OP_STABLEHLO_COMPOSITE) {
        fields[n++] = TFL_COMPOSITE_OPTIONS_DECOMPOSITION_SUBGRAPH_INDEX;
        opt_field = TFL_OPERATOR_BUILTIN_OPTIONS_2;
    } else {
        return 0;
    }
    FbTable opts;
    int has = 0;
    if (fb_table(ot, opt_field, &opts, &has, im->d)) return DIAG_USER;
    for (int k = 0; has && k < n; k++) {
        int32_t sub = 0;
        if (fb_i32(&opts, fields[k], 0, &sub, im->d)) return DIAG_USER;
        if (sub < 0 || (uint32_t)sub >= im->subgraphs.len)
            return diag_user(im->d, "%soperator %d (%s): subgraph index %d out of range (model has %u subgraphs)",
                             s ? ir_sprintf(im->g, "subgraph %d: ", s) : "", index, tfl_builtin_name(code), sub,
                             im->subgraphs.len);
        /* CALL_ONCE's init subgraph is read by the importer, not compiled: no call edge. */
        if (code == TFL_OP_CALL_ONCE) {
            im->init_subgraph[sub] = 1;
            continue;
        }
        if (im->n_calls == im->cap_calls) {
            int cap = im->cap_calls ? 2 * im->cap_calls : 16;
            int *p = realloc(im->calls, sizeof(int) * 2 * (size_t)cap);
            if (!p) return diag_internal(im->d, "out of memory");
            im->calls = p;
            im->cap_calls = cap;
        }
        im->calls[2 * im->n_calls] = s;
        im->calls[2 * im->n_calls + 1] = sub;
        im->n_calls++;
    }
    return 0;
}

/* Operator histogram over every subgraph of the file (for inspect), read
 * straight from the operator lists: unsupported and custom ops count too. */
int tfl_survey_operators(Importer *im) {
    Graph *g = im->g;
    TflInfo *info = im->info;
    int n_sub = (int)im->subgraphs.len;
    int *counts = ir_alloc(g, sizeof(int) * (size_t)(im->n_codes + 1));
    info->subgraph_ops = ir_alloc(g, sizeof(int) * (size_t)(n_sub + 1));
    info->op_labels = ir_alloc(g, sizeof(char *) * (size_t)(im->n_codes + 1));
    info->op_counts = ir_alloc(g, sizeof(int) * (size_t)(im->n_codes + 1));
    if (!counts || !info->subgraph_ops || !info->op_labels || !info->op_counts)
        return diag_internal(im->d, "out of memory");
    for (int s = 0; s < n_sub; s++) {
        FbTable sg;
        FbVec ops;
        int present = 0;
        if (fb_vec_table(&im->subgraphs, (uint32_t)s, &sg, im->d) ||
            fb_vector(&sg, TFL_SUBGRAPH_OPERATORS, 4, &ops, &present, im->d))
            return DIAG_USER;
        if (present && ops.len > TFL_MAX_OPERATORS)
            return diag_user(im->d, "subgraph %d: %u operators exceeds the limit of %d", s, ops.len, TFL_MAX_OPERATORS);
        info->subgraph_ops[s] = present ? (int)ops.len : 0;
        for (uint32_t i = 0; present && i < ops.len; i++) {
            FbTable ot;
            uint32_t oc = 0;
            if (fb_vec_table(&ops, i, &ot, im->d) || fb_u32(&ot, TFL_OPERATOR_OPCODE_INDEX, 0, &oc, im->d))
                return DIAG_USER;
            if (oc >= (uint32_t)im->n_codes)
                return diag_user(im->d, "%soperator %u: opcode_index %u out of range (model has %d operator codes)",
                                 s ? ir_sprintf(g, "subgraph %d: ", s) : "", i, oc, im->n_codes);
            counts[oc]++;
            if (called_subgraphs(im, &ot, s, (int)i, im->codes[oc])) return DIAG_USER;
        }
    }
    /* Several operator codes may carry the same op (e.g. two versions): merge by label. */
    for (int c = 0; c < im->n_codes; c++) {
        if (!counts[c]) continue;
        const char *label = code_label(g, im->codes[c], im->custom[c]);
        if (!label) return diag_internal(im->d, "out of memory");
        int k = 0;
        while (k < info->n_op_labels && strcmp(info->op_labels[k], label) != 0) k++;
        if (k == info->n_op_labels) info->op_labels[info->n_op_labels++] = label;
        info->op_counts[k] += counts[c];
    }
    return 0;
}

/* Control-flow edges sorted by caller, so a subgraph's callees are one run. */
int tfl_cmp_edge(const void *a, const void *b) {
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

#define MAX_CALL_DEPTH 64

/* Subgraphs reachable from subgraph s through control flow, callees before
 * their callers (post-order), appended to order[]; a call cycle or nesting
 * deeper than MAX_CALL_DEPTH is a user error. Needs im->calls sorted. */
int tfl_call_order(Importer *im, int s, int depth, unsigned char *state, int *order, int *n) {
    if (depth > MAX_CALL_DEPTH)
        return diag_user(im->d, "control flow is nested more than %d subgraphs deep", MAX_CALL_DEPTH);
    state[s] = 1; /* on the DFS stack */
    int lo = 0, hi = im->n_calls;
    while (lo < hi) { /* the first edge of caller s */
        int mid = lo + (hi - lo) / 2;
        if (im->calls[2 * mid] < s) lo = mid + 1;
        else hi = mid;
    }
    for (int e = lo; e < im->n_calls && im->calls[2 * e] == s; e++) {
        int t = im->calls[2 * e + 1];
        if (state[t] == 1)
            return diag_user(im->d, "subgraph %d is called from subgraph %d while it runs: recursive control flow "
                             "is not supported", t, s);
        if (state[t] == 0 && tfl_call_order(im, t, depth + 1, state, order, n)) return DIAG_USER;
    }
    state[s] = 2;
    order[(*n)++] = s;
    return 0;
}

