/*
 * config.h: the INI file as a struct. Parsing has no side effects: it reads the file,
 * checks every key it knows, and keeps the plugin's own keys (with their line numbers) for
 * the loader to check against the keys the plugin declares.
 */
#ifndef MCPH_CONFIG_H
#define MCPH_CONFIG_H

#include "lib/diag.h"
#include "config/filter.h"

#include <stddef.h>

/* One key of a plugin's own, from its [plugin.NAME] section. */
struct config_kv {
    char *key;   /* owned */
    char *value; /* owned */
    int line;    /* line in the INI file */
};

/* isolate = process and the limits of its child (isolate.h). */
struct config_isolate {
    int on;               /* isolate = process: init, rows, calls and shutdown in a child */
    int call_timeout_ms;  /* a call unanswered this long kills the child; 0: no limit */
    long long max_memory; /* RLIMIT_AS of the child in bytes; 0: no limit */
    int max_cpu_s;        /* RLIMIT_CPU of the child; 0: no limit */
    int max_files;        /* RLIMIT_NOFILE of the child; 0: mcph's own */
    int max_procs;        /* processes under the child (its tree), counted by it; 0: none */
};

/* confine and its rules: what the process of an isolated section or a proxied server may do
 * (client/confine.h applies them). Paths are absolute (resolved against the INI file's folder)
 * and kept as words, each in "..." quotes (mcph-env.h's words). */
struct config_confine {
    int on;      /* confine = yes, or set by read, write, exec or network; 0: not confined */
    char *read;  /* owned or NULL: read = PATH... */
    char *write; /* owned or NULL: write = PATH... */
    char *exec;  /* owned or NULL: exec = PATH... */
    int network; /* network = yes (1) or no (0, the default of a confined section) */
};

/* One [plugin.NAME] section. */
struct config_plugin {
    char *id;         /* owned: NAME */
    int line;         /* line of the section header */
    char *path;       /* owned: the .so path, resolved against plugin_dir */
    int path_line;    /* line of path =, or the header's when defaulted to NAME.so */
    int enabled;      /* enabled = (default yes) */
    int enabled_line; /* line of enabled =, 0 when not set */
    char *prefix;     /* owned, or NULL: exposed names become prefix_name */
    int prefix_line;  /* line of prefix =, 0 when not set */
    int cache_ttl_ms; /* cache_ttl_ms = for its resources/read results, -1 when not set */
    int cache_ttl_line;
    int cache_public; /* cache_scope = public (1) or private (0), -1 when not set */
    int cache_scope_line;
    int max_concurrent; /* calls of the instance at once; 0 when not set ([server] workers) */
    int max_concurrent_line;
    char *filter[FILTER_KEYS]; /* owned or NULL: tools =, resources =, prompts = (filter.h) */
    int filter_line[FILTER_KEYS];
    struct config_isolate isolate;
    int isolate_line, call_timeout_line, max_memory_line, max_cpu_line, max_files_line;
    int max_procs_line;
    struct config_confine confine;
    int confine_line, read_line, write_line, exec_line, network_line;
    int audit_arguments; /* audit_arguments = yes: the audit log holds a call's arguments */
    int audit_arguments_line;
    int ini_fd;   /* borrowed: the config's text_fd, for an isolated section's child; or -1 */
    int image_fd; /* in an isolated child (--isolated): the sealed copy of the plugin its
                   * parent checked, loaded instead of path; else -1 */
    struct config_kv *keys; /* owned: the plugin's own keys, in file order */
    size_t nkeys;
};

/* One [access.NAME] section (edge.c): who sees what over HTTP. A principal matches when it
 * satisfies every "who" key the section sets; it then sees what the section's globs keep
 * (names and URIs as clients see them, prefix included). A kind the section leaves out is
 * none of it. With access sections, an HTTP principal sees the union of the sections it
 * matches, and nothing when it matches none; without, everything. */
struct config_access {
    char *id;     /* owned: NAME */
    int line;     /* line of the section header */
    char *scopes; /* owned or NULL: words; the token holds each (its "scope" claim) */
    int scopes_line;
    char *claims; /* owned or NULL: NAME=VALUE words; each claim equals VALUE, or is an
                   * array that holds it */
    int claims_line;
    char *tokens; /* owned or NULL: numbers, lines of auth_token_file (from 1) */
    int tokens_line;
    char *filter[FILTER_KEYS]; /* owned or NULL: tools =, resources =, prompts = (filter.h) */
    int filter_line[FILTER_KEYS];
};

/* A rate as written (N/s, N/min or N/h): in tokens a second, and its N, the bucket's size
 * when none is given. per_s 0: not set. */
struct config_rate {
    double per_s;
    int n;
};

/* One [limit.NAME] section (edge.c): a token bucket over tools/call. */
struct config_limit {
    char *id;    /* owned: NAME */
    int line;    /* line of the section header */
    char *tools; /* owned or NULL (every tool): globs of tool names as clients see them */
    int tools_line;
    struct config_rate rate; /* rate = N/s, N/min or N/h */
    int rate_line;
    int burst; /* the bucket's size; 0 when not set (then the rate's N, at least 1) */
    int burst_line;
    int per_principal; /* per = principal (1, the default): a bucket each; server (0): one */
    int per_line;
};

struct config {
    char *file;         /* owned: the INI path as given */
    char *dir;          /* owned: the folder of the INI file, relative paths start here */
    char *name;         /* owned: serverInfo.name (default "mcph") */
    char *title;        /* owned or NULL: serverInfo.title */
    char *instructions; /* owned or NULL: initialize instructions */
    char *plugin_dir;   /* owned: resolved folder of plugin paths (default: dir) */
    int workers;        /* calls one plugin instance may run at once, by default */
    int log_level;      /* enum log_level */
    int strict;         /* a plugin that fails at startup is fatal */
    int page_size;      /* list page size */
    int watch;          /* reload when the INI or an enabled plugin's file changes */
    int ask_timeout_ms; /* how long a plugin waits for the client's answer */
    int cache_ttl_ms;   /* ttlMs of cacheable results (2026-07-28) */
    int cache_public;   /* cacheScope: public (1) or private (0) */
    int max_pending_mb; /* MiB held for requests in flight and replies not yet written */
    /* Streamable HTTP (http.h); listen NULL: stdio. Read at startup only. */
    char *listen;          /* owned or NULL: HOST:PORT to serve over HTTP */
    char *http_path;       /* owned or NULL ("/mcp"): the one endpoint */
    char *allowed_hosts;   /* owned or NULL: Host names accepted besides loopback's */
    char *allowed_origins; /* owned or NULL: Origins accepted besides the allowed hosts' */
    char *auth_token_file; /* owned or NULL (resolved): bearer tokens, one a line */
    char *state_key_file;  /* owned or NULL (resolved): the key requestState is sealed with */
    char *session_route;   /* owned or NULL: a name session ids start with (NAME-...), for a
                            * load balancer to route a legacy session back to this replica */
    int max_sessions;      /* legacy sessions open at once */
    int session_idle_s;    /* a legacy session unused this long ends */
    int max_connections;   /* HTTP connections at once */
    int http_timeout_s;    /* a connection idle (or trickling) this long is closed */
    /* OAuth 2.1 resource server (HTTP): access tokens are JWTs checked against a JWKS. */
    char *oauth_issuer;    /* owned or NULL: the iss every token must carry */
    char *oauth_resource;  /* owned or NULL: this server's canonical URI, the audience */
    char *oauth_jwks_file; /* owned or NULL (resolved): the JWKS, read at start and again
                            * as oauth_jwks_url is (http_keys.c) */
    char *oauth_jwks_url;  /* owned or NULL: the JWKS, fetched and cached */
    char *oauth_authorization_servers; /* owned or NULL: URLs for the metadata (default iss) */
    char *oauth_scopes;                /* owned or NULL: scopes every token must hold */
    int oauth_leeway_s;                /* clock skew allowed on exp, nbf and iat */
    int oauth_jwks_refresh_s;          /* a fetched JWKS is fetched again after this long */
    /* Rate of HTTP requests per principal (a token bucket), 0: none. */
    struct config_rate rate; /* requests ([server] rate = N/s, N/min or N/h) */
    int rate_burst;          /* the bucket's size; 0: the rate's N */
    /* Metrics (Prometheus text) and health, over HTTP. NULL: not served. */
    char *metrics_path;   /* owned or NULL */
    char *live_path;      /* owned or NULL: 200 while mcph runs */
    char *ready_path;     /* owned or NULL: 200 while a plugin serves, else 503 */
    char *metrics_listen; /* owned or NULL: HOST:PORT where those paths are served instead */
    /* Trust (docs/trust.md): definitions pinned in a lock file, an audit log of calls. */
    char *lock;             /* owned or NULL (resolved): the lock file definitions are checked
                             * against (served/pin.h); NULL: nothing pinned */
    int lock_new;           /* lock_new = accept (1): a definition the lock file lacks is served
                             * and pinned; refuse (0, the default): not served */
    char *audit;            /* owned or NULL (resolved): the audit log (served/audit.h) */
    char *audit_key_file;   /* owned or NULL (resolved): the audit log's HMAC key; NULL: the
                             * audit file's name with .key appended */
    long long audit_buffer; /* bytes of audit lines held while the disk is slow */
    struct config_access *access; /* owned: [access.NAME] sections, in file order */
    size_t naccess;
    struct config_limit *limits; /* owned: [limit.NAME] sections, in file order */
    size_t nlimits;
    int text_fd; /* owned: the INI text as read, a sealed memfd, when a section is isolated;
                  * else -1 */
    struct config_plugin *plugins; /* owned, in file order */
    size_t nplugins;
};

void config_init(struct config *cfg);
void config_release(struct config *cfg);

/*
 * Parse the INI file at `path` into `cfg` (which must be freshly initialised). Every
 * problem is added to `errs` as "FILE:LINE: what is wrong; the fix". Returns STATUS_OK, or
 * STATUS_CONFIG when errs got at least one message (cfg then holds what was understood and
 * must still be released), or STATUS_IO when the file cannot be read.
 */
int config_load(struct config *cfg, const char *path, struct diag *errs)
    __attribute__((warn_unused_result));

/* The same, with the text read from fd (from its start) instead of the file at path, which
 * still names the file in messages and is the folder relative paths start from: what an
 * isolated child (--isolated) gets from its parent. */
int config_load_fd(struct config *cfg, const char *path, int fd, struct diag *errs)
    __attribute__((warn_unused_result));

/* A rate as written (N/s, N/min, N/h; N a whole number from 1 to 1000000) in tokens a
 * second into *per_s, and its N into *n (NULL: not wanted). STATUS_OK or STATUS_INVALID. */
int config_rate_parse(const char *value, double *per_s, int *n);

/* Split [server] listen (borrowed): "HOST:PORT", "[IPV6]:PORT". The host without brackets
 * goes to host (size bytes; NULL: only checked), the port to *port (NULL: not wanted).
 * Returns STATUS_OK or STATUS_INVALID. */
int config_listen_split(const char *listen, char *host, size_t size, int *port);

/* The folder of file `path` ("." for a bare name). Owned by the caller; NULL when out of
 * memory. */
char *config_dirname(const char *path);

/* `rel` resolved against folder `base` (unless absolute; "./x" joins as "base/x" and "." as
 * "base"), as every relative path of the INI is. Owned by the caller; NULL when out of
 * memory. */
char *config_join(const char *base, const char *rel);

/* A deep copy of section src into dst: the strings and keys are dst's own, the descriptors
 * (ini_fd, image_fd) are copied as numbers. Returns STATUS_OK, or STATUS_NOMEM with dst
 * holding nothing. */
int config_plugin_copy(struct config_plugin *dst, const struct config_plugin *src)
    __attribute__((warn_unused_result));

/* Free what section pl holds (not pl itself); NULL is accepted. */
void config_plugin_release(struct config_plugin *pl);

/* The section for plugin instance `id`, or NULL. Borrowed from cfg. */
const struct config_plugin *config_find_plugin(const struct config *cfg, const char *id);

/* 1 when two sections would configure a plugin identically (same path, enabled, prefix,
 * cache keys, filters as written, isolation and its limits, and own keys with the same values in
 * any order), else 0: the one test of whether a reload keeps an instance. max_concurrent is not
 * compared: a kept instance takes a new share without being built again. */
int config_plugin_same(const struct config_plugin *a, const struct config_plugin *b);

#endif
