/*
 * schema.c: compiling a schema (schema_compile, schema_free): every schema object a node
 * whose keywords are read once, patterns compiled, $ref resolved (cycles included).
 */
#include "lib/schema.h"

#include "lib/limits.h"
#include "lib/schema_node.h"
#include "lib/status.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* The schema a "#..." pointer names inside the root, or NULL. */
const cJSON *schema_resolve(const cJSON *root, const char *ref)
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

const struct schema_type schema_type_names[] = {
    {"object", SCHEMA_T_OBJECT, SCHEMA_T_OBJECT, cJSON_IsObject},
    {"array", SCHEMA_T_ARRAY, SCHEMA_T_ARRAY, cJSON_IsArray},
    {"string", SCHEMA_T_STRING, SCHEMA_T_STRING, cJSON_IsString},
    {"boolean", SCHEMA_T_BOOLEAN, SCHEMA_T_BOOLEAN, cJSON_IsBool},
    {"null", SCHEMA_T_NULL, SCHEMA_T_NULL, cJSON_IsNull},
    {"integer", SCHEMA_T_INTEGER, SCHEMA_T_INTEGER, NULL},
    {"number", SCHEMA_T_NUMBER, SCHEMA_T_NUMBER | SCHEMA_T_INTEGER, NULL},
    {0},
};

unsigned schema_type_bit(const char *name)
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
 * within groups); "*" and "+" copy nothing. A quantifier may not follow a quantifier (but for
 * one "?", ECMA-262's lazy form): "a**" is no pattern in ECMA-262, and glibc's compiler takes
 * time exponential in the run ("^n***...*" of 90 stars does not end). The scan is of POSIX
 * extended syntax; what is not a pattern at all is left to regcomp to refuse. */
int schema_pattern_bounded(const char *p)
{
    unsigned long inner[LIMIT_JSON_DEPTH + 1]; /* the largest product within each open group */
    unsigned long last = 1;   /* the product within the atom just read (a group's, or 1) */
    int depth = 0, quant = 0; /* quant: after a quantifier (1), and its lazy "?" (2) */

    inner[0] = 1;
    for (; *p != '\0'; p++) {
        int was = quant;

        quant = 0;
        if (*p == '*' || *p == '+' || *p == '?' || *p == '{') {
            if (was == 2 || (was == 1 && *p != '?'))
                return 0;
            quant = was == 1 ? 2 : 1;
            if (*p != '{')
                continue;
        }
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
