/* text.h - the one owner of strings that come from a model file (prefix txt_).
 *
 * Tensor, operator, signature and custom-op names, descriptions and metadata
 * are untrusted: a model author controls every byte. Nothing from a model may
 * reach generated C or the terminal except through these functions:
 *
 *   txt_comment   text safe inside a C comment: printable ASCII only; "*" + "/",
 *                 "/" + "*", "??" (trigraphs), backslashes, control and
 *                 non-ASCII bytes become visible escapes (\xHH, \\, *\/ ...);
 *                 long text is cut at TXT_COMMENT_MAX input bytes with a
 *                 "...[+N bytes]" marker.
 *   txt_c_string  a complete C string literal with its quotes: full C escaping
 *                 (\" \\ \? and octal for everything outside printable ASCII),
 *                 cut at TXT_LITERAL_MAX input bytes with a "..." marker.
 *   txt_terminal  text safe for a terminal: control bytes (newline and tab
 *                 included), DEL, C1 controls and invalid UTF-8 become \xhh;
 *                 valid UTF-8 is kept; cut at `max`
 *                 input bytes with a "...[+N bytes]" marker.
 *   txt_html      text safe in HTML text and quoted attributes (mpcc report): the
 *                 terminal form, then & < > " ' as entities; cut at `max` (at
 *                 most TXT_TERMINAL_MAX) input bytes.
 * Identifiers are made by codegen's cg_sanitize (letters, digits, '_' only).
 *
 * Each writes at most cap - 1 bytes plus a NUL into dst (cap >= 1) and returns
 * dst. Escapes are never split by the capacity limit. */
#ifndef MPCC_TEXT_H
#define MPCC_TEXT_H

#include <stddef.h>

#define TXT_COMMENT_MAX 64
#define TXT_LITERAL_MAX 1024
#define TXT_TERMINAL_MAX 256

/* Buffer sizes that always hold the full (capped) output. */
#define TXT_COMMENT_CAP (TXT_COMMENT_MAX * 4 + 32)
#define TXT_LITERAL_CAP (TXT_LITERAL_MAX * 4 + 8)
#define TXT_TERMINAL_CAP (TXT_TERMINAL_MAX * 4 + 32)
#define TXT_HTML_CAP (TXT_TERMINAL_CAP * 6)

const char *txt_comment(char *dst, size_t cap, const char *s);
const char *txt_c_string(char *dst, size_t cap, const char *s);
const char *txt_terminal(char *dst, size_t cap, const char *s, size_t max);
const char *txt_html(char *dst, size_t cap, const char *s, size_t max);
/* A C identifier made of s (a signature key): ASCII letters, digits and '_' kept,
 * any other byte '_', a leading digit or an empty s prefixed with "s", at most
 * TXT_IDENT_MAX characters. Different s may give the same identifier: the
 * caller resolves collisions. */
#define TXT_IDENT_MAX 48
const char *txt_c_ident(char *dst, size_t cap, const char *s);

#endif
