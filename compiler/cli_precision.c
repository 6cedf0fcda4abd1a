/* cli_precision.c - the precision side of the command line: --precision,
 * --calibrate, --keep-fp32, --observer, --max-error, --data and
 * --no-range-guard, calibration, the --precision auto search and mpcc check.
 * The graph work is pass precision's (compiler/passes/pass_precision.c). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

/* --keep-fp32 A,B,... (repeatable): operator indices or tensor names. */
static int keep_arg(const char *arg, ImportArgs *a, Diag *d) {
    size_t used = 0;
    for (int k = 0; k < a->prec.n_keep; k++) used += strlen(a->keep[k]) + 1;
    if (used + strlen(arg) + 1 > sizeof a->keep_list) return diag_user(d, "--keep-fp32: the lists are too long");
    char *p = a->keep_list + used;
    memcpy(p, arg, strlen(arg) + 1);
    for (char *item = p; item;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = '\0';
        if (*item) {
            if (a->prec.n_keep == MAX_KEEP) return diag_user(d, "--keep-fp32: more than %d entries", MAX_KEEP);
            a->keep[a->prec.n_keep++] = item;
        }
        item = comma ? comma + 1 : NULL;
    }
    a->prec.keep = a->keep;
    return 0;
}

/* The precision options of compile, run and check: consumes argv[*i] (and
 * its value) when it is one; returns -1 if it is not, else 0 or an error. */
int cli_precision_arg(int argc, char **argv, int *i, ImportArgs *a, Diag *d) {
    if (strcmp(argv[*i], "--no-range-guard") == 0) { /* takes no value */
        a->prec.no_range_guard = 1;
        return 0;
    }
    if (strcmp(argv[*i], "--f32-activations") == 0) {
        a->prec.f32_activations = 1;
        return 0;
    }
    if (strcmp(argv[*i], "--half-activations") == 0) {
        a->prec.half_activations = 1;
        return 0;
    }
    if (*i + 1 >= argc) return -1;
    if (strcmp(argv[*i], "--keep-fp32") == 0) return keep_arg(argv[++*i], a, d);
    if (strcmp(argv[*i], "--calibrate") == 0) {
        if (a->n_calib == MAX_CALIB) return diag_user(d, "more than %d --calibrate options", MAX_CALIB);
        a->calib[a->n_calib++] = argv[++*i];
        return 0;
    }
    if (strcmp(argv[*i], "--data") == 0) {
        if (a->n_data == MAX_CALIB) return diag_user(d, "more than %d --data options", MAX_CALIB);
        a->data[a->n_data++] = argv[++*i];
        return 0;
    }
    if (strcmp(argv[*i], "--observer") == 0) {
        const char *v = argv[++*i];
        char *end = NULL;
        if (strcmp(v, "minmax") == 0) a->percentile = 0;
        else if (strcmp(v, "percentile") == 0) a->percentile = 99.99;
        else if (strncmp(v, "percentile=", 11) == 0 && (a->percentile = strtod(v + 11, &end), *end == '\0') &&
                 a->percentile >= 50 && a->percentile < 100 && v[11])
            ;
        else return diag_user(d, "--observer must be minmax, percentile or percentile=P (50 <= P < 100), not '%s'", v);
        return 0;
    }
    if (strcmp(argv[*i], "--max-error") == 0) {
        const char *v = argv[++*i];
        char *end;
        a->max_error = strtod(v, &end);
        if (*v == '\0' || *end || !(a->max_error > 0) || a->max_error > 1e30)
            return diag_user(d, "--max-error must be a positive number (relative L2 error), not '%s'", v);
        return 0;
    }
    if (strcmp(argv[*i], "--precision") == 0) {
        const char *v = argv[++*i];
        a->prec_auto = strcmp(v, "auto") == 0;
        if (strcmp(v, "fp32") == 0) a->prec.mode = IR_PREC_FP32;
        else if (strcmp(v, "int8") == 0 || a->prec_auto) a->prec.mode = IR_PREC_INT8;
        else if (strcmp(v, "bf16") == 0) a->prec.mode = IR_PREC_BF16;
        else if (strcmp(v, "fp16") == 0) a->prec.mode = IR_PREC_FP16;
        else return diag_user(d, "--precision must be fp32, bf16, fp16, int8 or auto, not '%s'", v);
        /* int8 has no attention kernel: its products take the next precision down, bf16; not for auto,
         * whose error measure runs the unfused reference graph */
        a->prec.bf16_attention = strcmp(v, "int8") == 0;
        return 0;
    }
    return -1;
}



/* The model compiled at -O0 for the reference interpreter, at precision p
 * (NULL: its own dtypes). Free with unload() whatever the result. */
static int load_ref(const char *model, ImportArgs *a, const IrPrecision *p, const char *custom_lib, Graph **g,
                    TflFile *file, void **lib, Diag *d) {
    *lib = NULL;
    int rc = cli_load(model, &a->o, g, file, NULL, d);
    if (*g) (*g)->precision = p;
    if (!rc) rc = cli_load_custom_kernels(*g, custom_lib, lib, d);
    if (!rc) rc = cli_compile_graph(*g, 0, 1, IR_ISA_GENERIC, NULL, NULL, d);
    return rc;
}

/* --precision int8 on a model where nothing could run in int8 says so. */
void cli_warn_if_float(const Graph *g) {
    if (!g || !g->precision || g->precision->mode != IR_PREC_INT8) return;
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && g->ops[i].prec == IR_I8 && g->ops[i].prec_note &&
            strcmp(g->ops[i].prec_note, "calibrated") == 0)
            return;
    fprintf(stderr, "mpcc: warning: --precision int8: no operator runs in int8 (int8 starts at a convolution or "
                    "FULLY_CONNECTED with constant float weights); the model stays float\n");
}

static void unload(Graph *g, TflFile *file, void *lib) {
    ir_graph_free(g);
    tfl_close_file(file);
    if (lib) dlclose(lib);
}

/* Errors of the model at a->prec against the float model ref on set: the
 * largest output error, and the int8 operator contributing most (-1: none);
 * with f, prints the per-output and per-layer tables. */
static int measure(const char *model, ImportArgs *a, const char *custom_lib, Graph *ref, const CalibSet *set, FILE *f,
                   double *out_err, int *worst_op, Diag *d) {
    Graph *q;
    TflFile file;
    void *lib;
    TensorErr *err = calloc((size_t)ref->n_tensors + 1, sizeof *err);
    int rc = err ? load_ref(model, a, &a->prec, custom_lib, &q, &file, &lib, d) : diag_internal(d, "out of memory");
    if (!rc) rc = check_compare(ref, q, set, err, d);
    if (!rc) {
        *out_err = check_output_error(ref, err);
        if (f) {
            fprintf(f, "outputs (against the float model, %lld samples):\n", (long long)set->n_samples);
            fprintf(f, "  %-3s %-32s %12s %10s %9s\n", "#", "name", "max |diff|", "rel L2", "SQNR dB");
            for (int i = 0; i < ref->n_outputs; i++) {
                const TensorErr *e = &err[ref->outputs[i]];
                char nb[256];
                fprintf(f, "  %-3d %-32s %12.4g %10.4g %9.1f\n", i, txt_terminal(nb, sizeof nb, ref->output_names[i], 80),
                        e->max_abs, check_rel_l2(e), check_sqnr(e));
            }
            fprintf(f, "per layer (TFLite operator; rel L2 and SQNR of its output; contribution = its error minus "
                       "its inputs' largest):\n");
        }
        *worst_op = check_report(ref, q, err, f);
    }
    unload(q, &file, lib);
    free(err);
    return rc;
}

/* The TFLite indices of the ops that run in int8 at a->prec (at most cap). */
static int int8_ops(const char *model, ImportArgs *a, const char *custom_lib, int *ops, int cap, Diag *d) {
    Graph *q;
    TflFile file;
    void *lib;
    int rc = load_ref(model, a, &a->prec, custom_lib, &q, &file, &lib, d), n = 0;
    for (int i = 0; !rc && i < q->n_ops && n < cap; i++)
        if (!q->ops[i].dead && q->ops[i].prec == IR_I8 && q->ops[i].prec_note &&
            strcmp(q->ops[i].prec_note, "calibrated") == 0)
            ops[n++] = q->ops[i].tfl_index;
    unload(q, &file, lib);
    return rc ? -1 : n;
}

/* Sets the --keep-fp32 list to the first n operators of ops (after the user's own base entries). */
static void keep_ops(ImportArgs *a, int base, const int *ops, int n) {
    a->prec.n_keep = base;
    for (int k = 0; k < n && a->prec.n_keep < MAX_KEEP; k++) {
        snprintf(a->auto_keep[k], sizeof a->auto_keep[k], "%d", ops[k]);
        a->keep[a->prec.n_keep++] = a->auto_keep[k];
    }
    a->prec.keep = a->keep;
}

/* --precision auto: every op that can runs in int8. When the outputs'
 * relative L2 error exceeds the budget, each int8 op's sensitivity is
 * measured (the error with only that op back in float), and ops are
 * promoted to float, most helpful first, until the budget holds. */
static int search_auto(const char *model, ImportArgs *a, const char *custom_lib, Graph *ref, const CalibSet *set,
                       FILE *f, Diag *d) {
    double budget = a->max_error > 0 ? a->max_error : 1e-2, e = 0, e_all;
    int worst = -1, base = a->prec.n_keep, promoted = 0;
    int rc = measure(model, a, custom_lib, ref, set, NULL, &e_all, &worst, d);
    e = e_all;
    if (!rc && e_all > budget) {
        int *ops = malloc(sizeof(int) * MAX_KEEP);
        double *gain = malloc(sizeof(double) * MAX_KEEP);
        int n = ops && gain ? int8_ops(model, a, custom_lib, ops, MAX_KEEP, d) : -1;
        if (n < 0) rc = d->kind ? d->kind : diag_internal(d, "out of memory");
        for (int k = 0; !rc && k < n; k++) {
            keep_ops(a, base, &ops[k], 1);
            double ek;
            rc = measure(model, a, custom_lib, ref, set, NULL, &ek, &worst, d);
            gain[k] = e_all - ek;
        }
        for (int k = 1; !rc && k < n; k++) /* most helpful first (insertion sort: few ops) */
            for (int j = k; j > 0 && gain[j] > gain[j - 1]; j--) {
                double tg = gain[j];
                int to = ops[j];
                gain[j] = gain[j - 1], ops[j] = ops[j - 1];
                gain[j - 1] = tg, ops[j - 1] = to;
            }
        for (promoted = 1; !rc && promoted <= n; promoted++) {
            keep_ops(a, base, ops, promoted);
            rc = measure(model, a, custom_lib, ref, set, NULL, &e, &worst, d);
            fprintf(stderr, "mpcc: auto: operator %d back to float: output error %.4g (budget %.4g)\n",
                    ops[promoted - 1], e, budget);
            if (e <= budget) break;
        }
        free(ops), free(gain);
    }
    if (rc) return rc;
    fprintf(f, "precision auto: output rel L2 %.4g within %.4g (int8 everywhere: %.4g), %d operator%s promoted to "
               "float\n", e, budget, e_all, promoted, promoted == 1 ? "" : "s");
    return measure(model, a, custom_lib, ref, set, f, &e, &worst, d);
}

/* --precision int8/auto: the calibration ranges, from the float model run by
 * the reference interpreter over the --calibrate samples (freed at exit);
 * auto also picks the operators kept float. */
int cli_calibrate(const char *model, ImportArgs *a, const char *custom_lib, Diag *d) {
    if (a->prec.mode == IR_PREC_FP32) {
        if (a->n_calib) return diag_user(d, "--calibrate is only used with --precision int8, auto, bf16 or fp16");
        return 0;
    }
    if (!a->n_calib && (a->prec.mode == IR_PREC_BF16 || a->prec.mode == IR_PREC_FP16)) {
        if (a->prec.mode == IR_PREC_FP16 && !a->prec.no_range_guard)
            fprintf(stderr, "mpcc: note: --precision fp16 without --calibrate: no fp16 range guard (values beyond "
                            "65504 become infinities)\n");
        return 0;
    }
    if (!a->n_calib)
        return diag_user(d, "--precision %s needs calibration data: --calibrate FILE.npy or DIR (samples of the "
                            "model's inputs, one --calibrate per input)", a->prec_auto ? "auto" : "int8");
    Graph *g;
    TflFile file;
    void *lib;
    int rc = load_ref(model, a, NULL, custom_lib, &g, &file, &lib, d);
    float *mn = NULL, *mx = NULL;
    int n = 0;
    if (!rc) {
        mn = malloc(sizeof(float) * (size_t)(g->n_tensors + 1));
        mx = malloc(sizeof(float) * (size_t)(g->n_tensors + 1));
        if (!mn || !mx) rc = diag_internal(d, "out of memory");
    }
    if (!rc) rc = calib_collect(g, a->calib, a->n_calib, mn, mx, &n, d);
    if (!rc && a->percentile > 0) rc = calib_percentile(g, a->calib, a->n_calib, a->percentile, mn, mx, d);
    if (!rc) {
        a->prec.n_stats = g->n_tensors;
        a->prec.min = mn;
        a->prec.max = mx;
        fprintf(stderr, "mpcc: calibrated on %d sample%s (%s)\n", n, n == 1 ? "" : "s",
                a->percentile > 0 ? "percentile observer" : "min/max observer");
    } else {
        free(mn), free(mx);
    }
    if (!rc && a->prec_auto) {
        CalibSet set;
        rc = a->n_data ? calib_load(g, a->data, a->n_data, "--data", &set, d)
                       : calib_load(g, a->calib, a->n_calib, "--calibrate", &set, d);
        if (!rc) rc = search_auto(model, a, custom_lib, g, &set, stderr, d);
        calib_free(&set);
    }
    unload(g, &file, lib);
    return rc;
}

/* mpcc check: the model at --precision against the float model, on the
 * --data samples (default: the calibration samples), output by output and
 * layer by layer. With --max-error, exit 1 when an output exceeds it. */
int cmd_check(int argc, char **argv) {
    Diag d;
    diag_init(&d);
    const char *model = NULL, *custom_lib = NULL;
    static ImportArgs ia;
    for (int i = 0; i < argc; i++) {
        int rc = cli_import_arg(argc, argv, &i, &ia, &d);
        if (rc > 0) return cli_finish(&d, rc);
        if (rc == 0) continue;
        if (strcmp(argv[i], "--custom-lib") == 0 && i + 1 < argc) custom_lib = argv[++i];
        else if (argv[i][0] == '-') return cli_finish(&d, diag_user(&d, "check: unknown option '%s' (see mpcc --help)", argv[i]));
        else if (!model) model = argv[i];
        else return cli_finish(&d, diag_user(&d, "check: more than one MODEL given ('%s')", argv[i]));
    }
    if (!model) return cli_finish(&d, diag_user(&d, "check: no MODEL given (see mpcc --help)"));
    if (ia.prec.mode == IR_PREC_FP32 && !ia.n_data)
        return cli_finish(&d, diag_user(&d, "check: give --precision int8 or auto with --calibrate (or --data samples to "
                                        "run the float model on)"));
    int rc = cli_calibrate(model, &ia, custom_lib, &d);
    Graph *ref = NULL;
    TflFile file;
    void *lib = NULL;
    if (!rc) rc = load_ref(model, &ia, NULL, custom_lib, &ref, &file, &lib, &d);
    CalibSet set = {0};
    if (!rc) rc = ia.n_data ? calib_load(ref, ia.data, ia.n_data, "--data", &set, &d)
                            : calib_load(ref, ia.calib, ia.n_calib, "--calibrate", &set, &d);
    double e = 0;
    int worst = -1;
    if (!rc) {
        printf("mpcc check: %s at precision %s%s, %lld evaluation samples (%s)\n", model,
               ia.prec_auto ? "auto" : ir_prec_name(ia.prec.mode), ia.prec.n_keep ? " with --keep-fp32" : "",
               (long long)set.n_samples, ia.n_data ? "--data" : "the calibration samples");
        rc = measure(model, &ia, custom_lib, ref, &set, stdout, &e, &worst, &d);
    }
    if (!rc && ia.max_error > 0 && e > ia.max_error)
        rc = diag_user(&d, "check: output relative L2 error %.4g exceeds --max-error %.4g (largest int8 contribution: "
                           "operator %d)", e, ia.max_error, worst);
    calib_free(&set);
    if (ref) unload(ref, &file, lib);
    return cli_finish(&d, rc);
}

