#include "lib/strbuf.h"

#include "lib/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
    sb->buf = strbuf_empty;
    sb->len = sb->alloc = 0;
    sb->nomem = 0;
}

void strbuf_release(struct strbuf *sb)
{
    if (sb == NULL)
        return;
    if (sb->alloc > 0)
        free(sb->buf);
    strbuf_init(sb);
}

int strbuf_grow(struct strbuf *sb, size_t extra)
{
    size_t want = sb->len + extra + 1;
    size_t alloc = sb->alloc ? sb->alloc : 64;
    char *grown;

    if (want < sb->len) {
        sb->nomem = 1;
        return STATUS_NOMEM;
    }
    if (want <= sb->alloc)
        return STATUS_OK;
    while (alloc < want)
        alloc = alloc * 2 > alloc ? alloc * 2 : want;
    grown = realloc(sb->alloc ? sb->buf : NULL, alloc);
    if (grown == NULL) {
        sb->nomem = 1;
        return STATUS_NOMEM;
    }
    if (sb->alloc == 0)
        grown[0] = '\0';
    sb->buf = grown;
    sb->alloc = alloc;
    return STATUS_OK;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
    if (strbuf_grow(sb, len) != STATUS_OK)
        return STATUS_NOMEM;
    memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
    return STATUS_OK;
}

int strbuf_addstr(struct strbuf *sb, const char *s)
{
    return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, char c)
{
    return strbuf_add(sb, &c, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0, fmt, ap);
    if (n < 0) {
        va_end(again);
        return STATUS_INVALID;
    }
    if (sb->alloc == 0 || (size_t)n >= sb->alloc - sb->len) {
        if (strbuf_grow(sb, (size_t)n) != STATUS_OK) {
            if (sb->alloc > 0)
                sb->buf[sb->len] = '\0';
            va_end(again);
            return STATUS_NOMEM;
        }
        vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, again);
    }
    va_end(again);
    sb->len += (size_t)n;
    return STATUS_OK;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int status;

    va_start(ap, fmt);
    status = strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
    return status;
}

void strbuf_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->alloc > 0)
        sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
    char *s = sb->alloc ? sb->buf : strdup("");

    if (len != NULL)
        *len = sb->len;
    strbuf_init(sb);
    return s;
}
