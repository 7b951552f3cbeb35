#include "lib/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_sequence(const unsigned char *s, size_t len)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* the range of the second byte */

    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* past U+10FFFF */
    } else {
        return 0;
    }
    if (len < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    }
    return n;
}

size_t utf8_valid(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;

    while (i < len) {
        uint64_t word;
        size_t n;

        /* Eight ASCII bytes at a time. */
        if (len - i >= 8) {
            memcpy(&word, s + i, 8);
            if ((word & 0x8080808080808080ULL) == 0) {
                i += 8;
                continue;
            }
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        n = utf8_sequence(s + i, len - i);
        if (n == 0)
            return i;
        i += n;
    }
    return len;
}

char *utf8_repair(const char *text, size_t len, size_t *out_len)
{
    /* At worst every byte becomes three. */
    char *out = len < (SIZE_MAX - 1) / 3 ? malloc(3 * len + 1) : NULL;
    size_t at = 0, i = 0;

    if (out == NULL)
        return NULL;
    while (i < len) {
        size_t good = utf8_valid(text + i, len - i);

        memcpy(out + at, text + i, good);
        at += good;
        i += good;
        if (i < len) {
            memcpy(out + at, "\xEF\xBF\xBD", 3);
            at += 3;
            i++;
        }
    }
    out[at] = '\0';
    *out_len = at;
    return out;
}

char *utf8_own(char *text)
{
    size_t len = text ? strlen(text) : 0, out_len;
    char *fixed;

    if (text == NULL || utf8_valid(text, len) == len)
        return text;
    fixed = utf8_repair(text, len, &out_len);
    free(text);
    return fixed;
}
