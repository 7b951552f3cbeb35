/*
 * text.c: strings for the exec plugin: a growing buffer, JSON string escaping, and the
 * repair of a command's output into valid UTF-8.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

static const char exec_replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

static int exec_sb_reserve(struct exec_sb *sb, size_t n)
{
    size_t cap = sb->cap ? sb->cap : 256;
    char *p;

    if (sb->nomem)
        return 0;
    if (sb->len + n + 1 <= sb->cap)
        return 1;
    while (cap < sb->len + n + 1)
        cap *= 2;
    p = realloc(sb->s, cap);
    if (p == NULL) {
        sb->nomem = 1;
        return 0;
    }
    sb->s = p;
    sb->cap = cap;
    return 1;
}

void exec_sb_add(struct exec_sb *sb, const char *s, size_t n)
{
    if (!exec_sb_reserve(sb, n))
        return;
    memcpy(sb->s + sb->len, s, n);
    sb->len += n;
    sb->s[sb->len] = '\0';
}

void exec_sb_str(struct exec_sb *sb, const char *s)
{
    exec_sb_add(sb, s, strlen(s));
}

void exec_sb_addf(struct exec_sb *sb, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->nomem = 1;
        return;
    }
    if (!exec_sb_reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void exec_sb_json(struct exec_sb *sb, const char *s)
{
    exec_sb_add(sb, "\"", 1);
    for (const char *run = s;; s++) {
        unsigned char c = (unsigned char)*s;

        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        exec_sb_add(sb, run, (size_t)(s - run));
        if (c == '\0')
            break;
        if (c == '\n')
            exec_sb_str(sb, "\\n");
        else if (c == '\t')
            exec_sb_str(sb, "\\t");
        else if (c == '"' || c == '\\')
            exec_sb_addf(sb, "\\%c", c);
        else
            exec_sb_addf(sb, "\\u%04x", c);
        run = s + 1;
    }
    exec_sb_add(sb, "\"", 1);
}

/* The bounds of the second byte after a lead byte (RFC 3629: no overlongs, no surrogates,
 * nothing past U+10FFFF). */
static int exec_utf8_second_ok(unsigned char lead, unsigned char b)
{
    if (lead == 0xe0)
        return b >= 0xa0 && b <= 0xbf;
    if (lead == 0xed)
        return b >= 0x80 && b <= 0x9f;
    if (lead == 0xf0)
        return b >= 0x90 && b <= 0xbf;
    if (lead == 0xf4)
        return b >= 0x80 && b <= 0x8f;
    return b >= 0x80 && b <= 0xbf;
}

size_t exec_utf8_seq(const unsigned char *s, size_t len)
{
    size_t n;

    if (len == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0;
    if (len < n || !exec_utf8_second_ok(s[0], s[1]))
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

char *exec_utf8_clean(const char *s, size_t len, size_t *replaced)
{
    const unsigned char *u = (const unsigned char *)s;
    struct exec_sb sb = {0};
    size_t bad = 0, i = 0;

    exec_sb_reserve(&sb, len);
    while (i < len) {
        size_t n = u[i] != 0 ? exec_utf8_seq(u + i, len - i) : 0;

        if (n == 0) {
            exec_sb_add(&sb, exec_replacement, 3);
            bad++;
            n = 1;
        } else {
            exec_sb_add(&sb, s + i, n);
        }
        i += n;
    }
    exec_sb_add(&sb, "", 0);
    if (sb.nomem) {
        free(sb.s);
        return NULL;
    }
    if (replaced != NULL)
        *replaced = bad;
    return sb.s;
}
