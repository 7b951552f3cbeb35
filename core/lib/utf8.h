/*
 * utf8.h: well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF), checked on the way in and kept on the way out. The check itself is the one
 * plugins use (mcph-strbuf.h), so the core and plugins cannot disagree on what is UTF-8;
 * this module adds the repair the core's output needs.
 */
#ifndef MCPH_UTF8_H
#define MCPH_UTF8_H

#include "mcph-strbuf.h"

#include <stddef.h>

/* The length of the well-formed sequence that starts at s (len bytes available, s[0] >= 0x80),
 * or 0 when none does. */
static inline size_t utf8_sequence(const unsigned char *s, size_t len)
{
    return mcph_sb_utf8_len(s, len);
}

/* How many bytes of text are well-formed UTF-8 from its start: len when all of it is. */
static inline size_t utf8_valid(const char *text, size_t len)
{
    return mcph_sb_utf8_valid(text, len);
}

/* A copy of text (len bytes) in which every byte that does not belong to a well-formed
 * sequence is replaced by U+FFFD; NUL-terminated, its length in *out_len. NULL when out of
 * memory. */
char *utf8_repair(const char *text, size_t len, size_t *out_len);

/* text (owned, NUL-terminated) as well-formed UTF-8: itself when it is, else a repaired
 * copy (text is freed). NULL when text is NULL or out of memory. */
char *utf8_own(char *text);

#endif
