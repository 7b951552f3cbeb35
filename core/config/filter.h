/*
 * filter.h: the per-section filters `tools`, `resources` and `prompts`. A filter is a list of
 * globs separated by spaces; a glob starting with '!' excludes. A name is kept when (no
 * positive glob is given, or it matches one) and it matches no '!' glob. Filters see the
 * plugin's own names, before the prefix: tool and prompt names, a resource's URI and a
 * resource template's URI template.
 *
 * The glob syntax is fnmatch's without flags, and only this much of it: '*' (any run of
 * characters, '/' included), '?' (one character), "[set]" and "[!set]" (ranges like a-z
 * allowed) and '\' (the next character as itself, also inside a set). Everything else
 * that reads as glob syntax fnmatch or a shell would take otherwise ('{', '}', a '[' that is
 * not closed or holds nothing, "[^", a '[' inside a set, a stray ']', a trailing '\', a '!'
 * alone) is refused, so that what is accepted means the same here, in fnmatch and to a
 * reader.
 */
#ifndef MCPH_FILTER_H
#define MCPH_FILTER_H

#include "lib/strbuf.h"

#include <stddef.h>

/* The three filters of a section; arrays of them are indexed by these. */
enum filter_key {
    FILTER_TOOLS,
    FILTER_RESOURCES, /* resources and resource templates */
    FILTER_PROMPTS,
    FILTER_KEYS, /* how many */
};

/* The INI key of each filter ("tools", "resources", "prompts"), indexed by enum filter_key. */
extern const char *const filter_key_names[FILTER_KEYS];

/*
 * Check `list` (borrowed) as a filter. Returns STATUS_OK; STATUS_INVALID with what is wrong
 * and the fix in `why` (appended: "'{' in 'a{b' is not glob syntax mcph knows; write \{ to
 * match it"); STATUS_NOMEM when why could not grow. An empty list is invalid. Any thread.
 */
int filter_check(const char *list, struct strbuf *why) __attribute__((warn_unused_result));

/* 1 when filter `list` keeps `name`, else 0; a NULL list keeps everything. The list must
 * have passed filter_check (a glob longer than an INI line matches nothing). Any thread. */
int filter_keeps(const char *list, const char *name);

/* The names a filter left out, for mcph --check. */
struct filter_names {
    char **names; /* owned; each owned: the first LIMIT_ROWS names */
    size_t n;     /* names held */
    size_t total; /* names left out, also those past LIMIT_ROWS */
};

void filter_names_init(struct filter_names *l);
void filter_names_release(struct filter_names *l);

/* Note `name` (copied). Returns STATUS_OK (also past LIMIT_ROWS, where only the count grows)
 * or STATUS_NOMEM. */
int filter_names_add(struct filter_names *l, const char *name) __attribute__((warn_unused_result));

#endif
