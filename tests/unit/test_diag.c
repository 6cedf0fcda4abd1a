/* test_diag.c - Diag keeps whole messages and counts the ones that did not fit
 * ("... and N more"), in diag_user and in diag_merge. */
#include <stdio.h>
#include <string.h>

#include "diag.h"

static int failures, passes;

static void check(int ok, const char *what, const char *detail) {
    if (ok) passes++;
    else failures++;
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail[0] ? ": " : "", detail);
}

/* Every line of msg is either "<prefix>message K: xxxx..." complete (the
 * filler intact up to its end marker) or the final "... and N more". */
static int lines_whole(const char *msg, const char *prefix, int *n_lines, int *more) {
    *n_lines = 0;
    *more = -1;
    const char *p = msg;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[4096];
        memcpy(line, p, n);
        line[n] = '\0';
        if (sscanf(line, "... and %d more", more) == 1) {
            if (e) return 0; /* the count must be the last line */
        } else {
            size_t lp = strlen(prefix);
            if (strncmp(line, prefix, lp) != 0 || strncmp(line + lp, "message ", 8) != 0) return 0;
            if (n < 4 || strcmp(line + n - 4, "|end") != 0) return 0;
            (*n_lines)++;
        }
        p += n + (e ? 1 : 0);
    }
    return 1;
}

static void fill(Diag *d, int n) {
    char filler[101];
    memset(filler, 'x', 100);
    filler[100] = '\0';
    for (int i = 0; i < n; i++) diag_user(d, "message %d: %s|end", i, filler);
}

int main(void) {
    char detail[256];
    int lines, more;

    Diag d;
    diag_init(&d);
    fill(&d, 5);
    int ok = lines_whole(d.msg, "", &lines, &more);
    snprintf(detail, sizeof detail, "%d lines, more %d", lines, more);
    check(ok && lines == 5 && more == -1 && d.count == 5, "diag: 5 short messages all kept, no count line", detail);

    diag_init(&d);
    fill(&d, 200);
    ok = lines_whole(d.msg, "", &lines, &more);
    snprintf(detail, sizeof detail, "%d lines kept, '... and %d more', %d counted", lines, more, d.count);
    check(ok && lines > 10 && lines + more == 200 && d.count == 200,
          "diag: 200 messages: whole lines kept, the rest counted as '... and N more'", detail);

    Diag m;
    diag_init(&m);
    diag_user(&m, "message first: |end");
    diag_merge(&m, &d, "subgraph 1: ");
    int first_ok = strncmp(m.msg, "message first: |end\n", 20) == 0;
    /* Every line after the first carries the prefix. */
    ok = lines_whole(strchr(m.msg, '\n') + 1, "subgraph 1: ", &lines, &more);
    snprintf(detail, sizeof detail, "%d merged lines kept, '... and %d more'", lines, more);
    check(first_ok && ok && lines + more == 200 && m.count == 201,
          "diag_merge: whole prefixed lines, and the merged and dropped counts add up", detail);

    diag_init(&d);
    char huge[3000];
    memset(huge, 'y', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    for (int i = 0; i < 10; i++) diag_user(&d, "%s", huge);
    snprintf(detail, sizeof detail, "%zu bytes", strlen(d.msg));
    check(strlen(d.msg) < sizeof d.msg && strstr(d.msg, "more") != NULL,
          "diag: long messages stay within the buffer and end with the count", detail);

    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
