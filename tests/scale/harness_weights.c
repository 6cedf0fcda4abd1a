/* Harness for a model compiled with --weights file (prefix `model`):
 *   harness check|run WEIGHTS IN... OUT...
 * loads the blob, checks it once with model_check_weights (mode `check`; mode
 * `run` skips that, to see what model_run alone does with it), runs the
 * model on raw inputs and writes raw outputs. Exit status: 0 ok, 20 + the
 * check's result if the blob is refused, 10 + run's result if the run fails.
 * Build with -DN_IN=.. -DN_OUT=.. -DOUT_BYTES=MODEL_OUTPUT0_BYTES,... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static void *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)len + 16);
        if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
            free(buf);
            buf = NULL;
        }
        *n = (size_t)len;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    static const size_t out_bytes[] = {OUT_BYTES};
    const void *ins[N_IN + 1];
    void *outs[N_OUT + 1];
    size_t n, wn;
    void *weights, *arena;
    int i, rc;
    if (argc != 3 + N_IN + N_OUT) return 3;
    weights = read_all(argv[2], &wn);
    if (!weights) return 5;
    rc = strcmp(argv[1], "check") == 0 ? model_check_weights(weights, wn) : 0;
    if (rc) return 20 + rc;
    arena = malloc(MODEL_ARENA_BYTES + 16);
    if (!arena) return 4;
    memset(arena, 0xA5, MODEL_ARENA_BYTES + 16);
    for (i = 0; i < N_IN; i++)
        if (!(ins[i] = read_all(argv[3 + i], &n))) return 5;
    for (i = 0; i < N_OUT; i++) {
        outs[i] = malloc(out_bytes[i] + 1);
        if (!outs[i]) return 4;
        memset(outs[i], 0xA5, out_bytes[i] + 1);
    }
    model_init(arena);
    rc = model_run(ins, outs, arena, weights);
    if (rc) return 10 + rc;
    for (i = 0; i < N_OUT; i++) {
        FILE *f = fopen(argv[3 + N_IN + i], "wb");
        if (!f || fwrite(outs[i], 1, out_bytes[i], f) != out_bytes[i] || fclose(f) != 0) return 6;
    }
    return 0;
}
