#include "lib/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
