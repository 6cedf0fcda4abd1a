/* report_html.c - `mpcc report MODEL -o report.html`: what the compiler made of a model, as one
 * page a browser shows without network or scripts.
 *
 *   1. The graph after the passes: one box per live op (what fusion left), laid out in layers by
 *      the longest path from the inputs, filled by compute precision, outlined by fused group;
 *      kernel class, MACs and output shape/dtype on each box; tensor names as tooltips.
 *   2. The memory plan: each arena buffer a bar from its first to its last op (x) at its offset
 *      (y), the arena size and the peak marked; below it the bytes live at each op (the lower
 *      bound is their maximum) and the constant bytes each op reads.
 *   3. The per-op table of --report, with measured times when --profile-data is given.
 *
 * Every string from the model goes through txt_html. Large graphs stay usable: the SVGs scroll
 * inside their own boxes, and above REPORT_MAX_DRAWN ops only the table and the plan are drawn. */
#include "report_html.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"
#include "text.h"

#define REPORT_MAX_DRAWN 5000 /* ops drawn as boxes; above this the graph section is a note */
#define BOX_W 210
#define BOX_H 74
#define GAP_X 24
#define GAP_Y 40

typedef struct OpInfo {
    int live;          /* ordinal among live ops (x of the memory plan), -1 dead */
    int layer, slot;   /* graph layout */
    int64_t macs, weights, live_bytes;
    double ns;         /* measured time per run, < 0 unknown */
} OpInfo;

static const char *prec_fill(IrDType t) {
    switch (t) {
    case IR_F32: return "#dbeafe";
    case IR_I8: return "#dcfce7";
    case IR_U8: return "#ccfbf1";
    case IR_I16: return "#fef9c3";
    case IR_BF16: return "#ffedd5";
    case IR_F16: return "#fde68a";
    case IR_C64: return "#fce7f3";
    default: return "#f3e8ff";
    }
}

/* A colour per fused group pattern (the names of the ops fusion absorbed), stable across runs. */
static void group_colour(const char *fused, char *out, size_t cap) {
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)fused; *p; p++) h = (h ^ *p) * 16777619u;
    snprintf(out, cap, "hsl(%u,70%%,38%%)", (unsigned)(h % 360));
}

static IrDType op_prec(const Graph *g, const IrOp *op) {
    if (g->prec_assigned) return op->prec;
    if (op->n_in > 0 && op->in[0] >= 0) return g->tensors[op->in[0]].dtype;
    return op->n_out > 0 ? g->tensors[op->out[0]].dtype : IR_F32;
}

static int64_t op_macs(const Graph *g, const IrOp *op) {
    const OpDef *def = op_def(op->kind);
    int64_t m = def && def->macs ? def->macs(g, op) : 0;
    if (op->sched.post_dw >= 0) {
        const OpDef *dw = op_def(OP_DEPTHWISE_CONV_2D);
        m += dw && dw->macs ? dw->macs(g, &g->ops[op->sched.post_dw]) : 0;
    }
    return m;
}

/* Constant bytes the op's kernel reads: its constant inputs, the packed weights and bias in place
 * of the originals when the schedule packed them. */
static int64_t op_weights(const Graph *g, const IrOp *op) {
    int64_t w = 0;
    for (int k = 0; k < op->n_in; k++) {
        int id = op->in[k];
        if (id < 0 || !g->tensors[id].data) continue;
        if ((k == 1 && op->sched.packed_w >= 0) || (k == 2 && op->sched.packed_b >= 0)) continue;
        w += (int64_t)g->tensors[id].data_size;
    }
    if (op->sched.packed_w >= 0) w += (int64_t)g->tensors[op->sched.packed_w].data_size;
    if (op->sched.packed_b >= 0) w += (int64_t)g->tensors[op->sched.packed_b].data_size;
    return w;
}

static const char *human(int64_t v, char *buf, size_t cap) {
    double x = (double)v;
    if (v >= 10000000000LL) snprintf(buf, cap, "%.1fG", x / 1e9);
    else if (v >= 10000000) snprintf(buf, cap, "%.1fM", x / 1e6);
    else if (v >= 10000) snprintf(buf, cap, "%.1fk", x / 1e3);
    else snprintf(buf, cap, "%lld", (long long)v);
    return buf;
}

/* --profile-data: lines "OP<TAB>NS" (op index as in --report, nanoseconds per run); '#' lines are
 * comments. Returns 0, or a user error naming the file and line. */
static int read_profile(const Graph *g, const char *path, OpInfo *info, Diag *d) {
    FILE *f = fopen(path, "r");
    char safe[TXT_TERMINAL_CAP];
    if (!f) return diag_user(d, "--profile-data %s: %s", txt_terminal(safe, sizeof safe, path, 200), strerror(errno));
    char line[512];
    int rc = 0, lineno = 0, n = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char *end;
        long op = strtol(line, &end, 10);
        double ns = end != line && *end == '\t' ? strtod(end + 1, &end) : -1;
        if (end == line || ns < 0 || !isfinite(ns) || (*end != '\n' && *end != '\0' && *end != '\t'))
            rc = diag_user(d, "--profile-data %s, line %d: expected 'OP<TAB>NANOSECONDS'",
                           txt_terminal(safe, sizeof safe, path, 200), lineno);
        else if (op < 0 || op >= g->n_ops || g->ops[op].dead)
            rc = diag_user(d, "--profile-data %s, line %d: op %ld is not a live op of this compilation (%d ops; "
                              "profile and report with the same options)",
                           txt_terminal(safe, sizeof safe, path, 200), lineno, op, g->n_ops);
        else info[op].ns = ns, n++;
    }
    fclose(f);
    if (!rc && n == 0)
        rc = diag_user(d, "--profile-data %s: no op times in it", txt_terminal(safe, sizeof safe, path, 200));
    return rc;
}

static void page_head(FILE *f, const char *title) {
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
               "<title>mpcc report: %s</title>\n<style>\n"
               "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#111}\n"
               "h1{font-size:20px}h2{font-size:17px;margin-top:28px}\n"
               ".scroll{overflow:auto;max-height:900px;border:1px solid #ccc;background:#fafafa}\n"
               ".box text{font:11px monospace}.box .t{font-weight:bold;font-size:12px}\n"
               "table{border-collapse:collapse;font:12px monospace}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}\n"
               "td.l,th.l{text-align:left}tr.peak{background:#fee2e2}\n"
               ".key span{display:inline-block;padding:1px 8px;margin:2px;border:2px solid #999}\n"
               ".sum td{border:none;padding:1px 10px 1px 0;text-align:left}\n"
               "</style></head><body>\n",
            title);
}

static void summary(FILE *f, const Graph *g, const ReportOptions *o, const OpInfo *info, int peak_op, int n_live,
                    int n_fused, int64_t weights, double total_ns) {
    char m[TXT_HTML_CAP], opt[TXT_HTML_CAP], b1[32];
    int64_t macs = 0;
    for (int i = 0; i < g->n_ops; i++) macs += info[i].live >= 0 ? info[i].macs : 0;
    fprintf(f, "<h1>mpcc report: %s</h1>\n<table class=\"sum\">\n", txt_html(m, sizeof m, o->model, 200));
    fprintf(f, "<tr><td>options</td><td>%s</td></tr>\n", txt_html(opt, sizeof opt, o->options, 200));
    fprintf(f, "<tr><td>ops</td><td>%d after the passes (%d fused groups), %lld MACs</td></tr>\n", n_live, n_fused,
            (long long)macs);
    fprintf(f, "<tr><td>arena</td><td id=\"arena\">%lld bytes (state %lld), lower bound %lld bytes</td></tr>\n",
            (long long)g->arena_bytes, (long long)g->state_bytes, (long long)g->arena_lower_bound);
    if (peak_op >= 0)
        fprintf(f, "<tr><td>peak</td><td id=\"peak\">Peak: %lld bytes live at op %d (TFLite operator #%d, %s)</td></tr>\n",
                (long long)info[peak_op].live_bytes, peak_op, g->ops[peak_op].tfl_index, ir_op_name(g->ops[peak_op].kind));
    else fprintf(f, "<tr><td>peak</td><td id=\"peak\">Peak: no activation buffers</td></tr>\n");
    if (g->patch_report) { /* pass patch's line, without its newline */
        char line[400], pr[1024];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(g->patch_report, "\n"), g->patch_report);
        fprintf(f, "<tr><td>patch</td><td id=\"patch\">%s</td></tr>\n", txt_html(pr, sizeof pr, line, 400));
    }
    fprintf(f, "<tr><td>weights</td><td>%lld bytes read by the kernels (%s)</td></tr>\n", (long long)weights,
            human(weights, b1, sizeof b1));
    if (total_ns >= 0)
        fprintf(f, "<tr><td>measured</td><td>%.1f &micro;s per run, the sum of the ops' times (--profile-data)</td></tr>\n",
                total_ns / 1e3);
    fprintf(f, "</table>\n");
}

/* Where layer L, slot S goes: a deep, narrow graph (a chain of convolutions) wraps its layers
 * into side-by-side columns, so the page shows it in a few screens instead of one long strip. */
typedef struct Layout {
    int col_w, per_col;
} Layout;
static int box_x(const Layout *l, int layer, int slot) { return GAP_X + layer / l->per_col * l->col_w + slot * (BOX_W + GAP_X); }
static int box_y(const Layout *l, int layer) { return GAP_Y / 2 + layer % l->per_col * (BOX_H + GAP_Y); }

/* The graph as boxes in layers. Inputs sit in layer 0. */
static void graph_svg(FILE *f, const Graph *g, OpInfo *info, const int *prod) {
    int n_layers = 1, max_slots = g->n_inputs;
    int *count = calloc((size_t)g->n_ops + 2, sizeof(int));
    if (!count) return;
    count[0] = g->n_inputs;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (info[i].live < 0) continue;
        int layer = 1;
        for (int k = 0; k < op->n_in; k++) {
            int id = op->in[k];
            if (id >= 0 && prod[id] >= 0 && info[prod[id]].layer + 1 > layer) layer = info[prod[id]].layer + 1;
        }
        info[i].layer = layer;
        info[i].slot = count[layer]++;
        if (count[layer] > max_slots) max_slots = count[layer];
        if (layer + 1 > n_layers) n_layers = layer + 1;
    }
    Layout lay = {max_slots * (BOX_W + GAP_X) + GAP_X, n_layers};
    int cols = 1900 / lay.col_w;
    if (cols > (n_layers + 5) / 6) cols = (n_layers + 5) / 6;
    if (cols < 1) cols = 1;
    lay.per_col = (n_layers + cols - 1) / cols;
    int w = cols * lay.col_w + GAP_X, h = lay.per_col * (BOX_H + GAP_Y) + GAP_Y;
    fprintf(f, "<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", w, h);
    fprintf(f, "<defs><marker id=\"arr\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"6\" markerHeight=\"6\" "
               "orient=\"auto\"><path d=\"M0,0L8,4L0,8z\" fill=\"#666\"/></marker></defs>\n");
#define BX(layer, slot) box_x(&lay, layer, slot)
#define BY(layer) box_y(&lay, layer)
    char name[TXT_HTML_CAP], full[TXT_HTML_CAP], desc[160];
    /* edges first, under the boxes */
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (info[i].live < 0) continue;
        for (int k = 0; k < op->n_in; k++) {
            int id = op->in[k], x0, y0;
            if (id < 0 || g->tensors[id].data) continue;
            if (prod[id] >= 0) {
                x0 = BX(info[prod[id]].layer, info[prod[id]].slot) + BOX_W / 2;
                y0 = BY(info[prod[id]].layer) + BOX_H;
            } else {
                int s = -1;
                for (int q = 0; q < g->n_inputs; q++)
                    if (g->inputs[q] == id) s = q;
                if (s < 0) continue;
                x0 = BX(0, s) + BOX_W / 2;
                y0 = BY(0) + BOX_H;
            }
            int x1 = BX(info[i].layer, info[i].slot) + BOX_W / 2, y1 = BY(info[i].layer);
            fprintf(f, "<path d=\"M%d,%dC%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"#888\" marker-end=\"url(#arr)\">"
                       "<title>%s %s</title></path>\n",
                    x0, y0, x0, y0 + GAP_Y, x1, y1 - GAP_Y, x1, y1, txt_html(name, sizeof name, g->tensors[id].name, 120),
                    ir_tensor_desc(&g->tensors[id], desc, sizeof desc));
        }
    }
    for (int s = 0; s < g->n_inputs; s++) {
        const IrTensor *t = &g->tensors[g->inputs[s]];
        fprintf(f, "<g class=\"box\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"12\" fill=\"#fff\" "
                   "stroke=\"#333\"/><text class=\"t\" x=\"%d\" y=\"%d\">input %d</text>"
                   "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" y=\"%d\">%s</text><title>%s</title></g>\n",
                BX(0, s), BY(0), BOX_W, BOX_H, BX(0, s) + 8, BY(0) + 18, s, BX(0, s) + 8, BY(0) + 36,
                ir_tensor_desc(t, desc, sizeof desc), BX(0, s) + 8, BY(0) + 54,
                txt_html(name, sizeof name, g->input_names[s], 12), txt_html(full, sizeof full, g->input_names[s], 200));
    }
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (info[i].live < 0) continue;
        int x = BX(info[i].layer, info[i].slot), y = BY(info[i].layer);
        char stroke[48] = "#777", m[32], fused[TXT_HTML_CAP];
        if (op->fused[0]) group_colour(op->fused, stroke, sizeof stroke);
        const IrTensor *out = op->n_out > 0 ? &g->tensors[op->out[0]] : NULL;
        fprintf(f, "<g class=\"box\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" "
                   "stroke=\"%s\" stroke-width=\"%d\"/>",
                x, y, BOX_W, BOX_H, prec_fill(op_prec(g, op)), stroke, op->fused[0] ? 4 : 1);
        fprintf(f, "<text class=\"t\" x=\"%d\" y=\"%d\">%d %s</text>", x + 8, y + 16, i, ir_op_name(op->kind));
        fprintf(f, "<text x=\"%d\" y=\"%d\">%s %s %s MACs</text>", x + 8, y + 32, ir_sched_name(op->sched.kind),
                ir_dtype_name(op_prec(g, op)), human(info[i].macs, m, sizeof m));
        if (out) fprintf(f, "<text x=\"%d\" y=\"%d\">&#8594; %.30s</text>", x + 8, y + 48, ir_tensor_desc(out, desc, sizeof desc));
        if (op->fused[0]) fprintf(f, "<text x=\"%d\" y=\"%d\">+ %s</text>", x + 8, y + 64, txt_html(fused, sizeof fused, op->fused, 12));
        fprintf(f, "<title>op %d, TFLite operator #%d %s%s%s%s", i, op->tfl_index, ir_op_name(op->kind),
                op->fused[0] ? " (fused: " : "", op->fused[0] ? txt_html(fused, sizeof fused, op->fused, 200) : "",
                op->fused[0] ? ")" : "");
        if (out) fprintf(f, "\nout: %s %s", txt_html(name, sizeof name, out->name, 200), ir_tensor_desc(out, desc, sizeof desc));
        if (info[i].ns >= 0) fprintf(f, "\n%.2f us per run", info[i].ns / 1e3);
        fprintf(f, "</title></g>\n");
    }
#undef BX
#undef BY
    fprintf(f, "</svg></div>\n");
    free(count);
}

static void graph_key(FILE *f, const Graph *g, const OpInfo *info) {
    static const IrDType dts[] = {IR_F32, IR_I8, IR_U8, IR_I16, IR_BF16, IR_F16, IR_I32, IR_C64};
    int seen[IR_DTYPE_COUNT] = {0};
    for (int i = 0; i < g->n_ops; i++)
        if (info[i].live >= 0) seen[op_prec(g, &g->ops[i])] = 1;
    fprintf(f, "<p class=\"key\">Fill = compute precision: ");
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        if (seen[dts[k]] || (dts[k] == IR_I32 && (seen[IR_I64] || seen[IR_BOOL] || seen[IR_I32])))
            fprintf(f, "<span style=\"background:%s\">%s</span>", prec_fill(dts[k]),
                    dts[k] == IR_I32 ? "int32/int64/bool" : ir_dtype_name(dts[k]));
    fprintf(f, "<br>Thick outline = a fused group (one kernel running several TFLite operators), one colour per "
               "pattern of fused ops:");
    /* each distinct pattern once, with its count */
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (info[i].live < 0 || !op->fused[0]) continue;
        int first = 1, count = 0;
        for (int j = 0; j < g->n_ops; j++) {
            if (info[j].live < 0 || strcmp(g->ops[j].fused, op->fused) || g->ops[j].kind != op->kind) continue;
            if (j < i) first = 0;
            count++;
        }
        if (!first) continue;
        char c[48], fused[TXT_HTML_CAP];
        group_colour(op->fused, c, sizeof c);
        fprintf(f, " <span style=\"border-color:%s\">%s + %s &times;%d</span>", c, ir_op_name(op->kind),
                txt_html(fused, sizeof fused, op->fused, 120), count);
    }
    fprintf(f, "</p>\n");
}

/* x: live-op ordinal; the plan's lifetimes are in op indices, dead ops take no width. */
static void plan_svg(FILE *f, const Graph *g, const OpInfo *info, const PlanBuffer *b, int nb, int n_live, int peak_op) {
    const int left = 90, plot_h = 380, live_h = 140, wts_h = 90, gap = 36;
    double sx = n_live > 0 ? (n_live * 6.0 < 900 ? 900.0 / n_live : 6.0) : 1;
    int width = left + (int)(sx * n_live) + 40, height = plot_h + live_h + wts_h + 3 * gap + 20;
    int64_t top = g->arena_bytes > 0 ? g->arena_bytes : 1, live_max = 1, w_max = 1;
    for (int i = 0; i < g->n_ops; i++) {
        if (info[i].live < 0) continue;
        if (info[i].live_bytes > live_max) live_max = info[i].live_bytes;
        if (info[i].weights > w_max) w_max = info[i].weights;
    }
    if (g->arena_lower_bound > live_max) live_max = g->arena_lower_bound;
    double sy = plot_h / (double)top;
    fprintf(f, "<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"monospace\" font-size=\"11\">\n", width, height);
    int y0 = gap;
    fprintf(f, "<text x=\"4\" y=\"%d\">arena offset</text>", y0 - 8);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#999\"/>\n", left, y0,
            (int)(sx * n_live), plot_h);
    if (g->state_bytes)
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#e5e7eb\"><title>state, %lld bytes</title></rect>\n",
                left, y0 + plot_h - g->state_bytes * sy, (int)(sx * n_live), g->state_bytes * sy, (long long)g->state_bytes);
    char name[TXT_HTML_CAP], desc[160];
    for (int i = 0; i < nb; i++) {
        int a = info[b[i].first].live, z = info[b[i].last].live;
        if (a < 0 || z < 0) continue;
        double x = left + a * sx, w = (z - a + 1) * sx, y = y0 + plot_h - (double)(b[i].offset + b[i].size) * sy;
        double hh = b[i].size * sy < 0.5 ? 0.5 : b[i].size * sy;
        const char *fill = b[i].tensor >= 0 ? prec_fill(g->tensors[b[i].tensor].dtype) : "#e5e7eb";
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#334\" "
                   "stroke-width=\"0.5\"><title>",
                x, y, w, hh, fill);
        if (b[i].tensor >= 0)
            fprintf(f, "%s %s", txt_html(name, sizeof name, g->tensors[b[i].tensor].name, 120),
                    ir_tensor_desc(&g->tensors[b[i].tensor], desc, sizeof desc));
        else fprintf(f, "scratch of op %d (%s)", b[i].op, ir_op_name(g->ops[b[i].op].kind));
        fprintf(f, ": %lld bytes at offset %lld, ops %d..%d</title></rect>\n", (long long)b[i].size,
                (long long)b[i].offset, b[i].first, b[i].last);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#dc2626\" stroke-width=\"2\"/>"
               "<text x=\"%d\" y=\"%d\" fill=\"#dc2626\">arena %lld</text>\n",
            left - 6, y0, left + (int)(sx * n_live), y0, 2, y0 + 4, (long long)g->arena_bytes);
    fprintf(f, "<text x=\"%d\" y=\"%d\">0</text>\n", left - 14, y0 + plot_h);
    if (peak_op >= 0) {
        double px = left + (info[peak_op].live + 0.5) * sx;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dc2626\" stroke-dasharray=\"4 3\"/>"
                   "<text x=\"%.1f\" y=\"%d\" fill=\"#dc2626\">peak: op %d, %lld bytes live</text>\n",
                px, y0, px, y0 + plot_h + gap + live_h, px + 4, y0 + 14, peak_op, (long long)info[peak_op].live_bytes);
    }
    /* bytes live at each op; its maximum is the lower bound */
    int y1 = y0 + plot_h + gap;
    double ly = live_h / (double)live_max;
    fprintf(f, "<text x=\"4\" y=\"%d\">live bytes</text>", y1 - 8);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#999\"/>\n<path d=\"", left, y1,
            (int)(sx * n_live), live_h);
    for (int i = 0, first = 1; i < g->n_ops; i++) {
        if (info[i].live < 0) continue;
        double yy = y1 + live_h - info[i].live_bytes * ly;
        fprintf(f, first ? "M%.1f,%.1fH%.1f" : "V%.1fH%.1f", first ? left + info[i].live * sx : yy,
                first ? yy : left + (info[i].live + 1) * sx, left + (info[i].live + 1) * sx);
        first = 0;
    }
    fprintf(f, "\" fill=\"none\" stroke=\"#2563eb\" stroke-width=\"1.5\"/>\n");
    double by = y1 + live_h - g->arena_lower_bound * ly;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#2563eb\" stroke-dasharray=\"2 2\"/>"
               "<text x=\"%d\" y=\"%.1f\" fill=\"#2563eb\">lower bound %lld</text>\n",
            left, by, left + (int)(sx * n_live), by, left + 4, by - 3, (long long)g->arena_lower_bound);
    /* constant bytes read per op */
    int y2 = y1 + live_h + gap;
    double wy = wts_h / (double)w_max;
    fprintf(f, "<text x=\"4\" y=\"%d\">weights bytes per op (max %lld)</text>", y2 - 8, (long long)w_max);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#999\"/>\n", left, y2,
            (int)(sx * n_live), wts_h);
    for (int i = 0; i < g->n_ops; i++) {
        if (info[i].live < 0 || !info[i].weights) continue;
        double hh = info[i].weights * wy;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#9333ea\"><title>op %d: %lld bytes"
                   "</title></rect>\n",
                left + info[i].live * sx, y2 + wts_h - hh, sx, hh, i, (long long)info[i].weights);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">op (execution order) &#8594;</text>\n", left, y2 + wts_h + 16);
    fprintf(f, "</svg></div>\n");
}

static void op_table(FILE *f, const Graph *g, const OpInfo *info, int peak_op, double total_ns) {
    char name[TXT_HTML_CAP], desc[160], fused[TXT_HTML_CAP];
    fprintf(f, "<table><tr><th>op</th><th>TFLite #</th><th class=\"l\">operator</th><th class=\"l\">fused</th>"
               "<th class=\"l\">kernel</th><th>precision</th><th>MACs</th><th class=\"l\">output</th><th>weights B</th>"
               "<th>scratch B</th><th>live B</th>%s</tr>\n",
            total_ns >= 0 ? "<th>&micro;s</th><th>share</th>" : "");
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (info[i].live < 0) continue;
        const IrTensor *out = op->n_out > 0 ? &g->tensors[op->out[0]] : NULL;
        fprintf(f, "<tr%s><td>%d</td><td>%d</td><td class=\"l\">%s%s%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td>"
                   "<td>%s</td><td>%lld</td><td class=\"l\">%s %s</td><td>%lld</td><td>%lld</td><td>%lld</td>",
                i == peak_op ? " class=\"peak\"" : "", i, op->tfl_index, ir_op_name(op->kind),
                op->elided ? " (in place)" : "", op->float_rq ? " (float requant)" : "",
                txt_html(fused, sizeof fused, op->fused, 200), ir_sched_name(op->sched.kind),
                ir_dtype_name(op_prec(g, op)), (long long)info[i].macs,
                out ? txt_html(name, sizeof name, out->name, 60) : "", out ? ir_tensor_desc(out, desc, sizeof desc) : "",
                (long long)info[i].weights, (long long)op->scratch_bytes, (long long)info[i].live_bytes);
        if (total_ns >= 0) {
            if (info[i].ns >= 0)
                fprintf(f, "<td>%.2f</td><td>%.1f%%</td>", info[i].ns / 1e3, total_ns > 0 ? 100 * info[i].ns / total_ns : 0);
            else fprintf(f, "<td></td><td></td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

int report_html(const Graph *g, const ReportOptions *o, FILE *f, Diag *d) {
    OpInfo *info = calloc((size_t)g->n_ops + 1, sizeof *info);
    int *prod = malloc(sizeof(int) * ((size_t)g->n_tensors + 1));
    PlanBuffer *b = NULL;
    int nb = plan_buffers(g, &b), rc = 0;
    int64_t *live = calloc((size_t)g->n_ops + 1, sizeof(int64_t));
    if (!info || !prod || nb < 0 || !live || plan_live_bytes(g, 1, live) < 0) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
    int n_live = 0, n_fused = 0;
    int64_t weights = 0;
    for (int t = 0; t < g->n_tensors; t++) prod[t] = -1;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        info[i].live = op->dead ? -1 : n_live++;
        info[i].ns = -1;
        if (op->dead) continue;
        n_fused += op->fused[0] != 0;
        info[i].macs = op_macs(g, op);
        info[i].weights = op_weights(g, op);
        weights += info[i].weights;
        for (int k = 0; k < op->n_out; k++)
            if (op->out[k] >= 0 && prod[op->out[k]] < 0) prod[op->out[k]] = i;
    }
    int peak_op = -1;
    for (int i = 0; i < g->n_ops; i++) {
        info[i].live_bytes = live[i] + g->state_bytes;
        if (info[i].live >= 0 && nb > 0 && (peak_op < 0 || info[i].live_bytes > info[peak_op].live_bytes)) peak_op = i;
    }
    double total_ns = -1;
    if (o->profile_path) {
        rc = read_profile(g, o->profile_path, info, d);
        if (rc) goto done;
        total_ns = 0;
        for (int i = 0; i < g->n_ops; i++) total_ns += info[i].ns > 0 ? info[i].ns : 0;
    }
    char title[TXT_HTML_CAP];
    page_head(f, txt_html(title, sizeof title, o->model, 120));
    summary(f, g, o, info, peak_op, n_live, n_fused, weights, total_ns);
    fprintf(f, "<h2>Graph after the passes</h2>\n");
    if (n_live <= REPORT_MAX_DRAWN) {
        graph_key(f, g, info);
        graph_svg(f, g, info, prod);
    } else {
        fprintf(f, "<p>%d ops: more than %d, not drawn (the memory plan and the table below cover every op).</p>\n",
                n_live, REPORT_MAX_DRAWN);
    }
    fprintf(f, "<h2>Memory plan</h2>\n<p>Each bar is an arena buffer (a tensor, or an op's scratch in grey): from its "
               "first to its last op, at its offset. The red line is the arena size, the dashed one the op where the "
               "most bytes are live (the peak); below, the bytes live at each op (their maximum is the lower bound no "
               "plan can beat) and the constant bytes each op reads.</p>\n");
    plan_svg(f, g, info, b, nb, n_live, peak_op);
    fprintf(f, "<h2>Ops</h2>\n<p>The kernel each op runs (as <code>--report</code> prints it); the peak op's row is "
               "red.%s</p>\n",
            total_ns >= 0 ? " Times are from --profile-data." : "");
    op_table(f, g, info, peak_op, total_ns);
    fprintf(f, "<p>Generated by mpcc %s.</p>\n</body></html>\n", MPCC_VERSION);
    if (ferror(f)) rc = diag_user(d, "writing the report failed (disk full?)");
done:
    free(info);
    free(prod);
    free(b);
    free(live);
    return rc;
}
