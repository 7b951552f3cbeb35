/*
 * access.h: tool sets per credential. The [access.NAME] sections of the config
 * (config_access) say which principals (wire/principal.h) see which tools, resources and
 * prompts. A principal's view is the set of sections it matches, a bit each (at most
 * LIMIT_ACCESS_SECTIONS); a row is seen when some section of the view keeps its exposed name
 * (as clients see it: a tool's or prompt's name with its prefix, a resource's URI, a
 * template's URI template). A section that leaves a kind out keeps none of it. Without
 * access sections, and for the stdio pipe (no principal), the view is everything.
 *
 * The sections live in srv->cfg, which a reload replaces under srv->lock: a view is made and
 * used under that lock, against the config it was made from, so a reload changes what the
 * next request sees.
 */
#ifndef MCPH_ACCESS_H
#define MCPH_ACCESS_H

#include "config/config.h"
#include "wire/principal.h"

#include <stdint.h>

/* What one principal sees under one config. */
struct access_view {
    int all;       /* 1: everything (no access sections, or no principal); mask unused */
    uint64_t mask; /* bit i: the principal matches cfg->access[i] */
};

/* The view of principal who (borrowed; NULL: the stdio pipe) under cfg (borrowed). Any
 * thread; the caller holds what keeps cfg alive (srv->lock for srv->cfg). */
struct access_view access_view_of(const struct config *cfg, const struct principal *who);

/* Whether who matches section a (every one of scopes, claims and tokens that a sets; a
 * section that sets none matches nobody). Both borrowed; NULL who matches nothing. */
int access_matches(const struct config_access *a, const struct principal *who);

/* Whether view v under cfg (the one v was made from) sees the row of kind (enum filter_key)
 * whose exposed name (or URI, or URI template) is name. Borrowed. */
int access_sees(const struct config *cfg, struct access_view v, int kind, const char *name);

/* Whether two views are the same (the key of a cached list page). */
int access_same(struct access_view a, struct access_view b);

#endif
