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
 * and, since ABI 1.1,
 *   - a long-running tool that reports progress and stops when the client cancels (count);
 *   - tools that ask the client: the user (confirm, elicitation), the client's model
 *     (ask_model, sampling) and the client's roots (roots), each a tool error when the
 *     client cannot be asked;
 *   - completions for a prompt argument and a template variable;
 *   - a resource that changes, with an update notification for subscribed clients (note);
 *   - annotations and _meta on a content item, annotations on a resource, icons and _meta
 *     on a tool.
 * and, since ABI 1.2,
 *   - tools defined at init from the config (one per line of the multi-line key
 *     `shortcuts`), all served by one handler that asks host->call_name() which it serves;
 *   - a resource defined at init for a file named by a path-valued key (`notes_file`, read
 *     with host->config_path(), so relative to the INI file), whose listed size is made anew
 *     when the instance is rebuilt: by a reload, or by the `rescan` tool (host->refresh()).
 * and, since ABI 1.3 (what a plugin that relays another server needs),
 *   - a tool that answers with a whole MCP result given as JSON, and sends the client a log
 *     message of its own (relay: host->result_json(), host->client_log());
 *   - the note kept when the instance is rebuilt (MCPH_PLUGIN_TAKE_OVER: the new init copies
 *     it from host->predecessor());
 *   - hearing which resources clients follow (the descriptor's subscribe()).
 * and, since ABI 1.4,
 *   - a question with a name of its own: ask_model's question to the client's model goes
 *     under "model_reply" in a 2026-07-28 input_required result, and its answer comes back
 *     under that key (host->ask_key()), where an unnamed one goes under ask-1.
 * and, since ABI 1.5,
 *   - who is asking: confirm logs (at debug level) the origin of the request it serves, the
 *     same text in the first run and in the retry that brings the user's answer, another for
 *     any other request (host->call_origin()), which is what a plugin keys by when it keeps
 *     something for a call that comes back;
 *   - its paragraph of the server's instructions, given at init (host->instructions()): how
 *     to use its tools, naming the shortcuts when the config defines some, so made anew by
 *     every rebuild.
 * and, since ABI 1.6,
 *   - the call's trace context: count logs (at debug level) the traceparent that work it
 *     did elsewhere would carry to join the client's trace (host->trace_context()).
 * and, since ABI 1.7,
 *   - a text kept with the call across the client's retry: confirm keeps the action it asks
 *     about, and the run serving the retry logs (at debug level) what came back
 *     (host->keep(), host->kept()), as a plugin relaying a server keeps that server's state.
 * Strings and JSON (sampling's params) are built with the header-only mcph-strbuf.h.
 *
 * Everything is static except mcph_plugin_entry(): the descriptor and its tables are
 * static const data, which mcph copies at load time, so nothing here has to outlive a call.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, outside the mcph tree's -D_GNU_SOURCE too */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

/* Kept in a macro so the resource row can announce its exact size at compile time. */
#define EXAMPLE_README                                                                             \
    "# The example plugin\n"                                                                       \
    "\n"                                                                                           \
    "A tour of the mcph plugin ABI: tools for every content type, this resource,\n"                \
    "the `example://greeting/{name}` template and the `review` prompt.\n"

#define EXAMPLE_README_URI "example://readme"
#define EXAMPLE_NOTE_URI "example://note"

/*
 * The instance state, created by init() and handed to every handler. The descriptor claims
 * MCPH_PLUGIN_THREAD_SAFE, so handlers may run on several threads at once: what they only
 * read needs nothing, and the one thing they change, the note, has a lock.
 */
struct example {
    /* Borrowed from host->config(): mcph keeps it valid until shutdown() returns, which
     * outlives every handler, so there is nothing to copy. (Argument strings are different:
     * they die when the handler returns, and must be copied to be kept.) */
    const char *greeting;
    pthread_mutex_t lock; /* guards note */
    char *note;           /* owned; what set_note stored last, NULL before */
    /* Since 1.2: the shortcut tools defined at init, and the notes file's path (borrowed
     * from host->config_path(), valid until shutdown() returns), or NULL. */
    struct example_shortcut *shortcuts; /* owned */
    size_t nshortcuts;
    const char *notes_file;
};

/* One line of `shortcuts`: "NAME: text". */
struct example_shortcut {
    char *name; /* owned */
    char *text; /* owned */
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
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    mcph_sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    return mcph_sb_detach(&sb, NULL); /* NULL when the add failed */
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

static void example_sleep_ms(int64_t ms)
{
    struct timespec left = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
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
 * be one of the plugin's listed resources (example://bytes is not).
 * annotate() and content_meta() apply to the item added last. Annotations tell the client
 * who the item is for and how much it matters (here: context for the model, not something
 * to show the user); _meta is free-form data for clients that know the key. mcph leaves out
 * what the client's revision lacks (lastModified and _meta before 2025-06-18). */
static int example_embed(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    int rc = host->embedded_text(call, EXAMPLE_README_URI, "text/markdown", EXAMPLE_README);
    if (rc == MCPH_OK)
        rc = host->annotate(call, "{\"audience\":[\"assistant\"],\"priority\":0.8}");
    if (rc == MCPH_OK)
        rc = host->content_meta(call, "{\"example.com/source\":\"readme\"}");
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

/*
 * A long-running tool. progress() is cheap to call: mcph sends notifications/progress only
 * to a client that asked for them (with a progress token), and drops a value lower than the
 * last one. Polling cancelled() between steps frees the worker as soon as the client gives
 * up; mcph sends no answer for a cancelled call, so what the handler returns then is unused.
 */
static int example_count(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    int64_t to, delay_ms = 100;
    char message[64];

    (void)state;
    int rc = host->arg_integer(call, "to", &to);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "to", "an integer", rc);
    rc = host->arg_integer(call, "delay_ms", &delay_ms);
    if (rc != MCPH_OK && rc != MCPH_ERR_ABSENT)
        return example_bad_arg(host, call, "delay_ms", "an integer", rc);
    /* The input schema says the same; mcph checked it, but the handler does not rely on it. */
    if (to < 1 || to > 100 || delay_ms < 0 || delay_ms > 1000)
        return host->tool_error(call, "to must be 1 to 100 and delay_ms 0 to 1000");
    /* Work done elsewhere for this call (an HTTP request, another server) joins the client's
     * trace by carrying this traceparent (since 1.6); mcph's own line says trace=ID. */
    host->log(host, MCPH_LOG_DEBUG, "count: traceparent %s", host->trace_context(call, NULL));

    for (int64_t i = 1; i <= to; i++) {
        /* The work of one step, polling every 50 ms: mcph gives a cancelled call a few
         * seconds at shutdown and at the end of input before it exits without it. */
        for (int64_t left = delay_ms; left > 0 && !host->cancelled(call); left -= 50)
            example_sleep_ms(left < 50 ? left : 50);
        if (host->cancelled(call))
            return host->tool_error(call, "cancelled at %" PRId64, i);
        snprintf(message, sizeof(message), "counted to %" PRId64, i);
        host->progress(call, (double)i, (double)to, message);
    }
    snprintf(message, sizeof(message), "counted to %" PRId64, to);
    return host->text(call, message);
}

/*
 * What a tool that asked the client makes of the answer. The same handler serves every
 * client: one that did not declare the capability (or whose protocol revision lacks it)
 * gets MCPH_ERR_UNSUPPORTED at once, with nothing sent, and the tool says so in a tool error
 * the model can read. The answer is JSON text (a real plugin parses it with its JSON library;
 * the tour passes it on).
 */
static int example_answer(const struct mcph_host *host, struct mcph_call *call, const char *what,
                          int rc, const char *answer)
{
    switch (rc) {
    case MCPH_OK:
        return host->text(call, answer);
    case MCPH_ERR_UNSUPPORTED:
        return host->tool_error(call, "this client does not support %s", what);
    case MCPH_ERR_TIMEOUT:
        return host->tool_error(call, "the client did not answer the %s request in time", what);
    case MCPH_ERR_CLIENT: /* answer is the JSON-RPC error object */
        return host->tool_error(call, "the client refused the %s request: %s", what, answer);
    case MCPH_ERR_CANCELLED: /* the call was cancelled: nobody reads this */
        return host->tool_error(call, "cancelled");
    default:
        return rc;
    }
}

/* Elicitation: ask the user, through the client, for values described by a flat schema. */
static int example_confirm(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *action, *answer = NULL;

    (void)state;
    int rc = host->arg_string(call, "action", &action);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "action", "a string", rc);
    char *question = example_format("Go ahead and %s?", action);
    if (!question)
        return MCPH_ERR_NOMEM;
    /* Under 2026-07-28 this runs twice for one request (the question, then the retry with the
     * answer), and both runs log the same origin; two clients confirming the same action at
     * once log two (since 1.5). */
    host->log(host, MCPH_LOG_DEBUG, "confirm: asking for request %s", host->call_origin(call));
    /* Kept in the input_required result's requestState, given back by the retry (since 1.7);
     * kept before asking, as keeping starts a new round of questions. */
    if (host->kept(call) != NULL)
        host->log(host, MCPH_LOG_DEBUG, "confirm: the retry brought back \"%s\"", host->kept(call));
    else if (host->keep(call, action) != MCPH_OK)
        host->log(host, MCPH_LOG_DEBUG, "confirm: the action is too long to keep with the call");
    rc = host->elicit(call, question,
                      "{\"type\":\"object\",\"properties\":{\"confirm\":{\"type\":\"boolean\","
                      "\"title\":\"Confirm\"}},\"required\":[\"confirm\"]}",
                      &answer);
    free(question);
    return example_answer(host, call, "elicitation", rc, answer);
}

/* Sampling: ask the client's model. The params are sampling/createMessage's, as JSON, so the
 * user's text must be escaped into it. Under 2026-07-28 the question is not a request but an
 * entry of the input_required result, under the name given it here (since 1.4); a legacy
 * client gets a request, and the name does nothing. */
static int example_ask_model(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *question, *answer = NULL;

    (void)state;
    int rc = host->arg_string(call, "question", &question);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "question", "a string", rc);
    struct mcph_strbuf params = MCPH_STRBUF_INIT;
    mcph_sb_addstr(&params, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":"
                            "\"text\",\"text\":");
    mcph_sb_addjson(&params, question, strlen(question)); /* escaped, always valid JSON */
    mcph_sb_addstr(&params, "}}],\"maxTokens\":200}");
    if (params.nomem) { /* one check covers every add above */
        mcph_sb_release(&params);
        return MCPH_ERR_NOMEM;
    }
    /* A valid name, given once per call: it cannot be refused. */
    host->ask_key(call, "model_reply");
    rc = host->sample(call, params.buf, &answer);
    mcph_sb_release(&params);
    return example_answer(host, call, "sampling", rc, answer);
}

/* Roots: the folders or files the client lets the server work on. */
static int example_roots(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *answer = NULL;

    (void)state;
    int rc = host->roots(call, &answer);
    return example_answer(host, call, "roots", rc, answer);
}

/* Changes the note resource, then tells subscribed clients (resources/updated) so they can
 * read it again. resource_updated() may be called from any thread; mcph sends it only to a
 * client that subscribed to that URI. */
static int example_set_note(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct example *ex = state;
    const char *text;

    int rc = host->arg_string(call, "text", &text);
    if (rc != MCPH_OK)
        return example_bad_arg(host, call, "text", "a string", rc);
    char *copy = strdup(text); /* text dies with the call; the note outlives it */
    if (!copy)
        return MCPH_ERR_NOMEM;
    pthread_mutex_lock(&ex->lock);
    free(ex->note);
    ex->note = copy;
    pthread_mutex_unlock(&ex->lock);
    host->resource_updated(host, EXAMPLE_NOTE_URI);
    return host->text(call, "noted");
}

/* --- Since 1.2: definitions made at init. --- */

/* Every shortcut tool runs this handler; call_name() says which one was called (the name as
 * defined, without the INI prefix). The table is only read after init, so no lock. */
static int example_shortcut(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct example *ex = state;
    const char *name = host->call_name(call);

    for (size_t i = 0; name != NULL && i < ex->nshortcuts; i++) {
        if (strcmp(ex->shortcuts[i].name, name) == 0)
            return host->text(call, ex->shortcuts[i].text);
    }
    return host->error(call, MCPH_ERR, "no shortcut named %s", name ? name : "(none)");
}

/* The instance is built again with the same config: init defines its rows anew, so the notes
 * file's size (and the shortcuts) are read again; clients hear list_changed for what changed. */
static int example_rescan(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->refresh(host);
    return host->text(call, "rescan requested");
}

/* --- Since 1.3: relaying. --- */

/* A proxy hands back what another server answered, whole: here the result comes from the
 * arguments. mcph keeps of it what the client's revision carries, as for the sinks. */
static int example_relay(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *result = NULL, *log = NULL;
    int rc;

    (void)state;
    if (host->arg_string(call, "log", &log) == MCPH_OK) {
        struct mcph_strbuf data = MCPH_STRBUF_INIT;

        mcph_sb_addjson(&data, log, strlen(log));
        host->client_log(host, MCPH_LOG_INFO, NULL, data.buf);
        mcph_sb_release(&data);
    }
    if (host->arg_string(call, "result", &result) != MCPH_OK)
        return host->tool_error(call, "result must be a string");
    rc = host->result_json(call, result);
    if (rc == MCPH_ERR_INVALID)
        return host->tool_error(call, "result is not a CallToolResult in JSON");
    return rc;
}

/* Clients began or ceased to follow one of this instance's resources. A plugin whose
 * resources change elsewhere would pass this on; the note changes here, so it only says it. */
static void example_subscribe(const struct mcph_host *host, void *state, const char *uri, int on)
{
    (void)state;
    host->log(host, MCPH_LOG_DEBUG, "%s %s", on ? "clients follow" : "nobody follows", uri);
}

/* Reads the file at read time: the size listed is from the last (re)build. */
static int example_notes_file(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct example *ex = state;
    char buf[65536];
    FILE *f = fopen(ex->notes_file, "r");

    if (f == NULL)
        return host->error(call, MCPH_ERR_NOT_FOUND, "cannot open %s: %s", ex->notes_file,
                           strerror(errno));
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return host->contents_text(call, NULL, "text/plain", buf);
}

/* --- Resources. --- */

/* uri NULL: the contents belong to the URI being read. */
static int example_readme(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/markdown", EXAMPLE_README);
}

/* The lock is held only while copying into the result (the sink copies), never across a
 * call that may wait. */
static int example_note(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct example *ex = state;

    pthread_mutex_lock(&ex->lock);
    int rc = host->contents_text(call, NULL, "text/plain", ex->note ? ex->note : "(no note yet)");
    pthread_mutex_unlock(&ex->lock);
    return rc;
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

/* --- Completions. A complete handler reads "argument" (which one is being typed) and
 * "value" (what the user typed so far), and offers candidates with host->completion(); mcph
 * sends at most 100 and tells the client how many there were. --- */

static const char *const example_languages[] = {
    "c", "c++", "go", "java", "javascript", "python", "ruby", "rust", "typescript", NULL,
};

static const char *const example_names[] = {"Ada", "Alan", "Grace", "Linus", NULL};

/* Offers every word of the NULL-ended list that starts with prefix. */
static int example_offer(const struct mcph_host *host, struct mcph_call *call,
                         const char *const *words, const char *prefix)
{
    for (size_t i = 0; words[i] != NULL; i++) {
        if (strncmp(words[i], prefix, strlen(prefix)) != 0)
            continue;
        int rc = host->completion(call, words[i]);
        if (rc != MCPH_OK)
            return rc;
    }
    return MCPH_OK;
}

/* Offers the list for `argument`; any other argument gets no candidates (code is free text). */
static int example_complete_from(const struct mcph_host *host, struct mcph_call *call,
                                 const char *argument, const char *const *words)
{
    const char *name, *value;

    if (host->arg_string(call, "argument", &name) != MCPH_OK ||
        host->arg_string(call, "value", &value) != MCPH_OK)
        return host->error(call, MCPH_ERR, "a completion without argument or value");
    if (strcmp(name, argument) != 0)
        return MCPH_OK;
    return example_offer(host, call, words, value);
}

static int example_complete_review(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    (void)state;
    return example_complete_from(host, call, "language", example_languages);
}

static int example_complete_greeting(const struct mcph_host *host, void *state,
                                     struct mcph_call *call)
{
    (void)state;
    return example_complete_from(host, call, "name", example_names);
}

/* --- Lifecycle. --- */

static void example_free_shortcuts(struct example *ex)
{
    for (size_t i = 0; i < ex->nshortcuts; i++) {
        free(ex->shortcuts[i].name);
        free(ex->shortcuts[i].text);
    }
    free(ex->shortcuts);
}

/* One "NAME: text" line becomes a tool. mcph checks the row like a table row; a bad name is
 * refused (and logged by mcph), and the other shortcuts are still served. */
static int example_define_shortcut(const struct mcph_host *host, struct example *ex,
                                   const char *line)
{
    const char *colon = strchr(line, ':');
    if (colon == NULL || colon == line) {
        host->log(host, MCPH_LOG_WARNING, "shortcut \"%s\" is not NAME: text; skipped", line);
        return MCPH_OK;
    }
    struct example_shortcut *sc = &ex->shortcuts[ex->nshortcuts];
    sc->name = strndup(line, (size_t)(colon - line));
    sc->text = strdup(colon + 1 + strspn(colon + 1, " "));
    if (!sc->name || !sc->text) {
        free(sc->name);
        free(sc->text);
        return MCPH_ERR_NOMEM;
    }
    ex->nshortcuts++;
    /* The row may live on this stack: mcph copies it before define_tool returns. */
    char description[160];
    snprintf(description, sizeof(description), "Says \"%.120s\" (a shortcut from the config)",
             sc->text);
    struct mcph_tool tool = {
        .name = sc->name,
        .description = description,
        .input_schema = "{\"type\":\"object\",\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .call = example_shortcut,
    };
    int rc = host->define_tool(host, &tool);
    return rc == MCPH_ERR_INVALID ? MCPH_OK : rc;
}

/* `shortcuts` is multi-line: mcph joins its lines with "\n". */
static int example_define_shortcuts(const struct mcph_host *host, struct example *ex)
{
    const char *list = host->config(host, "shortcuts");
    if (list == NULL)
        return MCPH_OK;
    char *copy = strdup(list);
    size_t lines = 1;
    for (const char *p = list; *p; p++)
        lines += *p == '\n';
    ex->shortcuts = calloc(lines, sizeof(*ex->shortcuts));
    if (!copy || !ex->shortcuts) {
        free(copy);
        return MCPH_ERR_NOMEM;
    }
    int rc = MCPH_OK;
    char *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l && rc == MCPH_OK; l = strtok_r(NULL, "\n", &save))
        rc = example_define_shortcut(host, ex, l);
    free(copy);
    return rc;
}

/* The notes file, if configured, is a resource whose size is taken now. */
static int example_define_notes(const struct mcph_host *host, struct example *ex)
{
    ex->notes_file = host->config_path(host, "notes_file");
    if (ex->notes_file == NULL)
        return MCPH_OK;
    struct stat st;
    struct mcph_resource res = {
        .uri = "example://notes-file",
        .name = "notes-file",
        .title = "Notes file",
        .description = ex->notes_file,
        .mime_type = "text/plain",
        .size = stat(ex->notes_file, &st) == 0 ? (uint64_t)st.st_size : 0,
        .read = example_notes_file,
    };
    return host->define_resource(host, &res);
}

/* Reads the config once, on the main thread, so handlers never look it up. */
static int example_init(const struct mcph_host *host, void **state)
{
    struct example *ex = calloc(1, sizeof(*ex));
    if (!ex) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the example state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    /* Never NULL: the key has a default value. */
    ex->greeting = host->config(host, "greeting");
    if (pthread_mutex_init(&ex->lock, NULL) != 0) {
        host->log(host, MCPH_LOG_ERROR, "cannot create the example state's lock");
        free(ex);
        return MCPH_ERR;
    }
    /* Since 1.3: a rebuild keeps the note. The instance replaced may still serve calls, so
     * its note is copied under its lock, not moved. */
    struct example *before = host->predecessor(host);
    if (before != NULL) {
        pthread_mutex_lock(&before->lock);
        ex->note = before->note != NULL ? strdup(before->note) : NULL;
        pthread_mutex_unlock(&before->lock);
    }
    int rc = example_define_shortcuts(host, ex);
    if (rc == MCPH_OK)
        rc = example_define_notes(host, ex);
    if (rc != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR, "cannot define the shortcuts or the notes file (%d)", rc);
        example_free_shortcuts(ex);
        pthread_mutex_destroy(&ex->lock);
        free(ex->note);
        free(ex);
        return rc;
    }
    /* Since 1.5: what the model should know, after [server] instructions under the heading
     * [plugin.ID]. Not worth failing the load for: a refusal is only logged. */
    struct mcph_strbuf text = MCPH_STRBUF_INIT;
    mcph_sb_addf(&text,
                 "greet says hello with the configured greeting; count runs long and can be "
                 "cancelled; confirm and ask_model ask the user or the model first.%s",
                 ex->nshortcuts > 0 ? " The other tools are shortcuts from the config." : "");
    rc = text.nomem ? MCPH_ERR_NOMEM : host->instructions(host, text.buf);
    mcph_sb_release(&text);
    if (rc != MCPH_OK)
        host->log(host, MCPH_LOG_WARNING, "cannot give the instructions (%d)", rc);
    host->log(host, MCPH_LOG_DEBUG, "greeting is \"%s\", %zu shortcut(s)", ex->greeting,
              ex->nshortcuts);
    *state = ex;
    return MCPH_OK;
}

/* Runs after the last handler returned; the next init() starts from scratch. */
static void example_shutdown(void *state)
{
    struct example *ex = state;

    pthread_mutex_destroy(&ex->lock);
    example_free_shortcuts(ex);
    free(ex->note);
    free(ex);
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
    {
        .name = "count",
        .title = "Count",
        .description = "Counts from 1 to `to`, one step every delay_ms milliseconds, reporting "
                       "progress; stops when cancelled.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"to\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
                        "\"description\":\"Where to stop\"},"
                        "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000,"
                        "\"description\":\"Milliseconds a step (default 100)\"}},"
                        "\"required\":[\"to\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_count,
        /* Icons (2025-11-25 clients) and _meta (2025-06-18 and newer) are JSON text, checked
         * at load; mcph sends each only to clients whose revision has it. A data: URI keeps
         * the icon inside the plugin. */
        .icons = "[{\"src\":\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91Jpz"
                 "AAAAEklEQVR42mP4z8DAAMIM/4EAAB/uBfvxq7p3AAAAAElFTkSuQmCC\","
                 "\"mimeType\":\"image/png\",\"sizes\":[\"2x2\"]}]",
        .meta = "{\"example.com/category\":\"demo\"}",
    },
    {
        .name = "confirm",
        .title = "Confirm",
        .description = "Asks the user to confirm an action (elicitation) and returns the answer.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"action\":{\"type\":\"string\","
                        "\"description\":\"What to confirm, e.g. delete the draft\"}},"
                        "\"required\":[\"action\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_confirm,
    },
    {
        .name = "ask_model",
        .title = "Ask the model",
        .description = "Asks the client's model a question (sampling) and returns its answer.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":"
                        "\"string\",\"description\":\"The question\"}},"
                        "\"required\":[\"question\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_ask_model,
    },
    {
        .name = "roots",
        .title = "Roots",
        .description = "Lists the roots (folders, files) the client shares with the server.",
        .input_schema = example_no_args,
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_roots,
    },
    {
        .name = "set_note",
        .title = "Set the note",
        .description = "Stores a note in the example://note resource.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                        "\"description\":\"The new note\"}},"
                        "\"required\":[\"text\"],\"additionalProperties\":false}",
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_set_note,
    },
    {
        .name = "rescan",
        .title = "Rescan",
        .description = "Builds this plugin instance again with the same config, so the "
                       "shortcuts and the notes file's size are read anew (ABI 1.2 refresh).",
        .input_schema = example_no_args,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_rescan,
    },
    {
        .name = "relay",
        .title = "Relay",
        .description = "Answers with the CallToolResult given as JSON text in `result`, as a "
                       "proxy relays another server's result (ABI 1.3); `log`, if given, is "
                       "sent to the client as a log message first.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"result\":{\"type\":\"string\"},\"log\":{\"type\":\"string\"}},"
                        "\"required\":[\"result\"]}",
        .open_world_hint = MCPH_HINT_FALSE,
        .call = example_relay,
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
        /* Since 1.1: who the resource is for and how much it matters. */
        .annotations = "{\"audience\":[\"user\",\"assistant\"],\"priority\":0.5}",
    },
    {
        .uri = EXAMPLE_NOTE_URI,
        .name = "note",
        .title = "Note",
        .description = "The last note stored with set_note; subscribe to hear of changes.",
        .mime_type = "text/plain",
        .read = example_note,
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
        .complete = example_complete_greeting,
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
        .complete = example_complete_review,
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
    {
        .name = "shortcuts",
        .description = "Tools that say a fixed text, one \"NAME: text\" a line (indent the "
                       "lines after the first)",
    },
    {
        .name = "notes_file",
        .description = "A text file served as example://notes-file (relative to the INI file)",
    },
    {0},
};

/* Handlers only read the state init() made, or take its lock: calls may run in parallel. */
static const struct mcph_plugin example_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "example",
    .version = "1.5.0",
    .description = "A tour of the mcph plugin ABI",
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_TAKE_OVER,
    .tools = example_tools,
    .resources = example_resources,
    .resource_templates = example_templates,
    .prompts = example_prompts,
    .config_keys = example_config_keys,
    .init = example_init,
    .shutdown = example_shutdown,
    .subscribe = example_subscribe,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &example_plugin;
}
