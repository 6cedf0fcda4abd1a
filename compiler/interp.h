/* interp.h - the reference interpreter: runs a prepared Graph with the
 * runtime's reference kernels, one separately allocated buffer per tensor
 * (independent of the memory plan, so it also checks the plan). */
#ifndef MPCC_INTERP_H
#define MPCC_INTERP_H

#include "diag.h"
#include "ir.h"

/* inputs[i] / outputs[i]: caller buffers in model input/output order, each
 * ir_tensor_bytes() of the corresponding tensor. Variable tensors start at
 * their reset value (zero, or the zero point for int8), as in TFLite. */
int interp_run(Graph *g, const void *const *inputs, void *const *outputs, Diag *d);

/* Debugging: when set, interp_run writes every tensor an op computes to
 * <dir>/t<TFLite tensor index>.npy (mpcc run --dump-tensors DIR). */
extern const char *interp_dump_dir;

/* Calibration: when set, interp_run calls it with every graph input and
 * every tensor an op computes (pass precision's ranges). */
extern void (*interp_observe)(void *ctx, const IrTensor *t, const void *data);
extern void *interp_observe_ctx;

#endif
