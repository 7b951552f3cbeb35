/*
 * link_run.c: the link's thread and the link's life. The thread starts the process, sends the
 * handshake, reads its stdout, reaps it when it ends and starts it again after a backoff;
 * with spec.idle_stop_s it stops a server left idle that long and starts it again when a
 * request needs it; opening a link waits for its first handshake, and the last reference
 * stops it.
 */
#include "client/link.h"

#include "mcph-json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- The process. --- */

/* What mcph says of itself as a client, in initialize and in every MCP_MODERN request. */
static void link_client(struct mcp_link *l, cJSON *to, const char *caps_key, const char *info_key)
{
    cJSON *caps = cJSON_AddObjectToObject(to, caps_key);
    cJSON *info = cJSON_AddObjectToObject(to, info_key);

    cJSON_AddObjectToObject(caps, "sampling");
    cJSON_AddObjectToObject(caps, "elicitation");
    cJSON_AddObjectToObject(caps, "roots");
    cJSON_AddStringToObject(info, "name", "mcph");
    pthread_mutex_lock(&l->hlock);
    cJSON_AddStringToObject(info, "version", l->host != NULL ? l->host->version : "");
    pthread_mutex_unlock(&l->hlock);
}

/* A handshake request. Its answer is read by this same thread (the link's), so the id is
 * recorded after the write. */
static int link_handshake(struct mcp_link *l, const char *method, cJSON *params, int discovering)
{
    int64_t id = link_fire(l, method, params);

    pthread_mutex_lock(&l->lock);
    l->init_id = id;
    l->discovering = discovering;
    pthread_mutex_unlock(&l->lock);
    return id != 0 ? MCPH_OK : MCPH_ERR;
}

int link_send_initialize(struct mcp_link *l)
{
    cJSON *params = cJSON_CreateObject();

    cJSON_AddStringToObject(params, "protocolVersion", MCP_PROTOCOL);
    link_client(l, params, "capabilities", "clientInfo");
    return link_handshake(l, "initialize", params, 0);
}

/* The client's side of every MCP_MODERN request: who it is and what it can do. */
static void link_add_meta(struct mcp_link *l, cJSON *params)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

    if (meta == NULL)
        meta = cJSON_AddObjectToObject(params, "_meta");
    if (!cJSON_IsObject(meta))
        return;
    cJSON_AddStringToObject(meta, "io.modelcontextprotocol/protocolVersion", MCP_MODERN);
    link_client(l, meta, "io.modelcontextprotocol/clientCapabilities",
                "io.modelcontextprotocol/clientInfo");
    /* The client's own level decides what reaches it (client_log); the server sends all. */
    cJSON_AddStringToObject(meta, "io.modelcontextprotocol/logLevel", "debug");
}

int mcp_link_modern(struct mcp_link *l)
{
    int modern;

    pthread_mutex_lock(&l->lock);
    modern = l->modern;
    pthread_mutex_unlock(&l->lock);
    return modern;
}

void mcp_link_request_meta(struct mcp_link *l, cJSON *params)
{
    if (mcp_link_modern(l))
        link_add_meta(l, params);
}

/* The handshake starts with server/discover, which a server of MCP_MODERN answers. */
static int link_send_discover(struct mcp_link *l)
{
    cJSON *params = cJSON_CreateObject();

    if (params == NULL)
        return MCPH_ERR_NOMEM;
    link_add_meta(l, params);
    return link_handshake(l, "server/discover", params, 1);
}

/* A MCP_MODERN server sends list_changed and resources/updated only on an open
 * subscriptions/listen request: one stays open, made again when the URIs followed change. */
void link_listen(struct mcp_link *l)
{
    cJSON *params = cJSON_CreateObject();
    cJSON *filter = cJSON_AddObjectToObject(params, "notifications");
    cJSON *uris;
    int64_t old, id;

    cJSON_AddBoolToObject(filter, "toolsListChanged", 1);
    cJSON_AddBoolToObject(filter, "resourcesListChanged", 1);
    cJSON_AddBoolToObject(filter, "promptsListChanged", 1);
    uris = cJSON_AddArrayToObject(filter, "resourceSubscriptions");
    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; i < l->nsubs; i++)
        cJSON_AddItemToArray(uris, cJSON_CreateString(l->subs[i]));
    pthread_mutex_unlock(&l->lock);
    link_add_meta(l, params);
    id = link_fire(l, "subscriptions/listen", params);
    pthread_mutex_lock(&l->lock);
    old = l->listen_id;
    l->listen_id = id;
    pthread_mutex_unlock(&l->lock);
    if (old != 0) {
        cJSON *cancel = cJSON_CreateObject();

        cJSON_AddNumberToObject(cancel, "requestId", (double)old);
        mcp_link_notify(l, "notifications/cancelled", cancel);
    }
}

/* Start a process; the handshake follows in the read loop. */
static int link_start(struct mcp_link *l)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    pid_t pid;
    int to, from;

    if (mcp_spawn(&l->spec, &pid, &to, &from, &why) != MCPH_OK) {
        pthread_mutex_lock(&l->lock);
        snprintf(l->ended, sizeof(l->ended), "could not start: %s", why.buf);
        pthread_mutex_unlock(&l->lock);
        mcph_sb_release(&why);
        return MCPH_ERR;
    }
    mcph_sb_release(&why);
    /* Ours alone (the child has its own end): writes never block (see link_write). */
    fcntl(to, F_SETFL, fcntl(to, F_GETFL) | O_NONBLOCK);
    pthread_mutex_lock(&l->wlock);
    link_out_free(l);
    l->out_dead = 0;
    pthread_mutex_lock(&l->lock);
    l->pid = pid;
    l->to = to;
    l->from = from;
    l->gen++;
    l->noise = 0;
    l->listen_id = 0;
    l->ended[0] = '\0';
    l->timed_out = 0;
    pthread_mutex_unlock(&l->lock);
    pthread_mutex_unlock(&l->wlock);
    return link_send_discover(l);
}

/* What waits for the server's stdin: written when the pipe has room (*out set to watch it),
 * and a server that takes none of it for link_write_ms() is hung. Returns the ms until it
 * would be, or -1. */
static int link_poll_out(struct mcp_link *l, int *out)
{
    int timeout = -1;

    *out = -1;
    pthread_mutex_lock(&l->wlock);
    if (link_flush(l) == MCPH_OK && l->out != NULL) {
        int64_t stalled = link_ms_since(&l->out_since);

        *out = l->to;
        if (stalled >= link_write_ms(l)) {
            char why[160];

            snprintf(why, sizeof(why),
                     "took none of its stdin for %d ms (%s; %zu bytes waited) and was killed",
                     link_write_ms(l),
                     link_write_ms(l) < MCP_WRITE_MS ? "call_timeout_ms" : "MCP_WRITE_MS",
                     l->out_bytes);
            link_hung(l, why);
            *out = -1;
        } else {
            timeout = (int)(link_write_ms(l) - stalled);
        }
    }
    pthread_mutex_unlock(&l->wlock);
    return timeout;
}

enum link_step { LINK_GO, LINK_AGAIN, LINK_END };

/* During the handshake: initialize in place of a server/discover left unanswered for a third
 * of the start-up time (LINK_AGAIN), the end past the start-up deadline (LINK_END), else the
 * poll's *timeout shortened to the next of them. */
static enum link_step link_handshake_due(struct mcp_link *l, const struct timespec *started,
                                         int *timeout)
{
    int64_t spent = link_ms_since(started);
    int64_t left = l->spec.startup_ms - spent;
    int64_t discover_left = l->spec.startup_ms / 3 - spent;
    int discovering;

    pthread_mutex_lock(&l->lock);
    discovering = l->discovering;
    pthread_mutex_unlock(&l->lock);
    if (discovering && discover_left <= 0) {
        link_send_initialize(l);
        return LINK_AGAIN;
    }
    if (left <= 0) {
        pthread_mutex_lock(&l->lock);
        snprintf(l->ended, sizeof(l->ended), "did not answer initialize within %d ms",
                 l->spec.startup_ms);
        pthread_mutex_unlock(&l->lock);
        return LINK_END;
    }
    left = discovering && discover_left < left ? discover_left : left;
    if (*timeout < 0 || left < *timeout)
        *timeout = (int)left;
    return LINK_GO;
}

/* With spec.idle_stop_s: whether the server has been idle that long (up, no request in flight
 * or parked, no subscription, nothing waiting for its stdin: *writing), and so is to stop: the
 * link is then MCP_IDLE, and requests wait for the next start. Else *timeout is shortened to
 * when it could be (while busy, idle_stop_s: the thread looks again then). */
static int link_idle_due(struct mcp_link *l, int writing, int *timeout)
{
    int64_t limit = (int64_t)l->spec.idle_stop_s * 1000, left = limit;
    int due = 0;

    if (limit <= 0)
        return 0;
    pthread_mutex_lock(&l->lock);
    if (l->state == MCP_UP && !writing && l->pending == NULL && l->nsubs == 0) {
        int64_t quiet = link_ms_since(&l->last_use), up = link_ms_since(&l->up_since);

        left = limit - (up < quiet ? up : quiet);
        if (left <= 0) {
            l->state = MCP_IDLE;
            due = 1;
        }
    }
    pthread_mutex_unlock(&l->lock);
    if (!due && (*timeout < 0 || left < *timeout))
        *timeout = (int)left;
    return due;
}

/* Whether the link is to stop; *handshake: whether it is not up yet. */
static int link_stopping(struct mcp_link *l, int *handshake)
{
    int stop;

    pthread_mutex_lock(&l->lock);
    *handshake = l->state != MCP_UP;
    stop = l->stop;
    pthread_mutex_unlock(&l->lock);
    return stop;
}

static void link_drain_wake(struct mcp_link *l)
{
    char drain[64];

    while (read(l->wake[0], drain, sizeof(drain)) < 0 && errno == EINTR)
        ;
}

/* Read lines until the server's stdout ends, the link stops, or the server has been idle for
 * spec.idle_stop_s (returns 1: the link is MCP_IDLE); during the handshake, at most the
 * start-up deadline. */
static int link_read(struct mcp_link *l)
{
    struct timespec started;
    int idled = 0;

    link_now(&started);
    for (;;) {
        struct pollfd fds[3] = {{.fd = l->from, .events = POLLIN},
                                {.fd = l->wake[0], .events = POLLIN},
                                {.fd = -1, .events = POLLOUT}};
        int handshake, timeout = link_poll_out(l, &fds[2].fd), lent;
        enum link_step step = LINK_GO;

        if (link_stopping(l, &handshake))
            break;
        if (handshake) {
            step = link_handshake_due(l, &started, &timeout);
        } else if (link_idle_due(l, fds[2].fd >= 0, &timeout)) {
            idled = 1;
            break;
        }
        if (step == LINK_AGAIN)
            continue;
        /* Reading lent to a waiting call (link_read.c): `from` is not polled here. */
        lent = link_lend(l, &timeout);
        if (lent < 0)
            break;
        if (lent)
            fds[0].fd = -1;
        else
            link_read_left(l);
        if (step == LINK_END || (poll(fds, 3, timeout) < 0 && errno != EINTR))
            break;
        if (fds[1].revents != 0) {
            link_drain_wake(l);
            continue;
        }
        if (fds[0].revents != 0 && link_read_in(l, 0) < 0)
            break;
    }
    link_lend_end(l);
    return idled;
}

/* Close the server's stdin and drop what waited to be written to it. */
static void link_close_stdin(struct mcp_link *l)
{
    pthread_mutex_lock(&l->wlock);
    if (l->to >= 0)
        close(l->to);
    l->to = -1;
    link_out_free(l);
    pthread_mutex_unlock(&l->wlock);
}

/* The process after its stdout ended: closed, stopped if it lingers, reaped, and described. */
static void link_reap(struct mcp_link *l)
{
    char how[96];
    int st = 0, waited = 0;
    pid_t pid = l->pid;

    link_close_stdin(l);
    close(l->from);
    l->from = -1;
    for (int i = 0; i < MCP_STOP_GRACE_MS / 10 && !waited; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);

        if (r == pid || (r < 0 && errno != EINTR))
            waited = r == pid;
        if (r == pid || (r < 0 && errno == ECHILD))
            break;
        if (i == MCP_STOP_GRACE_MS / 50)
            kill(-pid, SIGTERM);
        usleep(10000);
    }
    if (!waited) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    kill(-pid, SIGKILL); /* what it started in its group */
    mcp_describe_end(st, how, sizeof(how));
    pthread_mutex_lock(&l->lock);
    l->config_exited =
        l->spec.config_exit != 0 && WIFEXITED(st) && WEXITSTATUS(st) == l->spec.config_exit;
    /* Asked to stop (or idle): an end other than exit 0 or the signals sent is told by the
     * unref (or link_idle). */
    if ((l->stop || l->state == MCP_IDLE) && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) &&
        !(WIFSIGNALED(st) && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL)))
        snprintf(l->stop_end, sizeof(l->stop_end), "%s", how);
    if (l->ended[0] == '\0')
        snprintf(l->ended, sizeof(l->ended), "%s", how);
    /* A kill for call_timeout_ms is said already, and so is a relay's exit by its reason. */
    else if (!(l->timed_out && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) &&
             !(l->spec.remote != NULL && WIFEXITED(st)) &&
             strlen(l->ended) + strlen(how) + 8 < sizeof(l->ended))
        snprintf(l->ended + strlen(l->ended), sizeof(l->ended) - strlen(l->ended), " (then %s)",
                 how);
    l->pid = 0;
    pthread_mutex_unlock(&l->lock);
}

/* Wait ms or until asked to stop (lock held). Returns 1 when asked to stop. */
static int link_pause(struct mcp_link *l, int64_t ms)
{
    struct timespec until;

    link_after(&until, ms);
    while (!l->stop && !l->retry) {
        if (link_timedwait(l, &until) == ETIMEDOUT)
            break;
    }
    return l->stop;
}

/* The link's thread ends: the link is stopped. lock held, and released. */
static void *link_stopped(struct mcp_link *l)
{
    l->state = MCP_STOPPED;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* MCP_CRASHES_DOWN crashes in a row: down, said once, until a reload asks for a retry (0) or
 * the link stops (1). lock held. */
static int link_down(struct mcp_link *l)
{
    char text[320];

    l->state = MCP_DOWN;
    snprintf(text, sizeof(text),
             "%s '%s' is down: it %s, %d times in a row; calls fail until a "
             "reload (SIGHUP) starts it again",
             mcp_noun(&l->spec), l->spec.display, l->ended, l->crashes);
    pthread_mutex_unlock(&l->lock);
    link_alert(l, text);
    pthread_mutex_lock(&l->lock);
    while (!l->stop && !l->retry)
        pthread_cond_wait(&l->cond, &l->lock);
    if (l->stop)
        return 1;
    l->retry = 0;
    l->crashes = 0;
    l->state = MCP_RESTARTING;
    return 0;
}

/* The server was stopped for spec.idle_stop_s idle: said at info level, then the link waits
 * until a request needs the server (0: it starts again, as after a crash but at once and not
 * counted as one) or the link stops (1). lock held. */
static int link_idle(struct mcp_link *l)
{
    char odd[128] = "";

    if (l->stop_end[0] != '\0')
        snprintf(odd, sizeof(odd), " (it %s as it stopped)", l->stop_end);
    l->stop_end[0] = '\0';
    /* It ended as asked: the uptime that forgives crashes counts up to here. */
    if (link_ms_since(&l->up_since) >= MCP_UPTIME_RESET_MS)
        l->crashes = 0;
    pthread_mutex_unlock(&l->lock);
    pthread_mutex_lock(&l->hlock);
    if (l->host != NULL)
        l->host->log(l->host, MCPH_LOG_INFO,
                     "%s '%s' stopped after %d s idle; started again on the next request%s",
                     mcp_noun(&l->spec), l->spec.display, l->spec.idle_stop_s, odd);
    pthread_mutex_unlock(&l->hlock);
    pthread_mutex_lock(&l->lock);
    while (!l->stop && !l->demand)
        pthread_cond_wait(&l->cond, &l->lock);
    if (l->stop)
        return 1;
    l->demand = 0;
    l->state = MCP_RESTARTING;
    return 0;
}

static void *link_thread(void *arg)
{
    struct mcp_link *l = arg;
    int first = 1;

    for (;;) {
        int started = link_start(l) == MCPH_OK, idled = 0;
        int64_t backoff;

        if (started)
            idled = link_read(l);
        if (l->pid != 0)
            link_reap(l);
        pthread_mutex_lock(&l->lock);
        link_fail_all(l, l->gen, l->ended);
        /* A first start that fails ends the link, unless the spec keeps trying and the
         * process did not say its section is wrong: mcp_link_open then returns the link
         * restarting. */
        if (l->stop ||
            (first && l->state != MCP_UP && !idled && (!l->spec.keep_trying || l->config_exited)))
            return link_stopped(l);
        first = 0;
        if (idled) {
            if (link_idle(l))
                return link_stopped(l);
            pthread_mutex_unlock(&l->lock);
            continue;
        }
        if (l->state == MCP_UP && link_ms_since(&l->up_since) >= MCP_UPTIME_RESET_MS)
            l->crashes = 0;
        l->crashes++;
        l->state = MCP_RESTARTING;
        pthread_cond_broadcast(&l->cond);
        if (l->crashes >= MCP_CRASHES_DOWN && !l->spec.keep_trying) {
            if (link_down(l))
                return link_stopped(l);
            pthread_mutex_unlock(&l->lock);
            continue;
        }
        backoff = (int64_t)MCP_BACKOFF_FIRST_MS << (l->crashes < 16 ? l->crashes - 1 : 15);
        if (backoff > MCP_BACKOFF_MAX_MS)
            backoff = MCP_BACKOFF_MAX_MS;
        pthread_mutex_unlock(&l->lock);
        if (l->spec.keep_trying)
            link_log(l, MCPH_LOG_ERROR,
                     "%s '%s' %s; trying again in %" PRId64 " ms (failure %d in a row)",
                     mcp_noun(&l->spec), l->spec.display, l->ended, backoff, l->crashes);
        else
            link_log(l, MCPH_LOG_ERROR,
                     "%s '%s' %s; starting it again in %" PRId64 " ms (crash %d in a row; "
                     "down at %d)",
                     mcp_noun(&l->spec), l->spec.display, l->ended, backoff, l->crashes,
                     MCP_CRASHES_DOWN);
        pthread_mutex_lock(&l->lock);
        if (link_pause(l, backoff))
            return link_stopped(l);
        l->retry = 0;
        pthread_mutex_unlock(&l->lock);
    }
}

/* --- Life. --- */

/* The link's condition waits on CLOCK_MONOTONIC, as its deadlines are. */
static void link_locks_init(struct mcp_link *l)
{
    pthread_condattr_t ca;

    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->wlock, NULL);
    pthread_mutex_init(&l->hlock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cond, &ca);
    pthread_condattr_destroy(&ca);
}

struct mcp_link *mcp_link_open(const struct mcph_host *host, struct mcp_spec *spec, int *rc)
{
    struct mcp_link *l = calloc(1, sizeof(*l));
    struct timespec until;
    enum mcp_state state;

    *rc = MCPH_ERR;
    if (l == NULL)
        return NULL;
    link_locks_init(l);
    l->refs = 1;
    if (mcp_link_attach(l, host) != MCPH_OK) {
        free(l);
        return NULL;
    }
    l->spec = *spec;
    memset(spec, 0, sizeof(*spec));
    l->state = MCP_STARTING;
    l->to = l->from = -1;
    l->out_tail = &l->out;
    mcph_sb_init(&l->rbuf);
    if (pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        host->log(host, MCPH_LOG_ERROR, "pipe: %s", strerror(errno));
        goto fail;
    }
    if (pthread_create(&l->thread, NULL, link_thread, l) != 0) {
        host->log(host, MCPH_LOG_ERROR, "could not start the link's thread");
        close(l->wake[0]);
        close(l->wake[1]);
        goto fail;
    }
    link_after(&until, (int64_t)l->spec.startup_ms + 2000);
    pthread_mutex_lock(&l->lock);
    while (l->state == MCP_STARTING && link_timedwait(l, &until) != ETIMEDOUT)
        ;
    state = l->state;
    if (state != MCP_UP && l->config_exited)
        *rc = MCPH_ERR_INVALID;
    pthread_mutex_unlock(&l->lock);
    if (state == MCP_UP)
        return l;
    if (state == MCP_RESTARTING && l->spec.keep_trying) {
        host->log(host, MCPH_LOG_WARNING,
                  "%s '%s' %s; serving its rows once it answers (trying again with backoff)",
                  mcp_noun(&l->spec), l->spec.display,
                  l->ended[0] != '\0' ? l->ended : "did not start");
        return l;
    }
    host->log(host, MCPH_LOG_ERROR, "%s '%s' %s", mcp_noun(&l->spec), l->spec.display,
              l->ended[0] != '\0' ? l->ended : "did not start");
    mcp_link_unref(l, NULL);
    return NULL;
fail:
    mcp_spec_release(&l->spec);
    free(l->hosts);
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->wlock);
    pthread_mutex_destroy(&l->hlock);
    free(l);
    return NULL;
}

void mcp_link_ref(struct mcp_link *l)
{
    pthread_mutex_lock(&l->lock);
    l->refs++;
    pthread_mutex_unlock(&l->lock);
}

int mcp_link_attach(struct mcp_link *l, const struct mcph_host *host)
{
    const struct mcph_host **grown;

    pthread_mutex_lock(&l->hlock);
    grown = realloc(l->hosts, (l->nhosts + 1) * sizeof(*grown));
    if (grown != NULL) {
        l->hosts = grown;
        l->hosts[l->nhosts++] = host;
        l->host = host;
    }
    pthread_mutex_unlock(&l->hlock);
    return grown != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

void mcp_link_detach(struct mcp_link *l, const struct mcph_host *host)
{
    pthread_mutex_lock(&l->hlock);
    for (size_t i = 0; i < l->nhosts; i++) {
        if (l->hosts[i] == host) {
            memmove(&l->hosts[i], &l->hosts[i + 1], (l->nhosts - i - 1) * sizeof(*l->hosts));
            l->nhosts--;
            break;
        }
    }
    l->host = l->nhosts > 0 ? l->hosts[l->nhosts - 1] : NULL;
    pthread_mutex_unlock(&l->hlock);
}

int mcp_link_waiting(struct mcp_link *l)
{
    int waiting;

    pthread_mutex_lock(&l->lock);
    waiting = l->spec.keep_trying && (l->state == MCP_STARTING || l->state == MCP_RESTARTING);
    pthread_mutex_unlock(&l->lock);
    return waiting;
}

void mcp_link_retry(struct mcp_link *l)
{
    pthread_mutex_lock(&l->lock);
    if (l->state == MCP_DOWN) {
        l->retry = 1;
        l->state = MCP_RESTARTING;
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
}

void mcp_link_unref(struct mcp_link *l, const struct mcph_host *host)
{
    int last;

    pthread_mutex_lock(&l->lock);
    last = --l->refs == 0;
    if (last) {
        l->stop = 1;
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
    if (!last)
        return;
    /* Closing its stdin is how a stdio server is asked to end; link_reap then gives it
     * MCP_STOP_GRACE_MS before SIGKILL. */
    link_close_stdin(l);
    link_wake(l);
    pthread_join(l->thread, NULL);
    if (host != NULL && l->stop_end[0] != '\0')
        host->log(host, MCPH_LOG_WARNING, "%s '%s' %s while it was being stopped",
                  mcp_noun(&l->spec), l->spec.display, l->stop_end);
    close(l->wake[0]);
    close(l->wake[1]);
    while (l->pending != NULL) {
        struct mcp_pending *p = l->pending;

        l->pending = p->next;
        link_pending_free(p);
    }
    for (size_t i = 0; i < l->nsubs; i++)
        free(l->subs[i]);
    free(l->subs);
    cJSON_Delete(l->init_result);
    free(l->meta_text);
    link_listed_free(l);
    free(l->hosts);
    mcp_spec_release(&l->spec);
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->wlock);
    pthread_mutex_destroy(&l->hlock);
    free(l);
}
