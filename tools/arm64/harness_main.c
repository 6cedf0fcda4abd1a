/* harness_main.c - runs a generated model (model.h, --name model) on AArch64 Linux (qemu-aarch64
 * in the tests): `prog RUNS OUTDIR IN0 IN1 ...` reads each input's bytes from its file, runs the
 * model RUNS times (1 when 0 or absent: RUNS 0 only loads the inputs, for instruction counts
 * that subtract the start-up) and writes output i to OUTDIR/outI.bin. Exit status 0, or 1 with
 * a message on stderr. Built with the model by tools/arm64/a64.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static double arena[MODEL_ARENA_BYTES / 8 + 1];
#include "io_sizes.h" /* IO_IN_BYTES, IO_OUT_BYTES: MODEL_INPUT0_BYTES, ... each with a comma */
static const size_t in_bytes[MODEL_NUM_INPUTS + 1] = {IO_IN_BYTES 0};
static const size_t out_bytes[MODEL_NUM_OUTPUTS + 1] = {IO_OUT_BYTES 0};

static int read_file(const char *path, void *dst, size_t bytes) {
    FILE *f = fopen(path, "rb");
    size_t got;
    if (!f) return fprintf(stderr, "cannot open %s\n", path), 1;
    got = fread(dst, 1, bytes, f);
    fclose(f);
    if (got != bytes) return fprintf(stderr, "%s: %zu bytes, expected %zu\n", path, got, bytes), 1;
    return 0;
}

int main(int argc, char **argv) {
    static void *ins[MODEL_NUM_INPUTS + 1], *outs[MODEL_NUM_OUTPUTS + 1];
    int i, runs, rc = 0;
    if (argc != 3 + MODEL_NUM_INPUTS) return fprintf(stderr, "usage: %s RUNS OUTDIR INPUT...\n", argv[0]), 1;
    runs = atoi(argv[1]);
    for (i = 0; i < MODEL_NUM_INPUTS; i++) {
        ins[i] = malloc(in_bytes[i] + 1);
        if (!ins[i] || read_file(argv[3 + i], ins[i], in_bytes[i])) return 1;
    }
    for (i = 0; i < MODEL_NUM_OUTPUTS; i++) {
        outs[i] = malloc(out_bytes[i] + 1);
        if (!outs[i]) return 1;
        memset(outs[i], 0xA5, out_bytes[i]);
    }
    memset(arena, 0xA5, sizeof arena); /* poison: nothing may be read before it is written */
    model_init(arena);
    for (i = 0; i < runs && rc == 0; i++) rc = model_run((const void *const *)ins, outs, arena);
    if (rc != 0) return fprintf(stderr, "model_run returned %d\n", rc), 1;
    for (i = 0; i < MODEL_NUM_OUTPUTS && runs > 0; i++) {
        char path[4096];
        FILE *f;
        snprintf(path, sizeof path, "%s/out%d.bin", argv[2], i);
        f = fopen(path, "wb");
        if (!f || fwrite(outs[i], 1, out_bytes[i], f) != out_bytes[i]) return fprintf(stderr, "cannot write %s\n", path), 1;
        fclose(f);
    }
    return 0;
}
