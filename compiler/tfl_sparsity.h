/* tfl_sparsity.h - constant tensors stored in TFLite's sparse format
 * (Tensor.sparsity: traversal order, block map, per-level dense or CSR
 * metadata), densified at compile time (prefix tfl_). */
#ifndef MPCC_TFL_SPARSITY_H
#define MPCC_TFL_SPARSITY_H

#include <stddef.h>
#include <stdint.h>

#include "fb.h"
#include "ir.h"

/* Expands the sparse values data[0..size) of tensor t (its dims and dtype are
 * the dense ones) into a dense, zero-filled buffer allocated on g, as TFLite's
 * FormatConverter::SparseToDense does. Every index, segment and size is
 * checked: a malformed description is a user error naming the tensor. */
int tfl_densify(Graph *g, const FbTable *sparsity, const IrTensor *t, int index, const uint8_t *data, size_t size,
                const uint8_t **dense, Diag *d);

#endif
