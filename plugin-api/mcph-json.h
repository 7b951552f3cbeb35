/*
 * mcph-json.h: what a JSON text will cost once parsed, found before parsing it, and a look at
 * one member of a JSON object without parsing the rest. Header only: every function is static
 * inline, so there is nothing to link and nothing is exported. mcph uses it wherever JSON from
 * outside is parsed; a plugin that parses JSON it did not write (a server it relays, a file, a
 * network answer) can use it the same way:
 *
 *     size_t values, cost;
 *
 *     if (mcph_json_over(text, len, MCPH_JSON_COST_MAX, &values, &cost))
 *         return host->error(call, MCPH_ERR_LIMIT, "the answer would take %zu MiB parsed", ...);
 *     tree = cJSON_ParseWithLength(text, len);
 *     ...
 *     cJSON_Delete(tree);
 *     mcph_json_trim(cost);                    (a costly message: memory goes back to the system)
 *
 * Why. A JSON text is small next to its tree: cJSON spends a node of 64 bytes (80 with the
 * allocator's header) on every value, so "[0,0,0,...]" takes 40 times its length once parsed.
 * A limit on bytes read is not a limit on memory; a limit on the tree is. The estimate is a
 * linear scan that counts values (an upper bound: one more than the commas and brackets
 * outside strings) and charges each MCPH_JSON_VALUE_COST besides the text's own bytes (which
 * bound what its strings and keys take). It is not a validator: text that is not JSON may be
 * over the limit where the parser would have refused it anyway.
 *
 * cJSON's allocation hooks (cJSON_InitHooks) could count the real cost, but they are one
 * setting for the whole process, shared with every library and plugin that uses cJSON at the
 * same time on other threads; a scan of the text is local to the caller and costs one pass.
 *
 * Threads: every function is pure (no state) and may be called from any thread.
 *
 * The header needs C99 or later and the C library only (no feature macro).
 */
#ifndef MCPH_PLUGIN_JSON_H
#define MCPH_PLUGIN_JSON_H

#include <stddef.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What one parsed value costs cJSON beyond its text, in bytes, on a 64-bit system: its node
 * (64 bytes, 80 with malloc's header) and two of malloc's smallest blocks (32 bytes) for the
 * key and the string it may own. */
#define MCPH_JSON_VALUE_COST 144u

/* The most one message may cost once parsed, in bytes (mcph's own limit, LIMIT_JSON_COST): a
 * text of up to 48 MiB of strings passes, and about 450,000 values. */
#define MCPH_JSON_COST_MAX (64u * 1024u * 1024u)

/* A message that cost at least this much once parsed gives memory back to the system once it
 * is handled (see mcph_json_trim). */
#define MCPH_JSON_TRIM_COST (8u * 1024u * 1024u)

/* The index of the quote that ends the string whose text starts at text[i] (just after its
 * opening quote), or len when the text ends first. memchr finds each quote; one preceded by an
 * odd run of backslashes is escaped. */
static inline size_t mcph_json_string_end(const char *text, size_t len, size_t i)
{
    while (i < len) {
        const char *q = (const char *)memchr(text + i, '"', len - i);
        size_t at, k;

        if (q == NULL)
            return len;
        at = (size_t)(q - text);
        for (k = at; k > 0 && text[k - 1] == '\\'; k--)
            ;
        if ((at - k) % 2 == 0)
            return at;
        i = at + 1;
    }
    return len;
}

/* The estimated cost (bytes) of parsing the len bytes at text, and at most how many values
 * it holds (values may be NULL). text is borrowed for the call; it need not end in a NUL. */
static inline size_t mcph_json_cost(const char *text, size_t len, size_t *values)
{
    size_t n = 1;

    for (size_t i = 0; i < len; i++) {
        char ch = text[i];

        if (ch == '"')
            i = mcph_json_string_end(text, len, i + 1);
        else if (ch == ',' || ch == '[' || ch == '{')
            n++;
    }
    if (values != NULL)
        *values = n;
    return len + n * (size_t)MCPH_JSON_VALUE_COST;
}

/* Whether parsing the len bytes at text would cost more than limit bytes; *values and *cost
 * (either may be NULL) get the estimate. A text short enough to stay under both the limit and
 * MCPH_JSON_TRIM_COST whatever it holds (each byte a value) is not scanned: then *values is 0
 * and *cost that upper bound. */
static inline int mcph_json_over(const char *text, size_t len, size_t limit, size_t *values,
                                 size_t *cost)
{
    size_t n = 0, c, floor = limit < MCPH_JSON_TRIM_COST ? limit : MCPH_JSON_TRIM_COST;

    if (len < floor / (MCPH_JSON_VALUE_COST + 1u))
        c = len + (len + 1u) * (size_t)MCPH_JSON_VALUE_COST;
    else
        c = mcph_json_cost(text, len, &n);
    if (values != NULL)
        *values = n;
    if (cost != NULL)
        *cost = c;
    return c > limit;
}

/* Where the JSON value that starts at text[i] ends (the index just past it, spaces after it
 * excluded), or len when the text ends first. A string's escapes are skipped, brackets are
 * counted; nothing else is checked. */
static inline size_t mcph_json_skip(const char *text, size_t len, size_t i)
{
    size_t end = i;
    int depth = 0;

    for (; i < len; i++) {
        char ch = text[i];

        switch (ch) {
        case '"':
            i = mcph_json_string_end(text, len, i + 1);
            if (i >= len)
                return len;
            if (depth == 0)
                return i + 1;
            break;
        case '[':
        case '{':
            depth++;
            break;
        case ']':
        case '}':
            if (depth == 0)
                return end;
            if (--depth == 0)
                return i + 1;
            break;
        case ',':
            if (depth == 0)
                return end;
            break;
        case ' ':
        case '\t':
        case '\r':
        case '\n':
            continue;
        default:
            break;
        }
        end = i + 1;
    }
    return len;
}

static inline size_t mcph_json_space(const char *text, size_t len, size_t i)
{
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    return i;
}

/* Find member key of the JSON object that is the whole text (len bytes) without parsing it:
 * returns 1 and sets *value and *value_len to the text of its value (borrowed from text) when
 * the object has one, else 0 (not an object, no such member, or text cut short). The first
 * member of that name counts, as with cJSON_GetObjectItem. Names are compared as written: a
 * name spelled with escapes ("\u0069d") is not found. One pass, at most to the member. */
static inline int mcph_json_member(const char *text, size_t len, const char *key,
                                   const char **value, size_t *value_len)
{
    size_t klen = strlen(key), i = mcph_json_space(text, len, 0);

    if (i >= len || text[i] != '{')
        return 0;
    for (i++;;) {
        size_t name, name_end, end;

        i = mcph_json_space(text, len, i);
        if (i >= len || text[i] != '"')
            return 0;
        name = i + 1;
        end = mcph_json_skip(text, len, i);
        if (end <= name || text[end - 1] != '"')
            return 0;
        name_end = end - 1;
        i = mcph_json_space(text, len, end);
        if (i >= len || text[i] != ':')
            return 0;
        i = mcph_json_space(text, len, i + 1);
        end = mcph_json_skip(text, len, i);
        if (end == i)
            return 0;
        if (name_end - name == klen && memcmp(text + name, key, klen) == 0) {
            *value = text + i;
            *value_len = end - i;
            return 1;
        }
        i = mcph_json_space(text, len, end);
        if (i >= len || text[i] != ',')
            return 0;
        i++;
    }
}

/* After a message was handled and its tree freed: when parsing it cost MCPH_JSON_TRIM_COST or
 * more (cost as mcph_json_cost or mcph_json_over gave it), give the allocator's free memory
 * back to the system. A parsed tree is many small blocks; freed, they stay in the process
 * (glibc returns only the top of a heap, and only past a threshold) unless trimmed. glibc's
 * malloc_trim walks every arena, so any thread may call it; elsewhere this does nothing. */
static inline void mcph_json_trim(size_t cost)
{
#if defined(__GLIBC__)
    if (cost >= MCPH_JSON_TRIM_COST)
        malloc_trim(0);
#else
    (void)cost;
#endif
}

#ifdef __cplusplus
}
#endif

#endif
