/* tfl_import.h - TFLite FlatBuffer (schema v3) -> Graph (prefix tfl_). */
#ifndef MPCC_TFL_IMPORT_H
#define MPCC_TFL_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"

#define TFL_MAX_FILE_BYTES   ((size_t)2000000000u)
#define TFL_MAX_TENSORS      1000000
#define TFL_MAX_OPERATORS    1000000
#define TFL_MAX_OP_IO        1024
#define TFL_MAX_IO_PTRS      TFL_MAX_OP_IO

/* Facts about the file that are not part of the graph (for `mpcc inspect`). */
typedef struct TflInfo {
    uint32_t version;
    int n_subgraphs;
    int n_operator_codes;
    int n_buffers;
    int n_signatures;
    /* Per signature (n_signatures entries, when subgraph 0 imported): its key (raw
     * model bytes: escape before printing) and the subgraph it runs. */
    const char **signature_keys;
    int *signature_subgraphs;
    int n_operators;        /* operators in subgraph 0 of the file */
    const char *description;
    int unsupported;        /* count of unsupported ops/options found */
    int *subgraph_ops;      /* operators per subgraph (n_subgraphs entries) */
    /* Operator histogram over every subgraph: builtin names, "CUSTOM:<custom_code>"
     * (raw model bytes) or "builtin code N"; in operator-code order. */
    const char **op_labels;
    int *op_counts;
    int n_op_labels;
} TflInfo;

/* --input-shape: the shape to compile graph input `name` for (its public
 * name, tensor name or index in decimal). */
typedef struct TflInputShape {
    const char *name;
    int rank;
    int64_t dims[IR_MAX_RANK];
} TflInputShape;

/* --custom-op NAME=FUNC: custom operators whose custom_code is NAME call the
 * user kernel FUNC (see runtime/mpcc_custom.h). */
typedef struct TflCustomOp {
    const char *name;       /* custom_code, compared byte for byte */
    const char *func;       /* a C identifier */
} TflCustomOp;

typedef struct TflImportOptions {
    int lenient;                        /* see tfl_import */
    const TflInputShape *input_shapes;  /* fixes these inputs' shapes; shapes are then re-inferred */
    int n_input_shapes;
    const TflCustomOp *custom_ops;      /* kernels for custom operators; a custom op without one is
                                           unsupported (listed per name with its uses) */
    int n_custom_ops;
    const char *signatures;             /* --signature: comma list of keys to compile; NULL: all */
} TflImportOptions;

/* A model file's bytes: mapped read-only where the system can (POSIX), else
 * read into memory. */
typedef struct TflFile {
    const uint8_t *data;
    size_t size;
    int mapped;      /* data is an mmap of the file */
    uint8_t *owned;  /* else the malloc'd copy (NULL for an empty file) */
} TflFile;

/* Opens a regular file of at most TFL_MAX_FILE_BYTES. The file must not be
 * truncated while it is open (as with any mapped file). */
int tfl_open_file(const char *path, TflFile *f, Diag *d);
void tfl_close_file(TflFile *f);
/* Graph.drop_pages for graphs imported from a TflFile (ctx = the TflFile):
 * drops the whole pages of [p, p + n) that lie in the mapping. */
void tfl_drop_pages(void *file, const void *p, size_t n);

/* Imports subgraph 0 of the model in data[0..size). The graph references
 * constant data inside `data` (which must outlive the graph), except where
 * it must copy it for alignment.
 * lenient = 0: any unsupported op or option is an error (all of them are
 * listed at once). lenient = 1 (inspect): unsupported ops stay in the graph
 * with their errors listed in d (and tensors they make marked unknown), every
 * other subgraph is imported into g->sub[] the same way, and the import still
 * returns 0 if the file itself is well formed; info->unsupported counts them. */
int tfl_import(Graph *g, const uint8_t *data, size_t size, int lenient, TflInfo *info, Diag *d);
/* The same with options (input shapes). A model that fails its checks while an
 * input has a dynamic dimension (shape_signature -1) not given by
 * input_shapes gets, as its first message, which input and the option to use. */
int tfl_import_with(Graph *g, const uint8_t *data, size_t size, const TflImportOptions *o, TflInfo *info, Diag *d);

/* Parses "NAME_OR_INDEX=d0,d1,..." (the --input-shape argument); the name
 * points into arg. */
int tfl_parse_input_shape(const char *arg, TflInputShape *out, Diag *d);
/* Parses "NAME=FUNC" (the --custom-op argument; NAME may hold '=', FUNC is
 * the text after the last one); writes the NUL-terminated name into
 * name_buf (cap bytes). */
int tfl_parse_custom_op(const char *arg, TflCustomOp *out, char *name_buf, size_t cap, Diag *d);

#endif
