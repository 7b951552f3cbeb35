/*
 * defines.c: a test plugin of ABI 1.2. Its init defines rows read from a list file (the key
 * `list`, read with host->config_path, so relative to the INI file) and from the multi-line
 * key `extra`, one row a line:
 *
 *     tool NAME            a tool served by the shared handler `whoami`
 *     resource URI         a resource served by `whoami`
 *     template URI_TMPL    a resource template served by `whoami`
 *     prompt NAME ARG      a prompt with one required argument, served by `whoami`
 *
 * The descriptor does not set MCPH_PLUGIN_REBUILD_ON_RELOAD: defining at init is what makes
 * an instance rebuilt on every reload. whoami answers with host->call_name() and
 * host->call_data() (every kind but templates carries data), so the transcripts see which
 * definition a shared handler is serving. A row mcph refuses (a bad name, a duplicate) is
 * kept in a log of status codes that the tool `statuses` returns. `refresh` calls
 * host->refresh() from a worker; `late_define` tries to define outside init (MCPH_ERR_STATE);
 * `where` shows config_path() of `list` and of a key that is not set.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-api.h"

#define DEFINES_LINE 512
/* Appended to what tools say: a transcript builds a variant with another tag, to see which
 * code runs after a reload. */
#ifndef DEFINES_TAG
#define DEFINES_TAG ""
#endif
#define DEFINES_LOG 4096

struct defines {
    char log[DEFINES_LOG]; /* "KIND NAME: STATUS" of each define, one a line */
    size_t len;
};

static int defines_whoami(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *name = host->call_name(call);
    const char *data = host->call_data(call);
    char text[DEFINES_LINE + 64];
    const char *arg = NULL;

    (void)state;
    if (host->uri(call) != NULL) {
        snprintf(text, sizeof(text), "read %s as %s [%s]", host->uri(call), name ? name : "(null)",
                 data ? data : "no data");
        return host->contents_text(call, NULL, "text/plain", text);
    }
    if (host->arg_string(call, "who", &arg) == MCPH_OK) {
        host->prompt_message(call, MCPH_ROLE_USER);
        snprintf(text, sizeof(text), "prompt %s for %s [%s]", name ? name : "(null)", arg,
                 data ? data : "no data");
        return host->text(call, text);
    }
    snprintf(text, sizeof(text), "tool %s [%s]%s", name ? name : "(null)", data ? data : "no data",
             DEFINES_TAG);
    return host->text(call, text);
}

static const struct mcph_prompt_arg defines_args[] = {
    {.name = "who", .description = "Who asks", .required = 1},
    {0},
};

static void defines_note(struct defines *d, const char *kind, const char *name, int rc)
{
    int n = snprintf(d->log + d->len, sizeof(d->log) - d->len, "%s %s: %d\n", kind, name, rc);

    if (n > 0 && d->len + (size_t)n < sizeof(d->log))
        d->len += (size_t)n;
}

/* Define the row one line describes. */
static void defines_line(const struct mcph_host *host, struct defines *d, char *line)
{
    char *kind = strtok(line, " \t\r\n");
    char *name = strtok(NULL, " \t\r\n");
    int rc = MCPH_ERR_INVALID;

    if (kind == NULL || name == NULL)
        return;
    if (strcmp(kind, "tool") == 0) {
        struct mcph_tool t = {.name = name,
                              .description = "Defined at init",
                              .call = defines_whoami,
                              .data = "tool data"};
        rc = host->define_tool(host, &t);
    } else if (strcmp(kind, "resource") == 0) {
        struct mcph_resource r = {.uri = name,
                                  .name = "defined",
                                  .mime_type = "text/plain",
                                  .read = defines_whoami,
                                  .data = "resource data"};
        rc = host->define_resource(host, &r);
    } else if (strcmp(kind, "template") == 0) {
        struct mcph_resource_template t = {
            .uri_template = name, .name = "defined", .read = defines_whoami};
        rc = host->define_template(host, &t);
    } else if (strcmp(kind, "prompt") == 0) {
        struct mcph_prompt p = {
            .name = name, .arguments = defines_args, .get = defines_whoami, .data = "prompt data"};
        rc = host->define_prompt(host, &p);
    }
    defines_note(d, kind, name, rc);
}

/* A printf-style wrapper of the plugin's own, through host->vlog. */
static void defines_error(const struct mcph_host *host, const char *fmt, ...) MCPH_PRINTF(2, 3);
static void defines_error(const struct mcph_host *host, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    host->vlog(host, MCPH_LOG_ERROR, fmt, ap);
    va_end(ap);
}

static int defines_file(const struct mcph_host *host, struct defines *d, const char *path)
{
    char line[DEFINES_LINE];
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        defines_error(host, "cannot open the list %s (vlog)", path);
        return MCPH_ERR;
    }
    while (fgets(line, sizeof(line), f) != NULL)
        defines_line(host, d, line);
    fclose(f);
    return MCPH_OK;
}

static int defines_init(const struct mcph_host *host, void **state)
{
    struct defines *d = calloc(1, sizeof(*d));
    const char *extra = host->config(host, "extra");
    int rc;

    if (d == NULL)
        return MCPH_ERR_NOMEM;
    rc = defines_file(host, d, host->config_path(host, "list"));
    if (rc == MCPH_OK && extra != NULL) {
        char *copy = strdup(extra);
        char *save = NULL;

        for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l != NULL;
             l = strtok_r(NULL, "\n", &save))
            defines_line(host, d, l);
        free(copy);
    }
    if (rc != MCPH_OK) {
        free(d);
        return rc;
    }
    *state = d;
    return MCPH_OK;
}

static void defines_shutdown(void *state)
{
    free(state);
}

static int defines_statuses(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct defines *d = state;

    return host->text(call, d->len ? d->log : "(none)");
}

static int defines_refresh(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->refresh(host);
    return host->text(call, "asked");
}

static int defines_late(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct mcph_tool t = {.name = "late", .call = defines_whoami};
    char text[64];

    (void)state;
    snprintf(text, sizeof(text), "define_tool outside init: %d", host->define_tool(host, &t));
    return host->text(call, text);
}

static int defines_where(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *unset = host->config_path(host, "unset");
    char text[DEFINES_LINE * 2];

    (void)state;
    snprintf(text, sizeof(text), "list=%s unset=%s", host->config_path(host, "list"),
             unset ? unset : "(null)");
    return host->text(call, text);
}

static const struct mcph_tool defines_tools[] = {
    {.name = "statuses", .description = "What each define returned", .call = defines_statuses},
    {.name = "refresh",
     .description = "Ask mcph to build this instance again",
     .call = defines_refresh},
    {.name = "late_define", .description = "Define outside init", .call = defines_late},
    {.name = "where",
     .description = "config_path of list and of an unset key",
     .call = defines_where},
    {0},
};

static const struct mcph_config_key defines_keys[] = {
    {.name = "list", .description = "A file of rows to define", .required = 1},
    {.name = "extra", .description = "More rows, one a line"},
    {.name = "unset", .description = "Never set: config_path gives NULL"},
    {0},
};

static const struct mcph_plugin defines_plugin = {
    MCPH_PLUGIN_HEADER,     .name = "defines",
    .version = "1.0.0",     .description = "Rows defined at init from a list file (ABI 1.2)",
    .tools = defines_tools, .config_keys = defines_keys,
    .init = defines_init,   .shutdown = defines_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &defines_plugin;
}
