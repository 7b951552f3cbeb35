/*
 * prompt_file.h: one Markdown prompt file, parsed (front matter, role sections,
 * placeholders) and filled with argument values. The grammar is described at the top of
 * prompts.c.
 *
 * Thread context: parsing runs on the main thread during init(); a parsed file is read-only
 * afterwards, so prompt_file_fill() may run on several worker threads at once.
 */
#ifndef PROMPTS_PROMPT_FILE_H
#define PROMPTS_PROMPT_FILE_H

#include <stddef.h>

#include "plugin-api.h"

/* Arguments of one prompt: mcph's own limit (core/lib/limits.h LIMIT_ARGS). */
#define PROMPT_FILE_MAX_ARGS 64
/* A prompt name: the spec's tool-name rule, as mcph checks it (LIMIT_NAME). */
#define PROMPT_FILE_MAX_NAME 128
/* An argument name, and so a placeholder name. */
#define PROMPT_FILE_MAX_ARG_NAME 64
/* Bytes of the messages of one filled prompt: mcph's own result limit (LIMIT_RESULT_BYTES).
 * Checked before anything is built, so a value repeated by many placeholders cannot make
 * the plugin allocate more than this. */
#define PROMPT_FILE_MAX_FILLED (32u * 1024u * 1024u)
/* Load warnings logged for one file before the rest are counted. */
#define PROMPT_FILE_MAX_WARNINGS 10

/* One declared argument. */
struct prompt_file_arg {
    char *name;        /* owned; 1-64 of A-Z a-z 0-9 _ . - */
    char *description; /* owned, or NULL */
    int required;      /* 1 for "(required)" */
    size_t line;       /* where it was declared, for messages */
};

/* A run of the text: literal bytes, or the value of an argument. */
struct prompt_file_piece {
    size_t start; /* literal: offset into prompt_file.text */
    size_t len;   /* literal: length in bytes */
    int arg;      /* index into prompt_file.args, or -1 for literal text */
};

/* One message: its role and the pieces that make its text. */
struct prompt_file_message {
    enum mcph_role role;
    size_t first; /* index of its first piece */
    size_t count; /* number of pieces */
};

struct prompt_file {
    char *name;                   /* owned: the file name without ".md" */
    char *title;                  /* owned, or NULL */
    char *description;            /* owned, or NULL */
    struct prompt_file_arg *args; /* owned, nargs of them */
    size_t nargs;
    char *text;                       /* owned: the file's text, which literal pieces point into */
    struct prompt_file_piece *pieces; /* owned */
    size_t npieces;
    struct prompt_file_message *messages; /* owned */
    size_t nmessages;
};

/* 1 when name is 1-max characters of A-Z a-z 0-9 _ . -, else 0. name borrowed. */
int prompt_file_valid_name(const char *name, size_t len, size_t max);

/*
 * Parses the file whose contents are data[0..len) (a malloc'd buffer of len + 1 bytes).
 * pf must be zeroed; name (borrowed) is the prompt's name, path (borrowed) the file's path
 * for messages. Takes ownership of data whatever happens. Problems are logged through host
 * as "path:line: what; what to do". Returns MCPH_OK; MCPH_ERR_INVALID when the file is not
 * a valid prompt (the reason was logged; pf is then released); MCPH_ERR_NOMEM.
 * Main thread (it logs).
 */
int prompt_file_parse(struct prompt_file *pf, const struct mcph_host *host, const char *path,
                      const char *name, char *data, size_t len);

/*
 * The bytes the messages of pf need once filled with values (values[i] is the value of
 * args[i], lens[i] its length), in *size. MCPH_OK, or MCPH_ERR_LIMIT when they would pass
 * PROMPT_FILE_MAX_FILLED (*size is then that limit plus one). Any thread.
 */
int prompt_file_filled_size(const struct prompt_file *pf, const size_t *lens, size_t *size);

/*
 * The text of message m of pf with its placeholders filled, in *out: malloc'd, owned by the
 * caller. Values are inserted as they are: a value that contains "{{x}}" is not filled
 * again. Call prompt_file_filled_size() first to bound the size. MCPH_OK or
 * MCPH_ERR_NOMEM. Any thread.
 */
int prompt_file_fill(const struct prompt_file *pf, size_t m, const char *const *values,
                     const size_t *lens, char **out);

/* Frees the contents of pf and zeroes it. Accepts NULL. */
void prompt_file_release(struct prompt_file *pf);

#endif
