/* diag.c - error accumulation (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

void diag_init(Diag *d) {
    d->kind = DIAG_OK;
    d->count = 0;
    d->dropped = 0;
    d->kept = 0;
    d->msg[0] = '\0';
}

/* Room kept at the end of msg for the "... and N more" line. */
enum { DIAG_TAIL = 32 };

/* msg = the kept lines, then (when some were dropped) "... and N more". */
static void diag_tail(Diag *d) {
    d->msg[d->kept] = '\0';
    if (d->dropped > 0)
        snprintf(d->msg + d->kept, sizeof d->msg - (size_t)d->kept, "%s... and %d more", d->kept ? "\n" : "",
                 d->dropped);
}

/* Keeps `line` whole after the kept lines, or counts it as dropped. */
static void diag_add_line(Diag *d, const char *prefix, const char *line) {
    size_t need = (d->kept ? 1 : 0) + strlen(prefix) + strlen(line);
    if ((size_t)d->kept + need + DIAG_TAIL >= sizeof d->msg) {
        d->dropped++;
    } else {
        snprintf(d->msg + d->kept, sizeof d->msg - (size_t)d->kept, "%s%s%s", d->kept ? "\n" : "", prefix, line);
        d->kept += (int)need;
    }
    diag_tail(d);
}

static void diag_append(Diag *d, const char *prefix, const char *fmt, va_list ap) {
    /* A message carries model strings (tensor and op names): each is one
     * terminal-safe line, whatever bytes the model holds. */
    char raw[2048], line[1200];
    vsnprintf(raw, sizeof raw, fmt, ap);
    txt_terminal(line, sizeof line, raw, 1024);
    diag_add_line(d, prefix, line);
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
    const char *p = src->msg, *stop = src->msg + src->kept;
    while (p < stop) {
        const char *e = memchr(p, '\n', (size_t)(stop - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(stop - p);
        /* src's lines are terminal-safe already; only the prefix is added. */
        char line[sizeof src->msg];
        memcpy(line, p, n);
        line[n] = '\0';
        diag_add_line(d, prefix, line);
        p += n + (e ? 1 : 0);
    }
    d->dropped += src->dropped;
    diag_tail(d);
    d->count += src->count;
    if (src->kind > d->kind) d->kind = src->kind;
    return d->kind;
}
