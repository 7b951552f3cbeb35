/*
 * entry.h: one row of the set served (a tool, resource, template or prompt) as the entry of
 * its list, in the shape of a given protocol revision: only the fields that revision knows
 * (title, icons, annotations, outputSchema, ... came with later ones). The list pages and
 * the registry's diff (what list_changed to send after a reload) are made of these.
 */
#ifndef MCPH_ENTRY_H
#define MCPH_ENTRY_H

#include "served/registry.h"

#include <cJSON.h>

/* The entry as an MCP object of revision `rev` (enum revision). Row borrowed for the call;
 * a new object owned by the caller, or NULL when out of memory. Any thread. */
cJSON *entry_tool(const struct registry_tool *t, int rev);
cJSON *entry_resource(const struct registry_resource *r, int rev);
cJSON *entry_template(const struct registry_template *t, int rev);
cJSON *entry_prompt(const struct registry_prompt *p, int rev);

#endif
