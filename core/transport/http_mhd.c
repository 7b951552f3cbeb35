/*
 * http_mhd.c: libmicrohttpd, opened with dlopen when mcph listens, and the responses the
 * transport makes with it (JSON bodies, JSON-RPC errors as HTTP errors).
 */
#include "transport/http_int.h"
#include "transport/httpmsg.h"

#include "lib/log.h"
#include "lib/status.h"
#include "served/metrics.h"
#include "wire/jsonrpc.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The table http_lib_open fills: each function's name and where it goes. */
static const struct {
    const char *name;
    size_t at;
} http_lib_syms[] = {
#define HTTP_LIB_SYM(name) {"MHD_" #name, offsetof(struct http_lib, name)},
    HTTP_LIB_FUNCTIONS(HTTP_LIB_SYM)
#undef HTTP_LIB_SYM
};

/* Open libmicrohttpd and find its functions. Returns STATUS_OK, or STATUS_IO with the reason
 * logged. */
int http_lib_open(struct http_lib *lib, const struct log *lg)
{
    static const char *const names[] = {"libmicrohttpd.so.12", "libmicrohttpd.so"};

    for (size_t i = 0; i < 2 && lib->dl == NULL; i++)
        lib->dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib->dl == NULL) {
        log_msg(lg, LOG_ERROR, NULL,
                "HTTP needs libmicrohttpd (Debian: apt-get install libmicrohttpd12): %s",
                dlerror());
        return STATUS_IO;
    }
    for (size_t i = 0; i < sizeof(http_lib_syms) / sizeof(http_lib_syms[0]); i++) {
        void *sym = dlsym(lib->dl, http_lib_syms[i].name);

        if (sym == NULL) {
            log_msg(lg, LOG_ERROR, NULL, "libmicrohttpd has no %s: it is too old (0.9.75 or newer)",
                    http_lib_syms[i].name);
            return STATUS_IO;
        }
        /* A data pointer to a function pointer, without the cast ISO C does not define. */
        memcpy((char *)lib + http_lib_syms[i].at, &sym, sizeof(sym));
    }
    return STATUS_OK;
}

const char *http_header(const struct http *h, struct MHD_Connection *mc, const char *name)
{
    return h->lib.lookup_connection_value(mc, MHD_HEADER_KIND, name);
}

/* v (not NULL) without the optional whitespace around it (RFC 9110 5.5), copied into buf
 * (size bytes; a longer value is cut). Returns buf. */
const char *http_trim(const char *v, char *buf, size_t size)
{
    size_t n;

    v += strspn(v, " \t");
    n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return buf;
}

int http_client_address(const struct http *h, struct MHD_Connection *mc, char *buf, size_t size)
{
    const union MHD_ConnectionInfo *info =
        h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = info != NULL ? info->client_addr : NULL;

    if (sa != NULL && sa->sa_family == AF_INET)
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, buf,
                         (socklen_t)size) != NULL;
    if (sa != NULL && sa->sa_family == AF_INET6)
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, buf,
                         (socklen_t)size) != NULL;
    return 0;
}

const char *http_value(const struct http *h, struct MHD_Connection *mc, const char *name, char *buf,
                       size_t size)
{
    const char *v = http_header(h, mc, name);

    return v != NULL ? http_trim(v, buf, size) : NULL;
}

/* A JSON-RPC error with id null, as the body of an HTTP error. Owned text. */
char *http_error_text(int code, const char *message)
{
    cJSON *msg = jsonrpc_error(NULL, code, message, NULL);
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;

    cJSON_Delete(msg);
    return text;
}

enum MHD_Result http_queue(const struct http *h, struct MHD_Connection *mc, unsigned status,
                           struct MHD_Response *r)
{
    enum MHD_Result rc;

    if (r == NULL)
        return MHD_NO;
    if (status >= 400 && h->srv->metrics != NULL)
        metrics_reject(h->srv->metrics, status);
    rc = h->lib.queue_response(mc, status, r);
    h->lib.destroy_response(r);
    return rc;
}

struct MHD_Response *http_json_response(const struct http *h, const char *text, size_t len)
{
    struct MHD_Response *r =
        h->lib.create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);

    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    return r;
}

/* An HTTP error whose body is a JSON-RPC error (id null). */
enum MHD_Result http_fail(const struct http *h, struct MHD_Connection *mc, unsigned status,
                          int code, const char *message)
{
    char *text = http_error_text(code, message);
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    free(text);
    if (r != NULL && status == MHD_HTTP_METHOD_NOT_ALLOWED)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, POST, DELETE");
    if (r != NULL && status == MHD_HTTP_SERVICE_UNAVAILABLE)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    return http_queue(h, mc, status, r);
}
