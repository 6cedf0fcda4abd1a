/* cli.h - what the command-line files share (compiler/main.c and
 * compiler/cli_precision.c): the options collected for compile, run and
 * check, and the loading and compiling steps they all use. */
#ifndef MPCC_CLI_H
#define MPCC_CLI_H

#include <stdio.h>

#include "calibrate.h"
#include "check.h"
#include "diag.h"
#include "ir.h"
#include "passes.h"
#include "tfl_import.h"

#define MAX_INPUT_SHAPES 64
#define MAX_CUSTOM_OPS 64
#define MAX_KEEP 256
#define MAX_CALIB 64

/* What --input-shape and --custom-op collect (compile and run). */
typedef struct ImportArgs {
    TflImportOptions o;
    TflInputShape shapes[MAX_INPUT_SHAPES];
    TflCustomOp custom[MAX_CUSTOM_OPS];
    char custom_names[MAX_CUSTOM_OPS][256];
    /* --precision, --keep-fp32, --calibrate */
    IrPrecision prec;
    const char *keep[MAX_KEEP];
    const char *calib[MAX_CALIB];
    int n_calib;
    char keep_list[4096];
    int prec_auto;                    /* --precision auto: int8, with ops promoted to float until --max-error holds */
    double max_error;                 /* --max-error: relative L2 error budget of the outputs, 0: none */
    const char *data[MAX_CALIB];      /* --data: evaluation samples (check, auto), default: the calibration ones */
    int n_data;
    char auto_keep[MAX_KEEP][24];     /* operators auto promoted */
    double percentile;                /* --observer percentile=P: P, 0: min/max */
    char signature_list[4096];        /* --signature NAMES, joined with commas */
} ImportArgs;

/* Prints the diagnostic of a failed command; the exit status (0, 1 user error, 2 internal). */
int cli_finish(Diag *d, int rc);
/* Loads and imports a model; *g (and the file, which it points into) must be
 * freed by the caller, in that order, whatever the result. */
int cli_load(const char *path, const TflImportOptions *o, Graph **g, TflFile *file, TflInfo *info, Diag *d);
int cli_compile_graph(Graph *g, int opt_level, int threads, IrIsa isa, const char *dump_after, FILE *dump_to, Diag *d);
/* mpcc run: binds the model's custom operators to the kernels of the shared library at path. */
int cli_load_custom_kernels(Graph *g, const char *path, void **lib, Diag *d);

/* The import options shared by compile, run and check (--input-shape, --custom-op and the
 * precision options): consumes argv[*i] (and its value) when it is one; -1 if it is not, else 0 or an error. */
int cli_import_arg(int argc, char **argv, int *i, ImportArgs *a, Diag *d);

/* cli_precision.c */
int cli_precision_arg(int argc, char **argv, int *i, ImportArgs *a, Diag *d);
int cli_calibrate(const char *model, ImportArgs *a, const char *custom_lib, Diag *d);
void cli_warn_if_float(const Graph *g);

/* precision_cost.c: --precision bf16|fp16's measured speed against fp32 on the code's target (--isa, or the
 * CPU mpcc runs on for generic): a line of the --report (report non-NULL), else a warning on stderr when
 * an explicit --isa makes it no faster than fp32. */
void precision_cost_note(const Graph *g, FILE *report);
int cmd_check(int argc, char **argv);

#endif
