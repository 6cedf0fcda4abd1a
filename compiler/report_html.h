/* report_html.h - `mpcc report`: the compiled graph, its memory plan and the per-op table as
 * one self-contained HTML page (inline CSS and SVG; no scripts, no network). */
#ifndef MPCC_REPORT_HTML_H
#define MPCC_REPORT_HTML_H

#include <stdio.h>

#include "diag.h"
#include "ir.h"

typedef struct ReportOptions {
    const char *model;         /* model file name as given (escaped before it is written) */
    const char *options;       /* the compile options, one string (escaped too) */
    const char *profile_path;  /* --profile-data FILE (tools/bench/profile.py --write), or NULL */
} ReportOptions;

/* Writes the page for the compiled graph g (after plan_memory) to f. A user error when the
 * profile data cannot be read or names ops the graph does not have. */
int report_html(const Graph *g, const ReportOptions *o, FILE *f, Diag *d);

#endif
