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
 * Growing fails only when out of memory: the add functions then return STATUS_NOMEM, leave
 * the buffer as it was and set `nomem`, so a caller that adds many pieces may check once at
 * the end.
 */
#ifndef MCPH_STRBUF_H
#define MCPH_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *buf;    /* the bytes, NUL-terminated; owned when alloc > 0 */
    size_t len;   /* bytes in buf, the NUL excluded */
    size_t alloc; /* bytes allocated; 0 while buf is the static "" */
    int nomem;    /* an add failed for want of memory */
};

extern char strbuf_empty[];
#define STRBUF_INIT                                                                                \
    {                                                                                              \
        .buf = strbuf_empty                                                                        \
    }

void strbuf_init(struct strbuf *sb);
/* Free the bytes; the buffer is empty (and usable) again. NULL is fine. */
void strbuf_release(struct strbuf *sb);

/* Make room for `extra` more bytes (and the NUL). Returns STATUS_OK or STATUS_NOMEM. */
int strbuf_grow(struct strbuf *sb, size_t extra) __attribute__((warn_unused_result));

int strbuf_add(struct strbuf *sb, const void *data, size_t len);
int strbuf_addstr(struct strbuf *sb, const char *s);
int strbuf_addch(struct strbuf *sb, char c);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Empty the buffer, keeping its allocation. */
void strbuf_reset(struct strbuf *sb);

/* Take the bytes out: a malloc'ed NUL-terminated string (owned by the caller; "" copied when
 * empty), *len its length when len is not NULL; the buffer is empty again. NULL when out of
 * memory. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

#endif
