/*
 * schema.h: the database's tables and views as resources.
 *
 * init() lists the tables and views of the main database and defines, through
 * host->define_resource(), one resource per table or view
 * (sqlite://<instance>/<name, percent-encoded>/schema, text/markdown: its columns with types,
 * NOT NULL, defaults and primary key, its foreign keys, indexes, triggers, row count and
 * CREATE statement) and an overview (sqlite://<instance>/tables). Contents are read when the
 * resource is read, so they are current; the list is made at init, and mcph builds the
 * instance again on every reload, and when sqschema_follow() sees that the schema changed.
 */
#ifndef SQLITE_PLUGIN_SCHEMA_H
#define SQLITE_PLUGIN_SCHEMA_H

#include "state.h"

/* Tables and views served as resources at most (the rest are named in the overview). */
#define SQSCHEMA_MAX_TABLES 1000

/* Lists the tables and views into sq->tables and records the schema version. MCPH_OK, or a
 * negative status with the reason in why. Main thread, during init. */
int sqschema_list(struct sq *sq, struct mcph_strbuf *why);
/* Defines the resources of the listed tables, and the overview. MCPH_OK, or a negative
 * status with the reason in why. Main thread, during init. */
int sqschema_define(struct sq *sq, struct mcph_strbuf *why);
/* Frees the list. */
void sqschema_release(struct sq *sq);
/* After a call that could read the database: when the schema is no longer the one listed,
 * asks mcph (once) to build the instance again, so the resource list follows. Not after a
 * failure, which may be a lock that would only make the check wait too. The handler's
 * thread. */
void sqschema_follow(struct sq *sq);

#endif
