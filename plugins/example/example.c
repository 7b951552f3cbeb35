/*
 * example.c: the example plugin, a small tour of the whole mcph plugin ABI.
 *
 * It is also the template for new plugins: copy this folder to plugins/<name>/, rename, and
 * delete what you do not need. It shows
 *   - a config key with a default, read once in init() into per-instance state;
 *   - tools returning each content type (text, image, audio, resource link, embedded
 *     resources), a structured result with an output schema, and a tool error;
 *   - a fixed resource and a resource template;
 *   - a prompt with a required and an optional argument.
 *
 * Everything is static except mcph_plugin_entry(): the descriptor and its tables are
 * static const data, which mcph copies at load time, so nothing here has to outlive a call.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-api.h"

/* Kept in a macro so the resource row can announce its exact size at compile time. */
#define EXAMPLE_README                                                                             \
    "# The example plugin\n"                                                                       \
    "\n"                                                                                           \
    "A tour of the mcph plugin ABI: tools for every content type, this resource,\n"                \
    "the `example://greeting/{name}` template and the `review` prompt.\n"

#define EXAMPLE_README_URI "example://readme"

/*
 * The instance state, created by init() and handed to every handler. Handlers only read it,
 * which is what lets the descriptor claim MCPH_PLUGIN_THREAD_SAFE: a plugin that updates
 * its state from handlers needs a lock or atomics before it may set that flag.
 */
struct example {
    /* Borrowed from host->config(): mcph keeps it valid until shutdown() returns, which
     * outlives every handler, so there is nothing to copy. (Argument strings are different:
     * they die when the handler returns, and must be copied to be kept.) */
    const char *greeting;
};

/* A 2x2 RGB PNG (red, green / blue, white), small enough to embed as bytes. */
static const unsigned char example_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd,
    0xd4, 0x9a, 0x73, 0x00, 0x00, 0x00, 0x12, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8,
    0xcf, 0xc0, 0xc0, 0x00, 0xc2, 0x0c, 0xff, 0x81, 0x00, 0x00, 0x1f, 0xee, 0x05, 0xfb, 0xf1,
    0xab, 0xba, 0x77, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

/* A WAV file: the 44-byte RIFF header, then 8 samples of 8-bit mono at 8000 Hz. The rows
 * follow the header's fields, so the formatter is told to keep them. */
/* clang-format off */
static const unsigned char example_wav[] = {
    'R', 'I', 'F', 'F', 44, 0, 0, 0,            /* RIFF chunk: 36 + data bytes */
    'W', 'A', 'V', 'E',
    'f', 'm', 't', ' ', 16, 0, 0, 0,            /* fmt chunk: 16 bytes */
    1, 0, 1, 0,                                 /* PCM, 1 channel */
    0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0,         /* 8000 Hz, 8000 bytes per second */
    1, 0, 8, 0,                                 /* 1 byte per frame, 8 bits per sample */
    'd', 'a', 't', 'a', 8, 0, 0, 0,             /* data chunk: 8 bytes */
    0x80, 0xa0, 0xb0, 0xa0, 0x80, 0x60, 0x50, 0x60, /* one cycle of a coarse sine */
};
/* clang-format on */

/* Arbitrary bytes for the embedded binary resource. */
static const unsigned char example_bytes[] = {0x00, 0x01, 0x02, 0x03, 0xfe, 0xff};

/* Returns a malloc'd string formatted like printf, owned by the caller, or NULL when out
 * of memory. Sinks copy their input, so the caller frees it right after handing it over. */
static char *example_format(const char *fmt, ...) MCPH_PRINTF(1, 2);
static char *example_format(const char *fmt, ...)
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

/*
 * What a tool handler returns when an argument accessor did not give MCPH_OK. A missing or
 * mistyped argument is a tool error, not a protocol error: the model sees tool errors and
 * can retry with a corrected call (MCP 2025-11-25, SEP-1303). Anything else (out of memory)
 * is passed on as the protocol error it is.
 */
static int example_bad_arg(const struct mcph_host *host, struct mcph_call *call, const char *name,
                           const char *type, int rc)
{
    if (rc == MCPH_ERR_ABSENT)
        return host->tool_error(call, "missing the argument \"%s\" (%s)", name, type);
    if (rc == MCPH_ERR_TYPE)
        return host->tool_error(call, "the argument \"%s\" must be %s", name, type);
    return rc;
}

/* Writes n as the shortest decimal that reads back as n: what a person expects to see, and a
 * valid JSON number since n is finite. */
static void example_format_number(char *buf, size_t size, double n)
{
    snprintf(buf, size, "%.15g", n);
    if (strtod(buf, NULL) != n)
        snprintf(buf, size, "%.17g", n);
}

/* --- Tools. Each handler returns MCPH_OK once it has produced a result (even a tool
 * error), or the negative status of a sink that failed. --- */

static int example_echo(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *text;

    (void)state;
    int rc = host->arg_string(call, "text", &text);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "text", "a string", rc);
    return host->text(call, text);
}

static int example_greet(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct example *ex = state;
    const char *name;

    int rc = host->arg_string(call, "name", &name);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "name", "a string", rc);

    char *text = example_format("%s, %s!", ex->greeting, name);
    if (!text)
        return MCPH_ERR_NOMEM;
    rc = host->text(call, text);
    free(text);
    return rc;
}

/* The text item is for people and older clients; the structured result, which matches the
 * tool's output_schema, is for programs. Without the text item mcph would mirror the JSON as
 * text for clients older than 2025-06-18. */
static int example_add(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    double a, b;
    char sum[32], json[64];

    (void)state;
    int rc = host->arg_number(call, "a", &a);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "a", "a number", rc);
    rc = host->arg_number(call, "b", &b);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "b", "a number", rc);
    if (!isfinite(a + b))
        return host->tool_error(call, "%g + %g is too large for a JSON number", a, b);

    example_format_number(sum, sizeof(sum), a + b);
    snprintf(json, sizeof(json), "{\"sum\":%s}", sum);
    rc = host->text(call, sum);
    if (rc != MCPH_OK)
        return rc;
    return host->structured(call, json);
}

/* Binary content is handed over raw: mcph does the base64. */
static int example_image(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->image(call, example_png, sizeof(example_png), "image/png");
}

/* Clients older than 2025-03-26 have no audio content; mcph sends them a text item saying
 * what was left out, so the handler never needs to know the client's revision. */
static int example_audio(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->audio(call, example_wav, sizeof(example_wav), "audio/wav");
}

/* A link lets the client fetch the resource when it wants to, instead of receiving it now. */
static int example_link(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->resource_link(call, EXAMPLE_README_URI, "readme", "text/markdown",
                               "The example plugin's readme");
}

/* Embedded resources carry their contents inline. The URI names the contents; it need not
 * be one of the plugin's listed resources (example://bytes is not). */
static int example_embed(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    int rc = host->embedded_text(call, EXAMPLE_README_URI, "text/markdown", EXAMPLE_README);
    if (rc != MCPH_OK)
        return rc;
    return host->embedded_blob(call, "example://bytes", "application/octet-stream", example_bytes,
                               sizeof(example_bytes));
}

/* A tool that ran and failed reports a tool error: the result is marked isError and the
 * model reads the message. A negative status would instead be a JSON-RPC error, which
 * clients usually show to nobody but the developer. */
static int example_fail(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->tool_error(call, "the fail tool always fails: it demonstrates a tool error");
}

/* --- Resources. --- */

/* uri NULL: the contents belong to the URI being read. */
static int example_readme(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/markdown", EXAMPLE_README);
}

/* The template's variables are read like arguments. mcph only calls this handler for a URI
 * that matched the template, so {name} is always there. */
static int example_greeting(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct example *ex = state;
    const char *name;

    int rc = host->arg_string(call, "name", &name);
    if (rc != MCPH_OK)
        return host->error(call, MCPH_ERR, "the template variable \"name\" is missing");

    char *text = example_format("%s, %s!", ex->greeting, name);
    if (!text)
        return MCPH_ERR_NOMEM;
    rc = host->contents_text(call, NULL, "text/plain", text);
    free(text);
    return rc;
}

/* --- Prompts. --- */

/* Returns the user's request as a malloc'd string owned by the caller, or NULL when out of
 * memory. language may be NULL. */
static char *example_review_request(const char *code, const char *language)
{
    if (language)
        return example_format("Please review this %s code:\n\n```%s\n%s\n```\n", language, language,
                              code);
    return example_format("Please review this code:\n\n```\n%s\n```\n", code);
}

/* prompt_message() starts a message with a role; the content sink after it fills it. */
static int example_review_messages(const struct mcph_host *host, struct mcph_call *call,
                                   const char *request)
{
    int rc = host->prompt_description(call, "Ask for a review of a piece of code");
    if (rc == MCPH_OK)
        rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc == MCPH_OK)
        rc = host->text(call, request);
    if (rc == MCPH_OK)
        rc = host->prompt_message(call, MCPH_ROLE_ASSISTANT);
    if (rc == MCPH_OK)
        rc = host->text(call, "I will review it for correctness, clarity and style.");
    return rc;
}

static int example_review(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *code, *language;

    (void)state;
    /* mcph refuses a get that lacks a required argument before calling us; checking anyway
     * keeps the handler correct if the table and the code drift apart. Unlike a tool, a
     * prompt has no error result, so a bad request is a protocol error. */
    int rc = host->arg_string(call, "code", &code);
    if (rc == MCPH_ERR_ABSENT)
        return host->error(call, MCPH_ERR_INVALID, "the review prompt needs the argument code");
    if (rc != MCPH_OK)
        return rc;
    rc = host->arg_string(call, "language", &language);
    if (rc == MCPH_ERR_ABSENT || (rc == MCPH_OK && language[0] == '\0'))
        language = NULL;
    else if (rc != MCPH_OK)
        return rc;

    char *request = example_review_request(code, language);
    if (!request)
        return MCPH_ERR_NOMEM;
    rc = example_review_messages(host, call, request);
    free(request);
    return rc;
}

/* --- Lifecycle. --- */

/* Reads the config once, on the main thread, so handlers never look it up. */
static int example_init(const struct mcph_host *host, void **state)
{
    struct example *ex = malloc(sizeof(*ex));
    if (!ex) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the example state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    /* Never NULL: the key has a default value. */
    ex->greeting = host->config(host, "greeting");
    host->log(host, MCPH_LOG_DEBUG, "greeting is \"%s\"", ex->greeting);
    *state = ex;
    return MCPH_OK;
}

/* Runs after the last handler returned; the next init() starts from scratch. */
static void example_shutdown(void *state)
{
    free(state);
}

/* --- The descriptor. mcph copies every string at load time. --- */

static const char example_no_args[] = "{\"type\":\"object\",\"properties\":{},"
                                      "\"additionalProperties\":false}";

static const struct mcph_tool example_tools[] = {
    {
        .name = "echo",
        .title = "Echo",
        .description = "Returns the text it is given.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                        "\"description\":\"The text to send back\"}},"
                        "\"required\":[\"text\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_echo,
    },
    {
        .name = "greet",
        .title = "Greet",
        .description = "Greets someone by name, with the configured greeting.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
                        "\"description\":\"Who to greet\"}},"
                        "\"required\":[\"name\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_greet,
    },
    {
        .name = "add",
        .title = "Add",
        .description = "Adds two numbers; the sum is also given as a structured result.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"a\":{\"type\":\"number\",\"description\":\"The first addend\"},"
                        "\"b\":{\"type\":\"number\",\"description\":\"The second addend\"}},"
                        "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},"
                         "\"required\":[\"sum\"]}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_add,
    },
    {
        .name = "image",
        .title = "Image",
        .description = "Returns a 2x2 PNG image.",
        .input_schema = example_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_image,
    },
    {
        .name = "audio",
        .title = "Audio",
        .description = "Returns a one-millisecond WAV sound.",
        .input_schema = example_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_audio,
    },
    {
        .name = "link",
        .title = "Link",
        .description = "Returns a link to the example://readme resource.",
        .input_schema = example_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_link,
    },
    {
        .name = "embed",
        .title = "Embed",
        .description = "Returns the readme and a few bytes as embedded resources.",
        .input_schema = example_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_embed,
    },
    {
        .name = "fail",
        .title = "Fail",
        .description = "Always fails, to show what a tool error looks like.",
        .input_schema = example_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_fail,
    },
    {0},
};

static const struct mcph_resource example_resources[] = {
    {
        .uri = EXAMPLE_README_URI,
        .name = "readme",
        .title = "Example readme",
        .description = "What the example plugin shows.",
        .mime_type = "text/markdown",
        .size = sizeof(EXAMPLE_README) - 1,
        .read = example_readme,
    },
    {0},
};

/* {name} matches one path segment: example://greeting/Ada, not example://greeting/a/b. */
static const struct mcph_resource_template example_templates[] = {
    {
        .uri_template = "example://greeting/{name}",
        .name = "greeting",
        .title = "Greeting",
        .description = "A greeting for {name}, with the configured greeting.",
        .mime_type = "text/plain",
        .read = example_greeting,
    },
    {0},
};

static const struct mcph_prompt_arg example_review_args[] = {
    {.name = "code", .title = "Code", .description = "The code to review", .required = 1},
    {.name = "language", .title = "Language", .description = "The code's language, if known"},
    {0},
};

static const struct mcph_prompt example_prompts[] = {
    {
        .name = "review",
        .title = "Code review",
        .description = "Asks for a review of a piece of code.",
        .arguments = example_review_args,
        .get = example_review,
    },
    {0},
};

/* Every key a plugin reads must be declared: mcph refuses unknown keys in the INI. */
static const struct mcph_config_key example_config_keys[] = {
    {
        .name = "greeting",
        .description = "How greet and the greeting template say hello",
        .default_value = "Hello",
    },
    {0},
};

/* Handlers only read the state init() made, so calls may run in parallel. */
static const struct mcph_plugin example_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "example",
    .version = "1.0.0",
    .description = "A tour of the mcph plugin ABI",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = example_tools,
    .resources = example_resources,
    .resource_templates = example_templates,
    .prompts = example_prompts,
    .config_keys = example_config_keys,
    .init = example_init,
    .shutdown = example_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &example_plugin;
}
