/*
 * conformance.c: the fixtures of the official MCP conformance server suite
 * (@modelcontextprotocol/conformance, pinned in package.json), served by mcph.ini and run by
 * run.sh. SCENARIOS.md is its specification: every name, argument, text and JSON shape here
 * is the one a scenario calls or checks, so change them only together with that file.
 *
 * It has the suite's tools (every content type, logging, a tool error, progress, sampling,
 * three elicitations, and the pending JSON Schema 2020-12 tool), three fixed resources, one
 * resource template, and four prompts, one with a completion handler.
 *
 * The 2026-07-28 scenarios of the prerelease suite (0.2.0-alpha, run by hand: SCENARIOS.md,
 * "The 2026-07-28 suite") call more: the input_required tools and prompt (questions answered
 * by a retry), a tool that needs sampling, a logging tool, a tool with an x-mcp-header
 * argument, and two tools that change the tool and prompt lists. The 0.1.16 scenarios only
 * see them in the lists.
 *
 * The handlers may run in parallel: the descriptor sets MCPH_PLUGIN_THREAD_SAFE. That
 * matters here because the logging and progress tools sleep and the asking tools wait for
 * the client; without the flag each would hold up every other call of the session. The only
 * state is two counters of list changes, atomic, kept across the rebuilds they cause
 * (MCPH_PLUGIN_TAKE_OVER).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, outside the mcph tree's -D_GNU_SOURCE too */

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin-api.h"

/* The pause between the steps of the logging and progress tools: the suite's spec asks for
 * about 50 ms, and it waits only 200 ms after the call for the last log notification. */
#define CONFORMANCE_STEP_MS 50

/* The scale test_tool_with_progress reports on, as the suite's spec has it. */
#define CONFORMANCE_PROGRESS_TOTAL 100.0

/* The longest JSON escape of one byte, \u00XX. */
#define CONFORMANCE_ESCAPE_MAX 6

/* Kept in a macro so the resource row can announce its exact size at compile time. */
#define CONFORMANCE_STATIC_TEXT "This is the content of the static text resource."

/* The reference server's 1x1 red PNG (SCENARIOS.md, "Test bytes"). */
static const unsigned char conformance_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
    0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
    0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8,
    0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

/* A complete WAV: the reference server's 44-byte one announces 2 data bytes it lacks. The
 * rows follow the header's fields, so the formatter is told to keep them. */
/* clang-format off */
static const unsigned char conformance_wav[] = {
    'R', 'I', 'F', 'F', 0x26, 0x00, 0x00, 0x00,     /* RIFF chunk: 36 + data bytes */
    'W', 'A', 'V', 'E',
    'f', 'm', 't', ' ', 0x10, 0x00, 0x00, 0x00,     /* fmt chunk: 16 bytes */
    0x01, 0x00, 0x01, 0x00,                         /* PCM, 1 channel */
    0x40, 0x1f, 0x00, 0x00, 0x80, 0x3e, 0x00, 0x00, /* 8000 Hz, 16000 bytes per second */
    0x02, 0x00, 0x10, 0x00,                         /* 2 bytes per frame, 16 bits per sample */
    'd', 'a', 't', 'a', 0x02, 0x00, 0x00, 0x00,     /* data chunk: 2 bytes */
    0x00, 0x00,                                     /* one silent sample */
};
/* clang-format on */

/* The messages of test_tool_with_logging, one every CONFORMANCE_STEP_MS. */
static const char *const conformance_log_steps[] = {
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
    NULL,
};

/* The progress values of test_tool_with_progress, out of CONFORMANCE_PROGRESS_TOTAL. */
static const double conformance_progress_steps[] = {0.0, 50.0, 100.0};

/* The candidates test_prompt_with_arguments offers for arg1. */
static const char *const conformance_arg1_values[] = {
    "testValue1", "testValue2", "paris", "park", "party", NULL,
};

/* The letter after the backslash for the bytes JSON has a short escape for; 0 for the rest. */
static const char conformance_short_escapes[] = {
    ['"'] = '"',  ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
    ['\n'] = 'n', ['\r'] = 'r',  ['\t'] = 't',
};

/*
 * An instance's state: how many times test_trigger_tool_change and test_trigger_prompt_change
 * ran, in this instance and the ones it replaced. While a count is odd the instance defines
 * test_dynamic_tool or test_dynamic_prompt, so each trigger changes its list: it asks mcph
 * for a rebuild (host->refresh()), whose init copies the counts and defines accordingly, and
 * mcph sends list_changed for the list that changed.
 */
struct conformance {
    atomic_uint tool_changes;
    atomic_uint prompt_changes;
};

/* --- Helpers. --- */

/* Sets *out to a malloc'd string formatted like printf, owned by the caller. Returns MCPH_OK,
 * MCPH_ERR_NOMEM, or MCPH_ERR when the format fails (*out is then NULL). */
static int conformance_format(char **out, const char *fmt, ...) MCPH_PRINTF(2, 3);
static int conformance_format(char **out, const char *fmt, ...)
{
    va_list ap;

    *out = NULL;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return MCPH_ERR;

    char *buf = malloc((size_t)len + 1);
    if (!buf)
        return MCPH_ERR_NOMEM;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)len + 1, fmt, ap);
    va_end(ap);
    *out = buf;
    return MCPH_OK;
}

/* Writes byte c as it appears inside a JSON string at p; returns the end of what it wrote.
 * Bytes from 0x80 up pass through: they are UTF-8, and JSON text is UTF-8. */
static char *conformance_escape_byte(char *p, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";

    if (c < sizeof(conformance_short_escapes) && conformance_short_escapes[c] != 0) {
        *p++ = '\\';
        *p++ = conformance_short_escapes[c];
    } else if (c < 0x20) {
        memcpy(p, "\\u00", 4);
        p += 4;
        *p++ = hex[c >> 4];
        *p++ = hex[c & 0x0f];
    } else {
        *p++ = (char)c;
    }
    return p;
}

/*
 * Sets *out to s as a quoted JSON string, malloc'd and owned by the caller. Every string a
 * client or user gave that goes into JSON text built here passes through it: a quote or a
 * backslash in a prompt or a template variable must not end the string or break the JSON.
 * Returns MCPH_OK, MCPH_ERR_NOMEM, or MCPH_ERR_LIMIT when the escaped size would overflow.
 */
static int conformance_json_quote(const char *s, char **out)
{
    size_t len = strlen(s);

    *out = NULL;
    if (len > (SIZE_MAX - 3) / CONFORMANCE_ESCAPE_MAX)
        return MCPH_ERR_LIMIT;
    char *buf = malloc(len * CONFORMANCE_ESCAPE_MAX + 3);
    if (!buf)
        return MCPH_ERR_NOMEM;

    char *p = buf;
    *p++ = '"';
    for (; *s != '\0'; s++)
        p = conformance_escape_byte(p, (unsigned char)*s);
    *p++ = '"';
    *p = '\0';
    *out = buf;
    return MCPH_OK;
}

static void conformance_sleep_ms(long ms)
{
    struct timespec left = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
}

/* Adds one text item made of prefix and rest (both borrowed). */
static int conformance_text_pair(const struct mcph_host *host, struct mcph_call *call,
                                 const char *prefix, const char *rest)
{
    char *text;

    int rc = conformance_format(&text, "%s%s", prefix, rest);
    if (rc != MCPH_OK)
        return rc;
    rc = host->text(call, text);
    free(text);
    return rc;
}

/*
 * What a tool handler returns when a string argument's accessor did not give MCPH_OK. mcph
 * checks the arguments against the input schema first, but the handler does not rely on it.
 * A missing or mistyped argument is a tool error, which the model can read and correct
 * (SEP-1303); anything else (out of memory) is passed on as the protocol error it is.
 */
static int conformance_bad_arg(const struct mcph_host *host, struct mcph_call *call,
                               const char *name, int rc)
{
    if (rc == MCPH_ERR_ABSENT)
        return host->tool_error(call, "missing the argument \"%s\" (a string)", name);
    if (rc == MCPH_ERR_TYPE)
        return host->tool_error(call, "the argument \"%s\" must be a string", name);
    return rc;
}

/*
 * Shows the client's answer to a question (sampling or elicitation, named by `what`, which
 * is also the name of the capability) after prefix, or turns a question that failed into a
 * tool error. The answer is passed on as the JSON text the client sent: the plugin has no
 * JSON parser (only plugin-api.h and libc), and the suite checks only that a result came.
 */
static int conformance_answer(const struct mcph_host *host, struct mcph_call *call,
                              const char *what, int rc, const char *answer, const char *prefix)
{
    /* mcph sets the answer for MCPH_OK and MCPH_ERR_CLIENT; never print a NULL. */
    if (answer == NULL)
        answer = "(no answer)";
    switch (rc) {
    case MCPH_OK:
        return conformance_text_pair(host, call, prefix, answer);
    case MCPH_ERR_UNSUPPORTED:
        return host->tool_error(call,
                                "this client does not support %s: it did not declare the "
                                "%s capability, or its protocol revision lacks it",
                                what, what);
    case MCPH_ERR_TIMEOUT:
        return host->tool_error(call, "the client did not answer the %s request in time", what);
    case MCPH_ERR_CLIENT: /* answer is the JSON-RPC error object */
        return host->tool_error(call, "the client refused the %s request: %s", what, answer);
    case MCPH_ERR_CANCELLED: /* the call was cancelled: mcph sends no answer, nobody reads it */
        return host->tool_error(call, "cancelled while waiting for the %s answer", what);
    case MCPH_ERR_INVALID:
        return host->tool_error(call,
                                "mcph refused the %s request as malformed JSON: a bug in "
                                "the conformance plugin",
                                what);
    default:
        return rc;
    }
}

/* Asks the user through the client (elicitation, form mode) and shows the answer after
 * prefix. message and schema_json are borrowed; mcph copies them. */
static int conformance_elicit(const struct mcph_host *host, struct mcph_call *call,
                              const char *message, const char *schema_json, const char *prefix)
{
    const char *answer = NULL;

    int rc = host->elicit(call, message, schema_json, &answer);
    return conformance_answer(host, call, "elicitation", rc, answer, prefix);
}

/* --- Tools. Each handler returns MCPH_OK once it has produced a result (even a tool
 * error), or the negative status of a sink that failed. --- */

static int conformance_simple_text(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    (void)state;
    return host->text(call, "This is a simple text response for testing.");
}

/* Binary content is handed over raw: mcph does the base64 the client's schema checks. */
static int conformance_image(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->image(call, conformance_png, sizeof(conformance_png), "image/png");
}

/* The scenario wants the MIME type "audio/wav" exactly, not audio/x-wav or audio/wave. */
static int conformance_audio(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->audio(call, conformance_wav, sizeof(conformance_wav), "audio/wav");
}

static int conformance_embedded(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->embedded_text(call, "test://embedded-resource", "text/plain",
                               "This is an embedded resource content.");
}

static int conformance_mixed(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    int rc = host->text(call, "Multiple content types test:");
    if (rc == MCPH_OK)
        rc = host->image(call, conformance_png, sizeof(conformance_png), "image/png");
    if (rc == MCPH_OK)
        rc = host->embedded_text(call, "test://mixed-content-resource", "application/json",
                                 "{\"test\":\"data\",\"value\":123}");
    return rc;
}

/* mcph forwards a plugin's log lines at or above the level the client set (the scenario sets
 * debug) as notifications/message; the suite counts them, whatever they say. */
static int conformance_logging(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    for (size_t i = 0; conformance_log_steps[i] != NULL; i++) {
        if (i > 0)
            conformance_sleep_ms(CONFORMANCE_STEP_MS);
        if (host->cancelled(call))
            return host->tool_error(call, "cancelled");
        host->log(host, MCPH_LOG_INFO, "%s", conformance_log_steps[i]);
    }
    return host->text(call, "Tool with logging executed successfully");
}

/* A tool that ran and failed: isError with the message, not a JSON-RPC error (which the
 * scenario counts as a failure). */
static int conformance_error(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->tool_error(call, "This tool intentionally returns an error for testing");
}

/* progress() sends nothing unless the client gave a progress token, so the tool also runs
 * (with its delays) without one, as the suite's spec asks. Equal values are sent; only a
 * lower one would be dropped. */
static int conformance_progress(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    size_t steps = sizeof(conformance_progress_steps) / sizeof(conformance_progress_steps[0]);

    (void)state;
    for (size_t i = 0; i < steps; i++) {
        if (i > 0)
            conformance_sleep_ms(CONFORMANCE_STEP_MS);
        if (host->cancelled(call))
            return host->tool_error(call, "cancelled");
        host->progress(call, conformance_progress_steps[i], CONFORMANCE_PROGRESS_TOTAL, NULL);
    }
    return host->text(call, "Tool with progress executed successfully");
}

/* Sets *params to sampling/createMessage's params asking prompt (borrowed), malloc'd and
 * owned by the caller. Returns MCPH_OK or the status of what failed. */
static int conformance_sampling_params(const char *prompt, char **params)
{
    char *quoted;

    *params = NULL;
    int rc = conformance_json_quote(prompt, &quoted);
    if (rc != MCPH_OK)
        return rc;
    rc = conformance_format(params,
                            "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                            "\"text\":%s}}],\"maxTokens\":100}",
                            quoted);
    free(quoted);
    return rc;
}

static int conformance_sampling(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *prompt, *answer = NULL;
    char *params;

    (void)state;
    int rc = host->arg_string(call, "prompt", &prompt);
    if (rc != MCPH_OK)
        return conformance_bad_arg(host, call, "prompt", rc);
    rc = conformance_sampling_params(prompt, &params);
    if (rc != MCPH_OK)
        return rc;
    rc = host->sample(call, params, &answer);
    free(params);
    return conformance_answer(host, call, "sampling", rc, answer, "LLM response: ");
}

/* The message is the user's own text: elicit() takes it as a string, so no escaping here. */
static int conformance_elicitation(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    const char *message;

    (void)state;
    int rc = host->arg_string(call, "message", &message);
    if (rc != MCPH_OK)
        return conformance_bad_arg(host, call, "message", rc);
    return conformance_elicit(
        host, call, message,
        "{\"type\":\"object\",\"properties\":{"
        "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
        "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
        "\"required\":[\"username\",\"email\"]}",
        "User response: ");
}

/* SEP-1034: a default for each primitive type, and for a string enum. */
static int conformance_elicitation_defaults(const struct mcph_host *host, void *state,
                                            struct mcph_call *call)
{
    (void)state;
    return conformance_elicit(
        host, call, "Please review and update the form fields with defaults",
        "{\"type\":\"object\",\"properties\":{"
        "\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":\"John Doe\"},"
        "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
        "\"score\":{\"type\":\"number\",\"description\":\"User score\",\"default\":95.5},"
        "\"status\":{\"type\":\"string\",\"description\":\"User status\","
        "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
        "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\","
        "\"default\":true}},"
        "\"required\":[]}",
        "Elicitation completed: ");
}

/* SEP-1330: the five enum forms, single and multiple choice, with and without titles, and
 * the legacy enumNames. */
static int conformance_elicitation_enums(const struct mcph_host *host, void *state,
                                         struct mcph_call *call)
{
    (void)state;
    return conformance_elicit(
        host, call, "Please select options from the enum fields",
        "{\"type\":\"object\",\"properties\":{"
        "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one option\","
        "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
        "\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one option with titles\","
        "\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
        "{\"const\":\"value2\",\"title\":\"Second Option\"},"
        "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
        "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one option (legacy)\","
        "\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
        "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
        "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options\","
        "\"minItems\":1,\"maxItems\":3,"
        "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
        "\"titledMulti\":{\"type\":\"array\","
        "\"description\":\"Select multiple options with titles\",\"minItems\":1,\"maxItems\":3,"
        "\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":\"First Choice\"},"
        "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
        "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},"
        "\"required\":[]}",
        "Elicitation completed: ");
}

/* The pending json-schema-2020-12 scenario only lists this tool; a call shows the arguments
 * mcph accepted against the schema. */
static int conformance_schema_2020_12(const struct mcph_host *host, void *state,
                                      struct mcph_call *call)
{
    const char *args;

    (void)state;
    int rc = host->args_json(call, &args);
    if (rc != MCPH_OK)
        return rc;
    return conformance_text_pair(host, call, "Received arguments: ", args);
}

/* --- The 2026-07-28 fixtures. Under 2026-07-28 a question (elicit, sample, roots) that has
 * no answer yet returns MCPH_ERR_AGAIN: mcph answers the request with input_required, and
 * runs the handler again on the client's retry, when the same question, asked in the same
 * order, returns the answer. What a handler returns after MCPH_ERR_AGAIN is discarded.
 * Under the earlier revisions each question waits for the client's answer instead. Each
 * question goes under the key the scenario's spec gives it (user_name, capital_question, ...:
 * host->ask_key, ABI 1.4), where it names one; else under mcph's ask-N. --- */

/* The question of test_input_required_result_elicitation: the user's name. */
static const char conformance_name_schema[] = "{\"type\":\"object\",\"properties\":{\"name\":{"
                                              "\"type\":\"string\"}},\"required\":[\"name\"]}";

/* The question of the request-state and tampered-state tools: a confirmation. */
static const char conformance_confirm_schema[] = "{\"type\":\"object\",\"properties\":{\"ok\":{"
                                                 "\"type\":\"boolean\"}},\"required\":[\"ok\"]}";

/* Asks one question with elicit(), under key (NULL: ask-1), and, once it is answered, shows
 * the answer after prefix. For the tools whose only job is to ask. */
static int conformance_ask_one(const struct mcph_host *host, struct mcph_call *call,
                               const char *key, const char *message, const char *schema_json,
                               const char *prefix)
{
    const char *answer = NULL;

    if (key != NULL)
        host->ask_key(call, key);
    int rc = host->elicit(call, message, schema_json, &answer);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    return conformance_answer(host, call, "elicitation", rc, answer, prefix);
}

static int conformance_ir_elicitation(const struct mcph_host *host, void *state,
                                      struct mcph_call *call)
{
    (void)state;
    return conformance_ask_one(host, call, "user_name", "What is your name?",
                               conformance_name_schema, "Hello, the answer was: ");
}

static int conformance_ir_sampling(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    char *params;
    const char *answer = NULL;

    (void)state;
    int rc = conformance_sampling_params("What is the capital of France?", &params);
    if (rc != MCPH_OK)
        return rc;
    host->ask_key(call, "capital_question");
    rc = host->sample(call, params, &answer);
    free(params);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    return conformance_answer(host, call, "sampling", rc, answer, "Sampling result: ");
}

static int conformance_ir_roots(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *answer = NULL;

    (void)state;
    host->ask_key(call, "client_roots");
    int rc = host->roots(call, &answer);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    return conformance_answer(host, call, "roots", rc, answer, "Roots: ");
}

/* mcph carries the answers from one round to the next in requestState itself; the scenario
 * checks that a retry echoing it completes ("state-ok" in the text, as its spec asks). */
static int conformance_ir_request_state(const struct mcph_host *host, void *state,
                                        struct mcph_call *call)
{
    (void)state;
    return conformance_ask_one(host, call, "confirm", "Please confirm", conformance_confirm_schema,
                               "state-ok: requestState validated; the answer was: ");
}

/* The scenario sends a requestState altered after the first round: with [server]
 * state_key_file mcph refuses it (-32602) before this runs again. */
static int conformance_ir_tampered_state(const struct mcph_host *host, void *state,
                                         struct mcph_call *call)
{
    (void)state;
    return conformance_ask_one(host, call, NULL, "Please confirm", conformance_confirm_schema,
                               "integrity-ok: the answer was: ");
}

/* Three questions of three kinds in one round: each is asked before looking at what the
 * others returned, so under 2026-07-28 one input_required carries all three. */
static int conformance_ir_multiple(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    const char *name = NULL, *greeting = NULL, *roots = NULL;
    char *params;

    (void)state;
    int rc = conformance_sampling_params("Generate a greeting", &params);
    if (rc != MCPH_OK)
        return rc;
    host->ask_key(call, "user_name");
    int rc_name = host->elicit(call, "What is your name?", conformance_name_schema, &name);
    host->ask_key(call, "greeting");
    int rc_greeting = host->sample(call, params, &greeting);
    host->ask_key(call, "client_roots");
    int rc_roots = host->roots(call, &roots);
    free(params);
    if (rc_name == MCPH_ERR_AGAIN || rc_greeting == MCPH_ERR_AGAIN || rc_roots == MCPH_ERR_AGAIN)
        return MCPH_OK;
    rc = conformance_answer(host, call, "elicitation", rc_name, name, "Name: ");
    if (rc == MCPH_OK && rc_name == MCPH_OK)
        rc = conformance_answer(host, call, "sampling", rc_greeting, greeting, "Greeting: ");
    if (rc == MCPH_OK && rc_name == MCPH_OK && rc_greeting == MCPH_OK)
        rc = conformance_answer(host, call, "roots", rc_roots, roots, "Roots: ");
    return rc;
}

/* Two rounds: the second question is asked only once the first is answered, so each round
 * has its own input_required (and its own requestState). */
static int conformance_ir_multi_round(const struct mcph_host *host, void *state,
                                      struct mcph_call *call)
{
    const char *name = NULL, *color = NULL;

    (void)state;
    host->ask_key(call, "step1");
    int rc = host->elicit(call, "Step 1: What is your name?", conformance_name_schema, &name);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    if (rc != MCPH_OK)
        return conformance_answer(host, call, "elicitation", rc, name, "");
    host->ask_key(call, "step2");
    rc = host->elicit(call, "Step 2: What is your favorite color?",
                      "{\"type\":\"object\",\"properties\":{\"color\":{\"type\":\"string\"}},"
                      "\"required\":[\"color\"]}",
                      &color);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    if (rc != MCPH_OK)
        return conformance_answer(host, call, "elicitation", rc, color, "");
    rc = conformance_text_pair(host, call, "Multi-round complete, name: ", name);
    if (rc == MCPH_OK)
        rc = conformance_text_pair(host, call, "Favorite color: ", color);
    return rc;
}

/* Asks only what the client can answer: a question it did not declare the capability for
 * returns MCPH_ERR_UNSUPPORTED and is left out. */
static int conformance_ir_capabilities(const struct mcph_host *host, void *state,
                                       struct mcph_call *call)
{
    const char *value = NULL, *sample = NULL;
    char *params;

    (void)state;
    int rc = conformance_sampling_params("Sample request", &params);
    if (rc != MCPH_OK)
        return rc;
    int rc_value = host->elicit(call, "Elicitation input",
                                "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":"
                                "\"string\"}},\"required\":[\"value\"]}",
                                &value);
    int rc_sample = host->sample(call, params, &sample);
    free(params);
    if (rc_value == MCPH_ERR_AGAIN || rc_sample == MCPH_ERR_AGAIN)
        return MCPH_OK;
    if (rc_value == MCPH_ERR_UNSUPPORTED && rc_sample == MCPH_ERR_UNSUPPORTED)
        return host->text(call, "No supported capabilities declared");
    rc = host->text(call, "capabilities-ok");
    if (rc == MCPH_OK && rc_value != MCPH_ERR_UNSUPPORTED)
        rc = conformance_answer(host, call, "elicitation", rc_value, value, "Elicitation: ");
    if (rc == MCPH_OK && rc_sample != MCPH_ERR_UNSUPPORTED)
        rc = conformance_answer(host, call, "sampling", rc_sample, sample, "Sampling: ");
    return rc;
}

/* Needs sampling: a client that did not declare it gets the failure as a protocol error
 * (the scenario wants -32021, MissingRequiredClientCapabilityError, naming sampling). */
static int conformance_missing_capability(const struct mcph_host *host, void *state,
                                          struct mcph_call *call)
{
    char *params;
    const char *answer = NULL;

    (void)state;
    int rc = conformance_sampling_params("Say hello", &params);
    if (rc != MCPH_OK)
        return rc;
    rc = host->sample(call, params, &answer);
    free(params);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    if (rc == MCPH_ERR_UNSUPPORTED)
        return host->error(call, MCPH_ERR_UNSUPPORTED, "this tool needs the sampling capability");
    return conformance_answer(host, call, "sampling", rc, answer, "Success: ");
}

/* Progress (sent only with a progress token), then a question: the response stream of a
 * 2026-07-28 call must carry no request of the server's, only notifications and the final
 * (here input_required) result. */
static int conformance_streaming_elicitation(const struct mcph_host *host, void *state,
                                             struct mcph_call *call)
{
    (void)state;
    host->progress(call, 50.0, CONFORMANCE_PROGRESS_TOTAL, "half way");
    return conformance_ask_one(host, call, NULL, "Please confirm", conformance_confirm_schema,
                               "Streaming complete: ");
}

/* One log line: under 2026-07-28 mcph must not send it as notifications/message unless the
 * request's _meta set io.modelcontextprotocol/logLevel. */
static int conformance_logging_tool(const struct mcph_host *host, void *state,
                                    struct mcph_call *call)
{
    (void)state;
    host->log(host, MCPH_LOG_INFO, "Diagnostic trace logging activated");
    return host->text(call, "Logging evaluated");
}

/* The region argument is mirrored in the Mcp-Param-Region header (x-mcp-header), which mcph
 * checks against it; the handler only shows it. */
static int conformance_custom_headers(const struct mcph_host *host, void *state,
                                      struct mcph_call *call)
{
    const char *region;

    (void)state;
    int rc = host->arg_string(call, "region", &region);
    if (rc != MCPH_OK)
        return conformance_bad_arg(host, call, "region", rc);
    return conformance_text_pair(host, call, "Region: ", region);
}

static int conformance_trigger_tool_change(const struct mcph_host *host, void *state,
                                           struct mcph_call *call)
{
    struct conformance *conf = state;

    atomic_fetch_add(&conf->tool_changes, 1);
    host->refresh(host);
    return host->text(call, "Tool list change triggered");
}

static int conformance_trigger_prompt_change(const struct mcph_host *host, void *state,
                                             struct mcph_call *call)
{
    struct conformance *conf = state;

    atomic_fetch_add(&conf->prompt_changes, 1);
    host->refresh(host);
    return host->text(call, "Prompt list change triggered");
}

/* Served while the tool list is in its changed state. */
static int conformance_dynamic_tool(const struct mcph_host *host, void *state,
                                    struct mcph_call *call)
{
    (void)state;
    return host->text(call, "This tool comes and goes with test_trigger_tool_change.");
}

/* --- Resources. uri NULL: the contents belong to the URI being read. --- */

static int conformance_static_text(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/plain", CONFORMANCE_STATIC_TEXT);
}

static int conformance_static_binary(const struct mcph_host *host, void *state,
                                     struct mcph_call *call)
{
    (void)state;
    return host->contents_blob(call, NULL, "image/png", conformance_png, sizeof(conformance_png));
}

/* It never changes, so there is never a resources/updated to send; the scenarios only
 * subscribe and unsubscribe, which needs the URI to exist. */
static int conformance_watched(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/plain", "Watched resource content");
}

/* Sets *json to the template's data for id (borrowed; percent-decoded by mcph, so it may hold
 * any character), malloc'd and owned by the caller. Returns MCPH_OK or what failed. */
static int conformance_template_json(const char *id, char **json)
{
    char *data = NULL, *quoted_id = NULL, *quoted_data = NULL;

    *json = NULL;
    int rc = conformance_format(&data, "Data for ID: %s", id);
    if (rc == MCPH_OK)
        rc = conformance_json_quote(id, &quoted_id);
    if (rc == MCPH_OK)
        rc = conformance_json_quote(data, &quoted_data);
    if (rc == MCPH_OK)
        rc = conformance_format(json, "{\"id\":%s,\"templateTest\":true,\"data\":%s}", quoted_id,
                                quoted_data);
    free(quoted_data);
    free(quoted_id);
    free(data);
    return rc;
}

/* mcph only calls this for a URI that matched the template, so {id} is always there. */
static int conformance_template(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *id;
    char *json;

    (void)state;
    if (host->arg_string(call, "id", &id) != MCPH_OK)
        return host->error(call, MCPH_ERR, "the template variable \"id\" is missing");
    int rc = conformance_template_json(id, &json);
    if (rc != MCPH_OK)
        return rc;
    rc = host->contents_text(call, NULL, "application/json", json);
    free(json);
    return rc;
}

/* --- Prompts. prompt_message() starts a message of a role; each content sink after it adds
 * one message of that role. A prompt has no error result: a bad request is a protocol
 * error. --- */

/* Sets *value to the prompt argument `name`, borrowed until the handler returns. mcph refuses
 * a get without a required argument before calling the handler; checking anyway keeps the
 * handler correct if the table and the code drift apart. */
static int conformance_prompt_arg(const struct mcph_host *host, struct mcph_call *call,
                                  const char *prompt, const char *name, const char **value)
{
    int rc = host->arg_string(call, name, value);

    if (rc == MCPH_ERR_ABSENT || rc == MCPH_ERR_TYPE)
        return host->error(call, MCPH_ERR_INVALID, "the prompt %s needs the string argument %s",
                           prompt, name);
    return rc;
}

static int conformance_simple_prompt(const struct mcph_host *host, void *state,
                                     struct mcph_call *call)
{
    (void)state;
    int rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc != MCPH_OK)
        return rc;
    return host->text(call, "This is a simple prompt for testing.");
}

/* The arguments go into plain text, which the sink copies as it is: nothing to escape. */
static int conformance_args_prompt(const struct mcph_host *host, void *state,
                                   struct mcph_call *call)
{
    static const char prompt[] = "test_prompt_with_arguments";
    const char *arg1, *arg2;
    char *text;

    (void)state;
    int rc = conformance_prompt_arg(host, call, prompt, "arg1", &arg1);
    if (rc == MCPH_OK)
        rc = conformance_prompt_arg(host, call, prompt, "arg2", &arg2);
    if (rc != MCPH_OK)
        return rc;
    rc = conformance_format(&text, "Prompt with arguments: arg1='%s', arg2='%s'", arg1, arg2);
    if (rc != MCPH_OK)
        return rc;
    rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc == MCPH_OK)
        rc = host->text(call, text);
    free(text);
    return rc;
}

/* Offers the arg1 candidates that start with what the user typed; arg2 is free text and
 * gets an empty list. */
static int conformance_args_complete(const struct mcph_host *host, void *state,
                                     struct mcph_call *call)
{
    const char *name, *value;

    (void)state;
    if (host->arg_string(call, "argument", &name) != MCPH_OK ||
        host->arg_string(call, "value", &value) != MCPH_OK)
        return host->error(call, MCPH_ERR, "a completion without argument or value");
    if (strcmp(name, "arg1") != 0)
        return MCPH_OK;
    for (size_t i = 0; conformance_arg1_values[i] != NULL; i++) {
        if (strncmp(conformance_arg1_values[i], value, strlen(value)) != 0)
            continue;
        int rc = host->completion(call, conformance_arg1_values[i]);
        if (rc != MCPH_OK)
            return rc;
    }
    return MCPH_OK;
}

/* The URI is the client's; the sink copies it into the message as a string. */
static int conformance_embedded_prompt(const struct mcph_host *host, void *state,
                                       struct mcph_call *call)
{
    const char *uri;

    (void)state;
    int rc = conformance_prompt_arg(host, call, "test_prompt_with_embedded_resource", "resourceUri",
                                    &uri);
    if (rc == MCPH_OK)
        rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc == MCPH_OK)
        rc = host->embedded_text(call, uri, "text/plain", "Embedded resource content for testing.");
    if (rc == MCPH_OK)
        rc = host->text(call, "Please process the embedded resource above.");
    return rc;
}

static int conformance_image_prompt(const struct mcph_host *host, void *state,
                                    struct mcph_call *call)
{
    (void)state;
    int rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc == MCPH_OK)
        rc = host->image(call, conformance_png, sizeof(conformance_png), "image/png");
    if (rc == MCPH_OK)
        rc = host->text(call, "Please analyze the image above.");
    return rc;
}

/* A prompt that needs an answer first (input_required under 2026-07-28). */
static int conformance_ir_prompt(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *answer = NULL;

    (void)state;
    host->ask_key(call, "user_context");
    int rc = host->elicit(call, "What context should the prompt use?",
                          "{\"type\":\"object\",\"properties\":{\"context\":{\"type\":"
                          "\"string\"}},\"required\":[\"context\"]}",
                          &answer);
    if (rc == MCPH_ERR_AGAIN)
        return MCPH_OK;
    if (rc != MCPH_OK)
        return host->error(call, rc == MCPH_ERR_UNSUPPORTED ? MCPH_ERR_UNSUPPORTED : MCPH_ERR,
                           "the prompt needs an answer from the user (elicitation)");
    rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc == MCPH_OK)
        rc = conformance_text_pair(host, call, "Prompt with context: ", answer);
    return rc;
}

/* Served while the prompt list is in its changed state. */
static int conformance_dynamic_prompt(const struct mcph_host *host, void *state,
                                      struct mcph_call *call)
{
    (void)state;
    int rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc != MCPH_OK)
        return rc;
    return host->text(call, "This prompt comes and goes with test_trigger_prompt_change.");
}

/* --- The descriptor. mcph copies every string at load time. --- */

static const char conformance_no_args[] = "{\"type\":\"object\",\"properties\":{},"
                                          "\"additionalProperties\":false}";

static const struct mcph_tool conformance_tools[] = {
    {
        .name = "test_simple_text",
        .title = "Simple text",
        .description = "Returns a simple text response.",
        .input_schema = conformance_no_args,
        .call = conformance_simple_text,
    },
    {
        .name = "test_image_content",
        .title = "Image content",
        .description = "Returns a 1x1 PNG image.",
        .input_schema = conformance_no_args,
        .call = conformance_image,
    },
    {
        .name = "test_audio_content",
        .title = "Audio content",
        .description = "Returns a one-sample WAV sound.",
        .input_schema = conformance_no_args,
        .call = conformance_audio,
    },
    {
        .name = "test_embedded_resource",
        .title = "Embedded resource",
        .description = "Returns an embedded text resource.",
        .input_schema = conformance_no_args,
        .call = conformance_embedded,
    },
    {
        .name = "test_multiple_content_types",
        .title = "Multiple content types",
        .description = "Returns text, an image and an embedded resource in one result.",
        .input_schema = conformance_no_args,
        .call = conformance_mixed,
    },
    {
        .name = "test_tool_with_logging",
        .title = "Logging",
        .description = "Sends three log messages at info level, 50 ms apart, then returns.",
        .input_schema = conformance_no_args,
        .call = conformance_logging,
    },
    {
        .name = "test_error_handling",
        .title = "Error handling",
        .description = "Always fails with a tool error (isError).",
        .input_schema = conformance_no_args,
        .call = conformance_error,
    },
    {
        .name = "test_tool_with_progress",
        .title = "Progress",
        .description = "Reports progress 0, 50 and 100 of 100, 50 ms apart, then returns.",
        .input_schema = conformance_no_args,
        .call = conformance_progress,
    },
    {
        .name = "test_sampling",
        .title = "Sampling",
        .description = "Asks the client's model to answer a prompt (sampling) and returns the "
                       "answer.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
                        "\"description\":\"The prompt to send to the model\"}},"
                        "\"required\":[\"prompt\"],\"additionalProperties\":false}",
        .call = conformance_sampling,
    },
    {
        .name = "test_elicitation",
        .title = "Elicitation",
        .description = "Asks the user for a username and an email address (elicitation) and "
                       "returns the answer.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
                        "\"description\":\"The message to show the user\"}},"
                        "\"required\":[\"message\"],\"additionalProperties\":false}",
        .call = conformance_elicitation,
    },
    {
        .name = "test_elicitation_sep1034_defaults",
        .title = "Elicitation with defaults",
        .description = "Asks the user to fill in a form whose fields have default values "
                       "(SEP-1034).",
        .input_schema = conformance_no_args,
        .call = conformance_elicitation_defaults,
    },
    {
        .name = "test_elicitation_sep1330_enums",
        .title = "Elicitation with enums",
        .description = "Asks the user to choose from every enum form: single and multiple "
                       "choice, titled, untitled and legacy (SEP-1330).",
        .input_schema = conformance_no_args,
        .call = conformance_elicitation_enums,
    },
    {
        .name = "json_schema_2020_12_tool",
        .title = "JSON Schema 2020-12",
        .description = "Tool with JSON Schema 2020-12 features",
        .input_schema = "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
                        "\"type\":\"object\","
                        "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\","
                        "\"properties\":{"
                        "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
                        "\"properties\":{\"name\":{\"type\":\"string\"},"
                        "\"address\":{\"$ref\":\"#/$defs/address\"},"
                        "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
                        "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
                        "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},"
                        "{\"required\":[\"email\"]}]}],"
                        "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},"
                        "\"required\":[\"contactMethod\"]},"
                        "\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
                        "\"additionalProperties\":false}",
        .call = conformance_schema_2020_12,
    },
    {
        .name = "test_input_required_result_elicitation",
        .title = "Input required: elicitation",
        .description = "Asks the user's name (elicitation), then greets.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_elicitation,
    },
    {
        .name = "test_input_required_result_sampling",
        .title = "Input required: sampling",
        .description = "Asks the client's model a question (sampling), then shows the answer.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_sampling,
    },
    {
        .name = "test_input_required_result_list_roots",
        .title = "Input required: roots",
        .description = "Asks the client for its roots, then shows them.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_roots,
    },
    {
        .name = "test_input_required_result_request_state",
        .title = "Input required: request state",
        .description = "Asks for a confirmation; the retry carries requestState.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_request_state,
    },
    {
        .name = "test_input_required_result_multiple_inputs",
        .title = "Input required: three questions",
        .description = "Asks a name (elicitation), a greeting (sampling) and the roots at once.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_multiple,
    },
    {
        .name = "test_input_required_result_multi_round",
        .title = "Input required: two rounds",
        .description = "Asks a name, then a favourite color, one round each.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_multi_round,
    },
    {
        .name = "test_input_required_result_tampered_state",
        .title = "Input required: tampered state",
        .description = "Asks for a confirmation; a retry with an altered requestState must be "
                       "refused.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_tampered_state,
    },
    {
        .name = "test_input_required_result_capabilities",
        .title = "Input required: capabilities",
        .description = "Asks through elicitation and sampling, each only if the client declared "
                       "it.",
        .input_schema = conformance_no_args,
        .call = conformance_ir_capabilities,
    },
    {
        .name = "test_missing_capability",
        .title = "Missing capability",
        .description = "Needs sampling: fails with a protocol error for a client without it.",
        .input_schema = conformance_no_args,
        .call = conformance_missing_capability,
    },
    {
        .name = "test_streaming_elicitation",
        .title = "Streaming elicitation",
        .description = "Reports progress, then asks for a confirmation.",
        .input_schema = conformance_no_args,
        .call = conformance_streaming_elicitation,
    },
    {
        .name = "test_logging_tool",
        .title = "Logging tool",
        .description = "Writes one log line at info level, then returns.",
        .input_schema = conformance_no_args,
        .call = conformance_logging_tool,
    },
    {
        .name = "test_custom_headers",
        .title = "Custom headers",
        .description = "Shows its region argument, which the client also sends in the "
                       "Mcp-Param-Region header.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
                        "\"description\":\"A region name\",\"x-mcp-header\":\"Region\"}},"
                        "\"required\":[\"region\"],\"additionalProperties\":false}",
        .call = conformance_custom_headers,
    },
    {
        .name = "test_trigger_tool_change",
        .title = "Change the tool list",
        .description = "Adds test_dynamic_tool to the tool list, or removes it.",
        .input_schema = conformance_no_args,
        .call = conformance_trigger_tool_change,
    },
    {
        .name = "test_trigger_prompt_change",
        .title = "Change the prompt list",
        .description = "Adds test_dynamic_prompt to the prompt list, or removes it.",
        .input_schema = conformance_no_args,
        .call = conformance_trigger_prompt_change,
    },
    {0},
};

/* Defined at init while the tool list is in its changed state (struct conformance). */
static const struct mcph_tool conformance_dynamic_tool_row = {
    .name = "test_dynamic_tool",
    .title = "Dynamic tool",
    .description = "Listed while test_trigger_tool_change has run an odd number of times.",
    .input_schema = conformance_no_args,
    .call = conformance_dynamic_tool,
};

static const struct mcph_resource conformance_resources[] = {
    {
        .uri = "test://static-text",
        .name = "static-text",
        .title = "Static text",
        .description = "A text resource whose contents never change.",
        .mime_type = "text/plain",
        .size = sizeof(CONFORMANCE_STATIC_TEXT) - 1,
        .read = conformance_static_text,
    },
    {
        .uri = "test://static-binary",
        .name = "static-binary",
        .title = "Static binary",
        .description = "A binary resource: a 1x1 PNG image.",
        .mime_type = "image/png",
        .size = sizeof(conformance_png),
        .read = conformance_static_binary,
    },
    {
        .uri = "test://watched-resource",
        .name = "watched-resource",
        .title = "Watched resource",
        .description = "A text resource to subscribe to and unsubscribe from.",
        .mime_type = "text/plain",
        .read = conformance_watched,
    },
    {0},
};

/* {id} matches one path segment: test://template/123/data, not test://template/1/2/data. */
static const struct mcph_resource_template conformance_templates[] = {
    {
        .uri_template = "test://template/{id}/data",
        .name = "template-data",
        .title = "Template data",
        .description = "JSON data for the item {id}.",
        .mime_type = "application/json",
        .read = conformance_template,
    },
    {0},
};

static const struct mcph_prompt_arg conformance_two_args[] = {
    {.name = "arg1", .description = "First test argument", .required = 1},
    {.name = "arg2", .description = "Second test argument", .required = 1},
    {0},
};

static const struct mcph_prompt_arg conformance_resource_args[] = {
    {.name = "resourceUri", .description = "The URI of the resource to embed", .required = 1},
    {0},
};

static const struct mcph_prompt conformance_prompts[] = {
    {
        .name = "test_simple_prompt",
        .title = "Simple prompt",
        .description = "A prompt without arguments.",
        .get = conformance_simple_prompt,
    },
    {
        .name = "test_prompt_with_arguments",
        .title = "Prompt with arguments",
        .description = "A prompt with two required arguments, arg1 and arg2.",
        .arguments = conformance_two_args,
        .get = conformance_args_prompt,
        .complete = conformance_args_complete,
    },
    {
        .name = "test_prompt_with_embedded_resource",
        .title = "Prompt with an embedded resource",
        .description = "A prompt that embeds the resource named by resourceUri.",
        .arguments = conformance_resource_args,
        .get = conformance_embedded_prompt,
    },
    {
        .name = "test_prompt_with_image",
        .title = "Prompt with an image",
        .description = "A prompt with an image.",
        .get = conformance_image_prompt,
    },
    {
        .name = "test_input_required_result_prompt",
        .title = "Prompt that asks first",
        .description = "Asks the user for a context (elicitation), then builds the prompt.",
        .get = conformance_ir_prompt,
    },
    {0},
};

/* Defined at init while the prompt list is in its changed state (struct conformance). */
static const struct mcph_prompt conformance_dynamic_prompt_row = {
    .name = "test_dynamic_prompt",
    .title = "Dynamic prompt",
    .description = "Listed while test_trigger_prompt_change has run an odd number of times.",
    .get = conformance_dynamic_prompt,
};

/* Takes the list-change counts over from the instance this one replaces (it may still be
 * serving calls: they are read atomically), and defines the rows they call for. */
static int conformance_init(const struct mcph_host *host, void **state)
{
    struct conformance *conf = calloc(1, sizeof(*conf));
    struct conformance *before = host->predecessor(host);
    int rc = MCPH_OK;

    if (conf == NULL)
        return MCPH_ERR_NOMEM;
    if (before != NULL) {
        atomic_store(&conf->tool_changes, atomic_load(&before->tool_changes));
        atomic_store(&conf->prompt_changes, atomic_load(&before->prompt_changes));
    }
    if (atomic_load(&conf->tool_changes) % 2 == 1)
        rc = host->define_tool(host, &conformance_dynamic_tool_row);
    if (rc == MCPH_OK && atomic_load(&conf->prompt_changes) % 2 == 1)
        rc = host->define_prompt(host, &conformance_dynamic_prompt_row);
    if (rc != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR, "cannot define the changed tool or prompt list (%d)", rc);
        free(conf);
        return rc;
    }
    *state = conf;
    return MCPH_OK;
}

/* Runs after the last handler returned. */
static void conformance_shutdown(void *state)
{
    free(state);
}

/* Handlers may run in parallel (the counters are atomic); a rebuild takes the counters over,
 * and may define nothing where its predecessor defined a row (hence REBUILD_ON_RELOAD). */
static const struct mcph_plugin conformance_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "conformance",
    .version = "1.0.0",
    .description = "The fixtures of the MCP conformance server suite",
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_REBUILD_ON_RELOAD | MCPH_PLUGIN_TAKE_OVER,
    .init = conformance_init,
    .shutdown = conformance_shutdown,
    .tools = conformance_tools,
    .resources = conformance_resources,
    .resource_templates = conformance_templates,
    .prompts = conformance_prompts,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &conformance_plugin;
}
