/*
 * prompt_file.c: parse one Markdown prompt file and fill it with argument values. The
 * grammar is the one documented at the top of prompts.c.
 *
 * The file's text is kept whole (after the checks below) and messages are lists of pieces:
 * literal runs pointing into the text, and argument references. Filling is then a copy, and
 * a value is never looked at, so it cannot be expanded twice.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, strndup, strcasecmp outside the mcph tree's flags too */
#endif

#include "prompt_file.h"

#include "mcph-strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A run of the text, [start, end) as offsets. */
struct span {
    size_t start;
    size_t end;
};

/* The header keys. */
enum parser_key {
    PARSER_KEY_NONE = 0,
    PARSER_KEY_TITLE,
    PARSER_KEY_DESCRIPTION,
    PARSER_KEY_ARGUMENT,
};

static const struct {
    const char *name;
    enum parser_key key;
} parser_keys[] = {
    {"title", PARSER_KEY_TITLE},
    {"description", PARSER_KEY_DESCRIPTION},
    {"argument", PARSER_KEY_ARGUMENT},
    {0},
};

static const char parser_name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "abcdefghijklmnopqrstuvwxyz0123456789_.-";

/* The state of one parse. */
struct parser {
    const struct mcph_host *host; /* borrowed */
    const char *path;             /* borrowed: the file, for messages */
    struct prompt_file *pf;       /* borrowed: what is being filled */
    char *text;                   /* == pf->text */
    size_t len;                   /* bytes of text */
    size_t pos;                   /* start of the next line */
    size_t line;                  /* number of the line parser_line() returned last */
    size_t title_line;            /* where title and description were set (0: not yet) */
    size_t description_line;
    size_t warnings; /* warnings so far, logged or counted */
    size_t pieces_cap;
    size_t messages_cap;
    unsigned char used[PROMPT_FILE_MAX_ARGS]; /* 1 once a placeholder names args[i] */
};

int prompt_file_valid_name(const char *name, size_t len, size_t max)
{
    if (len < 1 || len > max)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] == '\0' || strchr(parser_name_chars, name[i]) == NULL)
            return 0;
    }
    return 1;
}

/* --- Messages. Every one names the file and, when there is one, the line. --- */

static void parser_vlog(struct parser *p, enum mcph_log_level level, size_t line,
                        const char *suffix, const char *fmt, va_list ap) MCPH_PRINTF(5, 0);
static void parser_vlog(struct parser *p, enum mcph_log_level level, size_t line,
                        const char *suffix, const char *fmt, va_list ap)
{
    char msg[1024];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (line > 0)
        p->host->log(p->host, level, "%s:%zu: %s%s", p->path, line, msg, suffix);
    else
        p->host->log(p->host, level, "%s: %s%s", p->path, msg, suffix);
}

/* A problem that makes the file unusable: logged, and MCPH_ERR_INVALID returned. */
static int parser_error(struct parser *p, size_t line, const char *fmt, ...) MCPH_PRINTF(3, 4);
static int parser_error(struct parser *p, size_t line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    parser_vlog(p, MCPH_LOG_ERROR, line, " (file skipped)", fmt, ap);
    va_end(ap);
    return MCPH_ERR_INVALID;
}

/* A warning about a file that is still served. Callers ask parser_warn_more() first, so a
 * file full of mistakes costs PROMPT_FILE_MAX_WARNINGS messages, not one per mistake. */
static void parser_warn(struct parser *p, size_t line, const char *fmt, ...) MCPH_PRINTF(3, 4);
static void parser_warn(struct parser *p, size_t line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    parser_vlog(p, MCPH_LOG_WARNING, line, "", fmt, ap);
    va_end(ap);
}

static int parser_warn_more(struct parser *p)
{
    return ++p->warnings <= PROMPT_FILE_MAX_WARNINGS;
}

/* The line number of offset off. */
static size_t parser_line_of(const struct parser *p, size_t off)
{
    size_t line = 1;

    for (size_t i = 0; i < off && i < p->len; i++) {
        if (p->text[i] == '\n')
            line++;
    }
    return line;
}

/* --- Text checks: what is sent must be UTF-8 without NUL; line ends become "\n". --- */

/* The offset of the first byte of s that is not valid UTF-8 (overlong forms, surrogates
 * and code points past U+10FFFF included) or is NUL, or len when there is none. */
static size_t parser_utf8_end(const unsigned char *s, size_t len)
{
    size_t good = mcph_sb_utf8_valid((const char *)s, len);
    const unsigned char *nul = memchr(s, 0, good);

    return nul != NULL ? (size_t)(nul - s) : good;
}

/* Drops a UTF-8 byte order mark and turns CR LF into LF, in place. */
static void parser_normalise(struct parser *p)
{
    size_t out = 0;

    if (p->len >= 3 && memcmp(p->text, "\xef\xbb\xbf", 3) == 0) {
        memmove(p->text, p->text + 3, p->len - 3);
        p->len -= 3;
    }
    for (size_t i = 0; i < p->len; i++) {
        if (p->text[i] == '\r' && i + 1 < p->len && p->text[i + 1] == '\n')
            continue;
        p->text[out++] = p->text[i];
    }
    p->len = out;
    p->text[out] = '\0';
}

static int parser_check_text(struct parser *p)
{
    size_t bad = parser_utf8_end((const unsigned char *)p->text, p->len);

    if (bad < p->len && p->text[bad] == '\0')
        return parser_error(p, parser_line_of(p, bad),
                            "the file holds a NUL byte (at byte %zu), so it is not text; "
                            "remove it",
                            bad);
    if (bad < p->len)
        return parser_error(p, parser_line_of(p, bad),
                            "byte %zu is not UTF-8; save the file as UTF-8", bad);
    parser_normalise(p);
    return MCPH_OK;
}

/* --- Lines and spans. --- */

/* The next line (without its "\n") in *s; 0 at the end of the text. */
static int parser_line(struct parser *p, struct span *s)
{
    const char *nl;

    if (p->pos >= p->len)
        return 0;
    nl = memchr(p->text + p->pos, '\n', p->len - p->pos);
    s->start = p->pos;
    s->end = nl ? (size_t)(nl - p->text) : p->len;
    p->pos = nl ? s->end + 1 : p->len;
    p->line++;
    return 1;
}

static int parser_blank(char c)
{
    return c == ' ' || c == '\t';
}

static void parser_trim(const struct parser *p, struct span *s)
{
    while (s->start < s->end && parser_blank(p->text[s->start]))
        s->start++;
    while (s->end > s->start && parser_blank(p->text[s->end - 1]))
        s->end--;
}

static size_t parser_span_len(const struct span *s)
{
    return s->end - s->start;
}

/* How much of the span a message quotes: at most 80 bytes, not cutting a UTF-8 sequence. */
static int parser_quoted_len(const struct parser *p, const struct span *s)
{
    size_t n = parser_span_len(s);

    if (n <= 80)
        return (int)n;
    n = 80;
    while (n > 0 && (p->text[s->start + n] & 0xc0) == 0x80)
        n--;
    return (int)n;
}

/* 1 when the span is exactly word. */
static int parser_span_is(const struct parser *p, const struct span *s, const char *word)
{
    size_t n = strlen(word);

    return parser_span_len(s) == n && memcmp(p->text + s->start, word, n) == 0;
}

/* A malloc'd copy of the span, or NULL when out of memory. */
static char *parser_dup(const struct parser *p, const struct span *s)
{
    return strndup(p->text + s->start, parser_span_len(s));
}

/* Appends " " and the span to *value (or sets it when NULL). */
static int parser_append(const struct parser *p, char **value, const struct span *s)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    char *joined;

    mcph_sb_addstr(&sb, *value ? *value : "");
    if (sb.len > 0)
        mcph_sb_addch(&sb, ' ');
    mcph_sb_add(&sb, p->text + s->start, parser_span_len(s));
    joined = mcph_sb_detach(&sb, NULL);
    if (joined == NULL)
        return MCPH_ERR_NOMEM;
    free(*value);
    *value = joined;
    return MCPH_OK;
}

/* --- The header. --- */

/* Reads "(required)" or "(optional)" (any case) off the start of *rest, then trims it.
 * Returns 1 for required. */
static int parser_arg_flag(const struct parser *p, struct span *rest)
{
    int required = 0;

    parser_trim(p, rest);
    if (parser_span_len(rest) >= 10 && strncasecmp(p->text + rest->start, "(required)", 10) == 0) {
        required = 1;
        rest->start += 10;
    } else if (parser_span_len(rest) >= 10 &&
               strncasecmp(p->text + rest->start, "(optional)", 10) == 0) {
        rest->start += 10;
    }
    parser_trim(p, rest);
    return required;
}

/* Reads one argument declaration: NAME [(required)|(optional)] [description]. */
static int parser_argument(struct parser *p, struct span v)
{
    struct prompt_file *pf = p->pf;
    struct span name = v, rest;
    struct prompt_file_arg *args, *arg;

    name.end = name.start;
    while (name.end < v.end && !parser_blank(p->text[name.end]))
        name.end++;
    rest = (struct span){name.end, v.end};
    if (!prompt_file_valid_name(p->text + name.start, parser_span_len(&name),
                                PROMPT_FILE_MAX_ARG_NAME))
        return parser_error(
            p, p->line, "the argument name '%.*s' is not valid; use 1-%d of A-Z a-z 0-9 _ . -",
            parser_quoted_len(p, &name), p->text + name.start, PROMPT_FILE_MAX_ARG_NAME);
    if (pf->nargs == PROMPT_FILE_MAX_ARGS)
        return parser_error(p, p->line, "more than %d arguments; mcph allows %d per prompt",
                            PROMPT_FILE_MAX_ARGS, PROMPT_FILE_MAX_ARGS);
    for (size_t i = 0; i < pf->nargs; i++) {
        if (parser_span_is(p, &name, pf->args[i].name))
            return parser_error(p, p->line,
                                "the argument '%s' is declared twice (first on line %zu); "
                                "remove one",
                                pf->args[i].name, pf->args[i].line);
    }
    args = realloc(pf->args, (pf->nargs + 1) * sizeof(*args));
    if (args == NULL)
        return MCPH_ERR_NOMEM;
    pf->args = args;
    arg = &args[pf->nargs];
    *arg = (struct prompt_file_arg){.line = p->line, .name = parser_dup(p, &name)};
    if (arg->name == NULL)
        return MCPH_ERR_NOMEM;
    pf->nargs++;
    arg->required = parser_arg_flag(p, &rest);
    if (parser_span_len(&rest) == 0)
        return MCPH_OK;
    arg->description = parser_dup(p, &rest);
    return arg->description ? MCPH_OK : MCPH_ERR_NOMEM;
}

/* Sets a title or description: each may be given once. */
static int parser_set(struct parser *p, const char *key, char **value, size_t *line,
                      const struct span *v)
{
    if (*value != NULL)
        return parser_error(p, p->line, "a second %s (the first is on line %zu); keep one", key,
                            *line);
    *value = parser_dup(p, v);
    *line = p->line;
    return *value ? MCPH_OK : MCPH_ERR_NOMEM;
}

static enum parser_key parser_lookup(const struct parser *p, const struct span *k)
{
    for (size_t i = 0; parser_keys[i].name != NULL; i++) {
        if (parser_span_is(p, k, parser_keys[i].name))
            return parser_keys[i].key;
    }
    return PARSER_KEY_NONE;
}

/* A "key: value" line. *last is set to the key, for continuation lines. */
static int parser_key_line(struct parser *p, const struct span *s, enum parser_key *last)
{
    const char *colon = memchr(p->text + s->start, ':', parser_span_len(s));
    struct span k, v;

    if (colon == NULL)
        return parser_error(p, p->line,
                            "expected 'key: value' with the key title, description or "
                            "argument; end the header with a line '---' if it is over");
    k = (struct span){s->start, (size_t)(colon - p->text)};
    v = (struct span){k.end + 1, s->end};
    parser_trim(p, &k);
    parser_trim(p, &v);
    *last = parser_lookup(p, &k);
    if (*last == PARSER_KEY_NONE)
        return parser_error(p, p->line, "unknown key '%.*s'; use title, description or argument",
                            parser_quoted_len(p, &k), p->text + k.start);
    if (parser_span_len(&v) == 0)
        return parser_error(p, p->line,
                            "'%.*s' has no value; write it after the colon or remove the line",
                            parser_quoted_len(p, &k), p->text + k.start);
    if (*last == PARSER_KEY_TITLE)
        return parser_set(p, "title", &p->pf->title, &p->title_line, &v);
    if (*last == PARSER_KEY_DESCRIPTION)
        return parser_set(p, "description", &p->pf->description, &p->description_line, &v);
    return parser_argument(p, v);
}

/* An indented line: more of the value of the key line above. */
static int parser_continuation(struct parser *p, enum parser_key last, struct span *s)
{
    struct prompt_file *pf = p->pf;

    parser_trim(p, s);
    switch (last) {
    case PARSER_KEY_TITLE:
        return parser_append(p, &pf->title, s);
    case PARSER_KEY_DESCRIPTION:
        return parser_append(p, &pf->description, s);
    case PARSER_KEY_ARGUMENT:
        return parser_append(p, &pf->args[pf->nargs - 1].description, s);
    default:
        return parser_error(p, p->line,
                            "an indented line continues the value above it, but there is none "
                            "(a blank or comment line ends a value); remove the indent");
    }
}

/* 1 when the file starts with a header line "---" (which is then consumed), else 0. */
static int parser_has_header(struct parser *p)
{
    size_t pos = p->pos, line = p->line;
    struct span s;

    if (parser_line(p, &s)) {
        parser_trim(p, &s);
        if (parser_span_is(p, &s, "---"))
            return 1;
    }
    p->pos = pos;
    p->line = line;
    return 0;
}

/* The header's lines up to the closing "---" (the opening one is read). */
static int parser_header(struct parser *p)
{
    size_t open = p->line;
    enum parser_key last = PARSER_KEY_NONE;
    struct span s;

    while (parser_line(p, &s)) {
        int indented = parser_span_len(&s) > 0 && parser_blank(p->text[s.start]);
        int rc;

        parser_trim(p, &s);
        if (parser_span_is(p, &s, "---"))
            return MCPH_OK;
        if (parser_span_len(&s) == 0 || p->text[s.start] == '#') {
            last = PARSER_KEY_NONE;
            continue;
        }
        if (indented)
            rc = parser_continuation(p, last, &s);
        else
            rc = parser_key_line(p, &s, &last);
        if (rc != MCPH_OK)
            return rc;
    }
    return parser_error(p, open,
                        "the header opened here has no closing '---' line; end it with a line "
                        "of three dashes");
}

/* --- The body: role sections, placeholders. --- */

static int parser_add_piece(struct parser *p, size_t start, size_t len, int arg)
{
    struct prompt_file *pf = p->pf;

    if (arg < 0 && len == 0)
        return MCPH_OK;
    if (pf->npieces == p->pieces_cap) {
        size_t cap = p->pieces_cap ? p->pieces_cap * 2 : 16;
        struct prompt_file_piece *pieces = realloc(pf->pieces, cap * sizeof(*pieces));

        if (pieces == NULL)
            return MCPH_ERR_NOMEM;
        pf->pieces = pieces;
        p->pieces_cap = cap;
    }
    pf->pieces[pf->npieces++] = (struct prompt_file_piece){start, len, arg};
    return MCPH_OK;
}

/* The declared argument named by the span, or -1. */
static int parser_find_arg(const struct parser *p, const struct span *name)
{
    for (size_t i = 0; i < p->pf->nargs; i++) {
        if (parser_span_is(p, name, p->pf->args[i].name))
            return (int)i;
    }
    return -1;
}

/* 1 when a placeholder "{{ name }}" starts at `at` and ends before end: its name in *name
 * and the offset after its "}}" in *after. */
static int parser_placeholder(const struct parser *p, size_t at, size_t end, struct span *name,
                              size_t *after)
{
    size_t i = at + 2;

    while (i < end && parser_blank(p->text[i]))
        i++;
    name->start = i;
    while (i < end && p->text[i] != '\0' && strchr(parser_name_chars, p->text[i]) != NULL)
        i++;
    name->end = i;
    if (parser_span_len(name) == 0 || parser_span_len(name) > PROMPT_FILE_MAX_ARG_NAME)
        return 0;
    while (i < end && parser_blank(p->text[i]))
        i++;
    if (end - i < 2 || p->text[i] != '}' || p->text[i + 1] != '}')
        return 0;
    *after = i + 2;
    return 1;
}

static void parser_warn_undeclared(struct parser *p, size_t at, const struct span *name)
{
    if (!parser_warn_more(p))
        return;
    parser_warn(p, parser_line_of(p, at),
                "{{%.*s}} names no declared argument, so it is sent as written; declare it "
                "with 'argument: %.*s' in the header if it is one",
                (int)parser_span_len(name), p->text + name->start, (int)parser_span_len(name),
                p->text + name->start);
}

/* Splits text[start, end) into literal and argument pieces. */
static int parser_pieces(struct parser *p, size_t start, size_t end)
{
    size_t lit = start, i = start;

    while (end - i >= 5) { /* the shortest placeholder is {{x}} */
        const char *open = memmem(p->text + i, end - i, "{{", 2);
        size_t at, after;
        struct span name;
        int arg;

        if (open == NULL)
            break;
        at = (size_t)(open - p->text);
        if (!parser_placeholder(p, at, end, &name, &after)) {
            i = at + 1;
            continue;
        }
        arg = parser_find_arg(p, &name);
        if (arg < 0) {
            parser_warn_undeclared(p, at, &name);
            i = after;
            continue;
        }
        p->used[arg] = 1;
        if (parser_add_piece(p, lit, at - lit, -1) != MCPH_OK ||
            parser_add_piece(p, 0, 0, arg) != MCPH_OK)
            return MCPH_ERR_NOMEM;
        lit = i = after;
    }
    return parser_add_piece(p, lit, end - lit, -1);
}

/* One role section, text[start, end): blank lines before it and white space after it are
 * dropped; an empty section makes no message. */
static int parser_section(struct parser *p, enum mcph_role role, size_t start, size_t end)
{
    struct prompt_file *pf = p->pf;
    size_t first = pf->npieces;

    for (size_t i = start; i < end && (parser_blank(p->text[i]) || p->text[i] == '\n'); i++) {
        if (p->text[i] == '\n')
            start = i + 1;
    }
    while (end > start && (parser_blank(p->text[end - 1]) || p->text[end - 1] == '\n'))
        end--;
    if (end <= start)
        return MCPH_OK;
    if (parser_pieces(p, start, end) != MCPH_OK)
        return MCPH_ERR_NOMEM;
    if (pf->nmessages == p->messages_cap) {
        size_t cap = p->messages_cap ? p->messages_cap * 2 : 4;
        struct prompt_file_message *messages = realloc(pf->messages, cap * sizeof(*messages));

        if (messages == NULL)
            return MCPH_ERR_NOMEM;
        pf->messages = messages;
        p->messages_cap = cap;
    }
    pf->messages[pf->nmessages++] = (struct prompt_file_message){role, first, pf->npieces - first};
    return MCPH_OK;
}

/* 1 when the line is a role marker, "<!-- user -->" or "<!-- assistant -->" (any case,
 * blanks allowed inside and around), with its role in *role. */
static int parser_marker(const struct parser *p, struct span s, enum mcph_role *role)
{
    parser_trim(p, &s);
    if (parser_span_len(&s) < 7 || memcmp(p->text + s.start, "<!--", 4) != 0 ||
        memcmp(p->text + s.end - 3, "-->", 3) != 0)
        return 0;
    s.start += 4;
    s.end -= 3;
    parser_trim(p, &s);
    if (parser_span_len(&s) == 4 && strncasecmp(p->text + s.start, "user", 4) == 0) {
        *role = MCPH_ROLE_USER;
        return 1;
    }
    if (parser_span_len(&s) == 9 && strncasecmp(p->text + s.start, "assistant", 9) == 0) {
        *role = MCPH_ROLE_ASSISTANT;
        return 1;
    }
    return 0;
}

/* Everything after the header: sections split at role markers; the first one is the user's. */
static int parser_body(struct parser *p)
{
    enum mcph_role role = MCPH_ROLE_USER, next = MCPH_ROLE_USER;
    size_t start = p->pos;
    struct span s;

    for (;;) {
        size_t line_start = p->pos;
        int more = parser_line(p, &s);

        if (more && !parser_marker(p, s, &next))
            continue;
        if (parser_section(p, role, start, more ? line_start : p->len) != MCPH_OK)
            return MCPH_ERR_NOMEM;
        if (!more)
            return MCPH_OK;
        role = next;
        start = p->pos;
    }
}

/* The text of the first ATX heading ("# Title") outside fenced code, from body_start, or
 * an empty span. */
static struct span parser_heading(struct parser *p, size_t body_start)
{
    struct span s, none = {0, 0};
    int fenced = 0;

    p->pos = body_start;
    while (parser_line(p, &s)) {
        size_t hashes = 0;

        parser_trim(p, &s);
        if (parser_span_len(&s) >= 3 &&
            (memcmp(p->text + s.start, "```", 3) == 0 || memcmp(p->text + s.start, "~~~", 3) == 0))
            fenced = !fenced;
        while (!fenced && hashes < parser_span_len(&s) && p->text[s.start + hashes] == '#')
            hashes++;
        if (fenced || hashes == 0 || hashes > 6 || hashes == parser_span_len(&s) ||
            !parser_blank(p->text[s.start + hashes]))
            continue;
        s.start += hashes;
        while (s.end > s.start && p->text[s.end - 1] == '#')
            s.end--; /* the optional closing sequence */
        parser_trim(p, &s);
        if (parser_span_len(&s) > 0)
            return s;
    }
    return none;
}

/* A title for a prompt whose header gave none: its first heading, else its name. */
static int parser_title(struct parser *p, size_t body_start)
{
    struct span h;

    if (p->pf->title != NULL)
        return MCPH_OK;
    h = parser_heading(p, body_start);
    p->pf->title = parser_span_len(&h) > 0 ? parser_dup(p, &h) : strdup(p->pf->name);
    return p->pf->title ? MCPH_OK : MCPH_ERR_NOMEM;
}

/* Warnings for arguments no placeholder uses, then the count of warnings not shown. */
static void parser_warn_unused(struct parser *p)
{
    for (size_t i = 0; i < p->pf->nargs; i++) {
        if (!p->used[i] && parser_warn_more(p))
            parser_warn(p, p->pf->args[i].line,
                        "the argument '%s' is declared but no {{%s}} uses it, so its value "
                        "is dropped; use it in the text or remove the declaration",
                        p->pf->args[i].name, p->pf->args[i].name);
    }
    if (p->warnings > PROMPT_FILE_MAX_WARNINGS)
        parser_warn(p, 0, "%zu more warnings like these", p->warnings - PROMPT_FILE_MAX_WARNINGS);
}

int prompt_file_parse(struct prompt_file *pf, const struct mcph_host *host, const char *path,
                      const char *name, char *data, size_t len)
{
    struct parser p = {.host = host, .path = path, .pf = pf, .text = data, .len = len};
    size_t body_start;
    int rc;

    pf->text = data;
    rc = parser_check_text(&p);
    if (rc == MCPH_OK) {
        pf->name = strdup(name);
        rc = pf->name ? MCPH_OK : MCPH_ERR_NOMEM;
    }
    if (rc == MCPH_OK && parser_has_header(&p))
        rc = parser_header(&p);
    body_start = p.pos;
    if (rc == MCPH_OK)
        rc = parser_body(&p);
    if (rc == MCPH_OK)
        rc = parser_title(&p, body_start);
    if (rc == MCPH_OK)
        parser_warn_unused(&p);
    if (rc != MCPH_OK)
        prompt_file_release(pf);
    return rc;
}

/* --- Filling. --- */

static size_t prompt_file_piece_len(const struct prompt_file_piece *piece, const size_t *lens)
{
    return piece->arg < 0 ? piece->len : lens[piece->arg];
}

int prompt_file_filled_size(const struct prompt_file *pf, const size_t *lens, size_t *size)
{
    size_t total = 0;

    for (size_t i = 0; i < pf->npieces; i++) {
        size_t add = prompt_file_piece_len(&pf->pieces[i], lens);

        if (add > PROMPT_FILE_MAX_FILLED - total) {
            *size = (size_t)PROMPT_FILE_MAX_FILLED + 1;
            return MCPH_ERR_LIMIT;
        }
        total += add;
    }
    *size = total;
    return MCPH_OK;
}

int prompt_file_fill(const struct prompt_file *pf, size_t m, const char *const *values,
                     const size_t *lens, char **out)
{
    const struct prompt_file_message *msg = &pf->messages[m];
    const struct prompt_file_piece *pieces = pf->pieces + msg->first;
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    char *text;

    for (size_t i = 0; i < msg->count; i++) {
        const struct prompt_file_piece *piece = &pieces[i];
        const char *from = piece->arg < 0 ? pf->text + piece->start : values[piece->arg];

        mcph_sb_add(&sb, from, prompt_file_piece_len(piece, lens));
    }
    text = mcph_sb_detach(&sb, NULL);
    if (text == NULL)
        return MCPH_ERR_NOMEM;
    *out = text;
    return MCPH_OK;
}

void prompt_file_release(struct prompt_file *pf)
{
    if (pf == NULL)
        return;
    for (size_t i = 0; i < pf->nargs; i++) {
        free(pf->args[i].name);
        free(pf->args[i].description);
    }
    free(pf->args);
    free(pf->name);
    free(pf->title);
    free(pf->description);
    free(pf->text);
    free(pf->pieces);
    free(pf->messages);
    memset(pf, 0, sizeof(*pf));
}
