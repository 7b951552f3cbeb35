#include "lib/schema.h"

#include "lib/limits.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* $ref chains and nesting deeper than this are refused rather than followed. */
#define SCHEMA_MAX_DEPTH 64

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

/*
 * The compiled form. Every schema object becomes a node whose keywords are read once: the
 * numbers and lists a check needs are at hand, patterns are compiled regular expressions,
 * properties a table, and $ref a pointer to the node it names (cycles included). Values a check
 * compares with (const, enum, the numbers) stay borrowed from the source schema, which must
 * outlive the compiled one.
 */
enum schema_kind {
    SCHEMA_ANY = 0, /* not an object: nothing to check */
    SCHEMA_TRUE,
    SCHEMA_FALSE,
    SCHEMA_OBJECT,
};

enum schema_types {
    SCHEMA_T_OBJECT = 1u << 0,
    SCHEMA_T_ARRAY = 1u << 1,
    SCHEMA_T_STRING = 1u << 2,
    SCHEMA_T_BOOLEAN = 1u << 3,
    SCHEMA_T_NULL = 1u << 4,
    SCHEMA_T_INTEGER = 1u << 5,
    SCHEMA_T_NUMBER = 1u << 6,
};

struct schema_node;

struct schema_list {
    struct schema_node **at; /* owned array of nodes owned by the schema */
    size_t n;
    int present; /* the keyword is there (anyOf/oneOf: as an array) */
};

struct schema_prop {
    const char *name; /* borrowed from the source */
    struct schema_node *node;
};

struct schema_pattern_prop {
    regex_t re;
    int ok; /* re compiled */
    struct schema_node *node;
};

struct schema_node {
    int kind; /* enum schema_kind */
    struct schema_node *next_alloc;
    const struct schema_node *ref; /* $ref resolved, or NULL */
    const char *ref_unresolved;    /* a $ref that names nothing: every value fails */
    const char *type_name;         /* type as one string, or NULL */
    unsigned types;                /* enum schema_types of type (string or list) */
    int type_list;                 /* type is a list */
    const cJSON *konst, *enum_list;
    const cJSON *minimum, *maximum, *xmin, *xmax, *multiple_of;
    const cJSON *min_length, *max_length;
    regex_t pattern;
    const char *pattern_text; /* pattern compiled into `pattern`, or NULL */
    const cJSON *min_items, *max_items;
    int unique;
    struct schema_list prefix; /* prefixItems, or draft-07 items as an array */
    struct schema_node *items; /* the items past the prefix, or NULL */
    const char **required;     /* owned array of borrowed names */
    size_t nrequired;
    const cJSON *min_props, *max_props;
    struct schema_prop *props; /* owned */
    size_t nprops;
    struct schema_pattern_prop *pprops; /* owned */
    size_t npprops;
    struct schema_node *additional; /* additionalProperties as a schema, or NULL */
    int additional_false;           /* additionalProperties: false */
    int check_additional;           /* additionalProperties is there */
    struct schema_list all_of, any_of, one_of;
    struct schema_node * not ;
};

/* A $ref target compiled once: cycles come back to the same node. */
struct schema_memo {
    const cJSON *source;
    struct schema_node *node;
};

struct schema {
    const cJSON *root;
    struct schema_node *top;
    struct schema_node *nodes; /* every node, for freeing */
    struct schema_memo *memo;  /* owned */
    size_t nmemo, memo_cap;
    int nomem;
};

static struct schema_node *schema_compile_node(struct schema *s, const cJSON *src);
static struct schema_node *schema_compile_target(struct schema *s, const cJSON *src);

static struct schema_node *schema_new_node(struct schema *s)
{
    struct schema_node *n = calloc(1, sizeof(*n));

    if (n == NULL) {
        s->nomem = 1;
        return NULL;
    }
    n->next_alloc = s->nodes;
    s->nodes = n;
    return n;
}

/* The JSON Schema type names: the bit of a value of that type, what "type": NAME accepts
 * ("number" takes integers too), and how cJSON tells it (numbers are told apart by value). */
static const struct schema_type {
    const char *name;
    unsigned bit;
    unsigned accepts;
    int (*is)(const cJSON *);
} schema_type_names[] = {
    {"object", SCHEMA_T_OBJECT, SCHEMA_T_OBJECT, cJSON_IsObject},
    {"array", SCHEMA_T_ARRAY, SCHEMA_T_ARRAY, cJSON_IsArray},
    {"string", SCHEMA_T_STRING, SCHEMA_T_STRING, cJSON_IsString},
    {"boolean", SCHEMA_T_BOOLEAN, SCHEMA_T_BOOLEAN, cJSON_IsBool},
    {"null", SCHEMA_T_NULL, SCHEMA_T_NULL, cJSON_IsNull},
    {"integer", SCHEMA_T_INTEGER, SCHEMA_T_INTEGER, NULL},
    {"number", SCHEMA_T_NUMBER, SCHEMA_T_NUMBER | SCHEMA_T_INTEGER, NULL},
    {0},
};

static unsigned schema_type_bit(const char *name)
{
    for (const struct schema_type *t = schema_type_names; t->name != NULL; t++) {
        if (strcmp(t->name, name) == 0)
            return t->accepts;
    }
    return 0;
}

static const cJSON *schema_num(const cJSON *schema, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(schema, key);

    return cJSON_IsNumber(n) ? n : NULL;
}

/* The ']' that ends the bracket expression opening at p ('['), or NULL. A ']' first in the
 * list (after an optional '^') is one of its characters; so is anything inside [:class:],
 * [.coll.] and [=equiv=]. */
static const char *schema_bracket_end(const char *p)
{
    p += p[1] == '^' ? 2 : 1;
    if (*p == ']')
        p++;
    while (*p != '\0' && *p != ']') {
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            const char *close = strchr(p + 2, ']');

            if (close == NULL)
                return NULL;
            p = close;
        }
        p++;
    }
    return *p == ']' ? p : NULL;
}

/* glibc's regex compiler copies a bounded repetition's atom once per count, and copies of
 * copies for nested bounds: "[a-z]{,9004}" takes 1.2 GB to compile, "(x{0,255}){0,255}" more
 * than the machine has. A pattern is compiled only when each bound is at most
 * LIMIT_PATTERN_REPEAT and so is the product of the bounds around any atom (groups nested
 * within groups); "*" and "+" copy nothing. The scan is of POSIX extended syntax; what is
 * not a pattern at all is left to regcomp to refuse. */
static int schema_pattern_bounded(const char *p)
{
    unsigned long inner[LIMIT_JSON_DEPTH + 1]; /* the largest product within each open group */
    unsigned long last = 1; /* the product within the atom just read (a group's, or 1) */
    int depth = 0;

    inner[0] = 1;
    for (; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
            last = 1;
        } else if (*p == '[') {
            p = schema_bracket_end(p);
            if (p == NULL)
                return 1;
            last = 1;
        } else if (*p == '(') {
            if (depth == LIMIT_JSON_DEPTH)
                return 0;
            inner[++depth] = 1;
        } else if (*p == ')' && depth > 0) {
            last = inner[depth--];
            inner[depth] = last > inner[depth] ? last : inner[depth];
        } else if (*p == '{') {
            char *end;
            unsigned long lo = strtoul(p + 1, &end, 10), hi = lo;

            if (*end == ',' && end[1] != '}')
                hi = strtoul(end + 1, &end, 10);
            else if (*end == ',')
                end++;
            if (*end != '}')
                continue;
            if (hi < lo)
                hi = lo;
            if (hi > LIMIT_PATTERN_REPEAT || last * hi > LIMIT_PATTERN_REPEAT)
                return 0;
            last *= hi;
            inner[depth] = last > inner[depth] ? last : inner[depth];
        } else {
            last = 1;
        }
    }
    return 1;
}

/* Each child of src (whatever it is: the walker iterated children) as a node. */
static void schema_compile_list(struct schema *s, const cJSON *src, struct schema_list *list)
{
    const cJSON *e;
    size_t i = 0;

    list->present = cJSON_IsArray(src);
    if (src == NULL || src->child == NULL)
        return;
    list->at = calloc((size_t)cJSON_GetArraySize(src), sizeof(*list->at));
    if (list->at == NULL) {
        s->nomem = 1;
        return;
    }
    cJSON_ArrayForEach(e, src)
    {
        list->at[i++] = schema_compile_node(s, e);
    }
    list->n = i;
}

static void schema_compile_types(struct schema_node *n, const cJSON *type)
{
    const cJSON *t;

    if (cJSON_IsString(type)) {
        n->type_name = type->valuestring;
        n->types = schema_type_bit(type->valuestring);
        return;
    }
    if (!cJSON_IsArray(type))
        return;
    n->type_list = 1;
    cJSON_ArrayForEach(t, type)
    {
        if (cJSON_IsString(t))
            n->types |= schema_type_bit(t->valuestring);
    }
}

static void schema_compile_string(struct schema_node *n, const cJSON *src)
{
    const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(src, "pattern");

    n->min_length = schema_num(src, "minLength");
    n->max_length = schema_num(src, "maxLength");
    /* A pattern that does not compile checks nothing (schema_check refuses it at load). */
    if (cJSON_IsString(pattern) && schema_pattern_bounded(pattern->valuestring) &&
        regcomp(&n->pattern, pattern->valuestring, REG_EXTENDED | REG_NOSUB) == 0)
        n->pattern_text = pattern->valuestring;
}

static void schema_compile_array(struct schema *s, struct schema_node *n, const cJSON *src)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(src, "items");
    const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(src, "prefixItems");

    n->min_items = schema_num(src, "minItems");
    n->max_items = schema_num(src, "maxItems");
    n->unique = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(src, "uniqueItems"));
    /* draft-07 tuple form: items is an array of schemas. */
    if (cJSON_IsArray(items)) {
        prefix = items;
        items = cJSON_GetObjectItemCaseSensitive(src, "additionalItems");
    }
    if (cJSON_IsArray(prefix))
        schema_compile_list(s, prefix, &n->prefix);
    if (items != NULL)
        n->items = schema_compile_node(s, items);
}

static void schema_compile_required(struct schema *s, struct schema_node *n, const cJSON *src)
{
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(src, "required");
    const cJSON *r;

    if (required == NULL || required->child == NULL)
        return;
    n->required = calloc((size_t)cJSON_GetArraySize(required), sizeof(*n->required));
    if (n->required == NULL) {
        s->nomem = 1;
        return;
    }
    cJSON_ArrayForEach(r, required)
    {
        if (cJSON_IsString(r))
            n->required[n->nrequired++] = r->valuestring;
    }
}

static void schema_compile_props(struct schema *s, struct schema_node *n, const cJSON *src)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(src, "properties");
    const cJSON *patterns = cJSON_GetObjectItemCaseSensitive(src, "patternProperties");
    const cJSON *p;

    if (cJSON_IsObject(props) && props->child != NULL) {
        n->props = calloc((size_t)cJSON_GetArraySize(props), sizeof(*n->props));
        if (n->props == NULL)
            s->nomem = 1;
        for (p = props->child; n->props != NULL && p != NULL; p = p->next) {
            n->props[n->nprops].name = p->string;
            n->props[n->nprops++].node = schema_compile_node(s, p);
        }
    }
    if (patterns != NULL && patterns->child != NULL) {
        n->pprops = calloc((size_t)cJSON_GetArraySize(patterns), sizeof(*n->pprops));
        if (n->pprops == NULL)
            s->nomem = 1;
        for (p = patterns->child; n->pprops != NULL && p != NULL; p = p->next) {
            struct schema_pattern_prop *pp = &n->pprops[n->npprops++];

            pp->ok = p->string != NULL && schema_pattern_bounded(p->string) &&
                     regcomp(&pp->re, p->string, REG_EXTENDED | REG_NOSUB) == 0;
            pp->node = schema_compile_node(s, p);
        }
    }
}

static void schema_compile_object(struct schema *s, struct schema_node *n, const cJSON *src)
{
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(src, "additionalProperties");

    schema_compile_required(s, n, src);
    n->min_props = schema_num(src, "minProperties");
    n->max_props = schema_num(src, "maxProperties");
    schema_compile_props(s, n, src);
    n->check_additional = extra != NULL;
    n->additional_false = cJSON_IsFalse(extra);
    if (cJSON_IsObject(extra))
        n->additional = schema_compile_node(s, extra);
}

static void schema_compile_keywords(struct schema *s, struct schema_node *n, const cJSON *src)
{
    const cJSON *not = cJSON_GetObjectItemCaseSensitive(src, "not");

    schema_compile_types(n, cJSON_GetObjectItemCaseSensitive(src, "type"));
    n->konst = cJSON_GetObjectItemCaseSensitive(src, "const");
    n->enum_list = cJSON_GetObjectItemCaseSensitive(src, "enum");
    if (!cJSON_IsArray(n->enum_list))
        n->enum_list = NULL;
    n->minimum = schema_num(src, "minimum");
    n->maximum = schema_num(src, "maximum");
    n->xmin = cJSON_GetObjectItemCaseSensitive(src, "exclusiveMinimum");
    n->xmax = cJSON_GetObjectItemCaseSensitive(src, "exclusiveMaximum");
    n->multiple_of = schema_num(src, "multipleOf");
    schema_compile_string(n, src);
    schema_compile_array(s, n, src);
    schema_compile_object(s, n, src);
    schema_compile_list(s, cJSON_GetObjectItemCaseSensitive(src, "allOf"), &n->all_of);
    schema_compile_list(s, cJSON_GetObjectItemCaseSensitive(src, "anyOf"), &n->any_of);
    schema_compile_list(s, cJSON_GetObjectItemCaseSensitive(src, "oneOf"), &n->one_of);
    if (not != NULL)
        n->not = schema_compile_node(s, not );
}

static struct schema_node *schema_memo_find(const struct schema *s, const cJSON *src)
{
    for (size_t i = 0; i < s->nmemo; i++) {
        if (s->memo[i].source == src)
            return s->memo[i].node;
    }
    return NULL;
}

static void schema_memo_add(struct schema *s, const cJSON *src, struct schema_node *n)
{
    if (s->nmemo == s->memo_cap) {
        size_t cap = s->memo_cap ? s->memo_cap * 2 : 8;
        struct schema_memo *grown = realloc(s->memo, cap * sizeof(*grown));

        if (grown == NULL) {
            s->nomem = 1;
            return;
        }
        s->memo = grown;
        s->memo_cap = cap;
    }
    s->memo[s->nmemo].source = src;
    s->memo[s->nmemo++].node = n;
}

/* What a node is, from its source (a boolean, an object, or anything else). */
static void schema_fill(struct schema *s, struct schema_node *n, const cJSON *src)
{
    const cJSON *ref;

    if (cJSON_IsBool(src)) {
        n->kind = cJSON_IsTrue(src) ? SCHEMA_TRUE : SCHEMA_FALSE;
        return;
    }
    if (!cJSON_IsObject(src))
        return;
    n->kind = SCHEMA_OBJECT;
    ref = cJSON_GetObjectItemCaseSensitive(src, "$ref");
    if (cJSON_IsString(ref)) {
        const cJSON *target = schema_resolve(s->root, ref->valuestring);

        if (target == NULL)
            n->ref_unresolved = ref->valuestring;
        else
            n->ref = schema_compile_target(s, target);
    }
    schema_compile_keywords(s, n, src);
}

/* The node of a $ref target (or the root): compiled once, and known before its own children
 * are, so a reference back to it (a cycle) finds it. */
static struct schema_node *schema_compile_target(struct schema *s, const cJSON *src)
{
    struct schema_node *n = schema_memo_find(s, src);

    if (n != NULL || s->nomem)
        return n;
    n = schema_new_node(s);
    if (n == NULL)
        return NULL;
    schema_memo_add(s, src, n);
    schema_fill(s, n, src);
    return n;
}

static struct schema_node *schema_compile_node(struct schema *s, const cJSON *src)
{
    struct schema_node *n = schema_new_node(s);

    if (n != NULL)
        schema_fill(s, n, src);
    return n;
}

static void schema_node_free(struct schema_node *n)
{
    free(n->prefix.at);
    free(n->all_of.at);
    free(n->any_of.at);
    free(n->one_of.at);
    free(n->required);
    free(n->props);
    for (size_t i = 0; i < n->npprops; i++) {
        if (n->pprops[i].ok)
            regfree(&n->pprops[i].re);
    }
    free(n->pprops);
    if (n->pattern_text != NULL)
        regfree(&n->pattern);
    free(n);
}

void schema_free(struct schema *s)
{
    if (s == NULL)
        return;
    while (s->nodes != NULL) {
        struct schema_node *next = s->nodes->next_alloc;

        schema_node_free(s->nodes);
        s->nodes = next;
    }
    free(s->memo);
    free(s);
}

int schema_compile(const cJSON *root, struct schema **out)
{
    struct schema *s = calloc(1, sizeof(*s));

    *out = NULL;
    if (s == NULL)
        return STATUS_NOMEM;
    s->root = root;
    s->top = schema_compile_target(s, root);
    /* The memo only serves the compile. */
    free(s->memo);
    s->memo = NULL;
    s->nmemo = s->memo_cap = 0;
    if (s->nomem || s->top == NULL) {
        schema_free(s);
        return STATUS_NOMEM;
    }
    *out = s;
    return STATUS_OK;
}

/* --- Matching a value. --- */

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
