#include "lib/base64.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char base64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len)
{
    const unsigned char *in = data;
    char *out, *o;
    size_t i;

    if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
        return NULL;
    out = malloc((len + 2) / 3 * 4 + 1);
    if (out == NULL)
        return NULL;
    o = out;
    for (i = 0; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

        *o++ = base64_chars[v >> 18 & 63];
        *o++ = base64_chars[v >> 12 & 63];
        *o++ = base64_chars[v >> 6 & 63];
        *o++ = base64_chars[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);

        *o++ = base64_chars[v >> 18 & 63];
        *o++ = base64_chars[v >> 12 & 63];
        *o++ = i + 1 < len ? base64_chars[v >> 6 & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

static int base64_value(char c)
{
    const char *p = c ? strchr(base64_chars, c) : NULL;

    return p ? (int)(p - base64_chars) : -1;
}

unsigned char *base64_decode(const char *text, size_t *len)
{
    size_t n = strlen(text), pad = 0, o = 0;
    unsigned char *out;

    if (n % 4 != 0)
        return NULL;
    if (n > 0 && text[n - 1] == '=')
        pad = 1 + (n > 1 && text[n - 2] == '=');
    out = malloc(n / 4 * 3 + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        uint32_t w = 0;

        for (int k = 0; k < 4; k++) {
            int is_pad = i + (size_t)k >= n - pad;

            v[k] = is_pad ? 0 : base64_value(text[i + (size_t)k]);
            if (v[k] < 0) {
                free(out);
                return NULL;
            }
            w = w << 6 | (uint32_t)v[k];
        }
        out[o++] = (unsigned char)(w >> 16);
        out[o++] = (unsigned char)(w >> 8);
        out[o++] = (unsigned char)w;
    }
    *len = o - pad;
    return out;
}
