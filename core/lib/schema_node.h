/*
 * schema_node.h: the compiled form of a schema, shared by the three parts of the schema
 * module: compiling (schema.c), matching a value (schema_match.c) and checking a schema
 * itself (schema_check.c). Used by those files only; the rest of the core sees schema.h.
 */
#ifndef MCPH_SCHEMA_NODE_H
#define MCPH_SCHEMA_NODE_H

#include "lib/schema.h"

#include <cJSON.h>
#include <regex.h>
#include <stddef.h>

/* $ref chains and nesting deeper than this are refused rather than followed. */
#define SCHEMA_MAX_DEPTH 64

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

/* The JSON Schema type names: the bit of a value of that type, what "type": NAME accepts
 * ("number" takes integers too), and how cJSON tells it (numbers are told apart by value). */
struct schema_type {
    const char *name;
    unsigned bit;
    unsigned accepts;
    int (*is)(const cJSON *);
};

/* The type names, ended by a {0} row whose successor is "number" (see schema_type_of). */
extern const struct schema_type schema_type_names[];

/* The schema a "#..." pointer names inside root (both borrowed), or NULL. */
const cJSON *schema_resolve(const cJSON *root, const char *ref);

/* The enum schema_types bits "type": name accepts, or 0 for a name that is no type. */
unsigned schema_type_bit(const char *name);

/* Whether compiling pattern (POSIX extended) is bounded: each repetition count, and the
 * product of those around any atom, at most LIMIT_PATTERN_REPEAT. */
int schema_pattern_bounded(const char *p);

#endif
