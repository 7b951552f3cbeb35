/*
 * sqlite.c: the sqlite plugin: one SQLite database file, served through a query tool
 * (statements that read), an execute tool when the deployment allows writes, and a
 * resource per table and view describing its schema.
 *
 * This file holds the descriptor, the config and the instance's life: open and harden the
 * connection, list the tables, define what depends on them. The rest:
 *   guard.c   the authorizer and the time limit every statement runs under
 *   run.c     the tools: one statement, its checks, its params, its rows
 *   result.c  rows as structured JSON and as a text table
 *   schema.c  the table and view resources
 *   buf.c     the buffer, JSON strings, base64 and UTF-8 checks
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcph-value.h"
#include "run.h"
#include "schema.h"
#include "state.h"

/* --- Config. --- */

/* The integer keys: where each goes, and its range. */
static const struct {
    const char *key;
    size_t offset; /* of a size_t in struct sq */
    int64_t min, max;
} sq_integer_keys[] = {
    {"max_rows", offsetof(struct sq, max_rows), 1, 100000},
    {"max_bytes", offsetof(struct sq, max_bytes), 1024, 16 * 1024 * 1024},
    {"timeout_ms", offsetof(struct sq, timeout_ms), 10, 600000},
    {"cell_width", offsetof(struct sq, cell_width), 8, 1000},
    {NULL, 0, 0, 0},
};

/* The yes/no keys, and where each goes. */
static const struct {
    const char *key;
    size_t offset; /* of an int in struct sq */
} sq_bool_keys[] = {
    {"writable", offsetof(struct sq, writable)},
    {"create", offsetof(struct sq, create)},
    {NULL, 0},
};

static int sq_config_bool(struct sq *sq, const char *key, int *out, struct mcph_strbuf *why)
{
    const char *v = sq->host->config(sq->host, key);

    if (mcph_value_bool(v, out) == MCPH_OK)
        return MCPH_OK;
    mcph_sb_addf(why, "[plugin.%s] %s = '%s' is not valid; use yes or no", sq->host->instance, key,
                 v ? v : "");
    return MCPH_ERR_INVALID;
}

static int sq_config_integer(struct sq *sq, size_t k, struct mcph_strbuf *why)
{
    const char *key = sq_integer_keys[k].key;
    const char *v = sq->host->config(sq->host, key);
    long long n;

    if (mcph_value_int(v, sq_integer_keys[k].min, sq_integer_keys[k].max, &n) != MCPH_OK) {
        mcph_sb_addf(
            why,
            "[plugin.%s] %s = '%s' is not valid; use a whole number from %" PRId64 " to %" PRId64,
            sq->host->instance, key, v ? v : "", sq_integer_keys[k].min, sq_integer_keys[k].max);
        return MCPH_ERR_INVALID;
    }
    *(size_t *)(void *)((char *)sq + sq_integer_keys[k].offset) = (size_t)n;
    return MCPH_OK;
}

/* The database path, resolved against the INI file's folder by mcph (ABI 1.2). A path that
 * is still relative gets "./" in front: this SQLite reads "file:..." names as URIs, whose
 * options (mode=rwc, vfs=...) a path must not be able to set. */
static int sq_config_path(struct sq *sq, struct mcph_strbuf *why)
{
    const struct mcph_host *host = sq->host;
    const char *path =
        host->config_path ? host->config_path(host, "database") : host->config(host, "database");
    struct mcph_strbuf p;

    if (path == NULL || path[0] == '\0') {
        mcph_sb_addf(why, "[plugin.%s] database is not set; give the SQLite database file",
                     host->instance);
        return MCPH_ERR_INVALID;
    }
    mcph_sb_init(&p);
    if (path[0] != '/' && strncmp(path, "./", 2) != 0 && strncmp(path, "../", 3) != 0)
        mcph_sb_addstr(&p, "./");
    mcph_sb_addstr(&p, path);
    sq->database = sqbuf_str(&p) ? strdup(sqbuf_str(&p)) : NULL;
    mcph_sb_release(&p);
    if (sq->database == NULL)
        return MCPH_ERR_NOMEM;
    sq->label = strrchr(sq->database, '/') ? strrchr(sq->database, '/') + 1 : sq->database;
    return MCPH_OK;
}

static int sq_config(struct sq *sq, struct mcph_strbuf *why)
{
    int status = sq_config_path(sq, why);

    for (size_t k = 0; status == MCPH_OK && sq_bool_keys[k].key != NULL; k++)
        status = sq_config_bool(sq, sq_bool_keys[k].key,
                                (int *)(void *)((char *)sq + sq_bool_keys[k].offset), why);
    for (size_t k = 0; status == MCPH_OK && sq_integer_keys[k].key != NULL; k++)
        status = sq_config_integer(sq, k, why);
    if (status == MCPH_OK && sq->create && !sq->writable) {
        mcph_sb_addf(why,
                     "[plugin.%s] create = yes needs writable = yes: a read-only instance "
                     "never creates its database",
                     sq->host->instance);
        status = MCPH_ERR_INVALID;
    }
    sq->guard.host = sq->host;
    sq->guard.writable = sq->writable;
    sq->guard.timeout_ms = (int64_t)sq->timeout_ms;
    sq->guard.max_bytes = sq->max_bytes;
    return status;
}

/* --- The connection. --- */

/* A missing file is refused before SQLite sees it, with the fix, unless create = yes. */
static int sq_check_file(struct sq *sq, struct mcph_strbuf *why)
{
    const char *raw = sq->host->config(sq->host, "database");
    struct stat st;

    if (stat(sq->database, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return MCPH_OK;
        mcph_sb_addf(why, "the database %s is a folder, not an SQLite file; fix database = %s",
                     sq->database, raw);
        return MCPH_ERR;
    }
    if (errno == ENOENT && sq->create)
        return MCPH_OK;
    if (errno == ENOENT)
        mcph_sb_addf(why,
                     "the database file %s does not exist (database = %s, relative to the INI "
                     "file's folder); fix the path%s",
                     sq->database, raw,
                     sq->writable ? ", or set create = yes to create an empty database there"
                                  : ": a read-only instance never creates its database");
    else
        mcph_sb_addf(why, "cannot reach the database file %s: %s; fix the path or its permissions",
                     sq->database, strerror(errno));
    return MCPH_ERR;
}

/* Reads the schema once, so a file that is not a database fails now, not at the first call. */
static int sq_check_database(struct sq *sq, struct mcph_strbuf *why)
{
    char *err = NULL;

    if (sqlite3_exec(sq->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, &err) == SQLITE_OK)
        return MCPH_OK;
    int code = sqlite3_errcode(sq->db) & 0xff;

    mcph_sb_addf(why, "cannot read %s: %s", sq->database, err ? err : sqlite3_errmsg(sq->db));
    if (code == SQLITE_NOTADB)
        mcph_sb_addf(why, "; fix database = %s so that it names an SQLite database",
                     sq->host->config(sq->host, "database"));
    else if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        mcph_sb_addf(why,
                     ": another connection held a lock on it for longer than timeout_ms = %zu; "
                     "reload when it is free, or raise timeout_ms",
                     sq->timeout_ms);
    sqlite3_free(err);
    return MCPH_ERR;
}

static int sq_open(struct sq *sq, struct mcph_strbuf *why)
{
    int flags = sq->writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    int status = sq_check_file(sq, why);

    if (status != MCPH_OK)
        return status;
    if (sq->create)
        flags |= SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(sq->database, &sq->db, flags, NULL) != SQLITE_OK) {
        mcph_sb_addf(why, "cannot open the database %s: %s", sq->database,
                     sq->db ? sqlite3_errmsg(sq->db) : "out of memory");
        return MCPH_ERR;
    }
    status = sqguard_harden(sq->db, &sq->guard, why);
    if (status == MCPH_OK)
        status = sq_check_database(sq, why);
    return status;
}

/* --- Tools. --- */

/* A cell of a row: a JSON scalar, or a blob as {"base64": "..."}. */
#define SQ_CELL_SCHEMA                                                                             \
    "{\"anyOf\":[{\"type\":[\"string\",\"number\",\"null\"]},{\"type\":\"object\","                \
    "\"properties\":{\"base64\":{\"type\":\"string\"}},\"required\":[\"base64\"],"                 \
    "\"additionalProperties\":false}]}"

#define SQ_ROWS_PROPERTIES                                                                         \
    "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"                             \
    "\"description\":\"The column names, in order\"},"                                             \
    "\"rows\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":" SQ_CELL_SCHEMA "},"    \
    "\"description\":\"The rows, each an array of values in column order\"},"                      \
    "\"row_count\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"The rows given\"},"       \
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"More rows follow the last one "         \
    "given (cut at limit, max_rows or max_bytes)\"}"

#define SQ_PARAMS_SCHEMA                                                                           \
    "\"params\":{\"type\":[\"array\",\"object\"],\"items\":{\"type\":[\"string\",\"number\","      \
    "\"boolean\",\"null\"]},\"additionalProperties\":{\"type\":[\"string\",\"number\","            \
    "\"boolean\",\"null\"]},\"description\":\"Values for the placeholders: an array binds by "     \
    "position (?, ?1, ?2), an object by name (:name, @name or $name; a key may omit the sigil). "  \
    "Strings, numbers, booleans (bound as 1 and 0) and null. Always pass values this way, never "  \
    "inside the SQL text.\"}"

static const char sq_query_about[] =
    "Runs one SQL statement that only reads (SELECT, WITH ... SELECT, VALUES, EXPLAIN, or a "
    "PRAGMA that reads, such as table_info) on the SQLite database, and returns its rows as a "
    "text table and as structured content {columns, rows, row_count, truncated}. Rows stop at "
    "`limit` or at the server's max_rows, with truncated: true. Values: NULL is null; integers "
    "beyond 2^53 - 1 in magnitude are strings of digits; blobs are objects {\"base64\": \"...\"} "
    "(in the text table, hex literals x'...'); text cells of the table are cut to a fixed "
    "width. One statement per call; ATTACH, transactions, VACUUM and load_extension() are "
    "refused. The resources sqlite://<instance>/tables and sqlite://<instance>/<table>/schema "
    "describe the tables.";

static const struct mcph_tool sq_tools[] = {
    {
        .name = "query",
        .title = "Query the database",
        .description = sq_query_about,
        .input_schema =
            "{\"type\":\"object\",\"properties\":{"
            "\"sql\":{\"type\":\"string\",\"description\":\"One SQL statement that reads; use "
            "placeholders (?1, :name) for values\"}," SQ_PARAMS_SCHEMA ","
            "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"At most this many "
            "rows (the server's max_rows caps it)\"}},"
            "\"required\":[\"sql\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{" SQ_ROWS_PROPERTIES "},"
                         "\"required\":[\"columns\",\"rows\",\"row_count\",\"truncated\"]}",
        .read_only_hint = MCPH_HINT_TRUE,
        .destructive_hint = MCPH_HINT_FALSE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = sqrun_query,
    },
    {0},
};

/* Defined at init, and only when writable = yes. */
static const struct mcph_tool sq_execute_tool = {
    .name = "execute",
    .title = "Change the database",
    .description =
        "Runs one SQL statement that changes the SQLite database (INSERT, UPDATE, DELETE, "
        "REPLACE, CREATE, DROP, ALTER; committed when the call returns), with values bound "
        "from params, and returns the rows it changed and the connection's last insert rowid, "
        "plus the rows of a RETURNING clause as query gives them. Transactions, ATTACH, VACUUM "
        "and PRAGMAs other than user_version and application_id are refused.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"sql\":{\"type\":\"string\",\"description\":\"One SQL statement that "
        "changes the database; use placeholders (?1, :name) for values\"}," SQ_PARAMS_SCHEMA
        "},\"required\":[\"sql\"],\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{"
                     "\"changes\":{\"type\":\"integer\",\"description\":\"Rows inserted, "
                     "updated or deleted by the statement itself\"},"
                     "\"last_insert_rowid\":{\"type\":\"integer\",\"description\":\"The rowid "
                     "of the connection's latest successful INSERT\"}," SQ_ROWS_PROPERTIES "},"
                     "\"required\":[\"changes\",\"last_insert_rowid\"]}",
    .read_only_hint = MCPH_HINT_FALSE,
    .destructive_hint = MCPH_HINT_TRUE,
    .idempotent_hint = MCPH_HINT_FALSE,
    .open_world_hint = MCPH_HINT_FALSE,
    .call = sqrun_execute,
};

/* The definitions that depend on the config and the database (ABI 1.2). */
static int sq_define(struct sq *sq, struct mcph_strbuf *why)
{
    const struct mcph_host *host = sq->host;
    int rc;

    if (host->define_tool == NULL || host->define_resource == NULL) {
        if (sq->writable) {
            mcph_sb_addstr(why, "writable = yes needs an mcph that lets plugins define tools at "
                                "init (plugin ABI 1.2), and this one does not");
            return MCPH_ERR;
        }
        host->log(host, MCPH_LOG_WARNING,
                  "this mcph cannot define resources at init (plugin ABI 1.2): the tables of "
                  "%s are not served as resources",
                  sq->label);
        return MCPH_OK;
    }
    if (sq->writable) {
        rc = host->define_tool(host, &sq_execute_tool);
        if (rc != MCPH_OK) {
            mcph_sb_addf(why, "cannot define the execute tool (status %d)", rc);
            return rc;
        }
    }
    return sqschema_define(sq, why);
}

/* --- Life. --- */

static void sq_free(struct sq *sq)
{
    if (sq == NULL)
        return;
    sqschema_release(sq);
    if (sqlite3_close(sq->db) != SQLITE_OK) {
        /* A statement left unfinalized would be a bug here; close once it is gone. */
        sq->host->log(sq->host, MCPH_LOG_WARNING, "closing %s: %s", sq->database,
                      sqlite3_errmsg(sq->db));
        sqlite3_close_v2(sq->db);
    }
    sqguard_release(&sq->guard);
    free((char *)sq->database);
    free(sq);
}

static int sq_start(struct sq *sq, struct mcph_strbuf *why)
{
    int status = sq_config(sq, why);

    if (status == MCPH_OK)
        status = sq_open(sq, why);
    if (status == MCPH_OK) {
        sqguard_begin(&sq->guard, NULL, SQGUARD_READ);
        status = sqschema_list(sq, why);
        sqguard_end(&sq->guard);
    }
    if (status == MCPH_OK)
        status = sq_define(sq, why);
    return status;
}

static int sq_init(const struct mcph_host *host, void **state)
{
    struct sq *sq = calloc(1, sizeof(*sq));
    struct mcph_strbuf why;
    int status;

    if (sq == NULL) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the sqlite state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    sq->host = host;
    mcph_sb_init(&why);
    status = sq_start(sq, &why);
    if (status != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR, "%s",
                  sqbuf_str(&why) && why.len ? sqbuf_str(&why) : "out of memory");
        mcph_sb_release(&why);
        sq_free(sq);
        return status < 0 ? status : MCPH_ERR;
    }
    mcph_sb_release(&why);
    host->log(host, MCPH_LOG_INFO, "serving %s %s (SQLite %s): %zu tables and views", sq->database,
              sq->writable ? "writable" : "read-only", sqlite3_libversion(), sq->ntables);
    *state = sq;
    return MCPH_OK;
}

static void sq_shutdown(void *state)
{
    sq_free(state);
}

static const struct mcph_config_key sq_config_keys[] = {
    {
        .name = "database",
        .description = "The SQLite database file (a relative path is relative to the INI file)",
        .required = 1,
    },
    {
        .name = "writable",
        .description = "yes: open the database for writing and add the execute tool",
        .default_value = "no",
    },
    {
        .name = "create",
        .description = "yes: create the database file when it is missing (needs writable = yes)",
        .default_value = "no",
    },
    {
        .name = "max_rows",
        .description = "The most rows one call returns (1 to 100000)",
        .default_value = "500",
    },
    {
        .name = "max_bytes",
        .description = "About the most bytes of one result, rows and text table together "
                       "(1024 to 16777216); also the longest string, blob or row a statement "
                       "may make (1 MiB at least)",
        .default_value = "1048576",
    },
    {
        .name = "timeout_ms",
        .description = "Time limit of one call, and how long to wait for a locked database",
        .default_value = "5000",
    },
    {
        .name = "cell_width",
        .description = "The widest cell of the text table, in characters (8 to 1000)",
        .default_value = "40",
    },
    {0},
};

static const struct mcph_plugin sq_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "sqlite",
    .version = "1.0.0",
    .description = "An SQLite database: read-only queries, optional writes, table schemas",
    /* Not thread-safe: one connection and one guard, so mcph serialises the calls. Rebuilt on
     * every reload, so the resources follow the tables. */
    .flags = MCPH_PLUGIN_REBUILD_ON_RELOAD,
    .tools = sq_tools,
    .config_keys = sq_config_keys,
    .init = sq_init,
    .shutdown = sq_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &sq_plugin;
}
