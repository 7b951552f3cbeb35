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

void sqres_init(struct sqres *r)
{
    memset(r, 0, sizeof(*r));
    sqbuf_init(&r->names_json);
    sqbuf_init(&r->rows_json);
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
    sqbuf_release(&r->names_json);
    sqbuf_release(&r->rows_json);
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
    struct sqbuf *out;
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
        cell->out->len = cell->fit;
        if (cell->out->data != NULL)
            cell->out->data[cell->fit] = '\0';
        sqbuf_adds(cell->out, SQRES_ELLIPSIS);
        cell->full = 1;
        return;
    }
    sqbuf_add(cell->out, s, n);
    cell->chars += chars;
    if (cell->chars <= cell->width - 1)
        cell->fit = cell->out->len;
}

/* Text as one line: controls shown as \n, \r, \t or ?, bytes that are not UTF-8 as U+FFFD. */
static void sqres_cell_text(struct sqres_cell *cell, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n && !cell->full;) {
        size_t len = squtf8_len(s + i, n - i);

        if (len == 0) {
            sqres_cell_unit(cell, SQBUF_REPLACEMENT, 3, 1);
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
static void sqres_cell_blob(struct sqbuf *out, const unsigned char *p, size_t n, size_t width)
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
    sqbuf_adds(out, "x'");
    for (size_t i = 0; i < keep; i++) {
        sqbuf_addc(out, hex[p[i] >> 4]);
        sqbuf_addc(out, hex[p[i] & 15]);
    }
    if (keep < n)
        sqbuf_adds(out, SQRES_ELLIPSIS "'");
    else
        sqbuf_addc(out, '\'');
    if (keep < n)
        sqbuf_adds(out, size);
}

static void sqres_json_value(sqlite3_stmt *stmt, int c, struct sqbuf *out)
{
    switch (sqlite3_column_type(stmt, c)) {
    case SQLITE_INTEGER: {
        sqlite3_int64 v = sqlite3_column_int64(stmt, c);
        int safe = v >= -SQRES_SAFE_INTEGER && v <= SQRES_SAFE_INTEGER;
        sqbuf_addf(out, safe ? "%lld" : "\"%lld\"", (long long)v);
        break;
    }
    case SQLITE_FLOAT: {
        double v = sqlite3_column_double(stmt, c);
        if (isfinite(v))
            sqbuf_number(out, v);
        else
            sqbuf_adds(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        break;
    }
    case SQLITE_TEXT: {
        const unsigned char *s = sqlite3_column_text(stmt, c);
        sqbuf_json_string(out, (const char *)s, (size_t)sqlite3_column_bytes(stmt, c));
        break;
    }
    case SQLITE_BLOB: {
        const void *p = sqlite3_column_blob(stmt, c);
        sqbuf_adds(out, "{\"base64\":\"");
        sqbuf_base64(out, p, (size_t)sqlite3_column_bytes(stmt, c));
        sqbuf_adds(out, "\"}");
        break;
    }
    default:
        sqbuf_adds(out, "null");
        break;
    }
}

static void sqres_show_value(sqlite3_stmt *stmt, int c, size_t width, struct sqbuf *out)
{
    struct sqres_cell cell = {.out = out, .width = width};
    char tmp[40];

    switch (sqlite3_column_type(stmt, c)) {
    case SQLITE_INTEGER:
        snprintf(tmp, sizeof(tmp), "%lld", (long long)sqlite3_column_int64(stmt, c));
        sqres_cell_text(&cell, (const unsigned char *)tmp, strlen(tmp));
        break;
    case SQLITE_FLOAT: {
        double v = sqlite3_column_double(stmt, c);
        if (isfinite(v))
            snprintf(tmp, sizeof(tmp), "%.15g", v);
        else
            snprintf(tmp, sizeof(tmp), "%s", v > 0 ? "Infinity" : "-Infinity");
        sqres_cell_text(&cell, (const unsigned char *)tmp, strlen(tmp));
        break;
    }
    case SQLITE_TEXT: {
        const unsigned char *s = sqlite3_column_text(stmt, c);
        sqres_cell_text(&cell, s, (size_t)sqlite3_column_bytes(stmt, c));
        break;
    }
    case SQLITE_BLOB: {
        const unsigned char *p = sqlite3_column_blob(stmt, c);
        sqres_cell_blob(out, p, (size_t)sqlite3_column_bytes(stmt, c), width);
        break;
    }
    default:
        sqbuf_adds(out, "NULL");
        break;
    }
}

static int sqres_columns(struct sqres *r, sqlite3_stmt *stmt)
{
    struct sqbuf name;

    r->ncol = sqlite3_column_count(stmt);
    r->names = calloc((size_t)r->ncol + 1, sizeof(*r->names));
    r->width = calloc((size_t)r->ncol + 1, sizeof(*r->width));
    r->numeric = calloc((size_t)r->ncol + 1, sizeof(*r->numeric));
    if (r->names == NULL || r->width == NULL || r->numeric == NULL)
        return MCPH_ERR_NOMEM;
    sqbuf_init(&name);
    for (int c = 0; c < r->ncol; c++) {
        const char *s = sqlite3_column_name(stmt, c);
        struct sqres_cell cell = {.out = &name, .width = r->lim.cell_width};

        s = s ? s : "?";
        if (c > 0)
            sqbuf_addc(&r->names_json, ',');
        sqbuf_json_string(&r->names_json, s, strlen(s));
        sqbuf_reset(&name);
        sqres_cell_text(&cell, (const unsigned char *)s, strlen(s));
        r->names[c] = sqbuf_str(&name) ? strdup(sqbuf_str(&name)) : NULL;
        if (r->names[c] == NULL)
            break;
        r->width[c] = sqres_chars(r->names[c]);
        r->numeric[c] = 1;
    }
    sqbuf_release(&name);
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

/* The current row of stmt: its JSON (in json) and its cells (in cells, owned by the
 * caller). Returns the bytes it counts for, or 0 when out of memory. */
static size_t sqres_row(struct sqres *r, sqlite3_stmt *stmt, struct sqbuf *json, char **cells)
{
    struct sqbuf show;
    size_t bytes = 0;

    sqbuf_init(&show);
    sqbuf_addc(json, '[');
    for (int c = 0; c < r->ncol; c++) {
        if (c > 0)
            sqbuf_addc(json, ',');
        sqres_json_value(stmt, c, json);
        sqbuf_reset(&show);
        sqres_show_value(stmt, c, r->lim.cell_width, &show);
        cells[c] = sqbuf_str(&show) ? strdup(sqbuf_str(&show)) : NULL;
        if (cells[c] == NULL)
            break;
        bytes += strlen(cells[c]) + SQRES_CELL_OVERHEAD;
    }
    sqbuf_addc(json, ']');
    sqbuf_release(&show);
    for (int c = 0; c < r->ncol; c++) {
        if (cells[c] == NULL)
            return 0;
    }
    if (sqbuf_str(json) == NULL)
        return 0;
    return bytes + json->len + 1;
}

/* Keeps the row built by sqres_row(). */
static void sqres_keep(struct sqres *r, sqlite3_stmt *stmt, const struct sqbuf *json, char **cells,
                       size_t bytes)
{
    if (r->nrows > 0)
        sqbuf_addc(&r->rows_json, ',');
    sqbuf_add(&r->rows_json, json->data, json->len);
    for (int c = 0; c < r->ncol; c++) {
        int type = sqlite3_column_type(stmt, c);
        size_t w = sqres_chars(cells[c]);

        r->cells[r->nrows * (size_t)r->ncol + (size_t)c] = cells[c];
        if (w > r->width[c])
            r->width[c] = w;
        if (type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL)
            r->numeric[c] = 0;
    }
    r->nrows++;
    r->bytes += bytes;
}

static void sqres_free_cells(char **cells, int n)
{
    for (int c = 0; c < n; c++)
        free(cells[c]);
}

/* Takes the current row: MCPH_OK (kept, or r->cut set when it does not fit) or
 * MCPH_ERR_NOMEM. */
static int sqres_take(struct sqres *r, sqlite3_stmt *stmt, struct sqbuf *json, char **cells)
{
    size_t bytes;

    memset(cells, 0, sizeof(*cells) * (size_t)r->ncol);
    sqbuf_reset(json);
    if (sqres_reserve(r) != MCPH_OK)
        return MCPH_ERR_NOMEM;
    bytes = sqres_row(r, stmt, json, cells);
    if (bytes == 0) {
        sqres_free_cells(cells, r->ncol);
        return MCPH_ERR_NOMEM;
    }
    if (r->bytes + bytes > r->lim.max_bytes) {
        sqres_free_cells(cells, r->ncol);
        r->cut = SQRES_CUT_MAX_BYTES;
        return MCPH_OK;
    }
    sqres_keep(r, stmt, json, cells, bytes);
    return sqbuf_str(&r->rows_json) ? MCPH_OK : MCPH_ERR_NOMEM;
}

int sqres_collect(struct sqres *r, sqlite3_stmt *stmt, const struct sqres_limits *lim, int *step_rc)
{
    struct sqbuf json;
    char **cells;
    int status;

    r->lim = *lim;
    *step_rc = SQLITE_DONE;
    status = sqres_columns(r, stmt);
    if (status != MCPH_OK)
        return status;
    cells = calloc((size_t)r->ncol + 1, sizeof(*cells));
    if (cells == NULL)
        return MCPH_ERR_NOMEM;
    sqbuf_init(&json);
    while (status == MCPH_OK && r->cut == SQRES_WHOLE) {
        int rc = sqlite3_step(stmt);

        if (rc != SQLITE_ROW) {
            *step_rc = rc;
            break;
        }
        if (r->nrows >= lim->rows)
            r->cut = lim->rows_cut;
        else
            status = sqres_take(r, stmt, &json, cells);
    }
    sqbuf_release(&json);
    free(cells);
    return status;
}

void sqres_json(const struct sqres *r, struct sqbuf *out)
{
    sqbuf_adds(out, "\"columns\":[");
    sqbuf_add(out, r->names_json.data ? r->names_json.data : "", r->names_json.len);
    sqbuf_adds(out, "],\"rows\":[");
    sqbuf_add(out, r->rows_json.data ? r->rows_json.data : "", r->rows_json.len);
    sqbuf_addf(out, "],\"row_count\":%zu,\"truncated\":%s", r->nrows,
               r->cut != SQRES_WHOLE ? "true" : "false");
}

/* One cell padded to the column's width: numbers to the right, the rest to the left (the
 * last column unpadded, so lines have no trailing blanks). */
static void sqres_table_cell(const struct sqres *r, struct sqbuf *out, int c, const char *s)
{
    size_t pad = r->width[c] - sqres_chars(s);

    if (c > 0)
        sqbuf_adds(out, " | ");
    if (r->numeric[c])
        sqbuf_pad(out, ' ', pad);
    sqbuf_adds(out, s);
    if (!r->numeric[c] && c + 1 < r->ncol)
        sqbuf_pad(out, ' ', pad);
}

static void sqres_footer(const struct sqres *r, struct sqbuf *out)
{
    const char *s = r->nrows == 1 ? "" : "s";

    switch (r->cut) {
    case SQRES_WHOLE:
        sqbuf_addf(out, "(%zu row%s)\n", r->nrows, s);
        break;
    case SQRES_CUT_LIMIT:
        sqbuf_addf(out,
                   "(%zu row%s shown, truncated: the result has more rows than limit = %zu; "
                   "raise limit or page with LIMIT and OFFSET)\n",
                   r->nrows, s, r->lim.rows);
        break;
    case SQRES_CUT_MAX_ROWS:
        sqbuf_addf(out,
                   "(%zu row%s shown, truncated: the result has more rows than max_rows = %zu, "
                   "the most one call returns; narrow it with WHERE, aggregate, or page with "
                   "LIMIT and OFFSET)\n",
                   r->nrows, s, r->lim.rows);
        break;
    case SQRES_CUT_MAX_BYTES:
        sqbuf_addf(out,
                   "(%zu row%s shown, truncated: the next row would make the result larger "
                   "than max_bytes = %zu bytes; select fewer or shorter columns (substr(), "
                   "length()), or page with LIMIT and OFFSET)\n",
                   r->nrows, s, r->lim.max_bytes);
        break;
    }
}

void sqres_table(const struct sqres *r, struct sqbuf *out)
{
    if (r->ncol == 0) {
        sqbuf_adds(out, "(the statement returns no columns)\n");
        return;
    }
    for (int c = 0; c < r->ncol; c++)
        sqres_table_cell(r, out, c, r->names[c]);
    sqbuf_addc(out, '\n');
    for (int c = 0; c < r->ncol; c++) {
        if (c > 0)
            sqbuf_adds(out, "-+-");
        sqbuf_pad(out, '-', r->width[c]);
    }
    sqbuf_addc(out, '\n');
    for (size_t i = 0; i < r->nrows; i++) {
        for (int c = 0; c < r->ncol; c++)
            sqres_table_cell(r, out, c, r->cells[i * (size_t)r->ncol + (size_t)c]);
        sqbuf_addc(out, '\n');
    }
    sqres_footer(r, out);
}
