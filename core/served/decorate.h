/*
 * decorate.h: what every 2026-07-28 result carries about the set served: resultType,
 * serverInfo in _meta, and the cache hints (ttlMs, cacheScope). It lives with the set served,
 * not with the protocol, because three layers send such results: the dispatcher (its own
 * answers), a call (a handler's result, an InputRequiredResult) and the notifications (the
 * final reply of a listen request).
 */
#ifndef MCPH_DECORATE_H
#define MCPH_DECORATE_H

#include "served/registry.h"

#include <cJSON.h>

/* The _meta key of serverInfo in a 2026-07-28 result. */
#define DECORATE_KEY_SERVER "io.modelcontextprotocol/serverInfo"

/* Make result (borrowed; NULL does nothing) a modern one: resultType "complete" (unless it has
 * one), serverInfo in _meta, and, when cacheable, ttlMs and cacheScope (pl's override, else
 * the set's). reg and pl borrowed for the call; pl may be NULL. Any thread. */
void decorate_result(cJSON *result, const struct registry *reg, const struct plugin *pl,
                     int cacheable);

/* Mark a decorated result (borrowed) as one for its requester only: its cacheScope becomes
 * "private" (a result without cache hints is left alone). For a list whose rows depend on the
 * credential (served/access.h). Any thread. */
void decorate_private(cJSON *result);

#endif
