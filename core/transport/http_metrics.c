/*
 * http_metrics.c: the paths served beside the MCP endpoint for operators: metrics and health
 * ([server] metrics_path, live_path, ready_path). They sit behind the endpoint's Host and
 * credential rules, or, with metrics_listen = HOST:PORT, on a small listener of their own
 * (no credential; Host: the loopback names and allowed_hosts) and then not on the endpoint.
 */
#include "transport/http_int.h"
#include "transport/httpmsg.h"

#include "config/config.h"
#include "lib/log.h"
#include "lib/status.h"
#include "served/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/* Connections the own listener takes at once, and how long one may stay silent. */
#define HTTP_OPS_CONNECTIONS 8u
#define HTTP_OPS_TIMEOUT_S 10u
#define HTTP_OPS_TEXT "text/plain; version=0.0.4; charset=utf-8"

enum http_ops_path { HTTP_OPS_METRICS, HTTP_OPS_LIVE, HTTP_OPS_READY, HTTP_OPS_PATHS };

/* What http_metrics_start set up (h->ops, set and read under h->lock; fixed once set). */
struct http_ops {
    struct http *h;
    char *paths[HTTP_OPS_PATHS]; /* owned or NULL: as configured at the start */
    struct MHD_Daemon *daemon;   /* metrics_listen's listener, or NULL (served beside the
                                  * endpoint) */
    char *hosts[32];             /* owned: Host names the own listener answers (lower case) */
    size_t nhosts;
};

static int http_ops_which(const struct http_ops *ops, const char *url)
{
    for (int i = 0; i < HTTP_OPS_PATHS; i++) {
        if (ops->paths[i] != NULL && strcmp(ops->paths[i], url) == 0)
            return i;
    }
    return -1;
}

/* Which path url is, when served beside the endpoint: -1 when it is none of them. */
static int http_ops_beside(struct http *h, const char *url)
{
    int which = -1;

    pthread_mutex_lock(&h->lock);
    if (h->ops != NULL && h->ops->daemon == NULL)
        which = http_ops_which(h->ops, url);
    pthread_mutex_unlock(&h->lock);
    return which;
}

/* Queue text (copied) with status. A probe's 503 is an answer, not a refusal: it is not
 * counted in mcph_http_rejected_total. */
static enum MHD_Result http_ops_send(const struct http *h, struct MHD_Connection *mc,
                                     unsigned status, const char *text, size_t len)
{
    struct MHD_Response *r =
        h->lib.create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result rc;

    if (r == NULL)
        return MHD_NO;
    h->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, HTTP_OPS_TEXT);
    h->lib.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    rc = h->lib.queue_response(mc, status, r);
    h->lib.destroy_response(r);
    return rc;
}

/* The transport's own gauges: legacy sessions and long-lived streams open. */
static void http_ops_gauges(struct http *h, struct strbuf *sb)
{
    size_t sessions, streams;

    pthread_mutex_lock(&h->lock);
    sessions = h->nsessions;
    streams = h->nstreams;
    pthread_mutex_unlock(&h->lock);
    strbuf_addstr(sb, "# HELP mcph_sessions Legacy HTTP sessions (Mcp-Session-Id) open.\n"
                      "# TYPE mcph_sessions gauge\n");
    strbuf_addf(sb, "mcph_sessions %zu\n", sessions);
    strbuf_addstr(sb, "# HELP mcph_streams Long-lived HTTP streams open (GET streams, "
                      "subscriptions/listen).\n# TYPE mcph_streams gauge\n");
    strbuf_addf(sb, "mcph_streams %zu\n", streams);
}

static enum MHD_Result http_ops_metrics(struct http *h, struct MHD_Connection *mc)
{
    struct strbuf sb = STRBUF_INIT;
    enum MHD_Result rc;

    metrics_write(h->srv->metrics, h->srv, &sb);
    http_ops_gauges(h, &sb);
    if (sb.nomem) {
        strbuf_release(&sb);
        return MHD_NO;
    }
    rc = http_ops_send(h, mc, MHD_HTTP_OK, sb.buf, sb.len);
    strbuf_release(&sb);
    return rc;
}

static enum MHD_Result http_ops_ready(struct http *h, struct MHD_Connection *mc)
{
    char text[160];
    const char *why = "mcph is shutting down";

    if (!atomic_load(&h->closing) && !atomic_load(&h->stopping) && metrics_ready(h->srv, &why))
        return http_ops_send(h, mc, MHD_HTTP_OK, "ready\n", 6);
    snprintf(text, sizeof(text), "not ready: %s\n", why);
    return http_ops_send(h, mc, MHD_HTTP_SERVICE_UNAVAILABLE, text, strlen(text));
}

/* Answer path which (enum http_ops_path) to a request of method. */
static enum MHD_Result http_ops_reply(struct http *h, struct MHD_Connection *mc, int which,
                                      const char *method)
{
    static const char not_allowed[] = "Method Not Allowed: use GET\n";

    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return http_ops_send(h, mc, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
                             sizeof(not_allowed) - 1);
    if (which == HTTP_OPS_METRICS)
        return http_ops_metrics(h, mc);
    if (which == HTTP_OPS_READY)
        return http_ops_ready(h, mc);
    if (atomic_load(&h->closing) || atomic_load(&h->stopping))
        return http_ops_send(h, mc, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down\n", 14);
    return http_ops_send(h, mc, MHD_HTTP_OK, "ok\n", 3);
}

int http_metrics_path(const struct http *h, const char *url)
{
    /* h->lock is taken: the transport's lock, not the answer's state. */
    return http_ops_beside((struct http *)h, url) >= 0;
}

enum MHD_Result http_metrics_answer(struct http *h, struct MHD_Connection *mc, const char *url,
                                    const char *method)
{
    int which = http_ops_beside(h, url);

    if (which < 0)
        return http_fail(h, mc, MHD_HTTP_NOT_FOUND, JSONRPC_SERVER_ERROR, "Not Found");
    return http_ops_reply(h, mc, which, method);
}

/* --- metrics_listen: a listener of their own. --- */

static int http_ops_host_ok(const struct http_ops *ops, struct MHD_Connection *mc)
{
    const char *value = ops->h->lib.lookup_connection_value(mc, MHD_HEADER_KIND, "Host");
    char host[256];

    if (value == NULL)
        return 0;
    httpmsg_host_part(value, strlen(value), host, sizeof(host));
    for (size_t i = 0; i < ops->nhosts; i++) {
        if (strcmp(ops->hosts[i], host) == 0)
            return 1;
    }
    return 0;
}

/* The own listener's access handler: the three paths, nothing else, no credential. */
static enum MHD_Result http_ops_handle(void *cls, struct MHD_Connection *mc, const char *url,
                                       const char *method, const char *version,
                                       const char *upload_data, size_t *upload_size, void **con_cls)
{
    static const char bad_host[] = "Forbidden: Host is not a loopback name nor one of "
                                   "[server] allowed_hosts\n";
    static const char not_found[] = "Not Found\n";
    struct http_ops *ops = cls;
    int which = http_ops_which(ops, url);

    (void)version;
    (void)upload_data;
    /* A body is not read: the answer goes at once, and the connection closes after it. */
    if (*con_cls != NULL) {
        *upload_size = 0;
        return MHD_YES;
    }
    *con_cls = ops;
    if (!http_ops_host_ok(ops, mc))
        return http_ops_send(ops->h, mc, MHD_HTTP_FORBIDDEN, bad_host, sizeof(bad_host) - 1);
    if (which < 0)
        return http_ops_send(ops->h, mc, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1);
    return http_ops_reply(ops->h, mc, which, method);
}

/* Listen on metrics_listen (HOST:PORT, checked at load). */
static int http_ops_listen(struct http_ops *ops, const char *listen)
{
    struct http *h = ops->h;
    const char *file = h->srv->cfg.file;
    char host[64];
    int port = 0;
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
    struct sockaddr_in a4 = {.sin_family = AF_INET};
    const struct sockaddr *addr = (const struct sockaddr *)&a4;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    const union MHD_DaemonInfo *info;

    if (config_listen_split(listen, host, sizeof(host), &port) != STATUS_OK)
        return STATUS_INVALID;
    a6.sin6_port = a4.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
        addr = (const struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host,
                         &a4.sin_addr) != 1) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] metrics_listen = %s: '%s' is not an IP address; use 127.0.0.1, "
                "[::1] or an address of this machine",
                file, listen, host);
        return STATUS_INVALID;
    }
    ops->daemon = h->lib.start_daemon(
        flags, (uint16_t)port, NULL, NULL, http_ops_handle, ops, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_CONNECTION_LIMIT, HTTP_OPS_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
        HTTP_OPS_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_END);
    if (ops->daemon == NULL) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] metrics_listen = %s: cannot listen there (%s); is the port in use?",
                file, listen, strerror(errno));
        return STATUS_IO;
    }
    info = h->lib.get_daemon_info(ops->daemon, MHD_DAEMON_INFO_BIND_PORT);
    log_msg(&h->srv->log, LOG_INFO, NULL, "metrics and health on http://%s%s%s:%u (no credential)",
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
            info ? info->port : (unsigned)port);
    return STATUS_OK;
}

static void http_ops_free(struct http_ops *ops)
{
    if (ops == NULL)
        return;
    if (ops->daemon != NULL)
        ops->h->lib.stop_daemon(ops->daemon);
    for (int i = 0; i < HTTP_OPS_PATHS; i++)
        free(ops->paths[i]);
    for (size_t i = 0; i < ops->nhosts; i++)
        free(ops->hosts[i]);
    free(ops);
}

/* The own listener's Host names: the loopback ones and allowed_hosts. */
static int http_ops_names(struct http_ops *ops, const struct config *cfg)
{
    int status = http_add_names(ops->hosts, &ops->nhosts, 32, "localhost 127.0.0.1 [::1]");

    if (status == STATUS_OK)
        status = http_add_names(ops->hosts, &ops->nhosts, 32, cfg->allowed_hosts);
    return status;
}

int http_metrics_start(struct http *h)
{
    const struct config *cfg = &h->srv->cfg;
    const char *paths[HTTP_OPS_PATHS] = {cfg->metrics_path, cfg->live_path, cfg->ready_path};
    struct http_ops *ops;
    int status = STATUS_OK;

    if (paths[0] == NULL && paths[1] == NULL && paths[2] == NULL)
        return STATUS_OK;
    ops = calloc(1, sizeof(*ops));
    if (ops == NULL)
        return STATUS_NOMEM;
    ops->h = h;
    for (int i = 0; i < HTTP_OPS_PATHS && status == STATUS_OK; i++) {
        if (paths[i] != NULL && (ops->paths[i] = strdup(paths[i])) == NULL)
            status = STATUS_NOMEM;
    }
    if (status == STATUS_OK && cfg->metrics_listen != NULL)
        status = http_ops_names(ops, cfg);
    if (status == STATUS_OK && cfg->metrics_listen != NULL)
        status = http_ops_listen(ops, cfg->metrics_listen);
    if (status != STATUS_OK) {
        http_ops_free(ops);
        return status;
    }
    pthread_mutex_lock(&h->lock);
    h->ops = ops;
    pthread_mutex_unlock(&h->lock);
    return STATUS_OK;
}

void http_metrics_stop(struct http *h)
{
    struct http_ops *ops;

    pthread_mutex_lock(&h->lock);
    ops = h->ops;
    h->ops = NULL;
    pthread_mutex_unlock(&h->lock);
    http_ops_free(ops);
}
