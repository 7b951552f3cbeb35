/*
 * listing.h: what `mcph --check` prints once the config and every plugin are loaded: a table
 * of the rows served (plugin, kind, name, title), then for each filter of each instance what
 * it kept and dropped, with a warning in the log for a filter that keeps nothing, then the
 * definitions [server] lock refuses and what changed in each (DRIFT). main.c
 * decides the exit code; this only says what would be served.
 */
#ifndef MCPH_LISTING_H
#define MCPH_LISTING_H

#include "served/server.h"

#include <stdio.h>

/* Print what srv (borrowed) serves to out; nothing when it has no registry. The warnings go
 * to srv's log. Main thread. */
void listing_print(const struct server *srv, FILE *out);

#endif
