/*
 * main.c: argv, startup and shutdown order, and the poll loop of the protocol thread.
 *
 * Exit codes: 0 served until end of input (or SIGTERM/SIGINT), or --check found no
 * problem; 1 runtime failure (I/O, out of memory); 2 usage; 3 the INI file is wrong;
 * 4 a plugin failed to load while [server] strict = yes, or --check found a problem.
 */
#include "limits.h"
#include "log.h"
#include "modern.h"
#include "pipe.h"
#include "reload.h"
#include "server.h"
#include "status.h"
#include "strbuf.h"
#include "version.h"
#include "watch.h"

#include <errno.h>
#include <malloc.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum main_exit {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,
    EXIT_USAGE = 2,
    EXIT_CONFIG = 3,
    EXIT_PLUGIN = 4,
};

/* The self-pipe: the one piece of file-scope mutable state (STYLE.md, rule 4). The signal
 * handler writes the signal number as one byte; the main loop does the work. */
static int main_wake_pipe[2] = {-1, -1};

static void main_on_signal(int sig)
{
    int saved = errno;
    unsigned char byte = (unsigned char)sig;

    if (write(main_wake_pipe[1], &byte, 1) < 0) {
        /* The pipe is full: a wake-up is pending already. */
    }
    errno = saved;
}

struct main_args {
    const char *config;
    int check;
    int watch;
};

static void main_usage(FILE *to)
{
    fprintf(to, "usage: mcph [--check | --watch] CONFIG.ini\n"
                "  Serves the plugins enabled in CONFIG.ini as one MCP server on stdio.\n"
                "  SIGHUP reloads CONFIG.ini and every changed plugin.\n"
                "  --check    load the config and every plugin, print what would be served,\n"
                "             and exit (0 when everything loaded)\n"
                "  --watch    reload when CONFIG.ini or an enabled plugin's file changes\n"
                "  --version  print the version\n"
                "  --help     print this help (also -h)\n");
}

static int main_parse_args(int argc, char **argv, struct main_args *args)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            args->check = 1;
        } else if (strcmp(argv[i], "--watch") == 0) {
            args->watch = 1;
        } else if (strcmp(argv[i], "--version") == 0) {
            fprintf(stdout, "mcph %s (plugin ABI %d.%d)\n", MCPH_VERSION, MCPH_ABI_MAJOR,
                    MCPH_ABI_MINOR);
            exit(EXIT_OK);
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            main_usage(stdout);
            exit(EXIT_OK);
        } else if (argv[i][0] == '-' || args->config != NULL) {
            fprintf(stderr, "mcph: unexpected argument '%s'\n", argv[i]);
            main_usage(stderr);
            return STATUS_INVALID;
        } else {
            args->config = argv[i];
        }
    }
    if (args->config == NULL) {
        main_usage(stderr);
        return STATUS_INVALID;
    }
    return STATUS_OK;
}

/* Config, plugins, registry. Returns an exit code (EXIT_OK to serve). */
static int main_startup(struct server *srv, const struct main_args *args)
{
    size_t failures = 0, collisions = 0;
    int status = server_load(srv, args->config, &failures, &collisions);

    if (status == STATUS_INVALID)
        return EXIT_CONFIG;
    if (status != STATUS_OK)
        return EXIT_RUNTIME;
    if ((failures > 0 || collisions > 0) && (srv->cfg.strict || args->check)) {
        if (!args->check)
            log_msg(&srv->log, LOG_CRITICAL, NULL,
                    "%zu plugin problem(s) and [server] strict "
                    "= yes in %s; not serving",
                    failures + collisions, srv->cfg.file);
        return EXIT_PLUGIN;
    }
    return EXIT_OK;
}

static void main_print_table(const struct registry *reg)
{
    fprintf(stdout, "%-16s %-9s %-40s %s\n", "PLUGIN", "KIND", "NAME", "TITLE");
    for (size_t i = 0; i < reg->ntools; i++)
        fprintf(stdout, "%-16s %-9s %-40s %s\n", reg->tools[i].plugin->id, "tool",
                reg->tools[i].name, reg->tools[i].def->title ? reg->tools[i].def->title : "");
    for (size_t i = 0; i < reg->nresources; i++)
        fprintf(stdout, "%-16s %-9s %-40s %s\n", reg->resources[i].plugin->id, "resource",
                reg->resources[i].def->uri,
                reg->resources[i].def->title ? reg->resources[i].def->title : "");
    for (size_t i = 0; i < reg->ntemplates; i++)
        fprintf(stdout, "%-16s %-9s %-40s %s\n", reg->templates[i].plugin->id, "template",
                reg->templates[i].def->uri_template,
                reg->templates[i].def->title ? reg->templates[i].def->title : "");
    for (size_t i = 0; i < reg->nprompts; i++)
        fprintf(stdout, "%-16s %-9s %-40s %s\n", reg->prompts[i].plugin->id, "prompt",
                reg->prompts[i].name, reg->prompts[i].def->title ? reg->prompts[i].def->title : "");
}

static int main_signals(void)
{
    struct sigaction sa;

    if (pipe2(main_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return STATUS_IO;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = main_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return STATUS_OK;
}

/* stdout belongs to the protocol: keep it on a private descriptor and point fd 1 at
 * stderr, so a stray printf in a plugin cannot corrupt the stream. */
static int main_claim_stdout(void)
{
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);

    if (fd < 0 || dup2(2, 1) < 0)
        return -1;
    return fd;
}

/* Arm (or re-arm, after a reload) watch mode when the config or --watch asks for it. */
static void main_arm_watch(struct server *srv, struct watch *w, int forced)
{
    if (!forced && !srv->cfg.watch) {
        watch_release(w);
        return;
    }
    if (watch_arm(w, &srv->cfg) != STATUS_OK)
        log_msg(&srv->log, LOG_WARNING, NULL,
                "watch mode: inotify is not available; use "
                "SIGHUP to reload");
}

/* Plugins' refresh requests, coalesced: the rebuild starts LIMIT_REFRESH_QUIET_MS after the
 * last one, and at the latest LIMIT_REFRESH_MAX_MS after the first. Main thread. */
struct main_refresh {
    int pending;
    struct timespec first, last; /* CLOCK_MONOTONIC */
};

static long main_ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000L + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

/* A wake-up came: note a refresh request if one is waiting (each request wakes the loop). */
static void main_note_refresh(struct server *srv, struct main_refresh *rf)
{
    if (!server_refresh_pending(srv))
        return;
    clock_gettime(CLOCK_MONOTONIC, &rf->last);
    if (!rf->pending)
        rf->first = rf->last;
    rf->pending = 1;
}

static long main_refresh_left_ms(const struct main_refresh *rf)
{
    long quiet = LIMIT_REFRESH_QUIET_MS - main_ms_since(&rf->last);
    long cap = LIMIT_REFRESH_MAX_MS - main_ms_since(&rf->first);
    long left = quiet < cap ? quiet : cap;

    return left > 0 ? left : 0;
}

/* Milliseconds poll may sleep: until the watch or the refresh is due, or -1. */
static int main_timeout_ms(const struct watch *w, const struct main_refresh *rf)
{
    int t = watch_timeout_ms(w);
    long left;

    if (!rf->pending)
        return t;
    left = main_refresh_left_ms(rf);
    return t < 0 || left < t ? (int)left : t;
}

static int main_refresh_due(struct main_refresh *rf)
{
    if (!rf->pending || main_refresh_left_ms(rf) > 0)
        return 0;
    rf->pending = 0;
    return 1;
}

/* What the wake-up pipe says: every byte waiting is read, so a burst of SIGHUPs makes one
 * reload. Returns 1 to stop serving. */
static int main_on_wake(struct server *srv, int *reload)
{
    unsigned char bytes[256];
    ssize_t n;
    int stop = 0;

    while ((n = read(main_wake_pipe[0], bytes, sizeof(bytes))) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (bytes[i] == SIGTERM || bytes[i] == SIGINT)
                stop = 1;
            else if (bytes[i] == SIGHUP)
                *reload = 1;
        }
    }
    if (stop)
        log_msg(&srv->log, LOG_INFO, NULL, "signal: shutting down");
    server_free_retired(srv);
    return stop;
}

/* Whether the reader saw the end of input, or the client went away. */
static int main_client_gone(struct server *srv)
{
    if (atomic_load(&srv->input_ended))
        return 1;
    if (!atomic_load(&srv->out.failed))
        return 0;
    log_msg(&srv->log, LOG_INFO, NULL, "stdout closed: the client is gone");
    return 1;
}

/* Serve until end of input, a stop signal, or the client going away: the pool reads and
 * answers; this thread handles signals, watch mode, refresh requests and reloads. Returns 1
 * when stopped by a signal. */
static int main_loop(struct server *srv, int watch_forced)
{
    struct main_refresh rf = {0};
    struct watch w;
    int by_signal = -1;

    watch_init(&w);
    main_arm_watch(srv, &w, watch_forced);
    while (by_signal < 0) {
        struct pollfd fds[2] = {
            {.fd = main_wake_pipe[0], .events = POLLIN},
            {.fd = w.fd, .events = POLLIN},
        };
        int reload = 0;
        int n = poll(fds, 2, main_timeout_ms(&w, &rf));

        if (n < 0 && errno != EINTR)
            by_signal = 0;
        if (n <= 0)
            fds[0].revents = fds[1].revents = 0;
        if (fds[1].revents & POLLIN)
            watch_read(&w);
        if (fds[0].revents & POLLIN)
            main_note_refresh(srv, &rf);
        if ((fds[0].revents & POLLIN) && main_on_wake(srv, &reload))
            by_signal = 1;
        else if (main_client_gone(srv))
            by_signal = 0;
        if (by_signal < 0 && (reload || watch_due(&w))) {
            reload_run(srv);
            main_arm_watch(srv, &w, watch_forced);
        } else if (by_signal < 0 && main_refresh_due(&rf)) {
            reload_refresh(srv);
        }
    }
    watch_release(&w);
    return by_signal;
}

/* Whether a stop signal (SIGTERM, SIGINT) came since the last look. */
static int main_stop_signalled(struct server *srv)
{
    int reload = 0;

    return main_on_wake(srv, &reload);
}

/* Log the requests still in flight after `what`, and how many: at most 20 named. */
static size_t main_log_inflight(struct server *srv, const char *what)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = inflight_describe(&srv->inflight, &sb, 20);

    if (n > 0)
        log_msg(&srv->log, LOG_WARNING, NULL, "%s %zu request(s): %s", what, n,
                sb.buf ? sb.buf : "");
    strbuf_release(&sb);
    return n;
}

/* Every call in flight is cancelled now (a handler that polls cancelled() stops; no answer
 * is sent for any of them), logged after `what`. Returns how many there were. */
static size_t main_cancel_all(struct server *srv, const char *what)
{
    size_t n = main_log_inflight(srv, what);

    inflight_cancel_all(&srv->inflight);
    return n;
}

/* The calls in flight end. After the end of input nobody can read their answers: they were
 * cancelled at once (main_serve) and get LIMIT_SHUTDOWN_GRACE_MS. After a stop signal they get
 * LIMIT_SHUTDOWN_GRACE_MS, then are cancelled and get LIMIT_SHUTDOWN_CANCEL_MS more. A further
 * stop signal skips the rest of the current wait. Returns 1 when nothing is left running, 0
 * when the time is up (the calls still running are logged as abandoned). */
static int main_finish_calls(struct server *srv, int by_signal)
{
    int phase = 0, nphases = by_signal ? 2 : 1;
    struct timespec start;

    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!work_drain(&srv->work, LIMIT_SHUTDOWN_SLICE_MS)) {
        long limit = phase == 0 ? LIMIT_SHUTDOWN_GRACE_MS : LIMIT_SHUTDOWN_CANCEL_MS;
        long waited = main_ms_since(&start);

        if (!main_stop_signalled(srv) && waited < limit)
            continue;
        if (++phase == nphases) {
            if (main_log_inflight(srv, "shutting down; abandoned") == 0)
                log_msg(&srv->log, LOG_WARNING, NULL,
                        "shutting down; replies held up by a client that does not read");
            return 0;
        }
        if (main_cancel_all(srv, "shutting down; after the grace period, cancelled") == 0)
            log_msg(&srv->log, LOG_WARNING, NULL,
                    "shutting down; replies held up by a client that does not read, %ld ms",
                    waited);
        clock_gettime(CLOCK_MONOTONIC, &start);
    }
    return 1;
}

static int main_serve(struct server *srv, int watch_forced)
{
    struct work_source src;
    int by_signal;

    jsonrpc_reader_init(&srv->in, 0, LIMIT_MESSAGE_BYTES);
    pipe_source(srv, &src);
    /* Before the first message is read: this line is for stderr only. */
    log_msg(&srv->log, LOG_INFO, NULL,
            "serving %zu tools, %zu resources, %zu templates, "
            "%zu prompts from %zu plugins (%s)",
            srv->reg->ntools, srv->reg->nresources, srv->reg->ntemplates, srv->reg->nprompts,
            srv->reg->nplugins, srv->cfg.file);
    if (work_start(&srv->work, &src, LIMIT_THREADS) != STATUS_OK) {
        log_msg(&srv->log, LOG_ERROR, NULL, "cannot start threads");
        return EXIT_RUNTIME;
    }
    by_signal = main_loop(srv, watch_forced);
    /* At the end of input the calls are cancelled first: a question waiting for the client
     * then ends as cancelled, not as failed, and its call sends nothing. */
    if (!by_signal)
        main_cancel_all(srv, "end of input; cancelled");
    /* Nothing more is read (a reader a client holds up in a write is not waited for); no
     * answer to a plugin's question can come any more; open listen requests end. */
    work_stop_input(&srv->work, LIMIT_SHUTDOWN_READER_MS);
    inflight_close(&srv->inflight);
    modern_listeners_close(srv);
    if (!main_finish_calls(srv, by_signal) || !work_stop(&srv->work, LIMIT_SHUTDOWN_CANCEL_MS)) {
        log_msg(&srv->log, LOG_WARNING, NULL,
                "calls or replies still held up; exiting without unloading plugins");
        _exit(EXIT_OK);
    }
    out_flush(&srv->out);
    /* Plugins shut down after this: their last words go to stderr only. Their own threads
     * may still log until then, so the writer stays until they are gone (server_release). */
    atomic_store(&srv->log.sink_level, LOG_OFF);
    jsonrpc_reader_release(&srv->in);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    struct main_args args = {0};
    struct server srv;
    int code, out_fd = -1;

    if (main_parse_args(argc, argv, &args) != STATUS_OK)
        return EXIT_USAGE;
    /* One malloc arena: glibc gives each pool thread its own, which holds on to freed memory
     * (a 1 MiB message leaves megabytes behind in each). Threads rarely allocate at the same
     * moment, so sharing costs little and keeps the footprint flat. */
    mallopt(M_ARENA_MAX, 1);
    server_init(&srv);
    if (!args.check) {
        out_fd = main_claim_stdout();
        if (out_fd < 0 || main_signals() != STATUS_OK) {
            log_msg(&srv.log, LOG_ERROR, NULL, "cannot set up stdio: %s", strerror(errno));
            return EXIT_RUNTIME;
        }
        srv.wake_fd = main_wake_pipe[1];
        server_open_output(&srv, out_fd);
    }
    code = main_startup(&srv, &args);
    if (args.check && srv.reg != NULL)
        main_print_table(srv.reg);
    if (code == EXIT_OK && !args.check)
        code = main_serve(&srv, args.watch);
    server_release(&srv);
    return code;
}
