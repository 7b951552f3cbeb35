/*
 * state.h: the state of one sqlite plugin instance, made by init() and handed to every
 * handler, and what the plugin's files share.
 *
 * The descriptor does not claim MCPH_PLUGIN_THREAD_SAFE: mcph runs one handler of an
 * instance at a time, and the guard (deadline, call, refusal) belongs to that one call.
 */
#ifndef SQLITE_PLUGIN_STATE_H
#define SQLITE_PLUGIN_STATE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "guard.h"
#include "plugin-api.h"

/* The status of the plugin's own functions when the call failed in a way the client is
 * told about (a tool error, or a resource read error): the message is in the caller's
 * message buffer. Other statuses are MCPH_OK and the negative enum mcph_status. */
#define SQ_ERR_TOOL (-100)

/* A table or view served as a resource. */
struct sqtable {
    char *name; /* owned */
    char *uri;  /* owned: sqlite://<instance>/<name, percent-encoded>/schema */
    char *kind; /* owned: "table", "view" or "virtual" */
};

struct sq {
    const struct mcph_host *host; /* borrowed until shutdown() returns */
    sqlite3 *db;                  /* owned: the one connection */
    const char *database;         /* owned: the file, as opened */
    const char *label;            /* the file's base name, inside database */
    int writable;                 /* writable = yes: execute exists, writes are allowed */
    int create;                   /* create = yes: a missing file was allowed to be made */
    size_t max_rows;              /* rows one call returns at most */
    size_t max_bytes;             /* about the most bytes of one result */
    size_t cell_width;            /* characters of one cell in text tables */
    size_t timeout_ms;            /* time limit of one call (copied into guard) */
    struct sqguard guard;         /* authorizer and time limit; holds timeout_ms */
    struct sqtable *tables;       /* owned: the tables and views served as resources */
    size_t ntables;
    char *overview_uri; /* owned: sqlite://<instance>/tables */
    int schema_version; /* PRAGMA schema_version when init() listed the tables */
    int refresh_asked;  /* host->refresh() was called for a changed schema */
};

#endif
