/*
 * rows.h: the rows a plugin serves (tools, resources, resource templates, prompts). One
 * table entry per kind says its name, the smallest row an ABI 1.0 plugin may have, where its
 * rows live in the descriptor and in struct plugin, and how one row is checked and copied
 * into core memory (fill) and freed (release). The static tables and the rows defined at init
 * (1.2) go through the same entry. Main thread, while loading.
 */
#ifndef MCPH_ROWS_H
#define MCPH_ROWS_H

#include "config/config.h"
#include "lib/diag.h"
#include "host/plugin.h"

#include <stddef.h>

/* A plugin instance being loaded: where its problems go and what they name. */
struct rows_load {
    struct plugin *pl;
    const struct config_plugin *cp;
    const char *ini_file;
    struct diag *errs;
    int failed;
};

struct rows_kind {
    const char *what; /* in messages: "tool", "resource template", ... */
    size_t min_size;  /* the row of ABI 1.0: a plugin's rows are never shorter */
    size_t row_size;  /* the row of this header (struct mcph_tool, ...) */
    size_t elem;      /* the copy in core memory (struct plugin_tool, ...) */
    /* offsetof in struct mcph_plugin: the static table and its row size (uint16_t) */
    size_t desc_table, desc_size;
    /* offsetof in struct plugin: the rows, their count and room (size_t), the row size */
    size_t table, count, cap, size;
    void (*fill)(struct rows_load *ld, const void *row, void *slot);
    void (*release)(void *slot);
    int filter; /* enum filter_key: the filter that sees the row's first member (its name,
                 * URI or URI template) */
};

/* Indexed by enum plugin_row_kind (PLUGIN_ROW_TOOL ... PLUGIN_ROW_PROMPT). */
extern const struct rows_kind rows_kinds[];

/* "plugin 'ID' (PATH): what" into ld->errs; the load has failed. */
void rows_fail(struct rows_load *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A copy of s (NULL gives NULL); out of memory is noted in ld->errs. */
char *rows_dup(struct rows_load *ld, const char *s);

/* Row i of a table of `stride`-byte rows, copied into `row` (of `size` bytes, zeroed first:
 * members the plugin's minor lacks read as zero). Returns 0 at the end row (first member
 * NULL). */
int rows_read(const void *table, size_t stride, size_t i, void *row, size_t size);

/* The number of rows before the end row of a table (0 for none), or -1 past LIMIT_ROWS,
 * said in ld as the `what` table's problem. */
long rows_table_size(struct rows_load *ld, const char *what, const void *table, size_t stride);

/* Whether the descriptor's row sizes are at least ABI 1.0's for every kind (each one that
 * is not is said in ld). */
int rows_check_sizes(struct rows_load *ld, const struct mcph_plugin *d);

/* Copy the descriptor's static table of `kind`: every row its filter keeps is copied (a
 * failed one too, so that it is freed with the instance); a problem fails the load. A row
 * the filter drops is not checked, only its name noted in pl->dropped. Returns STATUS_OK,
 * STATUS_PLUGIN or STATUS_NOMEM. */
int rows_copy_table(struct rows_load *ld, const struct mcph_plugin *d, int kind);

/* Check and add one row of `kind` defined at init, of the size the descriptor records. A
 * refused row is freed and not counted. A row the filter drops is noted in pl->dropped and
 * is not an error (MCPH_OK). Returns MCPH_OK, MCPH_ERR_INVALID, MCPH_ERR_NOMEM. */
int rows_define(struct rows_load *ld, int kind, const void *raw);

/* How many rows of `kind` the instance has. */
size_t rows_count_of(const struct plugin *pl, int kind);

/* The name its filter sees of row i of `kind` (a tool's or prompt's own name, a resource's
 * URI, a template's URI template). Borrowed from pl. */
const char *rows_name_of(const struct plugin *pl, int kind, size_t i);

/* Free every row of every kind, the filters and the names they dropped. */
void rows_free(struct plugin *pl);

#endif
