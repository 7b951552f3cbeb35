/*
 * http.c: the Streamable HTTP transport's start and stop (http.h): libmicrohttpd's daemon on
 * [server] listen, the names, tokens and keys it is set up with, and the ticker that sends
 * keep-alive comments, ends idle sessions, cuts requests that trickle and finds clients gone.
 * The rest of the transport is cut along a request's life (http_int.h lists the files).
 */
#include "transport/http_int.h"

#include "lib/log.h"
#include "lib/status.h"
#include "served/server.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

long http_ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000L + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

/* The ticker: keep-alive comments on open streams, and sessions left idle. */

static void http_keepalive(struct http *h)
{
    pthread_mutex_lock(&h->lock);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->lock);
        if (c->mode == HTTP_EVENTS && !c->gone && !c->ended) {
            strbuf_addstr(&c->events, ": keep-alive\n\n");
            http_wake(c);
        }
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&h->lock);
}

/* A request still arriving after http_timeout_s (a slowloris trickle: libmicrohttpd's own
 * time-out only counts silence) is cut; the daemon then closes the connection. h->lock held. */
static void http_cut_slow(struct http *h)
{
    for (struct http_sock *sock = h->socks; sock != NULL; sock = sock->next) {
        if (sock->answering || sock->cut || http_ms_since(&sock->since) < h->timeout_ms)
            continue;
        sock->cut = 1;
        shutdown(sock->fd, SHUT_RDWR);
    }
}

/* Connections waiting (suspended, unwatched by the daemon) whose client went away. */
static void http_find_dead(struct http *h)
{
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        int waiting;

        pthread_mutex_lock(&c->lock);
        waiting = c->suspended && !c->dead && !c->gone;
        pthread_mutex_unlock(&c->lock);
        if (waiting && http_fd_closed(c->fd))
            http_conn_dead(c);
    }
}

static void *http_ticker(void *arg)
{
    struct http *h = arg;
    struct timespec last, expired;

    clock_gettime(CLOCK_MONOTONIC, &last);
    expired = last;
    pthread_mutex_lock(&h->lock);
    while (!atomic_load(&h->stopping)) {
        struct timespec until;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += LIMIT_HTTP_TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->tick, &h->lock, &until);
        if (atomic_load(&h->stopping))
            break;
        http_cut_slow(h);
        http_find_dead(h);
        pthread_mutex_unlock(&h->lock);
        if (http_ms_since(&expired) >= 1000) {
            http_expire(h);
            clock_gettime(CLOCK_MONOTONIC, &expired);
        }
        if (http_ms_since(&last) >= LIMIT_HTTP_KEEPALIVE_MS) {
            http_keepalive(h);
            clock_gettime(CLOCK_MONOTONIC, &last);
        }
        pthread_mutex_lock(&h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* The Host names answered to: the loopback ones when bound there, and those configured. */
static int http_setup_names(struct http *h, const char *bind_host)
{
    const struct config *cfg = &h->srv->cfg;
    int status = STATUS_OK;

    if (http_is_loopback(bind_host)) {
        status = http_add_names(h->hosts, &h->nhosts, 32, "localhost 127.0.0.1 [::1]");
    } else if (cfg->allowed_hosts == NULL) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] listen = %s is not a loopback address: set [server] "
                "allowed_hosts to the names clients reach it by (a DNS rebinding guard)",
                cfg->file, cfg->listen);
        return STATUS_INVALID;
    }
    if (status == STATUS_OK)
        status = http_add_names(h->hosts, &h->nhosts, 32, cfg->allowed_hosts);
    if (status == STATUS_OK)
        status = http_add_names(h->origins, &h->norigins, 32, cfg->allowed_origins);
    if (status == STATUS_LIMIT)
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] allowed_hosts or allowed_origins lists more than 32 names",
                cfg->file);
    return status;
}

/* A whole small file (at most 64 KiB) into sb: [server] `key` (a secret). A file others may
 * read or write gets a warning: the secret is theirs too. STATUS_CONFIG when it is not a
 * regular file (a FIFO would hold the start for as long as nobody writes it). */
static int http_read_file(const struct http *h, const char *key, const char *path,
                          struct strbuf *sb)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    FILE *f;
    char buf[4096];
    struct stat st;
    size_t n;

    if (fd < 0)
        return STATUS_IO;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return STATUS_CONFIG;
    }
    f = fdopen(fd, "r");
    if (f == NULL) {
        close(fd);
        return STATUS_IO;
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        log_msg(&h->srv->log, LOG_WARNING, NULL,
                "%s: [server] %s = %s is %s by group or others (mode %03o): the secret in it is "
                "theirs too; chmod 600 %s",
                h->srv->cfg.file, key, path,
                (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ? "writable" : "readable",
                (unsigned)(st.st_mode & 0777), path);
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb->len < 65536)
        strbuf_add(sb, buf, n);
    fclose(f);
    return sb->nomem ? STATUS_NOMEM : sb->len >= 65536 ? STATUS_LIMIT : STATUS_OK;
}

/* auth_token_file: one token a line (blank lines and # comments skipped), kept hashed. */
static int http_load_tokens(struct http *h)
{
    const struct config *cfg = &h->srv->cfg;
    struct strbuf sb = STRBUF_INIT;
    int status;

    if (cfg->auth_token_file == NULL)
        return STATUS_OK;
    status = http_read_file(h, "auth_token_file", cfg->auth_token_file, &sb);
    if (status == STATUS_OK)
        status = http_parse_tokens(h, sb.buf);
    if (status != STATUS_OK)
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] auth_token_file = %s: %s; it needs one token a line (at most %d)",
                cfg->file, cfg->auth_token_file,
                status == STATUS_INVALID  ? "no token in it"
                : status == STATUS_CONFIG ? "not a regular file"
                                          : status_str(status),
                HTTP_MAX_TOKENS);
    strbuf_release(&sb);
    return status;
}

/* state_key_file: the key requestState is sealed with, at least 32 bytes; without it, 32
 * random bytes made now. */
static int http_load_state_key(struct http *h)
{
    struct server *srv = h->srv;
    struct strbuf sb = STRBUF_INIT;
    int status;

    if (srv->cfg.state_key_file == NULL) {
        /* Sealed all the same, under a key of this process's: a state is never taken unchecked
         * (replicas that share retries need the file). */
        unsigned char *key = malloc(32);

        if (key == NULL || getrandom(key, 32, 0) != 32) {
            free(key);
            return STATUS_IO;
        }
        srv->state_key = key;
        srv->state_key_len = 32;
        return STATUS_OK;
    }
    status = http_read_file(h, "state_key_file", srv->cfg.state_key_file, &sb);
    while (status == STATUS_OK && sb.len > 0 &&
           (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r'))
        sb.buf[--sb.len] = '\0';
    if (status == STATUS_OK && sb.len < 32)
        status = STATUS_INVALID;
    if (status != STATUS_OK) {
        log_msg(&srv->log, LOG_ERROR, NULL,
                "%s: [server] state_key_file = %s: %s; it needs a key of 32 bytes or more "
                "(head -c 32 /dev/urandom | base64 > FILE)",
                srv->cfg.file, srv->cfg.state_key_file,
                status == STATUS_INVALID  ? "too short"
                : status == STATUS_CONFIG ? "not a regular file"
                                          : status_str(status));
        strbuf_release(&sb);
        return status;
    }
    srv->state_key_len = sb.len;
    srv->state_key = (unsigned char *)strbuf_detach(&sb, NULL);
    return STATUS_OK;
}

__attribute__((format(printf, 2, 0))) static void http_log_mhd(void *cls, const char *fmt,
                                                               va_list ap)
{
    struct http *h = cls;
    char line[512];

    vsnprintf(line, sizeof(line), fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    /* stderr only: this may run under the daemon's own locks, where a client's stream must
     * not be written (and resumed). */
    log_msg(&h->quiet, LOG_DEBUG, NULL, "http: %s", line);
}

static int http_listen(struct http *h, const char *host, int port)
{
    const struct config *cfg = &h->srv->cfg;
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    const struct sockaddr *addr = (const struct sockaddr *)&a4;
    /* No thread of its own: the pool's reader runs it (http_loop.c). The ITC lets an answer
     * written by another thread resume its connection and wake the reader. */
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    const union MHD_DaemonInfo *info;

    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
        addr = (const struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else if (inet_pton(AF_INET, host, &a4.sin_addr) != 1) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] listen = %s: '%s' is not an IP address; use 127.0.0.1, [::1] "
                "or an address of this machine",
                cfg->file, cfg->listen, host);
        return STATUS_INVALID;
    }
    h->daemon = h->lib.start_daemon(
        flags, (uint16_t)port, NULL, NULL, http_handle, h, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_NOTIFY_COMPLETED, http_completed, h, MHD_OPTION_NOTIFY_CONNECTION,
        http_notify_connection, h, MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->http_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LIMIT_HTTP_CONN_MEMORY,
        MHD_OPTION_EXTERNAL_LOGGER, http_log_mhd, h, MHD_OPTION_END);
    info = h->daemon != NULL ? h->lib.get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
    h->epoll_fd = info != NULL ? info->epoll_fd : -1;
    if (h->daemon != NULL && h->epoll_fd < 0) {
        log_msg(&h->srv->log, LOG_ERROR, NULL, "libmicrohttpd gave no epoll descriptor");
        h->lib.stop_daemon(h->daemon);
        h->daemon = NULL;
        return STATUS_IO;
    }
    if (h->daemon == NULL) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] listen = %s: cannot listen there (%s); is the port in use?",
                cfg->file, cfg->listen, strerror(errno));
        return STATUS_IO;
    }
    return STATUS_OK;
}

static void http_free(struct http *h)
{
    for (size_t i = 0; i < h->nhosts; i++)
        free(h->hosts[i]);
    for (size_t i = 0; i < h->norigins; i++)
        free(h->origins[i]);
    free(h->sessions);
    free(h->route);
    http_auth_free(h);
    if (h->lib.dl != NULL)
        dlclose(h->lib.dl);
    pthread_cond_destroy(&h->tick);
    pthread_mutex_destroy(&h->run_lock);
    if (h->wake_fd >= 0)
        close(h->wake_fd);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* server.cancel_more: every call of an HTTP client is cancelled (shutting down). */
static size_t http_cancel_all(void *ctx)
{
    struct http *h = ctx;
    size_t n = 0;

    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->nsessions; i++)
        n += inflight_cancel_all(&h->sessions[i]->inflight);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        if (c->own_inflight != NULL)
            n += inflight_cancel_all(c->own_inflight);
    }
    pthread_mutex_unlock(&h->lock);
    if (n > 0)
        log_msg(&h->srv->log, LOG_WARNING, NULL, "http: cancelled %zu request(s) of HTTP clients",
                n);
    return n;
}

/* h (zeroed) set up from srv's configuration, as it is at the start. */
static void http_init(struct http *h, struct server *srv)
{
    h->srv = srv;
    h->listen_fd = -1;
    log_init(&h->quiet);
    atomic_store(&h->quiet.level, atomic_load(&srv->log.level));
    h->max_sessions = (size_t)srv->cfg.max_sessions;
    h->route = srv->cfg.session_route ? strdup(srv->cfg.session_route) : NULL;
    h->idle_ms = (long)srv->cfg.session_idle_s * 1000L;
    h->timeout_ms = (long)srv->cfg.http_timeout_s * 1000L;
    h->max_streams = (size_t)srv->cfg.max_connections / LIMIT_HTTP_STREAM_SHARE;
    h->client_streams = h->max_streams / LIMIT_HTTP_CLIENT_STREAM_SHARE;
    if (h->client_streams == 0)
        h->client_streams = 1;
    h->epoll_fd = -1;
    h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->run_lock, NULL);
    pthread_cond_init(&h->tick, NULL);
    snprintf(h->path, sizeof(h->path), "%s", srv->cfg.http_path ? srv->cfg.http_path : "/mcp");
}

int http_start(struct server *srv, struct http **out)
{
    struct http *h = calloc(1, sizeof(*h));
    const union MHD_DaemonInfo *info;
    char host[64];
    int port = 0, status;

    if (h == NULL)
        return STATUS_NOMEM;
    http_init(h, srv);
    if (h->wake_fd < 0)
        log_msg(&srv->log, LOG_ERROR, NULL, "http: cannot make an eventfd: %s", strerror(errno));
    status = h->wake_fd >= 0 ? http_lib_open(&h->lib, &srv->log) : STATUS_IO;
    if (status == STATUS_OK)
        status = config_listen_split(srv->cfg.listen, host, sizeof(host), &port);
    if (status == STATUS_OK)
        status = http_setup_names(h, host);
    if (status == STATUS_OK)
        status = http_load_tokens(h);
    if (status == STATUS_OK)
        status = http_auth_start(h);
    h->loopback = http_is_loopback(host);
    if (status == STATUS_OK && !h->loopback && h->ntokens == 0 && h->oauth == NULL)
        log_msg(&srv->log, LOG_WARNING, NULL,
                "%s: [server] listen = %s is not a loopback address and no auth_token_file is "
                "set: anyone who reaches it may call every tool; set [server] auth_token_file (or "
                "put an authenticating proxy in front)",
                srv->cfg.file, srv->cfg.listen);
    if (status == STATUS_OK)
        status = http_load_state_key(h);
    if (status == STATUS_OK)
        status = http_listen(h, host, port);
    if (status == STATUS_OK)
        status = http_metrics_start(h);
    if (status == STATUS_OK && pthread_create(&h->ticker, NULL, http_ticker, h) != 0)
        status = STATUS_IO;
    if (status != STATUS_OK) {
        http_metrics_stop(h);
        if (h->daemon != NULL)
            h->lib.stop_daemon(h->daemon);
        http_free(h);
        return status;
    }
    h->ticker_started = 1;
    srv->cancel_more = http_cancel_all;
    srv->cancel_ctx = h;
    info = h->lib.get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    log_msg(&srv->log, LOG_INFO, NULL, "listening on http://%s%s%s:%u%s%s",
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
            info ? info->port : (unsigned)port, h->path,
            h->oauth     ? " (OAuth access tokens required)"
            : h->ntokens ? " (bearer tokens required)"
                         : "");
    *out = h;
    return STATUS_OK;
}

void http_quiesce(struct http *h)
{
    if (h == NULL)
        return;
    atomic_store(&h->closing, 1);
    /* Closed once the daemon stops. */
    pthread_mutex_lock(&h->run_lock);
    h->listen_fd = h->lib.quiesce_daemon(h->daemon);
    pthread_mutex_unlock(&h->run_lock);
    /* The pool stops reading next: the pump runs the daemon until http_stop. */
    http_pump_start(h);
}

static int http_conns_open(struct http *h)
{
    int open;

    pthread_mutex_lock(&h->lock);
    open = h->conns != NULL;
    pthread_mutex_unlock(&h->lock);
    return open;
}

/* Run the daemon until no connection is open, at most LIMIT_HTTP_STOP_MS. */
static void http_run_until_closed(struct http *h)
{
    for (int i = 0; i < LIMIT_HTTP_STOP_MS / 10 && http_conns_open(h); i++)
        http_pump_for(h, 10);
}

void http_stop(struct http *h)
{
    if (h == NULL)
        return;
    h->srv->cancel_more = NULL;
    pthread_mutex_lock(&h->lock);
    atomic_store(&h->stopping, 1);
    pthread_cond_broadcast(&h->tick);
    pthread_mutex_unlock(&h->lock);
    if (h->ticker_started)
        pthread_join(h->ticker, NULL);
    /* Sessions end (their streams with them); every other stream ends once what it holds is
     * sent. A suspended connection must be resumed before the daemon stops. */
    for (;;) {
        struct http_session *s;

        pthread_mutex_lock(&h->lock);
        s = h->nsessions > 0 ? h->sessions[--h->nsessions] : NULL;
        pthread_mutex_unlock(&h->lock);
        if (s == NULL)
            break;
        http_session_end(h, s);
    }
    pthread_mutex_lock(&h->lock);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->lock);
        c->ended = 1;
        http_wake(c);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&h->lock);
    /* What they hold is sent, for a little while (this thread runs the daemon from now on);
     * then the daemon closes what is left. */
    http_pump_stop(h);
    http_run_until_closed(h);
    /* The daemon must not stop with a connection suspended: any still open is woken to end. */
    pthread_mutex_lock(&h->lock);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->lock);
        c->ended = 1;
        c->dead = 1;
        http_wake(c);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&h->lock);
    /* The daemon runs on until those close (each answers its next look with a close): one
     * left suspended when it stops would be neither closed nor freed. */
    http_run_until_closed(h);
    http_metrics_stop(h);
    h->lib.stop_daemon(h->daemon);
    if (h->listen_fd >= 0)
        close(h->listen_fd);
    http_free(h);
}
