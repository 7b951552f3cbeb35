/*
 * http_auth.c: who a request speaks for. The credential of each request to the endpoint (a
 * bearer token of [server] auth_token_file, compared in constant time) becomes its principal
 * (wire/principal.h), or the request is refused with 401 and WWW-Authenticate. Without
 * credentials configured every request is anonymous.
 */
#include "transport/http_int.h"

#include "lib/status.h"
#include "wire/jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The bearer token against every one configured, each compared in full (constant time).
 * *which: the one it is (its line among the tokens), or -1 (none configured, or no match). */
int http_token_ok(const struct http *h, const char *authorization, int *which)
{
    unsigned char given[SHA256_BYTES];
    int ok = 0;

    *which = -1;
    if (h->ntokens == 0)
        return 1;
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    authorization += 7;
    authorization += strspn(authorization, " ");
    sha256_hmac("mcph", 4, authorization, strlen(authorization), given);
    for (size_t i = 0; i < h->ntokens; i++) {
        int same = sha256_equal(given, h->tokens[i], SHA256_BYTES);

        ok |= same;
        *which = same ? (int)i : *which;
    }
    return ok;
}

int http_parse_tokens(struct http *h, char *text)
{
    int status = STATUS_OK;

    for (char *line = text, *next; status == STATUS_OK && line != NULL && *line; line = next) {
        size_t len = strcspn(line, "\r\n");

        next = line[len] ? line + len + 1 : NULL;
        line[len] = '\0';
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        line += strspn(line, " \t");
        if (*line == '\0' || *line == '#')
            continue;
        if (h->ntokens == HTTP_MAX_TOKENS)
            status = STATUS_LIMIT;
        else
            sha256_hmac("mcph", 4, line, strlen(line), h->tokens[h->ntokens++]);
    }
    if (status == STATUS_OK && h->ntokens == 0)
        status = STATUS_INVALID;
    return status;
}

static enum MHD_Result http_unauthorized(const struct http *h, struct MHD_Connection *mc, int given)
{
    char *text = http_error_text(JSONRPC_SERVER_ERROR,
                                 given ? "Unauthorized: the bearer token is not valid"
                                       : "Unauthorized: send Authorization: Bearer TOKEN");
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    free(text);
    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                   given ? "Bearer realm=\"mcph\", error=\"invalid_token\""
                                         : "Bearer realm=\"mcph\"");
    return http_queue(h, mc, MHD_HTTP_UNAUTHORIZED, r);
}

int http_auth(struct http *h, struct MHD_Connection *mc, const char *authorization,
              struct principal **out, enum MHD_Result *rc)
{
    unsigned char digest[SHA256_BYTES];
    char id[32], label[32];
    int which;

    *out = NULL;
    if (!http_token_ok(h, authorization, &which)) {
        *rc = http_unauthorized(h, mc, authorization != NULL);
        return 0;
    }
    if (which < 0) {
        *out = principal_new(PRINCIPAL_ANONYMOUS, "anonymous", "anonymous");
    } else {
        snprintf(id, sizeof(id), "token:%d", which + 1);
        snprintf(label, sizeof(label), "token %d", which + 1);
        *out = principal_new(PRINCIPAL_TOKEN, id, label);
        if (*out != NULL) {
            (*out)->token = which;
            memcpy(digest, h->tokens[which], sizeof(digest));
            memcpy((*out)->digest, digest, sizeof(digest));
        }
    }
    if (*out == NULL) {
        *rc = MHD_NO;
        return 0;
    }
    return 1;
}

int http_auth_start(struct http *h)
{
    (void)h;
    return STATUS_OK;
}

void http_auth_free(struct http *h)
{
    (void)h;
}

int http_auth_route(struct http *h, struct MHD_Connection *mc, const char *url, const char *method,
                    enum MHD_Result *rc)
{
    (void)h;
    (void)mc;
    (void)url;
    (void)method;
    (void)rc;
    return 0;
}
