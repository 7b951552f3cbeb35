/*
 * relay.c: a test plugin of ABI 1.3 that behaves as a plugin relaying another server would,
 * with results, log messages and a "child" that are made up here instead:
 *   - every result goes through host->result_json (the tool `whole` returns one result with
 *     every kind of content; `badwhole` tries a result of the wrong shape first; the resource,
 *     the template, its completion and the prompt answer with whole results too);
 *   - `log` relays a log message with host->client_log;
 *   - the descriptor's subscribe() records what it heard, which `heard` returns;
 *   - MCPH_PLUGIN_TAKE_OVER (and MCPH_PLUGIN_REBUILD_ON_RELOAD, so a SIGHUP rebuilds it): a
 *     rebuilt instance takes over the "child" (a shared counter of generations) from
 *     host->predecessor(), and `status` says what it took over, whether its predecessor ran
 *     in the same mapping of the library, and that predecessor() is NULL outside init;
 *   - `rebuild` asks for a refresh.
 * An instance's shutdown logs "generation N shut down" and lets go of its share of the child;
 * subscribe() logs what it heard ("generation N heard +URI") too.
 */
#include "plugin-api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the instances of one line of rebuilds share: the made-up child. */
struct relay_child {
    pthread_mutex_t lock; /* guards everything below */
    int users;            /* instances holding it */
    int generations;      /* instances that held it so far */
};

struct relay {
    const struct mcph_host *host;
    struct relay_child *child; /* a share */
    int generation;            /* this instance's number in the line */
    int took_over;             /* init was handed its predecessor */
    int same_mapping;          /* the predecessor's code is this instance's code */
    const void *code;          /* where this instance's descriptor lives */
    pthread_mutex_t lock;      /* guards heard: subscribe() runs on mcph's threads */
    char heard[2048];          /* "+URI" and "-URI", space-separated, in the order heard */
};

static const struct mcph_plugin relay_plugin;

static int relay_init(const struct mcph_host *host, void **state)
{
    struct relay *r = calloc(1, sizeof(*r));
    struct relay *before = host->predecessor(host);

    if (r == NULL)
        return MCPH_ERR_NOMEM;
    r->host = host;
    r->code = &relay_plugin;
    pthread_mutex_init(&r->lock, NULL);
    if (before != NULL) {
        r->child = before->child;
        r->took_over = 1;
        r->same_mapping = before->code == r->code;
    } else {
        r->child = calloc(1, sizeof(*r->child));
        if (r->child == NULL) {
            free(r);
            return MCPH_ERR_NOMEM;
        }
        pthread_mutex_init(&r->child->lock, NULL);
    }
    pthread_mutex_lock(&r->child->lock);
    r->child->users++;
    r->generation = ++r->child->generations;
    pthread_mutex_unlock(&r->child->lock);
    *state = r;
    return MCPH_OK;
}

static void relay_shutdown(void *state)
{
    struct relay *r = state;
    int users;

    pthread_mutex_lock(&r->child->lock);
    users = --r->child->users;
    pthread_mutex_unlock(&r->child->lock);
    r->host->log(r->host, MCPH_LOG_INFO, "generation %d shut down; the child has %d user(s)",
                 r->generation, users);
    if (users == 0) {
        pthread_mutex_destroy(&r->child->lock);
        free(r->child);
    }
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static void relay_subscribe(const struct mcph_host *host, void *state, const char *uri, int on)
{
    struct relay *r = state;
    size_t len;

    /* Also on stderr, for what it hears as the process ends. */
    host->log(host, MCPH_LOG_INFO, "generation %d heard %c%s", r->generation, on ? '+' : '-', uri);
    pthread_mutex_lock(&r->lock);
    len = strlen(r->heard);
    snprintf(r->heard + len, sizeof(r->heard) - len, "%s%c%s", len ? " " : "", on ? '+' : '-', uri);
    pthread_mutex_unlock(&r->lock);
}

/* --- Tools. --- */

static const char relay_whole_json[] =
    "{\"content\":["
    "{\"type\":\"text\",\"text\":\"relayed\",\"annotations\":{\"audience\":[\"user\"],"
    "\"lastModified\":\"2025-01-01T00:00:00Z\"},\"_meta\":{\"k\":1}},"
    "{\"type\":\"audio\",\"data\":\"AAAA\",\"mimeType\":\"audio/wav\"},"
    "{\"type\":\"resource_link\",\"uri\":\"relay://fixed\",\"name\":\"fixed\"},"
    "{\"type\":\"resource\",\"resource\":{\"uri\":\"relay://fixed\",\"text\":\"body\","
    "\"_meta\":{\"m\":2}}}],"
    "\"structuredContent\":{\"n\":1},"
    "\"_meta\":{\"trace\":\"t1\",\"io.modelcontextprotocol/serverInfo\":{\"name\":\"child\","
    "\"version\":\"9\"}},"
    "\"resultType\":\"complete\"}";

static int relay_whole(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->result_json(call, relay_whole_json);
}

/* A result of the wrong shape adds nothing; the status is reported in a text of its own. */
static int relay_badwhole(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    char text[64];
    int rc = host->result_json(call, "{\"content\":[{\"type\":\"text\",\"text\":\"lost\"},"
                                     "{\"type\":\"image\"}]}");

    (void)state;
    snprintf(text, sizeof(text), "result_json said %d", rc);
    return host->text(call, text);
}

/* client_log with the arguments level (0-7), logger (optional) and data (any JSON), or raw (a
 * string handed over as the JSON text, so it may be no JSON at all). */
static int relay_log(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *logger = NULL, *data = NULL;
    int64_t level = 0;
    char text[64];
    int rc;

    (void)state;
    if (host->arg_integer(call, "level", &level) != MCPH_OK ||
        (host->arg_string(call, "raw", &data) != MCPH_OK &&
         host->arg_json(call, "data", &data) != MCPH_OK))
        return host->tool_error(call, "level (an integer) and data or raw are required");
    if (host->arg_string(call, "logger", &logger) == MCPH_ERR_TYPE)
        return host->tool_error(call, "logger must be a string");
    rc = host->client_log(host, (enum mcph_log_level)level, logger, data);
    snprintf(text, sizeof(text), "client_log said %d", rc);
    return host->text(call, text);
}

static int relay_heard(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct relay *r = state;
    char text[sizeof(r->heard) + 2];

    pthread_mutex_lock(&r->lock);
    snprintf(text, sizeof(text), "[%s]", r->heard);
    pthread_mutex_unlock(&r->lock);
    return host->text(call, text);
}

static int relay_status(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct relay *r = state;
    char text[256];

    snprintf(text, sizeof(text),
             "generation %d, took over %s, same mapping %s, predecessor outside init %s",
             r->generation, r->took_over ? "yes" : "no", r->same_mapping ? "yes" : "no",
             host->predecessor(host) != NULL ? "set" : "NULL");
    return host->text(call, text);
}

static int relay_rebuild(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->refresh(host);
    return host->text(call, "asked");
}

/* --- Resources, the template, its completion, the prompt: whole results too. --- */

static int relay_read_fixed(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->result_json(call, "{\"contents\":[{\"text\":\"fixed body\",\"_meta\":{\"a\":1}},"
                                   "{\"uri\":\"relay://fixed#2\",\"blob\":\"AAAA\","
                                   "\"mimeType\":\"application/octet-stream\"}]}");
}

static int relay_read_item(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    char json[256];
    const char *id = "";

    (void)state;
    host->arg_string(call, "id", &id);
    snprintf(json, sizeof(json), "{\"contents\":[{\"text\":\"item %.100s\"}]}", id);
    return host->result_json(call, json);
}

static int relay_complete(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->result_json(
        call, "{\"completion\":{\"values\":[\"7\",\"8\"],\"total\":40,\"hasMore\":true}}");
}

static int relay_prompt(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->result_json(call,
                             "{\"description\":\"relayed prompt\",\"messages\":["
                             "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"q\"}},"
                             "{\"role\":\"assistant\",\"content\":{\"type\":\"audio\","
                             "\"data\":\"AAAAAA==\",\"mimeType\":\"audio/mpeg\"}}]}");
}

static const struct mcph_tool relay_tools[] = {
    {.name = "whole", .description = "A whole result, relayed.", .call = relay_whole},
    {.name = "badwhole", .description = "A result of the wrong shape.", .call = relay_badwhole},
    {.name = "log",
     .description = "Relays a log message.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"level\":{\"type\":\"integer\"},"
                     "\"logger\":{\"type\":\"string\"},\"data\":{},"
                     "\"raw\":{\"type\":\"string\"}},\"required\":[\"level\"]}",
     .call = relay_log},
    {.name = "heard", .description = "What subscribe() heard.", .call = relay_heard},
    {.name = "status", .description = "What this instance took over.", .call = relay_status},
    {.name = "rebuild", .description = "Asks to be built again.", .call = relay_rebuild},
    {0},
};

static const struct mcph_resource relay_resources[] = {
    {.uri = "relay://fixed", .name = "fixed", .mime_type = "text/plain", .read = relay_read_fixed},
    {0},
};

static const struct mcph_resource_template relay_templates[] = {
    {.uri_template = "relay://item/{id}",
     .name = "item",
     .read = relay_read_item,
     .complete = relay_complete},
    {0},
};

static const struct mcph_prompt relay_prompts[] = {
    {.name = "relayed", .description = "A whole prompt, relayed.", .get = relay_prompt},
    {0},
};

static const struct mcph_plugin relay_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "relay",
    .version = "1.3.0",
    .description = "Test plugin: ABI 1.3 (whole results, client log, take over, subscribe)",
    .flags = MCPH_PLUGIN_TAKE_OVER | MCPH_PLUGIN_REBUILD_ON_RELOAD,
    .tools = relay_tools,
    .resources = relay_resources,
    .resource_templates = relay_templates,
    .prompts = relay_prompts,
    .init = relay_init,
    .shutdown = relay_shutdown,
    .subscribe = relay_subscribe,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &relay_plugin;
}
