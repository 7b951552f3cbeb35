/*
 * buf.c: the growing buffer, JSON strings, base64 and UTF-8 checks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void sqbuf_init(struct sqbuf *b)
{
    memset(b, 0, sizeof(*b));
}

void sqbuf_release(struct sqbuf *b)
{
    if (b == NULL)
        return;
    free(b->data);
    sqbuf_init(b);
}

void sqbuf_reset(struct sqbuf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->data != NULL)
        b->data[0] = '\0';
}

/* Makes room for n more bytes and the terminator. 0 on success, -1 when failed. */
static int sqbuf_grow(struct sqbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->cap - b->len > n)
        return 0;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return -1;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= n)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (p == NULL) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void sqbuf_add(struct sqbuf *b, const char *s, size_t n)
{
    if (sqbuf_grow(b, n) != 0)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sqbuf_adds(struct sqbuf *b, const char *s)
{
    sqbuf_add(b, s, strlen(s));
}

void sqbuf_addc(struct sqbuf *b, char c)
{
    sqbuf_add(b, &c, 1);
}

void sqbuf_pad(struct sqbuf *b, char c, size_t n)
{
    if (sqbuf_grow(b, n) != 0)
        return;
    memset(b->data + b->len, c, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sqbuf_addf(struct sqbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (sqbuf_grow(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *sqbuf_str(struct sqbuf *b)
{
    if (b->failed)
        return NULL;
    return b->data != NULL ? b->data : "";
}

size_t squtf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07u;
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

/* The JSON escape of an ASCII byte, or NULL when it stands as itself. */
static const char *sqbuf_json_escape(unsigned char c, char tmp[8])
{
    switch (c) {
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
    case 0:
        return SQBUF_REPLACEMENT; /* cJSON strings end at U+0000: keep the value whole */
    default:
        if (c >= 0x20 && c != 0x7f)
            return NULL;
        snprintf(tmp, 8, "\\u%04x", c);
        return tmp;
    }
}

size_t sqbuf_json_length(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, out = 2;
    char tmp[8];

    while (i < n) {
        size_t len = squtf8_len(u + i, n - i);
        const char *esc = NULL;

        if (len == 1)
            esc = sqbuf_json_escape(u[i], tmp);
        else if (len == 0)
            esc = SQBUF_REPLACEMENT;
        out += esc != NULL ? strlen(esc) : len;
        i += esc != NULL ? 1 : len;
    }
    return out;
}

void sqbuf_json_string(struct sqbuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0;
    char tmp[8];

    sqbuf_addc(b, '"');
    while (i < n) {
        size_t len = squtf8_len(u + i, n - i);
        const char *esc = NULL;

        if (len == 1)
            esc = sqbuf_json_escape(u[i], tmp);
        else if (len == 0)
            esc = SQBUF_REPLACEMENT;
        if (esc == NULL) {
            i += len;
            run += len;
            continue;
        }
        sqbuf_add(b, s + i - run, run);
        run = 0;
        sqbuf_adds(b, esc);
        i += 1;
    }
    sqbuf_add(b, s + i - run, run);
    sqbuf_addc(b, '"');
}

void sqbuf_base64(struct sqbuf *b, const void *data, size_t n)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    char quad[4];

    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        size_t left = n - i;

        if (left > 1)
            v |= (uint32_t)p[i + 1] << 8;
        if (left > 2)
            v |= p[i + 2];
        quad[0] = alphabet[(v >> 18) & 63];
        quad[1] = alphabet[(v >> 12) & 63];
        quad[2] = left > 1 ? alphabet[(v >> 6) & 63] : '=';
        quad[3] = left > 2 ? alphabet[v & 63] : '=';
        sqbuf_add(b, quad, 4);
    }
}

void sqbuf_number(struct sqbuf *b, double v)
{
    char tmp[32];

    snprintf(tmp, sizeof(tmp), "%.15g", v);
    if (strtod(tmp, NULL) != v)
        snprintf(tmp, sizeof(tmp), "%.17g", v);
    sqbuf_adds(b, tmp);
}
