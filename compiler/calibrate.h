/* calibrate.h - calibration for post-training quantization (mpcc
 * --precision int8 --calibrate): runs the float model with the reference
 * interpreter over the calibration samples and records each tensor's range. */
#ifndef MPCC_CALIBRATE_H
#define MPCC_CALIBRATE_H

#include "diag.h"
#include "ir.h"

/* Samples for a graph's inputs, read from .npy files or directories. */
typedef struct CalibSet {
    int n_inputs;
    int64_t n_samples;
    struct CalibFeed *feeds;
} CalibSet;

/* paths[i] (i < n_paths) feeds graph input i: as calib_collect below. opt
 * names the option in messages ("--calibrate"). */
int calib_load(const Graph *g, const char *const *paths, int n_paths, const char *opt, CalibSet *set, Diag *d);
/* The inputs of sample s (s < n_samples), pointers into the set. */
void calib_sample(const CalibSet *set, const Graph *g, int64_t s, const void **ins);
void calib_free(CalibSet *set);

/* paths[i] (i < n_paths) feeds graph input i: a .npy file holding one or more
 * samples (its element count a multiple of the input's, float32 when the
 * input is), or a directory whose *.npy files (in name order) do. A model with
 * one input may take several paths (their samples are concatenated).
 * g: the float model, compiled at -O0 (prepared). On success min/max (each
 * g->n_tensors floats, caller-owned) hold every tensor's range over all
 * samples (min > max for a tensor never computed) and *n_samples the count. */
int calib_collect(Graph *g, const char *const *paths, int n_paths, float *min, float *max, int *n_samples,
                  Diag *d);

/* The percentile observer (--observer percentile=P): narrows each float
 * tensor's [min, max] (from calib_collect, same samples) to its (100 - P)th
 * and Pth percentiles, from a 2048-bin histogram per tensor filled in a
 * second pass; outliers beyond them saturate instead of stretching the
 * int8 scale. The range never grows (the int8 parameters widen it to hold 0). */
int calib_percentile(Graph *g, const char *const *paths, int n_paths, double percentile, float *min, float *max,
                     Diag *d);

#endif
