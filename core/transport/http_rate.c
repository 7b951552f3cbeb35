/*
 * http_rate.c: the rate of HTTP requests per principal ([server] rate, rate_burst): a request
 * past it is refused with 429 and Retry-After before its body is read. And the 429 of a POST
 * whose one answer is a tool call refused by a [limit.NAME] section (call.c answers those
 * -32000 with data.retryAfterMs).
 */
#include "transport/http_int.h"
#include "lib/log.h"
#include "lib/status.h"
#include "served/ratelimit.h"
#include "served/server.h"
#include "wire/jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest answer looked at for a refusal: the error's message is under 256 bytes, so this
 * leaves room for any id a client sensibly sends (one longer just gets its -32000 with 200). */
#define HTTP_RATE_LINE_MAX 4096

/* Whose bucket a request takes from: its principal's. An anonymous one is its client address
 * on a listener off loopback (behind a proxy, the proxy's: one bucket), and on loopback the
 * one local user (http_auth.c). */
static const char *http_rate_who(const struct principal *who)
{
    return who != NULL ? who->id : "anonymous";
}

void http_rate_header(const struct http *h, struct MHD_Response *r, long retry_ms)
{
    char value[24];

    if (r == NULL)
        return;
    snprintf(value, sizeof(value), "%ld", ratelimit_seconds(retry_ms));
    h->lib.add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, value);
}

/* The 429: a JSON-RPC error (id null) whose data holds retryAfterMs, and Retry-After. */
static enum MHD_Result http_rate_refuse(const struct http *h, struct MHD_Connection *mc,
                                        long retry_ms, const char *message)
{
    cJSON *data = cJSON_CreateObject();
    cJSON *msg;
    char *text;
    struct MHD_Response *r;

    if (data != NULL)
        cJSON_AddNumberToObject(data, "retryAfterMs", (double)retry_ms);
    msg = jsonrpc_error(NULL, JSONRPC_SERVER_ERROR, message, data);
    text = msg != NULL ? cJSON_PrintUnformatted(msg) : NULL;
    cJSON_Delete(msg);
    r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);
    free(text);
    http_rate_header(h, r, retry_ms);
    return http_queue(h, mc, MHD_HTTP_TOO_MANY_REQUESTS, r);
}

int http_rate_admit(struct http *h, struct MHD_Connection *mc, const struct principal *who,
                    enum MHD_Result *rc)
{
    struct server *srv = h->srv;
    struct config_rate rate;
    struct ratelimit_ask ask;
    char message[160];
    long retry_ms;
    int burst;

    /* Reloadable: read each time, under the state lock (a SIGHUP swaps cfg under it). */
    pthread_mutex_lock(&srv->lock);
    rate = srv->cfg.rate;
    burst = srv->cfg.rate_burst;
    pthread_mutex_unlock(&srv->lock);
    if (rate.per_s <= 0)
        return 1;
    ask = (struct ratelimit_ask){.kind = RATELIMIT_REQUESTS,
                                 .section = "",
                                 .who = http_rate_who(who),
                                 .rate = rate.per_s,
                                 .burst = ratelimit_burst(&rate, burst)};
    if (ratelimit_take(srv->rates, &ask, 1, &retry_ms) == STATUS_OK)
        return 1;
    if (ask.log)
        log_msg(&srv->log, LOG_WARNING, NULL,
                "rate: %lu HTTP request(s) of %s refused by [server] rate (%g a second, burst "
                "%d; logged at most every %d s)",
                ask.refused, who != NULL ? who->label : ask.who, ask.rate, ask.burst,
                LIMIT_RATE_LOG_MS / 1000);
    snprintf(message, sizeof(message),
             "Rate limit exceeded: [server] rate allows %g requests a second (burst %d); retry "
             "after %ld ms",
             ask.rate, ask.burst, retry_ms);
    *rc = http_rate_refuse(h, mc, retry_ms, message);
    return 0;
}

long http_rate_refused(const char *line, size_t len)
{
    const cJSON *error, *data, *ms;
    cJSON *msg;
    long retry_ms = 0;

    /* A refusal is a short line (its message and id): a long answer, a tool's result most
     * likely, is not scanned. Then only an error that names retryAfterMs is parsed. */
    if (len > HTTP_RATE_LINE_MAX || strstr(line, "\"error\":") == NULL ||
        strstr(line, "\"retryAfterMs\":") == NULL)
        return 0;
    msg = cJSON_ParseWithLength(line, len);
    error = cJSON_GetObjectItemCaseSensitive(msg, "error");
    data = cJSON_GetObjectItemCaseSensitive(error, "data");
    ms = cJSON_GetObjectItemCaseSensitive(data, "retryAfterMs");
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(error, "code")) &&
        cJSON_GetObjectItemCaseSensitive(error, "code")->valueint == JSONRPC_SERVER_ERROR &&
        cJSON_IsNumber(ms) && ms->valuedouble >= 1 && ms->valuedouble < 1e9)
        retry_ms = (long)ms->valuedouble;
    cJSON_Delete(msg);
    return retry_ms;
}
