/*
 * remote_http.c: the relay's requests (remote_int.h): a POST for each stdin line with the
 * headers a Streamable HTTP server wants (the 2026-07-28 ones mirrored from the body), the
 * GET stream of a legacy session and its DELETE; libcurl's options (the SSRF guard at each
 * socket, TLS verified, no proxy, http(s) only, three redirects), and what each answer or
 * failure becomes on stdout.
 */
#include "client/remote_int.h"

#include "lib/base64.h"
#include "lib/status.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* The guard, at the address each socket is about to connect to (redirects and every DNS
 * answer included). */
static curl_socket_t remote_open_socket(void *ctx, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct remote_req *req = ctx;

    if (purpose != CURLSOCKTYPE_IPCXN ||
        !remote_guard_check(&req->r->guard, &a->addr, a->addrlen, req->refused_addr,
                            sizeof(req->refused_addr))) {
        req->refused = 1;
        return CURL_SOCKET_BAD;
    }
    req->opened++;
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* Mcp-Session-Id from the answer's headers. */
static size_t remote_on_header(char *buf, size_t size, size_t n, void *ctx)
{
    struct remote_req *req = ctx;
    size_t len = size * n, vlen;
    const char *value;

    if (len > 15 && strncasecmp(buf, "Mcp-Session-Id:", 15) == 0) {
        value = buf + 15;
        vlen = len - 15;
        while (vlen > 0 && (*value == ' ' || *value == '\t')) {
            value++;
            vlen--;
        }
        while (vlen > 0 &&
               (value[vlen - 1] == '\r' || value[vlen - 1] == '\n' || value[vlen - 1] == ' '))
            vlen--;
        free(req->session);
        req->session = vlen > 0 ? strndup(value, vlen) : NULL;
    }
    return len;
}

/* What the answer of req to the handshake teaches: the version, the session, the era. */
static void remote_learn(struct remote *r, struct remote_req *req, const cJSON *result)
{
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
    const cJSON *v;

    if (req->handshake == 1 && cJSON_IsString(version)) {
        snprintf(r->version, sizeof(r->version), "%s", version->valuestring);
        free(r->session);
        r->session = req->session;
        req->session = NULL;
        r->modern = 0;
        r->handshaken = 1;
        return;
    }
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(result, "supportedVersions"))
    {
        if (cJSON_IsString(v) && strcmp(v->valuestring, REMOTE_MODERN) == 0) {
            snprintf(r->version, sizeof(r->version), "%s", REMOTE_MODERN);
            r->modern = 1;
            r->handshaken = 1;
        }
    }
}

/* Whether msg is a notification of mcph's own relay namespace (notifications/dev.mcph/...),
 * which an upstream may not send: only the relay tells the engine why it ends. The text is
 * searched first, so that a message without it is not parsed for this. */
static int remote_forged(const char *msg, size_t len)
{
    static const char ns[] = "notifications/dev.mcph/";
    cJSON *root;
    const char *method;
    int forged;

    if (memmem(msg, len, ns, sizeof(ns) - 1) == NULL && memmem(msg, len, "\\u", 2) == NULL)
        return 0;
    root = cJSON_ParseWithLength(msg, len);
    method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "method"));
    forged = method != NULL && strncmp(method, ns, sizeof(ns) - 1) == 0;
    cJSON_Delete(root);
    return forged;
}

/* One message of req's answer: out as a line, and looked at when it may be req's response. */
static int remote_message(struct remote_req *req, const char *msg, size_t len)
{
    cJSON *root, *id;
    char *printed;

    req->events++;
    /* The relay's own notification (MCP_RELAY_ENDED) is never the upstream's to send. */
    if (remote_forged(msg, len))
        return STATUS_OK;
    if (remote_write_line(req->r, msg, len) != STATUS_OK)
        return STATUS_IO;
    if (req->id == NULL || req->answered)
        return STATUS_OK;
    root = cJSON_ParseWithLength(msg, len);
    id = cJSON_GetObjectItemCaseSensitive(root, "id");
    printed = id != NULL && cJSON_GetObjectItemCaseSensitive(root, "method") == NULL
                  ? cJSON_PrintUnformatted(id)
                  : NULL;
    if (printed != NULL && strcmp(printed, req->id) == 0) {
        req->answered = 1;
        if (req->handshake)
            remote_learn(req->r, req, cJSON_GetObjectItemCaseSensitive(root, "result"));
        if (req->tools_list)
            remote_params_learn(req->r, cJSON_GetObjectItemCaseSensitive(root, "result"));
    }
    free(printed);
    cJSON_Delete(root);
    return STATUS_OK;
}

static int remote_on_event(void *ctx, const char *data, size_t len)
{
    return remote_message(ctx, data, len);
}

/* The kind of body, from the status and Content-Type, at its first byte. */
static void remote_pick_mode(struct remote_req *req)
{
    const char *type = NULL;

    req->r->lib->curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->status);
    req->r->lib->curl_easy_getinfo(req->easy, CURLINFO_CONTENT_TYPE, &type);
    req->mode = REMOTE_BODY_OTHER;
    if (req->status < 200 || req->status > 299 || type == NULL)
        return;
    if (strncasecmp(type, "text/event-stream", 17) == 0)
        req->mode = REMOTE_BODY_SSE;
    else if (strncasecmp(type, "application/json", 16) == 0)
        req->mode = REMOTE_BODY_JSON;
}

static size_t remote_on_body(char *buf, size_t size, size_t n, void *ctx)
{
    struct remote_req *req = ctx;
    size_t len = size * n;
    size_t max = REMOTE_LINE_MAX;

    if (req->mode == REMOTE_BODY_UNSEEN)
        remote_pick_mode(req);
    if (req->mode == REMOTE_BODY_SSE)
        return remote_sse_feed(&req->sse, buf, len, remote_on_event, req) == 0 ? len : 0;
    if (req->mode == REMOTE_BODY_OTHER)
        max = REMOTE_ERROR_BODY_MAX;
    if (req->in.len + len > max) {
        if (req->mode == REMOTE_BODY_OTHER)
            return len; /* the rest of a failure's body is not needed */
        return 0;
    }
    return strbuf_add(&req->in, buf, len) == STATUS_OK ? len : 0;
}

/* The options every request has. */
static int remote_setopts(struct remote *r, struct remote_req *req)
{
    const struct remote_lib *lib = r->lib;
    const char *protocols = r->allow_http ? "http,https" : "https";
    CURL *e = req->easy;
    int bad = 0;

    bad |= lib->curl_easy_setopt(e, CURLOPT_URL, r->url) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_PRIVATE, req) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->err) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_PROXY, "") != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, protocols) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, protocols) != CURLE_OK;
    /* No redirect is followed: libcurl would send headers_file's headers and the message to
     * wherever it points. A 3xx is an answer that names where to point url instead. */
    bad |= lib->curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, r->connect_ms) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK;
    /* ca_file is the only trust: not added to the CA folder libcurl was built with. */
    if (r->ca_file != NULL) {
        bad |= lib->curl_easy_setopt(e, CURLOPT_CAINFO, r->ca_file) != CURLE_OK;
        bad |= lib->curl_easy_setopt(e, CURLOPT_CAPATH, NULL) != CURLE_OK;
    }
    bad |= lib->curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, remote_open_socket) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, req) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, remote_on_header) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_HEADERDATA, req) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, remote_on_body) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_WRITEDATA, req) != CURLE_OK;
    return bad ? STATUS_IO : STATUS_OK;
}

/* One more header; a NULL value leaves it out. */
static int remote_header(struct remote_req *req, const char *name, const char *value)
{
    struct strbuf sb = STRBUF_INIT;
    struct curl_slist *more = NULL;

    if (value == NULL)
        return STATUS_OK;
    if (strbuf_addf(&sb, "%s: %s", name, value) == STATUS_OK)
        more = req->r->lib->curl_slist_append(req->headers, sb.buf);
    strbuf_release(&sb);
    if (more == NULL)
        return STATUS_NOMEM;
    req->headers = more;
    return STATUS_OK;
}

/* The headers of the relay's own: the credentials and headers_file's. */
static int remote_common_headers(struct remote_req *req, int session, const char *version)
{
    struct remote *r = req->r;
    struct strbuf auth = STRBUF_INIT;
    int status = STATUS_OK;

    for (const struct curl_slist *h = r->extra; h != NULL && status == STATUS_OK; h = h->next) {
        struct curl_slist *more = r->lib->curl_slist_append(req->headers, h->data);

        status = more ? STATUS_OK : STATUS_NOMEM;
        req->headers = more ? more : req->headers;
    }
    if (status == STATUS_OK && r->token != NULL) {
        status = strbuf_addf(&auth, "Bearer %s", r->token);
        if (status == STATUS_OK)
            status = remote_header(req, "Authorization", auth.buf);
        /* The token's copy is wiped before it is freed. */
        memset(auth.buf, 0, auth.len);
        strbuf_release(&auth);
    }
    if (status == STATUS_OK && session && r->session != NULL) {
        req->with_session = 1;
        status = remote_header(req, "Mcp-Session-Id", r->session);
    }
    if (status == STATUS_OK && version != NULL && version[0] != '\0')
        status = remote_header(req, "MCP-Protocol-Version", version);
    return status;
}

/* A mirrored header's value as RFC 9110 lets it go: itself when it is visible ASCII, space and
 * tab, else its base64 form "=?base64?...?=". */
int remote_mirror(struct remote_req *req, const char *name, const char *value)
{
    const unsigned char *p = (const unsigned char *)value;
    struct strbuf sb = STRBUF_INIT;
    char *b64;
    int status;

    while (*p != '\0' && ((*p >= 0x20 && *p < 0x7f) || *p == '\t'))
        p++;
    if (*p == '\0' && value[0] != ' ' && value[0] != '\t')
        return remote_header(req, name, value);
    b64 = base64_encode(value, strlen(value));
    if (b64 == NULL)
        return STATUS_NOMEM;
    status = strbuf_addf(&sb, "=?base64?%s?=", b64);
    if (status == STATUS_OK)
        status = remote_header(req, name, sb.buf);
    free(b64);
    strbuf_release(&sb);
    return status;
}

/* The headers of a POST of msg (NULL: not JSON): its media types, the relay's own, and the
 * 2026-07-28 ones that mirror the body (MCP-Protocol-Version as its _meta says, Mcp-Method,
 * Mcp-Name). */
static int remote_post_headers(struct remote_req *req, const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const char *version = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(meta, "io.modelcontextprotocol/protocolVersion"));
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    const char *key = NULL;
    int status;

    status = remote_header(req, "Content-Type", "application/json");
    if (status == STATUS_OK)
        status = remote_header(req, "Accept", "application/json, text/event-stream");
    if (status == STATUS_OK)
        status = remote_common_headers(req, 1, version ? version : req->r->version);
    if (status != STATUS_OK || method == NULL ||
        !(req->r->modern || (version && strcmp(version, REMOTE_MODERN) == 0)))
        return status;
    status = remote_mirror(req, "Mcp-Method", method);
    if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
        key = "name";
    else if (strcmp(method, "resources/read") == 0)
        key = "uri";
    if (status == STATUS_OK && key != NULL &&
        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(params, key)))
        status = remote_mirror(req, "Mcp-Name",
                               cJSON_GetObjectItemCaseSensitive(params, key)->valuestring);
    if (status == STATUS_OK && strcmp(method, "tools/call") == 0)
        status = remote_params_add(req, params);
    return status;
}

void remote_req_free(struct remote_req *req)
{
    if (req == NULL)
        return;
    if (req->easy != NULL)
        req->r->lib->curl_easy_cleanup(req->easy);
    if (req->headers != NULL)
        req->r->lib->curl_slist_free_all(req->headers);
    free(req->body);
    free(req->id);
    free(req->session);
    strbuf_release(&req->in);
    remote_sse_release(&req->sse);
    free(req);
}

struct remote_req *remote_req_new(struct remote *r, enum remote_kind kind)
{
    struct remote_req *req = calloc(1, sizeof(*req));

    if (req == NULL)
        return NULL;
    req->r = r;
    req->kind = kind;
    strbuf_init(&req->in);
    remote_sse_init(&req->sse, REMOTE_LINE_MAX);
    req->easy = r->lib->curl_easy_init();
    if (req->easy == NULL || remote_setopts(r, req) != STATUS_OK) {
        remote_req_free(req);
        return NULL;
    }
    return req;
}

/* req in flight: on the relay's list and in the multi handle. */
static int remote_start(struct remote *r, struct remote_req *req)
{
    if (r->lib->curl_easy_setopt(req->easy, CURLOPT_HTTPHEADER, req->headers) != CURLE_OK ||
        r->lib->curl_multi_add_handle(r->multi, req->easy) != CURLM_OK) {
        remote_req_free(req);
        return STATUS_IO;
    }
    req->next = r->reqs;
    r->reqs = req;
    return STATUS_OK;
}

/* What a POST of msg is: its id when it is a request, the handshake, initialized. */
static int remote_post_kind(struct remote_req *req, const cJSON *msg)
{
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");

    if (method == NULL)
        return STATUS_OK;
    req->initialized = strcmp(method, "notifications/initialized") == 0;
    if (id == NULL)
        return STATUS_OK;
    req->handshake = strcmp(method, "initialize") == 0        ? 1
                     : strcmp(method, "server/discover") == 0 ? 2
                                                              : 0;
    req->tools_list = strcmp(method, "tools/list") == 0;
    req->id = cJSON_PrintUnformatted(id);
    return req->id != NULL ? STATUS_OK : STATUS_NOMEM;
}

static int remote_http_send(struct remote *r, const char *line, size_t len, int retried);

int remote_http_post(struct remote *r, const char *line, size_t len)
{
    return remote_http_send(r, line, len, 0);
}

int remote_http_repost(struct remote *r, const char *line, size_t len)
{
    return remote_http_send(r, line, len, 1);
}

static int remote_http_send(struct remote *r, const char *line, size_t len, int retried)
{
    struct remote_req *req = remote_req_new(r, REMOTE_POST);
    cJSON *msg = cJSON_ParseWithLength(line, len);
    int status = req ? STATUS_OK : STATUS_NOMEM;

    if (status == STATUS_OK) {
        req->retried = retried;
        status = remote_post_kind(req, msg);
    }
    if (status == STATUS_OK)
        status = remote_post_headers(req, msg);
    cJSON_Delete(msg);
    if (status == STATUS_OK) {
        req->body = malloc(len > 0 ? len : 1);
        status = req->body ? STATUS_OK : STATUS_NOMEM;
    }
    if (status != STATUS_OK) {
        remote_req_free(req);
        return status;
    }
    memcpy(req->body, line, len);
    req->len = len;
    /* The session id comes with initialize's answer: what follows waits for it. */
    r->holding |= req->handshake == 1;
    if (r->lib->curl_easy_setopt(req->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len) !=
            CURLE_OK ||
        r->lib->curl_easy_setopt(req->easy, CURLOPT_POSTFIELDS, req->body) != CURLE_OK) {
        remote_req_free(req);
        return STATUS_IO;
    }
    return remote_start(r, req);
}

int remote_http_get(struct remote *r)
{
    struct remote_req *req = remote_req_new(r, REMOTE_GET);
    int status = req ? STATUS_OK : STATUS_NOMEM;

    if (status == STATUS_OK)
        status = remote_header(req, "Accept", "text/event-stream");
    if (status == STATUS_OK)
        status = remote_common_headers(req, 1, r->version);
    if (status == STATUS_OK && r->last_event_id != NULL)
        status = remote_header(req, "Last-Event-ID", r->last_event_id);
    if (status == STATUS_OK && r->lib->curl_easy_setopt(req->easy, CURLOPT_HTTPGET, 1L) != CURLE_OK)
        status = STATUS_IO;
    if (status != STATUS_OK) {
        remote_req_free(req);
        return status;
    }
    status = remote_start(r, req);
    if (status == STATUS_OK)
        r->get = req;
    return status;
}

void remote_http_delete(struct remote *r)
{
    struct remote_req *req;

    if (r->session == NULL)
        return;
    req = remote_req_new(r, REMOTE_DELETE);
    if (req != NULL && remote_common_headers(req, 1, r->version) == STATUS_OK &&
        r->lib->curl_easy_setopt(req->easy, CURLOPT_CUSTOMREQUEST, "DELETE") == CURLE_OK &&
        r->lib->curl_easy_setopt(req->easy, CURLOPT_NOBODY, 1L) == CURLE_OK &&
        r->lib->curl_easy_setopt(req->easy, CURLOPT_TIMEOUT_MS, (long)REMOTE_DELETE_MS) ==
            CURLE_OK &&
        r->lib->curl_easy_setopt(req->easy, CURLOPT_HTTPHEADER, req->headers) == CURLE_OK)
        r->lib->curl_easy_perform(req->easy);
    remote_req_free(req);
}

/* Unlink req from the relay's list and the multi handle, and free it. */
static void remote_req_end(struct remote *r, struct remote_req *req)
{
    for (struct remote_req **at = &r->reqs; *at != NULL; at = &(*at)->next) {
        if (*at == req) {
            *at = req->next;
            break;
        }
    }
    if (r->get == req)
        r->get = NULL;
    r->lib->curl_multi_remove_handle(r->multi, req->easy);
    remote_req_free(req);
}

void remote_http_drop_all(struct remote *r)
{
    while (r->reqs != NULL)
        remote_req_end(r, r->reqs);
}

/* The error response to req's request: the answer's own JSON-RPC error when its body is one,
 * else -32603 with why. */
static void remote_answer_error(struct remote_req *req, const char *why)
{
    cJSON *body = req->mode == REMOTE_BODY_OTHER && req->in.len > 0
                      ? cJSON_ParseWithLength(req->in.buf, req->in.len)
                      : NULL;
    cJSON *error = cJSON_DetachItemFromObjectCaseSensitive(body, "error");
    cJSON *out = cJSON_CreateObject();
    char *line;

    if (!cJSON_IsObject(error) ||
        !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(error, "code"))) {
        cJSON_Delete(error);
        error = cJSON_CreateObject();
        cJSON_AddNumberToObject(error, "code", -32603);
        cJSON_AddStringToObject(error, "message", why);
    }
    cJSON_AddStringToObject(out, "jsonrpc", "2.0");
    cJSON_AddItemToObject(out, "id", cJSON_Parse(req->id));
    cJSON_AddItemToObject(out, "error", error);
    line = cJSON_PrintUnformatted(out);
    if (line != NULL)
        remote_write_line(req->r, line, strlen(line));
    else
        remote_fail(req->r, 1, "out of memory answering a failed request");
    free(line);
    cJSON_Delete(out);
    cJSON_Delete(body);
}

/* A failure of req: the error response to its request, or a line on stderr for a message that
 * expects none. */
static void remote_failed(struct remote_req *req, const char *why)
{
    if (req->answered)
        return;
    if (req->id != NULL)
        remote_answer_error(req, why);
    else
        remote_say(req->r, "%s", why);
}

static int remote_tls_fault(CURLcode res)
{
    return res == CURLE_PEER_FAILED_VERIFICATION || res == CURLE_SSL_CONNECT_ERROR ||
           res == CURLE_SSL_CACERT_BADFILE || res == CURLE_SSL_CERTPROBLEM ||
           res == CURLE_SSL_ISSUER_ERROR || res == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
}

/* The upstream is away, or went away during the request: the relay exits (the engine
 * starts it again with backoff), rather than go on with a session that may be gone. */
static int remote_unreachable(CURLcode res)
{
    return res == CURLE_COULDNT_RESOLVE_HOST || res == CURLE_COULDNT_CONNECT ||
           res == CURLE_OPERATION_TIMEDOUT || res == CURLE_RECV_ERROR || res == CURLE_SEND_ERROR ||
           res == CURLE_GOT_NOTHING || res == CURLE_PARTIAL_FILE;
}

/* libcurl's own words for a failure (its error buffer), else its code's. */
static const char *remote_errtext(const struct remote *r, const struct remote_req *req,
                                  CURLcode res)
{
    return req->err[0] != '\0' ? req->err : r->lib->curl_easy_strerror(res);
}

/* A transfer that failed (res): refused by the guard, TLS, unreachable, or cut. */
static void remote_transfer_failed(struct remote *r, struct remote_req *req, CURLcode res)
{
    char why[768];
    int config = 1;

    /* Refused only when no address was let through: else one of several addresses was not
     * public and the others failed as a server away does. */
    if (req->refused && req->opened == 0)
        snprintf(why, sizeof(why),
                 "was not connected to %s, an address of the url's host %s: not a public "
                 "address (allow_networks allows a network on purpose)",
                 req->refused_addr, r->host);
    else if (remote_tls_fault(res))
        snprintf(why, sizeof(why),
                 "TLS with %s failed: %s (the certificate must name the url's host and be "
                 "signed by a CA of the system's, or of ca_file)",
                 r->host, remote_errtext(r, req, res));
    else if (res == CURLE_UNSUPPORTED_PROTOCOL || res == CURLE_TOO_MANY_REDIRECTS)
        snprintf(why, sizeof(why), "%s: %s (only https, and at most 3 redirects)", r->host,
                 remote_errtext(r, req, res));
    else
        config = 0;
    if (config && !r->handshaken) {
        remote_fail(r, REMOTE_EXIT_CONFIG, "%s", why);
        return;
    }
    if (config && req->kind == REMOTE_GET) {
        remote_fail(r, 1, "%s", why); /* not again at once: the relay starts again */
        return;
    }
    if (!config && (remote_unreachable(res) || req->kind == REMOTE_GET)) {
        remote_fail(r, 1, "cannot reach %s: %s", r->host, remote_errtext(r, req, res));
        return;
    }
    if (!config)
        snprintf(why, sizeof(why), "the upstream %s: %s", r->host, remote_errtext(r, req, res));
    remote_failed(req, why);
}

/* A POST answered with req->status. */
static void remote_post_answered(struct remote *r, struct remote_req *req)
{
    long st = req->status;
    char why[512];

    if (st >= 200 && st <= 299) {
        if (req->mode == REMOTE_BODY_JSON && req->in.len > 0)
            remote_message(req, req->in.buf, req->in.len);
        if (req->initialized && !r->modern && r->get == NULL) {
            r->want_get = 1;
            r->get_at = remote_now_ms();
        }
        if (req->id != NULL && !req->answered && r->exit_code < 0) {
            snprintf(why, sizeof(why), "the upstream %s answered HTTP %ld without a response",
                     r->host, st);
            remote_answer_error(req, why);
        }
        return;
    }
    if (st == 401 && r->oauth_url != NULL && !req->retried) {
        /* The token expired or was revoked: a new one, once, and the request again. */
        if (remote_oauth_fetch(r) == STATUS_OK &&
            remote_http_repost(r, req->body, req->len) != STATUS_OK)
            remote_fail(r, 1, "could not start a request (out of memory)");
    } else if (st == 404 && req->with_session) {
        remote_fail(r, 1, "the upstream %s no longer knows the session (HTTP 404)", r->host);
    } else if ((st == 401 || st == 403) && !r->handshaken) {
        remote_fail(r, REMOTE_EXIT_CONFIG,
                    "the upstream %s refused the credentials (HTTP %ld): check token_env, "
                    "token_file or headers_file",
                    r->host, st);
    } else if (st == 401 || st == 403) {
        /* Credentials that worked no longer do (rotated, revoked): the relay starts again,
         * reading token_file and headers_file anew. */
        remote_fail(r, 1,
                    "the upstream %s refused the credentials (HTTP %ld); starting again to "
                    "read them anew",
                    r->host, st);
    } else if (st >= 500 && req->handshake) {
        remote_fail(r, 1, "the upstream %s answered the handshake with HTTP %ld", r->host, st);
    } else if (st >= 300 && st <= 399) {
        snprintf(why, sizeof(why),
                 "the upstream %s answered HTTP %ld, a redirect, which mcph does not follow; set "
                 "url to where it points",
                 r->host, st);
        if (!r->handshaken)
            remote_fail(r, REMOTE_EXIT_CONFIG, "%s", why);
        else
            remote_failed(req, why);
    } else {
        snprintf(why, sizeof(why), "the upstream %s answered HTTP %ld", r->host, st);
        remote_failed(req, why);
    }
}

/* The GET stream opens again after a pause that doubles while it ends at once, from
 * REMOTE_REOPEN_MS up to REMOTE_REOPEN_MAX_MS, and starts again from the shortest after a
 * stream that carried something. */
static void remote_get_later(struct remote *r, const struct remote_req *req)
{
    if (req->sse.id.len > 0 || req->events > 0 || r->get_backoff < REMOTE_REOPEN_MS)
        r->get_backoff = REMOTE_REOPEN_MS;
    else if (r->get_backoff < REMOTE_REOPEN_MAX_MS)
        r->get_backoff *= 2;
    r->get_at = remote_now_ms() + r->get_backoff;
}

/* The GET stream ended: none (405), the session gone (404), or open it again after a pause,
 * from its last event. */
static void remote_get_ended(struct remote *r, struct remote_req *req)
{
    if (req->status == 405) {
        r->want_get = 0;
        return;
    }
    if (req->status == 404 && req->with_session) {
        remote_fail(r, 1, "the upstream %s no longer knows the session (HTTP 404)", r->host);
        return;
    }
    if ((req->status == 401 || req->status == 403) && r->oauth_url == NULL) {
        remote_fail(r, 1,
                    "the upstream %s refused the credentials (HTTP %ld); starting again to "
                    "read them anew",
                    r->host, req->status);
        return;
    }
    if (req->status == 401 && remote_oauth_fetch(r) != STATUS_OK)
        return;
    if (req->sse.id.len > 0) {
        free(r->last_event_id);
        r->last_event_id = strdup(req->sse.id.buf);
    }
    remote_get_later(r, req);
}

void remote_http_done(struct remote *r, struct remote_req *req, CURLcode res)
{
    if (req->mode == REMOTE_BODY_UNSEEN)
        remote_pick_mode(req);
    if (req->handshake == 1)
        r->holding = 0;
    if (res != CURLE_OK && !(req->kind == REMOTE_GET && req->status > 0))
        remote_transfer_failed(r, req, res);
    else if (req->kind == REMOTE_GET)
        remote_get_ended(r, req);
    else
        remote_post_answered(r, req);
    remote_req_end(r, req);
}
