#include "schema.h"

#include "status.h"

#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* $ref chains and nesting deeper than this are refused rather than followed. */
#define SCHEMA_MAX_DEPTH 64

struct schema_ctx {
    const cJSON *root;
    char path[512]; /* JSON pointer of the value being checked */
    size_t pathlen;
    char *err;
    size_t errlen;
    int depth;
    int quiet;  /* inside anyOf/oneOf/not: failures are expected, not reported */
    int broken; /* the schema itself cannot be followed (too deep, a $ref cycle) */
};

static int schema_fail(struct schema_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int schema_fail(struct schema_ctx *c, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (c->quiet)
        return STATUS_INVALID;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s: %s", c->pathlen ? c->path : "(root)", what);
    return STATUS_INVALID;
}

static const char *schema_type_of(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNull(v))
        return "null";
    /* Any finite whole number is an integer to JSON Schema, whatever its magnitude. */
    return isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) ? "integer"
                                                                               : "number";
}

static int schema_is_type(const cJSON *v, const char *type)
{
    const char *actual = schema_type_of(v);

    if (strcmp(type, actual) == 0)
        return 1;
    return strcmp(type, "number") == 0 && strcmp(actual, "integer") == 0;
}

/* The schema a "#..." pointer names inside the root, or NULL. */
static const cJSON *schema_resolve(const cJSON *root, const char *ref)
{
    const cJSON *node = root;
    char token[256];

    if (ref[0] != '#')
        return NULL;
    ref++;
    while (*ref == '/') {
        size_t n = 0;

        ref++;
        while (*ref != '\0' && *ref != '/' && n + 1 < sizeof(token)) {
            if (ref[0] == '~' && (ref[1] == '0' || ref[1] == '1')) {
                token[n++] = ref[1] == '0' ? '~' : '/';
                ref += 2;
            } else {
                token[n++] = *ref++;
            }
        }
        token[n] = '\0';
        if (cJSON_IsArray(node))
            node = cJSON_GetArrayItem(node, atoi(token));
        else
            node = cJSON_GetObjectItemCaseSensitive(node, token);
        if (node == NULL)
            return NULL;
    }
    return *ref == '\0' ? node : NULL;
}

static int schema_check_value(struct schema_ctx *c, const cJSON *schema, const cJSON *v);

/* Check v against sub with `seg` appended to the path. */
static int schema_at(struct schema_ctx *c, const cJSON *sub, const cJSON *v, const char *seg)
{
    size_t saved = c->pathlen;
    int status;

    /* A JSON pointer: '~' and '/' inside a name are escaped as ~0 and ~1. */
    if (saved + 2 * strlen(seg) + 2 < sizeof(c->path)) {
        c->path[c->pathlen++] = '/';
        for (const char *p = seg; *p != '\0'; p++) {
            if (*p == '~' || *p == '/') {
                c->path[c->pathlen++] = '~';
                c->path[c->pathlen++] = *p == '~' ? '0' : '1';
            } else {
                c->path[c->pathlen++] = *p;
            }
        }
        c->path[c->pathlen] = '\0';
    }
    status = schema_check_value(c, sub, v);
    c->pathlen = saved;
    c->path[saved] = '\0';
    return status;
}

static int schema_types(struct schema_ctx *c, const cJSON *type, const cJSON *v)
{
    const cJSON *t;

    if (cJSON_IsString(type)) {
        if (schema_is_type(v, type->valuestring))
            return STATUS_OK;
        return schema_fail(c, "expected %s, got %s", type->valuestring, schema_type_of(v));
    }
    if (!cJSON_IsArray(type))
        return STATUS_OK;
    cJSON_ArrayForEach(t, type)
    {
        if (cJSON_IsString(t) && schema_is_type(v, t->valuestring))
            return STATUS_OK;
    }
    return schema_fail(c, "%s is not one of the allowed types", schema_type_of(v));
}

static int schema_enum(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(schema, "enum");
    const cJSON *konst = cJSON_GetObjectItemCaseSensitive(schema, "const");
    const cJSON *e;

    if (konst != NULL && !cJSON_Compare(konst, v, 1))
        return schema_fail(c, "must be the constant value");
    if (!cJSON_IsArray(list))
        return STATUS_OK;
    cJSON_ArrayForEach(e, list)
    {
        if (cJSON_Compare(e, v, 1))
            return STATUS_OK;
    }
    return schema_fail(c, "must be one of the enum values");
}

static const cJSON *schema_num(const cJSON *schema, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(schema, key);

    return cJSON_IsNumber(n) ? n : NULL;
}

static int schema_number(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    double x = v->valuedouble;
    const cJSON *min = schema_num(schema, "minimum"), *max = schema_num(schema, "maximum");
    const cJSON *xmin = cJSON_GetObjectItemCaseSensitive(schema, "exclusiveMinimum");
    const cJSON *xmax = cJSON_GetObjectItemCaseSensitive(schema, "exclusiveMaximum");
    const cJSON *mult = schema_num(schema, "multipleOf");

    /* draft-04: exclusiveMinimum/Maximum are booleans that make minimum/maximum strict. */
    if (min != NULL && (cJSON_IsTrue(xmin) ? x <= min->valuedouble : x < min->valuedouble))
        return schema_fail(c, "must be %s %g", cJSON_IsTrue(xmin) ? ">" : ">=", min->valuedouble);
    if (max != NULL && (cJSON_IsTrue(xmax) ? x >= max->valuedouble : x > max->valuedouble))
        return schema_fail(c, "must be %s %g", cJSON_IsTrue(xmax) ? "<" : "<=", max->valuedouble);
    if (cJSON_IsNumber(xmin) && x <= xmin->valuedouble)
        return schema_fail(c, "must be > %g", xmin->valuedouble);
    if (cJSON_IsNumber(xmax) && x >= xmax->valuedouble)
        return schema_fail(c, "must be < %g", xmax->valuedouble);
    if (mult != NULL && mult->valuedouble > 0) {
        double m = mult->valuedouble;
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

static int schema_pattern_match(const char *pattern, const char *s, int *matched)
{
    regex_t re;

    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return STATUS_INVALID;
    *matched = regexec(&re, s, 0, NULL, 0) == 0;
    regfree(&re);
    return STATUS_OK;
}

static int schema_string(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    size_t len = schema_codepoints(v->valuestring);
    const cJSON *min = schema_num(schema, "minLength"), *max = schema_num(schema, "maxLength");
    const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(schema, "pattern");
    int matched = 1;

    if (min != NULL && (double)len < min->valuedouble)
        return schema_fail(c, "must be at least %g characters long", min->valuedouble);
    if (max != NULL && (double)len > max->valuedouble)
        return schema_fail(c, "must be at most %g characters long", max->valuedouble);
    if (cJSON_IsString(pattern) &&
        schema_pattern_match(pattern->valuestring, v->valuestring, &matched) == STATUS_OK &&
        !matched)
        return schema_fail(c, "must match the pattern %s", pattern->valuestring);
    return STATUS_OK;
}

static int schema_items(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items");
    const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(schema, "prefixItems");
    int nprefix = 0, i = 0;
    const cJSON *e;
    char seg[24];

    /* draft-07 tuple form: items is an array of schemas. */
    if (cJSON_IsArray(items)) {
        prefix = items;
        items = cJSON_GetObjectItemCaseSensitive(schema, "additionalItems");
    }
    if (cJSON_IsArray(prefix))
        nprefix = cJSON_GetArraySize(prefix);
    cJSON_ArrayForEach(e, v)
    {
        const cJSON *sub = i < nprefix ? cJSON_GetArrayItem(prefix, i) : items;

        snprintf(seg, sizeof(seg), "%d", i++);
        if (sub != NULL && schema_at(c, sub, e, seg) != STATUS_OK)
            return STATUS_INVALID;
    }
    return STATUS_OK;
}

static int schema_array(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    int n = cJSON_GetArraySize(v);
    const cJSON *min = schema_num(schema, "minItems"), *max = schema_num(schema, "maxItems");

    if (min != NULL && n < min->valuedouble)
        return schema_fail(c, "must have at least %g items", min->valuedouble);
    if (max != NULL && n > max->valuedouble)
        return schema_fail(c, "must have at most %g items", max->valuedouble);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(schema, "uniqueItems"))) {
        for (const cJSON *a = v->child; a != NULL; a = a->next) {
            for (const cJSON *b = a->next; b != NULL; b = b->next) {
                if (cJSON_Compare(a, b, 1))
                    return schema_fail(c, "items must be unique");
            }
        }
    }
    return schema_items(c, schema, v);
}

/* additionalProperties applies to members that neither properties nor patternProperties
 * name. */
static int schema_is_additional(const cJSON *schema, const char *key)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *patterns = cJSON_GetObjectItemCaseSensitive(schema, "patternProperties");
    const cJSON *p;
    int matched = 0;

    if (cJSON_GetObjectItemCaseSensitive(props, key) != NULL)
        return 0;
    cJSON_ArrayForEach(p, patterns)
    {
        if (schema_pattern_match(p->string, key, &matched) == STATUS_OK && matched)
            return 0;
    }
    return 1;
}

static int schema_members(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *patterns = cJSON_GetObjectItemCaseSensitive(schema, "patternProperties");
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
    const cJSON *m, *p;
    int matched;

    cJSON_ArrayForEach(m, v)
    {
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(props, m->string);

        if (sub != NULL && schema_at(c, sub, m, m->string) != STATUS_OK)
            return STATUS_INVALID;
        cJSON_ArrayForEach(p, patterns)
        {
            if (schema_pattern_match(p->string, m->string, &matched) == STATUS_OK && matched &&
                schema_at(c, p, m, m->string) != STATUS_OK)
                return STATUS_INVALID;
        }
        if (extra == NULL || !schema_is_additional(schema, m->string))
            continue;
        if (cJSON_IsFalse(extra))
            return schema_fail(c, "unexpected property '%s'", m->string);
        if (cJSON_IsObject(extra) && schema_at(c, extra, m, m->string) != STATUS_OK)
            return STATUS_INVALID;
    }
    return STATUS_OK;
}

static int schema_object(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(schema, "required");
    const cJSON *min = schema_num(schema, "minProperties");
    const cJSON *max = schema_num(schema, "maxProperties");
    int n = cJSON_GetArraySize(v);
    const cJSON *r;

    cJSON_ArrayForEach(r, required)
    {
        if (cJSON_IsString(r) && cJSON_GetObjectItemCaseSensitive(v, r->valuestring) == NULL)
            return schema_fail(c, "missing required property '%s'", r->valuestring);
    }
    if (min != NULL && n < min->valuedouble)
        return schema_fail(c, "must have at least %g properties", min->valuedouble);
    if (max != NULL && n > max->valuedouble)
        return schema_fail(c, "must have at most %g properties", max->valuedouble);
    return schema_members(c, schema, v);
}

/* How many schemas of the list v matches (quietly). */
static int schema_count_matches(struct schema_ctx *c, const cJSON *list, const cJSON *v)
{
    int quiet = c->quiet, n = 0;
    const cJSON *s;

    c->quiet = 1;
    cJSON_ArrayForEach(s, list)
    {
        n += schema_check_value(c, s, v) == STATUS_OK;
    }
    c->quiet = quiet;
    return n;
}

static int schema_combinators(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(schema, "allOf");
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(schema, "anyOf");
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(schema, "oneOf");
    const cJSON *not = cJSON_GetObjectItemCaseSensitive(schema, "not");
    const cJSON *s;

    cJSON_ArrayForEach(s, all)
    {
        if (schema_check_value(c, s, v) != STATUS_OK)
            return STATUS_INVALID;
    }
    if (cJSON_IsArray(any) && schema_count_matches(c, any, v) == 0 && !c->broken)
        return schema_fail(c, "matches none of the anyOf schemas");
    if (cJSON_IsArray(one)) {
        int n = schema_count_matches(c, one, v);

        if (c->broken)
            return STATUS_INVALID;
        if (n != 1)
            return schema_fail(c, "matches %d of the oneOf schemas, not exactly one", n);
    }
    if (not != NULL) {
        int quiet = c->quiet, ok;

        c->quiet = 1;
        ok = schema_check_value(c, not, v) == STATUS_OK;
        c->quiet = quiet;
        if (c->broken)
            return STATUS_INVALID;
        if (ok)
            return schema_fail(c, "must not match the 'not' schema");
    }
    return STATUS_OK;
}

static int schema_by_type(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return schema_number(c, schema, v);
    if (cJSON_IsString(v))
        return schema_string(c, schema, v);
    if (cJSON_IsArray(v))
        return schema_array(c, schema, v);
    if (cJSON_IsObject(v))
        return schema_object(c, schema, v);
    return STATUS_OK;
}

static int schema_check_value(struct schema_ctx *c, const cJSON *schema, const cJSON *v)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(schema, "$ref");
    int status = STATUS_OK;

    if (cJSON_IsBool(schema))
        return cJSON_IsTrue(schema) ? STATUS_OK : schema_fail(c, "no value is allowed here");
    if (!cJSON_IsObject(schema))
        return STATUS_OK;
    if (c->broken)
        return STATUS_INVALID;
    if (++c->depth > SCHEMA_MAX_DEPTH) {
        int quiet = c->quiet;

        c->depth--;
        /* Not a mismatch but a schema that cannot be followed: never silenced, and never
         * turned into a match by not/anyOf/oneOf. */
        c->quiet = 0;
        schema_fail(c, "schema nests or refers deeper than %d levels", SCHEMA_MAX_DEPTH);
        c->quiet = quiet;
        c->broken = 1;
        return STATUS_INVALID;
    }
    if (cJSON_IsString(ref)) {
        const cJSON *target = schema_resolve(c->root, ref->valuestring);

        status = target ? schema_check_value(c, target, v)
                        : schema_fail(c, "cannot resolve $ref %s", ref->valuestring);
    }
    if (status == STATUS_OK)
        status = schema_types(c, cJSON_GetObjectItemCaseSensitive(schema, "type"), v);
    if (status == STATUS_OK)
        status = schema_enum(c, schema, v);
    if (status == STATUS_OK)
        status = schema_by_type(c, schema, v);
    if (status == STATUS_OK)
        status = schema_combinators(c, schema, v);
    c->depth--;
    return status;
}

int schema_validate(const cJSON *schema, const cJSON *value, char *err, size_t errlen)
{
    struct schema_ctx c = {.root = schema, .err = err, .errlen = errlen};

    if (errlen > 0)
        err[0] = '\0';
    return schema_check_value(&c, schema, value);
}

/* The member names of patternProperties are regular expressions too. */
static int schema_check_names(const cJSON *patterns, char *err, size_t errlen)
{
    const cJSON *p;
    int matched;

    cJSON_ArrayForEach(p, patterns)
    {
        if (schema_pattern_match(p->string, "", &matched) != STATUS_OK) {
            snprintf(err, errlen, "patternProperties name %s is not a valid regular expression",
                     p->string);
            return STATUS_INVALID;
        }
    }
    return STATUS_OK;
}

/* Walk every subschema: patterns compile, $refs resolve. */
static int schema_walk(const cJSON *root, const cJSON *node, char *err, size_t errlen, int depth)
{
    const cJSON *child;
    int matched;

    if (depth > SCHEMA_MAX_DEPTH) {
        snprintf(err, errlen, "nested deeper than %d levels", SCHEMA_MAX_DEPTH);
        return STATUS_INVALID;
    }
    cJSON_ArrayForEach(child, node)
    {
        const char *key = child->string;

        /* Values, not schemas: whatever they hold is data. */
        if (key != NULL && (strcmp(key, "const") == 0 || strcmp(key, "enum") == 0 ||
                            strcmp(key, "default") == 0 || strcmp(key, "examples") == 0))
            continue;
        if (key != NULL && strcmp(key, "patternProperties") == 0 &&
            schema_check_names(child, err, errlen) != STATUS_OK)
            return STATUS_INVALID;
        if (key != NULL && strcmp(key, "pattern") == 0 && cJSON_IsString(child) &&
            schema_pattern_match(child->valuestring, "", &matched) != STATUS_OK) {
            snprintf(err, errlen, "pattern %s is not a valid regular expression",
                     child->valuestring);
            return STATUS_INVALID;
        }
        if (key != NULL && strcmp(key, "$ref") == 0 && cJSON_IsString(child) &&
            schema_resolve(root, child->valuestring) == NULL) {
            snprintf(err, errlen, "$ref %s does not resolve inside the schema", child->valuestring);
            return STATUS_INVALID;
        }
        if ((cJSON_IsObject(child) || cJSON_IsArray(child)) &&
            schema_walk(root, child, err, errlen, depth + 1) != STATUS_OK)
            return STATUS_INVALID;
    }
    return STATUS_OK;
}

int schema_check(const cJSON *schema, char *err, size_t errlen)
{
    return schema_walk(schema, schema, err, errlen, 0);
}
