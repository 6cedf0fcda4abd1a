/* tfl_import_internal.h - what the importer's files share (tfl_import.c,
 * tfl_survey.c, tfl_custom.c, tfl_variables.c): the importer state and its
 * helpers. Not part of the importer's interface (tfl_import.h). */
#ifndef MPCC_TFL_IMPORT_INTERNAL_H
#define MPCC_TFL_IMPORT_INTERNAL_H

#include "fb.h"
#include "tfl_import.h"

struct TflVars;

typedef struct Importer {
    Graph *g;               /* the subgraph being imported */
    const FbBuf *buf;
    FbVec buffers;
    int n_buffers;
    Diag *d;
    int lenient;
    const TflImportOptions *opts;
    TflInfo *info;
    const int *codes;       /* builtin code per operator code */
    const char **custom;    /* custom_code per operator code (NULL for builtins) */
    int n_codes;
    FbVec subgraphs;
    struct Unbound *unbound;    /* custom ops without a kernel in the current subgraph, per name */
    int n_unbound;
    int *calls;             /* control-flow edges: pairs (caller subgraph, called subgraph), malloc'd */
    int n_calls, cap_calls;
    int is_init;            /* reading a CALL_ONCE init subgraph (tfl_variables.c) */
    unsigned char *init_subgraph; /* per subgraph: the init subgraph of a CALL_ONCE (never a graph of its own) */
    struct TflVars *vars;   /* resource variables of the model (shared by every subgraph's importer) */
    int *res_var;           /* per tensor of the current subgraph: its resource variable, -1 none */
    int *block_scales;      /* per tensor of the current subgraph: its block-wise scales tensor, -1 none
                               (tfl_resolve_blockwise reads them once every tensor is imported) */
} Importer;

/* Uses of one custom operator name that has no kernel (--custom-op), listed
 * once per name at the end of the subgraph. */
typedef struct Unbound {
    const char *name;
    int count;
    int first[6];           /* the first operator indices */
} Unbound;


/* tfl_import.c */
int tfl_import_tensor(Importer *im, FbTable *tt, int index);
/* Block-wise quantized tensors of the subgraph (im->block_scales): their scales tensors checked and read. */
int tfl_resolve_blockwise(Importer *im, int n_tensors);
int tfl_read_index_list(Importer *im, FbTable *t, int field, int n_tensors, int allow_absent, int **out, int *n,
                        const char *what);
/* Marks the outputs of an operator that was not imported or not checked as
 * unknown (lenient import): their consumers are then not checked either. */
void tfl_mark_unknown(Graph *g, int n_out, const int *out);

/* tfl_custom.c: CUSTOM operators and --custom-op. */
int tfl_bind_custom(Importer *im, FbTable *ot, int index, const char *name, IrCustom **out);
/* MediaPipe's Convolution2DTransposeBias with no --custom-op binding: imported as a TRANSPOSE_CONV (tfl_custom.c). */
int tfl_is_mediapipe_tconv(const Importer *im, const char *name);
int tfl_import_mediapipe_tconv(Importer *im, FbTable *ot, int index, int n_in, const int *in, int n_out,
                               const int *out);
void tfl_report_unbound(Importer *im);
const char *tfl_custom_list(Graph *g, int n_codes, const int *codes, const char **custom);

/* tfl_survey.c: every subgraph's operators (histogram, control-flow calls). */
int tfl_survey_operators(Importer *im);
int tfl_cmp_edge(const void *a, const void *b);
int tfl_call_order(Importer *im, int s, int depth, unsigned char *state, int *order, int *n);

/* tfl_variables.c: resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE). */
int tfl_variable_op(Importer *im, FbTable *ot, int index, int code, int n_in, const int *in, int n_out,
                    const int *out);
int tfl_variables_finish(Importer *im);
int tfl_variables_new(Importer *im);
void tfl_variables_free(Importer *im);

#endif
