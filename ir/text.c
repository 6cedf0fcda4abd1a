/* text.c - escaping of untrusted model strings (see text.h). */
#include "text.h"

#include <stdio.h>
#include <string.h>

typedef struct Out {
    char *p;
    size_t len, cap;
    int full;
} Out;

/* Appends a whole piece or nothing, so an escape is never cut in half. */
static void put(Out *o, const char *s, size_t n) {
    if (o->full || o->len + n + 1 > o->cap) {
        o->full = 1;
        return;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void put_hex(Out *o, unsigned char c) {
    char e[8];
    snprintf(e, sizeof e, "\\x%02x", c);
    put(o, e, 4);
}

static void put_cut_marker(Out *o, size_t left) {
    char m[48];
    int n = snprintf(m, sizeof m, "...[+%zu bytes]", left);
    o->full = 0; /* the marker itself always fits: the caps reserve room for it */
    put(o, m, (size_t)n);
}

static Out out_init(char *dst, size_t cap) {
    Out o = {dst, 0, cap, 0};
    if (cap) dst[0] = '\0';
    return o;
}

const char *txt_comment(char *dst, size_t cap, const char *s) {
    Out o = out_init(dst, cap);
    if (!cap) return dst;
    size_t n = strlen(s), i;
    size_t stop = n > TXT_COMMENT_MAX ? TXT_COMMENT_MAX : n;
    for (i = 0; i < stop && !o.full; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        if (c < 0x20 || c >= 0x7F) put_hex(&o, c);
        else if (c == '\\') put(&o, "\\\\", 2);
        else if (c == '*' && next == '/') put(&o, "*\\", 2);   /* "*\/": never closes the comment */
        else if (c == '/' && next == '*') put(&o, "/\\", 2);   /* "/\*": never opens one */
        else if (c == '?' && next == '?') put(&o, "?\\", 2);   /* no trigraph can form */
        else put(&o, (const char *)&c, 1);
    }
    /* A trailing '/' or '*' could join the comment's own delimiter: escape it. */
    if (!o.full && o.len > 0 && (o.p[o.len - 1] == '/' || o.p[o.len - 1] == '*')) put(&o, "\\", 1);
    if (i < n && o.cap >= 32) {
        while (o.len + 24 > o.cap && o.len > 0) o.len--; /* room for the marker */
        /* Do not leave half an escape behind when backing off. */
        while (o.len > 0 && o.p[o.len - 1] == '\\') o.len--;
        o.p[o.len] = '\0';
        put_cut_marker(&o, n - i);
    }
    return dst;
}

const char *txt_c_string(char *dst, size_t cap, const char *s) {
    Out o = out_init(dst, cap);
    if (cap < 3) return dst;
    o.cap = cap - 4; /* keep room for '..."' after a cut */
    put(&o, "\"", 1);
    size_t n = strlen(s), i;
    for (i = 0; i < n && i < TXT_LITERAL_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[8];
        size_t before = o.len;
        if (c == '"' || c == '\\' || c == '?') {
            e[0] = '\\';
            e[1] = (char)c;
            put(&o, e, 2);
        } else if (c < 0x20 || c >= 0x7F) {
            /* Always three octal digits, so a following digit cannot extend it. */
            snprintf(e, sizeof e, "\\%03o", c);
            put(&o, e, 4);
        } else {
            put(&o, (const char *)&c, 1);
        }
        if (o.full) {
            o.len = before;
            o.p[o.len] = '\0';
            break;
        }
    }
    o.cap = cap;
    o.full = 0;
    if (i < n) put(&o, "...", 3);
    put(&o, "\"", 1);
    return dst;
}

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid;
 * *cp receives the code point. */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp) {
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (n < len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    unsigned v = c & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
    for (size_t k = 1; k < len; k++) v = (v << 6) | (s[k] & 0x3Fu);
    *cp = v;
    return len;
}

/* Code points that reorder or hide text on a terminal (C1 controls, line and
 * paragraph separators, bidirectional overrides and isolates). */
static int invisible_control(unsigned cp) {
    return (cp >= 0x80 && cp < 0xA0) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

const char *txt_terminal(char *dst, size_t cap, const char *s, size_t max) {
    Out o = out_init(dst, cap);
    if (!cap) return dst;
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    if (cap > 32) o.cap = cap - 24; /* room for a cut marker */
    while (i < n && i < max && !o.full) {
        unsigned char c = u[i];
        unsigned cp = 0;
        size_t len;
        if (c >= 0x20 && c < 0x7F) {
            put(&o, (const char *)&c, 1);
            i++;
        } else if (c >= 0x80 && (len = utf8_seq(u + i, n - i, &cp)) > 0 && !invisible_control(cp)) {
            if (i + len > max) break;
            put(&o, s + i, len);
            if (!o.full) i += len;
        } else {
            put_hex(&o, c);
            if (!o.full) i++;
        }
    }
    o.cap = cap;
    if (i < n) put_cut_marker(&o, n - i);
    return dst;
}

const char *txt_html(char *dst, size_t cap, const char *s, size_t max) {
    char term[TXT_TERMINAL_MAX * 4 + 32];
    if (!cap) return dst;
    /* The terminal form first (controls, bidi and invalid UTF-8 made visible, length cut),
     * then the five characters HTML gives a meaning, as entities. */
    txt_terminal(term, sizeof term, s, max < TXT_TERMINAL_MAX ? max : TXT_TERMINAL_MAX);
    size_t o = 0;
    for (const char *p = term; *p;) {
        unsigned char c = (unsigned char)*p;
        const char *e = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
                        : c == '\'' ? "&#39;" : NULL;
        /* an entity or a whole UTF-8 sequence (term is valid UTF-8), never a part of one */
        size_t len = e ? strlen(e) : c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (o + len + 1 > cap) break;
        memcpy(dst + o, e ? e : p, len);
        o += len;
        p += e ? 1 : len;
    }
    dst[o] = '\0';
    return dst;
}

const char *txt_c_ident(char *dst, size_t cap, const char *s) {
    size_t j = 0;
    if (cap == 0) return dst;
    if ((*s >= '0' && *s <= '9') || !*s) {
        if (j + 1 < cap) dst[j++] = 's';
    }
    for (; *s && j + 1 < cap && j < TXT_IDENT_MAX; s++) {
        unsigned char c = (unsigned char)*s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        dst[j++] = ok ? (char)c : '_';
    }
    dst[j] = '\0';
    return dst;
}
