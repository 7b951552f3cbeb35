#include "config/filter.h"

#include "lib/limits.h"
#include "lib/status.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define FILTER_SPACE " \t"

const char *const filter_key_names[FILTER_KEYS] = {
    [FILTER_TOOLS] = "tools",
    [FILTER_RESOURCES] = "resources",
    [FILTER_PROMPTS] = "prompts",
};

/* The set starting at g[at] ('['): the index just past its ']', or -1 with why said. */
static long filter_check_set(const char *g, int len, int at, struct strbuf *why)
{
    int i = at + 1;
    int first;

    if (i < len && g[i] == '^') {
        (void)strbuf_addf(why,
                          "'[^' in '%.*s' is not glob syntax mcph knows; write [!...] for a set "
                          "that excludes, or [\\^...] to match '^'",
                          len, g);
        return -1;
    }
    i += i < len && g[i] == '!';
    first = i;
    for (; i < len && g[i] != ']'; i++) {
        if (g[i] == '[') {
            (void)strbuf_addf(why,
                              "'[' inside a set in '%.*s' is not glob syntax mcph knows (no "
                              "[:class:]); write \\[ to match the character",
                              len, g);
            return -1;
        }
        if (g[i] == '\\' && ++i == len)
            break;
    }
    if (i >= len) {
        (void)strbuf_addf(why,
                          "the set opened by '[' in '%.*s' is not closed; close it with ']', or "
                          "write \\[ to match the character",
                          len, g);
        return -1;
    }
    if (i == first) {
        (void)strbuf_addf(why,
                          "the set '%.*s' in '%.*s' holds no character; put characters in it, or "
                          "write \\[\\] to match the brackets",
                          i - at + 1, g + at, len, g);
        return -1;
    }
    return i + 1;
}

/* One glob of a list: g[0..len), '!' included. STATUS_OK or STATUS_INVALID with why said. */
static int filter_check_glob(const char *g, int len, struct strbuf *why)
{
    int i = g[0] == '!';

    if (len == 1 && i == 1) {
        (void)strbuf_addstr(why, "a '!' alone excludes nothing; write the glob right after it "
                                 "(!*_write)");
        return STATUS_INVALID;
    }
    while (i < len) {
        long next = i + 1;

        if (g[i] == '{' || g[i] == '}') {
            (void)strbuf_addf(why,
                              "'%c' in '%.*s' is not glob syntax mcph knows (no brace lists); "
                              "write one glob per name, or \\%c to match the character",
                              g[i], len, g, g[i]);
            return STATUS_INVALID;
        }
        if (g[i] == ']') {
            (void)strbuf_addf(why, "']' in '%.*s' closes no set; write \\] to match the character",
                              len, g);
            return STATUS_INVALID;
        }
        if (g[i] == '\\' && i + 1 == len) {
            (void)strbuf_addf(why,
                              "'%.*s' ends with '\\', which escapes nothing; remove it, or write "
                              "\\\\ to match a backslash",
                              len, g);
            return STATUS_INVALID;
        }
        if (g[i] == '\\')
            next = i + 2;
        else if (g[i] == '[')
            next = filter_check_set(g, len, i, why);
        if (next < 0)
            return STATUS_INVALID;
        i = (int)next;
    }
    return STATUS_OK;
}

int filter_check(const char *list, struct strbuf *why)
{
    size_t before = why->len;
    const char *g = list + strspn(list, FILTER_SPACE);

    if (strlen(list) > LIMIT_INI_LINE) {
        (void)strbuf_addf(why, "it is longer than %d bytes; shorten it", LIMIT_INI_LINE);
        return why->len > before ? STATUS_INVALID : STATUS_NOMEM;
    }
    if (*g == '\0') {
        (void)strbuf_addstr(why, "it holds no glob; write at least one, !* to serve none, or "
                                 "remove the line");
        return why->len > before ? STATUS_INVALID : STATUS_NOMEM;
    }
    while (*g != '\0') {
        size_t len = strcspn(g, FILTER_SPACE);

        if (filter_check_glob(g, (int)len, why) != STATUS_OK)
            return why->len > before ? STATUS_INVALID : STATUS_NOMEM;
        g += len;
        g += strspn(g, FILTER_SPACE);
    }
    return STATUS_OK;
}

/* Whether glob g[0..len) matches name. */
static int filter_match(const char *g, size_t len, const char *name)
{
    char glob[LIMIT_INI_LINE + 1];

    if (len >= sizeof(glob))
        return 0;
    memcpy(glob, g, len);
    glob[len] = '\0';
    return fnmatch(glob, name, 0) == 0;
}

int filter_keeps(const char *list, const char *name)
{
    int positive = 0, matched = 0;
    const char *g;

    if (list == NULL)
        return 1;
    for (g = list + strspn(list, FILTER_SPACE); *g != '\0'; g += strspn(g, FILTER_SPACE)) {
        size_t len = strcspn(g, FILTER_SPACE);

        if (g[0] == '!' && filter_match(g + 1, len - 1, name))
            return 0;
        if (g[0] != '!') {
            positive = 1;
            matched = matched || filter_match(g, len, name);
        }
        g += len;
    }
    return !positive || matched;
}

void filter_names_init(struct filter_names *l)
{
    memset(l, 0, sizeof(*l));
}

void filter_names_release(struct filter_names *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    filter_names_init(l);
}

int filter_names_add(struct filter_names *l, const char *name)
{
    char **grown;

    if (l->n == LIMIT_ROWS) {
        l->total++;
        return STATUS_OK;
    }
    grown = realloc(l->names, (l->n + 1) * sizeof(*grown));
    if (grown == NULL)
        return STATUS_NOMEM;
    l->names = grown;
    l->names[l->n] = strdup(name);
    if (l->names[l->n] == NULL)
        return STATUS_NOMEM;
    l->n++;
    l->total++;
    return STATUS_OK;
}
