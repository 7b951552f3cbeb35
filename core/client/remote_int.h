/*
 * remote_int.h: the inside of the relay (remote.h), for the files of client/remote* alone:
 *   remote.c       the settings from fd 3, stdin's lines, the loop and the end
 *   remote_http.c  one request: its handle, its headers, its answer, its failure
 *   remote_conf.c  the settings object and the files it names
 *   remote_guard.c the SSRF guard; remote_sse.c the event-stream parser; remote_lib.c libcurl
 * One thread: everything here runs on the relay's main thread.
 */
#ifndef MCPH_REMOTE_INT_H
#define MCPH_REMOTE_INT_H

#include "client/remote.h"
#include "client/remote_guard.h"
#include "client/remote_lib.h"
#include "client/remote_sse.h"
#include "lib/strbuf.h"

#include <cJSON.h>
#include <stddef.h>

#define REMOTE_SETTINGS_MAX (64 * 1024)       /* the settings object on fd 3 */
#define REMOTE_FILE_MAX (64 * 1024)           /* token_file, headers_file */
#define REMOTE_LINE_MAX (48u * 1024u * 1024u) /* a line either way, as MCP_LINE_MAX */
#define REMOTE_ERROR_BODY_MAX (64 * 1024)     /* what is kept of a failed answer's body */
#define REMOTE_REOPEN_MS 1000                 /* the pause before a GET stream again */
#define REMOTE_REOPEN_MAX_MS 16000            /* ... doubled while it ends at once */
#define REMOTE_DELETE_MS 1000                 /* the session's DELETE at the end */
#define REMOTE_MODERN "2026-07-28"

enum remote_kind { REMOTE_POST, REMOTE_GET, REMOTE_DELETE };
enum remote_mode { REMOTE_BODY_UNSEEN, REMOTE_BODY_JSON, REMOTE_BODY_SSE, REMOTE_BODY_OTHER };

struct remote;

/* One HTTP request in flight. */
struct remote_req {
    struct remote *r;           /* borrowed: the relay */
    CURL *easy;                 /* owned */
    struct curl_slist *headers; /* owned */
    char *body;                 /* owned: a POST's message */
    size_t len;
    char *id; /* owned: the request's id as printed, NULL: no answer due */
    enum remote_kind kind;
    int handshake;    /* 1 initialize, 2 server/discover, 0 neither */
    int initialized;  /* notifications/initialized: the GET stream may open */
    int with_session; /* sent with Mcp-Session-Id */
    int tools_list;   /* a tools/list: its answer teaches the schemas */
    int retried;      /* sent again after a 401 with a new OAuth token */
    int answered;     /* the upstream's response to id came */
    enum remote_mode mode;
    long status;      /* the HTTP status, once the body starts */
    char *session;    /* owned: Mcp-Session-Id the answer gave */
    struct strbuf in; /* a JSON body, or a failure's body (bounded) */
    struct remote_sse sse;
    char err[CURL_ERROR_SIZE]; /* libcurl's words for a failure (CURLOPT_ERRORBUFFER) */
    int refused;               /* the guard refused a connection */
    int opened;                /* sockets it let the transfer open */
    unsigned events;           /* messages its answer carried */
    char refused_addr[64];
    struct remote_req *next; /* the relay's list */
};

/* The relay. */
struct remote {
    const char *section;      /* borrowed: argv */
    struct remote_lib *lib;   /* owned */
    CURLM *multi;             /* owned */
    char *url;                /* owned: the settings */
    char host[256];           /* the url's host, for messages */
    char *token;              /* owned: secret; never printed */
    struct curl_slist *extra; /* owned: headers_file's "Name: value" lines */
    char *ca_file;            /* owned or NULL */
    char *oauth_url;          /* owned: oauth.token_url, NULL: no OAuth */
    char *oauth_id;           /* owned: oauth.client_id */
    char *oauth_secret;       /* owned: secret, from oauth.client_secret_file */
    char *oauth_scope;        /* owned or NULL */
    int allow_http;
    long connect_ms;
    struct remote_guard guard;
    char *session;           /* owned: Mcp-Session-Id once initialize gave one */
    char version[32];        /* MCP-Protocol-Version once known, "" before */
    int modern;              /* server/discover named REMOTE_MODERN */
    int handshaken;          /* the handshake's answer came */
    int want_get;            /* a legacy session that has a GET stream */
    long long get_at;        /* when to open it (monotonic ms) */
    long long get_backoff;   /* the pause before it, ms (remote_get_later) */
    struct remote_req *get;  /* the GET stream in flight, or NULL */
    char *last_event_id;     /* owned: the GET stream's last event id */
    struct remote_req *reqs; /* owned: every request in flight */
    cJSON *schemas;          /* owned: tool name -> inputSchema, for tools with x-mcp-header */
    size_t schema_bytes;     /* of them, printed (REMOTE_PARAM_BYTES at most) */
    int holding;             /* an initialize in flight: lines wait in held */
    struct strbuf held;      /* stdin's lines that came while holding */
    int out_fd;
    int exit_code; /* -1 while serving */
};

/* A line on stderr, "mcph relay: ..." (the engine tags it with the section). */
void remote_say(const struct remote *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Stop with code, saying why (printf format). Only the first reason counts. */
void remote_fail(struct remote *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic milliseconds. */
long long remote_now_ms(void);

/* remote_conf.c: the settings object (text, len bytes) into r, and the files it names.
 * STATUS_OK, or STATUS_INVALID said on stderr (the setting, the path and errno). */
int remote_conf_read(struct remote *r, const char *text, size_t len);
void remote_conf_release(struct remote *r);

/* remote_http.c: start a POST of one stdin line (len bytes, no newline); a GET stream; a
 * request's end (res: libcurl's result) handled and the request freed. */
int remote_http_post(struct remote *r, const char *line, size_t len);
int remote_http_get(struct remote *r);
void remote_http_done(struct remote *r, struct remote_req *req, CURLcode res);
/* The session's DELETE, waited for at most REMOTE_DELETE_MS. */
void remote_http_delete(struct remote *r);
/* Remove and free every request in flight. */
void remote_http_drop_all(struct remote *r);

/* A header mirroring a value of the body: itself when it is visible ASCII, else its base64
 * form "=?base64?...?=". */
int remote_mirror(struct remote_req *req, const char *name, const char *value);

/* remote_http.c: a request with the relay's options, and its end (NULL is fine). */
struct remote_req *remote_req_new(struct remote *r, enum remote_kind kind);
void remote_req_free(struct remote_req *req);
/* A POST of line (len bytes) again, as the one retried after a 401. */
int remote_http_repost(struct remote *r, const char *line, size_t len);

/* remote_oauth.c: a new access token from oauth.token_url (client credentials), as r->token.
 * STATUS_OK; else the relay is stopped (78: the endpoint refused; 1: unreachable). Waits at
 * most REMOTE_OAUTH_MS. */
#define REMOTE_OAUTH_MS 30000
int remote_oauth_fetch(struct remote *r);

/* remote_params.c: the schemas of the tools in a tools/list result that annotate arguments
 * with x-mcp-header, kept in r->schemas; and the Mcp-Param-* headers of a tools/call whose
 * params are given, added to req. */
void remote_params_learn(struct remote *r, const cJSON *result);
int remote_params_add(struct remote_req *req, const cJSON *params);

/* remote.c: one message (len bytes; CR and LF become spaces) as a line on stdout. */
int remote_write_line(struct remote *r, const char *line, size_t len);

#endif
