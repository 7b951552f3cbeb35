/*
 * buf.h: a growing byte buffer for the text and JSON the sqlite plugin builds, with the JSON,
 * base64 and UTF-8 helpers that go with it.
 *
 * A failed allocation makes the buffer "failed": every later add is ignored, and the owner
 * checks sqbuf_str() (NULL) once at the end instead of after every add.
 */
#ifndef SQLITE_PLUGIN_BUF_H
#define SQLITE_PLUGIN_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "plugin-api.h"

struct sqbuf {
    char *data; /* owned; NUL-terminated when not NULL */
    size_t len; /* bytes used, terminator excluded */
    size_t cap; /* bytes allocated */
    int failed; /* an allocation failed: the contents are incomplete */
};

/* The replacement character U+FFFD, for bytes that are not UTF-8. */
#define SQBUF_REPLACEMENT "\xef\xbf\xbd"

void sqbuf_init(struct sqbuf *b);
/* Frees the contents; accepts NULL. */
void sqbuf_release(struct sqbuf *b);
/* Empties the buffer, keeping its memory. */
void sqbuf_reset(struct sqbuf *b);

void sqbuf_add(struct sqbuf *b, const char *s, size_t n);
void sqbuf_adds(struct sqbuf *b, const char *s);
void sqbuf_addc(struct sqbuf *b, char c);
void sqbuf_addf(struct sqbuf *b, const char *fmt, ...) MCPH_PRINTF(2, 3);
/* Adds c n times. */
void sqbuf_pad(struct sqbuf *b, char c, size_t n);

/* The contents ("" when empty), borrowed until the next change; NULL when an allocation
 * failed. */
const char *sqbuf_str(struct sqbuf *b);

/* Adds the n bytes at s as a quoted JSON string. Bytes that are not UTF-8, and U+0000,
 * become U+FFFD, so the output is always valid JSON text. */
void sqbuf_json_string(struct sqbuf *b, const char *s, size_t n);
/* The bytes sqbuf_json_string() adds for the n bytes at s, quotes included, found without
 * building the string. */
size_t sqbuf_json_length(const char *s, size_t n);
/* Adds the n bytes at data in base64 (RFC 4648, padded). */
void sqbuf_base64(struct sqbuf *b, const void *data, size_t n);
/* Adds a finite double as the shortest decimal that reads back as the same value. */
void sqbuf_number(struct sqbuf *b, double v);

/* The length of the UTF-8 sequence that starts s[0] (of n bytes available), or 0 when the
 * bytes there are not a valid sequence (overlong forms and surrogates included). */
size_t squtf8_len(const unsigned char *s, size_t n);

#endif
