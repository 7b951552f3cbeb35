/*
 * access.c: a principal's view (the [access.NAME] sections it matches) and whether a view sees
 * a row. The sections' words are read where they stand in the config text (space-separated,
 * checked at load by keys.c), so nothing is allocated per request.
 */
#include "served/access.h"

#include "config/filter.h"
#include "lib/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char access_spaces[] = " \t";

/* The next word of list at *at: its start, and its length in *len; NULL past the last. */
static const char *access_word(const char **at, size_t *len)
{
    const char *w = *at + strspn(*at, access_spaces);

    *len = strcspn(w, access_spaces);
    *at = w + *len;
    return *len > 0 ? w : NULL;
}

/* Whether the word w (len bytes) is exactly text. */
static int access_word_is(const char *w, size_t len, const char *text)
{
    return strlen(text) == len && memcmp(w, text, len) == 0;
}

static int access_has_scope(const struct principal *who, const char *w, size_t len)
{
    for (size_t i = 0; i < who->nscopes; i++) {
        if (access_word_is(w, len, who->scopes[i]))
            return 1;
    }
    return 0;
}

/* A claim's value as the text an INI word compares with: strings as they are, numbers and
 * booleans as JSON writes them. 0 when v is none of those. */
static int access_value_text(const cJSON *v, char *buf, size_t size, const char **text)
{
    double d;

    if (cJSON_IsString(v)) {
        *text = v->valuestring;
        return 1;
    }
    if (cJSON_IsBool(v)) {
        *text = cJSON_IsTrue(v) ? "true" : "false";
        return 1;
    }
    if (!cJSON_IsNumber(v))
        return 0;
    d = v->valuedouble;
    /* Whole numbers as integers (what an INI word would say), others in full. */
    if (d > -1e15 && d < 1e15 && d == (double)(long long)d)
        snprintf(buf, size, "%.0f", d);
    else
        snprintf(buf, size, "%.17g", d);
    *text = buf;
    return 1;
}

static int access_value_is(const cJSON *v, const char *want, size_t len)
{
    char buf[40];
    const char *text;

    return access_value_text(v, buf, sizeof(buf), &text) && access_word_is(want, len, text);
}

/* Whether the principal's claims hold the word NAME=VALUE: the claim equals VALUE, or is an
 * array that holds it. */
static int access_has_claim(const struct principal *who, const char *w, size_t len)
{
    const char *eq = memchr(w, '=', len);
    const cJSON *c, *e;

    if (eq == NULL || who->claims == NULL)
        return 0;
    cJSON_ArrayForEach(c, who->claims)
    {
        if (c->string == NULL || !access_word_is(w, (size_t)(eq - w), c->string))
            continue;
        if (access_value_is(c, eq + 1, len - (size_t)(eq - w) - 1))
            return 1;
        if (!cJSON_IsArray(c))
            return 0;
        cJSON_ArrayForEach(e, c)
        {
            if (access_value_is(e, eq + 1, len - (size_t)(eq - w) - 1))
                return 1;
        }
        return 0;
    }
    return 0;
}

/* Whether who is a bearer token on one of the lines (from 1) the word w names. */
static int access_is_token(const struct principal *who, const char *w, size_t len)
{
    char buf[24];
    char *end = NULL;
    long n;

    if (who->kind != PRINCIPAL_TOKEN || len >= sizeof(buf))
        return 0;
    memcpy(buf, w, len);
    buf[len] = '\0';
    n = strtol(buf, &end, 10);
    return *end == '\0' && n == (long)who->token + 1;
}

/* Whether every word of list holds for who (each), or some word does (any). */
static int access_words(const char *list, const struct principal *who, int every,
                        int (*holds)(const struct principal *, const char *, size_t))
{
    const char *at = list, *w;
    size_t len;

    while ((w = access_word(&at, &len)) != NULL) {
        if (holds(who, w, len) != every)
            return !every;
    }
    return every;
}

int access_matches(const struct config_access *a, const struct principal *who)
{
    if (who == NULL || (a->scopes == NULL && a->claims == NULL && a->tokens == NULL))
        return 0;
    if (a->scopes != NULL && !access_words(a->scopes, who, 1, access_has_scope))
        return 0;
    if (a->claims != NULL && !access_words(a->claims, who, 1, access_has_claim))
        return 0;
    return a->tokens == NULL || access_words(a->tokens, who, 0, access_is_token);
}

struct access_view access_view_of(const struct config *cfg, const struct principal *who)
{
    struct access_view v = {.all = 1};

    if (who == NULL || cfg->naccess == 0)
        return v;
    v.all = 0;
    for (size_t i = 0; i < cfg->naccess && i < LIMIT_ACCESS_SECTIONS; i++) {
        if (access_matches(&cfg->access[i], who))
            v.mask |= UINT64_C(1) << i;
    }
    return v;
}

int access_sees(const struct config *cfg, struct access_view v, int kind, const char *name)
{
    if (v.all)
        return 1;
    for (size_t i = 0; i < cfg->naccess && i < LIMIT_ACCESS_SECTIONS; i++) {
        const char *filter = cfg->access[i].filter[kind];

        /* A section that names no globs of this kind keeps none of it. */
        if ((v.mask & (UINT64_C(1) << i)) != 0 && filter != NULL && filter_keeps(filter, name))
            return 1;
    }
    return 0;
}

int access_same(struct access_view a, struct access_view b)
{
    return a.all == b.all && (a.all || a.mask == b.mask);
}
