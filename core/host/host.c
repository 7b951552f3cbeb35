#include "host/host.h"

#include "lib/limits.h"
#include "lib/number.h"
#include "lib/log.h"
#include "host/plugin.h"
#include "host/result.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "lib/utf8.h"
#include "lib/version.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host member finds its instance: vt is the first member of struct plugin_host. */
static struct plugin *host_plugin(const struct mcph_host *vt)
{
    return ((const struct plugin_host *)(const void *)vt)->plugin;
}

static void host_log(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void host_vlog(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt,
                      va_list ap) __attribute__((format(printf, 3, 0)));

static void host_log(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    host_vlog(vt, level, fmt, ap);
    va_end(ap);
}

static const char *host_config(const struct mcph_host *vt, const char *key)
{
    struct plugin *pl = host_plugin(vt);

    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < pl->nconfig; i++) {
        if (strcmp(pl->config[i].key, key) == 0)
            return pl->config[i].value;
    }
    for (size_t i = 0; i < pl->nkeys; i++) {
        if (strcmp(pl->keys[i].name, key) == 0)
            return pl->keys[i].default_value;
    }
    return NULL;
}

/* --- Arguments. --- */

static const cJSON *host_arg(struct mcph_call *c, const char *name)
{
    if (c == NULL || name == NULL)
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(c->args, name);
}

static int host_arg_string(struct mcph_call *c, const char *name, const char **value)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsString(a))
        return MCPH_ERR_TYPE;
    *value = a->valuestring;
    return MCPH_OK;
}

static int host_arg_number(struct mcph_call *c, const char *name, double *value)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsNumber(a))
        return MCPH_ERR_TYPE;
    *value = a->valuedouble;
    return MCPH_OK;
}

static int host_arg_integer(struct mcph_call *c, const char *name, int64_t *value)
{
    const cJSON *a = host_arg(c, name);
    double d;

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsNumber(a))
        return MCPH_ERR_TYPE;
    d = a->valuedouble;
    /* 2^63 is exactly representable; anything at or past it is out of range. */
    if (d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return MCPH_ERR_TYPE;
    *value = (int64_t)d;
    return MCPH_OK;
}

static int host_arg_bool(struct mcph_call *c, const char *name, int *value)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsBool(a))
        return MCPH_ERR_TYPE;
    *value = cJSON_IsTrue(a);
    return MCPH_OK;
}

/* Keep a printed string until the call ends, so the handler can borrow it. */
static int host_lend(struct mcph_call *c, char *text, const char **out)
{
    char **grown;

    if (text == NULL)
        return MCPH_ERR_NOMEM;
    grown = realloc(c->scratch, (c->nscratch + 1) * sizeof(*grown));
    if (grown == NULL) {
        free(text);
        return MCPH_ERR_NOMEM;
    }
    c->scratch = grown;
    c->scratch[c->nscratch++] = text;
    *out = text;
    return MCPH_OK;
}

static int host_arg_json(struct mcph_call *c, const char *name, const char **json)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    return host_lend(c, number_print(a), json);
}

static int host_args_json(struct mcph_call *c, const char **json)
{
    if (c == NULL || json == NULL)
        return MCPH_ERR_INVALID;
    return host_lend(c, number_print(c->args), json);
}

static const char *host_uri(struct mcph_call *c)
{
    return c != NULL ? c->uri : NULL;
}

/* --- Since 1.1. --- */

static int host_progress(struct mcph_call *c, double progress, double total, const char *message)
{
    if (c == NULL)
        return MCPH_ERR_INVALID;
    if (c->env == NULL || c->env->progress == NULL || isnan(progress))
        return MCPH_OK;
    /* Progress never goes back: a lower value is dropped, not sent. */
    if (c->progress_sent && progress < c->last_progress)
        return MCPH_OK;
    c->progress_sent = 1;
    c->last_progress = progress;
    c->env->progress(c->env->ctx, progress, total, message);
    return MCPH_OK;
}

static int host_cancelled(struct mcph_call *c)
{
    return c != NULL && c->env != NULL && c->env->cancelled != NULL &&
           c->env->cancelled(c->env->ctx);
}

static void host_resource_updated(const struct mcph_host *vt, const char *uri)
{
    struct plugin *pl = host_plugin(vt);

    if (uri != NULL && pl->env != NULL && pl->env->resource_updated != NULL)
        pl->env->resource_updated(pl->env->ctx, uri);
}

/* A question refused before it reached the protocol side (bad input): it still uses up the
 * name host->ask_key gave it, so that name never lands on a later question. */
static int host_ask_refused(struct mcph_call *c, int status)
{
    if (c != NULL && c->env != NULL && c->env->ask_key != NULL)
        c->env->ask_key(c->env->ctx, NULL);
    return status;
}

/* Ask the client; the answer is lent to the handler as JSON text. */
static int host_ask(struct mcph_call *c, int what, cJSON *params, const char **result_json)
{
    cJSON *answer = NULL;
    int rc;

    if (c == NULL || result_json == NULL) {
        cJSON_Delete(params);
        return host_ask_refused(c, MCPH_ERR_INVALID);
    }
    if (c->env == NULL || c->env->ask == NULL) {
        cJSON_Delete(params);
        return MCPH_ERR_UNSUPPORTED;
    }
    rc = c->env->ask(c->env->ctx, what, params, &answer);
    if (answer != NULL) {
        int lent = host_lend(c, number_print(answer), result_json);

        cJSON_Delete(answer);
        if (lent != MCPH_OK)
            return lent;
    }
    return rc;
}

/* A plugin's JSON text parsed, bounded as a message is (mcph-json.h): NULL for NULL, for text
 * that is not JSON and for text past LIMIT_JSON_COST once parsed (a relayed question can be
 * anything a child or a server sent). */
static cJSON *host_parse(const char *json)
{
    if (json == NULL || mcph_json_over(json, strlen(json), LIMIT_JSON_COST, NULL, NULL))
        return NULL;
    return cJSON_Parse(json);
}

static int host_sample(struct mcph_call *c, const char *params_json, const char **result_json)
{
    cJSON *params = host_parse(params_json);

    if (!cJSON_IsObject(params)) {
        cJSON_Delete(params);
        return host_ask_refused(c, MCPH_ERR_INVALID);
    }
    return host_ask(c, HOST_ASK_SAMPLE, params, result_json);
}

static int host_elicit(struct mcph_call *c, const char *message, const char *schema_json,
                       const char **result_json)
{
    cJSON *schema = host_parse(schema_json);
    cJSON *params = cJSON_CreateObject();

    if (message == NULL || !cJSON_IsObject(schema) || params == NULL ||
        cJSON_AddStringToObject(params, "message", message) == NULL) {
        cJSON_Delete(schema);
        cJSON_Delete(params);
        return host_ask_refused(c, message == NULL || !cJSON_IsObject(schema) ? MCPH_ERR_INVALID
                                                                              : MCPH_ERR_NOMEM);
    }
    cJSON_AddItemToObject(params, "requestedSchema", schema);
    return host_ask(c, HOST_ASK_ELICIT, params, result_json);
}

static int host_roots(struct mcph_call *c, const char **result_json)
{
    return host_ask(c, HOST_ASK_ROOTS, NULL, result_json);
}

/* --- Since 1.2. --- */

static int host_define_tool(const struct mcph_host *vt, const struct mcph_tool *tool)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_TOOL, tool);
}

static int host_define_resource(const struct mcph_host *vt, const struct mcph_resource *resource)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_RESOURCE, resource);
}

static int host_define_template(const struct mcph_host *vt,
                                const struct mcph_resource_template *resource_template)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_TEMPLATE, resource_template);
}

static int host_define_prompt(const struct mcph_host *vt, const struct mcph_prompt *prompt)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_PROMPT, prompt);
}

static void host_refresh(const struct mcph_host *vt)
{
    struct plugin *pl = host_plugin(vt);

    if (pl->env != NULL && pl->env->refresh != NULL)
        pl->env->refresh(pl->env->ctx, pl->id);
}

static const char *host_call_name(struct mcph_call *c)
{
    return c != NULL ? c->name : NULL;
}

static const void *host_call_data(struct mcph_call *c)
{
    return c != NULL ? c->data : NULL;
}

static void host_vlog(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt,
                      va_list ap) __attribute__((format(printf, 3, 0)));

static void host_vlog(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt,
                      va_list ap)
{
    struct plugin *pl = host_plugin(vt);
    char who[LIMIT_ID + 16];
    struct strbuf text = STRBUF_INIT;
    const char *file = NULL;
    int line = 0;
    va_list copy;

    if ((int)level < LOG_DEBUG || (int)level > LOG_EMERGENCY)
        level = MCPH_LOG_ERROR;
    snprintf(who, sizeof(who), "plugin %s", pl->id);
    /* A problem init reports is most often its section's: say where (FILE:LINE). */
    if ((int)level >= LOG_WARNING && plugin_initializing(pl)) {
        va_copy(copy, ap);
        (void)strbuf_vaddf(&text, fmt, copy);
        va_end(copy);
        line = plugin_init_line(pl, text.buf, &file);
    }
    if (line > 0)
        log_msg(pl->log, (int)level, who, "%s:%d: %s", file, line, text.buf);
    else
        log_vmsg(pl->log, (int)level, who, fmt, ap);
    strbuf_release(&text);
}

static const char *host_config_path(const struct mcph_host *vt, const char *key)
{
    return plugin_config_path(host_plugin(vt), key);
}

/* --- Since 1.3. --- */

/* A level outside the enum is sent as an error, as log() does; bad JSON is refused whether
 * or not the client's level admits the message, so a plugin learns of it either way. */
static int host_client_log(const struct mcph_host *vt, enum mcph_log_level level,
                           const char *logger, const char *data_json)
{
    struct plugin *pl = host_plugin(vt);
    int lvl = (int)level < LOG_DEBUG || (int)level > LOG_EMERGENCY ? LOG_ERROR : (int)level;
    cJSON *data;

    /* Relayed whole from a child or a server: bounded as a message is (mcph-json.h). */
    if (data_json && mcph_json_over(data_json, strlen(data_json), LIMIT_JSON_COST, NULL, NULL))
        return MCPH_ERR_LIMIT;
    data = data_json ? cJSON_Parse(data_json) : NULL;
    if (data == NULL)
        return MCPH_ERR_INVALID;
    /* Admitted exactly as the core's own log lines are (the client's chosen level, or a
     * 2026-07-28 request's own while its handler runs on this thread); never on stderr. */
    if (pl->env == NULL || pl->env->client_log == NULL || !log_sink_wants(pl->log, lvl) ||
        number_exact(data) != STATUS_OK) {
        cJSON_Delete(data);
        return MCPH_OK;
    }
    pl->env->client_log(pl->env->ctx, lvl, logger ? logger : pl->id, data);
    return MCPH_OK;
}

/* The state handed over only while this instance's init runs, on the thread running it. */
static void *host_predecessor(const struct mcph_host *vt)
{
    struct plugin *pl = host_plugin(vt);

    if (pl->loading == NULL || !pthread_equal(pl->loader, pthread_self()))
        return NULL;
    return pl->predecessor;
}

/* --- Since 1.4. --- */

static int host_ask_key(struct mcph_call *c, const char *key)
{
    if (c == NULL || key == NULL)
        return MCPH_ERR_INVALID;
    /* No protocol side (a call made outside a request): nothing is asked, nothing to name. */
    if (c->env == NULL || c->env->ask_key == NULL)
        return MCPH_OK;
    return c->env->ask_key(c->env->ctx, key);
}

/* --- Since 1.5. --- */

static const char *host_call_origin(struct mcph_call *c)
{
    if (c == NULL)
        return NULL;
    /* No protocol side (a call made outside a request): no request to tell apart. */
    if (c->env == NULL || c->env->origin == NULL)
        return "";
    return c->env->origin(c->env->ctx);
}

/* The text is the instance's own: kept with it, served by the registries that hold it. */
static int host_instructions(const struct mcph_host *vt, const char *text)
{
    struct plugin *pl = host_plugin(vt);
    char *copy = NULL;

    if (!plugin_initializing(pl))
        return MCPH_ERR_STATE;
    if (text != NULL && strnlen(text, MCPH_MAX_INSTRUCTIONS + 1) > MCPH_MAX_INSTRUCTIONS)
        return MCPH_ERR_LIMIT;
    if (text != NULL && text[0] != '\0') {
        copy = utf8_own(strdup(text));
        if (copy == NULL)
            return MCPH_ERR_NOMEM;
    }
    free(pl->instructions);
    pl->instructions = copy;
    return MCPH_OK;
}

/* --- Since 1.6. --- */

static const char *host_trace_context(struct mcph_call *c, const char **tracestate)
{
    if (tracestate != NULL)
        *tracestate = NULL;
    if (c == NULL)
        return NULL;
    /* No protocol side (a call made outside a request): no trace to pass on. */
    if (c->env == NULL || c->env->trace == NULL)
        return "";
    return c->env->trace(c->env->ctx, tracestate);
}

/* --- Since 1.7. --- */

static int host_keep(struct mcph_call *c, const char *text)
{
    if (c == NULL)
        return MCPH_ERR_INVALID;
    /* No protocol side (a call made outside a request): no retry to keep anything for. */
    if (c->env == NULL || c->env->keep == NULL)
        return MCPH_OK;
    return c->env->keep(c->env->ctx, text);
}

static const char *host_kept(struct mcph_call *c)
{
    if (c == NULL || c->env == NULL || c->env->kept == NULL)
        return NULL;
    return c->env->kept(c->env->ctx);
}

void host_setup(struct plugin_host *h, struct plugin *pl)
{
    static const struct mcph_host vtable = {
        .size = sizeof(struct mcph_host),
        .abi_major = MCPH_ABI_MAJOR,
        .abi_minor = MCPH_ABI_MINOR,
        .version = MCPH_VERSION,
        .log = host_log,
        .config = host_config,
        .arg_string = host_arg_string,
        .arg_number = host_arg_number,
        .arg_integer = host_arg_integer,
        .arg_bool = host_arg_bool,
        .arg_json = host_arg_json,
        .args_json = host_args_json,
        .uri = host_uri,
        .text = result_text,
        .image = result_image,
        .audio = result_audio,
        .resource_link = result_resource_link,
        .embedded_text = result_embedded_text,
        .embedded_blob = result_embedded_blob,
        .structured = result_structured,
        .tool_error = result_tool_error,
        .contents_text = result_contents_text,
        .contents_blob = result_contents_blob,
        .prompt_message = result_prompt_message,
        .prompt_description = result_prompt_description,
        .error = result_error,
        .progress = host_progress,
        .cancelled = host_cancelled,
        .resource_updated = host_resource_updated,
        .completion = result_completion,
        .annotate = result_annotate,
        .content_meta = result_content_meta,
        .sample = host_sample,
        .elicit = host_elicit,
        .roots = host_roots,
        .define_tool = host_define_tool,
        .define_resource = host_define_resource,
        .define_template = host_define_template,
        .define_prompt = host_define_prompt,
        .refresh = host_refresh,
        .call_name = host_call_name,
        .config_path = host_config_path,
        .call_data = host_call_data,
        .vlog = host_vlog,
        .result_json = result_json,
        .client_log = host_client_log,
        .predecessor = host_predecessor,
        .ask_key = host_ask_key,
        .call_origin = host_call_origin,
        .instructions = host_instructions,
        .trace_context = host_trace_context,
        .keep = host_keep,
        .kept = host_kept,
    };

    h->vt = vtable;
    h->vt.instance = pl->id;
    h->plugin = pl;
}
