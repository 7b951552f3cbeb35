/*
 * result_item.h: the pieces the sinks (result.c) and the reading of a whole result given as
 * JSON text (result_json.c) share, so both count, parse and stand in for content one way.
 * Used by those two files only; the rest of the core sees result.h.
 */
#ifndef MCPH_RESULT_ITEM_H
#define MCPH_RESULT_ITEM_H

#include "host/result.h"

#include <cJSON.h>
#include <stddef.h>

/* JSON text from a plugin (borrowed), parsed; NULL when it is not JSON or when it would cost
 * more than LIMIT_JSON_COST once parsed: then *over is set and c's error says so. The result
 * is owned by the caller. */
cJSON *result_parse(struct mcph_call *c, const char *json, int *over);

/* Count len bytes against LIMIT_RESULT_BYTES: MCPH_OK, or MCPH_ERR_LIMIT (nothing counted). */
int result_account(struct mcph_call *c, size_t len);

/* A text item standing for content the client's revision cannot carry (owned by the caller),
 * or NULL when out of memory. */
cJSON *result_stand_in(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
cJSON *result_audio_stand_in(const char *mime_type, size_t len);
cJSON *result_link_stand_in(const char *uri, const char *name);

#endif
