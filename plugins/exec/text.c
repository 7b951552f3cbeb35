/*
 * text.c: the repair of a command's output into valid UTF-8 (the buffer and JSON strings
 * come from the shared mcph-strbuf.h).
 */
#include <stdlib.h>

#include "exec.h"

char *exec_utf8_clean(const char *s, size_t len, size_t *replaced)
{
    const unsigned char *u = (const unsigned char *)s;
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    size_t bad = 0, i = 0;
    char *clean;

    if (mcph_sb_grow(&sb, len) != MCPH_OK)
        return NULL;
    while (i < len) {
        size_t n = u[i] != 0 ? mcph_sb_utf8_len(u + i, len - i) : 0;

        if (n == 0) {
            mcph_sb_addstr(&sb, MCPH_SB_REPLACEMENT);
            bad++;
            n = 1;
        } else {
            mcph_sb_add(&sb, s + i, n);
        }
        i += n;
    }
    clean = mcph_sb_detach(&sb, NULL);
    if (clean != NULL && replaced != NULL)
        *replaced = bad;
    return clean;
}
