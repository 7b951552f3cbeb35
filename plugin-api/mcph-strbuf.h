/*
 * mcph-strbuf.h: a growable byte buffer for plugins, always NUL-terminated, with the JSON
 * string and UTF-8 helpers that plugins building text and JSON need. Header only: every
 * function is static inline, so there is nothing to link and nothing is exported.
 *
 *     struct mcph_strbuf sb = MCPH_STRBUF_INIT;
 *
 *     mcph_sb_addstr(&sb, "{\"name\":");
 *     mcph_sb_addjson(&sb, name, strlen(name));   (any bytes: the output is valid JSON)
 *     mcph_sb_addf(&sb, ",\"size\":%zu}", size);
 *     if (sb.nomem) {
 *         mcph_sb_release(&sb);
 *         return MCPH_ERR_NOMEM;
 *     }
 *     rc = host->structured(call, sb.buf);        (sinks copy: release right after)
 *     mcph_sb_release(&sb);
 *
 * `buf` is never NULL once initialised: an empty buffer that owns no memory points at a
 * static "" (alloc is 0), so sb.buf can always be read as a C string. Never write through
 * buf when alloc is 0; add functions and mcph_sb_setlen() are the way to change it.
 *
 * Out of memory. The add functions return MCPH_OK, or MCPH_ERR_NOMEM when growing failed;
 * they then leave the buffer as it was and set `nomem`. The flag is sticky: once set, every
 * later add fails at once, so a caller that adds many pieces checks sb.nomem (or the NULL of
 * mcph_sb_detach()) once at the end. mcph_sb_reset() and mcph_sb_release() clear it.
 *
 * Ownership: the buffer owns buf while alloc > 0; every add copies what it is given (the
 * pointers passed in are borrowed for the call only); mcph_sb_detach() hands the bytes to
 * the caller.
 *
 * Threads: a buffer is plain memory; use one from one thread at a time.
 *
 * The header needs C99 or later and the C library only (no feature macro such as
 * _GNU_SOURCE). It includes plugin-api.h for the status codes.
 */
#ifndef MCPH_PLUGIN_STRBUF_H
#define MCPH_PLUGIN_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The allocator behind every grow; it must be compatible with free() and realloc(), since
 * mcph_sb_detach() hands its memory to the caller. Defined before the include, it lets a test
 * make allocations fail. */
#ifndef MCPH_SB_REALLOC
#define MCPH_SB_REALLOC realloc
#endif

/* The replacement character U+FFFD in UTF-8, for bytes that are not UTF-8. */
#define MCPH_SB_REPLACEMENT "\xef\xbf\xbd"

/* The largest buffer (terminator included): a larger size is refused as out of memory
 * without asking the allocator. */
#define MCPH_SB_MAX_ALLOC ((size_t)PTRDIFF_MAX)

struct mcph_strbuf {
    char *buf;    /* the bytes, NUL-terminated; owned when alloc > 0, else a static "" */
    size_t len;   /* bytes in buf, the NUL excluded */
    size_t alloc; /* bytes allocated; 0 while buf is the static "" */
    int nomem;    /* an add failed: the contents are incomplete (see above) */
};

/* What an empty buffer points at. Each file that includes the header has its own; nothing
 * ever writes to it. */
static char mcph_sb_empty[1];

/* Positional, not designated, so that C++ before C++20 accepts it too. */
#define MCPH_STRBUF_INIT                                                                           \
    {                                                                                              \
        mcph_sb_empty, 0, 0, 0                                                                     \
    }

static inline void mcph_sb_init(struct mcph_strbuf *sb)
{
    sb->buf = mcph_sb_empty;
    sb->len = 0;
    sb->alloc = 0;
    sb->nomem = 0;
}

/* Frees the bytes; the buffer is empty (and usable) again, nomem cleared. NULL is fine.
 * (alloc > 0 means buf came from the allocator; inlined at -O1, GCC cannot always see that
 * buf is then not mcph_sb_empty, and warns: hence the pragma.) */
static inline void mcph_sb_release(struct mcph_strbuf *sb)
{
    if (sb == NULL)
        return;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif
    if (sb->alloc > 0)
        free(sb->buf);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    mcph_sb_init(sb);
}

/* Empties the buffer, keeping its allocation, and clears nomem. */
static inline void mcph_sb_reset(struct mcph_strbuf *sb)
{
    sb->len = 0;
    sb->nomem = 0;
    if (sb->alloc > 0)
        sb->buf[0] = '\0';
}

/* Cuts the buffer to its first len bytes (len <= sb->len; a larger len is ignored). */
static inline void mcph_sb_setlen(struct mcph_strbuf *sb, size_t len)
{
    if (len > sb->len)
        return;
    sb->len = len;
    if (sb->alloc > 0)
        sb->buf[len] = '\0';
}

static inline int mcph_sb_grow(struct mcph_strbuf *sb, size_t extra)
    __attribute__((warn_unused_result));

/* Makes room for `extra` more bytes (and the NUL), doubling the allocation. MCPH_OK, or
 * MCPH_ERR_NOMEM (nomem set, the buffer unchanged) when it cannot, or nomem was set. */
static inline int mcph_sb_grow(struct mcph_strbuf *sb, size_t extra)
{
    size_t alloc = sb->alloc ? sb->alloc : 64;
    char *grown;

    if (sb->nomem)
        return MCPH_ERR_NOMEM;
    if (extra < sb->alloc - sb->len)
        return MCPH_OK;
    if (extra >= MCPH_SB_MAX_ALLOC - sb->len) {
        sb->nomem = 1;
        return MCPH_ERR_NOMEM;
    }
    while (alloc < sb->len + extra + 1)
        alloc = alloc <= MCPH_SB_MAX_ALLOC / 2 ? alloc * 2 : sb->len + extra + 1;
    grown = (char *)MCPH_SB_REALLOC(sb->alloc ? sb->buf : NULL, alloc);
    if (grown == NULL) {
        sb->nomem = 1;
        return MCPH_ERR_NOMEM;
    }
    if (sb->alloc == 0)
        grown[0] = '\0';
    sb->buf = grown;
    sb->alloc = alloc;
    return MCPH_OK;
}

/* Adds len bytes at data (any bytes, NUL included). MCPH_OK or MCPH_ERR_NOMEM. */
static inline int mcph_sb_add(struct mcph_strbuf *sb, const void *data, size_t len)
{
    if (mcph_sb_grow(sb, len) != MCPH_OK)
        return MCPH_ERR_NOMEM;
    if (len > 0)
        memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
    return MCPH_OK;
}

static inline int mcph_sb_addstr(struct mcph_strbuf *sb, const char *s)
{
    return mcph_sb_add(sb, s, strlen(s));
}

static inline int mcph_sb_addch(struct mcph_strbuf *sb, char c)
{
    return mcph_sb_add(sb, &c, 1);
}

static inline int mcph_sb_vaddf(struct mcph_strbuf *sb, const char *fmt, va_list ap)
    MCPH_PRINTF(2, 0);

/* Adds the text printf would write. MCPH_OK, MCPH_ERR_NOMEM, or MCPH_ERR_INVALID when
 * vsnprintf fails (an output over INT_MAX bytes, a bad conversion); both set nomem, since
 * the contents then miss a piece. */
static inline int mcph_sb_vaddf(struct mcph_strbuf *sb, const char *fmt, va_list ap)
{
    size_t room = sb->alloc - sb->len;
    va_list again;
    int n;

    if (sb->nomem)
        return MCPH_ERR_NOMEM;
    va_copy(again, ap);
    n = vsnprintf(sb->alloc ? sb->buf + sb->len : NULL, room, fmt, ap);
    if (n >= 0 && (size_t)n >= room && mcph_sb_grow(sb, (size_t)n) == MCPH_OK)
        n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, again);
    va_end(again);
    if (n < 0 || (size_t)n >= sb->alloc - sb->len) {
        if (sb->alloc > 0)
            sb->buf[sb->len] = '\0';
        sb->nomem = 1;
        return n < 0 ? MCPH_ERR_INVALID : MCPH_ERR_NOMEM;
    }
    sb->len += (size_t)n;
    return MCPH_OK;
}

static inline int mcph_sb_addf(struct mcph_strbuf *sb, const char *fmt, ...) MCPH_PRINTF(2, 3);

static inline int mcph_sb_addf(struct mcph_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int status;

    va_start(ap, fmt);
    status = mcph_sb_vaddf(sb, fmt, ap);
    va_end(ap);
    return status;
}

/* Takes the bytes out: a malloc'ed NUL-terminated string owned by the caller (free() it),
 * *len its length when len is not NULL. The buffer is empty again, nomem cleared. NULL (and
 * the buffer released) when nomem was set or when out of memory. */
static inline char *mcph_sb_detach(struct mcph_strbuf *sb, size_t *len)
{
    char *s = sb->alloc ? sb->buf : NULL;

    if (sb->nomem) {
        mcph_sb_release(sb);
        if (len != NULL)
            *len = 0;
        return NULL;
    }
    if (s == NULL) {
        s = (char *)MCPH_SB_REALLOC(NULL, 1);
        if (s != NULL)
            s[0] = '\0';
    }
    if (len != NULL)
        *len = s != NULL ? sb->len : 0;
    mcph_sb_init(sb);
    return s;
}

/* --- UTF-8 and JSON strings. --- */

/* The length of the well-formed UTF-8 sequence that starts s[0] (of n bytes available), or 0
 * when the bytes there are not one: a continuation byte, an overlong form, a surrogate, a
 * code point past U+10FFFF, a sequence cut short, or n == 0. An ASCII byte (NUL included)
 * is a sequence of 1. */
static inline size_t mcph_sb_utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;

    if (n == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2;
        cp = s[0] & 0x1fu;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        cp = s[0] & 0x0fu;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* How many bytes at s (n of them) are well-formed UTF-8 from the start: n when all are. NUL
 * counts as ASCII; a caller that refuses it looks for it in the part found good. The one
 * UTF-8 check of mcph: the core's lib/utf8.h calls it too. ASCII goes eight bytes at a time,
 * since nearly all text is ASCII. */
static inline size_t mcph_sb_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;

    while (i < n) {
        uint64_t word;
        size_t len;

        if (n - i >= 8) {
            memcpy(&word, u + i, 8);
            if ((word & 0x8080808080808080ULL) == 0) {
                i += 8;
                continue;
            }
        }
        len = mcph_sb_utf8_len(u + i, n - i);
        if (len == 0)
            return i;
        i += len;
    }
    return n;
}

/* One step of JSON string escaping at s[0] (n > 0 bytes left): the escape to write for it
 * (tmp holds a \u00XX one), or NULL when the *step bytes there stand as themselves. U+0000
 * and bytes that are not UTF-8 become U+FFFD, one per byte. Used by mcph_sb_addjson() and
 * mcph_sb_json_len(); not meant to be called otherwise. */
static inline const char *mcph_sb_json_step(const unsigned char *s, size_t n, size_t *step,
                                            char tmp[8])
{
    static const char hex[] = "0123456789abcdef";
    size_t len = mcph_sb_utf8_len(s, n);

    *step = len > 1 ? len : 1;
    if (len == 0 || s[0] == 0)
        return MCPH_SB_REPLACEMENT;
    if (len > 1 || (s[0] >= 0x20 && s[0] != 0x7f && s[0] != '"' && s[0] != '\\'))
        return NULL;
    switch (s[0]) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        memcpy(tmp, "\\u00", 4);
        tmp[4] = hex[s[0] >> 4];
        tmp[5] = hex[s[0] & 15];
        tmp[6] = '\0';
        return tmp;
    }
}

/* Adds the n bytes at s as a quoted JSON string literal. ", \ and the control characters
 * are escaped (\n \r \t, else \u00XX; DEL too); U+0000 and each byte that is not part of
 * well-formed UTF-8 become U+FFFD, so the output is always valid JSON whatever s holds.
 * MCPH_OK, or MCPH_ERR_NOMEM with the buffer as it was. */
static inline int mcph_sb_addjson(struct mcph_strbuf *sb, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t start = sb->len, i = 0, run = 0, step;
    char tmp[8];

    mcph_sb_addch(sb, '"');
    while (i < n) {
        const char *esc = mcph_sb_json_step(u + i, n - i, &step, tmp);

        if (esc != NULL) {
            if (run > 0)
                mcph_sb_add(sb, s + i - run, run);
            mcph_sb_addstr(sb, esc);
            run = 0;
        } else {
            run += step;
        }
        i += step;
    }
    if (run > 0)
        mcph_sb_add(sb, s + i - run, run);
    if (mcph_sb_addch(sb, '"') != MCPH_OK) {
        if (sb->len > start)
            mcph_sb_setlen(sb, start);
        return MCPH_ERR_NOMEM;
    }
    return MCPH_OK;
}

/* The bytes mcph_sb_addjson() adds for the n bytes at s, quotes included, counted without
 * building the string (to check a size limit first). */
static inline size_t mcph_sb_json_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, out = 2, step;
    char tmp[8];

    while (i < n) {
        const char *esc = mcph_sb_json_step(u + i, n - i, &step, tmp);

        out += esc != NULL ? strlen(esc) : step;
        i += step;
    }
    return out;
}

#ifdef __cplusplus
}
#endif

#endif
