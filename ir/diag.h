/* diag.h - errors as values.
 *
 * Every fallible function returns an int status (0 = ok) and fills a Diag.
 * User errors (bad model, unsupported op, wrong input) and internal errors
 * (a bug in mpcc) are kept apart so the CLI can exit 1 or 2.
 * Library code never calls exit() or abort().
 */
#ifndef MPCC_DIAG_H
#define MPCC_DIAG_H

#include <stdarg.h>

enum { DIAG_OK = 0, DIAG_USER = 1, DIAG_INTERNAL = 2 };

typedef struct Diag {
    int kind;          /* DIAG_OK, DIAG_USER or DIAG_INTERNAL */
    int count;         /* number of messages appended */
    int dropped;       /* messages that did not fit in msg (whole lines are kept or dropped) */
    int kept;          /* length of msg's kept lines; when dropped > 0, msg ends with the line
                        * "... and N more" after them */
    char msg[4096];    /* newline-separated messages, most important first */
} Diag;

void diag_init(Diag *d);
/* Append a user error; returns DIAG_USER so callers can `return diag_user(...)`. */
int diag_user(Diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Internal error with the source location; use the diag_internal macro. */
int diag_internal_at(Diag *d, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define diag_internal(d, ...) diag_internal_at((d), __FILE__, __LINE__, __VA_ARGS__)
int diag_vuser(Diag *d, const char *fmt, va_list ap);
/* Appends every message of src to d, each line prefixed (e.g. "subgraph 2: "),
 * and takes over src's kind and count. Returns d->kind. */
int diag_merge(Diag *d, const Diag *src, const char *prefix);

#endif
