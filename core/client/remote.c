/*
 * remote.c: the relay's process (remote.h): its settings from fd 3, libcurl, the loop that
 * turns stdin's lines into requests and runs them all at once (one curl multi handle; stdin
 * polled beside its sockets), the legacy session's GET stream, and the end.
 */
#include "client/client.h"
#include "client/remote.h"
#include "client/remote_int.h"

#include "lib/status.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void remote_say(const struct remote *r, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "mcph relay[%s]: %s\n", r->section, line);
}

static int remote_write_all(int fd, const char *buf, size_t len);

/* The MCP_RELAY_ENDED line with reason, on stdout. */
static int remote_tell_end(struct remote *r, const char *reason)
{
    cJSON *msg = cJSON_CreateObject(), *params = cJSON_AddObjectToObject(msg, "params");
    char *text;
    int rc = STATUS_NOMEM;

    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddStringToObject(msg, "method", MCP_RELAY_ENDED);
    cJSON_AddStringToObject(params, "reason", reason);
    text = cJSON_PrintUnformatted(msg);
    if (text != NULL) {
        size_t n = strlen(text);

        text[n] = '\n';
        rc = remote_write_all(r->out_fd, text, n + 1);
        free(text);
    }
    cJSON_Delete(msg);
    return rc;
}

void remote_fail(struct remote *r, int code, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    if (r->exit_code >= 0)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    r->exit_code = code;
    /* The reason goes to the engine as the last line (MCP_RELAY_ENDED), which its messages
     * and the calls it fails then say; on stderr only when the engine cannot read it. */
    if (remote_tell_end(r, line) != STATUS_OK)
        remote_say(r, "%s", line);
}

long long remote_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* All of len bytes to fd, waiting for it when it is full. */
static int remote_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n < 0 && errno == EAGAIN) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};

            poll(&p, 1, 1000);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return STATUS_IO;
        buf += n;
        len -= (size_t)n;
    }
    return STATUS_OK;
}

int remote_write_line(struct remote *r, const char *line, size_t len)
{
    char chunk[8192 + 1]; /* a full piece, and the line's end after it */
    size_t used = 0;
    int plain = memchr(line, '\n', len) == NULL && memchr(line, '\r', len) == NULL;

    /* Most messages hold no CR or LF: a short one is copied once and written with its end,
     * a long one written from where it is, then its end. */
    if (plain && len < sizeof(chunk)) {
        memcpy(chunk, line, len);
        chunk[len] = '\n';
        if (remote_write_all(r->out_fd, chunk, len + 1) == STATUS_OK)
            return STATUS_OK;
    } else if (plain) {
        if (remote_write_all(r->out_fd, line, len) == STATUS_OK &&
            remote_write_all(r->out_fd, "\n", 1) == STATUS_OK)
            return STATUS_OK;
    }
    if (plain) {
        remote_fail(r, 1, "stdout: %s: the engine is gone", strerror(errno));
        return STATUS_IO;
    }
    /* Else copied in pieces so that CR and LF become spaces without a copy of the whole. */
    for (size_t i = 0; i <= len; i++) {
        if (used == sizeof(chunk) - 1 || i == len) {
            if (i == len)
                chunk[used++] = '\n';
            if (remote_write_all(r->out_fd, chunk, used) != STATUS_OK) {
                remote_fail(r, 1, "stdout: %s: the engine is gone", strerror(errno));
                return STATUS_IO;
            }
            used = 0;
        }
        if (i < len)
            chunk[used++] = line[i] == '\r' || line[i] == '\n' ? ' ' : line[i];
    }
    return STATUS_OK;
}

/* The settings object: fd 3 to its end, at most REMOTE_SETTINGS_MAX bytes. */
static int remote_read_settings(struct remote *r)
{
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    ssize_t n = 0;
    int status;

    if (fcntl(3, F_GETFD) < 0) {
        remote_say(r, "no settings on fd 3 (mcph starts the relay so; not for use by hand)");
        return STATUS_INVALID;
    }
    while (sb.len <= REMOTE_SETTINGS_MAX && (n = read(3, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || strbuf_add(&sb, buf, (size_t)n) != STATUS_OK)
            break;
    }
    close(3);
    if (n < 0 || sb.nomem || sb.len > REMOTE_SETTINGS_MAX) {
        remote_say(r, "the settings on fd 3: %s",
                   n < 0 ? strerror(errno) : "larger than 64 KiB, or out of memory");
        strbuf_release(&sb);
        return STATUS_INVALID;
    }
    status = remote_conf_read(r, sb.buf, sb.len);
    strbuf_release(&sb);
    return status;
}

/* The whole lines of in (stdin's bytes so far), each a POST; the rest kept. */
static void remote_lines(struct remote *r, struct strbuf *in)
{
    size_t start = 0;
    char *nl;

    while (r->exit_code < 0 && (nl = memchr(in->buf + start, '\n', in->len - start)) != NULL) {
        size_t len = (size_t)(nl - (in->buf + start));
        int status = STATUS_OK;

        if (len > 0 && in->buf[start + len - 1] == '\r')
            len--;
        if (len > 0 && r->holding && in != &r->held)
            status = strbuf_add(&r->held, in->buf + start, (size_t)(nl - in->buf) + 1 - start);
        else if (len > 0)
            status = remote_http_post(r, in->buf + start, len);
        if (status != STATUS_OK)
            remote_fail(r, 1, "could not start a request (out of memory)");
        start = (size_t)(nl - in->buf) + 1;
    }
    memmove(in->buf, in->buf + start, in->len - start);
    in->len -= start;
    in->buf[in->len] = '\0';
    if (in->len > REMOTE_LINE_MAX)
        remote_fail(r, 1, "a line on stdin longer than 48 MiB");
}

/* What stdin has now (non-blocking). Returns 1 at its end. */
static int remote_read_stdin(struct remote *r, struct strbuf *in)
{
    char buf[65536];
    ssize_t n;

    for (int i = 0; i < 64 && r->exit_code < 0; i++) {
        n = read(0, buf, sizeof(buf));
        if (n == 0)
            return 1;
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : 1;
        if (strbuf_add(in, buf, (size_t)n) != STATUS_OK) {
            remote_fail(r, 1, "out of memory reading stdin");
            return 0;
        }
        remote_lines(r, in);
    }
    return 0;
}

/* The transfers that ended, each handled. */
static void remote_reap(struct remote *r)
{
    CURLMsg *msg;
    int left;

    while ((msg = r->lib->curl_multi_info_read(r->multi, &left)) != NULL) {
        struct remote_req *req = NULL;

        if (msg->msg != CURLMSG_DONE)
            continue;
        r->lib->curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&req);
        if (req != NULL)
            remote_http_done(r, req, msg->data.result);
    }
}

/* The GET stream of a legacy session, when due; *timeout shortened to when it is. */
static void remote_keep_get(struct remote *r, int *timeout)
{
    long long left;

    if (!r->want_get || r->get != NULL || r->exit_code >= 0)
        return;
    left = r->get_at - remote_now_ms();
    if (left > 0) {
        if (left < *timeout)
            *timeout = (int)left;
        return;
    }
    if (remote_http_get(r) != STATUS_OK)
        remote_fail(r, 1, "could not open the GET stream (out of memory)");
}

/* Serve until stdin ends or a fault stops the relay. */
static void remote_loop(struct remote *r)
{
    struct strbuf in = STRBUF_INIT;
    int ended = 0, running = 0;

    while (r->exit_code < 0) {
        struct curl_waitfd wait = {.fd = 0, .events = CURL_WAIT_POLLIN};
        int timeout = 1000, ready = 0;

        r->lib->curl_multi_perform(r->multi, &running);
        remote_reap(r);
        if (!r->holding && r->held.len > 0)
            remote_lines(r, &r->held);
        remote_keep_get(r, &timeout);
        if (r->exit_code >= 0)
            break;
        if (r->lib->curl_multi_poll(r->multi, &wait, 1, timeout, &ready) != CURLM_OK) {
            remote_fail(r, 1, "curl_multi_poll failed");
            break;
        }
        if (wait.revents != 0)
            ended = remote_read_stdin(r, &in);
        if (ended) {
            r->exit_code = 0;
            break;
        }
    }
    strbuf_release(&in);
}

static int remote_setup(struct remote *r)
{
    char why[512];

    if (remote_lib_open(&r->lib, why, sizeof(why)) != STATUS_OK) {
        remote_fail(r, REMOTE_EXIT_CONFIG, "%s", why);
        return REMOTE_EXIT_CONFIG;
    }
    if (remote_read_settings(r) != STATUS_OK)
        return REMOTE_EXIT_CONFIG;
    if (r->oauth_url != NULL && remote_oauth_fetch(r) != STATUS_OK)
        return r->exit_code;
    r->multi = r->lib->curl_multi_init();
    if (r->multi == NULL) {
        remote_say(r, "curl_multi_init failed");
        return 1;
    }
    if (fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK) != 0) {
        remote_say(r, "stdin: %s", strerror(errno));
        return 1;
    }
    return 0;
}

int remote_main(int argc, char **argv)
{
    struct remote r;
    int code;

    memset(&r, 0, sizeof(r));
    r.section = argc >= 3 ? argv[2] : "?";
    r.out_fd = 1;
    r.exit_code = -1;
    strbuf_init(&r.held);
    signal(SIGPIPE, SIG_IGN);
    code = remote_setup(&r);
    if (code == 0) {
        remote_loop(&r);
        code = r.exit_code;
        remote_http_drop_all(&r);
        if (code == 0)
            remote_http_delete(&r);
    }
    remote_http_drop_all(&r);
    if (r.multi != NULL)
        r.lib->curl_multi_cleanup(r.multi);
    free(r.session);
    free(r.last_event_id);
    strbuf_release(&r.held);
    cJSON_Delete(r.schemas);
    if (r.lib != NULL)
        remote_conf_release(&r);
    remote_lib_close(r.lib);
    return code;
}
