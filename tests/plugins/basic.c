/*
 * basic.c: the workhorse test plugin, NOT thread-safe. It gives the transcripts and interop
 * tests one of everything: a config key with a default, tools that echo, sleep, fail with a
 * tool error or a protocol error, a fixed resource, templates with {var} and {+var}, a
 * template read that is not found, and a prompt with a required and an optional argument.
 * `overlap` reports the most calls it saw running at once: since the descriptor does not set
 * MCPH_PLUGIN_THREAD_SAFE, mcph must serialise calls and the answer must stay 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin-api.h"

#define BASIC_MAX_MS 60000

struct basic {
    /* Borrowed from host->config(), valid until shutdown() returns. */
    const char *greeting;
    /* overlap calls running now, and the most ever seen at once. Atomics, so that a core
     * that wrongly runs calls in parallel gets a count, not a data race. */
    atomic_int active;
    atomic_int max_active;
};

/* A malloc'd printf-style string owned by the caller, or NULL when out of memory. */
static char *basic_format(const char *fmt, ...) MCPH_PRINTF(1, 2);
static char *basic_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return NULL;

    char *buf = malloc((size_t)len + 1);
    if (!buf)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return buf;
}

/* Sends text (owned, freed here; NULL means out of memory) as a tool or prompt text item. */
static int basic_text_owned(const struct mcph_host *host, struct mcph_call *call, char *text)
{
    if (!text)
        return MCPH_ERR_NOMEM;
    int rc = host->text(call, text);
    free(text);
    return rc;
}

/* Sends text (owned, freed here; NULL means out of memory) as the contents being read. */
static int basic_contents_owned(const struct mcph_host *host, struct mcph_call *call, char *text)
{
    if (!text)
        return MCPH_ERR_NOMEM;
    int rc = host->contents_text(call, NULL, "text/plain", text);
    free(text);
    return rc;
}

/* What a tool returns when an accessor failed: bad arguments are tool errors (SEP-1303). */
static int basic_bad_arg(const struct mcph_host *host, struct mcph_call *call, const char *name,
                         const char *type, int rc)
{
    if (rc == MCPH_ERR_ABSENT)
        return host->tool_error(call, "missing the argument \"%s\" (%s)", name, type);
    if (rc == MCPH_ERR_TYPE)
        return host->tool_error(call, "the argument \"%s\" must be %s", name, type);
    return rc;
}

/* Reads "ms" into *ms (left alone when absent and not required). Returns MCPH_OK, or
 * MCPH_ERR_INVALID after reporting a tool error: the handler then returns MCPH_OK. */
static int basic_ms_arg(const struct mcph_host *host, struct mcph_call *call, int required,
                        int64_t *ms)
{
    int rc = host->arg_integer(call, "ms", ms);
    if (rc == MCPH_ERR_ABSENT && !required)
        return MCPH_OK;
    if (rc != MCPH_OK) {
        rc = basic_bad_arg(host, call, "ms", "an integer from 0 to 60000", rc);
        return rc == MCPH_OK ? MCPH_ERR_INVALID : rc;
    }
    if (*ms < 0 || *ms > BASIC_MAX_MS) {
        host->tool_error(call, "ms must be from 0 to %d, not %" PRId64, BASIC_MAX_MS, *ms);
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

static void basic_sleep_ms(int64_t ms)
{
    struct timespec left = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
}

static int basic_echo(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *text;

    (void)state;
    int rc = host->arg_string(call, "text", &text);
    if (rc != MCPH_OK)
        return basic_bad_arg(host, call, "text", "a string", rc);
    return host->text(call, text);
}

static int basic_sleep(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    int64_t ms = 0;

    (void)state;
    int rc = basic_ms_arg(host, call, 1, &ms);
    if (rc != MCPH_OK)
        return rc == MCPH_ERR_INVALID ? MCPH_OK : rc;
    basic_sleep_ms(ms);
    return basic_text_owned(host, call, basic_format("slept %" PRId64, ms));
}

/* Raises max_active to at least now. */
static void basic_note_active(struct basic *b, int now)
{
    int seen = atomic_load(&b->max_active);

    while (now > seen) {
        if (atomic_compare_exchange_weak(&b->max_active, &seen, now))
            break;
    }
}

static int basic_overlap(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct basic *b = state;
    int64_t ms = 0;

    int rc = basic_ms_arg(host, call, 0, &ms);
    if (rc != MCPH_OK)
        return rc == MCPH_ERR_INVALID ? MCPH_OK : rc;
    basic_note_active(b, atomic_fetch_add(&b->active, 1) + 1);
    basic_sleep_ms(ms);
    atomic_fetch_sub(&b->active, 1);
    return basic_text_owned(host, call, basic_format("%d", atomic_load(&b->max_active)));
}

static int basic_greet(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct basic *b = state;

    return host->text(call, b->greeting);
}

static int basic_fail(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->tool_error(call, "fail always fails");
}

static int basic_boom(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->error(call, MCPH_ERR, "boom");
}

static int basic_hello(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/plain", "hello world");
}

static int basic_item(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *id;

    (void)state;
    if (host->arg_string(call, "id", &id) != MCPH_OK)
        return host->error(call, MCPH_ERR, "the template variable \"id\" is missing");
    if (strcmp(id, "missing") == 0)
        return host->error(call, MCPH_ERR_NOT_FOUND, "no item %s", id);
    return basic_contents_owned(host, call, basic_format("item %s", id));
}

static int basic_file(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *path;

    (void)state;
    if (host->arg_string(call, "path", &path) != MCPH_OK)
        return host->error(call, MCPH_ERR, "the template variable \"path\" is missing");
    return basic_contents_owned(host, call, basic_format("file %s", path));
}

static int basic_greet_prompt(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *name, *mood;
    char *text;

    (void)state;
    int rc = host->arg_string(call, "name", &name);
    if (rc == MCPH_ERR_ABSENT)
        return host->error(call, MCPH_ERR_INVALID, "the greet prompt needs the argument name");
    if (rc != MCPH_OK)
        return rc;
    if (host->arg_string(call, "mood", &mood) == MCPH_OK && mood[0] != '\0')
        text = basic_format("Greet %s in a %s mood", name, mood);
    else
        text = basic_format("Greet %s", name);

    rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc != MCPH_OK) {
        free(text);
        return rc;
    }
    return basic_text_owned(host, call, text);
}

static int basic_init(const struct mcph_host *host, void **state)
{
    struct basic *b = malloc(sizeof(*b));
    if (!b) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the basic state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    b->greeting = host->config(host, "greeting");
    atomic_init(&b->active, 0);
    atomic_init(&b->max_active, 0);
    *state = b;
    return MCPH_OK;
}

static void basic_shutdown(void *state)
{
    free(state);
}

static const char basic_no_args[] = "{\"type\":\"object\",\"properties\":{},"
                                    "\"additionalProperties\":false}";

static const struct mcph_tool basic_tools[] = {
    {
        .name = "echo",
        .description = "Returns its text.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                        "\"required\":[\"text\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .call = basic_echo,
    },
    {
        .name = "sleep",
        .description = "Sleeps ms milliseconds, then says so.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
                        "\"minimum\":0,\"maximum\":60000}},"
                        "\"required\":[\"ms\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .call = basic_sleep,
    },
    {
        .name = "overlap",
        .description = "Sleeps ms milliseconds; returns the most overlap calls seen at once.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
                        "\"minimum\":0,\"maximum\":60000}},\"additionalProperties\":false}",
        .call = basic_overlap,
    },
    {
        .name = "greet",
        .description = "Returns the configured greeting.",
        .input_schema = basic_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .call = basic_greet,
    },
    {
        .name = "fail",
        .description = "Always fails with a tool error.",
        .input_schema = basic_no_args,
        .call = basic_fail,
    },
    {
        .name = "boom",
        .description = "Always fails with a protocol error.",
        .input_schema = basic_no_args,
        .call = basic_boom,
    },
    {0},
};

static const struct mcph_resource basic_resources[] = {
    {
        .uri = "basic://hello",
        .name = "hello",
        .mime_type = "text/plain",
        .size = 11,
        .read = basic_hello,
    },
    {0},
};

static const struct mcph_resource_template basic_templates[] = {
    {
        .uri_template = "basic://items/{id}",
        .name = "item",
        .mime_type = "text/plain",
        .read = basic_item,
    },
    {
        .uri_template = "basic://files/{+path}",
        .name = "file",
        .mime_type = "text/plain",
        .read = basic_file,
    },
    {0},
};

static const struct mcph_prompt_arg basic_greet_args[] = {
    {.name = "name", .description = "Who to greet", .required = 1},
    {.name = "mood", .description = "The mood to greet in"},
    {0},
};

static const struct mcph_prompt basic_prompts[] = {
    {
        .name = "greet",
        .description = "Asks for a greeting.",
        .arguments = basic_greet_args,
        .get = basic_greet_prompt,
    },
    {0},
};

static const struct mcph_config_key basic_config_keys[] = {
    {.name = "greeting", .description = "What greet returns", .default_value = "hi"},
    {0},
};

static const struct mcph_plugin basic_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "basic",
    .version = "1.0.0",
    .description = "Test plugin: one of everything, not thread-safe",
    .tools = basic_tools,
    .resources = basic_resources,
    .resource_templates = basic_templates,
    .prompts = basic_prompts,
    .config_keys = basic_config_keys,
    .init = basic_init,
    .shutdown = basic_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &basic_plugin;
}
