/* main.c - the mpcc command line. Exit status: 0 success, 1 user error
 * (bad model, unsupported op, bad arguments), 2 internal error. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "emit_c.h"
#include "emit_cuda.h"
#include "interp.h"
#include "npy.h"
#include "ops.h"
#include "passes.h"
#include "report_html.h"
#include "text.h"
#include "tfl_import.h"

static const char *usage =
    "usage: mpcc [options] MODEL -o OUT.c     compile a TFLite model to C (writes OUT.c and OUT.h)\n"
    "       mpcc inspect MODEL                 describe a model: I/O, ops of every subgraph, parameters, MACs,\n"
    "                                          every unsupported op/tensor/option (exit 0 unless malformed)\n"
    "       mpcc run MODEL --input IN.npy... --output OUT.npy...\n"
    "                                          run a model with the reference interpreter\n"
    "                                          (--dump-tensors DIR: every computed tensor as DIR/t<index>.npy,\n"
    "                                          --input-shape and --custom-op as for compiling, --custom-lib\n"
    "                                          LIB.so: the shared library holding the custom-op kernels,\n"
    "                                          --precision, --calibrate, --keep-fp32 as for compiling)\n"
    "       mpcc check MODEL --precision int8|auto --calibrate FILE.npy|DIR [--data ...] [--max-error E]\n"
    "                                          error of that precision against the float model, per output\n"
    "                                          (max |diff|, rel L2, SQNR) and per layer; exit 1 when an\n"
    "                                          output's rel L2 exceeds --max-error\n"
    "       mpcc report MODEL [compile options] -o REPORT.html [--profile-data FILE]\n"
    "                                          one self-contained HTML page (no scripts, no network): the\n"
    "                                          graph after the passes (fused groups, precision, kernel,\n"
    "                                          MACs, shapes), the memory plan (each buffer's lifetime and\n"
    "                                          offset, the peak, the bytes live at each op, weights per\n"
    "                                          op) and the --report table; FILE: per-op times written by\n"
    "                                          tools/bench/profile.py (make profile) for the same options\n"
    "\n"
    "MODEL is a TensorFlow Lite FlatBuffer (any file name or extension).\n"
    "\n"
    "Compile options:\n"
    "  -o FILE              output C source; the header is written next to it as FILE with .h\n"
    "  --name PREFIX        symbol prefix of the generated API (default: the output file's stem)\n"
    "  --weights embed|file embed constants as static const arrays (default; at most 64 MiB of\n"
    "                       them), or write them to FILE.weights.bin, which the caller loads,\n"
    "                       checks once with PREFIX_check_weights and passes to PREFIX_run\n"
    "  --max-arena BYTES    fail if the model needs a larger arena (working memory), naming the\n"
    "                       largest tensors live at the peak (at -O1/-O2 the optimized kernels'\n"
    "                       scratch blocks are made smaller first); BYTES may end in K, M or G\n"
    "  --max-weights BYTES  fail if the constants take more bytes, naming the largest\n"
    "  --input-shape NAME_OR_INDEX=d0,d1,...\n"
    "                       compile for this shape of a graph input whose shape is dynamic in the model\n"
    "                       (shape_signature -1; stored as 1 by the converter); repeatable, also for run.\n"
    "                       Every other shape is re-inferred; shape arithmetic (SHAPE, ...) is folded\n"
    "  --signature NAME     compile only these signatures' entry points (PREFIX_NAME_run; default:\n"
    "                       every signature; docs/signatures.md); repeatable or a comma list; an\n"
    "                       unknown name is an error. PREFIX_run always runs subgraph 0\n"
    "  --custom-op NAME=FUNC\n"
    "                       run the model's custom operator NAME (its custom_code) with your C function\n"
    "                       int FUNC(const mpcc_custom_ctx *, const void *const *inputs, void *const *outputs)\n"
    "                       (runtime/mpcc_custom.h: options bytes, shapes, dtypes); repeatable\n"
    "  --precision fp32|int8|auto|bf16|fp16\n"
    "                       fp32 (default): the model's own dtypes. int8: post-training static\n"
    "                       quantization of a float model (TFLite's int8 scheme: weights per channel,\n"
    "                       activations per tensor from calibration ranges); conv/FC run in int8 and\n"
    "                       int8 spreads to the elementwise, pooling and reshape ops they feed, other ops\n"
    "                       stay float (--dump-ir / --report show each op's precision and why); with\n"
    "                       --target c their conv/FC requantize in float and the inserted QUANTIZEs\n"
    "                       multiply by 1/scale (XNNPACK's forms, within one step of TFLite's), an FC\n"
    "                       read only by float ops writes floats (residual ADD fused at -O1/-O2); at\n"
    "                       -O1/-O2 (CPU) a fused attention reads int8 Q, K, V as stored (scores: exact\n"
    "                       int32 sums) and with 64 or more keys takes bf16 P.V products as with bf16,\n"
    "                       with fewer the probabilities in 8 bits and P.V as exact int32 sums (VNNI);\n"
    "                       inputs and outputs stay float. auto: int8 (attention P.V f32), then\n"
    "                       ops promoted to float (most helpful first) until the outputs' relative L2\n"
    "                       error is within --max-error E (default 0.01) on the --data samples (default:\n"
    "                       the calibration ones). bf16, fp16:\n"
    "                       FULLY_CONNECTED and CONV_2D (one group) weights in 16 bits, inputs rounded\n"
    "                       to them (AVX2 builds without AVX-512: f32 inputs, f32 products; 16-bit\n"
    "                       storage only), float sums; with --calibrate, fp16 FC/convs whose values exceed\n"
    "                       65504 run in bf16 (the range guard; --no-range-guard turns it off).\n"
    "                       Activations stay f32 with --isa generic (the default) and avx2: no 16-bit\n"
    "                       arithmetic is assumed there (see --report). With --isa avx512, or\n"
    "                       --half-activations, at -O1/-O2 the activations between kernels that read\n"
    "                       and write 16 bits are stored in 16 bits too (the arena shrinks; fp16:\n"
    "                       tensors whose calibrated values exceed 65504 stay f32; bf16: what the\n"
    "                       elementwise ops and LayerNorm read, the residual stream, stays f32);\n"
    "                       --f32-activations keeps all f32 on any target.\n"
    "                       Also for run and check (which run the reference path, f32 activations)\n"
    "  --calibrate FILE.npy|DIR\n"
    "                       calibration samples for --precision int8, one per graph input in order: a\n"
    "                       .npy holding N samples (N x the input's elements), or a directory of them\n"
    "  --observer minmax|percentile[=P]\n"
    "                       calibration ranges: min/max (default), or the (100-P)th..Pth percentiles\n"
    "                       of each tensor's values (P default 99.99): outliers saturate\n"
    "  --max-error E, --data FILE.npy|DIR\n"
    "                       auto's error budget and evaluation samples (one --data per input)\n"
    "  --keep-fp32 OP_INDEX|TENSOR_NAME,...\n"
    "                       keep these operators (TFLite index, or output tensor name) in float\n"
    "  --custom-lib LIB.so  the custom-op kernels, for calibrating a model that has custom operators\n"
    "  --target c|cuda      code generator: c (default; OUT.c + OUT.h), or cuda: OUT.cu + OUT.h, one\n"
    "                       kernel per op on the caller's stream (tensor-core GEMMs with fused bias,\n"
    "                       activation and residual ADD; flash attention; fused LayerNorm/softmax),\n"
    "                       weights uploaded once by PREFIX_cuda_init; fp32 GEMMs use 3xTF32, --precision\n"
    "                       bf16|fp16 uses 16-bit tensor cores. Ops without a CUDA kernel are listed (exit 1)\n"
    "  --tf32               with --target cuda: fp32 matmuls and attention in one TF32 tensor-core pass\n"
    "                       (10-bit mantissa operands, ~1e-3 relative error, about 3x faster) instead of\n"
    "                       the default 3xTF32 (fp32-level error)\n"
    "  --jit                with --target cuda: OUT.c in C99 instead of a .cu; the kernels are embedded as\n"
    "                       source that NVRTC compiles at PREFIX_cuda_init for the GPU in use (cached on\n"
    "                       disk), launched through runtime/cuda/mpcc_jit.c; no CUDA toolkit to build it\n"
    "  -O0                  reference kernels only (the plain, obviously-correct oracle path)\n"
    "  -O1, -O2             schedule and fuse (default -O2): conv/FC as packed-weight GEMM (weights\n"
    "                       packed at compile time), depthwise, elementwise, GELU/softmax, resize\n"
    "                       vectorized; PAD, TRANSPOSE and residual ADD folded into the ops that\n"
    "                       read them; attention (matmul-scale-mask-softmax-matmul) and LayerNorm\n"
    "                       fused\n"
    "  --isa ISA            generic (default: vector paths picked from the C compiler's target when\n"
    "                       the code is built; use -march=native), avx2, avx512 (tiles for that ISA,\n"
    "                       and the build fails with a message if the compiler does not target it),\n"
    "                       neon (portable vector code, checked for __ARM_NEON); AArch64 (docs/arm64.md):\n"
    "                       armv8a (NEON kernels), armv8.2a+dotprod (SDOT int8 kernels); Cortex-M (bare metal,\n"
    "                       docs/cortex-m.md): armv6m (M0/M0+), armv7m (M3), armv7em (M4/M7), armv8m\n"
    "                       (M33), armv81m (M55, Helium), each checked for at build time; these keep the\n"
    "                       arena at the op-by-op bound (-O0's): no kernel takes scratch beyond it\n"
    "  --threads N          let the big kernels split over up to N threads (1..64, default 1): the\n"
    "                       arena holds N scratch copies; call PREFIX_run_parallel with a parallel-for\n"
    "                       (runtime/threads/mpcc_pool.h, or your own); PREFIX_run stays single-threaded;\n"
    "                       each signature has its PREFIX_<signature>_run_parallel too\n"
    "  --threads-min-macs N with --threads: only kernels of at least N multiply-adds take the\n"
    "                       parallel-for (default 200000: smaller ones cost more to fork than they gain)\n"
    "  --patch              run the memory-peak region (conv/depthwise/pool/pad ops and residual ADDs\n"
    "                       near the input) in bands of output rows, each computing its halo rows again,\n"
    "                       so its big activations are never stored whole: the smallest arena peak for\n"
    "                       at most 15% more MACs (somewhat slower; docs/patch-exec.md).\n"
    "                       --max-arena does the same, with the fewest extra MACs, when the plan\n"
    "                       would exceed it\n"
    "  --report             print the schedule (kernel per op) and the static memory plan\n"
    "  --profile            time each kernel: PREFIX_profile_start(arena, clock) after PREFIX_init\n"
    "                       sets your clock function (uint64_t clock(void), any tick), PREFIX_profile\n"
    "                       (arena) returns the ticks per op summed over the runs (the arena grows by\n"
    "                       8 bytes an op); off by default, when the code is unchanged\n"
    "  --dump-ir[=after:PASS]  print the IR (after the given pass; default: after the last)\n"
    "                       passes: import, fold_dead, fold_dequantize, sink, precision, prepare, fold_transpose,\n"
    "                       fold_pad, shortcut, fuse_act, schedule, fuse_add, fuse_dw, fuse_prelu, fuse_attention,\n"
    "                       fuse_layer_norm, half_storage, patch, alias, plan_memory\n"
    "  -h, --help           this text\n"
    "  --version            print the version\n"
    "\n"
    "An arena over 1 GiB is compiled with a warning (naming the largest live tensors).\n"
    "Exit status: 0 success, 1 error in the input (message says what and where), 2 internal error.\n";

int cli_finish(Diag *d, int rc) {
    if (rc) {
        fprintf(stderr, "mpcc: %s%s\n", d->kind == DIAG_INTERNAL ? "" : "error: ", d->msg[0] ? d->msg : "failed");
        return d->kind == DIAG_INTERNAL ? 2 : 1;
    }
    return 0;
}

/* Loads and imports a model; *g (and the file, which it points into) must be
 * freed by the caller, in that order, whatever the result. */
int cli_load(const char *path, const TflImportOptions *o, Graph **g, TflFile *file, TflInfo *info, Diag *d) {
    *g = NULL;
    if (tfl_open_file(path, file, d)) return DIAG_USER;
    *g = ir_graph_new(path);
    if (!*g) return diag_internal(d, "out of memory");
    (*g)->drop_pages = tfl_drop_pages;
    (*g)->drop_pages_ctx = file;
    TflInfo own;
    if (!info) info = &own;
    int rc = tfl_import_with(*g, file->data, file->size, o, info, d);
    return rc;
}


/* --custom-op NAME=FUNC (repeatable). */
static int custom_op_arg(const char *arg, ImportArgs *a, Diag *d) {
    TflImportOptions *o = &a->o;
    if (o->n_custom_ops == MAX_CUSTOM_OPS) return diag_user(d, "more than %d --custom-op options", MAX_CUSTOM_OPS);
    int k = o->n_custom_ops;
    if (tfl_parse_custom_op(arg, &a->custom[k], a->custom_names[k], sizeof a->custom_names[k], d)) return DIAG_USER;
    for (int j = 0; j < k; j++)
        if (strcmp(a->custom[j].name, a->custom[k].name) == 0)
            return diag_user(d, "--custom-op %s: the operator is given twice", arg);
    o->custom_ops = a->custom;
    o->n_custom_ops++;
    return 0;
}

/* --input-shape NAME_OR_INDEX=d0,d1,... (repeatable). */
static int input_shape_arg(const char *arg, ImportArgs *a, Diag *d) {
    TflImportOptions *o = &a->o;
    if (o->n_input_shapes == MAX_INPUT_SHAPES) return diag_user(d, "more than %d --input-shape options", MAX_INPUT_SHAPES);
    if (tfl_parse_input_shape(arg, &a->shapes[o->n_input_shapes], d)) return DIAG_USER;
    o->input_shapes = a->shapes;
    o->n_input_shapes++;
    return 0;
}

/* --signature NAME[,NAME...] (repeatable): the signatures compiled as entry points. */
static int signature_arg(const char *arg, ImportArgs *a, Diag *d) {
    size_t have = strlen(a->signature_list), n = strlen(arg);
    if (!n || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,"))
        return diag_user(d, "--signature: an empty signature name");
    if (have + n + 2 > sizeof a->signature_list) return diag_user(d, "--signature: the names are too long");
    if (have) a->signature_list[have++] = ',';
    memcpy(a->signature_list + have, arg, n + 1);
    a->o.signatures = a->signature_list;
    return 0;
}

/* The import options shared by compile and run: consumes argv[*i] (and its
 * value) when it is one; returns -1 if it is not, else 0 or an error. */
int cli_import_arg(int argc, char **argv, int *i, ImportArgs *a, Diag *d) {
    int rc = cli_precision_arg(argc, argv, i, a, d);
    if (rc >= 0) return rc;
    if (*i + 1 >= argc) return -1;
    if (strcmp(argv[*i], "--input-shape") == 0) return input_shape_arg(argv[++*i], a, d);
    if (strcmp(argv[*i], "--custom-op") == 0) return custom_op_arg(argv[++*i], a, d);
    if (strcmp(argv[*i], "--signature") == 0) return signature_arg(argv[++*i], a, d);
    return -1;
}

int cli_compile_graph(Graph *g, int opt_level, int threads, IrIsa isa, const char *dump_after, FILE *dump_to,
                         Diag *d) {
    PipelineOptions po = {1, dump_after, dump_to};
    g->opt_level = opt_level;
    g->threads = threads;
    g->isa = isa;
    return pass_run_pipeline(g, &po, d);
}

/* "65536", "64K", "2M", "1G" (K/M/G: x1024); -1 if not a byte count. */
static int64_t parse_bytes(const char *s) {
    char *end;
    if (!isdigit((unsigned char)s[0])) return -1;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, end++;
    else if (*end == 'M' || *end == 'm') shift = 20, end++;
    else if (*end == 'G' || *end == 'g') shift = 30, end++;
    if (*end || v > ((unsigned long long)INT64_MAX >> shift)) return -1;
    return (int64_t)(v << shift);
}

/* The outputs are written under temporary names and renamed into place only
 * when everything succeeded: a failed compile leaves nothing behind (and an
 * earlier good output stays as it was). An existing path that is not a regular
 * file (/dev/null, a FIFO, a terminal) is written in place: renaming over it
 * would replace a device node with a file when mpcc runs as root. */
typedef struct OutFile {
    char path[4096], tmp[4096 + 8];
    FILE *f;
    int direct; /* written in place (not a regular file) */
} OutFile;

static int out_open(OutFile *o, const char *path, Diag *d) {
    struct stat st;
    snprintf(o->path, sizeof o->path, "%s", path);
    o->direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    snprintf(o->tmp, sizeof o->tmp, o->direct ? "%s" : "%s.tmp", path);
    o->f = fopen(o->tmp, o->direct ? "wb" : "w+b");
    return o->f ? 0 : diag_user(d, "%s: cannot create file", o->tmp);
}

static int out_close(OutFile *o, int ok, Diag *d) {
    if (!o->f) return 0;
    int rc = fclose(o->f) != 0 && ok ? diag_user(d, "%s: write failed", o->tmp) : 0;
    o->f = NULL;
    if (o->direct) return rc;
    if (ok && !rc && rename(o->tmp, o->path) != 0) rc = diag_user(d, "%s: cannot rename to %s", o->tmp, o->path);
    if (!ok || rc) remove(o->tmp);
    return rc;
}

static int cmd_inspect(int argc, char **argv) {
    Diag d;
    diag_init(&d);
    if (argc != 1) {
        fprintf(stderr, "mpcc: error: inspect takes exactly one MODEL\n");
        return 1;
    }
    Graph *g;
    TflFile file;
    TflInfo info;
    TflImportOptions io = {1, NULL, 0, NULL, 0, NULL};
    int rc = cli_load(argv[0], &io, &g, &file, &info, &d);
    if (rc) {
        ir_graph_free(g);
        tfl_close_file(&file);
        return cli_finish(&d, rc);
    }
    char buf[160], nb[TXT_TERMINAL_CAP];
    printf("model: %s\n", txt_terminal(nb, sizeof nb, argv[0], TXT_TERMINAL_MAX));
    printf("schema version %u, %d subgraph%s, %d operators in subgraph 0, %d tensors, %d buffers, %d signature%s\n",
           info.version, info.n_subgraphs, info.n_subgraphs == 1 ? "" : "s", info.n_operators,
           g->n_tensors, info.n_buffers, info.n_signatures, info.n_signatures == 1 ? "" : "s");
    if (info.description) printf("description: %s\n", txt_terminal(nb, sizeof nb, info.description, TXT_TERMINAL_MAX));
    for (int k = 0; k < info.n_signatures && info.signature_keys; k++) {
        const char *key = info.signature_keys[k];
        if (!key) continue;
        printf("signature %d '%s': subgraph %d%s\n", k, txt_terminal(nb, sizeof nb, key, TXT_TERMINAL_MAX),
               info.signature_subgraphs[k],
               " (compiled: an entry point, docs/signatures.md)");
    }
    if (info.n_subgraphs > 1) {
        printf("operators per subgraph:");
        for (int k = 0; k < info.n_subgraphs; k++) printf(" %d", info.subgraph_ops[k]);
        printf("\n");
    }
    for (int io = 0; io < 2; io++) {
        int n = io ? g->n_outputs : g->n_inputs;
        printf("%s:\n", io ? "outputs" : "inputs");
        for (int i = 0; i < n; i++) {
            const IrTensor *t = &g->tensors[io ? g->outputs[i] : g->inputs[i]];
            printf("  %d %-32s %-22s", i,
                   txt_terminal(nb, sizeof nb, io ? g->output_names[i] : g->input_names[i], 80),
                   t->unknown == 2 ? "(unsupported, see below)" : ir_tensor_desc(t, buf, sizeof buf));
            if (t->q.count == 1)
                printf(" scale %.9g zero_point %lld", (double)t->q.scale[0], (long long)t->q.zero_point[0]);
            else if (t->q.count > 1) printf(" per-channel x%d", t->q.count);
            if (t->has_signature) {
                printf(" signature [");
                for (int k = 0; k < t->rank; k++) printf("%s%lld", k ? "," : "", (long long)t->signature[k]);
                printf("]");
            }
            if (strcmp(t->name, io ? g->output_names[i] : g->input_names[i]) != 0) printf(" (tensor '%s')", txt_terminal(nb, sizeof nb, t->name, 80));
            printf("\n");
        }
    }
    /* The histogram counts every operator of every subgraph, supported or not. */
    printf("operators%s:\n", info.n_subgraphs > 1 ? " (all subgraphs)" : "");
    for (int k = 0; k < info.n_op_labels; k++) {
        const char *label = info.op_labels[k];
        if (strncmp(label, "CUSTOM:", 7) == 0) {
            char cn[TXT_TERMINAL_CAP + 16];
            snprintf(cn, sizeof cn, "custom '%s'", txt_terminal(nb, sizeof nb, label + 7, 80));
            printf("  %-30s %d\n", cn, info.op_counts[k]);
        } else {
            printf("  %-30s %d\n", label, info.op_counts[k]);
        }
    }
    int64_t params = 0, wbytes = 0, macs = 0;
    for (int k = 0; k < (g->n_sub ? g->n_sub : 1); k++) {
        const Graph *sg = k == 0 ? g : g->sub[k];
        for (int i = 0; sg && i < sg->n_tensors; i++)
            if (sg->tensors[i].data) {
                params += ir_tensor_numel(&sg->tensors[i]);
                wbytes += (int64_t)sg->tensors[i].data_size;
            }
    }
    int macs_known = info.unsupported == 0 && info.n_subgraphs == 1;
    for (int i = 0; i < g->n_ops && macs_known; i++) {
        const OpDef *def = op_def(g->ops[i].kind);
        if (def && def->macs) macs += def->macs(g, &g->ops[i]);
    }
    printf("parameters: %lld (%lld bytes of constant data)\n", (long long)params, (long long)wbytes);
    if (macs_known) printf("MACs: %lld\n", (long long)macs);
    else printf("MACs: unknown (%s)\n", info.unsupported ? "unsupported operators" : "control flow");
    if (info.unsupported) {
        printf("unsupported (%d):\n", info.unsupported);
        const char *p = d.msg;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            printf("  %.*s\n", (int)n, p);
            p += n + (e ? 1 : 0);
        }
    } else {
        printf("all operators supported\n");
    }
    ir_graph_free(g);
    tfl_close_file(&file);
    return 0;
}

/* mpcc run: every bound custom operator's kernel from --custom-lib (dlopen). */
int cli_load_custom_kernels(Graph *g, const char *path, void **lib, Diag *d) {
    for (int k = 0; k < (g->n_sub ? g->n_sub : 1); k++) {
        Graph *sg = k == 0 ? g : g->sub[k];
        for (int i = 0; sg && i < sg->n_ops; i++) {
            IrCustom *c = sg->ops[i].custom;
            if (!c) continue;
            if (!path)
                return diag_user(d,
                                 "custom operator '%s' (operator %d): mpcc run needs its kernel: build %s into a "
                                 "shared library and pass --custom-lib LIB.so",
                                 c->code, sg->ops[i].tfl_index, c->func);
            if (!*lib) {
                *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
                if (!*lib) return diag_user(d, "--custom-lib %s: %s", path, dlerror());
            }
            void *sym = dlsym(*lib, c->func);
            if (!sym) return diag_user(d, "--custom-lib %s: no function '%s' (for custom operator '%s')", path, c->func, c->code);
            /* POSIX: a symbol's address converts to a function pointer. */
            memcpy(&c->fn, &sym, sizeof sym);
        }
    }
    if (path && !*lib) return diag_user(d, "--custom-lib %s: the model has no custom operator bound with --custom-op", path);
    return 0;
}

static int cmd_run(int argc, char **argv) {
    Diag d;
    diag_init(&d);
    const char *model = NULL, *ins[64], *outs[64];
    int n_in = 0, n_out = 0;
    static ImportArgs ia;
    const char *custom_lib = NULL;
    for (int i = 0; i < argc; i++) {
        int rc = cli_import_arg(argc, argv, &i, &ia, &d);
        if (rc > 0) return cli_finish(&d, rc);
        if (rc == 0) continue;
        if (strcmp(argv[i], "--custom-lib") == 0 && i + 1 < argc) {
            custom_lib = argv[++i];
        } else if ((strcmp(argv[i], "--input") == 0 || strcmp(argv[i], "-i") == 0) && i + 1 < argc) {
            if (n_in == 64) return cli_finish(&d, diag_user(&d, "too many --input files"));
            ins[n_in++] = argv[++i];
        } else if ((strcmp(argv[i], "--output") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc) {
            if (n_out == 64) return cli_finish(&d, diag_user(&d, "too many --output files"));
            outs[n_out++] = argv[++i];
        } else if (strcmp(argv[i], "--dump-tensors") == 0 && i + 1 < argc) {
            interp_dump_dir = argv[++i];
        } else if (argv[i][0] == '-') {
            return cli_finish(&d, diag_user(&d, "run: unknown option '%s' (see mpcc --help)", argv[i]));
        } else if (!model) {
            model = argv[i];
        } else {
            return cli_finish(&d, diag_user(&d, "run: more than one MODEL given ('%s')", argv[i]));
        }
    }
    if (!model) return cli_finish(&d, diag_user(&d, "run: no MODEL given (see mpcc --help)"));
    Graph *g;
    TflFile file;
    int rc = cli_calibrate(model, &ia, custom_lib, &d);
    if (rc) return cli_finish(&d, rc);
    rc = cli_load(model, &ia.o, &g, &file, NULL, &d);
    if (g) g->precision = &ia.prec;
    void *lib = NULL;
    if (!rc) rc = cli_load_custom_kernels(g, custom_lib, &lib, &d);
    if (!rc) rc = cli_compile_graph(g, 0, 1, IR_ISA_GENERIC, NULL, NULL, &d);
    if (!rc && ia.prec.n_keep == 0) cli_warn_if_float(g);
    if (!rc && n_in != g->n_inputs)
        rc = diag_user(&d, "run: the model has %d input%s, %d --input given", g->n_inputs,
                       g->n_inputs == 1 ? "" : "s", n_in);
    if (!rc && n_out != g->n_outputs)
        rc = diag_user(&d, "run: the model has %d output%s, %d --output given", g->n_outputs,
                       g->n_outputs == 1 ? "" : "s", n_out);
    NpyArray arrays[64];
    int loaded = 0;
    const void *in_ptrs[64];
    void *out_ptrs[64] = {0};
    for (int i = 0; !rc && i < n_in; i++) {
        const IrTensor *t = &g->tensors[g->inputs[i]];
        rc = npy_read(ins[i], &arrays[i], &d);
        if (rc) break;
        loaded++;
        int same = arrays[i].rank == t->rank && arrays[i].dtype == t->dtype;
        for (int k = 0; same && k < t->rank; k++) same = arrays[i].dims[k] == t->dims[k];
        if (!same) {
            IrTensor tmp = *t;
            tmp.dtype = arrays[i].dtype;
            tmp.rank = arrays[i].rank;
            memcpy(tmp.dims, arrays[i].dims, sizeof tmp.dims);
            char want[160], got[160];
            rc = diag_user(&d, "%s: input %d '%s' must be %s, the file holds %s", ins[i], i, g->input_names[i],
                           ir_tensor_desc(t, want, sizeof want), ir_tensor_desc(&tmp, got, sizeof got));
            break;
        }
        in_ptrs[i] = arrays[i].data;
    }
    for (int i = 0; !rc && i < n_out; i++) {
        out_ptrs[i] = malloc((size_t)ir_tensor_bytes(&g->tensors[g->outputs[i]]) + 1);
        if (!out_ptrs[i]) rc = diag_user(&d, "out of memory");
    }
    if (!rc) rc = interp_run(g, in_ptrs, out_ptrs, &d);
    for (int i = 0; !rc && i < n_out; i++) {
        const IrTensor *t = &g->tensors[g->outputs[i]];
        rc = npy_write(outs[i], t->dtype, t->rank, t->dims, out_ptrs[i], &d);
    }
    for (int i = 0; i < loaded; i++) npy_free(&arrays[i]);
    for (int i = 0; i < n_out; i++) free(out_ptrs[i]);
    ir_graph_free(g);
    tfl_close_file(&file);
    if (lib) dlclose(lib);
    return cli_finish(&d, rc);
}

/* cmd_compile's options as one line, for the report's header (MODEL and -o left out). */
static void join_options(int argc, char **argv, const char *model, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < argc && n + 1 < cap; i++) {
        if (argv[i] == model) continue;
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--profile-data") == 0) {
            i++;
            continue;
        }
        int w = snprintf(out + n, cap - n, "%s%s", n ? " " : "", argv[i]);
        if (w > 0) n += (size_t)w;
    }
    if (!out[0]) snprintf(out, cap, "(defaults: -O2)");
}

/* html: `mpcc report` (-o names the HTML page; no C is written). */
static int cmd_compile(int argc, char **argv, int html) {
    Diag d;
    diag_init(&d);
    const char *model = NULL, *out = NULL, *name = NULL, *dump = NULL;
    const char *custom_lib = NULL; /* calibration runs the model's custom kernels */
    const char *profile_data = NULL;
    int profile = 0, patch = 0;
    int weights_file = 0, target_cuda = 0, jit = 0, tf32 = 0, report = 0, dump_ir = 0, opt_level = 2, threads = 1;
    int64_t par_min_macs = 0;
    IrIsa isa = IR_ISA_GENERIC;
    int64_t max_arena = -1, max_weights = -1;
    static ImportArgs ia;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int irc = cli_import_arg(argc, argv, &i, &ia, &d);
        if (irc > 0) return cli_finish(&d, irc);
        if (irc == 0) continue;
        if (strcmp(a, "-o") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(a, "--custom-lib") == 0 && i + 1 < argc) custom_lib = argv[++i];
        else if (strcmp(a, "--isa") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            int found = 0;
            for (int k = IR_ISA_GENERIC; k < IR_ISA_COUNT && !found; k++)
                if (strcmp(v, ir_isa_name((IrIsa)k)) == 0) isa = (IrIsa)k, found = 1;
            if (!found)
                return cli_finish(&d, diag_user(&d, "--isa must be generic, avx2, avx512 or neon, for AArch64 "
                                                    "armv8a or armv8.2a+dotprod, or for Cortex-M "
                                                    "armv6m, armv7m, armv7em, armv8m or armv81m, not '%s'", v));
        } else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            const char *t = argv[++i];
            char *end;
            long v = strtol(t, &end, 10);
            if (*t == '\0' || *end || v < 1 || v > 64)
                return cli_finish(&d, diag_user(&d, "--threads must be a number from 1 to 64, not '%s'", t));
            threads = (int)v;
        } else if (strcmp(a, "--threads-min-macs") == 0 && i + 1 < argc) {
            const char *t = argv[++i];
            char *end;
            long long v = strtoll(t, &end, 10);
            if (*t == '\0' || *end || v < 1)
                return cli_finish(&d, diag_user(&d, "--threads-min-macs must be a number of at least 1, not '%s'", t));
            par_min_macs = (int64_t)v;
        }
        else if (strcmp(a, "-O0") == 0 || strcmp(a, "-O1") == 0 || strcmp(a, "-O2") == 0) opt_level = a[2] - '0';
        else if (strcmp(a, "--name") == 0 && i + 1 < argc) name = argv[++i];
        else if (strcmp(a, "--weights") == 0 && i + 1 < argc) {
            const char *w = argv[++i];
            if (strcmp(w, "embed") == 0) weights_file = 0;
            else if (strcmp(w, "file") == 0) weights_file = 1;
            else return cli_finish(&d, diag_user(&d, "--weights must be 'embed' or 'file', not '%s'", w));
        } else if ((strcmp(a, "--max-arena") == 0 || strcmp(a, "--max-weights") == 0) && i + 1 < argc) {
            int64_t v = parse_bytes(argv[++i]);
            if (v < 0) return cli_finish(&d, diag_user(&d, "%s: '%s' is not a byte count (e.g. 65536, 64K, 2M)", a, argv[i]));
            *(a[6] == 'a' ? &max_arena : &max_weights) = v;
        } else if (strcmp(a, "--target") == 0 && i + 1 < argc) {
            const char *t = argv[++i];
            if (strcmp(t, "c") == 0) target_cuda = 0;
            else if (strcmp(t, "cuda") == 0) target_cuda = 1;
            else {
                char safe[96];
                return cli_finish(&d, diag_user(&d, "--target %s is not available (this build supports: c, cuda)",
                                                txt_terminal(safe, sizeof safe, t, 64)));
            }
        } else if (strcmp(a, "--jit") == 0) jit = 1;
        else if (strcmp(a, "--tf32") == 0) tf32 = 1;
        else if (strcmp(a, "--report") == 0) report = 1;
        else if (strcmp(a, "--patch") == 0) patch = 1;
        else if (strcmp(a, "--profile") == 0) profile = 1;
        else if (html && strcmp(a, "--profile-data") == 0 && i + 1 < argc) profile_data = argv[++i];
        else if (strcmp(a, "--dump-ir") == 0) dump_ir = 1;
        else if (strncmp(a, "--dump-ir=after:", 16) == 0) {
            dump_ir = 1;
            dump = a + 16;
        } else if (a[0] == '-' && a[1]) return cli_finish(&d, diag_user(&d, "unknown option '%s' (see mpcc --help)", a));
        else if (!model) model = a;
        else return cli_finish(&d, diag_user(&d, "more than one MODEL given ('%s' and '%s')", model, a));
    }
    if (!model) return cli_finish(&d, diag_user(&d, "no MODEL given (see mpcc --help)"));
    if (html && !out) return cli_finish(&d, diag_user(&d, "report: no output file given: use -o REPORT.html"));
    if (html && target_cuda) return cli_finish(&d, diag_user(&d, "report: --target cuda is not available (the report shows the C target's plan)"));
    if (!out && !dump_ir && !report) return cli_finish(&d, diag_user(&d, "no output file given: use -o OUT.c"));
    if (html && profile) return cli_finish(&d, diag_user(&d, "report: --profile changes only the generated code; give the measured times with --profile-data FILE"));
    if (profile && target_cuda) return cli_finish(&d, diag_user(&d, "--profile is not available with --target cuda"));
    char stem[256] = "model", prefix[128];
    if (out) {
        const char *base = strrchr(out, '/');
        base = base ? base + 1 : out;
        size_t n = strcspn(base, ".");
        if (n == 0) n = strlen(base);
        if (n >= sizeof stem) n = sizeof stem - 1;
        memcpy(stem, base, n);
        stem[n] = '\0';
    }
    const char *pfx = name ? name : stem;
    size_t j = 0;
    for (const char *p = pfx; *p && j + 1 < sizeof prefix; p++)
        prefix[j++] = (isalnum((unsigned char)*p) && (unsigned char)*p < 128) ? *p : '_';
    prefix[j] = '\0';
    if (j == 0 || isdigit((unsigned char)prefix[0])) {
        if (name) return cli_finish(&d, diag_user(&d, "--name '%s' is not a valid C identifier", name));
        snprintf(prefix, sizeof prefix, "model");
    }
    /* With --max-arena, a model that does not fit is compiled again with the
     * optimized kernels' scratch blocks (im2col rows, int8 widening) made
     * smaller, trading some speed for memory, before giving up. */
    static const int64_t scratch_budgets[] = {0, 16 << 10, 4 << 10, 1};
    Graph *g;
    TflFile file;
    int rc;
    rc = cli_calibrate(model, &ia, custom_lib, &d);
    if (rc) return cli_finish(&d, rc);
    for (int attempt = 0;; attempt++) {
        rc = cli_load(model, &ia.o, &g, &file, NULL, &d);
        if (g) g->precision = &ia.prec;
        if (!rc && out && g->n_ops > CG_MAX_OPS)
            rc = diag_user(&d, "%s: %d operators, more than the %d the C backend compiles (about 1 KB of C each: "
                               "the generated file would be %d MB, more than C compilers build)",
                           model, g->n_ops, CG_MAX_OPS, g->n_ops / 1000);
        if (!rc) {
            g->scratch_budget = scratch_budgets[attempt];
            g->target_cuda = target_cuda;
            g->patch = patch;
            g->max_arena = max_arena;
            g->par_min_macs = par_min_macs;
            rc = cli_compile_graph(g, opt_level, threads, isa, dump_ir ? (dump ? dump : "plan_memory") : NULL, stdout, &d);
        }
        int scratch = 0;
        for (int i = 0; !rc && i < g->n_ops; i++)
            scratch |= !g->ops[i].dead && (g->ops[i].sched.rows > 0 ||
                                           (g->ops[i].sched.kind == SCHED_DWCONV && g->ops[i].scratch_bytes > 0));
        if (rc || max_arena < 0 || g->arena_bytes <= max_arena || !scratch || dump_ir ||
            attempt + 1 == (int)(sizeof scratch_budgets / sizeof scratch_budgets[0]))
            break;
        ir_graph_free(g);
        tfl_close_file(&file);
    }
    if (!rc && !ia.prec_auto) cli_warn_if_float(g);
    if (!rc && max_arena >= 0) rc = plan_check_budget(g, max_arena, &d);
    if (!rc && g->scratch_budget)
        fprintf(stderr, "mpcc: note: scratch blocks of the optimized kernels cut to %lld bytes to fit --max-arena "
                        "(arena %lld bytes)\n", (long long)g->scratch_budget, (long long)g->arena_bytes);
    if (!rc && max_arena < 0 && g->arena_bytes > ((int64_t)1 << 30)) {
        char peak[2048];
        plan_describe_peak(g, 5, peak, sizeof peak);
        fprintf(stderr,
                "mpcc: warning: the arena is %lld bytes (%.1f GiB), more than 1 GiB of working memory; %s "
                "(--max-arena BYTES makes this an error)\n",
                (long long)g->arena_bytes, (double)g->arena_bytes / (double)(1 << 30), peak);
    }
    if (!rc && !report) precision_cost_note(g, NULL);
    if (!rc && report) {
        sched_report(g, stdout);
        precision_cost_note(g, stdout);
        plan_report(g, stdout);
        if (g->patch_report) fputs(g->patch_report, stdout);
        if (target_cuda) {
            CudaEmitOptions ro = {prefix, "", model, jit, tf32};
            cu_report(g, &ro, stdout);
        }
    }
    if (!rc && html) {
        char opts[1024];
        join_options(argc, argv, model, opts, sizeof opts);
        ReportOptions ro = {model, opts, profile_data};
        OutFile r = {0};
        rc = out_open(&r, out, &d);
        if (!rc) rc = report_html(g, &ro, r.f, &d);
        int rc_r = out_close(&r, !rc, &d);
        if (!rc) rc = rc_r;
    }
    if (!rc && out && !html) {
        char hpath[4096], wpath[4096], hname[4096];
        size_t olen = strlen(out);
        const char *dot = strrchr(out, '.');
        const char *slash = strrchr(out, '/');
        size_t base_len = (dot && (!slash || dot > slash)) ? (size_t)(dot - out) : olen;
        snprintf(hpath, sizeof hpath, "%.*s.h", (int)base_len, out);
        snprintf(wpath, sizeof wpath, "%.*s.weights.bin", (int)base_len, out);
        const char *hb = strrchr(hpath, '/');
        snprintf(hname, sizeof hname, "%s", hb ? hb + 1 : hpath);
        for (const char *p = hname; *p && !rc; p++)
            if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7F)
                rc = diag_user(&d, "output file name '%s': a header name in #include \"...\" cannot hold "
                               "quotes, backslashes or control characters", hname);
        const char *src = strrchr(model, '/');
        EmitOptions eo = {prefix, hname, src ? src + 1 : model, weights_file, max_weights, CG_MAX_EMBED_BYTES, profile};
        CudaEmitOptions co = {prefix, hname, src ? src + 1 : model, jit, tf32};
        OutFile c = {0}, h = {0}, w = {0};
        if (!rc && (jit || tf32) && !target_cuda) rc = diag_user(&d, "%s needs --target cuda", jit ? "--jit" : "--tf32");
        if (!rc && target_cuda && weights_file)
            rc = diag_user(&d, "--weights file is not available with --target cuda (the constants are embedded and "
                               "uploaded by PREFIX_cuda_init)");
        if (!rc) rc = out_open(&c, out, &d);
        if (!rc) rc = out_open(&h, hpath, &d);
        if (!rc && weights_file) rc = out_open(&w, wpath, &d);
        if (!rc) rc = target_cuda ? cg_emit_cuda(g, &co, c.f, h.f, &d) : cg_emit_model(g, &eo, c.f, h.f, w.f, &d);
        int rc_w = out_close(&w, !rc, &d);
        int rc_h = out_close(&h, !rc && !rc_w, &d);
        int rc_c = out_close(&c, !rc && !rc_w && !rc_h, &d);
        if (!rc) rc = rc_w ? rc_w : rc_h ? rc_h : rc_c;
    }
    ir_graph_free(g);
    tfl_close_file(&file);
    return cli_finish(&d, rc);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 1;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mpcc %s\n", MPCC_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "inspect") == 0) return cmd_inspect(argc - 2, argv + 2);
    if (strcmp(argv[1], "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0) return cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "report") == 0) return cmd_compile(argc - 2, argv + 2, 1);
    if (strcmp(argv[1], "compile") == 0) return cmd_compile(argc - 2, argv + 2, 0);
    return cmd_compile(argc - 1, argv + 1, 0);
}
