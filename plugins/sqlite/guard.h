/*
 * guard.h: what a statement may do on the connection, and for how long.
 *
 * sqguard_harden() sets the connection up once (defensive mode, no extensions, limits, busy
 * timeout, read-only where it applies) and installs two callbacks that stay for the
 * connection's life:
 *   - an authorizer, consulted by SQLite while it compiles a statement (and for statements
 *     SQLite runs inside one), which refuses ATTACH/DETACH, transaction control, PRAGMAs
 *     outside a short list of ones that read, load_extension() and fts3_tokenizer(), and
 *     every write unless the call is the execute tool of a writable deployment; it records
 *     why it refused, for the tool error;
 *   - a progress handler that stops the statement when the call's time is up, the client
 *     cancelled it, or it holds more than its share of SQLite's memory (see below).
 * It also bounds memory: the length limit follows max_bytes, and SQLite's process-wide heap
 * limit is the sum of the instances' shares (guard.c says why).
 * Each call brackets its work with sqguard_begin() and sqguard_end().
 */
#ifndef SQLITE_PLUGIN_GUARD_H
#define SQLITE_PLUGIN_GUARD_H

#include <sqlite3.h>
#include <stdint.h>
#include <time.h>

#include "buf.h"
#include "plugin-api.h"

/* What the statements of a call may do. */
enum sqguard_mode {
    SQGUARD_READ = 0, /* query, resource reads: nothing that writes */
    SQGUARD_WRITE,    /* execute (writable deployments only): writes too */
};

/* Why the progress handler stopped a statement. */
enum sqguard_stop {
    SQGUARD_RUNNING = 0,
    SQGUARD_TIMEOUT,
    SQGUARD_CANCELLED,
    SQGUARD_MEMORY, /* it held more than its share of SQLite's memory, which was nearly full */
};

/* The length of the authorizer's refusal message, terminator included. */
#define SQGUARD_DENIED_MAX 400

struct sqguard {
    const struct mcph_host *host;    /* borrowed for the instance's life */
    int writable;                    /* the deployment allows writes (writable = yes) */
    int64_t timeout_ms;              /* the time limit of one call */
    size_t max_bytes;                /* the most bytes of one result (max_bytes) */
    size_t max_length;               /* SQLITE_LIMIT_LENGTH, set by sqguard_harden() */
    sqlite3_int64 pool_share;        /* what this instance adds to SQLite's heap limit */
    int pool_joined;                 /* pool_share is in the limit: sqguard_release() */
    sqlite3_int64 mem_start;         /* sqlite3_memory_used() when the call began */
    enum sqguard_mode mode;          /* set by sqguard_begin() */
    struct mcph_call *call;          /* the call being served, borrowed; NULL outside calls */
    int active;                      /* between sqguard_begin() and sqguard_end() */
    struct timespec deadline;        /* CLOCK_MONOTONIC time at which statements stop */
    enum sqguard_stop stop;          /* why the last statement was stopped, if it was */
    char denied[SQGUARD_DENIED_MAX]; /* why the authorizer refused, "" when it did not */
};

/* Sets the connection up and installs the callbacks, which point at g (so g must outlive
 * the connection, and stay at the same address). The length limit becomes max_bytes (1 MiB
 * at least), and the instance's share joins SQLite's process-wide heap limit (see guard.c).
 * MCPH_OK, or MCPH_ERR with the reason in why. Main thread, during init. */
int sqguard_harden(sqlite3 *db, struct sqguard *g, struct mcph_strbuf *why);
/* Takes the instance's share out of SQLite's heap limit (lifted when no instance is left),
 * once the connection is closed. Accepts NULL, and a guard never hardened. */
void sqguard_release(struct sqguard *g);

/* Starts a call: statements run until now + timeout_ms, and in `mode`. call may be NULL
 * (init-time work, which has no client to cancel it). */
void sqguard_begin(struct sqguard *g, struct mcph_call *call, enum sqguard_mode mode);
/* Ends the call: no deadline, no call to poll, mode back to SQGUARD_READ. */
void sqguard_end(struct sqguard *g);
/* The progress handler's check, for the plugin's own loops (between rows, before large
 * values): non-zero when the call's statements must stop (g->stop says why: the time limit,
 * the client cancelled, or the statement holds more than its share of SQLite's memory when
 * it is nearly all used), and then at every later check of the call. */
int sqguard_check(struct sqguard *g);
/* Forgets the last refusal, before a new statement of the same call. A stop is not
 * forgotten: once the call's time is up, every later statement of the call stops at once. */
void sqguard_clear(struct sqguard *g);

#endif
