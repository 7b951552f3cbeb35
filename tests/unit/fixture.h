/*
 * fixture.h: helpers shared by the unit tests that look at messages, JSON and log pipes, and
 * a whole server (config, plugins, pool, output) set up in-process from INI text. Header
 * only; include after check.h.
 */
#ifndef MCPH_TEST_FIXTURE_H
#define MCPH_TEST_FIXTURE_H

#include "config/config.h"
#include "lib/diag.h"
#include "protocol/dispatch.h"
#include "served/inflight.h"
#include "lib/log.h"
#include "served/registry.h"
#include "served/server.h"
#include "lib/status.h"
#include "lib/work.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Whether d holds a message containing every string of parts (NULL-ended); when not, the
 * messages it does hold are printed to stderr. */
static inline int fixture_has_msg(const struct diag *d, const char *const *parts)
{
    for (size_t i = 0; i < d->count; i++) {
        int all = 1;

        for (size_t j = 0; parts[j] != NULL; j++)
            all &= strstr(d->msgs[i], parts[j]) != NULL;
        if (all)
            return 1;
    }
    fprintf(stderr, "    no message with all of:");
    for (size_t j = 0; parts[j] != NULL; j++)
        fprintf(stderr, " \"%s\"", parts[j]);
    fprintf(stderr, "\n    messages (%zu):\n", d->count);
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "      %s\n", d->msgs[i]);
    return 0;
}

#define FIXTURE_HAS(d, ...) fixture_has_msg((d), (const char *const[]){__VA_ARGS__, NULL})

/* obj equals the JSON text want (members in any order); when not, both are printed. */
static inline int fixture_json_is(const cJSON *obj, const char *want)
{
    cJSON *expected = cJSON_Parse(want);
    int same = expected != NULL && obj != NULL && cJSON_Compare(obj, expected, 1);

    if (!same) {
        char *got = obj ? cJSON_PrintUnformatted(obj) : NULL;

        fprintf(stderr, "    got  %s\n    want %s\n", got ? got : "NULL", want);
        free(got);
    }
    cJSON_Delete(expected);
    return same;
}

/* What the (non-blocking) pipe fd holds now, NUL-terminated in buf. */
static inline void fixture_drain(int fd, char *buf, size_t size)
{
    size_t len = 0;
    ssize_t n;

    while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
}

/* An empty served set (no plugins) whose server is named `name`: enough for what answers
 * only need serverInfo from. Free it with registry_free. NULL when out of memory. */
static inline struct registry *fixture_registry(const char *name)
{
    static struct log lg;
    struct registry *reg = NULL;
    struct config cfg;
    struct diag errs;

    log_init(&lg);
    config_init(&cfg);
    diag_init(&errs);
    free(cfg.name);
    cfg.name = strdup(name);
    if (cfg.name == NULL || registry_build(&reg, NULL, 0, &lg, &errs, NULL) != STATUS_OK ||
        registry_set_meta(reg, &cfg) != STATUS_OK) {
        registry_free(reg);
        reg = NULL;
    }
    config_release(&cfg);
    diag_release(&errs);
    return reg;
}

/* Whether the library of plugin instance `id` is mapped into this process (1 or 0; -1 when
 * /proc/self/maps cannot be read): it shows as the memfd named after its INI section. */
static inline int fixture_mapped(const char *id)
{
    char want[128], line[1024];
    FILE *f = fopen("/proc/self/maps", "r");
    int found = 0;

    if (f == NULL)
        return -1;
    snprintf(want, sizeof(want), "/memfd:%s ", id);
    while (!found && fgets(line, sizeof(line), f) != NULL)
        found = strstr(line, want) != NULL;
    fclose(f);
    return found;
}

/* Write text to path (created or truncated). Returns 0, or -1 on an I/O error. */
static inline int fixture_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int rc;

    if (f == NULL)
        return -1;
    rc = fputs(text, f) < 0 ? -1 : 0;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

/* --- A memfd that collects what is written to it: out.c's lines, a log. A write to it never
 * blocks, so nothing needs to read it while the code under test runs. --- */

struct fixture_capture {
    int fd;     /* -1 when closed */
    off_t seen; /* bytes handed out by fixture_capture_take so far */
    char *text; /* owned: what the last take returned */
};

static inline int fixture_capture_open(struct fixture_capture *c, const char *name)
{
    c->fd = memfd_create(name, MFD_CLOEXEC);
    c->seen = 0;
    c->text = NULL;
    return c->fd >= 0 ? 0 : -1;
}

/* What was written since the last take, NUL-terminated ("" when nothing); valid until the
 * next take or close. */
static inline const char *fixture_capture_take(struct fixture_capture *c)
{
    off_t end = lseek(c->fd, 0, SEEK_END);
    size_t len = end > c->seen ? (size_t)(end - c->seen) : 0;
    ssize_t n = 0;

    free(c->text);
    c->text = malloc(len + 1);
    if (c->text == NULL)
        return "";
    if (len > 0)
        n = pread(c->fd, c->text, len, c->seen);
    if (n < 0)
        n = 0;
    c->text[n] = '\0';
    c->seen += n;
    return c->text;
}

static inline void fixture_capture_close(struct fixture_capture *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->text);
    c->text = NULL;
}

/* Line `n` (from 0) of text, parsed; NULL when there is no such line or it is not JSON. */
static inline cJSON *fixture_line_json(const char *text, int n)
{
    const char *end;

    for (; n > 0 && text != NULL; n--) {
        text = strchr(text, '\n');
        text = text != NULL ? text + 1 : NULL;
    }
    if (text == NULL || *text == '\0')
        return NULL;
    end = strchr(text, '\n');
    return cJSON_ParseWithLength(text, end != NULL ? (size_t)(end - text) : strlen(text));
}

/* How many lines text holds. */
static inline int fixture_count_lines(const char *text)
{
    int n = 0;

    for (; text != NULL && (text = strchr(text, '\n')) != NULL; text++)
        n++;
    return n;
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline long fixture_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static inline void fixture_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* --- A whole server in-process: the INI text written to build/tests/tmp/SUB/mcph.ini (so
 * plugin_dir = ../../plugins names the test plugins, ../../../plugins the shipped ones),
 * loaded with server_load, its replies captured, its log captured instead of stderr, and a
 * pool without input that runs the calls dispatch queues. --- */

struct fixture_server {
    struct server srv;
    struct fixture_capture out; /* what the client would read */
    struct fixture_capture log; /* what would go to stderr */
    char ini[300];              /* the INI file's path */
    size_t failures, collisions;
    int load_status; /* what server_load returned */
    int pool;        /* the pool was started */
};

static inline void fixture_server_flush(void *ctx)
{
    out_flush(&((struct server *)ctx)->out);
}

/* Set up fx serving `ini_text`. Returns 0 when everything was set up and server_load
 * returned STATUS_OK; otherwise fx is still set up as far as it went (close it anyway), and
 * fx->load_status says what server_load returned. */
static inline int fixture_server_open(struct fixture_server *fx, const char *sub,
                                      const char *ini_text)
{
    char dir[256];
    struct work_source src = {.ctx = &fx->srv, .flush = fixture_server_flush};

    memset(fx, 0, sizeof(*fx));
    fx->out.fd = fx->log.fd = -1;
    fx->load_status = -1000;
    server_init(&fx->srv);
    if (check_tmp(dir, sizeof(dir), sub) == NULL ||
        fixture_capture_open(&fx->out, "mcph-out") != 0 ||
        fixture_capture_open(&fx->log, "mcph-log") != 0)
        return -1;
    fx->srv.log.fd = fx->log.fd;
    server_open_output(&fx->srv, fx->out.fd);
    snprintf(fx->ini, sizeof(fx->ini), "%s/mcph.ini", dir);
    if (fixture_write_file(fx->ini, ini_text) != 0)
        return -1;
    fx->load_status = server_load(&fx->srv, fx->ini, &fx->failures, &fx->collisions);
    if (fx->load_status != STATUS_OK)
        return -1;
    if (work_start(&fx->srv.work, &src, 16) != STATUS_OK)
        return -1;
    fx->pool = 1;
    return 0;
}

/* Whether fx is settled: every call finished and freed, and every line written. */
static inline int fixture_server_quiet(struct fixture_server *fx)
{
    return atomic_load(&fx->srv.calls_held) == 0 && out_held(&fx->srv.out) == 0;
}

/* Wait (at most timeout_ms) until no call is queued or running, every finished call has let
 * go of what it held, and the replies queued are written. Returns 1 when all that happened. */
static inline int fixture_server_settle(struct fixture_server *fx, int timeout_ms)
{
    int idle = fx->pool ? work_drain(&fx->srv.work, timeout_ms) : 1;
    long end = fixture_now_ms() + timeout_ms;

    /* A call is freed (its bytes and its instance released) by the job's done(), which runs
     * just after the pool counts the job finished, so work_drain may return before it; and a
     * flush while a pool thread writes leaves the lines to that thread. */
    out_flush(&fx->srv.out);
    while (!fixture_server_quiet(fx) && fixture_now_ms() < end) {
        fixture_sleep_ms(1);
        out_flush(&fx->srv.out);
    }
    return idle && fixture_server_quiet(fx);
}

/* Dispatch one line as the reader would, let the calls it queued finish (5 s at most), and
 * return what was written to the client meanwhile (valid until the next take). */
static inline const char *fixture_server_send(struct fixture_server *fx, const char *line)
{
    dispatch_line(&fx->srv, &fx->srv.pipe_peer, line, strlen(line));
    fixture_server_settle(fx, 5000);
    return fixture_capture_take(&fx->out);
}

/* Cancel what still runs, stop the pool, unload everything. */
static inline void fixture_server_close(struct fixture_server *fx)
{
    if (fx->pool) {
        inflight_cancel_all(&fx->srv.inflight);
        inflight_close(&fx->srv.inflight);
        work_drain(&fx->srv.work, 5000);
        work_stop(&fx->srv.work, 5000);
    }
    server_release(&fx->srv);
    fixture_capture_close(&fx->out);
    fixture_capture_close(&fx->log);
}

/* fixture_server_open, for a test that needs every plugin of ini loaded: returns 1 when
 * they are; otherwise says why (the log so far), closes fx and returns 0. */
static inline int fixture_server_serve(struct fixture_server *fx, const char *sub,
                                       const char *ini_text)
{
    if (fixture_server_open(fx, sub, ini_text) == 0 && fx->failures == 0)
        return 1;
    fprintf(stderr, "    server set-up failed (load status %d, %zu plugin(s) failed); log:\n%s\n",
            fx->load_status, fx->failures, fixture_capture_take(&fx->log));
    fixture_server_close(fx);
    return 0;
}

#endif
