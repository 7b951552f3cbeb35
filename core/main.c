/*
 * main.c: argv, startup and shutdown order, and the poll loop of the protocol thread.
 *
 * Exit codes: 0 served until end of input (or SIGTERM/SIGINT; a second one exits at once, still
 * 0), or --check found no problem; 1 runtime failure (I/O, out of memory, or a shutdown that
 * did not end within LIMIT_SHUTDOWN_WATCHDOG_MS); 2 usage; 3 the INI file is wrong (a key, a
 * plugin section's keys or path, the plugin its path names, a name two sections serve, the
 * lock file [server] lock names, or no [server] lock for --lock); 4 a plugin's init failed
 * while [server] strict = yes, or --check or --lock saw one fail; 5 --check found a definition
 * that differs from the lock file, or that it lacks (lock_new = refuse): it would not be
 * served. --lock wrote the lock file: 0. A plugin served in process that crashes ends mcph
 * with its signal (crash.h). --verify-audit FILE: 0 when every line verifies, 1 naming the
 * first bad line (or a file that cannot be read).
 */
#include "client/remote.h"
#include "served/listing.h"
#include "served/pin.h"
#include "lib/crash.h"
#include "lib/debounce.h"
#include "transport/http.h"
#include "host/isolate.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/nowait.h"
#include "transport/pipe.h"
#include "host/plugin.h"
#include "served/audit.h"
#include "served/reload.h"
#include "served/server.h"
#include "lib/status.h"
#include "lib/version.h"
#include "served/watch.h"

#include <errno.h>
#include <malloc.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
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
    EXIT_DRIFT = 5,
};
_Static_assert(EXIT_CONFIG == ISOLATE_EXIT_CONFIG, "a parent reads its child's config error");

/* The self-pipe: the one piece of file-scope mutable state (STYLE.md, rule 4). The signal
 * handler writes the signal number as one byte; the main loop does the work. */
static int main_wake_pipe[2] = {-1, -1};

/*
 * Two exceptions to "a signal handler does one thing" (STYLE.md, rule 18), each with the state
 * it needs. The main loop may be where no byte on the pipe is read for a long time: inside a
 * plugin's init during a reload, or waiting on a peer. A stop must still stop:
 * - the first stop signal (SIGTERM, SIGINT) also starts the watchdog (sem_post is
 *   async-signal-safe): if the orderly shutdown has not ended the process LIMIT_SHUTDOWN_
 *   WATCHDOG_MS later, the watchdog thread says so and exits;
 * - a second stop signal exits at once, from the handler, whatever any thread is doing: the
 *   user asked twice, and _exit is async-signal-safe.
 */
static atomic_int main_stops;
static sem_t main_watchdog_go;
/* Posted when the process ends in order: the watchdog ends too, and is joined (a thread left
 * waiting at exit would cost a sanitizer's exit a pause, and the process looks unfinished). */
static sem_t main_watchdog_done;
static pthread_t main_watchdog_tid;
static int main_watchdog_on;

static void main_say(const char *text)
{
    if (nowait_write(nowait_stderr(), text, strlen(text)) < 0) {
        /* stderr is gone: nothing more can be said. */
    }
}

static void main_on_signal(int sig)
{
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    int stop = sig == SIGTERM || sig == SIGINT;

    if (stop && atomic_fetch_add(&main_stops, 1) > 0) {
        main_say("mcph: a second stop signal: exiting now, without waiting for calls, "
                 "reloads or plugins\n");
        _exit(0);
    }
    if (write(main_wake_pipe[1], &byte, 1) < 0) {
        /* The pipe is full: a wake-up is pending already. */
    }
    if (stop)
        sem_post(&main_watchdog_go);
    errno = saved;
}

/* The watchdog thread: from the first stop signal (or the start of a shutdown at the end of
 * input) the process has LIMIT_SHUTDOWN_WATCHDOG_MS to end in order; then it ends anyway. */
static void *main_watchdog(void *arg)
{
    struct timespec until;

    (void)arg;
    while (sem_wait(&main_watchdog_go) != 0) {
        /* EINTR: wait on. */
    }
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += LIMIT_SHUTDOWN_WATCHDOG_MS / 1000;
    until.tv_nsec += (LIMIT_SHUTDOWN_WATCHDOG_MS % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    /* sem_timedwait measures CLOCK_REALTIME; the deadline is kept on the monotonic clock. */
    for (;;) {
        struct timespec now, real;
        long long left_ns;

        clock_gettime(CLOCK_MONOTONIC, &now);
        left_ns =
            (long long)(until.tv_sec - now.tv_sec) * 1000000000LL + until.tv_nsec - now.tv_nsec;
        if (left_ns <= 0)
            break;
        clock_gettime(CLOCK_REALTIME, &real);
        real.tv_sec += (time_t)(left_ns / 1000000000LL);
        real.tv_nsec += (long)(left_ns % 1000000000LL);
        if (real.tv_nsec >= 1000000000L) {
            real.tv_sec++;
            real.tv_nsec -= 1000000000L;
        }
        if (sem_timedwait(&main_watchdog_done, &real) == 0)
            return NULL;
    }
    main_say("mcph: shutdown did not end within the grace and cancel periods (a plugin's init, "
             "call or shutdown, or a peer, does not return); exiting without it\n");
    _exit(1);
}

/* The process ends in order: the watchdog thread ends and is joined. */
static void main_stop_watchdog(void)
{
    if (!main_watchdog_on)
        return;
    sem_post(&main_watchdog_done);
    sem_post(&main_watchdog_go);
    pthread_join(main_watchdog_tid, NULL);
    main_watchdog_on = 0;
}

/* The watchdog thread, with every signal blocked: it only waits. */
static int main_start_watchdog(void)
{
    sigset_t all, was;
    int rc;

    if (sem_init(&main_watchdog_go, 0, 0) != 0 || sem_init(&main_watchdog_done, 0, 0) != 0)
        return STATUS_IO;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &was);
    rc = pthread_create(&main_watchdog_tid, NULL, main_watchdog, NULL);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (rc != 0)
        return STATUS_IO;
    main_watchdog_on = 1;
    return STATUS_OK;
}

struct main_args {
    const char *config;
    const char *isolated; /* --isolated ID */
    const char *listen;   /* --listen HOST:PORT */
    int check;
    int lock; /* --lock: write [server] lock's file and exit */
    int watch;
};

static void main_usage(FILE *to)
{
    fprintf(to, "usage: mcph [--check | --lock | --watch | --isolated ID] [--listen HOST:PORT] "
                "CONFIG.ini\n"
                "  Serves the plugins enabled in CONFIG.ini as one MCP server on stdio.\n"
                "  SIGHUP reloads CONFIG.ini and every changed plugin.\n"
                "  --check    load the config and every plugin, print what would be served,\n"
                "             and exit (0 when everything loaded; 5 when a definition differs\n"
                "             from the lock file, printed under DRIFT)\n"
                "  --lock     load the config and every plugin as --check does, then pin every\n"
                "             definition served in the file [server] lock names, and exit\n"
                "  --watch    reload when CONFIG.ini or an enabled plugin's file changes\n"
                "  --listen HOST:PORT\n"
                "             serve Streamable HTTP there instead of stdio (as [server] listen;\n"
                "             port 0 picks a free one, logged)\n"
                "  --isolated ID\n"
                "             serve section [plugin.ID] alone, as the process of a plugin with\n"
                "             isolate = process (mcph starts it so; not for use by hand)\n"
                "  --remote SECTION\n"
                "             relay stdin to the url of [mcp.SECTION] over Streamable HTTP, its\n"
                "             settings read on fd 3 (mcph starts it so; not for use by hand)\n"
                "  --verify-audit FILE [--audit-key KEYFILE] [--after MAC]\n"
                "             check the HMAC chain of an audit log ([server] audit); the key\n"
                "             defaults to FILE.key; exit 0 when every line verifies, else 1\n"
                "             naming the first bad line; --after MAC: FILE was started by a\n"
                "             rotation, MAC the previous file's last\n"
                "  --version  print the version\n"
                "  --help     print this help (also -h)\n");
}

static int main_parse_args(int argc, char **argv, struct main_args *args)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            args->check = 1;
        } else if (strcmp(argv[i], "--lock") == 0) {
            args->lock = 1;
        } else if (strcmp(argv[i], "--watch") == 0) {
            args->watch = 1;
        } else if (strcmp(argv[i], "--isolated") == 0 && i + 1 < argc) {
            args->isolated = argv[++i];
        } else if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            args->listen = argv[++i];
            if (config_listen_split(args->listen, NULL, 0, NULL) != STATUS_OK) {
                fprintf(stderr, "mcph: --listen %s: use HOST:PORT, e.g. 127.0.0.1:8808\n",
                        args->listen);
                return STATUS_INVALID;
            }
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
    if (args->config == NULL ||
        (args->isolated != NULL && (args->check || args->watch || args->listen)) ||
        (args->lock && (args->check || args->watch || args->listen || args->isolated))) {
        main_usage(stderr);
        return STATUS_INVALID;
    }
    if (args->isolated != NULL && isolate_child_fds() != STATUS_OK)
        return STATUS_INVALID;
    if (args->isolated != NULL)
        crash_set_isolated();
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
    /* --lock writes the lock file and exits: no call is served, no key is made. */
    status = args->lock ? STATUS_OK : server_open_audit(srv, args->check);
    if (status != STATUS_OK)
        return status == STATUS_INVALID ? EXIT_CONFIG : EXIT_RUNTIME;
    /* Collisions made server_load refuse the INI already: only failed inits are left. */
    if (failures > 0 && args->lock) {
        log_msg(&srv->log, LOG_CRITICAL, NULL,
                "%zu plugin init failure(s): not writing the lock file (their definitions would "
                "be missing from it)",
                failures);
        return EXIT_PLUGIN;
    }
    if (failures > 0 && (srv->cfg.strict || args->check)) {
        if (!args->check && args->isolated == NULL)
            log_msg(&srv->log, LOG_CRITICAL, NULL,
                    "%zu plugin init failure(s) and [server] strict "
                    "= yes in %s; not serving",
                    failures, srv->cfg.file);
        return EXIT_PLUGIN;
    }
    return EXIT_OK;
}

static int main_signals(void)
{
    struct sigaction sa;

    if (pipe2(main_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0 || main_start_watchdog() != STATUS_OK ||
        crash_install() != STATUS_OK)
        return STATUS_IO;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = main_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
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

/* A wake-up came: note a refresh request if one is waiting (each request wakes the loop).
 * Requests are coalesced: the rebuild starts LIMIT_REFRESH_QUIET_MS after the last one, and
 * at the latest LIMIT_REFRESH_MAX_MS after the first. */
static void main_note_refresh(struct server *srv, struct debounce *refresh)
{
    if (server_refresh_pending(srv))
        debounce_note(refresh);
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
    if (atomic_load(&srv->out.stalled))
        log_msg(&srv->log, LOG_WARNING, NULL, "the client took no output for %d s: treated as gone",
                srv->out.stall_ms / 1000);
    else
        log_msg(&srv->log, LOG_INFO, NULL, "stdout closed: the client is gone");
    return 1;
}

/* Serve until end of input, a stop signal, or the client going away: the pool reads and
 * answers; this thread handles signals, watch mode, refresh requests and reloads. Returns 1
 * when stopped by a signal. */
static int main_loop(struct server *srv, int watch_forced)
{
    struct debounce refresh;
    struct watch w;
    int by_signal = -1;

    debounce_init(&refresh, LIMIT_REFRESH_QUIET_MS, LIMIT_REFRESH_MAX_MS);
    watch_init(&w);
    main_arm_watch(srv, &w, watch_forced);
    while (by_signal < 0) {
        struct pollfd fds[2] = {
            {.fd = main_wake_pipe[0], .events = POLLIN},
            {.fd = w.fd, .events = POLLIN},
        };
        int reload = 0;
        int n = poll(fds, 2, debounce_earlier(watch_timeout_ms(&w), debounce_timeout_ms(&refresh)));

        if (n < 0 && errno != EINTR)
            by_signal = 0;
        if (n <= 0)
            fds[0].revents = fds[1].revents = 0;
        if (fds[1].revents & POLLIN)
            watch_read(&w);
        if (fds[0].revents & POLLIN)
            main_note_refresh(srv, &refresh);
        if ((fds[0].revents & POLLIN) && main_on_wake(srv, &reload))
            by_signal = 1;
        else if (main_client_gone(srv))
            by_signal = 0;
        if (by_signal < 0 && (reload || watch_due(&w))) {
            reload_run(srv);
            main_arm_watch(srv, &w, watch_forced);
        } else if (by_signal < 0 && debounce_due(&refresh)) {
            reload_refresh(srv);
        }
    }
    watch_release(&w);
    return by_signal;
}

/* Whether a stop signal (SIGTERM, SIGINT) came since the last look. */
static int main_stop_signalled(void *ctx)
{
    int reload = 0;

    return main_on_wake(ctx, &reload);
}

static int main_serve(struct server *srv, int watch_forced)
{
    struct work_source src = {0};
    struct http *http = NULL;
    int by_signal;

    if (srv->cfg.listen == NULL)
        pipe_source(srv, &src);
    else if (http_start(srv, &http) == STATUS_OK)
        http_source(http, &src); /* the pool's reader runs libmicrohttpd */
    else
        return EXIT_CONFIG;
    if (server_start(srv, &src) != STATUS_OK) {
        http_stop(http);
        return EXIT_RUNTIME;
    }
    by_signal = main_loop(srv, watch_forced);
    /* Shutdown waits are bounded, but plugins' shutdown hooks are plugin code: the watchdog
     * bounds the whole (a stop signal started it already). */
    sem_post(&main_watchdog_go);
    http_quiesce(http);
    if (!server_stop(srv, by_signal, main_stop_signalled, srv)) {
        log_msg(&srv->log, LOG_WARNING, NULL,
                "calls or replies still held up; exiting without unloading plugins");
        _exit(EXIT_OK);
    }
    http_stop(http);
    return EXIT_OK;
}

/* mcph --lock: every definition served, pinned in the file [server] lock names. Returns an
 * exit code. */
static int main_lock(struct server *srv)
{
    struct diag errs;
    size_t rows = 0;
    int status;

    if (srv->cfg.lock == NULL) {
        log_msg(&srv->log, LOG_ERROR, NULL,
                "%s has no [server] lock: add 'lock = FILE' to its [server] section (e.g. lock "
                "= mcph.lock, next to it) to say where the lock file goes",
                srv->cfg.file);
        return EXIT_CONFIG;
    }
    diag_init(&errs);
    status = pin_write_registry(srv->cfg.lock, srv->reg, &rows, &errs);
    for (size_t i = 0; i < errs.count; i++)
        log_msg(&srv->log, LOG_ERROR, NULL, "%s", errs.msgs[i]);
    diag_release(&errs);
    if (status != STATUS_OK)
        return EXIT_RUNTIME;
    fprintf(stdout, "mcph: pinned %zu definitions in %s\n", rows, srv->cfg.lock);
    return EXIT_OK;
}

/* --listen over [server] listen (an isolated child serves its parent on stdio, always). Over
 * HTTP, the stdio client hears nothing. Returns an exit code. */
static int main_set_listen(struct server *srv, const struct main_args *args)
{
    if (srv->isolated != NULL || args->check || args->lock) {
        free(srv->cfg.listen);
        srv->cfg.listen = NULL;
        return EXIT_OK;
    }
    if (args->listen != NULL) {
        free(srv->cfg.listen);
        srv->cfg.listen = strdup(args->listen);
        if (srv->cfg.listen == NULL)
            return EXIT_RUNTIME;
    }
    if (srv->cfg.listen != NULL)
        server_remove_peer(srv, &srv->pipe_peer);
    return EXIT_OK;
}

/* mcph --verify-audit FILE [--audit-key KEYFILE] [--after MAC]: exits with 0 (verified), 1
 * (a bad line, or a file that cannot be read) or 2 (usage). */
static void main_verify_audit(int argc, char **argv)
{
    struct strbuf report = STRBUF_INIT;
    const char *key = NULL, *after = NULL;
    int code;

    if (argc < 3 || argc % 2 == 0) {
        main_usage(stderr);
        exit(EXIT_USAGE);
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--audit-key") == 0 && key == NULL) {
            key = argv[i + 1];
        } else if (strcmp(argv[i], "--after") == 0 && after == NULL) {
            after = argv[i + 1];
        } else {
            main_usage(stderr);
            exit(EXIT_USAGE);
        }
    }
    code = audit_verify(argv[2], key, after, &report);
    fprintf(code == 0 ? stdout : stderr, "%s\n", report.nomem ? "out of memory" : report.buf);
    strbuf_release(&report);
    exit(code == 0 ? EXIT_OK : EXIT_RUNTIME);
}

int main(int argc, char **argv)
{
    struct main_args args = {0};
    struct server srv;
    int code, out_fd = -1;

    if (argc >= 2 && strcmp(argv[1], "--verify-audit") == 0)
        main_verify_audit(argc, argv);
    /* The relay of a url section: a process of its own, sharing nothing below. */
    if (argc == 3 && strcmp(argv[1], "--remote") == 0)
        return remote_main(argc, argv);
    if (main_parse_args(argc, argv, &args) != STATUS_OK)
        return EXIT_USAGE;
    /* One malloc arena: glibc gives each pool thread its own, which holds on to freed memory
     * (a 1 MiB message leaves megabytes behind in each). Threads rarely allocate at the same
     * moment, so sharing costs little and keeps the footprint flat. */
    mallopt(M_ARENA_MAX, 1);
    /* A peer that is gone (the client, or an isolated plugin's child that died while it was
     * being written to, --check included) is an EPIPE to handle, not a signal that kills. */
    signal(SIGPIPE, SIG_IGN);
    /* A client may stop reading stderr too: mcph's own lines never wait for it. */
    nowait_stderr_init();
    server_init(&srv);
    srv.log.fd = nowait_stderr();
    srv.isolated = args.isolated;
    srv.pin_mode = args.lock ? PIN_OFF : args.check ? PIN_CHECK : PIN_SERVE;
    if (args.isolated != NULL)
        snprintf(srv.log.name, sizeof(srv.log.name), "mcph[%s]", args.isolated);
    if (!args.check && !args.lock) {
        out_fd = main_claim_stdout();
        if (out_fd < 0 || main_signals() != STATUS_OK) {
            log_msg(&srv.log, LOG_ERROR, NULL, "cannot set up stdio: %s", strerror(errno));
            return EXIT_RUNTIME;
        }
        srv.wake_fd = main_wake_pipe[1];
        server_open_output(&srv, out_fd);
        /* This thread handles signals and reloads: it never waits on the client. */
        out_thread_nowait(1);
    }
    code = main_startup(&srv, &args);
    if (code == EXIT_OK)
        code = main_set_listen(&srv, &args);
    if (args.check && srv.reg != NULL) {
        listing_print(&srv, stdout);
        if (code == EXIT_OK && pin_refused(srv.pin) > 0)
            code = EXIT_DRIFT;
    }
    if (code == EXIT_OK && args.lock)
        code = main_lock(&srv);
    else if (code == EXIT_OK && !args.check)
        code = main_serve(&srv, args.watch);
    server_release(&srv);
    main_stop_watchdog();
    return code;
}
