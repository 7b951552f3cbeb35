/*
 * strbuf.h: a growable byte buffer that is always NUL-terminated, in the spirit of git's
 * strbuf.h. `buf` is never NULL once initialised (an empty buffer points at a static "").
 *
 *     struct strbuf sb = STRBUF_INIT;
 *     strbuf_addstr(&sb, "{\"id\":");
 *     strbuf_addf(&sb, "%d}", 7);
 *     write(fd, sb.buf, sb.len);
 *     strbuf_release(&sb);
 *
 * The core's buffer is the plugins' buffer (plugin-api/mcph-strbuf.h): one struct and one
 * implementation, so a fix to either is a fix to both. `struct strbuf` names struct
 * mcph_strbuf, and these functions are the core's names for the mcph_sb_* ones, answering in
 * the core's STATUS_* codes.
 *
 * Out of memory: the add functions then return STATUS_NOMEM, leave the buffer as it was and
 * set `nomem`. The flag is sticky (every later add fails at once) until strbuf_reset() or
 * strbuf_release(), so a caller that adds many pieces checks it once at the end.
 */
#ifndef MCPH_STRBUF_H
#define MCPH_STRBUF_H

#include "lib/status.h"
#include "mcph-strbuf.h"

#include <stdarg.h>
#include <stddef.h>

/* One struct for both: a macro, because a struct tag cannot be aliased otherwise and every
 * core file writes `struct strbuf`. Members: buf, len, alloc, nomem (see mcph-strbuf.h). */
#define strbuf mcph_strbuf
#define STRBUF_INIT MCPH_STRBUF_INIT

/* An mcph_sb_* result in the core's codes. */
static inline int strbuf_status(int rc)
{
    return rc == MCPH_OK ? STATUS_OK : rc == MCPH_ERR_NOMEM ? STATUS_NOMEM : STATUS_INVALID;
}

static inline void strbuf_init(struct strbuf *sb)
{
    mcph_sb_init(sb);
}

/* Free the bytes; the buffer is empty (and usable) again, nomem cleared. NULL is fine. */
static inline void strbuf_release(struct strbuf *sb)
{
    mcph_sb_release(sb);
}

static inline int strbuf_grow(struct strbuf *sb, size_t extra) __attribute__((warn_unused_result));

/* Make room for `extra` more bytes (and the NUL). Returns STATUS_OK or STATUS_NOMEM. */
static inline int strbuf_grow(struct strbuf *sb, size_t extra)
{
    return strbuf_status(mcph_sb_grow(sb, extra));
}

/* Each add returns STATUS_OK or STATUS_NOMEM; the formatted ones STATUS_INVALID when
 * vsnprintf fails. */
static inline int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
    return strbuf_status(mcph_sb_add(sb, data, len));
}

static inline int strbuf_addstr(struct strbuf *sb, const char *s)
{
    return strbuf_status(mcph_sb_addstr(sb, s));
}

static inline int strbuf_addch(struct strbuf *sb, char c)
{
    return strbuf_status(mcph_sb_addch(sb, c));
}

static inline int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static inline int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    return strbuf_status(mcph_sb_vaddf(sb, fmt, ap));
}

static inline int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int status;

    va_start(ap, fmt);
    status = strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
    return status;
}

/* Empty the buffer, keeping its allocation; nomem cleared. */
static inline void strbuf_reset(struct strbuf *sb)
{
    mcph_sb_reset(sb);
}

/* Take the bytes out: a malloc'ed NUL-terminated string (owned by the caller; "" copied when
 * empty), *len its length when len is not NULL; the buffer is empty again. NULL when out of
 * memory, now or in an earlier add (nomem). */
static inline char *strbuf_detach(struct strbuf *sb, size_t *len)
{
    return mcph_sb_detach(sb, len);
}

#endif
