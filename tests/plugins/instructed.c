/*
 * instructed.c: a plugin that gives mcph its paragraph of the server's instructions
 * (host->instructions, ABI 1.5). Its init first tries a text one byte past
 * MCPH_MAX_INSTRUCTIONS (to be refused), then gives "draft" (to be replaced), then the text of
 * the file named by `text_file` when it is set (read at every init: the instance is rebuilt on
 * every reload, so a test edits the file and sends SIGHUP), else the `text` key (an empty one:
 * no paragraph). The `probe` tool says what those calls returned and what the same call returns
 * from a handler (MCPH_ERR_STATE expected); the `refresh` tool asks for a rebuild.
 */
#include "plugin-api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTRUCTED_FILE_MAX 4096

struct instructed {
    int too_long; /* what init's text past the limit got */
    int draft;    /* what init's first text got */
    int final;    /* what init's last text got */
};

/* The text of path, at most INSTRUCTED_FILE_MAX bytes, or NULL. */
static char *instructed_read(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, INSTRUCTED_FILE_MAX + 1);
    size_t n;

    if (f == NULL || text == NULL) {
        if (f != NULL)
            fclose(f);
        free(text);
        return NULL;
    }
    n = fread(text, 1, INSTRUCTED_FILE_MAX, f);
    fclose(f);
    while (n > 0 && text[n - 1] == '\n')
        text[--n] = '\0';
    return text;
}

static int instructed_init(const struct mcph_host *host, void **state)
{
    struct instructed *s = calloc(1, sizeof(*s));
    char *big = malloc(MCPH_MAX_INSTRUCTIONS + 2);
    const char *file = host->config_path(host, "text_file");
    char *text = NULL;

    if (s == NULL || big == NULL) {
        free(s);
        free(big);
        return MCPH_ERR_NOMEM;
    }
    memset(big, 'x', MCPH_MAX_INSTRUCTIONS + 1);
    big[MCPH_MAX_INSTRUCTIONS + 1] = '\0';
    s->too_long = host->instructions(host, big);
    free(big);
    s->draft = host->instructions(host, "draft");
    if (file != NULL) {
        text = instructed_read(file);
        if (text == NULL) {
            host->log(host, MCPH_LOG_ERROR, "cannot read text_file %s", file);
            free(s);
            return MCPH_ERR_INVALID;
        }
    }
    s->final = host->instructions(host, text != NULL ? text : host->config(host, "text"));
    free(text);
    *state = s;
    return MCPH_OK;
}

static void instructed_shutdown(void *state)
{
    free(state);
}

static int instructed_probe(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct instructed *s = state;
    char text[160];

    snprintf(text, sizeof(text), "too_long %d draft %d final %d handler %d", s->too_long, s->draft,
             s->final, host->instructions(host, "from a handler"));
    return host->text(call, text);
}

static int instructed_refresh(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->refresh(host);
    return host->text(call, "asked");
}

static const struct mcph_tool instructed_tools[] = {
    {.name = "refresh",
     .description = "Asks mcph to build the instance again (host->refresh).",
     .call = instructed_refresh},
    {.name = "probe",
     .description = "What host->instructions returned at init and returns now.",
     .call = instructed_probe},
    {0},
};

static const struct mcph_config_key instructed_keys[] = {
    {.name = "text", .description = "the instructions", .default_value = ""},
    {.name = "text_file", .description = "a file holding the instructions (read at init)"},
    {0},
};

static const struct mcph_plugin instructed_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "instructed",
    .version = "1.0",
    .description = "Gives its paragraph of the server's instructions (ABI 1.5 test plugin)",
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_REBUILD_ON_RELOAD,
    .tools = instructed_tools,
    .config_keys = instructed_keys,
    .init = instructed_init,
    .shutdown = instructed_shutdown,
};

const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &instructed_plugin;
}
