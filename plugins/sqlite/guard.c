/*
 * guard.c: hardening of the connection, the authorizer and the time limit.
 *
 * SQLite checks the authorizer while it compiles a statement, so a refusal stops the
 * statement before it runs (sqlite3_prepare fails with SQLITE_AUTH), and the reason kept in
 * g->denied becomes the tool error. The authorizer is one layer: the connection is also
 * opened read-only with query_only on when writes are off, and the tools check
 * sqlite3_stmt_readonly(), so a gap in one layer is not a hole.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "guard.h"

/* Virtual machine steps between two checks of the clock and of cancellation. */
#define SQGUARD_PROGRESS_STEPS 1000
/* The length limit never goes below this, whatever max_bytes: SQLite reads the schema and
 * the rows of tables through it, and a small max_bytes must not make them unreadable. */
#define SQGUARD_LENGTH_FLOOR (1024 * 1024)
/* An instance's share of SQLite's process-wide heap limit: a base for page caches, sorting
 * and the schema, and room for a few values of the longest length at once. */
#define SQGUARD_SHARE_BASE (16 * 1024 * 1024)
#define SQGUARD_SHARE_VALUES 4

/* Per-connection limits (sqlite3_limit): what one statement from a client may use. The
 * length limit (one string, blob or row) comes from max_bytes: see sqguard_harden(). */
static const struct {
    int id;
    int value;
} sqguard_limits[] = {
    {SQLITE_LIMIT_SQL_LENGTH, 100 * 1024},    /* one statement's text */
    {SQLITE_LIMIT_COLUMN, 2000},              /* columns of a table, result or index */
    {SQLITE_LIMIT_EXPR_DEPTH, 200},           /* nesting of an expression (parser stack) */
    {SQLITE_LIMIT_COMPOUND_SELECT, 100},      /* terms of a UNION/EXCEPT/INTERSECT chain */
    {SQLITE_LIMIT_FUNCTION_ARG, 100},         /* arguments of one function call */
    {SQLITE_LIMIT_ATTACHED, 0},               /* one database file per connection */
    {SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000}, /* a LIKE or GLOB pattern */
    {SQLITE_LIMIT_VARIABLE_NUMBER, 1000},     /* the largest ?NNN */
    {SQLITE_LIMIT_TRIGGER_DEPTH, 20},         /* triggers firing triggers */
    {SQLITE_LIMIT_WORKER_THREADS, 0},         /* no helper threads behind mcph's back */
};

/* Connection options (sqlite3_db_config) and the value each is set to. */
static const struct {
    int op;
    int value;
    const char *what;
} sqguard_options[] = {
    {SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode"},
    {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "extension loading"},
    {SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, "fts3_tokenizer() with a pointer"},
    {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "functions with side effects in the schema"},
    {SQLITE_DBCONFIG_DQS_DML, 0, "double-quoted string literals"},
};

/* PRAGMAs a client may run. READ: without a value it reports something. ARG: its value is
 * what to look at, never a setting. SET: it may be set by execute in a writable deployment
 * (it changes the database file, nothing of the connection). */
enum {
    SQGUARD_PRAGMA_READ = 1u << 0,
    SQGUARD_PRAGMA_ARG = 1u << 1,
    SQGUARD_PRAGMA_SET = 1u << 2,
};

static const struct {
    const char *name;
    unsigned flags;
} sqguard_pragmas[] = {
    {"table_info", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"table_xinfo", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"table_list", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"index_list", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"index_info", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"index_xinfo", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"foreign_key_list", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"foreign_key_check", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"integrity_check", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"quick_check", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_ARG},
    {"user_version", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_SET},
    {"application_id", SQGUARD_PRAGMA_READ | SQGUARD_PRAGMA_SET},
    {"schema_version", SQGUARD_PRAGMA_READ},
    {"data_version", SQGUARD_PRAGMA_READ},
    {"collation_list", SQGUARD_PRAGMA_READ},
    {"function_list", SQGUARD_PRAGMA_READ},
    {"module_list", SQGUARD_PRAGMA_READ},
    {"pragma_list", SQGUARD_PRAGMA_READ},
    {"compile_options", SQGUARD_PRAGMA_READ},
    {"encoding", SQGUARD_PRAGMA_READ},
    {"foreign_keys", SQGUARD_PRAGMA_READ},
    {"freelist_count", SQGUARD_PRAGMA_READ},
    {"page_count", SQGUARD_PRAGMA_READ},
    {"page_size", SQGUARD_PRAGMA_READ},
    {"journal_mode", SQGUARD_PRAGMA_READ},
    {"auto_vacuum", SQGUARD_PRAGMA_READ},
    {"query_only", SQGUARD_PRAGMA_READ},
    {0},
};

/* What a writing action is called in a refusal: "<verb> <object>". */
static const struct {
    int action;
    const char *verb;
} sqguard_writes[] = {
    {SQLITE_INSERT, "INSERT into"},
    {SQLITE_UPDATE, "UPDATE of"},
    {SQLITE_DELETE, "DELETE from"},
    {SQLITE_CREATE_TABLE, "CREATE TABLE"},
    {SQLITE_CREATE_INDEX, "CREATE INDEX"},
    {SQLITE_CREATE_VIEW, "CREATE VIEW"},
    {SQLITE_CREATE_TRIGGER, "CREATE TRIGGER"},
    {SQLITE_CREATE_TEMP_TABLE, "CREATE TEMP TABLE"},
    {SQLITE_CREATE_TEMP_INDEX, "CREATE TEMP INDEX"},
    {SQLITE_CREATE_TEMP_VIEW, "CREATE TEMP VIEW"},
    {SQLITE_CREATE_TEMP_TRIGGER, "CREATE TEMP TRIGGER"},
    {SQLITE_CREATE_VTABLE, "CREATE VIRTUAL TABLE"},
    {SQLITE_DROP_TABLE, "DROP TABLE"},
    {SQLITE_DROP_INDEX, "DROP INDEX"},
    {SQLITE_DROP_VIEW, "DROP VIEW"},
    {SQLITE_DROP_TRIGGER, "DROP TRIGGER"},
    {SQLITE_DROP_TEMP_TABLE, "DROP TEMP TABLE"},
    {SQLITE_DROP_TEMP_INDEX, "DROP TEMP INDEX"},
    {SQLITE_DROP_TEMP_VIEW, "DROP TEMP VIEW"},
    {SQLITE_DROP_TEMP_TRIGGER, "DROP TEMP TRIGGER"},
    {SQLITE_DROP_VTABLE, "DROP VIRTUAL TABLE"},
    {SQLITE_ALTER_TABLE, "ALTER TABLE"},
    {SQLITE_REINDEX, "REINDEX"},
    {SQLITE_ANALYZE, "ANALYZE"},
    {0, NULL},
};

/* Functions no statement may call, and why. */
static const struct {
    const char *name;
    const char *why;
} sqguard_functions[] = {
    {"load_extension", "loading an extension would run native code from a file"},
    {"fts3_tokenizer", "it exposes and accepts raw memory addresses"},
    {NULL, NULL},
};

static const char sqguard_one_transaction[] =
    "each call runs as a transaction of its own, committed or rolled back before the call "
    "returns, so no lock is held between calls";

static int sqguard_deny(struct sqguard *g, const char *fmt, ...) MCPH_PRINTF(2, 3);
static int sqguard_deny(struct sqguard *g, const char *fmt, ...)
{
    va_list ap;

    if (g->denied[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(g->denied, sizeof(g->denied), fmt, ap);
        va_end(ap);
    }
    return SQLITE_DENY;
}

static unsigned sqguard_pragma_flags(const char *name)
{
    for (size_t i = 0; sqguard_pragmas[i].name != NULL; i++) {
        if (strcasecmp(sqguard_pragmas[i].name, name) == 0)
            return sqguard_pragmas[i].flags;
    }
    return 0;
}

static int sqguard_pragma(struct sqguard *g, const char *name, const char *value)
{
    unsigned flags = sqguard_pragma_flags(name);

    /* It reads, but shows the server's path of the file, which is no business of clients. */
    if (strcasecmp(name, "database_list") == 0)
        return sqguard_deny(g,
                            "PRAGMA database_list is not allowed: it would show where the "
                            "database file is on the server; this server serves one database, "
                            "main, whose tables the resource sqlite://%s/tables lists",
                            g->host->instance);
    if (flags == 0)
        return sqguard_deny(g,
                            "PRAGMA %s is not allowed: only PRAGMAs that read the schema or a "
                            "setting may run (table_info, table_xinfo, index_list, index_info, "
                            "foreign_key_list, foreign_key_check, integrity_check, user_version, "
                            "page_count, ...)",
                            name);
    if (value == NULL || (flags & SQGUARD_PRAGMA_ARG))
        return SQLITE_OK;
    if ((flags & SQGUARD_PRAGMA_SET) && g->mode == SQGUARD_WRITE)
        return SQLITE_OK;
    if ((flags & SQGUARD_PRAGMA_SET) && !g->writable)
        return sqguard_deny(g,
                            "PRAGMA %s = %s is not allowed: the database is served read-only "
                            "(writable = no)",
                            name, value);
    if (flags & SQGUARD_PRAGMA_SET)
        return sqguard_deny(g,
                            "PRAGMA %s = %s is not allowed in query, which only reads: use the "
                            "execute tool to change it",
                            name, value);
    return sqguard_deny(g,
                        "PRAGMA %s = %s is not allowed: the connection's settings are fixed by "
                        "the server",
                        name, value);
}

static int sqguard_function(struct sqguard *g, const char *name)
{
    for (size_t i = 0; name != NULL && sqguard_functions[i].name != NULL; i++) {
        if (strcasecmp(sqguard_functions[i].name, name) == 0)
            return sqguard_deny(g, "the function %s() is not allowed: %s", name,
                                sqguard_functions[i].why);
    }
    return SQLITE_OK;
}

static const char *sqguard_write_verb(int action)
{
    for (size_t i = 0; sqguard_writes[i].verb != NULL; i++) {
        if (sqguard_writes[i].action == action)
            return sqguard_writes[i].verb;
    }
    return NULL;
}

/* A write: allowed in execute, refused elsewhere with the reason that applies. */
static int sqguard_write(struct sqguard *g, const char *verb, const char *object)
{
    if (g->mode == SQGUARD_WRITE)
        return SQLITE_OK;
    if (g->writable)
        return sqguard_deny(g,
                            "%s %s is not allowed in query, which only reads: use the execute "
                            "tool to change the database",
                            verb, object ? object : "");
    return sqguard_deny(g, "%s %s is not allowed: the database is served read-only (writable = no)",
                        verb, object ? object : "");
}

/* Writes to the schema table come with CREATE, DROP or ALTER, whose own action names the
 * object in the refusal; and SQLite compiles the eponymous PRAGMA tables
 * (pragma_table_info(...)) with an UPDATE of sqlite_master that never runs. A write of the
 * schema table by itself is refused by defensive mode and, when writes are off, by the
 * read-only connection. */
static int sqguard_schema_table(const char *table)
{
    return table != NULL &&
           (strcmp(table, "sqlite_master") == 0 || strcmp(table, "sqlite_temp_master") == 0);
}

static int sqguard_authorize(void *arg, int action, const char *a, const char *b,
                             const char *db_name, const char *trigger)
{
    struct sqguard *g = arg;
    const char *verb;

    (void)db_name;
    (void)trigger;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_FUNCTION:
        return sqguard_function(g, b);
    case SQLITE_PRAGMA:
        return sqguard_pragma(g, a, b);
    case SQLITE_ATTACH:
        return sqguard_deny(g, "ATTACH is not allowed: it would open another database file, "
                               "and this server serves one database");
    case SQLITE_DETACH:
        return sqguard_deny(g, "DETACH is not allowed: this server serves one database");
    case SQLITE_TRANSACTION:
        return sqguard_deny(g, "%s is not allowed: %s", a ? a : "transaction control",
                            sqguard_one_transaction);
    case SQLITE_SAVEPOINT:
        return sqguard_deny(g, "SAVEPOINT, RELEASE and ROLLBACK TO are not allowed: %s",
                            sqguard_one_transaction);
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
        if (sqguard_schema_table(a))
            return SQLITE_OK;
        break;
    default:
        break;
    }
    verb = sqguard_write_verb(action);
    if (verb != NULL)
        return sqguard_write(g, verb, a);
    return sqguard_deny(g, "this statement is not allowed (SQLite authorizer action %d)", action);
}

static int sqguard_past(const struct timespec *deadline)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec != deadline->tv_sec)
        return now.tv_sec > deadline->tv_sec;
    return now.tv_nsec >= deadline->tv_nsec;
}

/* Non-zero when SQLite's heap is past the soft limit (the pool is nearly full) and has grown
 * by more than this instance's share since the call began: the statement sits on memory
 * that other instances are owed. SQLite counts memory for the whole process, so the growth
 * may include other calls'; that only matters when the pool is nearly full, and then
 * stopping the statement that holds more than its share is what frees the pool. */
static int sqguard_hogging(const struct sqguard *g)
{
    sqlite3_int64 limit = sqlite3_hard_heap_limit64(-1);
    sqlite3_int64 used = sqlite3_memory_used();

    return limit > 0 && used > limit - limit / 4 && used - g->mem_start > g->pool_share;
}

int sqguard_check(struct sqguard *g)
{
    if (!g->active)
        return 0;
    if (g->stop != SQGUARD_RUNNING)
        return 1;
    if (g->call != NULL && g->host->cancelled(g->call))
        g->stop = SQGUARD_CANCELLED;
    else if (sqguard_past(&g->deadline))
        g->stop = SQGUARD_TIMEOUT;
    else if (sqguard_hogging(g))
        g->stop = SQGUARD_MEMORY;
    return g->stop != SQGUARD_RUNNING;
}

/* The progress handler: non-zero stops the statement (SQLITE_INTERRUPT). */
static int sqguard_progress(void *arg)
{
    return sqguard_check(arg);
}

/*
 * SQLite's memory, process-wide.
 *
 * One statement can hold many values of up to the length limit at once: thousands of result
 * columns, or constants that SQLite computes once before the first row. SQLite makes them
 * in straight-line code, where the progress handler does not run, so neither the time limit
 * nor max_bytes can stop it, and only SQLite's heap limit bounds it. That limit,
 * sqlite3_hard_heap_limit64(), is process-wide: every instance of this plugin adds its share
 * to it while it lives (the limit is lifted when the last one ends), under a mutex of
 * SQLite's own (SQLITE_MUTEX_STATIC_APP1), so the plugin keeps no global of its own.
 *
 * Why that does not starve other instances badly: memory another instance holds (its page
 * cache, its rows) is never taken from it; a statement that reaches the limit fails at once
 * with SQLITE_NOMEM and frees what it held, so a concurrent call of another instance can only
 * meet a failed allocation during the milliseconds a runaway statement takes to fill the
 * pool, and it gets a clear out-of-memory error to retry. A statement may hold more than its
 * instance's share only while the pool has room: past the soft limit (three quarters of the
 * pool), the progress handler stops a statement that grew SQLite's heap by more than its
 * share (sqguard_hogging()), so none can sit on the others' shares until its time limit.
 * The soft limit also makes page caches reuse their pages instead of growing. Without a
 * limit, one query could take the machine's memory and get the whole server killed.
 */
static void sqguard_pool_add(sqlite3_int64 delta)
{
    sqlite3_mutex *lock = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
    sqlite3_int64 limit;

    sqlite3_mutex_enter(lock);
    limit = sqlite3_hard_heap_limit64(-1) + delta;
    limit = limit > 0 ? limit : 0;
    sqlite3_hard_heap_limit64(limit);
    sqlite3_soft_heap_limit64(limit - limit / 4);
    sqlite3_mutex_leave(lock);
}

void sqguard_release(struct sqguard *g)
{
    if (g == NULL || !g->pool_joined)
        return;
    sqguard_pool_add(-g->pool_share);
    g->pool_joined = 0;
}

static int sqguard_exec(sqlite3 *db, const char *sql, struct mcph_strbuf *why)
{
    char *err = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
        return MCPH_OK;
    mcph_sb_addf(why, "%s failed: %s", sql, err ? err : sqlite3_errmsg(db));
    sqlite3_free(err);
    return MCPH_ERR;
}

int sqguard_harden(sqlite3 *db, struct sqguard *g, struct mcph_strbuf *why)
{
    for (size_t i = 0; i < sizeof(sqguard_options) / sizeof(sqguard_options[0]); i++) {
        int now = -1;

        if (sqlite3_db_config(db, sqguard_options[i].op, sqguard_options[i].value, &now) !=
                SQLITE_OK ||
            now != sqguard_options[i].value) {
            mcph_sb_addf(why, "cannot set %s to %s on the connection", sqguard_options[i].what,
                         sqguard_options[i].value ? "on" : "off");
            return MCPH_ERR;
        }
    }
    sqlite3_enable_load_extension(db, 0);
    for (size_t i = 0; i < sizeof(sqguard_limits) / sizeof(sqguard_limits[0]); i++)
        sqlite3_limit(db, sqguard_limits[i].id, sqguard_limits[i].value);
    /* No single value larger than max_bytes can be returned, so none may be made (past a
     * floor that keeps SQLite's own reads working). */
    g->max_length = g->max_bytes > SQGUARD_LENGTH_FLOOR ? g->max_bytes : SQGUARD_LENGTH_FLOOR;
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH,
                  g->max_length > INT32_MAX ? INT32_MAX : (int)g->max_length);
    g->pool_share = SQGUARD_SHARE_BASE + SQGUARD_SHARE_VALUES * (sqlite3_int64)g->max_length;
    sqguard_pool_add(g->pool_share);
    g->pool_joined = 1;
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, g->timeout_ms > INT32_MAX ? INT32_MAX : (int)g->timeout_ms);
    if (!g->writable && sqguard_exec(db, "PRAGMA query_only = ON", why) != MCPH_OK)
        return MCPH_ERR;
    if (sqlite3_set_authorizer(db, sqguard_authorize, g) != SQLITE_OK) {
        mcph_sb_addf(why, "cannot install the authorizer: %s", sqlite3_errmsg(db));
        return MCPH_ERR;
    }
    sqlite3_progress_handler(db, SQGUARD_PROGRESS_STEPS, sqguard_progress, g);
    return MCPH_OK;
}

void sqguard_begin(struct sqguard *g, struct mcph_call *call, enum sqguard_mode mode)
{
    clock_gettime(CLOCK_MONOTONIC, &g->deadline);
    g->deadline.tv_sec += (time_t)(g->timeout_ms / 1000);
    g->deadline.tv_nsec += (long)(g->timeout_ms % 1000) * 1000000L;
    if (g->deadline.tv_nsec >= 1000000000L) {
        g->deadline.tv_sec++;
        g->deadline.tv_nsec -= 1000000000L;
    }
    g->call = call;
    g->mode = mode;
    g->mem_start = sqlite3_memory_used();
    g->active = 1;
    g->stop = SQGUARD_RUNNING;
    sqguard_clear(g);
}

void sqguard_end(struct sqguard *g)
{
    g->call = NULL;
    g->mode = SQGUARD_READ;
    g->active = 0;
    g->stop = SQGUARD_RUNNING;
    sqguard_clear(g);
}

void sqguard_clear(struct sqguard *g)
{
    g->denied[0] = '\0';
}
