/*
 * uritemplate.h: the two RFC 6570 forms plugins use to name families of resources:
 * "{var}" (one path segment: no '/', '?' or '#', percent-decoded) and "{+var}" (reserved
 * expansion: the rest, '/' included, kept as written). Literal text matches itself.
 */
#ifndef MCPH_URITEMPLATE_H
#define MCPH_URITEMPLATE_H

#include <cJSON.h>

/*
 * Check a template: balanced braces, variable names of A-Z a-z 0-9 _ (1-64), at most
 * LIMIT_ARGS variables, no two variables side by side, no other operators. Returns
 * STATUS_OK or STATUS_INVALID with a short reason in *why (static).
 */
int uritemplate_check(const char *tpl, const char **why);

/*
 * Match `uri` against template `tpl`. On a match returns STATUS_OK and, when vars is not
 * NULL, a new object of the variables (owned by the caller, strings) in *vars; else
 * STATUS_NOT_FOUND (or STATUS_NOMEM).
 */
int uritemplate_match(const char *tpl, const char *uri, cJSON **vars);

#endif
