/* check.h - precision error measurement (mpcc check, --precision auto):
 * runs the float model and its lower-precision version with the reference
 * interpreter on the same samples and measures, tensor by tensor, how far
 * the lower-precision values (dequantized) are from the float ones. */
#ifndef MPCC_CHECK_H
#define MPCC_CHECK_H

#include <stdio.h>

#include "calibrate.h"
#include "diag.h"
#include "ir.h"

typedef struct TensorErr {
    double sum_ref2, sum_err2; /* over all samples: sum of ref^2 and of (q - ref)^2 */
    double max_abs;            /* largest |q - ref| */
    int64_t count;             /* values compared */
} TensorErr;

/* Relative L2 error (sqrt(sum_err2 / sum_ref2)); 0 when nothing differs. */
double check_rel_l2(const TensorErr *e);
/* Signal-to-quantization-noise ratio in dB (capped at 200). */
double check_sqnr(const TensorErr *e);

/* ref: the float model, q: the same model after pass precision, both
 * compiled at -O0 from the same file (tensor ids agree up to ref->n_tensors).
 * err[t] (t < ref->n_tensors, zeroed by the caller) accumulates every float
 * tensor both compute. */
int check_compare(Graph *ref, Graph *q, const CalibSet *set, TensorErr *err, Diag *d);

/* Largest relative L2 error over the graph outputs. */
double check_output_error(const Graph *ref, const TensorErr *err);

/* The per-layer table: for each live op of ref, its precision in q, the
 * relative L2 error of its output and its contribution (that error minus
 * the largest error of its inputs). Returns the TFLite index of the int8 op
 * (q) contributing most, or -1 when none runs in int8. */
int check_report(const Graph *ref, const Graph *q, const TensorErr *err, FILE *f);

#endif
