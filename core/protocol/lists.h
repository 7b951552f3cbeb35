/*
 * lists.h: the list methods (tools/list, resources/list, resources/templates/list,
 * prompts/list), a page at a time, and the cursors that name the next page. A served set
 * never changes, so each page is printed once per revision and kept with the set.
 */
#ifndef MCPH_LISTS_H
#define MCPH_LISTS_H

#include "protocol/request.h"

#include <stddef.h>

/* The method handlers: the page params.cursor names (the first without one). The
 * dispatching thread, under the state lock. */
void lists_tools(struct request *req);
void lists_resources(struct request *req);
void lists_templates(struct request *req);
void lists_prompts(struct request *req);

/* A list cursor (opaque to clients: base64 of "mcph:<tag>:<offset>"), owned; NULL when out
 * of memory. */
char *lists_cursor(char tag, size_t offset);

/* The offset a client's cursor stands for in a list of `count` items tagged `tag`:
 * STATUS_OK, or STATUS_INVALID for one mcph did not make for this list. */
int lists_cursor_offset(const char *cursor, char tag, size_t count, size_t *offset);

#endif
