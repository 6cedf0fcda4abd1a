/* tfl_variables.c - resource variables, as the converter writes a model's
 * tf.Variables when it does not freeze them: VAR_HANDLE (a variable's key,
 * container + shared_name) gives a RESOURCE tensor; READ_VARIABLE and
 * ASSIGN_VARIABLE read and write the variable through it; CALL_ONCE runs an
 * init subgraph on the first invocation, which assigns the initial values.
 *
 * Each variable becomes one state tensor of the model's graph (in the
 * arena's state part, persistent across runs), and the two accesses become
 * the ops READ_VARIABLE (a copy out of the state) and ASSIGN_VARIABLE (a copy
 * into it). VAR_HANDLE leaves no op. CALL_ONCE's init subgraph is read here,
 * at compile time: it may only assign constants, which become the state's
 * value after <prefix>_init (TFLite assigns them on the first invocation,
 * before anything can read the variable: the same values). Variables used
 * inside control-flow subgraphs are not supported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "tfl_import_internal.h"
#include "tfl_schema.h"

typedef struct TflVar {
    const char *key;        /* "container/shared_name" (model bytes) */
    int tensor;             /* its state tensor in the model's graph, -1 until an access needs it */
    const IrTensor *init;   /* the constant CALL_ONCE assigns (copied to the model's graph), or NULL */
} TflVar;

typedef struct TflVars {
    TflVar *v;
    int n, cap;
} TflVars;

static int var_for_key(Importer *im, const char *key, Diag *d) {
    TflVars *vs = im->vars;
    for (int i = 0; i < vs->n; i++)
        if (strcmp(vs->v[i].key, key) == 0) return i;
    if (vs->n == vs->cap) {
        int cap = vs->cap ? 2 * vs->cap : 8;
        TflVar *p = realloc(vs->v, sizeof *p * (size_t)cap);
        if (!p) return -diag_internal(d, "out of memory");
        vs->v = p;
        vs->cap = cap;
    }
    Graph *root = im->g->root ? im->g->root : im->g;
    vs->v[vs->n].key = ir_strdup(root, key);
    vs->v[vs->n].tensor = -1;
    vs->v[vs->n].init = NULL;
    return vs->n++;
}

/* The variable a RESOURCE input tensor names, or a user error. */
static int var_of(Importer *im, int index, const char *opname, int tensor) {
    int v = tensor >= 0 ? im->res_var[tensor] : -1;
    if (v < 0)
        return -diag_user(im->d, "operator %d (%s): its resource input %d does not come from a VAR_HANDLE", index,
                          opname, tensor);
    return v;
}

/* Same dtype and shape, else a user error naming the variable. */
static int expect_like(Importer *im, const TflVar *v, const IrTensor *a, const IrTensor *b) {
    int same = a->dtype == b->dtype && a->rank == b->rank;
    for (int i = 0; same && i < a->rank; i++) same = a->dims[i] == b->dims[i];
    if (same) return 0;
    char da[160], db[160];
    return diag_user(im->d, "variable '%s' is used as %s ('%s') and as %s ('%s')", v->key,
                     ir_tensor_desc(a, da, sizeof da), a->name, ir_tensor_desc(b, db, sizeof db), b->name);
}

/* The variable's state tensor in the model's graph, made like `like` on first use. */
static int var_tensor(Importer *im, int vi, int like_id) {
    Graph *g = im->g;
    TflVar *v = &im->vars->v[vi];
    if (v->tensor < 0) {
        IrTensor like = g->tensors[like_id];
        int id = ir_add_tensor(g, v->key, like.dtype, like.rank, like.dims);
        if (id < 0) return -diag_internal(im->d, "out of memory");
        IrTensor *t = &g->tensors[id];
        t->is_variable = 1;
        t->q = like.q;
        t->tfl_index = -1;
        v->tensor = id;
    }
    if (expect_like(im, v, &g->tensors[v->tensor], &g->tensors[like_id])) return -DIAG_USER;
    return v->tensor;
}

/* CALL_ONCE: reads init subgraph k (its constants and assignments) into the variables' initial values. */
static int read_init(Importer *im, int k, int index) {
    Graph *root = im->g;
    Graph *tmp = ir_graph_new(root->source);
    if (!tmp) return diag_internal(im->d, "out of memory");
    Importer sub = *im;
    sub.g = tmp;
    sub.is_init = 1;
    tmp->root = root;
    FbTable sg;
    FbVec tens, ops;
    int present = 0, rc = 0;
    if (fb_vec_table(&im->subgraphs, (uint32_t)k, &sg, im->d) ||
        fb_vector(&sg, TFL_SUBGRAPH_TENSORS, 4, &tens, &present, im->d))
        rc = DIAG_USER;
    int n_tensors = present ? (int)tens.len : 0;
    if (!rc && n_tensors > TFL_MAX_TENSORS)
        rc = diag_user(im->d, "subgraph %d: %d tensors exceeds the limit of %d", k, n_tensors, TFL_MAX_TENSORS);
    sub.res_var = rc ? NULL : ir_alloc(tmp, sizeof(int) * (size_t)(n_tensors + 1));
    if (!rc && !sub.res_var) rc = diag_internal(im->d, "out of memory");
    for (int i = 0; !rc && i < n_tensors; i++) {
        FbTable tt;
        sub.res_var[i] = -1;
        rc = fb_vec_table(&tens, (uint32_t)i, &tt, im->d) || tfl_import_tensor(&sub, &tt, i) ? DIAG_USER : 0;
    }
    if (!rc && fb_vector(&sg, TFL_SUBGRAPH_OPERATORS, 4, &ops, &present, im->d)) rc = DIAG_USER;
    for (uint32_t i = 0; !rc && present && i < ops.len; i++) {
        FbTable ot;
        uint32_t oc = 0;
        int *in, *out, n_in, n_out;
        char what[64];
        snprintf(what, sizeof what, "subgraph %d operator %u", k, i);
        if (fb_vec_table(&ops, i, &ot, im->d) || fb_u32(&ot, TFL_OPERATOR_OPCODE_INDEX, 0, &oc, im->d) ||
            tfl_read_index_list(&sub, &ot, TFL_OPERATOR_INPUTS, n_tensors, 1, &in, &n_in, what) ||
            tfl_read_index_list(&sub, &ot, TFL_OPERATOR_OUTPUTS, n_tensors, 0, &out, &n_out, what)) {
            rc = DIAG_USER;
            break;
        }
        int code = oc < (uint32_t)im->n_codes ? im->codes[oc] : -1;
        if (code == TFL_OP_VAR_HANDLE) {
            rc = tfl_variable_op(&sub, &ot, (int)i, code, n_in, in, n_out, out);
        } else if (code == TFL_OP_ASSIGN_VARIABLE && n_in == 2 && in[0] >= 0 && in[1] >= 0) {
            int vi = var_of(&sub, (int)i, "ASSIGN_VARIABLE", in[0]);
            const IrTensor *val = &tmp->tensors[in[1]];
            if (vi < 0) rc = -vi;
            else if (!val->data)
                rc = diag_user(im->d, "operator %d (CALL_ONCE): subgraph %d assigns a computed value to variable '%s'; "
                               "only constants are supported", index, k, im->vars->v[vi].key);
            else {
                /* Keep the constant: copied to the model's graph (the temporary graph goes away). */
                IrTensor *c = ir_alloc(root, sizeof *c);
                uint8_t *data = ir_alloc(root, val->data_size ? val->data_size : 1);
                if (!c || !data) {
                    rc = diag_internal(im->d, "out of memory");
                    break;
                }
                *c = *val;
                memcpy(data, val->data, val->data_size);
                c->data = data;
                c->name = ir_strdup(root, val->name);
                c->q.count = 0; /* the state takes its quantization from its uses */
                im->vars->v[vi].init = c;
            }
        } else {
            const char *name = code >= 0 ? tfl_builtin_name(code) : NULL;
            rc = diag_user(im->d, "operator %d (CALL_ONCE): subgraph %d operator %u (%s) is not supported: an init "
                           "subgraph may only assign constants to variables", index, k, i, name ? name : "?");
        }
    }
    ir_graph_free(tmp);
    return rc;
}

int tfl_variable_op(Importer *im, FbTable *ot, int index, int code, int n_in, const int *in, int n_out,
                    const int *out) {
    Graph *g = im->g;
    Diag *d = im->d;
    const char *opname = tfl_builtin_name(code);
    if (g->root && !im->is_init)
        return diag_user(d, "operator %d: %s inside a control-flow subgraph is not supported (resource variables "
                         "only in the model's main graph)", index, opname);
    FbTable opts;
    int has_opts = 0;
    if (fb_table(ot, TFL_OPERATOR_BUILTIN_OPTIONS, &opts, &has_opts, d)) return DIAG_USER;
    if (code == TFL_OP_VAR_HANDLE) {
        const char *container = "", *name = "";
        uint32_t lc = 0, ln = 0;
        int has_c = 0, has_n = 0;
        if (n_out != 1 || n_in != 0) return diag_user(d, "operator %d (VAR_HANDLE): expected 0 inputs and 1 output", index);
        if (has_opts && (fb_string(&opts, TFL_VAR_HANDLE_OPTIONS_CONTAINER, &container, &lc, &has_c, d) ||
                         fb_string(&opts, TFL_VAR_HANDLE_OPTIONS_SHARED_NAME, &name, &ln, &has_n, d)))
            return DIAG_USER;
        char *key = ir_sprintf(g, "%.*s/%.*s", has_c ? (int)lc : 0, container, has_n ? (int)ln : 0, name);
        if (!key) return diag_internal(d, "out of memory");
        int vi = var_for_key(im, key, d);
        if (vi < 0) return -vi;
        im->res_var[out[0]] = vi;
        return 0;
    }
    if (code == TFL_OP_CALL_ONCE) {
        int32_t k = 0;
        if (n_in || n_out) return diag_user(d, "operator %d (CALL_ONCE): expected no inputs or outputs", index);
        if (!has_opts || fb_i32(&opts, TFL_CALL_ONCE_OPTIONS_INIT_SUBGRAPH_INDEX, 0, &k, d))
            return has_opts ? DIAG_USER : diag_user(d, "operator %d (CALL_ONCE): missing CallOnceOptions", index);
        if (k <= 0 || (uint32_t)k >= im->subgraphs.len)
            return diag_user(d, "operator %d (CALL_ONCE): init subgraph %d out of range", index, k);
        return read_init(im, k, index);
    }
    int is_read = code == TFL_OP_READ_VARIABLE;
    if (n_in != (is_read ? 1 : 2) || n_out != (is_read ? 1 : 0) || in[0] < 0 || (!is_read && in[1] < 0))
        return diag_user(d, "operator %d (%s): expected %d inputs and %d outputs", index, opname, is_read ? 1 : 2,
                         is_read ? 1 : 0);
    int vi = var_of(im, index, opname, in[0]);
    if (vi < 0) return -vi;
    int v = var_tensor(im, vi, is_read ? out[0] : in[1]);
    if (v < 0) return -v;
    int ins[2] = {v, is_read ? -1 : in[1]};
    int idx = ir_add_op(g, is_read ? OP_READ_VARIABLE : OP_ASSIGN_VARIABLE, is_read ? 1 : 2, ins, n_out, out);
    if (idx < 0) return diag_internal(d, "out of memory");
    g->ops[idx].tfl_index = index;
    return 0;
}

int tfl_variables_finish(Importer *im) {
    TflVars *vs = im->vars;
    int rc = 0;
    for (int i = 0; vs && i < vs->n && !rc; i++) {
        TflVar *v = &vs->v[i];
        if (v->tensor < 0 || !v->init) continue;
        IrTensor *t = &im->g->tensors[v->tensor];
        rc = expect_like(im, v, t, v->init);
        if (!rc) t->init = v->init->data;
    }
    return rc;
}

int tfl_variables_new(Importer *im) {
    im->vars = calloc(1, sizeof *im->vars);
    return im->vars ? 0 : diag_internal(im->d, "out of memory");
}

void tfl_variables_free(Importer *im) {
    if (im->vars) free(im->vars->v);
    free(im->vars);
    im->vars = NULL;
}
