/*
 * schema.c: resources describing the tables and views.
 *
 * Every statement here is the plugin's own, with names bound as values (pragma_table_xinfo(?1))
 * or quoted by sqlite3_mprintf("%w"), never pasted into SQL. They run under the same guard as
 * a client's query: read-only, and within timeout_ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "schema.h"

/* The tables and views of the main database, without SQLite's own tables and without the
 * shadow tables of virtual tables. pragma_table_list needs SQLite 3.37; the second statement
 * serves older libraries. */
static const char sqschema_list_sql[] =
    "SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', "
    "'view', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name";
static const char sqschema_list_old_sql[] =
    "SELECT name, CASE WHEN sql LIKE 'CREATE VIRTUAL %' THEN 'virtual' ELSE type END FROM "
    "sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
    "ORDER BY name";

static const char sqschema_columns_sql[] =
    "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?1, 'main') "
    "ORDER BY cid";
static const char sqschema_fkeys_sql[] =
    "SELECT \"table\", group_concat('`' || \"from\" || '`', ', '), group_concat(coalesce('`' "
    "|| \"to\" || '`', '(its primary key)'), ', '), on_update, on_delete FROM (SELECT * FROM "
    "pragma_foreign_key_list(?1, 'main') ORDER BY id, seq) GROUP BY id ORDER BY id";
static const char sqschema_indexes_sql[] =
    "SELECT l.name, l.\"unique\", l.origin, l.partial, (SELECT group_concat(coalesce('`' || "
    "i.name || '`', '(expression)'), ', ') FROM (SELECT name FROM pragma_index_info(l.name, "
    "'main') ORDER BY seqno) AS i) FROM pragma_index_list(?1, 'main') AS l ORDER BY l.name";
static const char sqschema_triggers_sql[] =
    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 ORDER BY name";
static const char sqschema_create_sql[] =
    "SELECT sql FROM sqlite_master WHERE name = ?1 AND type IN ('table', 'view')";
static const char sqschema_version_sql[] = "PRAGMA schema_version";

/* How each kind of table is named in titles and headings. */
static const struct {
    const char *kind;
    const char *title;
} sqschema_kinds[] = {
    {"table", "Table"},
    {"view", "View"},
    {"virtual", "Virtual table"},
    {NULL, NULL},
};

static const char *sqschema_title(const char *kind)
{
    for (size_t i = 0; sqschema_kinds[i].kind != NULL; i++) {
        if (strcmp(sqschema_kinds[i].kind, kind) == 0)
            return sqschema_kinds[i].title;
    }
    return "Table";
}

/* Percent-encodes everything but RFC 3986's unreserved characters. */
static void sqschema_encode(struct mcph_strbuf *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";

    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            mcph_sb_addch(out, (char)*p);
        } else {
            mcph_sb_addch(out, '%');
            mcph_sb_addch(out, hex[*p >> 4]);
            mcph_sb_addch(out, hex[*p & 15]);
        }
    }
}

/* A name as Markdown code, on one line; in a table cell, with its pipes escaped. */
static void sqschema_code(struct mcph_strbuf *out, const char *s, int in_table)
{
    size_t run = 0, longest = 0;

    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    sqbuf_pad(out, '`', longest + 1);
    if (longest > 0 || s[0] == '\0')
        mcph_sb_addch(out, ' ');
    for (const char *p = s; *p; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t')
            mcph_sb_addch(out, ' ');
        else if (*p == '|' && in_table)
            mcph_sb_addstr(out, "\\|");
        else
            mcph_sb_addch(out, *p);
    }
    if (longest > 0 || s[0] == '\0')
        mcph_sb_addch(out, ' ');
    sqbuf_pad(out, '`', longest + 1);
}

static int sqschema_prepare(struct sq *sq, const char *sql, const char *arg, sqlite3_stmt **out)
{
    sqguard_clear(&sq->guard);
    if (sqlite3_prepare_v2(sq->db, sql, -1, out, NULL) != SQLITE_OK)
        return SQ_ERR_TOOL;
    if (arg != NULL && sqlite3_bind_text(*out, 1, arg, -1, SQLITE_STATIC) != SQLITE_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
        return SQ_ERR_TOOL;
    }
    return MCPH_OK;
}

static int sqschema_add_table(struct sq *sq, const char *name, const char *kind)
{
    struct sqtable *t = &sq->tables[sq->ntables];
    struct mcph_strbuf uri;

    mcph_sb_init(&uri);
    mcph_sb_addstr(&uri, "sqlite://");
    sqschema_encode(&uri, sq->host->instance);
    mcph_sb_addch(&uri, '/');
    sqschema_encode(&uri, name);
    mcph_sb_addstr(&uri, "/schema");
    t->name = strdup(name);
    t->kind = strdup(kind);
    t->uri = sqbuf_str(&uri) ? strdup(sqbuf_str(&uri)) : NULL;
    mcph_sb_release(&uri);
    sq->ntables++;
    return t->name && t->kind && t->uri ? MCPH_OK : MCPH_ERR_NOMEM;
}

static int sqschema_version(struct sq *sq, int *version)
{
    sqlite3_stmt *stmt = NULL;
    int status = sqschema_prepare(sq, sqschema_version_sql, NULL, &stmt);

    if (status == MCPH_OK && sqlite3_step(stmt) == SQLITE_ROW)
        *version = sqlite3_column_int(stmt, 0);
    else
        status = SQ_ERR_TOOL;
    sqlite3_finalize(stmt);
    return status;
}

/* Reads the list into sq->tables: MCPH_OK, or SQ_ERR_TOOL / MCPH_ERR_NOMEM. */
static int sqschema_read_list(struct sq *sq, sqlite3_stmt *stmt)
{
    int rc, status = MCPH_OK;

    sq->tables = calloc(SQSCHEMA_MAX_TABLES, sizeof(*sq->tables));
    if (sq->tables == NULL)
        return MCPH_ERR_NOMEM;
    while (status == MCPH_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(stmt, 0);
        const char *kind = (const char *)sqlite3_column_text(stmt, 1);

        if (sq->ntables == SQSCHEMA_MAX_TABLES) {
            sq->host->log(sq->host, MCPH_LOG_WARNING,
                          "%s has more than %d tables and views: only the first %d (by name) "
                          "are served as resources",
                          sq->label, SQSCHEMA_MAX_TABLES, SQSCHEMA_MAX_TABLES);
            return MCPH_OK;
        }
        status = sqschema_add_table(sq, name ? name : "", kind ? kind : "table");
    }
    if (status == MCPH_OK && rc != SQLITE_DONE)
        status = SQ_ERR_TOOL;
    return status;
}

int sqschema_list(struct sq *sq, struct mcph_strbuf *why)
{
    sqlite3_stmt *stmt = NULL;
    int status = sqschema_prepare(sq, sqschema_list_sql, NULL, &stmt);

    if (status != MCPH_OK)
        status = sqschema_prepare(sq, sqschema_list_old_sql, NULL, &stmt);
    if (status == MCPH_OK)
        status = sqschema_read_list(sq, stmt);
    sqlite3_finalize(stmt);
    if (status == MCPH_OK)
        status = sqschema_version(sq, &sq->schema_version);
    if (status == SQ_ERR_TOOL) {
        mcph_sb_addf(why, "cannot list the tables of %s: ", sq->database);
        sqrun_failure(sq, NULL, why);
        return MCPH_ERR;
    }
    return status;
}

void sqschema_release(struct sq *sq)
{
    for (size_t i = 0; sq->tables != NULL && i < sq->ntables; i++) {
        free(sq->tables[i].name);
        free(sq->tables[i].uri);
        free(sq->tables[i].kind);
    }
    free(sq->tables);
    free(sq->overview_uri);
    sq->tables = NULL;
    sq->ntables = 0;
    sq->overview_uri = NULL;
}

void sqschema_follow(struct sq *sq)
{
    int version;

    if (sq->refresh_asked || sq->host->refresh == NULL)
        return;
    if (sqschema_version(sq, &version) != MCPH_OK || version == sq->schema_version)
        return;
    sq->refresh_asked = 1;
    sq->host->log(sq->host, MCPH_LOG_INFO,
                  "the schema of %s changed: rebuilding the instance so its resources follow",
                  sq->label);
    sq->host->refresh(sq->host);
}

/* --- Describing one table. Each section returns MCPH_OK or SQ_ERR_TOOL. --- */

/* "Rows: N", or why they were not counted (a slow count is not a failure of the read). */
static void sqschema_count(struct sq *sq, const char *name, struct mcph_strbuf *out)
{
    char *sql = sqlite3_mprintf("SELECT count(*) FROM main.\"%w\"", name);
    sqlite3_stmt *stmt = NULL;

    if (sql != NULL && sqschema_prepare(sq, sql, NULL, &stmt) == MCPH_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
        mcph_sb_addf(out, "%lld", (long long)sqlite3_column_int64(stmt, 0));
    } else if (sq->guard.stop == SQGUARD_TIMEOUT) {
        mcph_sb_addstr(out, "not counted (counting took longer than timeout_ms)");
    } else {
        mcph_sb_addstr(out, "not counted (");
        sqrun_failure(sq, NULL, out);
        mcph_sb_addch(out, ')');
    }
    sqlite3_finalize(stmt);
    sqlite3_free(sql);
}

static const char *sqschema_hidden(int hidden)
{
    switch (hidden) {
    case 1:
        return " (hidden)";
    case 2:
        return " (generated, virtual)";
    case 3:
        return " (generated, stored)";
    default:
        return "";
    }
}

static void sqschema_column(sqlite3_stmt *stmt, struct mcph_strbuf *out)
{
    const char *name = (const char *)sqlite3_column_text(stmt, 0);
    const char *type = (const char *)sqlite3_column_text(stmt, 1);
    const char *dflt = (const char *)sqlite3_column_text(stmt, 3);
    int pk = sqlite3_column_int(stmt, 4);

    mcph_sb_addstr(out, "| ");
    sqschema_code(out, name ? name : "", 1);
    mcph_sb_addstr(out, " | ");
    if (type != NULL && type[0] != '\0')
        sqschema_code(out, type, 1);
    else
        mcph_sb_addstr(out, "(none)");
    mcph_sb_addstr(out, sqschema_hidden(sqlite3_column_int(stmt, 5)));
    mcph_sb_addstr(out, sqlite3_column_int(stmt, 2) ? " | yes | " : " | no | ");
    if (dflt != NULL)
        sqschema_code(out, dflt, 1);
    if (pk > 0)
        mcph_sb_addf(out, " | %d |\n", pk);
    else
        mcph_sb_addstr(out, " |  |\n");
}

static int sqschema_columns(struct sq *sq, const char *name, struct mcph_strbuf *out)
{
    sqlite3_stmt *stmt = NULL;
    int rc = SQLITE_ERROR;

    if (sqschema_prepare(sq, sqschema_columns_sql, name, &stmt) != MCPH_OK)
        return SQ_ERR_TOOL;
    mcph_sb_addstr(out, "\n## Columns\n\n| Column | Type | Not null | Default | Primary key |\n"
                        "|---|---|---|---|---|\n");
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        sqschema_column(stmt, out);
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? MCPH_OK : SQ_ERR_TOOL;
}

/* The text of column i of the current row, "" for NULL. */
static const char *sqschema_text(sqlite3_stmt *stmt, int i)
{
    const char *s = (const char *)sqlite3_column_text(stmt, i);
    return s ? s : "";
}

static int sqschema_fkeys(struct sq *sq, const char *name, struct mcph_strbuf *out)
{
    sqlite3_stmt *stmt = NULL;
    int rc, n = 0;

    if (sqschema_prepare(sq, sqschema_fkeys_sql, name, &stmt) != MCPH_OK)
        return SQ_ERR_TOOL;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (n++ == 0)
            mcph_sb_addstr(out, "\n## Foreign keys\n\n");
        mcph_sb_addf(out, "- (%s) references ", sqschema_text(stmt, 1));
        sqschema_code(out, sqschema_text(stmt, 0), 0);
        mcph_sb_addf(out, " (%s), on update %s, on delete %s\n", sqschema_text(stmt, 2),
                     sqschema_text(stmt, 3), sqschema_text(stmt, 4));
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? MCPH_OK : SQ_ERR_TOOL;
}

/* What made an index (pragma index_list's origin). */
static const char *sqschema_origin(const char *origin)
{
    if (strcmp(origin, "pk") == 0)
        return ", from the PRIMARY KEY";
    if (strcmp(origin, "u") == 0)
        return ", from a UNIQUE constraint";
    return "";
}

static int sqschema_indexes(struct sq *sq, const char *name, struct mcph_strbuf *out)
{
    sqlite3_stmt *stmt = NULL;
    int rc, n = 0;

    if (sqschema_prepare(sq, sqschema_indexes_sql, name, &stmt) != MCPH_OK)
        return SQ_ERR_TOOL;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (n++ == 0)
            mcph_sb_addstr(out, "\n## Indexes\n\n");
        mcph_sb_addstr(out, "- ");
        sqschema_code(out, sqschema_text(stmt, 0), 0);
        mcph_sb_addf(out, " on (%s)%s%s%s\n", sqschema_text(stmt, 4),
                     sqlite3_column_int(stmt, 1) ? ", unique" : "",
                     sqschema_origin(sqschema_text(stmt, 2)),
                     sqlite3_column_int(stmt, 3) ? ", partial (WHERE ...)" : "");
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? MCPH_OK : SQ_ERR_TOOL;
}

static int sqschema_triggers(struct sq *sq, const char *name, struct mcph_strbuf *out)
{
    sqlite3_stmt *stmt = NULL;
    int rc, n = 0;

    if (sqschema_prepare(sq, sqschema_triggers_sql, name, &stmt) != MCPH_OK)
        return SQ_ERR_TOOL;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        mcph_sb_addstr(out, n++ == 0 ? "\n## Triggers\n\n" : "");
        mcph_sb_addstr(out, "- ");
        sqschema_code(out, sqschema_text(stmt, 0), 0);
        mcph_sb_addch(out, '\n');
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? MCPH_OK : SQ_ERR_TOOL;
}

/* The CREATE statement; MCPH_ERR_NOT_FOUND when the table is gone. */
static int sqschema_create(struct sq *sq, const char *name, struct mcph_strbuf *out)
{
    sqlite3_stmt *stmt = NULL;
    int rc;

    if (sqschema_prepare(sq, sqschema_create_sql, name, &stmt) != MCPH_OK)
        return SQ_ERR_TOOL;
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        mcph_sb_addstr(out, "\n## Definition\n\n```sql\n");
        mcph_sb_addstr(out, sqschema_text(stmt, 0));
        mcph_sb_addstr(out, ";\n```\n");
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_DONE)
        return MCPH_ERR_NOT_FOUND;
    return rc == SQLITE_ROW ? MCPH_OK : SQ_ERR_TOOL;
}

static void sqschema_heading(struct sq *sq, const struct sqtable *t, struct mcph_strbuf *out)
{
    mcph_sb_addf(out, "# %s ", sqschema_title(t->kind));
    sqschema_code(out, t->name, 0);
    mcph_sb_addf(out, "\n\nIn the database %s, served %s. Rows: ", sq->label,
                 sq->writable ? "writable" : "read-only");
    sqschema_count(sq, t->name, out);
    mcph_sb_addch(out, '\n');
}

/* The whole description of t. MCPH_OK, MCPH_ERR_NOT_FOUND (t is gone) or SQ_ERR_TOOL. */
static int sqschema_describe(struct sq *sq, const struct sqtable *t, struct mcph_strbuf *out)
{
    struct mcph_strbuf body;
    int status;

    mcph_sb_init(&body);
    status = sqschema_create(sq, t->name, &body);
    if (status == MCPH_OK)
        sqschema_heading(sq, t, out);
    if (status == MCPH_OK)
        status = sqschema_columns(sq, t->name, out);
    if (status == MCPH_OK)
        status = sqschema_fkeys(sq, t->name, out);
    if (status == MCPH_OK)
        status = sqschema_indexes(sq, t->name, out);
    if (status == MCPH_OK)
        status = sqschema_triggers(sq, t->name, out);
    if (status == MCPH_OK)
        mcph_sb_add(out, body.buf, body.len);
    mcph_sb_release(&body);
    return status;
}

static const struct sqtable *sqschema_find(const struct sq *sq, const char *uri)
{
    for (size_t i = 0; uri != NULL && i < sq->ntables; i++) {
        if (strcmp(sq->tables[i].uri, uri) == 0)
            return &sq->tables[i];
    }
    return NULL;
}

/* Sends out as the resource's contents, or the failure as a protocol error. */
static int sqschema_send(struct sq *sq, struct mcph_call *call, int status, struct mcph_strbuf *out,
                         const char *name)
{
    const struct mcph_host *host = sq->host;
    struct mcph_strbuf msg;
    int rc;

    mcph_sb_init(&msg);
    if (status == MCPH_ERR_NOT_FOUND)
        mcph_sb_addf(&msg,
                     "the table %s no longer exists in %s; the resource list follows the "
                     "schema shortly",
                     name, sq->label);
    else if (status == SQ_ERR_TOOL)
        sqrun_failure(sq, NULL, &msg);
    sqguard_end(&sq->guard);
    if (status == MCPH_OK || status == MCPH_ERR_NOT_FOUND)
        sqschema_follow(sq);
    if (status == MCPH_OK && sqbuf_str(out))
        rc = host->contents_text(call, NULL, "text/markdown", sqbuf_str(out));
    else if (status == MCPH_OK || !sqbuf_str(&msg))
        rc = MCPH_ERR_NOMEM;
    else
        rc = host->error(call, status == MCPH_ERR_NOT_FOUND ? MCPH_ERR_NOT_FOUND : MCPH_ERR, "%s",
                         sqbuf_str(&msg));
    mcph_sb_release(&msg);
    return rc;
}

static int sqschema_read_table(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct sq *sq = state;
    const struct sqtable *t = sqschema_find(sq, host->uri(call));
    struct mcph_strbuf out;
    int status;

    if (t == NULL)
        return host->error(call, MCPH_ERR_NOT_FOUND, "no table is served at %s", host->uri(call));
    mcph_sb_init(&out);
    sqguard_begin(&sq->guard, call, SQGUARD_READ);
    status = sqschema_describe(sq, t, &out);
    status = sqschema_send(sq, call, status, &out, t->name);
    mcph_sb_release(&out);
    return status;
}

static void sqschema_overview_row(struct sq *sq, const struct sqtable *t, struct mcph_strbuf *out)
{
    mcph_sb_addstr(out, "| ");
    sqschema_code(out, t->name, 1);
    mcph_sb_addf(out, " | %s | ", t->kind);
    sqschema_count(sq, t->name, out);
    mcph_sb_addf(out, " | %s |\n", t->uri);
}

static int sqschema_read_overview(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct sq *sq = state;
    struct mcph_strbuf out;
    int status;

    mcph_sb_init(&out);
    sqguard_begin(&sq->guard, call, SQGUARD_READ);
    mcph_sb_addf(&out,
                 "# Database %s\n\nServed %s: the query tool runs one statement that reads "
                 "per call%s. %zu tables and views:\n\n"
                 "| Name | Kind | Rows | Schema resource |\n|---|---|---|---|\n",
                 sq->label, sq->writable ? "writable" : "read-only",
                 sq->writable ? ", and the execute tool one statement that changes it" : "",
                 sq->ntables);
    for (size_t i = 0; i < sq->ntables; i++)
        sqschema_overview_row(sq, &sq->tables[i], &out);
    (void)host;
    status = sqschema_send(sq, call, MCPH_OK, &out, NULL);
    mcph_sb_release(&out);
    return status;
}

/* --- Definitions. --- */

static int sqschema_define_table(struct sq *sq, const struct sqtable *t)
{
    const struct mcph_host *host = sq->host;
    struct mcph_strbuf title, about;
    int rc = MCPH_ERR_NOMEM;

    mcph_sb_init(&title);
    mcph_sb_init(&about);
    mcph_sb_addf(&title, "%s %s", sqschema_title(t->kind), t->name);
    mcph_sb_addf(&about, "The %s %s of %s: %s", t->kind, t->name, sq->label,
                 strcmp(t->kind, "view") == 0
                     ? "its columns, row count and CREATE statement."
                     : "its columns (type, NOT NULL, default, primary key), foreign keys, "
                       "indexes, triggers, row count and CREATE statement.");
    if (sqbuf_str(&title) && sqbuf_str(&about)) {
        struct mcph_resource row = {
            .uri = t->uri,
            .name = t->name,
            .title = sqbuf_str(&title),
            .description = sqbuf_str(&about),
            .mime_type = "text/markdown",
            .read = sqschema_read_table,
        };
        rc = host->define_resource(host, &row);
    }
    mcph_sb_release(&title);
    mcph_sb_release(&about);
    return rc;
}

static int sqschema_define_overview(struct sq *sq)
{
    const struct mcph_host *host = sq->host;
    struct mcph_strbuf uri, about;
    int rc = MCPH_ERR_NOMEM;

    mcph_sb_init(&uri);
    mcph_sb_init(&about);
    mcph_sb_addstr(&uri, "sqlite://");
    sqschema_encode(&uri, host->instance);
    mcph_sb_addstr(&uri, "/tables");
    mcph_sb_addf(&about,
                 "Every table and view of %s, with its kind, row count and schema resource.",
                 sq->label);
    sq->overview_uri = sqbuf_str(&uri) ? strdup(sqbuf_str(&uri)) : NULL;
    if (sq->overview_uri != NULL && sqbuf_str(&about)) {
        struct mcph_resource row = {
            .uri = sq->overview_uri,
            .name = "tables",
            .title = "Tables and views",
            .description = sqbuf_str(&about),
            .mime_type = "text/markdown",
            .read = sqschema_read_overview,
        };
        rc = host->define_resource(host, &row);
    }
    mcph_sb_release(&uri);
    mcph_sb_release(&about);
    return rc;
}

int sqschema_define(struct sq *sq, struct mcph_strbuf *why)
{
    const struct mcph_host *host = sq->host;
    int rc = sqschema_define_overview(sq);

    for (size_t i = 0; i < sq->ntables && rc != MCPH_ERR_NOMEM; i++) {
        rc = sqschema_define_table(sq, &sq->tables[i]);
        if (rc != MCPH_OK && rc != MCPH_ERR_NOMEM)
            host->log(host, MCPH_LOG_WARNING, "the %s %s is not served as a resource (status %d)",
                      sq->tables[i].kind, sq->tables[i].name, rc);
    }
    if (rc == MCPH_ERR_NOMEM) {
        mcph_sb_addstr(why, "out of memory while defining the resources");
        return rc;
    }
    return MCPH_OK;
}
