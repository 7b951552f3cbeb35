/*
 * request.c: answering the message being handled, and what its principal may see.
 */
#include "protocol/request.h"

#include "lib/strbuf.h"
#include "served/decorate.h"
#include "wire/jsonrpc.h"

#include <stdarg.h>

void request_reply(struct request *req, cJSON *result)
{
    if (req->modern)
        decorate_result(result, req->srv->reg, NULL, req->cacheable);
    out_result(req->peer->out, req->batch, req->slot, req->id, result);
}

void request_error(struct request *req, int code, const char *fmt, ...)
{
    struct strbuf message = STRBUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    strbuf_vaddf(&message, fmt, ap);
    va_end(ap);
    out_error(req->peer->out, req->batch, req->slot, req->id, code, message.buf, NULL);
    strbuf_release(&message);
}

void request_answer(struct request *req, cJSON *msg)
{
    out_reply(req->peer->out, req->batch, req->slot, msg);
}

void request_no_reply(struct request *req)
{
    if (req->batch != NULL)
        out_reply(req->peer->out, req->batch, req->slot, NULL);
}

const char *request_param_string(struct request *req, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->params, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void request_not_found(struct request *req, const char *uri)
{
    request_answer(req, jsonrpc_not_found(req->id, uri, "Resource not found", req->modern));
}

struct access_view request_view_of(const struct request *req)
{
    return access_view_of(&req->srv->cfg, req->peer->principal);
}

int request_sees_row(const struct request *req, int kind, const char *name)
{
    return access_sees(&req->srv->cfg, request_view_of(req), kind, name);
}
