/*
 * buf.c: padding, base64 and numbers, written into the shared plugin buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

const char *sqbuf_str(const struct mcph_strbuf *b)
{
    return b->nomem ? NULL : b->buf;
}

void sqbuf_pad(struct mcph_strbuf *b, char c, size_t n)
{
    if (mcph_sb_grow(b, n) != MCPH_OK)
        return;
    memset(b->buf + b->len, c, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

void sqbuf_base64(struct mcph_strbuf *b, const void *data, size_t n)
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
        mcph_sb_add(b, quad, 4);
    }
}

void sqbuf_number(struct mcph_strbuf *b, double v)
{
    char tmp[32];

    snprintf(tmp, sizeof(tmp), "%.15g", v);
    if (strtod(tmp, NULL) != v)
        snprintf(tmp, sizeof(tmp), "%.17g", v);
    mcph_sb_addstr(b, tmp);
}
