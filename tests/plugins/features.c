/*
 * features.c: the test plugin for every ABI 1.1 feature, driven through the real server by
 * the transcripts. Thread-safe (it keeps no state at all). It has
 *   - progress (with one lower value that mcph must drop) and cancellation polling, and, with
 *     delay_ms, a plugin that ignores cancellation (progress and sampling after it);
 *   - resource_updated for subscriptions;
 *   - the three questions to the client: sampling, elicitation, roots;
 *   - content annotations and _meta, icons/_meta on a tool row, annotations/icons/_meta on a
 *     resource;
 *   - output schemas that are broken on purpose (wrong type, no structured result) and one
 *     that is kept, and an input schema with many validated keywords;
 *   - completion handlers on a template variable and a prompt argument, and one that offers
 *     more values than one answer may carry;
 *   - a tool that logs at the level it is given.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin-api.h"

#define FEATURES_MANY 150
#define FEATURES_MAX_MS 60000

static const char *const features_fruits[] = {"apple", "apricot", "banana", NULL};

/* A malloc'd printf-style string owned by the caller, or NULL when out of memory. */
static char *features_format(const char *fmt, ...) MCPH_PRINTF(1, 2);
static char *features_format(const char *fmt, ...)
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
static int features_text_owned(const struct mcph_host *host, struct mcph_call *call, char *text)
{
    if (!text)
        return MCPH_ERR_NOMEM;
    int rc = host->text(call, text);
    free(text);
    return rc;
}

static void features_sleep_ms(long ms)
{
    struct timespec left = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
}

static int64_t features_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *features_status_name(int rc)
{
    switch (rc) {
    case MCPH_ERR_UNSUPPORTED:
        return "MCPH_ERR_UNSUPPORTED";
    case MCPH_ERR_TIMEOUT:
        return "MCPH_ERR_TIMEOUT";
    case MCPH_ERR_CANCELLED:
        return "MCPH_ERR_CANCELLED";
    case MCPH_ERR_CLIENT:
        return "MCPH_ERR_CLIENT";
    case MCPH_ERR_INVALID:
        return "MCPH_ERR_INVALID";
    case MCPH_ERR_NOMEM:
        return "MCPH_ERR_NOMEM";
    default:
        return "MCPH_ERR";
    }
}

/* --- Progress and cancellation. --- */

/* Reads the optional "delay_ms" (0 when absent) into *ms. MCPH_OK, or MCPH_ERR_INVALID after
 * reporting a tool error. */
static int features_delay_arg(const struct mcph_host *host, struct mcph_call *call, int64_t *ms)
{
    int rc = host->arg_integer(call, "delay_ms", ms);

    if (rc == MCPH_ERR_ABSENT) {
        *ms = 0;
        return MCPH_OK;
    }
    if (rc != MCPH_OK || *ms < 0 || *ms > FEATURES_MAX_MS) {
        host->tool_error(call, "delay_ms must be an integer from 0 to %d", FEATURES_MAX_MS);
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

/* delay_ms (optional) is slept before each step without polling cancelled(): a plugin that
 * ignores cancellation, whose progress mcph must stop sending once the call is cancelled. */
static int features_progress(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    int64_t steps, delay;
    char message[32];

    (void)state;
    if (host->arg_integer(call, "steps", &steps) != MCPH_OK || steps < 1 || steps > 20)
        return host->tool_error(call, "steps must be an integer from 1 to 20");
    if (features_delay_arg(host, call, &delay) != MCPH_OK)
        return MCPH_OK;
    /* Report, then work: like a real job, there is time between the last report and the
     * result. */
    for (int64_t i = 1; i <= steps; i++) {
        snprintf(message, sizeof(message), "step %" PRId64, i);
        host->progress(call, (double)i, (double)steps, message);
        /* Once, a value below the one just sent: mcph must drop it. */
        if (i == 1)
            host->progress(call, 0.5, (double)steps, "going back");
        features_sleep_ms((long)delay);
    }
    return host->text(call, "done");
}

static int features_wait_cancel(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    int64_t ms;

    (void)state;
    if (host->arg_integer(call, "ms", &ms) != MCPH_OK || ms < 0 || ms > FEATURES_MAX_MS)
        return host->tool_error(call, "ms must be an integer from 0 to %d", FEATURES_MAX_MS);
    int64_t end = features_now_ms() + ms;
    while (!host->cancelled(call) && features_now_ms() < end)
        features_sleep_ms(10);
    return host->text(call, host->cancelled(call) ? "cancelled" : "not cancelled");
}

/* --- Subscriptions. --- */

static int features_touch(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *uri;

    (void)state;
    if (host->arg_string(call, "uri", &uri) != MCPH_OK)
        return host->tool_error(call, "uri must be a string");
    host->resource_updated(host, uri);
    return host->text(call, "touched");
}

/* --- Questions to the client. --- */

/* The answer to a question as the tool's result: the client's JSON as text, or a tool error
 * that says what went wrong. */
static int features_answer(const struct mcph_host *host, struct mcph_call *call, const char *what,
                           int rc, const char *result)
{
    switch (rc) {
    case MCPH_OK:
        return host->text(call, result);
    case MCPH_ERR_UNSUPPORTED:
        return host->tool_error(call, "the client does not support %s", what);
    case MCPH_ERR_TIMEOUT:
        return host->tool_error(call, "the client did not answer the %s request in time", what);
    case MCPH_ERR_CLIENT:
        return host->tool_error(call, "the client refused the %s request: %s", what,
                                result ? result : "(no error object)");
    default:
        return host->tool_error(call, "%s failed: %s", what, features_status_name(rc));
    }
}

/* delay_ms (optional) is slept before asking, without polling cancelled(): a call cancelled
 * meanwhile asks anyway, and mcph must not bother the client with it. */
static int features_sample(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *result = NULL;
    int64_t delay;

    (void)state;
    if (features_delay_arg(host, call, &delay) != MCPH_OK)
        return MCPH_OK;
    features_sleep_ms((long)delay);
    int rc = host->sample(call,
                          "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                          "\"text\":\"hi\"}}],\"maxTokens\":10}",
                          &result);
    return features_answer(host, call, "sampling", rc, result);
}

static int features_elicit(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *result = NULL;

    (void)state;
    int rc = host->elicit(call, "Your name?",
                          "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                          "\"required\":[\"name\"]}",
                          &result);
    return features_answer(host, call, "elicitation", rc, result);
}

static int features_roots(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *result = NULL;

    (void)state;
    int rc = host->roots(call, &result);
    return features_answer(host, call, "roots", rc, result);
}

/* --- Content annotations and _meta. --- */

static int features_annotated(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    int rc = host->text(call, "annotated");
    if (rc == MCPH_OK)
        rc = host->annotate(call, "{\"audience\":[\"user\"],\"priority\":0.5,"
                                  "\"lastModified\":\"2025-01-01T00:00:00Z\"}");
    if (rc == MCPH_OK)
        rc = host->content_meta(call, "{\"k\":\"v\"}");
    return rc;
}

/* --- Output schemas. --- */

static int features_bad_output(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->structured(call, "{\"n\":\"not a number\"}");
}

static int features_no_output(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "no structured result");
}

static int features_good_output(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->structured(call, "{\"n\":42}");
}

/* mcph validated the arguments before calling: echo them so a transcript sees what passed. */
static int features_strict(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *json;

    (void)state;
    int rc = host->args_json(call, &json);
    if (rc != MCPH_OK)
        return rc;
    return host->text(call, json);
}

/* --- Logging. --- */

static int features_log(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    static const char *const names[] = {"debug",    "info",  "notice",    "warning", "error",
                                        "critical", "alert", "emergency", NULL};
    const char *level, *text;

    (void)state;
    if (host->arg_string(call, "level", &level) != MCPH_OK ||
        host->arg_string(call, "text", &text) != MCPH_OK)
        return host->tool_error(call, "level and text must be strings");
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(names[i], level) == 0) {
            host->log(host, (enum mcph_log_level)i, "%s", text);
            return host->text(call, "logged");
        }
    }
    return host->tool_error(call, "no log level \"%s\"", level);
}

/* --- Resources. --- */

static int features_doc(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/plain", "the features doc");
}

static int features_item(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *id;

    (void)state;
    if (host->arg_string(call, "id", &id) != MCPH_OK)
        return host->error(call, MCPH_ERR, "the template variable \"id\" is missing");
    char *text = features_format("item %s", id);
    if (!text)
        return MCPH_ERR_NOMEM;
    int rc = host->contents_text(call, NULL, "text/plain", text);
    free(text);
    return rc;
}

/* --- Completions. --- */

/* Reads the argument being completed and what the user typed so far. */
static int features_completing(const struct mcph_host *host, struct mcph_call *call,
                               const char **argument, const char **value)
{
    int rc = host->arg_string(call, "argument", argument);
    if (rc == MCPH_OK)
        rc = host->arg_string(call, "value", value);
    return rc == MCPH_OK ? MCPH_OK : host->error(call, MCPH_ERR, "no argument or value");
}

static int features_offer_fruits(const struct mcph_host *host, struct mcph_call *call,
                                 const char *prefix)
{
    for (int i = 0; features_fruits[i] != NULL; i++) {
        if (strncmp(features_fruits[i], prefix, strlen(prefix)) != 0)
            continue;
        int rc = host->completion(call, features_fruits[i]);
        if (rc != MCPH_OK)
            return rc;
    }
    return MCPH_OK;
}

/* features://items/{id}: ids are fruit names. */
static int features_complete_item(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *argument, *value;

    (void)state;
    int rc = features_completing(host, call, &argument, &value);
    if (rc != MCPH_OK || strcmp(argument, "id") != 0)
        return rc;
    return features_offer_fruits(host, call, value);
}

/* pick: fruit is completed from the list; size offers two values, plus the context the
 * client sent (as JSON), so a transcript can see that the context reaches the handler. */
static int features_complete_pick(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *argument, *value, *context;

    (void)state;
    int rc = features_completing(host, call, &argument, &value);
    if (rc != MCPH_OK)
        return rc;
    if (strcmp(argument, "fruit") == 0)
        return features_offer_fruits(host, call, value);
    if (strcmp(argument, "size") != 0)
        return MCPH_OK;
    rc = host->completion(call, "small");
    if (rc == MCPH_OK)
        rc = host->completion(call, "large");
    if (rc == MCPH_OK && host->arg_json(call, "context", &context) == MCPH_OK)
        rc = host->completion(call, context);
    return rc;
}

/* many: "v000" to "v149", filtered by prefix: more than one answer carries. */
static int features_complete_many(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *argument, *value;
    char v[16];

    (void)state;
    int rc = features_completing(host, call, &argument, &value);
    for (int i = 0; rc == MCPH_OK && i < FEATURES_MANY; i++) {
        snprintf(v, sizeof(v), "v%03d", i);
        if (strncmp(v, value, strlen(value)) == 0)
            rc = host->completion(call, v);
    }
    return rc;
}

/* --- Prompts. --- */

static int features_pick(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *fruit;

    (void)state;
    int rc = host->arg_string(call, "fruit", &fruit);
    if (rc == MCPH_ERR_ABSENT)
        return host->error(call, MCPH_ERR_INVALID, "pick needs the argument fruit");
    if (rc != MCPH_OK)
        return rc;
    rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc != MCPH_OK)
        return rc;
    rc = features_text_owned(host, call, features_format("I pick %s", fruit));
    if (rc != MCPH_OK)
        return rc;
    /* A prompt message's content takes annotations too. */
    return host->annotate(call, "{\"priority\":1}");
}

static int features_many(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *n;

    (void)state;
    if (host->arg_string(call, "n", &n) != MCPH_OK)
        n = "none";
    int rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc != MCPH_OK)
        return rc;
    return features_text_owned(host, call, features_format("many %s", n));
}

/* --- The descriptor. --- */

static const char features_no_args[] = "{\"type\":\"object\",\"properties\":{},"
                                       "\"additionalProperties\":false}";

static const char features_n_schema[] =
    "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";

static const struct mcph_tool features_tools[] = {
    {
        .name = "progress",
        .description = "Reports progress 1..steps (delay_ms before each), then says done.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\","
                        "\"minimum\":1,\"maximum\":20},"
                        "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000}},"
                        "\"required\":[\"steps\"],\"additionalProperties\":false}",
        .call = features_progress,
    },
    {
        .name = "wait_cancel",
        .description = "Waits up to ms milliseconds for the call to be cancelled.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
                        "\"minimum\":0,\"maximum\":60000}},"
                        "\"required\":[\"ms\"],\"additionalProperties\":false}",
        .call = features_wait_cancel,
    },
    {
        .name = "touch",
        .description = "Tells subscribers that uri changed.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\"}},"
                        "\"required\":[\"uri\"],\"additionalProperties\":false}",
        .call = features_touch,
    },
    {
        .name = "sample",
        .description = "Asks the client's model to say something (after delay_ms).",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"delay_ms\":{\"type\":"
                        "\"integer\",\"minimum\":0,\"maximum\":5000}},"
                        "\"additionalProperties\":false}",
        .call = features_sample,
    },
    {
        .name = "elicit",
        .description = "Asks the user for a name.",
        .input_schema = features_no_args,
        .call = features_elicit,
    },
    {
        .name = "roots",
        .description = "Asks the client for its roots.",
        .input_schema = features_no_args,
        .call = features_roots,
    },
    {
        .name = "annotated",
        .title = "Annotated",
        .description = "Returns a text item with annotations and _meta.",
        .input_schema = features_no_args,
        .call = features_annotated,
        .icons = "[{\"src\":\"https://example.com/tool.png\",\"mimeType\":\"image/png\","
                 "\"sizes\":[\"48x48\"]}]",
        .meta = "{\"example.com/tool\":true}",
    },
    {
        .name = "bad_output",
        .description = "Breaks its own output schema: n is not an integer.",
        .input_schema = features_no_args,
        .output_schema = features_n_schema,
        .call = features_bad_output,
    },
    {
        .name = "no_output",
        .description = "Declares an output schema but gives only text.",
        .input_schema = features_no_args,
        .output_schema = features_n_schema,
        .call = features_no_output,
    },
    {
        .name = "good_output",
        .description = "Keeps its output schema.",
        .input_schema = features_no_args,
        .output_schema = features_n_schema,
        .call = features_good_output,
    },
    {
        .name = "strict",
        .description = "Echoes its arguments, which mcph validated on the way in.",
        .input_schema =
            "{\"type\":\"object\","
            "\"$defs\":{\"color\":{\"type\":\"string\",\"enum\":[\"red\",\"green\",\"blue\"]}},"
            "\"properties\":{"
            "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10},"
            "\"name\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\",\"maxLength\":8},"
            "\"label\":{\"type\":\"string\",\"maxLength\":3},"
            "\"mode\":{\"enum\":[\"fast\",\"slow\"]},"
            "\"colors\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/color\"},"
            "\"minItems\":1}},"
            "\"required\":[\"count\",\"name\"],\"additionalProperties\":false}",
        .call = features_strict,
    },
    {
        .name = "log",
        .description = "Logs text at level through host->log.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"level\":{\"type\":\"string\"},"
                        "\"text\":{\"type\":\"string\"}},"
                        "\"required\":[\"level\",\"text\"],\"additionalProperties\":false}",
        .call = features_log,
    },
    {0},
};

static const struct mcph_resource features_resources[] = {
    {
        .uri = "features://doc",
        .name = "doc",
        .title = "Features doc",
        .mime_type = "text/plain",
        .read = features_doc,
        .annotations = "{\"audience\":[\"assistant\"],\"priority\":1,"
                       "\"lastModified\":\"2025-01-01T00:00:00Z\"}",
        .icons = "[{\"src\":\"https://example.com/i.png\",\"mimeType\":\"image/png\"}]",
        .meta = "{\"example.com/doc\":1}",
    },
    {0},
};

static const struct mcph_resource_template features_templates[] = {
    {
        .uri_template = "features://items/{id}",
        .name = "item",
        .mime_type = "text/plain",
        .read = features_item,
        .annotations = "{\"audience\":[\"user\"]}",
        .complete = features_complete_item,
    },
    {0},
};

static const struct mcph_prompt_arg features_pick_args[] = {
    {.name = "fruit", .description = "The fruit", .required = 1},
    {.name = "size", .description = "How big"},
    {0},
};

static const struct mcph_prompt_arg features_many_args[] = {
    {.name = "n", .description = "One of many values"},
    {0},
};

static const struct mcph_prompt features_prompts[] = {
    {
        .name = "pick",
        .description = "Picks a fruit.",
        .arguments = features_pick_args,
        .get = features_pick,
        .icons = "[{\"src\":\"https://example.com/pick.png\"}]",
        .meta = "{\"example.com/pick\":\"yes\"}",
        .complete = features_complete_pick,
    },
    {
        .name = "many",
        .description = "Has more completions than one answer carries.",
        .arguments = features_many_args,
        .get = features_many,
        .complete = features_complete_many,
    },
    {0},
};

static const struct mcph_plugin features_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "features",
    .version = "1.1.0",
    .description = "Test plugin: every ABI 1.1 feature, thread-safe",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = features_tools,
    .resources = features_resources,
    .resource_templates = features_templates,
    .prompts = features_prompts,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &features_plugin;
}
