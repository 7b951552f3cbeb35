/*
 * http_metrics.c: the paths served beside the MCP endpoint for operators: metrics and health
 * ([server] metrics_path, live_path, ready_path).
 */
#include "transport/http_int.h"

#include "lib/status.h"
#include "wire/jsonrpc.h"

#include <string.h>

int http_metrics_start(struct http *h)
{
    (void)h;
    return STATUS_OK;
}

void http_metrics_stop(struct http *h)
{
    (void)h;
}

int http_metrics_path(const struct http *h, const char *url)
{
    (void)h;
    (void)url;
    return 0;
}

enum MHD_Result http_metrics_answer(struct http *h, struct MHD_Connection *mc, const char *url,
                                    const char *method)
{
    (void)url;
    (void)method;
    return http_fail(h, mc, MHD_HTTP_NOT_FOUND, JSONRPC_SERVER_ERROR, "Not Found");
}
