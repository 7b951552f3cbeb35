/*
 * schema_check.c: checking a schema itself before it is served (schema_check): each keyword's
 * value against the keyword's own rule, every pattern compiled, every $ref resolved.
 */
#include "lib/schema.h"

#include "lib/limits.h"
#include "lib/schema_node.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

/* Whether pattern is a valid regular expression whose compiling is bounded. */
static int schema_pattern_ok(const char *pattern)
{
    regex_t re;

    if (!schema_pattern_bounded(pattern))
        return 0;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    regfree(&re);
    return 1;
}

/* --- schema_check: each keyword's value against the keyword's own rule, as JSON Schema's
 * meta-schema has it, for every keyword matching relies on; a subschema wherever one goes.
 * Unknown keywords are annotations, not checked. --- */

enum schema_rule {
    SCHEMA_R_SCHEMA = 1, /* one schema */
    SCHEMA_R_SCHEMAS,    /* a non-empty array of schemas */
    SCHEMA_R_ITEMS,      /* a schema, or draft-07's array of schemas */
    SCHEMA_R_MAP,        /* an object of schemas */
    SCHEMA_R_DEFS,       /* an object; its members that are schemas are checked ($ref finds
                          * them; anything else in it is never reached) */
    SCHEMA_R_PATTERNS,   /* an object of schemas named by regular expressions */
    SCHEMA_R_TYPE,
    SCHEMA_R_STRINGS, /* an array of unique strings */
    SCHEMA_R_ARRAY,
    SCHEMA_R_NUMBER,
    SCHEMA_R_POSITIVE,
    SCHEMA_R_COUNT, /* a non-negative integer */
    SCHEMA_R_BOUND, /* a number, or draft-04's boolean */
    SCHEMA_R_BOOL,
    SCHEMA_R_PATTERN,
    SCHEMA_R_REF,
};

static const struct schema_keyword {
    const char *key;
    int rule;
    const char *what; /* the rule, for messages */
} schema_keywords[] = {
    {"type", SCHEMA_R_TYPE,
     "a type name (object, array, string, number, integer, boolean, null) or a non-empty array "
     "of unique ones"},
    {"enum", SCHEMA_R_ARRAY, "an array"},
    {"required", SCHEMA_R_STRINGS, "an array of unique strings"},
    {"properties", SCHEMA_R_MAP, "an object of schemas"},
    {"patternProperties", SCHEMA_R_PATTERNS, "an object of schemas"},
    {"additionalProperties", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"items", SCHEMA_R_ITEMS, "a schema, or an array of schemas"},
    {"prefixItems", SCHEMA_R_SCHEMAS, "a non-empty array of schemas"},
    {"additionalItems", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"allOf", SCHEMA_R_SCHEMAS, "a non-empty array of schemas"},
    {"anyOf", SCHEMA_R_SCHEMAS, "a non-empty array of schemas"},
    {"oneOf", SCHEMA_R_SCHEMAS, "a non-empty array of schemas"},
    {"not", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"contains", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"propertyNames", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"if", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"then", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"else", SCHEMA_R_SCHEMA, "a schema (an object or a boolean)"},
    {"$defs", SCHEMA_R_DEFS, "an object"},
    {"definitions", SCHEMA_R_DEFS, "an object"},
    {"minimum", SCHEMA_R_NUMBER, "a number"},
    {"maximum", SCHEMA_R_NUMBER, "a number"},
    {"exclusiveMinimum", SCHEMA_R_BOUND, "a number (or, as in draft-04, a boolean)"},
    {"exclusiveMaximum", SCHEMA_R_BOUND, "a number (or, as in draft-04, a boolean)"},
    {"multipleOf", SCHEMA_R_POSITIVE, "a number greater than 0"},
    {"minLength", SCHEMA_R_COUNT, "a non-negative integer"},
    {"maxLength", SCHEMA_R_COUNT, "a non-negative integer"},
    {"minItems", SCHEMA_R_COUNT, "a non-negative integer"},
    {"maxItems", SCHEMA_R_COUNT, "a non-negative integer"},
    {"minProperties", SCHEMA_R_COUNT, "a non-negative integer"},
    {"maxProperties", SCHEMA_R_COUNT, "a non-negative integer"},
    {"uniqueItems", SCHEMA_R_BOOL, "a boolean"},
    {"pattern", SCHEMA_R_PATTERN, "a regular expression (a string)"},
    {"$ref", SCHEMA_R_REF, "a \"#...\" pointer inside the schema (a string)"},
    {0},
};

/* The walk: the root ($ref targets) and the JSON pointer of the subschema at hand. */
struct schema_walk {
    const cJSON *root;
    struct strbuf *err;
    char path[256];
    int depth;
};

static const char *schema_json_kind(const cJSON *v)
{
    return cJSON_IsObject(v)   ? "an object"
           : cJSON_IsArray(v)  ? "an array"
           : cJSON_IsString(v) ? "a string"
           : cJSON_IsNumber(v) ? "a number"
           : cJSON_IsBool(v)   ? "a boolean"
                               : "null";
}

static int schema_walk_node(struct schema_walk *w, const cJSON *node);

/* Walk into sub, found under `step` (and `index` when not NULL) of the current path. */
static int schema_walk_into(struct schema_walk *w, const cJSON *sub, const char *step,
                            const char *index)
{
    size_t len = strlen(w->path);
    int status;

    snprintf(w->path + len, sizeof(w->path) - len, "/%s%s%s", step, index ? "/" : "",
             index ? index : "");
    status = schema_walk_node(w, sub);
    w->path[len] = '\0';
    return status;
}

static int schema_is_count(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble == floor(v->valuedouble);
}

/* An array whose members are unique strings, those `allowed` accepts (NULL: any). */
static int schema_unique_strings(const cJSON *v, unsigned (*allowed)(const char *))
{
    const cJSON *a, *b;

    if (!cJSON_IsArray(v))
        return 0;
    cJSON_ArrayForEach(a, v)
    {
        if (!cJSON_IsString(a) || (allowed != NULL && allowed(a->valuestring) == 0))
            return 0;
        for (b = v->child; b != a; b = b->next) {
            if (strcmp(a->valuestring, b->valuestring) == 0)
                return 0;
        }
    }
    return 1;
}

/* Whether v has the shape of rule (schemas in it are walked apart). */
static int schema_shape_ok(const cJSON *v, int rule)
{
    switch (rule) {
    case SCHEMA_R_SCHEMA:
        return cJSON_IsObject(v) || cJSON_IsBool(v);
    case SCHEMA_R_SCHEMAS:
        return cJSON_IsArray(v) && v->child != NULL;
    case SCHEMA_R_ITEMS:
        return cJSON_IsObject(v) || cJSON_IsBool(v) || cJSON_IsArray(v);
    case SCHEMA_R_MAP:
    case SCHEMA_R_DEFS:
    case SCHEMA_R_PATTERNS:
        return cJSON_IsObject(v);
    case SCHEMA_R_TYPE:
        return cJSON_IsString(v) ? schema_type_bit(v->valuestring) != 0
                                 : v->child != NULL && schema_unique_strings(v, schema_type_bit);
    case SCHEMA_R_STRINGS:
        return schema_unique_strings(v, NULL);
    case SCHEMA_R_ARRAY:
        return cJSON_IsArray(v);
    case SCHEMA_R_NUMBER:
        return cJSON_IsNumber(v);
    case SCHEMA_R_POSITIVE:
        return cJSON_IsNumber(v) && v->valuedouble > 0;
    case SCHEMA_R_COUNT:
        return schema_is_count(v);
    case SCHEMA_R_BOUND:
        return cJSON_IsNumber(v) || cJSON_IsBool(v);
    case SCHEMA_R_BOOL:
        return cJSON_IsBool(v);
    default: /* SCHEMA_R_PATTERN, SCHEMA_R_REF */
        return cJSON_IsString(v);
    }
}

/* The schemas inside v, a keyword's value of rule `rule`. */
static int schema_walk_children(struct schema_walk *w, const char *key, const cJSON *v, int rule)
{
    const cJSON *e;
    char index[16];
    int i = 0;

    if (rule == SCHEMA_R_SCHEMA || (rule == SCHEMA_R_ITEMS && !cJSON_IsArray(v)))
        return schema_walk_into(w, v, key, NULL);
    cJSON_ArrayForEach(e, v)
    {
        int status = STATUS_OK;

        snprintf(index, sizeof(index), "%d", i++);
        if (rule == SCHEMA_R_PATTERNS && !schema_pattern_ok(e->string)) {
            (void)strbuf_addf(w->err,
                              "patternProperties name %s at #%s is not a valid regular "
                              "expression, or repeats more than %d times in all",
                              e->string, w->path, LIMIT_PATTERN_REPEAT);
            return STATUS_INVALID;
        }
        if (rule == SCHEMA_R_DEFS && !cJSON_IsObject(e) && !cJSON_IsBool(e))
            continue;
        status = schema_walk_into(w, e, key, e->string != NULL ? e->string : index);
        if (status != STATUS_OK)
            return status;
    }
    return STATUS_OK;
}

/* One keyword of the schema at hand. */
static int schema_walk_keyword(struct schema_walk *w, const struct schema_keyword *k,
                               const cJSON *v)
{
    if (!schema_shape_ok(v, k->rule)) {
        (void)strbuf_addf(w->err, "\"%s\" at #%s must be %s; it is %s", k->key, w->path, k->what,
                          schema_json_kind(v));
        return STATUS_INVALID;
    }
    if (k->rule == SCHEMA_R_PATTERN && !schema_pattern_ok(v->valuestring)) {
        (void)strbuf_addf(w->err,
                          "pattern %s at #%s is not a valid regular expression, or repeats "
                          "more than %d times in all ({m,n} bounds, multiplied through "
                          "nested groups)",
                          v->valuestring, w->path, LIMIT_PATTERN_REPEAT);
        return STATUS_INVALID;
    }
    if (k->rule == SCHEMA_R_REF && schema_resolve(w->root, v->valuestring) == NULL) {
        (void)strbuf_addf(w->err, "$ref %s at #%s does not resolve inside the schema",
                          v->valuestring, w->path);
        return STATUS_INVALID;
    }
    if (k->rule <= SCHEMA_R_PATTERNS)
        return schema_walk_children(w, k->key, v, k->rule);
    return STATUS_OK;
}

static int schema_walk_node(struct schema_walk *w, const cJSON *node)
{
    const cJSON *member;
    int status = STATUS_OK;

    if (cJSON_IsBool(node))
        return STATUS_OK;
    if (!cJSON_IsObject(node)) {
        (void)strbuf_addf(w->err, "the schema at #%s must be an object or a boolean; it is %s",
                          w->path, schema_json_kind(node));
        return STATUS_INVALID;
    }
    if (w->depth >= SCHEMA_MAX_DEPTH) {
        (void)strbuf_addf(w->err, "nested deeper than %d levels", SCHEMA_MAX_DEPTH);
        return STATUS_INVALID;
    }
    w->depth++;
    cJSON_ArrayForEach(member, node)
    {
        for (const struct schema_keyword *k = schema_keywords; k->key != NULL; k++) {
            if (status == STATUS_OK && strcmp(k->key, member->string) == 0)
                status = schema_walk_keyword(w, k, member);
        }
    }
    w->depth--;
    return status;
}

int schema_check(const cJSON *schema, struct strbuf *err)
{
    struct schema_walk w = {.root = schema, .err = err};

    return schema_walk_node(&w, schema);
}
