/*
 * run.c: the query and execute tools.
 *
 * A client statement passes, in order: VACUUM is refused (VACUUM INTO writes a new file);
 * sqlite3_prepare_v3() under the authorizer (guard.c); exactly one statement (the rest of
 * the text may hold only blanks, comments and semicolons); sqlite3_stmt_readonly() must
 * match the tool; then every placeholder is bound from params, and nothing else is. Only
 * then does it run, under the call's time limit, with its rows cut at the row limit and at
 * max_bytes.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "result.h"
#include "run.h"
#include "schema.h"

/* Characters of SQL shown on each side of an error's position. */
#define SQRUN_EXCERPT 60

/* The arguments of a call. */
struct sqrun_args {
    const char *sql;    /* borrowed until the handler returns */
    const char *params; /* JSON text of params, or NULL; borrowed likewise */
    int64_t limit;      /* the limit argument, or 0 when absent */
};

/* Past blanks, comments and (when semicolons is set) empty statements. An unterminated
 * block comment runs to the end, as SQLite reads it. */
static const char *sqrun_skip_blank(const char *s, int semicolons)
{
    for (;;) {
        if (isspace((unsigned char)*s) || (semicolons && *s == ';')) {
            s++;
        } else if (s[0] == '-' && s[1] == '-') {
            s += strcspn(s, "\n");
        } else if (s[0] == '/' && s[1] == '*') {
            const char *end = strstr(s + 2, "*/");
            s = end ? end + 2 : s + strlen(s);
        } else {
            return s;
        }
    }
}

/* Non-zero when s starts with the keyword kw (case-insensitive, then not a name character). */
static int sqrun_keyword(const char *s, const char *kw)
{
    size_t n = strlen(kw);

    return strncasecmp(s, kw, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_' &&
           (unsigned char)s[n] < 0x80;
}

/* The byte-order mark U+FEFF in UTF-8, which editors put at the start of files. */
#define SQRUN_BOM "\xef\xbb\xbf"

/* Past whatever SQLite skips before the first statement: blanks, comments, empty statements
 * (";") and byte-order marks. */
static const char *sqrun_skip_lead(const char *s)
{
    for (;;) {
        s = sqrun_skip_blank(s, 1);
        if (strncmp(s, SQRUN_BOM, 3) != 0)
            return s;
        s += 3;
    }
}

/* Non-zero when the statement is a VACUUM, EXPLAIN in front or not. */
static int sqrun_is_vacuum(const char *sql)
{
    const char *s = sqrun_skip_lead(sql);

    if (sqrun_keyword(s, "EXPLAIN")) {
        s = sqrun_skip_blank(s + 7, 0);
        if (sqrun_keyword(s, "QUERY")) {
            s = sqrun_skip_blank(s + 5, 0);
            if (sqrun_keyword(s, "PLAN"))
                s = sqrun_skip_blank(s + 4, 0);
        }
    }
    return sqrun_keyword(s, "VACUUM");
}

/* Past one UTF-8 character. */
static size_t sqrun_next_char(const char *s, size_t i)
{
    i++;
    while (((unsigned char)s[i] & 0xc0) == 0x80)
        i++;
    return i;
}

/* " (line L, column C):" and the line of sql around offset, with a caret under it. */
static void sqrun_position(struct mcph_strbuf *msg, const char *sql, size_t offset)
{
    size_t line = 1, start = 0, col = 1, skip, from, end, shown = 0;

    for (size_t i = 0; i < offset && sql[i]; i++) {
        if (sql[i] == '\n') {
            line++;
            start = i + 1;
            col = 1;
        } else if (((unsigned char)sql[i] & 0xc0) != 0x80) {
            col++;
        }
    }
    skip = col - 1 > SQRUN_EXCERPT ? col - 1 - SQRUN_EXCERPT : 0;
    from = start;
    for (size_t k = 0; k < skip; k++)
        from = sqrun_next_char(sql, from);
    end = from;
    while (sql[end] != '\0' && sql[end] != '\n' && sql[end] != '\r' && shown++ < 2 * SQRUN_EXCERPT)
        end = sqrun_next_char(sql, end);
    mcph_sb_addf(msg, " (line %zu, column %zu):\n    ", line, col);
    for (size_t i = from; i < end; i++)
        mcph_sb_addch(msg, (unsigned char)sql[i] < 0x20 ? ' ' : sql[i]);
    mcph_sb_addstr(msg, "\n    ");
    sqbuf_pad(msg, ' ', col - 1 - skip);
    mcph_sb_addch(msg, '^');
}

/* A hint for SQLite errors whose message alone does not say what to do. */
static void sqrun_hint(const struct sq *sq, int code, struct mcph_strbuf *msg)
{
    switch (code & 0xff) {
    case SQLITE_READONLY:
        mcph_sb_addstr(msg, " (the database is opened read-only)");
        break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        mcph_sb_addf(msg,
                     " (another connection held a lock on the database for longer than "
                     "timeout_ms = %" PRId64 " ms; try again)",
                     sq->guard.timeout_ms);
        break;
    case SQLITE_TOOBIG:
        if (sq->guard.max_length > sq->max_bytes)
            mcph_sb_addf(msg,
                         " (here one string, blob or row may hold at most %zu bytes: max_bytes = "
                         "%zu, raised to 1 MiB for SQLite's own reads",
                         sq->guard.max_length, sq->max_bytes);
        else
            mcph_sb_addf(msg,
                         " (here one string, blob or row may hold at most max_bytes = %zu bytes, "
                         "the most one result may hold",
                         sq->max_bytes);
        mcph_sb_addstr(msg, ", and one statement's text at most 100 KiB; make the value or the "
                            "statement smaller)");
        break;
    case SQLITE_NOMEM:
        mcph_sb_addf(msg,
                     " (SQLite may use %lld MiB of memory in this server for all the databases it "
                     "serves, and the statement needed more, or other calls held it at the time; "
                     "select fewer or smaller values, and try again)",
                     (long long)(sqlite3_hard_heap_limit64(-1) / (1024 * 1024)));
        break;
    default:
        break;
    }
}

void sqrun_failure(const struct sq *sq, const char *sql, struct mcph_strbuf *msg)
{
    const struct sqguard *g = &sq->guard;
    int code = sqlite3_extended_errcode(sq->db);
    int offset = sqlite3_error_offset(sq->db);

    if (g->denied[0] != '\0') {
        mcph_sb_addf(msg, "refused: %s", g->denied);
    } else if (g->stop == SQGUARD_TIMEOUT) {
        mcph_sb_addf(msg,
                     "stopped: the statement ran longer than timeout_ms = %" PRId64
                     " ms, the time limit of one call; make it cheaper (a WHERE clause an index "
                     "can serve, a LIMIT, fewer rows to sort or join)",
                     g->timeout_ms);
    } else if (g->stop == SQGUARD_CANCELLED) {
        mcph_sb_addstr(msg, "cancelled by the client");
    } else if (g->stop == SQGUARD_MEMORY) {
        mcph_sb_addf(msg,
                     "stopped: the statement held more than %lld MiB of memory, this database's "
                     "share, while SQLite's memory in this server (%lld MiB for all the databases "
                     "it serves) was nearly used up; select fewer or smaller values",
                     (long long)(g->pool_share / (1024 * 1024)),
                     (long long)(sqlite3_hard_heap_limit64(-1) / (1024 * 1024)));
    } else {
        mcph_sb_addf(msg, "SQL error: %s", sqlite3_errmsg(sq->db));
        sqrun_hint(sq, code, msg);
        if (sql != NULL && offset >= 0 && (size_t)offset <= strlen(sql))
            sqrun_position(msg, sql, (size_t)offset);
    }
}

/* The one-statement rule: what follows the first statement may only be blank. */
static int sqrun_single(const char *sql, const char *tail, struct mcph_strbuf *msg)
{
    const char *rest = sqrun_skip_blank(tail, 1);

    if (*rest == '\0')
        return MCPH_OK;
    mcph_sb_addstr(msg, "refused: only one SQL statement may run per call, and more SQL follows "
                        "the first one; send each statement in a call of its own");
    sqrun_position(msg, sql, (size_t)(rest - sql));
    return SQ_ERR_TOOL;
}

/* The tool must match what the statement does. */
static int sqrun_fits_tool(const struct sq *sq, sqlite3_stmt *stmt, enum sqguard_mode mode,
                           struct mcph_strbuf *msg)
{
    int reads = sqlite3_stmt_readonly(stmt);

    if (mode == SQGUARD_READ && !reads) {
        mcph_sb_addf(msg,
                     "refused: query runs only statements that read, and this one would "
                     "change the database; %s",
                     sq->writable ? "use the execute tool to change it"
                                  : "the database is served read-only (writable = no)");
        return SQ_ERR_TOOL;
    }
    if (mode == SQGUARD_WRITE && reads) {
        mcph_sb_addstr(msg, "refused: execute runs statements that change the database, and this "
                            "one only reads; use the query tool");
        return SQ_ERR_TOOL;
    }
    return MCPH_OK;
}

static int sqrun_prepare(struct sq *sq, const char *sql, enum sqguard_mode mode, sqlite3_stmt **out,
                         struct mcph_strbuf *msg)
{
    sqlite3_stmt *stmt = NULL;
    const char *tail = NULL;
    int status;

    *out = NULL;
    if (sqrun_is_vacuum(sql)) {
        mcph_sb_addstr(msg, "refused: VACUUM is not allowed: VACUUM INTO would write a new "
                            "database file, and VACUUM rewrites and locks the whole database");
        return SQ_ERR_TOOL;
    }
    sqguard_clear(&sq->guard);
    if (sqlite3_prepare_v3(sq->db, sql, -1, 0, &stmt, &tail) != SQLITE_OK) {
        sqrun_failure(sq, sql, msg);
        return SQ_ERR_TOOL;
    }
    if (stmt == NULL) {
        mcph_sb_addstr(msg, "refused: the SQL holds no statement (it is empty, or only comments)");
        return SQ_ERR_TOOL;
    }
    status = sqrun_single(sql, tail, msg);
    if (status == MCPH_OK)
        status = sqrun_fits_tool(sq, stmt, mode, msg);
    if (status != MCPH_OK) {
        sqlite3_finalize(stmt);
        return status;
    }
    *out = stmt;
    return MCPH_OK;
}

/* The placeholders of stmt, for messages: "?1, :name, ..." (at most a few). */
static void sqrun_placeholders(sqlite3_stmt *stmt, struct mcph_strbuf *msg)
{
    int n = sqlite3_bind_parameter_count(stmt);

    for (int i = 1; i <= n && i <= 8; i++) {
        const char *name = sqlite3_bind_parameter_name(stmt, i);
        mcph_sb_addstr(msg, i > 1 ? ", " : "");
        if (name)
            mcph_sb_addstr(msg, name);
        else
            mcph_sb_addf(msg, "?%d", i);
    }
    if (n > 8)
        mcph_sb_addstr(msg, ", ...");
}

/* The statement that reads params: one row per member, its key, JSON type and value. */
static const char sqrun_params_sql[] = "SELECT key, type, atom FROM json_each(?1)";

/* The index of the placeholder that the params member `key` names, or 0. A key may be
 * written with its sigil (":id") or without ("id", tried as :id, @id and $id). */
static int sqrun_named_index(sqlite3_stmt *stmt, const char *key)
{
    static const char sigils[] = ":@$";
    char name[256];
    int i;

    if (key[0] != '\0' && strchr(sigils, key[0]) != NULL)
        return sqlite3_bind_parameter_index(stmt, key);
    for (size_t s = 0; s < 3; s++) {
        if (snprintf(name, sizeof(name), "%c%s", sigils[s], key) >= (int)sizeof(name))
            return 0;
        i = sqlite3_bind_parameter_index(stmt, name);
        if (i > 0)
            return i;
    }
    return 0;
}

/* Where one params member goes: its placeholder index, or SQ_ERR_TOOL with msg set. */
static int sqrun_param_index(sqlite3_stmt *stmt, sqlite3_stmt *js, int named, int position,
                             struct mcph_strbuf *msg)
{
    const char *key = (const char *)sqlite3_column_text(js, 0);
    const char *type = (const char *)sqlite3_column_text(js, 1);
    int index = named ? sqrun_named_index(stmt, key ? key : "") : position;

    if (type != NULL && (strcmp(type, "array") == 0 || strcmp(type, "object") == 0)) {
        mcph_sb_addf(msg,
                     "refused: params%s%s%s is an %s; only strings, numbers, booleans and "
                     "null can be bound",
                     named ? "." : "[", key ? key : "", named ? "" : "]", type);
        return SQ_ERR_TOOL;
    }
    if (index == 0) {
        mcph_sb_addf(msg,
                     "refused: params gives \"%s\", which is not a placeholder of the "
                     "statement (it has: ",
                     key ? key : "");
        sqrun_placeholders(stmt, msg);
        mcph_sb_addstr(msg, ")");
        return SQ_ERR_TOOL;
    }
    return index;
}

/* Binds every member of params; bound[i] marks placeholder i + 1. */
static int sqrun_bind_members(struct sq *sq, sqlite3_stmt *stmt, sqlite3_stmt *js, int named,
                              char *bound, struct mcph_strbuf *msg)
{
    int n = sqlite3_bind_parameter_count(stmt), position = 0, rc;

    while ((rc = sqlite3_step(js)) == SQLITE_ROW) {
        int index = sqrun_param_index(stmt, js, named, ++position, msg);

        if (index < 0)
            return index;
        if (index > n) {
            mcph_sb_addf(msg,
                         "refused: params has more values than the statement has "
                         "placeholders (%d: ",
                         n);
            sqrun_placeholders(stmt, msg);
            mcph_sb_addstr(msg, ")");
            return SQ_ERR_TOOL;
        }
        if (bound[index - 1]) {
            mcph_sb_addf(msg, "refused: params gives the placeholder %s twice",
                         sqlite3_bind_parameter_name(stmt, index));
            return SQ_ERR_TOOL;
        }
        bound[index - 1] = 1;
        if (sqlite3_bind_value(stmt, index, sqlite3_column_value(js, 2)) != SQLITE_OK)
            return MCPH_ERR_NOMEM;
    }
    if (rc != SQLITE_DONE) {
        mcph_sb_addstr(msg, "refused: params could not be read: ");
        sqrun_failure(sq, NULL, msg);
        return SQ_ERR_TOOL;
    }
    return MCPH_OK;
}

/* Every placeholder must have a value: an unbound one would silently be NULL. */
static int sqrun_all_bound(sqlite3_stmt *stmt, const char *bound, int named,
                           struct mcph_strbuf *msg)
{
    int n = sqlite3_bind_parameter_count(stmt);

    for (int i = 1; i <= n; i++) {
        const char *name = sqlite3_bind_parameter_name(stmt, i);

        if (bound[i - 1])
            continue;
        if (named && name == NULL)
            mcph_sb_addf(msg,
                         "refused: placeholder %d of the statement has no name, so params "
                         "must be an array (bound by position)",
                         i);
        else if (named)
            mcph_sb_addf(msg,
                         "refused: the statement uses the placeholder %s, which params does "
                         "not give",
                         name);
        else
            mcph_sb_addf(msg, "refused: the statement has %d placeholders (", n);
        if (!named) {
            sqrun_placeholders(stmt, msg);
            mcph_sb_addf(msg, ") but params gives values for %d of them", i - 1);
        }
        return SQ_ERR_TOOL;
    }
    return MCPH_OK;
}

static int sqrun_bind(struct sq *sq, sqlite3_stmt *stmt, const char *params,
                      struct mcph_strbuf *msg)
{
    int n = sqlite3_bind_parameter_count(stmt), named, status;
    sqlite3_stmt *js = NULL;
    char *bound;

    if (params == NULL && n == 0)
        return MCPH_OK;
    if (params == NULL) {
        mcph_sb_addstr(msg, "refused: the statement has placeholders (");
        sqrun_placeholders(stmt, msg);
        mcph_sb_addstr(msg, ") but no params were given: give params, an array (by position) or "
                            "an object (by name)");
        return SQ_ERR_TOOL;
    }
    params += strspn(params, " \t\r\n");
    if (*params != '[' && *params != '{') {
        mcph_sb_addstr(msg, "refused: params must be an array (bound by position: ?, ?1, ?2) or an "
                            "object (bound by name: :name, @name, $name)");
        return SQ_ERR_TOOL;
    }
    named = *params == '{';
    bound = calloc((size_t)n + 1, 1);
    if (bound == NULL)
        return MCPH_ERR_NOMEM;
    if (sqlite3_prepare_v2(sq->db, sqrun_params_sql, -1, &js, NULL) != SQLITE_OK ||
        sqlite3_bind_text(js, 1, params, -1, SQLITE_STATIC) != SQLITE_OK) {
        mcph_sb_addstr(msg, "refused: params could not be read: ");
        sqrun_failure(sq, NULL, msg);
        status = SQ_ERR_TOOL;
    } else {
        status = sqrun_bind_members(sq, stmt, js, named, bound, msg);
    }
    if (status == MCPH_OK)
        status = sqrun_all_bound(stmt, bound, named, msg);
    sqlite3_finalize(js);
    free(bound);
    return status;
}

/* The statement of a call, prepared, checked and bound, in *out. */
static int sqrun_statement(struct sq *sq, const struct sqrun_args *a, enum sqguard_mode mode,
                           sqlite3_stmt **out, struct mcph_strbuf *msg)
{
    int status = sqrun_prepare(sq, a->sql, mode, out, msg);

    if (status != MCPH_OK)
        return status;
    status = sqrun_bind(sq, *out, a->params, msg);
    if (status != MCPH_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
    }
    return status;
}

/* Runs the statement and keeps its rows; a failure mid-way is the call's failure. */
static int sqrun_rows(struct sq *sq, sqlite3_stmt *stmt, const char *sql,
                      const struct sqres_limits *lim, struct sqres *res, struct mcph_strbuf *msg)
{
    int step_rc;
    int status = sqres_collect(res, stmt, lim, &step_rc);

    if (status != MCPH_OK)
        return status;
    if (step_rc != SQLITE_DONE) {
        sqrun_failure(sq, sql, msg);
        return SQ_ERR_TOOL;
    }
    return MCPH_OK;
}

static int sqrun_args(const struct mcph_host *host, struct mcph_call *call, struct sqrun_args *a,
                      struct mcph_strbuf *msg)
{
    int rc = host->arg_string(call, "sql", &a->sql);

    if (rc != MCPH_OK) {
        mcph_sb_addstr(msg, rc == MCPH_ERR_ABSENT ? "missing the argument \"sql\" (a string)"
                                                  : "the argument \"sql\" must be a string");
        return rc == MCPH_ERR_ABSENT || rc == MCPH_ERR_TYPE ? SQ_ERR_TOOL : rc;
    }
    rc = host->arg_json(call, "params", &a->params);
    if (rc == MCPH_ERR_ABSENT)
        a->params = NULL;
    else if (rc != MCPH_OK)
        return rc;
    rc = host->arg_integer(call, "limit", &a->limit);
    if (rc == MCPH_ERR_ABSENT) {
        a->limit = 0;
    } else if (rc != MCPH_OK || a->limit < 1) {
        mcph_sb_addstr(msg, "the argument \"limit\" must be an integer of at least 1");
        return rc == MCPH_OK || rc == MCPH_ERR_TYPE ? SQ_ERR_TOOL : rc;
    }
    return MCPH_OK;
}

/* The result's stop: the guard's time limit and cancellation, between rows and values. */
static int sqrun_stop(void *arg)
{
    return sqguard_check(arg);
}

/* The row limits of a call: its limit argument, capped by max_rows. */
static struct sqres_limits sqrun_limits(struct sq *sq, int64_t limit)
{
    struct sqres_limits lim = {
        .rows = sq->max_rows,
        .rows_cut = SQRES_CUT_MAX_ROWS,
        .max_bytes = sq->max_bytes,
        .cell_width = sq->cell_width,
        .stop = sqrun_stop,
        .stop_arg = &sq->guard,
    };

    if (limit > 0 && (uint64_t)limit < sq->max_rows) {
        lim.rows = (size_t)limit;
        lim.rows_cut = SQRES_CUT_LIMIT;
    }
    return lim;
}

/* The end of every call: the outcome, as a result or a tool error. */
static int sqrun_finish(struct sq *sq, struct mcph_call *call, int status, struct mcph_strbuf *msg)
{
    const struct mcph_host *host = sq->host;
    int cancelled = sq->guard.stop == SQGUARD_CANCELLED;

    sqguard_end(&sq->guard);
    if (status == MCPH_OK)
        sqschema_follow(sq);
    if (status == SQ_ERR_TOOL && cancelled)
        return host->tool_error(call, "cancelled by the client");
    if (status == SQ_ERR_TOOL) {
        const char *text = sqbuf_str(msg);
        return text ? host->tool_error(call, "%s", text) : MCPH_ERR_NOMEM;
    }
    return status;
}

/* Sends the rows: the text table, then the structured result (with extra members first). */
static int sqrun_send(const struct mcph_host *host, struct mcph_call *call, const char *intro,
                      const char *extra_json, const struct sqres *res, int with_rows)
{
    struct mcph_strbuf text, json;
    int rc = MCPH_ERR_NOMEM;

    mcph_sb_init(&text);
    mcph_sb_init(&json);
    mcph_sb_addstr(&text, intro);
    mcph_sb_addch(&json, '{');
    mcph_sb_addstr(&json, extra_json);
    if (with_rows) {
        sqres_table(res, &text);
        mcph_sb_addstr(&json, extra_json[0] ? "," : "");
        sqres_json(res, &json);
    }
    mcph_sb_addch(&json, '}');
    if (sqbuf_str(&text) && sqbuf_str(&json)) {
        rc = host->text(call, sqbuf_str(&text));
        if (rc == MCPH_OK)
            rc = host->structured(call, sqbuf_str(&json));
    }
    mcph_sb_release(&text);
    mcph_sb_release(&json);
    return rc;
}

int sqrun_query(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct sq *sq = state;
    struct sqrun_args a;
    struct sqres res;
    struct mcph_strbuf msg, intro;
    sqlite3_stmt *stmt = NULL;
    int status;

    mcph_sb_init(&msg);
    mcph_sb_init(&intro);
    sqres_init(&res);
    sqguard_begin(&sq->guard, call, SQGUARD_READ);
    status = sqrun_args(host, call, &a, &msg);
    if (status == MCPH_OK)
        status = sqrun_statement(sq, &a, SQGUARD_READ, &stmt, &msg);
    if (status == MCPH_OK) {
        struct sqres_limits lim = sqrun_limits(sq, a.limit);
        status = sqrun_rows(sq, stmt, a.sql, &lim, &res, &msg);
    }
    if (status == MCPH_OK && a.limit > 0 && (uint64_t)a.limit > sq->max_rows)
        mcph_sb_addf(&intro, "(limit %" PRId64 " is above max_rows = %zu: %zu used)\n", a.limit,
                     sq->max_rows, sq->max_rows);
    sqlite3_finalize(stmt);
    if (status == MCPH_OK)
        status = sqrun_send(host, call, sqbuf_str(&intro) ? sqbuf_str(&intro) : "", "", &res, 1);
    status = sqrun_finish(sq, call, status, &msg);
    sqres_release(&res);
    mcph_sb_release(&intro);
    mcph_sb_release(&msg);
    return status;
}

/* Runs a writing statement: its RETURNING rows in res, what it changed in changes. */
static int sqrun_write(struct sq *sq, const struct sqrun_args *a, struct sqres *res,
                       sqlite3_int64 *changes, struct mcph_strbuf *msg)
{
    sqlite3_int64 before = sqlite3_total_changes64(sq->db);
    struct sqres_limits lim = sqrun_limits(sq, 0);
    sqlite3_stmt *stmt = NULL;
    int status = sqrun_statement(sq, a, SQGUARD_WRITE, &stmt, msg);

    if (status == MCPH_OK)
        status = sqrun_rows(sq, stmt, a->sql, &lim, res, msg);
    sqlite3_finalize(stmt);
    *changes = sqlite3_total_changes64(sq->db) != before ? sqlite3_changes64(sq->db) : 0;
    return status;
}

int sqrun_execute(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct sq *sq = state;
    struct sqrun_args a;
    struct sqres res;
    struct mcph_strbuf msg, intro, extra;
    sqlite3_int64 changes = 0, rowid;
    int status;

    mcph_sb_init(&msg);
    mcph_sb_init(&intro);
    mcph_sb_init(&extra);
    sqres_init(&res);
    sqguard_begin(&sq->guard, call, SQGUARD_WRITE);
    status = sqrun_args(host, call, &a, &msg);
    if (status == MCPH_OK)
        status = sqrun_write(sq, &a, &res, &changes, &msg);
    rowid = sqlite3_last_insert_rowid(sq->db);
    mcph_sb_addf(&intro, "%lld row%s changed; last insert rowid %lld\n", (long long)changes,
                 changes == 1 ? "" : "s", (long long)rowid);
    mcph_sb_addf(&extra, "\"changes\":%lld,\"last_insert_rowid\":%lld", (long long)changes,
                 (long long)rowid);
    if (status == MCPH_OK && sqbuf_str(&intro) && sqbuf_str(&extra))
        status = sqrun_send(host, call, sqbuf_str(&intro), sqbuf_str(&extra), &res, res.ncol > 0);
    else if (status == MCPH_OK)
        status = MCPH_ERR_NOMEM;
    status = sqrun_finish(sq, call, status, &msg);
    sqres_release(&res);
    mcph_sb_release(&extra);
    mcph_sb_release(&intro);
    mcph_sb_release(&msg);
    return status;
}
