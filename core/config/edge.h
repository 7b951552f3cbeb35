/*
 * edge.h: the sections of the HTTP edge, [access.NAME] (who sees which tools, resources and
 * prompts) and [limit.NAME] (a rate on tools/call), read into struct config by config.c; and
 * the checks across [server]'s OAuth, token and rate keys and those sections, made once the
 * whole file is read. Their keys are in keys.c's tables (config_access_keys,
 * config_limit_keys).
 */
#ifndef MCPH_CONFIG_EDGE_H
#define MCPH_CONFIG_EDGE_H

#include "config/config.h"
#include "lib/diag.h"

/* Whether section (its name as written) is one of these: "access." or "limit." and a name. */
int config_edge_section(const char *section);

/* A new section of that name at line, added to cfg. Problems go to errs (FILE:LINE).
 * Returns STATUS_OK, STATUS_INVALID (a bad or repeated name, too many) or STATUS_NOMEM. */
int config_edge_new(struct config *cfg, const char *section, int line, struct diag *errs);

/* key = value at line in the section last added under that name. Problems go to errs. */
void config_edge_key(struct config *cfg, const char *section, const char *key, const char *value,
                     int line, struct diag *errs);

/* The checks once the file is read: OAuth keys that need each other, sections that name
 * credentials mcph does not take, a limit without a rate. */
void config_edge_check(const struct config *cfg, struct diag *errs);

/* Free the sections (cfg's access and limits). */
void config_edge_release(struct config *cfg);

#endif
