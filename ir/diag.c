/* diag.c - error accumulation (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

void diag_init(Diag *d) {
    d->kind = DIAG_OK;
    d->count = 0;
    d->msg[0] = '\0';
}

static void diag_append(Diag *d, const char *prefix, const char *fmt, va_list ap) {
    size_t len = strlen(d->msg);
    if (len + 2 >= sizeof d->msg) return;
    if (len > 0) d->msg[len++] = '\n';
    int n = snprintf(d->msg + len, sizeof d->msg - len, "%s", prefix);
    if (n > 0) len += (size_t)n;
    /* A message carries model strings (tensor and op names): each is one
     * terminal-safe line, whatever bytes the model holds. */
    char raw[2048];
    vsnprintf(raw, sizeof raw, fmt, ap);
    if (len < sizeof d->msg) txt_terminal(d->msg + len, sizeof d->msg - len, raw, 1024);
    d->count++;
}

int diag_vuser(Diag *d, const char *fmt, va_list ap) {
    diag_append(d, "", fmt, ap);
    if (d->kind != DIAG_INTERNAL) d->kind = DIAG_USER;
    return DIAG_USER;
}

int diag_user(Diag *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vuser(d, fmt, ap);
    va_end(ap);
    return DIAG_USER;
}

int diag_internal_at(Diag *d, const char *file, int line, const char *fmt, ...) {
    char prefix[256];
    snprintf(prefix, sizeof prefix, "internal error (%s:%d): ", file, line);
    va_list ap;
    va_start(ap, fmt);
    diag_append(d, prefix, fmt, ap);
    va_end(ap);
    d->kind = DIAG_INTERNAL;
    return DIAG_INTERNAL;
}

int diag_merge(Diag *d, const Diag *src, const char *prefix) {
    const char *p = src->msg;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t len = strlen(d->msg);
        /* src's lines are terminal-safe already; only the prefix is added. */
        if (len + 2 < sizeof d->msg)
            snprintf(d->msg + len, sizeof d->msg - len, "%s%s%.*s", len ? "\n" : "", prefix, (int)n, p);
        p += n + (e ? 1 : 0);
    }
    d->count += src->count;
    if (src->kind > d->kind) d->kind = src->kind;
    return d->kind;
}
