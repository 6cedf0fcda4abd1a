/* test_text_html.c - txt_html, the escaping of model strings for `mpcc report`.
 *
 * Fixed cases (markup, entities, quotes, controls, bidi, invalid UTF-8, the length cut) and a
 * random sweep: for random byte strings the result holds none of < > " ' and no & that does not
 * start one of the five entities, no control byte, is valid UTF-8, and never exceeds its buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static int failures, passes;

static void check(int ok, const char *what, const char *got) {
    if (ok) passes++;
    else failures++;
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, ok ? "" : ": got ", ok ? "" : got);
}

static void expect(const char *in, const char *want) {
    char out[TXT_HTML_CAP];
    txt_html(out, sizeof out, in, 200);
    char what[160];
    snprintf(what, sizeof what, "txt_html(\"%.40s\") == \"%.60s\"", want, want);
    check(strcmp(out, want) == 0, what, out);
}

static int valid_utf8(const unsigned char *s) {
    while (*s) {
        int n = *s < 0x80 ? 1 : (*s & 0xE0) == 0xC0 ? 2 : (*s & 0xF0) == 0xE0 ? 3 : (*s & 0xF8) == 0xF0 ? 4 : 0;
        if (!n) return 0;
        for (int k = 1; k < n; k++)
            if ((s[k] & 0xC0) != 0x80) return 0;
        s += n;
    }
    return 1;
}

static int safe(const char *s) {
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7F || c == '<' || c == '>' || c == '"' || c == '\'') return 0;
        if (c == '&') {
            int ok = 0;
            for (int k = 0; k < 5; k++) ok |= strncmp(p, ents[k], strlen(ents[k])) == 0;
            if (!ok) return 0;
        }
    }
    return valid_utf8((const unsigned char *)s);
}

int main(void) {
    expect("conv2d/Relu6", "conv2d/Relu6");
    expect("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    expect("a&amp;b", "a&amp;amp;b");
    expect("x=\"1\" y='2'", "x=&quot;1&quot; y=&#39;2&#39;");
    expect("line\nbreak\ttab", "line\\x0abreak\\x09tab");
    expect("\xe2\x80\xae" "evil", "\\xe2\\x80\\xaeevil");     /* RIGHT-TO-LEFT OVERRIDE shown, not obeyed */
    expect("caf\xc3\xa9", "caf\xc3\xa9");                      /* valid UTF-8 kept */
    expect("bad\xff", "bad\\xff");
    char big[600], out[TXT_HTML_CAP];
    memset(big, '<', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    txt_html(out, sizeof out, big, 12);
    check(strncmp(out, "&lt;&lt;&lt;", 12) == 0 && strstr(out, "bytes]") != NULL && safe(out), "cut at 12 with a marker", out);
    char tiny[7];
    txt_html(tiny, sizeof tiny, "<<<<", 200);
    check(strcmp(tiny, "&lt;") == 0, "an entity is never split by the buffer", tiny);
    unsigned seed = 12345u;
    int bad = 0;
    for (int round = 0; round < 20000 && !bad; round++) {
        char in[64];
        int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 63;
        for (int k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            in[k] = (char)(1 + (seed >> 16) % 255);
        }
        in[n] = '\0';
        char o[TXT_HTML_CAP + 8];
        memset(o, 'Z', sizeof o);
        size_t cap = 1 + (seed >> 8) % TXT_HTML_CAP;
        txt_html(o, cap, in, 200);
        if (!safe(o) || strlen(o) >= cap || o[cap] != 'Z') bad = 1;
    }
    check(!bad, "20000 random strings: no markup, controls or invalid UTF-8, within the buffer", "");
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
