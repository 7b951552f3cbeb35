/*
 * remote_oauth.c: OAuth 2.0 client credentials for the relay (the settings' "oauth"): a POST
 * to the token endpoint with grant_type=client_credentials, the client's id and secret in
 * HTTP Basic, the scope, and resource = the upstream's url (RFC 8707), through the same SSRF
 * guard and TLS checks as every request; its access_token becomes the bearer token.
 */
#include "client/remote_int.h"

#include "lib/status.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The form body: grant_type, scope, resource. Owned (curl_free is not needed: strbuf). */
static int remote_oauth_form(struct remote *r, CURL *e, struct strbuf *sb)
{
    char *resource = r->lib->curl_easy_escape(e, r->url, 0);
    char *scope = r->oauth_scope ? r->lib->curl_easy_escape(e, r->oauth_scope, 0) : NULL;
    int status;

    if (resource == NULL || (r->oauth_scope != NULL && scope == NULL))
        status = STATUS_NOMEM;
    else
        status = strbuf_addf(sb, "grant_type=client_credentials&resource=%s%s%s", resource,
                             scope ? "&scope=" : "", scope ? scope : "");
    r->lib->curl_free(resource);
    r->lib->curl_free(scope);
    return status;
}

/* The access_token of the endpoint's answer (body, len bytes), or NULL. Owned. */
static char *remote_oauth_token(const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const char *token =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "access_token"));
    char *copy = NULL;

    if (token != NULL && token[0] != '\0' && strpbrk(token, "\r\n") == NULL)
        copy = strdup(token);
    cJSON_Delete(root);
    return copy;
}

/* The endpoint's own error code ("invalid_client"), for the message; never the body else. */
static void remote_oauth_error(const char *body, size_t len, char *out, size_t size)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const char *error = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "error"));

    snprintf(out, size, "%.64s", error ? error : "no error code");
    for (char *p = out; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    cJSON_Delete(root);
}

static int remote_oauth_setup(struct remote *r, struct remote_req *req, struct strbuf *form)
{
    const struct remote_lib *lib = r->lib;
    CURL *e = req->easy;
    int bad = remote_oauth_form(r, e, form) != STATUS_OK;

    req->headers = lib->curl_slist_append(NULL, "Accept: application/json");
    bad |= req->headers == NULL;
    bad |= lib->curl_easy_setopt(e, CURLOPT_URL, r->oauth_url) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_USERNAME, r->oauth_id) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_PASSWORD, r->oauth_secret) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_POSTFIELDS, form->buf) != CURLE_OK;
    bad |= lib->curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)REMOTE_OAUTH_MS) != CURLE_OK;
    return bad ? STATUS_IO : STATUS_OK;
}

/* How much of token_url a message shows: not its query or fragment, which may carry a key,
 * and at most 200 bytes. */
static int remote_oauth_shown(const struct remote *r)
{
    size_t n = strcspn(r->oauth_url, "?#");

    return n < 200 ? (int)n : 200;
}

/* What the endpoint's answer (status, res) means: the token, or the relay stopped. */
static int remote_oauth_outcome(struct remote *r, struct remote_req *req, CURLcode res)
{
    char error[80];
    char *token;

    if (res != CURLE_OK) {
        int config = req->refused || res == CURLE_PEER_FAILED_VERIFICATION ||
                     res == CURLE_SSL_CACERT_BADFILE || res == CURLE_UNSUPPORTED_PROTOCOL;

        remote_fail(r, config ? REMOTE_EXIT_CONFIG : 1, "oauth token_url %.*s: %s%s%s",
                    remote_oauth_shown(r), r->oauth_url, r->lib->curl_easy_strerror(res),
                    req->refused ? ", refused address " : "",
                    req->refused ? req->refused_addr : "");
        return STATUS_IO;
    }
    r->lib->curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->status);
    token = req->status == 200 ? remote_oauth_token(req->in.buf, req->in.len) : NULL;
    if (token == NULL) {
        remote_oauth_error(req->in.buf, req->in.len, error, sizeof(error));
        remote_fail(r, req->status >= 500 ? 1 : REMOTE_EXIT_CONFIG,
                    "oauth token_url %.*s refused the client credentials of %.64s (HTTP %ld, "
                    "%s)",
                    remote_oauth_shown(r), r->oauth_url, r->oauth_id, req->status, error);
        return STATUS_IO;
    }
    if (r->token != NULL)
        memset(r->token, 0, strlen(r->token));
    free(r->token);
    r->token = token;
    return STATUS_OK;
}

int remote_oauth_fetch(struct remote *r)
{
    struct remote_req *req = remote_req_new(r, REMOTE_POST);
    struct strbuf form = STRBUF_INIT;
    int status;

    if (req == NULL || remote_oauth_setup(r, req, &form) != STATUS_OK) {
        remote_req_free(req);
        strbuf_release(&form);
        remote_fail(r, 1, "oauth: could not set up the token request (out of memory)");
        return STATUS_NOMEM;
    }
    /* The body is kept whatever its type: remote_on_body keeps a non-JSON one bounded. */
    req->mode = REMOTE_BODY_JSON;
    status = remote_oauth_outcome(r, req, r->lib->curl_easy_perform(req->easy));
    remote_req_free(req);
    strbuf_release(&form);
    return status;
}
