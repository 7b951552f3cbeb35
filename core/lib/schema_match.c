/*
 * schema_match.c: matching a value against a compiled schema (schema_match, schema_validate):
 * each keyword's check, with the path to the first value that fails in the message.
 */
#include "lib/schema.h"

#include "lib/limits.h"
#include "lib/schema_node.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One step from the value matched to the value being checked: a member or an element. */
struct schema_step {
    const char *name; /* borrowed from the value: the member's name; NULL for an element */
    int index;        /* the element's index */
};

struct schema_ctx {
    /* The JSON pointer of the value being checked, as steps: written out only for a
     * message. Every step is one level of schema nesting, so SCHEMA_MAX_DEPTH bounds it. */
    struct schema_step path[SCHEMA_MAX_DEPTH];
    int npath;
    struct strbuf *err;
    int depth;
    int quiet;  /* inside anyOf/oneOf/not: failures are expected, not reported */
    int broken; /* the schema itself cannot be followed (too deep, a $ref cycle) */
};

static int schema_fail(struct schema_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The path as a JSON pointer ('~' and '/' inside a name escaped as ~0 and ~1), "(root)" for
 * the value matched itself. A member name is the client's text: only its first
 * LIMIT_QUOTED_BYTES bytes are shown. */
static void schema_add_path(struct strbuf *sb, const struct schema_ctx *c)
{
    if (c->npath == 0)
        strbuf_addstr(sb, "(root)");
    for (int i = 0; i < c->npath; i++) {
        const char *name = c->path[i].name;

        if (name == NULL) {
            strbuf_addf(sb, "/%d", c->path[i].index);
            continue;
        }
        strbuf_addch(sb, '/');
        for (size_t k = 0; name[k] != '\0' && k < LIMIT_QUOTED_BYTES; k++) {
            if (name[k] == '~' || name[k] == '/')
                strbuf_add(sb, name[k] == '~' ? "~0" : "~1", 2);
            else
                strbuf_addch(sb, name[k]);
        }
    }
}

/* Replace err with "PATH: what" (unless quiet, when failures are expected). */
static int schema_fail(struct schema_ctx *c, const char *fmt, ...)
{
    va_list ap;

    if (c->quiet)
        return STATUS_INVALID;
    strbuf_reset(c->err);
    schema_add_path(c->err, c);
    strbuf_addstr(c->err, ": ");
    va_start(ap, fmt);
    strbuf_vaddf(c->err, fmt, ap);
    va_end(ap);
    return STATUS_INVALID;
}

static unsigned schema_type_of(const cJSON *v, const char **name)
{
    const struct schema_type *t = schema_type_names;

    while (t->is != NULL && !t->is(v))
        t++;
    /* A number: any finite whole one is an integer to JSON Schema, whatever its magnitude. */
    if (t->is == NULL && !(isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble)))
        t++;
    *name = t->name;
    return t->bit;
}

static int schema_match_node(struct schema_ctx *c, const struct schema_node *n, const cJSON *v);
static int schema_too_deep(struct schema_ctx *c);

/* Check v, member `name` (NULL: element `index`) of the value being checked, against sub. */
static int schema_at(struct schema_ctx *c, const struct schema_node *sub, const cJSON *v,
                     const char *name, int index)
{
    int status;

    /* Not reached (each step is a level of nesting, refused past SCHEMA_MAX_DEPTH), but the
     * array must not overflow if that changes. */
    if (c->npath == SCHEMA_MAX_DEPTH)
        return schema_too_deep(c);
    c->path[c->npath++] = (struct schema_step){.name = name, .index = index};
    status = schema_match_node(c, sub, v);
    c->npath--;
    return status;
}

static int schema_types(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    const char *actual;
    unsigned bit;

    if (n->type_name == NULL && !n->type_list)
        return STATUS_OK;
    bit = schema_type_of(v, &actual);
    if (n->types & bit)
        return STATUS_OK;
    if (n->type_list)
        return schema_fail(c, "%s is not one of the allowed types", actual);
    return schema_fail(c, "expected %s, got %s", n->type_name, actual);
}

static int schema_enum(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    const cJSON *e;

    if (n->konst != NULL && !cJSON_Compare(n->konst, v, 1))
        return schema_fail(c, "must be the constant value");
    if (n->enum_list == NULL)
        return STATUS_OK;
    cJSON_ArrayForEach(e, n->enum_list)
    {
        if (cJSON_Compare(e, v, 1))
            return STATUS_OK;
    }
    return schema_fail(c, "must be one of the enum values");
}

static int schema_number(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    double x = v->valuedouble;
    const cJSON *min = n->minimum, *max = n->maximum, *xmin = n->xmin, *xmax = n->xmax;

    /* draft-04: exclusiveMinimum/Maximum are booleans that make minimum/maximum strict. */
    if (min != NULL && (cJSON_IsTrue(xmin) ? x <= min->valuedouble : x < min->valuedouble))
        return schema_fail(c, "must be %s %g", cJSON_IsTrue(xmin) ? ">" : ">=", min->valuedouble);
    if (max != NULL && (cJSON_IsTrue(xmax) ? x >= max->valuedouble : x > max->valuedouble))
        return schema_fail(c, "must be %s %g", cJSON_IsTrue(xmax) ? "<" : "<=", max->valuedouble);
    if (cJSON_IsNumber(xmin) && x <= xmin->valuedouble)
        return schema_fail(c, "must be > %g", xmin->valuedouble);
    if (cJSON_IsNumber(xmax) && x >= xmax->valuedouble)
        return schema_fail(c, "must be < %g", xmax->valuedouble);
    if (n->multiple_of != NULL && n->multiple_of->valuedouble > 0) {
        double m = n->multiple_of->valuedouble;
        double rem = fabs(fmod(x, m));
        /* x and m are binary approximations of decimals: allow the rounding error of x's
         * magnitude, and a sliver of m. */
        double eps = fabs(x) * 8 * DBL_EPSILON + m * 1e-9;

        if (rem > eps && m - rem > eps)
            return schema_fail(c, "must be a multiple of %g", m);
    }
    return STATUS_OK;
}

static size_t schema_codepoints(const char *s)
{
    size_t n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static int schema_string(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    size_t len;

    if (n->min_length == NULL && n->max_length == NULL && n->pattern_text == NULL)
        return STATUS_OK;
    len = schema_codepoints(v->valuestring);
    if (n->min_length != NULL && (double)len < n->min_length->valuedouble)
        return schema_fail(c, "must be at least %g characters long", n->min_length->valuedouble);
    if (n->max_length != NULL && (double)len > n->max_length->valuedouble)
        return schema_fail(c, "must be at most %g characters long", n->max_length->valuedouble);
    if (n->pattern_text != NULL && regexec(&n->pattern, v->valuestring, 0, NULL, 0) != 0)
        return schema_fail(c, "must match the pattern %s", n->pattern_text);
    return STATUS_OK;
}

static int schema_items(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    int i = 0;
    const cJSON *e;

    if (n->prefix.n == 0 && n->items == NULL)
        return STATUS_OK;
    cJSON_ArrayForEach(e, v)
    {
        const struct schema_node *sub = (size_t)i < n->prefix.n ? n->prefix.at[i] : n->items;

        if (sub != NULL && schema_at(c, sub, e, NULL, i) != STATUS_OK)
            return STATUS_INVALID;
        i++;
    }
    return STATUS_OK;
}

static int schema_array(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    int size = cJSON_GetArraySize(v);

    if (n->min_items != NULL && size < n->min_items->valuedouble)
        return schema_fail(c, "must have at least %g items", n->min_items->valuedouble);
    if (n->max_items != NULL && size > n->max_items->valuedouble)
        return schema_fail(c, "must have at most %g items", n->max_items->valuedouble);
    if (n->unique) {
        for (const cJSON *a = v->child; a != NULL; a = a->next) {
            for (const cJSON *b = a->next; b != NULL; b = b->next) {
                if (cJSON_Compare(a, b, 1))
                    return schema_fail(c, "items must be unique");
            }
        }
    }
    return schema_items(c, n, v);
}

static const struct schema_node *schema_prop(const struct schema_node *n, const char *key)
{
    for (size_t i = 0; i < n->nprops; i++) {
        if (strcmp(n->props[i].name, key) == 0)
            return n->props[i].node;
    }
    return NULL;
}

/* One member: its property's schema, the patterns it matches, else additionalProperties. */
static int schema_member(struct schema_ctx *c, const struct schema_node *n, const cJSON *m)
{
    const struct schema_node *sub = schema_prop(n, m->string);
    int patterned = 0;

    if (sub != NULL && schema_at(c, sub, m, m->string, 0) != STATUS_OK)
        return STATUS_INVALID;
    for (size_t i = 0; i < n->npprops; i++) {
        if (!n->pprops[i].ok || regexec(&n->pprops[i].re, m->string, 0, NULL, 0) != 0)
            continue;
        patterned = 1;
        if (schema_at(c, n->pprops[i].node, m, m->string, 0) != STATUS_OK)
            return STATUS_INVALID;
    }
    if (!n->check_additional || sub != NULL || patterned)
        return STATUS_OK;
    if (n->additional_false)
        return schema_fail(c, "unexpected property '%.*s'", (int)LIMIT_QUOTED_BYTES, m->string);
    if (n->additional != NULL && schema_at(c, n->additional, m, m->string, 0) != STATUS_OK)
        return STATUS_INVALID;
    return STATUS_OK;
}

static int schema_object(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    const cJSON *m;
    int size;

    for (size_t i = 0; i < n->nrequired; i++) {
        if (cJSON_GetObjectItemCaseSensitive(v, n->required[i]) == NULL)
            return schema_fail(c, "missing required property '%s'", n->required[i]);
    }
    if (n->min_props != NULL || n->max_props != NULL) {
        size = cJSON_GetArraySize(v);
        if (n->min_props != NULL && size < n->min_props->valuedouble)
            return schema_fail(c, "must have at least %g properties", n->min_props->valuedouble);
        if (n->max_props != NULL && size > n->max_props->valuedouble)
            return schema_fail(c, "must have at most %g properties", n->max_props->valuedouble);
    }
    if (n->nprops == 0 && n->npprops == 0 && !n->check_additional)
        return STATUS_OK;
    cJSON_ArrayForEach(m, v)
    {
        if (schema_member(c, n, m) != STATUS_OK)
            return STATUS_INVALID;
    }
    return STATUS_OK;
}

/* How many schemas of the list v matches (quietly). */
static int schema_count_matches(struct schema_ctx *c, const struct schema_list *list,
                                const cJSON *v)
{
    int quiet = c->quiet, n = 0;

    c->quiet = 1;
    for (size_t i = 0; i < list->n; i++)
        n += schema_match_node(c, list->at[i], v) == STATUS_OK;
    c->quiet = quiet;
    return n;
}

static int schema_combinators(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    for (size_t i = 0; i < n->all_of.n; i++) {
        if (schema_match_node(c, n->all_of.at[i], v) != STATUS_OK)
            return STATUS_INVALID;
    }
    if (n->any_of.present && schema_count_matches(c, &n->any_of, v) == 0 && !c->broken)
        return schema_fail(c, "matches none of the anyOf schemas");
    if (n->one_of.present) {
        int k = schema_count_matches(c, &n->one_of, v);

        if (c->broken)
            return STATUS_INVALID;
        if (k != 1)
            return schema_fail(c, "matches %d of the oneOf schemas, not exactly one", k);
    }
    if (n->not != NULL) {
        int quiet = c->quiet, ok;

        c->quiet = 1;
        ok = schema_match_node(c, n->not, v) == STATUS_OK;
        c->quiet = quiet;
        if (c->broken)
            return STATUS_INVALID;
        if (ok)
            return schema_fail(c, "must not match the 'not' schema");
    }
    return STATUS_OK;
}

static int schema_by_type(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return schema_number(c, n, v);
    if (cJSON_IsString(v))
        return schema_string(c, n, v);
    if (cJSON_IsArray(v))
        return schema_array(c, n, v);
    if (cJSON_IsObject(v))
        return schema_object(c, n, v);
    return STATUS_OK;
}

/* Not a mismatch but a schema that cannot be followed: never silenced, and never turned
 * into a match by not/anyOf/oneOf. */
static int schema_too_deep(struct schema_ctx *c)
{
    int quiet = c->quiet;

    c->quiet = 0;
    schema_fail(c, "schema nests or refers deeper than %d levels", SCHEMA_MAX_DEPTH);
    c->quiet = quiet;
    c->broken = 1;
    return STATUS_INVALID;
}

static int schema_match_node(struct schema_ctx *c, const struct schema_node *n, const cJSON *v)
{
    int status = STATUS_OK;

    if (n->kind == SCHEMA_TRUE || n->kind == SCHEMA_ANY)
        return STATUS_OK;
    if (n->kind == SCHEMA_FALSE)
        return schema_fail(c, "no value is allowed here");
    if (c->broken)
        return STATUS_INVALID;
    if (++c->depth > SCHEMA_MAX_DEPTH) {
        c->depth--;
        return schema_too_deep(c);
    }
    if (n->ref != NULL)
        status = schema_match_node(c, n->ref, v);
    else if (n->ref_unresolved != NULL)
        status = schema_fail(c, "cannot resolve $ref %s", n->ref_unresolved);
    if (status == STATUS_OK)
        status = schema_types(c, n, v);
    if (status == STATUS_OK)
        status = schema_enum(c, n, v);
    if (status == STATUS_OK)
        status = schema_by_type(c, n, v);
    if (status == STATUS_OK)
        status = schema_combinators(c, n, v);
    c->depth--;
    return status;
}

int schema_match(const struct schema *s, const cJSON *value, struct strbuf *err)
{
    struct schema_ctx c;

    /* Not zeroed whole: the path steps are written before they are read. */
    c.npath = c.depth = c.quiet = c.broken = 0;
    c.err = err;
    strbuf_reset(err);
    return schema_match_node(&c, s->top, value);
}

int schema_validate(const cJSON *schema, const cJSON *value, struct strbuf *err)
{
    struct schema *s;
    int status = schema_compile(schema, &s);

    if (status != STATUS_OK) {
        strbuf_reset(err);
        strbuf_addstr(err, "(root): out of memory compiling the schema");
        return status;
    }
    status = schema_match(s, value, err);
    schema_free(s);
    return status;
}
