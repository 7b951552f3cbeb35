/*
 * result.h: the rows of a statement, as the structured result ({columns, rows, row_count,
 * truncated}) and as a text table for people.
 *
 * Values: NULL is null; integers are JSON numbers up to 2^53 - 1 in magnitude, and strings
 * of their digits beyond (where a JSON number read as a double loses digits); reals are numbers
 * (the infinities are the strings "Infinity" and "-Infinity"); text is a string (bytes that are not
 * UTF-8 become U+FFFD); a blob is an object {"base64": "..."}. In the text table a blob is shown as
 * a hex literal x'0a1b...', NULL as NULL, and every cell is cut to cell_width characters with a
 * final "…".
 */
#ifndef SQLITE_PLUGIN_RESULT_H
#define SQLITE_PLUGIN_RESULT_H

#include <sqlite3.h>
#include <stddef.h>

#include "buf.h"

/* Why the rows stopped before the statement's end. */
enum sqres_cut {
    SQRES_WHOLE = 0,     /* every row is there */
    SQRES_CUT_LIMIT,     /* the call's limit argument */
    SQRES_CUT_MAX_ROWS,  /* the deployment's max_rows */
    SQRES_CUT_MAX_BYTES, /* the next row would pass max_bytes */
};

/* What one result may hold. */
struct sqres_limits {
    size_t rows;             /* the most rows kept */
    enum sqres_cut rows_cut; /* what `rows` comes from: SQRES_CUT_LIMIT or SQRES_CUT_MAX_ROWS */
    size_t max_bytes;        /* about the most bytes of JSON and table text together */
    size_t cell_width;       /* the widest cell of the text table, in characters (>= 8) */
    /* Polled before each step and before each large value (encoding a few MiB takes a while):
     * non-zero stops the result, as when the call's time is up or the client cancelled it.
     * NULL: never polled. */
    int (*stop)(void *arg);
    void *stop_arg; /* borrowed: stop's argument */
};

struct sqres {
    int ncol;
    char **names;                  /* owned: ncol column names, as the text table shows them */
    struct mcph_strbuf names_json; /* the column names as JSON array members */
    struct mcph_strbuf rows_json;  /* the rows as JSON array members */
    char **cells;                  /* owned: nrows * ncol cells as the text table shows them */
    size_t nrows;
    size_t cap_rows; /* rows the cells array has room for */
    size_t *width;   /* owned: per column, the widest cell in characters */
    int *numeric;    /* owned: per column, every value so far is a number or NULL */
    size_t bytes;    /* counted against max_bytes */
    enum sqres_cut cut;
    /* SQRES_CUT_MAX_BYTES: the column whose value did not fit (-1: the row as a whole), its
     * SQLite type and size in bytes, and whether it alone is larger than max_bytes allows. */
    int cut_col;
    int cut_type;
    size_t cut_size;
    int cut_alone;
    struct sqres_limits lim;
};

void sqres_init(struct sqres *r);
void sqres_release(struct sqres *r);

/*
 * Steps stmt and keeps its rows within the limits. Returns MCPH_OK with *step_rc the
 * SQLite code that ended the stepping (SQLITE_DONE: the end, or a cut; SQLITE_INTERRUPT:
 * lim->stop said to stop; SQLITE_NOMEM: SQLite could not make a value; anything else: the
 * statement failed; the rows so far are then not to be shown), or MCPH_ERR_NOMEM.
 *
 * max_bytes is kept before anything large is made: each value is sized first (a
 * zeroblob(N) is not expanded for that) and the result is cut at the first one that would
 * not fit, so no value much larger than max_bytes is ever fetched or encoded.
 */
int sqres_collect(struct sqres *r, sqlite3_stmt *stmt, const struct sqres_limits *lim,
                  int *step_rc);

/* Adds the members "columns", "rows", "row_count" and "truncated" (no braces). */
void sqres_json(const struct sqres *r, struct mcph_strbuf *out);
/* Adds the text table and a last line saying how many rows there are and why they stop. */
void sqres_table(const struct sqres *r, struct mcph_strbuf *out);

#endif
