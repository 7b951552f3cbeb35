/*
 * buf.h: the sqlite plugin's helpers on top of the shared plugin buffer (mcph-strbuf.h):
 * the contents-or-NULL check, padding, base64 and numbers.
 */
#ifndef SQLITE_PLUGIN_BUF_H
#define SQLITE_PLUGIN_BUF_H

#include <stddef.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

/* The contents ("" when empty), borrowed until the next change; NULL when an add failed. */
const char *sqbuf_str(const struct mcph_strbuf *b);
/* Adds c n times. */
void sqbuf_pad(struct mcph_strbuf *b, char c, size_t n);
/* Adds the n bytes at data in base64 (RFC 4648, padded). */
void sqbuf_base64(struct mcph_strbuf *b, const void *data, size_t n);
/* Adds a finite double as the shortest decimal that reads back as the same value. */
void sqbuf_number(struct mcph_strbuf *b, double v);

#endif
