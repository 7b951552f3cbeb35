/*
 * schema.h: JSON Schema validation of tool arguments and structured results, before a
 * plugin sees them and before a client does. Compiled in schema.c, matched in
 * schema_match.c, schemas themselves checked in schema_check.c.
 *
 * Enforced: type (incl. integer, and lists of types), enum, const; minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum (number form, and draft-04's boolean form), multipleOf;
 * minLength, maxLength (in Unicode code points), pattern (POSIX extended regular expressions,
 * which agree with ECMA-262 for the common subset: no lookaround, no \d-style classes);
 * items (a schema, or draft-07's array form), prefixItems, minItems, maxItems, uniqueItems;
 * properties, required, additionalProperties, patternProperties, minProperties,
 * maxProperties; allOf, anyOf, oneOf, not; boolean schemas; $ref to a JSON pointer inside the
 * same schema ("#", "#/$defs/x", "#/definitions/x", ...). Everything else (format, if/then/
 * else, dependencies, unevaluated*, remote $ref) is accepted without being checked.
 */
#ifndef MCPH_SCHEMA_H
#define MCPH_SCHEMA_H

#include "lib/strbuf.h"

#include <cJSON.h>
#include <stddef.h>

/* A schema compiled for matching: keywords read once, patterns compiled, $ref resolved. */
struct schema;

/* Compile `root` (borrowed: it must outlive the compiled schema, which points into it) into
 * *out (owned by the caller). Returns STATUS_OK or STATUS_NOMEM. A schema mcph serves is
 * compiled once, when its plugin instance is loaded. */
int schema_compile(const cJSON *root, struct schema **out) __attribute__((warn_unused_result));

void schema_free(struct schema *s);

/*
 * Match value against a compiled schema. err is emptied; returns STATUS_OK, or STATUS_INVALID
 * with "PATH: what is wrong" in err (PATH a JSON pointer into value, "(root)" for the value
 * itself; member names of value, the client's text, cut at LIMIT_QUOTED_BYTES each). Growing
 * err allocates only when a match fails. Any thread, several at once.
 */
int schema_match(const struct schema *s, const cJSON *value, struct strbuf *err);

/* Compile, match and free: the same answer for a schema used once (and STATUS_NOMEM with a
 * message in err when it cannot be compiled). */
int schema_validate(const cJSON *schema, const cJSON *value, struct strbuf *err);

/* Check the schema itself as far as validation depends on it: every pattern compiles and
 * every $ref resolves. Returns STATUS_OK or STATUS_INVALID with the reason in err. */
int schema_check(const cJSON *schema, struct strbuf *err);

#endif
