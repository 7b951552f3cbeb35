/*
 * http_check.c: a request's first look, before anything is read: its framing (a header that
 * must come once, Content-Length with chunked), Host and Origin against the allowed names (DNS
 * rebinding), its credential (http_auth.c), the method and the media types; then it goes to
 * its method (http_post.c, http_session.c), or to the paths served beside the endpoint
 * (http_auth.c's metadata, http_metrics.c).
 */
#include "transport/http_int.h"
#include "transport/httpmsg.h"
#include "lib/status.h"
#include "served/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int http_host_allowed(const struct http *h, const char *authority, size_t len)
{
    char host[256];

    httpmsg_host_part(authority, len, host, sizeof(host));
    for (size_t i = 0; i < h->nhosts; i++) {
        if (strcmp(h->hosts[i], host) == 0)
            return 1;
    }
    return 0;
}

/* Origin: absent (not a browser), an allowed host over http(s), or one listed. */
int http_origin_allowed(const struct http *h, const char *origin)
{
    const char *authority;

    if (origin == NULL)
        return 1;
    for (size_t i = 0; i < h->norigins; i++) {
        if (strcasecmp(h->origins[i], origin) == 0)
            return 1;
    }
    if (strncasecmp(origin, "http://", 7) == 0)
        authority = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        authority = origin + 8;
    else
        return 0;
    return http_host_allowed(h, authority, strcspn(authority, "/"));
}

int http_is_json_type(const char *type)
{
    return type != NULL && strncasecmp(type, "application/json", 16) == 0 &&
           (type[16] == '\0' || type[16] == ';' || type[16] == ' ');
}

static enum MHD_Result http_open_post(struct http *h, struct MHD_Connection *mc,
                                      struct principal *who, void **con_cls)
{
    const char *type = http_header(h, mc, MHD_HTTP_HEADER_CONTENT_TYPE);
    const char *accept = http_header(h, mc, MHD_HTTP_HEADER_ACCEPT);
    const char *length = http_header(h, mc, MHD_HTTP_HEADER_CONTENT_LENGTH);
    struct http_conn *c;

    if (!http_is_json_type(type))
        return http_fail(h, mc, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, JSONRPC_SERVER_ERROR,
                         "Unsupported Media Type: Content-Type must be application/json");
    if (!httpmsg_accepts(accept, "application/json") ||
        !httpmsg_accepts(accept, "text/event-stream"))
        return http_fail(h, mc, MHD_HTTP_NOT_ACCEPTABLE, JSONRPC_SERVER_ERROR,
                         "Not Acceptable: Client must accept both application/json and "
                         "text/event-stream");
    if (length != NULL && strtoull(length, NULL, 10) > LIMIT_MESSAGE_BYTES)
        return http_fail(h, mc, MHD_HTTP_CONTENT_TOO_LARGE, JSONRPC_SERVER_ERROR,
                         "Payload Too Large: a body longer than 16 MiB");
    c = http_conn_new(h, mc, HTTP_POST, who);
    if (c == NULL)
        return MHD_NO;
    *con_cls = c;
    return MHD_YES;
}

static const char *const http_once[] = {
    MHD_HTTP_HEADER_HOST,
    MHD_HTTP_HEADER_CONTENT_LENGTH,
    MHD_HTTP_HEADER_TRANSFER_ENCODING,
    MHD_HTTP_HEADER_CONTENT_TYPE,
    MHD_HTTP_HEADER_AUTHORIZATION,
    MHD_HTTP_HEADER_ORIGIN,
    HTTP_VERSION_HEADER,
    "Mcp-Method",
    "Mcp-Name",
    HTTP_SESSION_HEADER,
};

void http_framing_count(struct http_framing *f, const char *key)
{
    if (strpbrk(key, " \t") != NULL)
        f->bad_name = 1;
    for (size_t i = 0; i < sizeof(http_once) / sizeof(http_once[0]); i++) {
        if (strcasecmp(key, http_once[i]) == 0)
            f->counts[i]++;
    }
}

const char *http_framing_problem(const struct http_framing *f, const char *te, unsigned *status)
{
    *status = MHD_HTTP_BAD_REQUEST;
    if (f->bad_name)
        return "Bad Request: white space in a header name";
    for (size_t i = 0; i < sizeof(http_once) / sizeof(http_once[0]); i++) {
        if (f->counts[i] > 1)
            return "Bad Request: a header that must come once came twice";
    }
    if (f->counts[1] > 0 && f->counts[2] > 0)
        return "Bad Request: Content-Length and Transfer-Encoding together";
    if (te != NULL && strcasecmp(te, "chunked") != 0) {
        *status = MHD_HTTP_NOT_IMPLEMENTED;
        return "Not Implemented: only the chunked transfer coding is taken";
    }
    return NULL;
}

static enum MHD_Result http_count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
    (void)kind;
    (void)value;
    http_framing_count(cls, key);
    return MHD_YES;
}

/* What is wrong with the request's framing (RFC 9112: a header that must come once came
 * twice, a name with white space, a length and a chunked body at once), or NULL. A request
 * refused here is answered and its connection closed. */
static const char *http_check_framing(const struct http *h, struct MHD_Connection *mc,
                                      unsigned *status)
{
    struct http_framing f = {0};

    h->lib.get_connection_values(mc, MHD_HEADER_KIND, http_count_header, &f);
    return http_framing_problem(&f, http_header(h, mc, MHD_HTTP_HEADER_TRANSFER_ENCODING), status);
}

/* The request is whole (headers, and body when it has one): the ticker's limit on how long
 * a request may take to arrive no longer applies to it. */
static void http_sock_answering(struct http *h, struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *info =
        h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct http_sock *sock = info != NULL ? info->socket_context : NULL;

    if (sock == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    sock->answering = 1;
    pthread_mutex_unlock(&h->lock);
}

/* A refusal before the body is read: the connection closes after it (what follows on it may
 * be the rest of a body nobody framed). */
static enum MHD_Result http_refuse_framing(const struct http *h, struct MHD_Connection *mc,
                                           unsigned status, const char *message)
{
    char *text = http_error_text(JSONRPC_SERVER_ERROR, message);
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    free(text);
    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    return http_queue(h, mc, status, r);
}

/* A new request, headers read: who may ask, and what. authorization: its Authorization value
 * (trimmed, whole), or NULL. */
static enum MHD_Result http_begin_as(struct http *h, struct MHD_Connection *mc, const char *url,
                                     const char *method, void **con_cls, const char *authorization)
{
    char host_buf[256], origin_buf[256], buf[400];
    const char *host = http_value(h, mc, MHD_HTTP_HEADER_HOST, host_buf, sizeof(host_buf));
    const char *origin = http_value(h, mc, MHD_HTTP_HEADER_ORIGIN, origin_buf, sizeof(origin_buf));
    const char *problem;
    unsigned status;
    struct principal *who = NULL;
    enum MHD_Result rc;

    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        http_sock_answering(h, mc);
    /* Shutting down: a request on a connection kept alive is turned away. */
    if (atomic_load(&h->closing))
        return http_refuse_framing(h, mc, MHD_HTTP_SERVICE_UNAVAILABLE,
                                   "Service Unavailable: mcph is shutting down");
    problem = http_check_framing(h, mc, &status);
    if (problem != NULL)
        return http_refuse_framing(h, mc, status, problem);
    if (host == NULL || !http_host_allowed(h, host, strlen(host))) {
        snprintf(buf, sizeof(buf), "Invalid Host header: %.64s (see [server] allowed_hosts)",
                 host ? host : "null");
        return http_fail(h, mc, MHD_HTTP_FORBIDDEN, JSONRPC_SERVER_ERROR, buf);
    }
    if (!http_origin_allowed(h, origin)) {
        snprintf(buf, sizeof(buf), "Invalid Origin header: %.64s (see [server] allowed_origins)",
                 origin);
        return http_fail(h, mc, MHD_HTTP_FORBIDDEN, JSONRPC_SERVER_ERROR, buf);
    }
    /* What is served beside the endpoint: the resource metadata (before any credential),
     * metrics and health (after it, unless they listen elsewhere). */
    if (http_auth_route(h, mc, url, method, &rc))
        return rc;
    if (strcmp(url, h->path) != 0 && !http_metrics_path(h, url)) {
        snprintf(buf, sizeof(buf), "Not Found: the MCP endpoint is %s ([server] http_path)",
                 h->path);
        return http_fail(h, mc, MHD_HTTP_NOT_FOUND, JSONRPC_SERVER_ERROR, buf);
    }
    if (!http_auth(h, mc, authorization, &who, &rc))
        return rc;
    if (!http_rate_admit(h, mc, who, &rc)) {
        principal_drop(who);
        return rc;
    }
    if (strcmp(url, h->path) != 0)
        rc = http_metrics_answer(h, mc, url, method);
    else if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        rc = http_open_post(h, mc, who, con_cls);
    else if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        rc = http_open_stream(h, mc, who, con_cls);
    else if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
        rc = http_delete(h, mc, who);
    else
        rc = http_fail(h, mc, MHD_HTTP_METHOD_NOT_ALLOWED, JSONRPC_SERVER_ERROR,
                       "Method not allowed: use POST (GET and DELETE for a legacy session)");
    principal_drop(who);
    return rc;
}

/* The Authorization value is taken whole (an access token may be kilobytes long; the
 * connection's memory limit bounds it), trimmed into a buffer of its own. */
static enum MHD_Result http_begin(struct http *h, struct MHD_Connection *mc, const char *url,
                                  const char *method, void **con_cls)
{
    const char *raw = http_header(h, mc, MHD_HTTP_HEADER_AUTHORIZATION);
    size_t size = raw != NULL ? strlen(raw) + 1 : 0;
    char *authorization = raw != NULL ? malloc(size) : NULL;
    enum MHD_Result rc;

    if (raw != NULL && authorization == NULL)
        return MHD_NO;
    rc = http_begin_as(h, mc, url, method, con_cls,
                       raw != NULL ? http_trim(raw, authorization, size) : NULL);
    free(authorization);
    return rc;
}

enum MHD_Result http_handle(void *cls, struct MHD_Connection *mc, const char *url,
                            const char *method, const char *version, const char *upload_data,
                            size_t *upload_size, void **con_cls)
{
    struct http_conn *c = *con_cls;

    (void)version;
    if (c == NULL)
        return http_begin(cls, mc, url, method, con_cls);
    if (c->kind != HTTP_POST)
        return MHD_YES;
    if (!c->processed) {
        if (*upload_size > 0) {
            http_take_body(c, upload_data, *upload_size);
            *upload_size = 0;
            return MHD_YES;
        }
        c->processed = 1;
        http_sock_answering(c->h, mc);
        return http_post(c);
    }
    return http_post_answer(c);
}

static int http_add_name(char **list, size_t *n, size_t cap, const char *name, size_t len)
{
    char *copy;

    if (*n >= cap || len == 0)
        return *n >= cap ? STATUS_LIMIT : STATUS_OK;
    copy = strndup(name, len);
    if (copy == NULL)
        return STATUS_NOMEM;
    for (char *p = copy; *p != '\0'; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    list[(*n)++] = copy;
    return STATUS_OK;
}

/* Names separated by spaces or commas. */
int http_add_names(char **list, size_t *n, size_t cap, const char *names)
{
    int status = STATUS_OK;

    for (const char *p = names; p != NULL && *p != '\0' && status == STATUS_OK;) {
        size_t len;

        p += strspn(p, " \t,");
        len = strcspn(p, " \t,");
        status = http_add_name(list, n, cap, p, len);
        p += len;
    }
    return status;
}

/* Whether the listen address is a loopback one (127.0.0.0/8, ::1, or 127/8 mapped to IPv6). */
int http_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;

    if (strcmp(host, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) != 1)
        return 0;
    return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
}
