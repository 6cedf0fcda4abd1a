/* emit_c.c - emits a prepared, planned Graph as standalone C99:
 *   <name>.h  the documented public API (arena size, I/O names, shapes,
 *             dtypes, quantization, <prefix>_init / <prefix>_run)
 *   <name>.c  constants, then one block per kernel, each preceded by a
 *             comment naming the TFLite operator index, op and shapes.
 * Output depends only on the graph and options: same input, same bytes. */
#include "emit_c.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"
#include "emit_sched_c.h"
#include "emit_weights.h"
#include "ops.h"
#include "text.h"

static const char *q_desc(const IrTensor *t, char *buf, size_t n) {
    if (t->q.count == 0) snprintf(buf, n, "not quantized");
    else if (t->q.count == 1)
        snprintf(buf, n, "scale %.9g, zero point %lld", (double)t->q.scale[0], (long long)t->q.zero_point[0]);
    else snprintf(buf, n, "per-channel (%d scales, dim %d)", t->q.count, t->q.dim);
    return buf;
}

static void emit_const_array(CgCtx *cg, const IrTensor *t, const char *name) {
    int64_t n = ir_tensor_numel(t);
    const uint8_t *p = t->data;
    CgBuf *b = cg->out;
    switch (t->dtype) {
    case IR_F32: {
        float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
        if (!v) {
            b->oom = 1;
            return;
        }
        memcpy(v, p, sizeof(float) * (size_t)n);
        cg_array_f32(cg, name, v, n);
        free(v);
        return;
    }
    case IR_I8: cg_array_i8(cg, name, (const int8_t *)p, n); return;
    case IR_U8:
    case IR_BOOL: cg_array_u8(cg, name, p, n); return;
    default: break;
    }
    /* 16/32/64-bit integers and f16/bf16 bit patterns: decode little-endian. */
    size_t es = ir_dtype_size(t->dtype);
    cgbuf_printf(b, "static const %s %s[%lld] MPCC_CONST_ALIGN = {", ir_dtype_ctype(t->dtype), name, (long long)(n > 0 ? n : 1));
    if (n <= 0) cgbuf_append(b, "0", 1);
    for (int64_t i = 0; i < n; i++) {
        if (i % 8 == 0 && n > 8) cgbuf_append(b, "\n    ", 5);
        uint64_t u = 0;
        for (size_t k = 0; k < es; k++) u |= (uint64_t)p[i * (int64_t)es + (int64_t)k] << (8 * k);
        char lit[40];
        if (t->dtype == IR_I16) snprintf(lit, sizeof lit, "%d", (int)(int16_t)u);
        else if (t->dtype == IR_I32) snprintf(lit, sizeof lit, "%ld", (long)(int32_t)u);
        else if (t->dtype == IR_I64) {
            int64_t v = (int64_t)u;
            if (v == INT64_MIN) snprintf(lit, sizeof lit, "INT64_MIN");
            else snprintf(lit, sizeof lit, "INT64_C(%lld)", (long long)v);
        } else snprintf(lit, sizeof lit, "0x%04x", (unsigned)u);
        cgbuf_printf(b, "%s%s", lit, i + 1 < n ? ", " : "");
    }
    cgbuf_append(b, n > 8 ? "\n};\n" : "};\n", n > 8 ? 4 : 3);
}

static void op_comment(CgCtx *cg, const Graph *g, const IrOp *op, int index) {
    char buf[160], nb[TXT_COMMENT_CAP];
    cg_line(cg, "/* op %d: TFLite operator #%d %s%s%s%s */", index, op->tfl_index, ir_op_name(op->kind),
            op->fused[0] ? " (fused: " : "", op->fused, op->fused[0] ? ")" : "");
    for (int k = 0; k < op->n_in; k++) {
        if (op->in[k] < 0) continue;
        const IrTensor *t = &g->tensors[op->in[k]];
        cg_line(cg, "/*   in%d  %-24s %s */", k, ir_tensor_desc(t, buf, sizeof buf), txt_comment(nb, sizeof nb, t->name));
    }
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *t = &g->tensors[op->out[k]];
        cg_line(cg, "/*   out%d %-24s %s */", k, ir_tensor_desc(t, buf, sizeof buf), txt_comment(nb, sizeof nb, t->name));
    }
    if (op->sched.kind != SCHED_REF) cg_sched_comment(cg, g, op);
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

void cg_emit_io_macros(CgBuf *h, const Graph *g, const char *P, int is_out) {
    int n = is_out ? g->n_outputs : g->n_inputs;
    const char *kind = is_out ? "OUTPUT" : "INPUT";
    for (int i = 0; i < n; i++) {
        const IrTensor *t = &g->tensors[is_out ? g->outputs[i] : g->inputs[i]];
        const char *name = is_out ? g->output_names[i] : g->input_names[i];
        char buf[160], qb[128], safe[TXT_COMMENT_CAP], lit[TXT_LITERAL_CAP];
        cgbuf_printf(h, "\n/* %s %d: %s, %s, %s */\n", is_out ? "output" : "input", i,
                     txt_comment(safe, sizeof safe, name), ir_tensor_desc(t, buf, sizeof buf),
                     q_desc(t, qb, sizeof qb));
        cgbuf_printf(h, "#define %s_%s%d_NAME %s", P, kind, i, txt_c_string(lit, sizeof lit, name));
        cgbuf_printf(h, "\n#define %s_%s%d_DTYPE %d /* %s */\n", P, kind, i, (int)t->dtype,
                     ir_dtype_name(t->dtype));
        cgbuf_printf(h, "typedef %s %s_%s%d_t;\n", ir_dtype_ctype(t->dtype), P, kind, i);
        cgbuf_printf(h, "#define %s_%s%d_RANK %d\n#define %s_%s%d_DIMS {", P, kind, i, t->rank, P, kind, i);
        for (int k = 0; k < t->rank; k++) cgbuf_printf(h, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
        if (t->rank == 0) cgbuf_printf(h, "1");
        cgbuf_printf(h, "}\n#define %s_%s%d_SIZE %lld /* elements */\n", P, kind, i, (long long)ir_tensor_numel(t));
        cgbuf_printf(h, "#define %s_%s%d_BYTES %lld\n", P, kind, i, (long long)ir_tensor_bytes(t));
        if (t->q.count == 1) {
            char lit[48];
            snprintf(lit, sizeof lit, "%.9g", (double)t->q.scale[0]);
            if (!strpbrk(lit, ".e")) strcat(lit, ".0");
            cgbuf_printf(h, "#define %s_%s%d_SCALE %sf\n#define %s_%s%d_ZERO_POINT %lld\n", P, kind, i, lit, P, kind,
                         i, (long long)t->q.zero_point[0]);
        }
        int in_place = is_out ? cg_inplace_input(g, i) : -1;
        if (in_place >= 0)
            cgbuf_printf(h, "/* In place: inputs[%d] may be this output's buffer too (an update of that input, which\n"
                            " * nothing else reads: a KV cache); the step then writes only the new rows. */\n"
                            "#define %s_%s%d_IN_PLACE_OF_INPUT %d\n", in_place, P, kind, i, in_place);
    }
}

/* 1 if a live op of the model (any of its subgraphs) satisfies pred. */
static int model_has(const Graph *g, int (*pred)(const IrOp *)) {
    for (int k = 0; k < (g->n_sub > 1 ? g->n_sub : 1); k++) {
        const Graph *sg = k == 0 ? g : g->sub[k];
        for (int i = 0; sg && i < sg->n_ops; i++)
            if (!sg->ops[i].dead && pred(&sg->ops[i])) return 1;
    }
    return 0;
}

static int is_custom(const IrOp *op) { return op->kind == OP_CUSTOM; }
static int has_guard(const IrOp *op) { return op->guard != NULL; }

/* --isa other than generic: the build stops with a message naming the flags
 * when the compiler does not target that ISA. */
static void emit_isa_check(CgBuf *c, IrIsa isa) {
#define CG_M_PROFILE "defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'"
    static const char *const cond[IR_ISA_COUNT] = {
        NULL, "defined(__AVX2__) && defined(__FMA__)", "defined(__AVX512F__) && defined(__AVX512BW__)",
        "defined(__ARM_NEON)", "defined(__aarch64__) && defined(__ARM_NEON)",
        "defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)", CG_M_PROFILE, CG_M_PROFILE " && __ARM_ARCH >= 7",
        CG_M_PROFILE " && defined(__ARM_FEATURE_DSP)", CG_M_PROFILE " && __ARM_ARCH >= 8 && defined(__ARM_FEATURE_DSP)",
        "defined(__ARM_FEATURE_MVE)"};
    static const char *const how[IR_ISA_COUNT] = {
        NULL, "-mavx2 -mfma (or -march=haswell or newer)",
        "-mavx512f -mavx512bw -mfma (or -march=skylake-avx512 or newer)",
        "an Arm target with NEON (e.g. -march=armv8-a)", "an AArch64 compiler (-march=armv8-a or later)",
        "-march=armv8.2-a+dotprod (or -mcpu=cortex-a76, neoverse-n1 or later)", "-mcpu=cortex-m0plus -mthumb (any Cortex-M)",
        "-mcpu=cortex-m3 -mthumb (Armv7-M or later)", "-mcpu=cortex-m4 or cortex-m7 -mthumb (the DSP extension)",
        "-mcpu=cortex-m33 -mthumb (Armv8-M Mainline with DSP)", "-mcpu=cortex-m55 -mthumb (Helium)"};
#undef CG_M_PROFILE
    if (isa <= IR_ISA_GENERIC || isa >= IR_ISA_COUNT) return;
    cgbuf_printf(c, "/* Compiled by mpcc --isa %s. */\n#if !(%s)\n#error \"mpcc --isa %s: build this file and runtime/ with %s\"\n#endif\n\n",
                 ir_isa_name(isa), cond[isa], ir_isa_name(isa), how[isa]);
}

/* PREFIX_run_parallel and the mpcc_parallel type (as in
 * runtime/mpcc_parallel.h, guarded so several model headers combine). */
static void emit_parallel_api(CgBuf *h, const Graph *g, const EmitOptions *o, const char *P) {
    cgbuf_printf(h, "\n/* Threads. The convolution, fully connected, depthwise and attention\n"
                    " * kernels split their work over the caller's parallel-for: `run` calls\n"
                    " * task(arg, i) for every i in [0, n) on any threads and returns when all\n"
                    " * are done (runtime/threads/mpcc_pool.h is a small pthread pool that\n"
                    " * provides one). This model was compiled for up to %d thread%s (mpcc\n"
                    " * --threads N: the arena holds one scratch copy per thread); a larger\n"
                    " * par->threads is clamped. NULL par is the same as %s_run. */\n",
                 g->threads > 1 ? g->threads : 1, g->threads > 1 ? "s" : "", o->prefix);
    cgbuf_printf(h, "#ifndef MPCC_PARALLEL_DEFINED\n#define MPCC_PARALLEL_DEFINED\n"
                    "typedef struct mpcc_parallel {\n"
                    "    void (*run)(void *pool, void (*task)(void *arg, int index), void *arg, int n);\n"
                    "    void *pool;\n    int threads;\n} mpcc_parallel;\n#endif\n");
    cgbuf_printf(h, "#define %s_MAX_THREADS %d\n", P, g->threads > 1 ? g->threads : 1);
    if (o->weights_file)
        cgbuf_printf(h, "int %s_run_parallel(const void *const *inputs, void *const *outputs, void *arena, "
                        "const void *weights,\n    %*s const mpcc_parallel *par);\n",
                     o->prefix, (int)strlen(o->prefix), "");
    else
        cgbuf_printf(h, "int %s_run_parallel(const void *const *inputs, void *const *outputs, void *arena,\n"
                        "    %*s const mpcc_parallel *par);\n", o->prefix, (int)strlen(o->prefix), "");
}

static int profiled_ops(const Graph *g);
static int64_t profile_at(const Graph *g);
static int64_t profile_bytes(const Graph *g);

/* The signatures' entry points (docs/signatures.md), after <prefix>_run's API. */
static void emit_entries_header(CgBuf *h, const Graph *g, const EmitOptions *o, const char *P) {
    const char *wparam = o->weights_file ? ", const void *weights" : "";
    for (int e = 0; e < g->n_entries; e++) {
        const Graph *sg = g->entry_sub[e] == 0 ? g : ir_subgraph(g, g->entry_sub[e]);
        if (!sg) continue;
        char kb[TXT_COMMENT_CAP], EP[TXT_IDENT_MAX + 160];
        snprintf(EP, sizeof EP, "%s_", P);
        size_t j = strlen(EP);
        for (const char *c = g->entry_c[e]; *c && j + 1 < sizeof EP; c++) EP[j++] = (char)toupper((unsigned char)*c);
        EP[j] = '\0';
        cgbuf_printf(h,
                     "\n/* Signature %d \"%s\" (TFLite subgraph %d): %s_%s_run, same arguments, arena\n"
                     " * (%s_ARENA_BYTES, one %s_init for all signatures) and return codes as %s_run%s.\n"
                     " * Its inputs and outputs, in this order, are named by the signature: */\n",
                     e, txt_comment(kb, sizeof kb, g->entry_key[e]), g->entry_sub[e], o->prefix, g->entry_c[e], P,
                     o->prefix, o->prefix, g->entry_sub[e] == 0 ? " (it is the same function)" : "");
        cgbuf_printf(h, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", EP, sg->n_inputs, EP, sg->n_outputs);
        cg_emit_io_macros(h, sg, EP, 0);
        cg_emit_io_macros(h, sg, EP, 1);
        cgbuf_printf(h, "int %s_%s_run(const void *const *inputs, void *const *outputs, void *arena%s);\n", o->prefix,
                     g->entry_c[e], wparam);
        cgbuf_printf(h, "/* The same on the caller's parallel-for, as %s_run_parallel (NULL par: %s_%s_run). */\n",
                     o->prefix, o->prefix, g->entry_c[e]);
        cgbuf_printf(h, "int %s_%s_run_parallel(const void *const *inputs, void *const *outputs, void *arena%s,\n"
                        "    %*s const mpcc_parallel *par);\n",
                     o->prefix, g->entry_c[e], wparam, (int)(strlen(o->prefix) + strlen(g->entry_c[e]) + 1), "");
    }
}

static void emit_header(CgBuf *h, const Graph *g, const EmitOptions *o, const char *P, int64_t blob_bytes,
                        uint64_t hash) {
    char guard[128];
    size_t j = 0;
    for (const char *s = o->prefix; *s && j + 1 < sizeof guard; s++) guard[j++] = (char)toupper((unsigned char)*s);
    guard[j] = '\0';
    char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP];
    cgbuf_printf(h, "/* %s - generated by mpcc %s from %s. Do not edit.\n", txt_comment(hn, sizeof hn, o->header_name),
                 MPCC_VERSION, txt_comment(sn, sizeof sn, o->source_name));
    cgbuf_printf(h,
                 " *\n"
                 " * Usage:\n"
                 " *   static double arena[%s_ARENA_BYTES / 8 + 1];  (never zero-sized; 8-byte aligned, 64 is better)\n"
                 " *   %s_init(arena);                  once, resets the model's state\n",
                 P, o->prefix);
    if (o->weights_file)
        cgbuf_printf(h,
                     " *   load the .weights.bin file into `weights` (%s_WEIGHTS_BYTES bytes, 16-byte aligned);\n"
                     " *   %s_check_weights(weights, bytes) == 0    once, after loading\n",
                     P, o->prefix);
    cgbuf_printf(h,
                 " *   const void *in[%s_NUM_INPUTS] = {...};  void *out[%s_NUM_OUTPUTS] = {...};\n"
                 " *   int rc = %s_run(in, out, arena%s);  0 on success\n"
                 " * Inputs and outputs are caller buffers in model order, dense row-major,\n"
                 " * of the dtypes and shapes below. The arena holds all intermediate values\n"
                 " * (and the state of stateful models at its start); the code uses no other\n"
                 " * mutable memory, so threads may run the model concurrently with separate\n"
                 " * arenas. Link with mpcc's runtime/ sources and libm.\n */\n",
                 P, P, o->prefix, o->weights_file ? ", weights" : "");
    int scheduled = 0;
    for (int i = 0; i < g->n_ops; i++) scheduled += !g->ops[i].dead && g->ops[i].sched.kind != SCHED_REF;
    static const char *const isa_text[] = {
        /* generic */
        " * Vector paths, picked when the code is built from the compiler's target: x86\n"
        " * AVX-512 (8x32 GEMM tiles; int8 vpdpbusd with AVX512-VNNI), AVX2+FMA (6x16 f32,\n"
        " * 6x8 int8 tiles), GCC/Clang vector extensions elsewhere, portable C99 otherwise (same\n"
        " * integer results on every path). Build with -O3 -march=native for speed.",
        /* avx2 */
        " * Built for --isa avx2: AVX2+FMA paths (6x16 f32 / 6x8 int8 GEMM tiles);\n"
        " * the .c file stops the build unless the compiler targets AVX2 and FMA\n"
        " * (-mavx2 -mfma, -march=haswell or newer, or -march=native on such a CPU).",
        /* avx512 */
        " * Built for --isa avx512: AVX-512 paths (8x32 GEMM tiles; vpdpbusd when the\n"
        " * compiler also targets AVX512-VNNI); the .c file stops the build unless the\n"
        " * compiler targets AVX512F and AVX512BW (-march=skylake-avx512 or newer).",
        /* neon (in parentheses: clang's -Wstring-concatenation) */
        (" * Built for --isa neon: portable GCC/Clang vector-extension code (NEON\n"
         " * registers, no hand-written intrinsics); the .c file checks __ARM_NEON."),
        /* armv8a */
        (" * Built for --isa armv8a: AArch64 NEON kernels (runtime/arm64, docs/arm64.md;\n"
         " * int8 on SMULL/SADALP); the .c file stops the build unless the compiler targets AArch64."),
        /* armv8.2a+dotprod */
        (" * Built for --isa armv8.2a+dotprod: AArch64 NEON kernels (runtime/arm64,\n"
         " * docs/arm64.md; int8 on SDOT); the .c file stops the build unless the compiler\n"
         " * targets the dot product (-march=armv8.2-a+dotprod or newer)."),
        (" * Built for a Cortex-M --isa (docs/cortex-m.md): portable C kernels; no\n"
         " * kernel takes scratch memory beyond the op-by-op bound of the arena; the .c\n"
         " * file checks that the compiler targets that core.")};
    if (scheduled)
        cgbuf_printf(h,
                     "/* Kernels: %d ops run mpcc's optimized kernels (runtime/rt_opt*.c), the rest its\n"
                     " * reference kernels.\n%s */\n",
                     scheduled, isa_text[ir_isa_is_mcu(g->isa) ? IR_ISA_ARMV6M : (unsigned)g->isa < IR_ISA_ARMV6M ? g->isa : 0]);
    else
        cgbuf_printf(h, "/* Kernels: mpcc's reference kernels (runtime/kernels). */\n");
    cgbuf_printf(h, "#ifndef %s_MODEL_H\n#define %s_MODEL_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n", guard,
                 guard);
    cgbuf_printf(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    cgbuf_printf(h, "/* Bytes of working memory %s_run needs (state %lld + activations). */\n", o->prefix,
                 (long long)g->state_bytes);
    if (o->profile)
        cgbuf_printf(h, "/* (--profile: %lld planned + %lld of the timing record) */\n", (long long)profile_at(g),
                     (long long)profile_bytes(g));
    cgbuf_printf(h, "#define %s_ARENA_BYTES %lld\n", P, (long long)(o->profile ? profile_at(g) + profile_bytes(g) : g->arena_bytes));
    cgbuf_printf(h, "#define %s_STATE_BYTES %lld\n", P, (long long)g->state_bytes);
    cgbuf_printf(h, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", P, g->n_inputs, P, g->n_outputs);
    cgbuf_printf(h, "/* dtype codes: 0 f32, 1 f16, 2 bf16, 3 i8, 4 u8, 5 i16, 6 i32, 7 i64, 8 bool */\n");
    cg_emit_io_macros(h, g, P, 0);
    cg_emit_io_macros(h, g, P, 1);
    cgbuf_printf(h, "\n/* Resets the state part of the arena (stateful ops such as SVDF/LSTM);\n"
                    " * call once before the first run. */\n");
    cgbuf_printf(h, "void %s_init(void *arena);\n\n", o->prefix);
    const char *guard_text =
        model_has(g, has_guard) ? ",\n * or 4 if a shape input differs from the shape the model was compiled for" : "";
    const char *custom_text = model_has(g, is_custom) ? ",\n * or 5 if a custom operator's kernel returned non-zero" : "";
    if (o->weights_file) {
        cgbuf_printf(h,
                     "/* The weights: the .weights.bin file written with this code, read only,\n"
                     " * 16-byte aligned (64 is better: each constant starts 64 bytes apart): a\n"
                     " * 16-byte header (\"mpccwts1\" and the hash below), zeros, then the constants.\n"
                     " * %s_WEIGHTS_HASH is a 64-bit hash of everything after the header. */\n"
                     "#define %s_WEIGHTS_BYTES %lld\n"
                     "#define %s_WEIGHTS_HASH UINT64_C(0x%016llx)\n\n",
                     P, P, (long long)blob_bytes, P, (unsigned long long)hash);
        cgbuf_printf(h,
                     "/* Checks a loaded weights blob of `bytes` bytes; call it once after loading.\n"
                     " * Returns 0 if it is this model's (size %s_WEIGHTS_BYTES, header and content\n"
                     " * hash %s_WEIGHTS_HASH), 1 if weights is NULL, 2 if the size differs, 3 if the\n"
                     " * header or the contents differ (another model or other compile options, a damaged file).\n"
                     " * Reads the whole blob. */\n"
                     "int %s_check_weights(const void *weights, size_t bytes);\n\n",
                     P, P, o->prefix);
        cgbuf_printf(h,
                     "/* Runs the model. Returns 0, 1 if an argument is NULL, or 3 if the weights\n"
                     " * blob's header is not this model's (a blob written for other weights; the\n"
                     " * contents themselves are only checked by %s_check_weights)%s%s. */\n"
                     "int %s_run(const void *const *inputs, void *const *outputs, void *arena, const void *weights);\n",
                     o->prefix, guard_text, custom_text, o->prefix);
    } else {
        cgbuf_printf(h, "/* Runs the model. Returns 0, or 1 if an argument is NULL%s%s. */\n", guard_text, custom_text);
        cgbuf_printf(h, "int %s_run(const void *const *inputs, void *const *outputs, void *arena);\n", o->prefix);
    }
    emit_parallel_api(h, g, o, P);
    emit_entries_header(h, g, o, P);
    if (o->profile)
        cgbuf_printf(h, "\n/* Profiling (mpcc --profile). After %s_init, %s_profile_start(arena, clock)\n"
                        " * sets the clock (any monotonic tick counter: clock_gettime in ns, a cycle\n"
                        " * counter such as DWT->CYCCNT on a Cortex-M) and zeroes the counts; each run\n"
                        " * then adds the ticks each op's kernel took. %s_profile returns those sums,\n"
                        " * %s_PROFILE_OPS of them in execution order; %s_profile_runs the number of\n"
                        " * runs; %s_profile_op(k) names op k (\"op INDEX [TFLite #N] OP kernel dtype\",\n"
                        " * INDEX as in mpcc --report). Without a clock nothing is timed. */\n"
                        "#define %s_PROFILE_OPS %d\n"
                        "void %s_profile_start(void *arena, uint64_t (*clock)(void));\n"
                        "const uint64_t *%s_profile(const void *arena);\n"
                        "uint64_t %s_profile_runs(const void *arena);\n"
                        "const char *%s_profile_op(int k);\n",
                     o->prefix, o->prefix, o->prefix, P, o->prefix, o->prefix, P, profiled_ops(g), o->prefix,
                     o->prefix, o->prefix, o->prefix);
    cgbuf_printf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}


static void graph_code_free(GraphCode *gc) {
    if (gc->owned)
        for (int i = 0; i < gc->g->n_tensors; i++) free(gc->owned[i]);
    free(gc->owned);
    free(gc->names);
    free(gc->woff);
    free(gc->const_used);
}

/* Makes cg emit for graph gc->g. */
static void use_graph(CgCtx *cg, GraphCode *gc) {
    cg->g = gc->g;
    cg->const_name = gc->names;
    cg->const_offset = gc->woff;
    cg->const_used = gc->const_used;
}

/* Names for every constant a live op may read; only the ones the emitted
 * kernels actually reference are written out (and given blob offsets, in
 * the order the code first refers to them). */
static int graph_code_init(CgCtx *cg, GraphCode *gc, const Graph *g, Diag *d) {
    gc->g = g;
    gc->names = calloc((size_t)g->n_tensors + 1, sizeof(char *));
    gc->woff = malloc(sizeof(int64_t) * ((size_t)g->n_tensors + 1));
    gc->owned = calloc((size_t)g->n_tensors + 1, sizeof(char *));
    gc->const_used = calloc((size_t)g->n_tensors + 1, 1);
    char *used = calloc((size_t)g->n_tensors + 1, 1);
    if (!gc->names || !gc->woff || !gc->owned || !gc->const_used || !used) {
        free(used);
        return diag_internal(d, "out of memory");
    }
    use_graph(cg, gc);
    for (int i = 0; i < g->n_tensors; i++) gc->woff[i] = -1;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead || op->elided) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0 && g->tensors[op->in[k]].data) used[op->in[k]] = 1;
        if (op->sched.kind != SCHED_REF) {
            if (op->sched.packed_w >= 0) used[op->sched.packed_w] = 1;
            if (op->sched.packed_b >= 0) used[op->sched.packed_b] = 1;
        }
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (g->tensors[g->outputs[i]].data) used[g->outputs[i]] = 1;
    int rc = 0;
    for (int i = 0; i < g->n_tensors && !rc; i++) {
        if (!used[i]) continue;
        gc->owned[i] = dup_str(cg_sanitize(cg, g->tensors[i].name, i));
        if (!gc->owned[i]) rc = diag_internal(d, "out of memory");
        gc->names[i] = gc->owned[i];
    }
    free(used);
    return rc;
}


/* Emits up to `max` live ops from op *next on, as blocks at the current
 * depth. A block may return a non-zero status (a failed shape guard or custom
 * kernel, a failed subgraph call), so the function around it returns int. */
static int emit_ops(CgCtx *cg, int *next, int max, int *index, Diag *d) {
    const Graph *g = cg->g;
    int rc = 0;
    for (; *next < g->n_ops && max > 0 && !rc; (*next)++) {
        const IrOp *op = &g->ops[*next];
        if (op->dead) continue;
        max--;
        cgbuf_append(cg->out, "\n", 1);
        op_comment(cg, g, op, (*index)++);
        op_emit_guard(cg, g, op);
        if (op->elided) {
            cg_line(cg, "/* in place: the output shares the input's memory, nothing to do */");
            continue;
        }
        const OpDef *def = op_def(op->kind);
        if (!def || !def->emit_c)
            return diag_user(d, "operator %d (%s): the C backend has no emitter for it", op->tfl_index,
                             ir_op_name(op->kind));
        int timed = cg->profile && !g->root;
        if (timed) {
            cg_open(cg, "{");
            cg_line(cg, "const uint64_t prof_t0 = prof_now(a);");
        }
        cg_open(cg, "{");
        rc = op->sched.kind != SCHED_REF ? cg_emit_sched(cg, g, op, d) : def->emit_c(cg, g, op, d);
        cg_close(cg, "}");
        if (timed) {
            cg_line(cg, "prof_add(a, %d, prof_t0);", *index - 1);
            cg_close(cg, "}");
        }
    }
    return rc;
}

/* --profile: live ops of the model's graph (each has a slot, elided ones stay 0). */
static int profiled_ops(const Graph *g) {
    int n = 0;
    for (int i = 0; i < g->n_ops; i++) n += !g->ops[i].dead;
    return n;
}

/* Where the timing record starts: after the planned arena, 8-byte aligned. It holds the clock
 * (16 bytes), the run count and the ticks per op. */
static int64_t profile_at(const Graph *g) { return (g->arena_bytes + 7) / 8 * 8; }
static int64_t profile_bytes(const Graph *g) { return 24 + 8 * (int64_t)profiled_ops(g); }

static void emit_profile_helpers(CgBuf *c, const Graph *g) {
    cgbuf_printf(c, "/* --profile: the timing record after the planned arena: the caller's clock, the\n"
                    " * number of runs, the ticks spent in each op summed over the runs. */\n"
                    "#define PROF_AT %lld\n"
                    "typedef uint64_t (*prof_clock)(void);\n"
                    "typedef char prof_clock_fits[sizeof(prof_clock) <= 16 ? 1 : -1];\n"
                    "static uint64_t prof_now(const unsigned char *a) {\n"
                    "    prof_clock clock;\n"
                    "    memcpy(&clock, a + PROF_AT, sizeof clock);\n"
                    "    return clock ? clock() : 0;\n"
                    "}\n"
                    "static void prof_add(unsigned char *a, int k, uint64_t t0) {\n"
                    "    uint64_t *ticks = (uint64_t *)(void *)(a + PROF_AT + 24);\n"
                    "    ticks[k] += prof_now(a) - t0;\n"
                    "}\n\n",
                 (long long)profile_at(g));
}

static void emit_profile_api(CgBuf *c, const Graph *g, const EmitOptions *o, const char *P) {
    int n = profiled_ops(g);
    cgbuf_printf(c, "\nvoid %s_profile_start(void *arena, uint64_t (*clock)(void)) {\n"
                    "    unsigned char *a = (unsigned char *)arena;\n"
                    "    prof_clock c = clock;\n"
                    "    memset(a + PROF_AT, 0, %lld);\n"
                    "    memcpy(a + PROF_AT, &c, sizeof c);\n}\n",
                 o->prefix, (long long)profile_bytes(g));
    cgbuf_printf(c, "\nconst uint64_t *%s_profile(const void *arena) {\n"
                    "    return (const uint64_t *)(const void *)((const unsigned char *)arena + PROF_AT + 24);\n}\n",
                 o->prefix);
    cgbuf_printf(c, "\nuint64_t %s_profile_runs(const void *arena) {\n"
                    "    return *(const uint64_t *)(const void *)((const unsigned char *)arena + PROF_AT + 16);\n}\n",
                 o->prefix);
    cgbuf_printf(c, "\nconst char *%s_profile_op(int k) {\n    static const char *const names[%s_PROFILE_OPS] = {\n",
                 o->prefix, P);
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        char text[256], lit[TXT_LITERAL_CAP];
        snprintf(text, sizeof text, "op %d [TFLite #%d] %s%s%s %s %s%s", i, op->tfl_index, ir_op_name(op->kind),
                 op->fused[0] ? "+" : "", op->fused, ir_sched_name(op->sched.kind),
                 ir_dtype_name(g->prec_assigned ? op->prec : op->n_out ? g->tensors[op->out[0]].dtype : IR_F32),
                 op->elided ? " (in place)" : "");
        cgbuf_printf(c, "        %s,\n", txt_c_string(lit, sizeof lit, text));
    }
    cgbuf_printf(c, "    };\n    return k >= 0 && k < %d ? names[k] : NULL;\n}\n", n);
}

/* A graph output that is also an input or a constant needs a copy. */
static void emit_output_copies(CgCtx *cg, const EmitOptions *o) {
    const Graph *g = cg->g;
    for (int i = 0; i < g->n_outputs; i++) {
        const IrTensor *t = &g->tensors[g->outputs[i]];
        if (!t->data && !t->is_input) continue;
        int from = -1;
        for (int k = 0; k < g->n_inputs; k++)
            if (g->inputs[k] == t->id) from = k;
        if (from >= 0) {
            cg_line(cg, "memcpy(outputs[%d], inputs[%d], %lld);", i, from, (long long)ir_tensor_bytes(t));
        } else {
            cg->const_used[t->id] = 1;
            if (o->weights_file)
                cg_line(cg, "memcpy(outputs[%d], weights + %lld, %lld);", i, (long long)cg_blob_offset(cg, t->id),
                        (long long)ir_tensor_bytes(t));
            else
                cg_line(cg, "memcpy(outputs[%d], %s, %lld);", i, cg->const_name[t->id], (long long)ir_tensor_bytes(t));
        }
    }
}

static void subgraph_signature(CgBuf *c, const EmitOptions *o, int k) {
    cgbuf_printf(c, "static int %s_subgraph%d(const void *const *inputs, void *const *outputs, unsigned char *a%s,\n"
                    "    const mpcc_parallel *par)",
                 o->prefix, k, o->weights_file ? ", const unsigned char *weights" : "");
}

/* TFLite subgraph k's static function (control flow calls it), into cg->out:
 * inputs and outputs as for <prefix>_run, a: its part of the arena. */
static int emit_subgraph(CgCtx *cg, const EmitOptions *o, int k, Diag *d) {
    int next = 0, index = 0;
    cgbuf_printf(cg->out, "\n/* TFLite subgraph %d, run by control flow or a signature entry point: inputs and outputs as for %s_run, a: its arena. */\n",
                 k, o->prefix);
    subgraph_signature(cg->out, o, k);
    cgbuf_printf(cg->out, " {\n");
    cg->depth = 1;
    cg_line(cg, "(void)inputs, (void)outputs, (void)a%s, (void)par;", o->weights_file ? ", (void)weights" : "");
    int rc = emit_ops(cg, &next, cg->g->n_ops, &index, d);
    if (!rc) emit_output_copies(cg, o);
    cg_line(cg, "return 0;");
    cg->depth = 0;
    cg_line(cg, "}");
    return rc;
}

/* The start of an entry point: the arena and weights pointers, the argument
 * checks (return 1, or RT_ERR_WEIGHTS_HASH), with profile the run count. */
static void emit_entry_checks(CgCtx *cg, const EmitOptions *o, const char *P, int profile) {
    cg_line(cg, "unsigned char *a = (unsigned char *)arena;");
    if (o->weights_file) {
        cg_line(cg, "const unsigned char *weights = (const unsigned char *)weights_blob;");
        cg_line(cg, "if (!weights) return 1;");
    }
    cg_line(cg, "if (!inputs || !outputs || !arena) return 1;");
    if (profile) cg_line(cg, "((uint64_t *)(void *)(a + PROF_AT + 16))[0]++;");
    if (o->weights_file) cg_line(cg, "if (!rt_weights_header_ok(weights, %s_WEIGHTS_HASH)) return RT_ERR_WEIGHTS_HASH;", P);
}

/* run_graph and the two entry points <prefix>_run and <prefix>_run_parallel,
 * into cg->out. A graph of more than CG_OPS_PER_FUNCTION ops is split into
 * static functions of that many, which run_graph calls in turn: C
 * compilers optimize a function in time that grows faster than its length
 * (gcc -O2: 1.5 s for 2,000 ops in one function, 76 s for 10,000). */
static int emit_run(CgCtx *cg, const EmitOptions *o, const char *P, Diag *d) {
    const Graph *g = cg->g;
    int rc = 0, live = 0, next = 0, index = 0;
    for (int i = 0; i < g->n_ops; i++) live += !g->ops[i].dead;
    int parts = live > CG_OPS_PER_FUNCTION ? (live + CG_OPS_PER_FUNCTION - 1) / CG_OPS_PER_FUNCTION : 0;
    const char *wparam = o->weights_file ? ", const unsigned char *weights" : "", *warg = o->weights_file ? ", weights" : "";
    for (int part = 0; part < parts && !rc; part++) {
        cg->depth = 0;
        cg_line(cg, "/* %s_run, part %d of %d (operators from #%d) */", o->prefix, part + 1, parts, index);
        char name[160];
        int col = snprintf(name, sizeof name, "static int %s_part%d(", o->prefix, part);
        cgbuf_printf(cg->out, "%sconst void *const *inputs, void *const *outputs, unsigned char *a%s,\n%*sconst mpcc_parallel *par) {\n",
                     name, wparam, col, "");
        cg->depth = 1;
        cg_line(cg, "(void)inputs;");
        cg_line(cg, "(void)outputs;");
        cg_line(cg, "(void)a;");
        if (o->weights_file) cg_line(cg, "(void)weights;");
        cg_line(cg, "(void)par;");
        rc = emit_ops(cg, &next, CG_OPS_PER_FUNCTION, &index, d);
        cg_line(cg, "return 0;");
        cg_close(cg, "}");
        cgbuf_append(cg->out, "\n", 1);
    }
    /* The graph runs in run_graph; the two public entry points differ only
     * in the parallel-for they pass (none, or the caller's). */
    const char *wblob = o->weights_file ? ", const void *weights_blob" : "", *wblob_arg = o->weights_file ? ", weights_blob" : "";
    cgbuf_printf(cg->out, "static int run_graph(const void *const *inputs, void *const *outputs, void *arena%s,\n"
                          "                     const mpcc_parallel *par) {\n    (void)par;\n", wblob);
    cg->depth = 1;
    emit_entry_checks(cg, o, P, cg->profile);
    cg_line(cg, "(void)a;");
    if (parts) {
        cgbuf_append(cg->out, "\n", 1);
        cg_line(cg, "int rc;");
    }
    for (int part = 0; part < parts; part++)
        cg_line(cg, "if ((rc = %s_part%d(inputs, outputs, a%s, par)) != 0) return rc;", o->prefix, part, warg);
    if (!parts && !rc) rc = emit_ops(cg, &next, live, &index, d);
    if (!rc) emit_output_copies(cg, o);
    cg_line(cg, "return 0;");
    cg->depth = 0;
    cg_line(cg, "}");
    cgbuf_printf(cg->out, "\nint %s_run(const void *const *inputs, void *const *outputs, void *arena%s) {\n"
                          "    return run_graph(inputs, outputs, arena%s, NULL);\n}\n", o->prefix, wblob, wblob_arg);
    cgbuf_printf(cg->out, "\nint %s_run_parallel(const void *const *inputs, void *const *outputs, void *arena%s,\n"
                          "    %*s const mpcc_parallel *par) {\n    return run_graph(inputs, outputs, arena%s, par);\n}\n",
                 o->prefix, wblob, (int)strlen(o->prefix), "", wblob_arg);
    /* Each signature: <prefix>_<key>_run_parallel runs its subgraph with the caller's parallel-for,
     * <prefix>_<key>_run with none (subgraph 0's: run_graph). */
    for (int e = 0; e < g->n_entries; e++) {
        int k = g->entry_sub[e];
        if (k > 0 && !ir_subgraph(g, k)) continue;
        cgbuf_printf(cg->out, "\nint %s_%s_run_parallel(const void *const *inputs, void *const *outputs, void *arena%s,\n"
                              "    %*s const mpcc_parallel *par) {\n",
                     o->prefix, g->entry_c[e], wblob, (int)(strlen(o->prefix) + strlen(g->entry_c[e]) + 1), "");
        if (k == 0) {
            cgbuf_printf(cg->out, "    return run_graph(inputs, outputs, arena%s, par);\n}\n", wblob_arg);
        } else {
            cg->depth = 1;
            emit_entry_checks(cg, o, P, 0);
            cg_line(cg, "/* after the state (%lld bytes): the arena of TFLite subgraph %d */", (long long)g->state_bytes, k);
            cg_line(cg, "return %s_subgraph%d(inputs, outputs, a + %lld%s, par);", o->prefix, k, (long long)ir_entry_at(g),
                    warg);
            cg->depth = 0;
            cg_line(cg, "}");
        }
        cgbuf_printf(cg->out, "\nint %s_%s_run(const void *const *inputs, void *const *outputs, void *arena%s) {\n"
                              "    return %s_%s_run_parallel(inputs, outputs, arena%s, NULL);\n}\n",
                     o->prefix, g->entry_c[e], wblob, o->prefix, g->entry_c[e], wblob_arg);
    }
    if (cg->profile) emit_profile_api(cg->out, g, o, P);
    return rc;
}

/* The code of every graph: the subgraphs' functions (prototypes first: they
 * may call each other), then the model's. */
static int emit_code(CgCtx *cg, GraphCode *gcs, int n_gc, const EmitOptions *o, const char *P, Diag *d) {
    int rc = 0;
    if (n_gc > 1) cgbuf_printf(cg->out, "\n");
    for (int k = 1; k < n_gc; k++) {
        if (!gcs[k].g) continue;
        subgraph_signature(cg->out, o, k);
        cgbuf_printf(cg->out, ";\n");
    }
    for (int k = 1; k < n_gc && !rc; k++) {
        if (!gcs[k].g) continue;
        use_graph(cg, &gcs[k]);
        rc = emit_subgraph(cg, o, k, d);
    }
    if (n_gc > 1) cgbuf_printf(cg->out, "\n");
    use_graph(cg, &gcs[0]);
    if (!rc) rc = emit_run(cg, o, P, d);
    return rc;
}


int cg_emit_model(const Graph *g, const EmitOptions *o, FILE *c_out, FILE *h_out, FILE *weights_out, Diag *d) {
    CgBuf c = {0}, h = {0};
    CgCtx *cg = calloc(1, sizeof *cg);
    int n_gc = g->n_sub > 1 ? g->n_sub : 1;
    GraphCode *gcs = calloc((size_t)n_gc, sizeof *gcs);
    int rc = 0;
    if (!cg || !gcs) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
    char P[128];
    size_t j = 0;
    for (const char *s = o->prefix; *s && j + 1 < sizeof P; s++) P[j++] = (char)toupper((unsigned char)*s);
    P[j] = '\0';
    cg->prefix = o->prefix;
    cg->weights_file = o->weights_file;
    cg->profile = o->profile;
    cg->blob_bytes = CG_BLOB_ALIGN; /* the header, zeros to the first constant */
    /* gcs[0]: the model (TFLite subgraph 0); gcs[k]: control-flow subgraph k, if compiled. */
    for (int k = 0; k < n_gc && !rc; k++) {
        const Graph *sg = k == 0 ? g : g->sub[k];
        if (sg) rc = graph_code_init(cg, &gcs[k], sg, d);
    }
    if (rc) goto done;

    /* A dry run of the code (nothing formatted) finds the constants the
     * kernels read and gives them blob offsets; they are written before the
     * code, which then streams straight to the file. */
    CgBuf dry = {0};
    dry.discard = 1;
    cg->out = &dry;
    rc = emit_code(cg, gcs, n_gc, o, P, d);
    if (rc) goto done;

    if (o->weights_file && n_gc > 1 && cg_share_blob_constants(cg, gcs, n_gc)) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
    int64_t const_bytes = 0;
    for (int k = 0; k < n_gc; k++)
        for (int i = 0; gcs[k].g && i < gcs[k].g->n_tensors; i++)
            if (gcs[k].const_used[i]) const_bytes += (int64_t)gcs[k].g->tensors[i].data_size;
    rc = cg_check_weights_size(gcs, n_gc, o, o->weights_file ? cg->blob_bytes : const_bytes, d);
    uint64_t hash = 0;
    if (!rc && o->weights_file) rc = cg_write_weights(cg, gcs, n_gc, weights_out, &hash, d);
    if (rc) goto done;

    c.sink = c_out;
    cg->out = &c;
    char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP];
    cgbuf_printf(&c, "/* %s.c - generated by mpcc %s from %s. Do not edit.\n", o->prefix, MPCC_VERSION,
                 txt_comment(sn, sizeof sn, o->source_name));
    cgbuf_printf(&c, " * See %s for the API. Each kernel block below names the TFLite operator\n"
                     " * it implements; kernels are from mpcc's runtime (runtime/kernels). */\n",
                 txt_comment(hn, sizeof hn, o->header_name));
    cgbuf_printf(&c, "#include \"%s\"\n\n#include <string.h>\n\n#include \"mpcc_rt.h\"\n%s\n", o->header_name,
                 g->isa == IR_ISA_ARMV81M ? "#include \"cortex_m/helium/rt_mve.h\" /* runtime/cortex_m and cortex_m/helium: "
                                            "build their .c files too */\n"
                 : ir_isa_is_mcu(g->isa)  ? "#include \"cortex_m/rt_cm.h\" /* runtime/cortex_m: build its .c files too */\n"
                                          : "");
    emit_isa_check(&c, g->isa);
    if (o->profile) emit_profile_helpers(&c, g);
    for (int k = 0; k < n_gc && !o->weights_file; k++) {
        const Graph *sg = gcs[k].g;
        if (!sg) continue;
        use_graph(cg, &gcs[k]);
        for (int i = 0; i < sg->n_tensors; i++) {
            if (!gcs[k].const_used[i]) continue;
            const IrTensor *t = &sg->tensors[i];
            const char *same = cg_same_constant(gcs, k, t);
            if (same) {
                gcs[k].names[i] = same; /* the code below reads the one copy */
                continue;
            }
            char buf[160], qb[128], safe[TXT_COMMENT_CAP];
            if (sg->root) cgbuf_printf(&c, "/* subgraph %d ", sg->tfl_subgraph);
            else cgbuf_printf(&c, "/* ");
            cgbuf_printf(&c, "tensor %d %s %s, %s */\n", i, txt_comment(safe, sizeof safe, t->name),
                         ir_tensor_desc(t, buf, sizeof buf), q_desc(t, qb, sizeof qb));
            emit_const_array(cg, t, gcs[k].names[i]);
            ir_drop_data(sg, t);
        }
    }

    cgbuf_printf(&c, "\nvoid %s_init(void *arena) {\n", o->prefix);
    cgbuf_printf(&c, "    unsigned char *a = (unsigned char *)arena;\n    (void)a;\n");
    use_graph(cg, &gcs[0]);
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        if (!t->is_variable || t->offset < 0) continue;
        int fill = ir_variable_reset_value(t);
        char safe[TXT_COMMENT_CAP];
        if (t->init) {
            /* A resource variable's initial value (CALL_ONCE), embedded even with --weights file:
             * <prefix>_init takes no weights. */
            char name[64];
            snprintf(name, sizeof name, "init%d", i);
            cgbuf_printf(&c, "    {\n");
            cg->depth = 2;
            cg_array_u8(cg, name, t->init, ir_tensor_bytes(t));
            cgbuf_printf(&c, "        memcpy(a + %lld, %s, %lld); /* state %s */\n    }\n", (long long)t->offset, name,
                         (long long)ir_tensor_bytes(t), txt_comment(safe, sizeof safe, t->name));
            continue;
        }
        cgbuf_printf(&c, "    memset(a + %lld, %d, %lld); /* state %s */\n", (long long)t->offset, fill,
                     (long long)ir_tensor_bytes(t), txt_comment(safe, sizeof safe, t->name));
    }
    if (o->profile) cgbuf_printf(&c, "    memset(a + PROF_AT, 0, %lld); /* --profile: no clock yet */\n", (long long)profile_bytes(g));
    cgbuf_printf(&c, "}\n\n");
    if (o->weights_file) {
        cgbuf_printf(&c, "int %s_check_weights(const void *weights, size_t bytes) {\n", o->prefix);
        cgbuf_printf(&c, "    return rt_weights_check(weights, bytes, %s_WEIGHTS_BYTES, %s_WEIGHTS_HASH);\n}\n\n", P, P);
    }
    rc = emit_code(cg, gcs, n_gc, o, P, d);
    cgbuf_flush(&c);
    h.sink = h_out;
    emit_header(&h, g, o, P, cg->blob_bytes, hash);
    cgbuf_flush(&h);
    if (rc) goto done;
    if (c.oom || h.oom) rc = diag_internal(d, "out of memory while emitting C");
    else if (c.io_error || h.io_error || fflush(c_out) != 0 || fflush(h_out) != 0)
        rc = diag_user(d, "writing the generated C failed (disk full?)");
done:
    free(c.s);
    free(h.s);
    for (int k = 0; gcs && k < n_gc; k++)
        if (gcs[k].g) graph_code_free(&gcs[k]);
    free(gcs);
    free(cg);
    return rc;
}
