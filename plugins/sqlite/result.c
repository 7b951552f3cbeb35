/*
 * result.c: rows to JSON and to an aligned text table.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

/* The largest magnitude sent as a JSON number: 2^53 - 1. Past it, clients that read numbers
 * as doubles (JavaScript's, and mcph's own JSON library) lose digits, so larger integers go
 * as strings of their digits. */
#define SQRES_SAFE_INTEGER 9007199254740991LL
/* The mark of a cut cell (U+2026), one character wide. */
#define SQRES_ELLIPSIS "\xe2\x80\xa6"
/* Bytes a cell adds to the table besides its text (the " | " between cells). */
#define SQRES_CELL_OVERHEAD 3
/* Bytes the JSON of a text adds besides its own (the quotes and the comma before it). */
#define SQRES_TEXT_JSON 3
/* Bytes the JSON of a blob adds besides its base64: {"base64":""} and the comma before it. */
#define SQRES_BLOB_JSON 14
/* Values at least this large in the result check the call's time limit and cancellation
 * first: encoding a few MiB takes milliseconds, and a row may hold many of them. */
#define SQRES_LARGE_CELL (64 * 1024)

/* How building a row ended (the negative enum mcph_status besides). */
enum {
    SQRES_ROW_OK = 0,           /* the row is whole */
    SQRES_ROW_CUT = 1,          /* it does not fit in max_bytes: r->cut says why */
    SQRES_ROW_STOP = 2,         /* the call's time is up, or the client cancelled it */
    SQRES_ROW_SQLITE_NOMEM = 3, /* SQLite could not make a value (its heap limit) */
};

void sqres_init(struct sqres *r)
{
    memset(r, 0, sizeof(*r));
    mcph_sb_init(&r->names_json);
    mcph_sb_init(&r->rows_json);
}

void sqres_release(struct sqres *r)
{
    if (r == NULL)
        return;
    for (int c = 0; r->names != NULL && c < r->ncol; c++)
        free(r->names[c]);
    for (size_t i = 0; r->cells != NULL && i < r->nrows * (size_t)r->ncol; i++)
        free(r->cells[i]);
    free(r->names);
    free(r->cells);
    free(r->width);
    free(r->numeric);
    mcph_sb_release(&r->names_json);
    mcph_sb_release(&r->rows_json);
    sqres_init(r);
}

/* Characters in valid UTF-8 text (every byte that does not continue a sequence). */
static size_t sqres_chars(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* A cell being written: text cut at `width` characters with a final ellipsis. */
struct sqres_cell {
    struct mcph_strbuf *out;
    size_t width; /* the most characters */
    size_t chars; /* written so far */
    size_t fit;   /* out->len when chars was still <= width - 1 */
    int full;     /* cut: nothing more is added */
};

static void sqres_cell_unit(struct sqres_cell *cell, const char *s, size_t n, size_t chars)
{
    if (cell->full)
        return;
    if (cell->chars + chars > cell->width) {
        mcph_sb_setlen(cell->out, cell->fit);
        mcph_sb_addstr(cell->out, SQRES_ELLIPSIS);
        cell->full = 1;
        return;
    }
    mcph_sb_add(cell->out, s, n);
    cell->chars += chars;
    if (cell->chars <= cell->width - 1)
        cell->fit = cell->out->len;
}

/* Text as one line: controls shown as \n, \r, \t or ?, bytes that are not UTF-8 as U+FFFD. */
static void sqres_cell_text(struct sqres_cell *cell, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n && !cell->full;) {
        size_t len = mcph_sb_utf8_len(s + i, n - i);

        if (len == 0) {
            sqres_cell_unit(cell, MCPH_SB_REPLACEMENT, 3, 1);
            len = 1;
        } else if (s[i] == '\n') {
            sqres_cell_unit(cell, "\\n", 2, 2);
        } else if (s[i] == '\r') {
            sqres_cell_unit(cell, "\\r", 2, 2);
        } else if (s[i] == '\t') {
            sqres_cell_unit(cell, "\\t", 2, 2);
        } else if (s[i] < 0x20 || s[i] == 0x7f) {
            sqres_cell_unit(cell, "?", 1, 1);
        } else {
            sqres_cell_unit(cell, (const char *)s + i, len, 1);
        }
        i += len;
    }
}

/* A blob as a hex literal: x'0a1b' whole, or x'0a1b…' (1234 bytes) when it is too wide. */
static void sqres_cell_blob(struct mcph_strbuf *out, const unsigned char *p, size_t n, size_t width)
{
    static const char hex[] = "0123456789abcdef";
    char size[40];
    size_t keep = n;

    snprintf(size, sizeof(size), " (%zu bytes)", n);
    if (3 + 2 * n > width) {
        size_t room = width > strlen(size) + 5 ? width - strlen(size) - 4 : 2;
        keep = room / 2 > 0 ? room / 2 : 1;
    }
    if (keep > n)
        keep = n;
    mcph_sb_addstr(out, "x'");
    for (size_t i = 0; i < keep; i++) {
        mcph_sb_addch(out, hex[p[i] >> 4]);
        mcph_sb_addch(out, hex[p[i] & 15]);
    }
    if (keep < n)
        mcph_sb_addstr(out, SQRES_ELLIPSIS "'");
    else
        mcph_sb_addch(out, '\'');
    if (keep < n)
        mcph_sb_addstr(out, size);
}

/* One value of the current row, fetched once. */
struct sqres_value {
    int type;               /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB or _NULL */
    const unsigned char *p; /* text or blob: borrowed from the statement until its next step */
    size_t n;               /* text or blob: its bytes */
    sqlite3_int64 i;
    double d;
};

static void sqres_json_value(const struct sqres_value *v, struct mcph_strbuf *out)
{
    switch (v->type) {
    case SQLITE_INTEGER: {
        int safe = v->i >= -SQRES_SAFE_INTEGER && v->i <= SQRES_SAFE_INTEGER;
        mcph_sb_addf(out, safe ? "%lld" : "\"%lld\"", (long long)v->i);
        break;
    }
    case SQLITE_FLOAT:
        if (isfinite(v->d))
            sqbuf_number(out, v->d);
        else
            mcph_sb_addstr(out, v->d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        break;
    case SQLITE_TEXT:
        mcph_sb_addjson(out, (const char *)v->p, v->n);
        break;
    case SQLITE_BLOB:
        mcph_sb_addstr(out, "{\"base64\":\"");
        sqbuf_base64(out, v->p, v->n);
        mcph_sb_addstr(out, "\"}");
        break;
    default:
        mcph_sb_addstr(out, "null");
        break;
    }
}

static void sqres_show_value(const struct sqres_value *v, size_t width, struct mcph_strbuf *out)
{
    struct sqres_cell cell = {.out = out, .width = width};
    char tmp[40];

    switch (v->type) {
    case SQLITE_INTEGER:
        snprintf(tmp, sizeof(tmp), "%lld", (long long)v->i);
        sqres_cell_text(&cell, (const unsigned char *)tmp, strlen(tmp));
        break;
    case SQLITE_FLOAT:
        if (isfinite(v->d))
            snprintf(tmp, sizeof(tmp), "%.15g", v->d);
        else
            snprintf(tmp, sizeof(tmp), "%s", v->d > 0 ? "Infinity" : "-Infinity");
        sqres_cell_text(&cell, (const unsigned char *)tmp, strlen(tmp));
        break;
    case SQLITE_TEXT:
        sqres_cell_text(&cell, v->p, v->n);
        break;
    case SQLITE_BLOB:
        sqres_cell_blob(out, v->p, v->n, width);
        break;
    default:
        mcph_sb_addstr(out, "NULL");
        break;
    }
}

static int sqres_columns(struct sqres *r, sqlite3_stmt *stmt)
{
    struct mcph_strbuf name;

    r->ncol = sqlite3_column_count(stmt);
    r->names = calloc((size_t)r->ncol + 1, sizeof(*r->names));
    r->width = calloc((size_t)r->ncol + 1, sizeof(*r->width));
    r->numeric = calloc((size_t)r->ncol + 1, sizeof(*r->numeric));
    if (r->names == NULL || r->width == NULL || r->numeric == NULL)
        return MCPH_ERR_NOMEM;
    mcph_sb_init(&name);
    for (int c = 0; c < r->ncol; c++) {
        const char *s = sqlite3_column_name(stmt, c);
        struct sqres_cell cell = {.out = &name, .width = r->lim.cell_width};

        s = s ? s : "?";
        if (c > 0)
            mcph_sb_addch(&r->names_json, ',');
        mcph_sb_addjson(&r->names_json, s, strlen(s));
        mcph_sb_reset(&name);
        sqres_cell_text(&cell, (const unsigned char *)s, strlen(s));
        r->names[c] = sqbuf_str(&name) ? strdup(sqbuf_str(&name)) : NULL;
        if (r->names[c] == NULL)
            break;
        r->width[c] = sqres_chars(r->names[c]);
        r->numeric[c] = 1;
    }
    mcph_sb_release(&name);
    for (int c = 0; c < r->ncol; c++) {
        if (r->names[c] == NULL)
            return MCPH_ERR_NOMEM;
    }
    r->bytes = r->names_json.len * 2;
    return sqbuf_str(&r->names_json) ? MCPH_OK : MCPH_ERR_NOMEM;
}

/* Room for one more row of cells. */
static int sqres_reserve(struct sqres *r)
{
    if (r->nrows < r->cap_rows)
        return MCPH_OK;
    size_t cap = r->cap_rows ? r->cap_rows * 2 : 16;
    char **cells = realloc(r->cells, cap * (size_t)r->ncol * sizeof(*cells) + 1);
    if (cells == NULL)
        return MCPH_ERR_NOMEM;
    r->cells = cells;
    r->cap_rows = cap;
    return MCPH_OK;
}

/* The row being built: its JSON, its table cells and their types, owned until kept. */
struct sqres_row {
    struct mcph_strbuf json;
    char **cells; /* ncol, each owned (NULL when not made) */
    int *types;   /* ncol SQLite types */
    size_t shown; /* bytes of the table cells so far, separators included */
};

/* Bytes the row counts for so far. */
static size_t sqres_row_bytes(const struct sqres_row *row)
{
    return row->json.len + 1 + row->shown;
}

/* The least that value c of the current row adds to the result, judged from its type and
 * size alone. sqlite3_column_bytes() does not expand a zeroblob(N), so nothing large is
 * made before the value is known to fit. Exact for a blob's base64; a text's JSON grows with
 * its escapes, measured once the text is fetched. */
static size_t sqres_least(sqlite3_stmt *stmt, int c, struct sqres_value *v)
{
    v->type = sqlite3_column_type(stmt, c);
    v->n = 0;
    if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB)
        v->n = (size_t)sqlite3_column_bytes(stmt, c);
    if (v->type == SQLITE_TEXT)
        return v->n + SQRES_TEXT_JSON + SQRES_CELL_OVERHEAD;
    if (v->type == SQLITE_BLOB)
        return (v->n + 2) / 3 * 4 + SQRES_BLOB_JSON + SQRES_CELL_OVERHEAD;
    return 1 + SQRES_CELL_OVERHEAD;
}

/* Records why the result stops at value c of the next row, which needs `need` bytes. */
static int sqres_no_room(struct sqres *r, int c, const struct sqres_value *v, size_t need)
{
    r->cut = SQRES_CUT_MAX_BYTES;
    r->cut_col = c;
    r->cut_type = v->type;
    r->cut_size = v->n;
    r->cut_alone = r->names_json.len * 2 >= r->lim.max_bytes ||
                   need > r->lim.max_bytes - r->names_json.len * 2;
    return SQRES_ROW_CUT;
}

/* Fetches value c once the budget allows it: SQRES_ROW_OK, SQRES_ROW_CUT, SQRES_ROW_STOP, or
 * SQRES_ROW_SQLITE_NOMEM (SQLite could not make the value: its heap limit). */
static int sqres_fetch(struct sqres *r, sqlite3_stmt *stmt, int c, size_t used,
                       struct sqres_value *v)
{
    size_t left = r->lim.max_bytes > used ? r->lim.max_bytes - used : 0;
    size_t least = sqres_least(stmt, c, v);

    if (least > left)
        return sqres_no_room(r, c, v, least);
    if (least >= SQRES_LARGE_CELL && r->lim.stop != NULL && r->lim.stop(r->lim.stop_arg))
        return SQRES_ROW_STOP;
    if (v->type == SQLITE_INTEGER)
        v->i = sqlite3_column_int64(stmt, c);
    else if (v->type == SQLITE_FLOAT)
        v->d = sqlite3_column_double(stmt, c);
    else if (v->type == SQLITE_TEXT)
        v->p = sqlite3_column_text(stmt, c);
    else if (v->type == SQLITE_BLOB)
        v->p = sqlite3_column_blob(stmt, c);
    if ((v->type == SQLITE_TEXT || v->type == SQLITE_BLOB) && v->p == NULL && v->n > 0)
        return SQRES_ROW_SQLITE_NOMEM;
    if (v->type == SQLITE_TEXT) {
        size_t need = mcph_sb_json_len((const char *)v->p, v->n) + 1 + SQRES_CELL_OVERHEAD;
        if (need > left)
            return sqres_no_room(r, c, v, need);
    }
    return SQRES_ROW_OK;
}

/* Adds value c of the current row to row: a SQRES_ROW_ outcome, or MCPH_ERR_NOMEM. */
static int sqres_cell(struct sqres *r, sqlite3_stmt *stmt, int c, struct sqres_row *row)
{
    struct sqres_value v = {0};
    struct mcph_strbuf show;
    int status = sqres_fetch(r, stmt, c, r->bytes + sqres_row_bytes(row), &v);

    if (status != SQRES_ROW_OK)
        return status;
    if (c > 0)
        mcph_sb_addch(&row->json, ',');
    sqres_json_value(&v, &row->json);
    mcph_sb_init(&show);
    sqres_show_value(&v, r->lim.cell_width, &show);
    row->cells[c] = sqbuf_str(&show) ? strdup(sqbuf_str(&show)) : NULL;
    mcph_sb_release(&show);
    if (row->cells[c] == NULL || sqbuf_str(&row->json) == NULL)
        return MCPH_ERR_NOMEM;
    row->types[c] = v.type;
    row->shown += strlen(row->cells[c]) + SQRES_CELL_OVERHEAD;
    return SQRES_ROW_OK;
}

/* Builds the current row of stmt in row, value by value within max_bytes: a SQRES_ROW_
 * outcome, or MCPH_ERR_NOMEM. */
static int sqres_row(struct sqres *r, sqlite3_stmt *stmt, struct sqres_row *row)
{
    int status = SQRES_ROW_OK;

    mcph_sb_addch(&row->json, '[');
    for (int c = 0; c < r->ncol && status == SQRES_ROW_OK; c++)
        status = sqres_cell(r, stmt, c, row);
    mcph_sb_addch(&row->json, ']');
    if (status == SQRES_ROW_OK && sqbuf_str(&row->json) == NULL)
        return MCPH_ERR_NOMEM;
    if (status == SQRES_ROW_OK && r->bytes + sqres_row_bytes(row) > r->lim.max_bytes) {
        r->cut = SQRES_CUT_MAX_BYTES;
        r->cut_col = -1;
        r->cut_alone = 0;
        return SQRES_ROW_CUT;
    }
    return status;
}

/* Keeps the row built by sqres_row(): its cells move to r. */
static void sqres_keep(struct sqres *r, struct sqres_row *row)
{
    if (r->nrows > 0)
        mcph_sb_addch(&r->rows_json, ',');
    mcph_sb_add(&r->rows_json, row->json.buf, row->json.len);
    for (int c = 0; c < r->ncol; c++) {
        size_t w = sqres_chars(row->cells[c]);
        int type = row->types[c];

        r->cells[r->nrows * (size_t)r->ncol + (size_t)c] = row->cells[c];
        row->cells[c] = NULL;
        if (w > r->width[c])
            r->width[c] = w;
        if (type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL)
            r->numeric[c] = 0;
    }
    r->nrows++;
    r->bytes += sqres_row_bytes(row);
}

/* Empties row for the next one (freeing the cells it still owns). */
static void sqres_row_reset(struct sqres_row *row, int ncol)
{
    for (int c = 0; c < ncol; c++) {
        free(row->cells[c]);
        row->cells[c] = NULL;
    }
    mcph_sb_reset(&row->json);
    row->shown = 0;
}

/* Takes the current row: a SQRES_ROW_ outcome (SQRES_ROW_OK: kept), or MCPH_ERR_NOMEM. */
static int sqres_take(struct sqres *r, sqlite3_stmt *stmt, struct sqres_row *row)
{
    int status;

    sqres_row_reset(row, r->ncol);
    if (sqres_reserve(r) != MCPH_OK)
        return MCPH_ERR_NOMEM;
    status = sqres_row(r, stmt, row);
    if (status != SQRES_ROW_OK)
        return status;
    sqres_keep(r, row);
    return sqbuf_str(&r->rows_json) ? SQRES_ROW_OK : MCPH_ERR_NOMEM;
}

/* Steps and takes rows until the end, a cut, a stop or a failure. */
static int sqres_steps(struct sqres *r, sqlite3_stmt *stmt, struct sqres_row *row, int *step_rc)
{
    const struct sqres_limits *lim = &r->lim;
    int status = SQRES_ROW_OK;

    while (status == SQRES_ROW_OK && r->cut == SQRES_WHOLE) {
        int rc =
            lim->stop != NULL && lim->stop(lim->stop_arg) ? SQLITE_INTERRUPT : sqlite3_step(stmt);

        if (rc != SQLITE_ROW) {
            *step_rc = rc;
            return MCPH_OK;
        }
        if (r->nrows >= lim->rows)
            r->cut = lim->rows_cut;
        else
            status = sqres_take(r, stmt, row);
    }
    if (status == SQRES_ROW_STOP)
        *step_rc = SQLITE_INTERRUPT;
    else if (status == SQRES_ROW_SQLITE_NOMEM)
        *step_rc = SQLITE_NOMEM;
    return status < 0 ? status : MCPH_OK;
}

int sqres_collect(struct sqres *r, sqlite3_stmt *stmt, const struct sqres_limits *lim, int *step_rc)
{
    struct sqres_row row = {0};
    int status;

    r->lim = *lim;
    *step_rc = SQLITE_DONE;
    status = sqres_columns(r, stmt);
    if (status != MCPH_OK)
        return status;
    mcph_sb_init(&row.json);
    row.cells = calloc((size_t)r->ncol + 1, sizeof(*row.cells));
    row.types = calloc((size_t)r->ncol + 1, sizeof(*row.types));
    if (row.cells != NULL && row.types != NULL)
        status = sqres_steps(r, stmt, &row, step_rc);
    else
        status = MCPH_ERR_NOMEM;
    if (row.cells != NULL)
        sqres_row_reset(&row, r->ncol);
    mcph_sb_release(&row.json);
    free(row.cells);
    free(row.types);
    return status;
}

void sqres_json(const struct sqres *r, struct mcph_strbuf *out)
{
    mcph_sb_addstr(out, "\"columns\":[");
    mcph_sb_add(out, r->names_json.buf, r->names_json.len);
    mcph_sb_addstr(out, "],\"rows\":[");
    mcph_sb_add(out, r->rows_json.buf, r->rows_json.len);
    mcph_sb_addf(out, "],\"row_count\":%zu,\"truncated\":%s", r->nrows,
                 r->cut != SQRES_WHOLE ? "true" : "false");
}

/* One cell padded to the column's width: numbers to the right, the rest to the left (the
 * last column unpadded, so lines have no trailing blanks). */
static void sqres_table_cell(const struct sqres *r, struct mcph_strbuf *out, int c, const char *s)
{
    size_t pad = r->width[c] - sqres_chars(s);

    if (c > 0)
        mcph_sb_addstr(out, " | ");
    if (r->numeric[c])
        sqbuf_pad(out, ' ', pad);
    mcph_sb_addstr(out, s);
    if (!r->numeric[c] && c + 1 < r->ncol)
        sqbuf_pad(out, ' ', pad);
}

/* The last line when one value by itself is too large for max_bytes. */
static void sqres_footer_value(const struct sqres *r, struct mcph_strbuf *out)
{
    mcph_sb_addf(out,
                 "(%zu row%s shown, truncated: in the next row, column \"%s\" holds a %s of %zu "
                 "bytes, larger than max_bytes = %zu bytes, the most one result may hold; select "
                 "part of it (substr(), length()) instead)\n",
                 r->nrows, r->nrows == 1 ? "" : "s", r->names[r->cut_col],
                 r->cut_type == SQLITE_BLOB ? "blob" : "text", r->cut_size, r->lim.max_bytes);
}

static void sqres_footer(const struct sqres *r, struct mcph_strbuf *out)
{
    const char *s = r->nrows == 1 ? "" : "s";

    switch (r->cut) {
    case SQRES_WHOLE:
        mcph_sb_addf(out, "(%zu row%s)\n", r->nrows, s);
        break;
    case SQRES_CUT_LIMIT:
        mcph_sb_addf(out,
                     "(%zu row%s shown, truncated: the result has more rows than limit = %zu; "
                     "raise limit or page with LIMIT and OFFSET)\n",
                     r->nrows, s, r->lim.rows);
        break;
    case SQRES_CUT_MAX_ROWS:
        mcph_sb_addf(out,
                     "(%zu row%s shown, truncated: the result has more rows than max_rows = %zu, "
                     "the most one call returns; narrow it with WHERE, aggregate, or page with "
                     "LIMIT and OFFSET)\n",
                     r->nrows, s, r->lim.rows);
        break;
    case SQRES_CUT_MAX_BYTES:
        if (r->cut_alone)
            sqres_footer_value(r, out);
        else
            mcph_sb_addf(out,
                         "(%zu row%s shown, truncated: the next row would make the result larger "
                         "than max_bytes = %zu bytes; select fewer or shorter columns (substr(), "
                         "length()), or page with LIMIT and OFFSET)\n",
                         r->nrows, s, r->lim.max_bytes);
        break;
    }
}

void sqres_table(const struct sqres *r, struct mcph_strbuf *out)
{
    if (r->ncol == 0) {
        mcph_sb_addstr(out, "(the statement returns no columns)\n");
        return;
    }
    for (int c = 0; c < r->ncol; c++)
        sqres_table_cell(r, out, c, r->names[c]);
    mcph_sb_addch(out, '\n');
    for (int c = 0; c < r->ncol; c++) {
        if (c > 0)
            mcph_sb_addstr(out, "-+-");
        sqbuf_pad(out, '-', r->width[c]);
    }
    mcph_sb_addch(out, '\n');
    for (size_t i = 0; i < r->nrows; i++) {
        for (int c = 0; c < r->ncol; c++)
            sqres_table_cell(r, out, c, r->cells[i * (size_t)r->ncol + (size_t)c]);
        mcph_sb_addch(out, '\n');
    }
    sqres_footer(r, out);
}
