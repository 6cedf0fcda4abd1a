/* calibrate.c - records each tensor's range over calibration samples. */
#define _POSIX_C_SOURCE 200809L
#include "calibrate.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp.h"
#include "npy.h"

typedef struct Ranges {
    float *min, *max;
    int n;
} Ranges;

static void observe(void *ctx, const IrTensor *t, const void *data) {
    Ranges *r = ctx;
    if (t->dtype != IR_F32 || t->id < 0 || t->id >= r->n) return;
    const float *x = data;
    int64_t n = ir_tensor_numel(t);
    float lo = r->min[t->id], hi = r->max[t->id];
    for (int64_t i = 0; i < n; i++) {
        if (x[i] != x[i]) continue; /* NaN: no range */
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    r->min[t->id] = lo, r->max[t->id] = hi;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One input's samples: the arrays of its files. */
struct CalibFeed {
    NpyArray arr[256];
    int n_arr;
    int64_t per_sample; /* elements */
    int64_t samples;
};
typedef struct CalibFeed Feed;

static int add_file(Feed *f, const char *path, const IrTensor *t, int input, const char *opt, Diag *d) {
    if (f->n_arr == 256) return diag_user(d, "%s: more than 256 .npy files for input %d", opt, input);
    NpyArray *a = &f->arr[f->n_arr];
    if (npy_read(path, a, d)) return DIAG_USER;
    f->n_arr++;
    int64_t n = 1;
    for (int k = 0; k < a->rank; k++) n *= a->dims[k];
    if (a->dtype != t->dtype)
        return diag_user(d, "%s %s: input %d '%s' is %s, the file holds %s", opt, path, input, t->name,
                         ir_dtype_name(t->dtype), ir_dtype_name(a->dtype));
    if (n == 0 || n % f->per_sample)
        return diag_user(d, "%s %s: %lld elements is not a whole number of samples of input %d '%s' "
                            "(%lld elements each)", opt, path, (long long)n, input, t->name, (long long)f->per_sample);
    f->samples += n / f->per_sample;
    return 0;
}

static int add_path(Feed *f, const char *path, const IrTensor *t, int input, const char *opt, Diag *d) {
    struct stat st;
    if (stat(path, &st) != 0) return diag_user(d, "%s %s: no such file or directory", opt, path);
    if (!S_ISDIR(st.st_mode)) return add_file(f, path, t, input, opt, d);
    DIR *dir = opendir(path);
    if (!dir) return diag_user(d, "%s %s: cannot read the directory", opt, path);
    char *names[256];
    int n = 0, rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".npy") != 0) continue;
        if (n == 256) rc = diag_user(d, "%s %s: more than 256 .npy files", opt, path);
        else if (!(names[n++] = strdup(e->d_name))) rc = diag_internal(d, "out of memory");
    }
    closedir(dir);
    if (!rc && n == 0) rc = diag_user(d, "%s %s: the directory holds no .npy file", opt, path);
    if (!rc) qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        if (!rc) {
            size_t len = strlen(path) + strlen(names[i]) + 2;
            char *full = malloc(len);
            if (!full) rc = diag_internal(d, "out of memory");
            else {
                snprintf(full, len, "%s/%s", path, names[i]);
                rc = add_file(f, full, t, input, opt, d);
                free(full);
            }
        }
        free(names[i]);
    }
    return rc;
}

/* Sample s of a feed: a pointer into the array holding it. */
static const void *sample(const Feed *f, int64_t s, size_t elem) {
    for (int i = 0; i < f->n_arr; i++) {
        int64_t n = 1;
        for (int k = 0; k < f->arr[i].rank; k++) n *= f->arr[i].dims[k];
        int64_t here = n / f->per_sample;
        if (s < here) return (const char *)f->arr[i].data + (size_t)(s * f->per_sample) * elem;
        s -= here;
    }
    return NULL;
}

int calib_load(const Graph *g, const char *const *paths, int n_paths, const char *opt, CalibSet *set, Diag *d) {
    memset(set, 0, sizeof *set);
    if (g->n_inputs > 64) return diag_user(d, "%s: the model has %d inputs (at most 64)", opt, g->n_inputs);
    if (g->n_inputs != 1 && n_paths != g->n_inputs)
        return diag_user(d, "%s: the model has %d inputs: give one %s per input, in order (%d given)", opt,
                         g->n_inputs, opt, n_paths);
    set->feeds = calloc((size_t)g->n_inputs + 1, sizeof *set->feeds);
    if (!set->feeds) return diag_internal(d, "out of memory");
    set->n_inputs = g->n_inputs;
    int rc = 0;
    for (int i = 0; i < g->n_inputs; i++) set->feeds[i].per_sample = ir_tensor_numel(&g->tensors[g->inputs[i]]);
    for (int p = 0; p < n_paths && !rc; p++) {
        int input = g->n_inputs == 1 ? 0 : p;
        rc = add_path(&set->feeds[input], paths[p], &g->tensors[g->inputs[input]], input, opt, d);
    }
    for (int i = 1; i < g->n_inputs && !rc; i++)
        if (set->feeds[i].samples != set->feeds[0].samples)
            rc = diag_user(d, "%s: input 0 has %lld samples, input %d has %lld", opt,
                           (long long)set->feeds[0].samples, i, (long long)set->feeds[i].samples);
    set->n_samples = g->n_inputs ? set->feeds[0].samples : 0;
    if (rc) calib_free(set);
    return rc;
}

void calib_sample(const CalibSet *set, const Graph *g, int64_t s, const void **ins) {
    for (int i = 0; i < set->n_inputs; i++)
        ins[i] = sample(&set->feeds[i], s, ir_dtype_size(g->tensors[g->inputs[i]].dtype));
}

void calib_free(CalibSet *set) {
    for (int i = 0; set->feeds && i < set->n_inputs; i++)
        for (int k = 0; k < set->feeds[i].n_arr; k++) npy_free(&set->feeds[i].arr[k]);
    free(set->feeds);
    memset(set, 0, sizeof *set);
}

/* Runs g over every sample of the --calibrate paths with `fn` observing each tensor. */
static int run_observed(Graph *g, const char *const *paths, int n_paths,
                        void (*fn)(void *, const IrTensor *, const void *), void *ctx, int64_t *n_samples, Diag *d) {
    CalibSet set;
    int rc = calib_load(g, paths, n_paths, "--calibrate", &set, d);
    if (rc) return rc;
    void **outs = calloc((size_t)g->n_outputs + 1, sizeof(void *));
    if (!outs) rc = diag_internal(d, "out of memory");
    for (int i = 0; !rc && i < g->n_outputs; i++)
        if (!(outs[i] = malloc((size_t)ir_tensor_bytes(&g->tensors[g->outputs[i]]) + 1)))
            rc = diag_internal(d, "out of memory");
    interp_observe = fn;
    interp_observe_ctx = ctx;
    for (int64_t s = 0; !rc && s < set.n_samples; s++) {
        const void *ins[64];
        calib_sample(&set, g, s, ins);
        rc = interp_run(g, ins, outs, d);
    }
    interp_observe = NULL;
    interp_observe_ctx = NULL;
    *n_samples = set.n_samples;
    for (int i = 0; outs && i < g->n_outputs; i++) free(outs[i]);
    free(outs);
    calib_free(&set);
    return rc;
}

int calib_collect(Graph *g, const char *const *paths, int n_paths, float *min, float *max, int *n_samples,
                  Diag *d) {
    for (int t = 0; t < g->n_tensors; t++) min[t] = 3.0e38f, max[t] = -3.0e38f;
    Ranges r = {min, max, g->n_tensors};
    int64_t n = 0;
    int rc = run_observed(g, paths, n_paths, observe, &r, &n, d);
    *n_samples = rc ? 0 : (int)n;
    return rc;
}

#define CALIB_BINS 2048

typedef struct Hist {
    const float *min, *max;
    uint32_t **bins; /* per tensor id: CALIB_BINS counts over [min, max], allocated when first seen */
    int n, failed;
} Hist;

static void observe_hist(void *ctx, const IrTensor *t, const void *data) {
    Hist *h = ctx;
    if (t->dtype != IR_F32 || t->id < 0 || t->id >= h->n || !(h->min[t->id] < h->max[t->id])) return;
    const float *x = data;
    if (!h->bins[t->id] && !(h->bins[t->id] = calloc(CALIB_BINS, sizeof(uint32_t)))) {
        h->failed = 1;
        return;
    }
    uint32_t *b = h->bins[t->id];
    double lo = h->min[t->id], w = ((double)h->max[t->id] - lo) / CALIB_BINS;
    for (int64_t i = 0, n = ir_tensor_numel(t); i < n; i++) {
        if (x[i] != x[i]) continue;
        double k = ((double)x[i] - lo) / w;
        b[k < 0 ? 0 : k >= CALIB_BINS ? CALIB_BINS - 1 : (int)k]++;
    }
}

int calib_percentile(Graph *g, const char *const *paths, int n_paths, double percentile, float *min, float *max,
                     Diag *d) {
    Hist h = {min, max, calloc((size_t)g->n_tensors + 1, sizeof(uint32_t *)), g->n_tensors, 0};
    int64_t n = 0;
    int rc = h.bins ? run_observed(g, paths, n_paths, observe_hist, &h, &n, d) : diag_internal(d, "out of memory");
    if (!rc && h.failed) rc = diag_internal(d, "out of memory");
    double tail = (100.0 - percentile) / 100.0;
    for (int t = 0; !rc && t < g->n_tensors; t++) {
        if (!(min[t] < max[t]) || !h.bins[t]) continue;
        const uint32_t *b = h.bins[t];
        double total = 0, w = ((double)max[t] - min[t]) / CALIB_BINS, acc = 0;
        for (int k = 0; k < CALIB_BINS; k++) total += b[k];
        int lo_bin = 0, hi_bin = CALIB_BINS - 1;
        for (acc = 0; lo_bin < CALIB_BINS - 1 && acc + b[lo_bin] <= tail * total; lo_bin++) acc += b[lo_bin];
        for (acc = 0; hi_bin > lo_bin && acc + b[hi_bin] <= tail * total; hi_bin--) acc += b[hi_bin];
        float lo = (float)(min[t] + w * lo_bin), hi = (float)(min[t] + w * (hi_bin + 1));
        min[t] = lo > min[t] ? lo : min[t];
        max[t] = hi < max[t] ? hi : max[t];
    }
    for (int t = 0; h.bins && t < g->n_tensors; t++) free(h.bins[t]);
    free(h.bins);
    return rc;
}
