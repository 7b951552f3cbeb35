/*
 * http-driver.c: the HTTP rows of `make bench`. Starts mcph with --listen 127.0.0.1:0 (the
 * default deployment: its example plugin's echo {text}) and the official TypeScript SDK's
 * Streamable HTTP server (sdk-http-echo.mjs, the same echo tool), calls echo over HTTP/1.1
 * with a small client of its own (raw sockets, keep-alive), and prints one table: a row per
 * figure, a column per server, the ratios of the SDK's figures to mcph's and of mcph's to
 * nginx's (the floor of an HTTP server, nginx.h); then the verdicts on mcph's HTTP targets.
 *
 * usage: http-driver [--quick] [--sdk-sse]
 *                    [--only mcph-2026,mcph-sess,sdk,sdk-sse,nginx,mcph-jwt,mcph-metrics]
 *                    --mcph BIN --conf INI [--jwt-conf INI --jwt-token FILE]
 *                    [--metrics-conf INI] --sdk SCRIPT [--node NODE] [--nginx NGINX] --dir DIR
 *   --mcph     the mcph binary (build/mcph), run as BIN --listen 127.0.0.1:0 INI
 *   --conf     the default deployment (conf/mcph.ini)
 *   --sdk      tests/bench/sdk-http-echo.mjs, run with NODE (default node)
 *   --nginx    nginx (Debian's /usr/sbin/nginx): the nginx column; without it, "-"
 *   --dir      build/tests/bench: the servers' stderr goes to DIR/logs/http-*.log, nginx's
 *              prefix (configuration, pid file, temporary folders) is DIR/nginx
 *   --sdk-sse  one more column: the SDK server with its default event-stream responses
 *   --only     these columns only (by default all but sdk-sse, which --sdk-sse adds)
 *   --quick    fewer calls (also QUICK=1 in the environment)
 *
 * The servers (columns):
 * - mcph 2026: sessionless 2026-07-28 requests: every POST a tools/call whose params._meta
 *   names the revision, with the headers it needs (MCP-Protocol-Version: 2026-07-28,
 *   Mcp-Method: tools/call, Mcp-Name: echo). What a replicated deployment serves.
 * - mcph sess: a legacy session: initialize (2025-11-25) once, notifications/initialized,
 *   then tools/call with Mcp-Session-Id and MCP-Protocol-Version: 2025-11-25. Every
 *   connection of the 64 shares the one session.
 * - sdk: SDK v1 (1.32.2) on node:http, stateless (a McpServer and a transport for each POST,
 *   the SDK's stateless pattern), enableJsonResponse: true, so that its answers are JSON as
 *   mcph's are; tools/call with MCP-Protocol-Version: 2025-11-25 and no session (v1 speaks
 *   no 2026-07-28).
 * - sdk sse (--sdk-sse): the same server with the SDK's default, an event stream per POST.
 * - nginx: master and a worker a CPU, keep-alive, POST /mcp answered with `return 200` and
 *   mcph's answer to the echo call (nginx.h), on a port found free just before it starts.
 *   It gets mcph 2026's requests, each with id NGINX_ID, the id of that fixed answer, so
 *   that its answers are checked as every other.
 *
 * How each figure is taken (the same way for every server):
 * - Rounds: n->rounds, each with a fresh server of every kind, the servers interleaved (mcph
 *   2026, mcph sess, sdk, mcph 2026, ...); each figure is the median of the rounds.
 * - Sequential: one keep-alive connection; n->warmup untimed calls, then n->seq_calls timed
 *   ones, each sent when the previous answer is in: p50 and p99 of the round trips (from
 *   the first byte written to the last byte of the answer read).
 * - 64 in flight: 64 more keep-alive connections, each with one request at a time (no
 *   pipelining: a connection sends its next request when its answer is in); n->conc_warmup
 *   untimed calls, then calls for n->conc_s seconds (no request is sent after that; those in
 *   flight are answered): the calls answered per second of the series. A fixed time rather
 *   than a fixed count, because the servers differ in throughput by more than 10x.
 * - Server CPU per call: the process CPU clock (clock_getcpuclockid(): the counter behind
 *   utime + stime of /proc/PID/stat, every thread, garbage collection included, in
 *   nanoseconds) of the server and every process under it (nginx's workers, mcph's isolated
 *   children), read before and after the timed series, divided by its calls. Context
 *   switches: voluntary and involuntary of every thread of those processes
 *   (/proc/PID/task/x/status); RSS: their VmRSS added up. The client's own CPU
 *   (CLOCK_PROCESS_CPUTIME_ID) is printed the same way, to show what the load costs it.
 * - Every answer is checked: status 200, a JSON body (or an event stream whose message is
 *   the answer), the request's id, "result", the echoed text, no "error" and no isError; the
 *   first answer of each series is also parsed in full (cJSON). An answer that fails counts
 *   in the errors row; one that cannot be framed (HTTP) fails the series.
 * - Unpinned: the client and the server share the machine's CPUs as the scheduler likes.
 *
 * Every loop is bounded in count and in time: a server that stops answering costs a series
 * deadline, its figures print as "-", and the run goes on. Every server started is stopped
 * (SIGTERM, then SIGKILL past HBENCH_EXIT_S) before the next one starts.
 */
#include <cjson/cJSON.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"
#include "nginx.h"

/* ---------------------------------------------------------------------------------------
 * Status codes, names, limits.
 * --------------------------------------------------------------------------------------- */

#define HBENCH_STATUS_LIST(X)                                                                      \
    X(HBENCH_OK, 0, "ok")                                                                          \
    X(HBENCH_ERR_IO, -1, "I/O error")                                                              \
    X(HBENCH_ERR_TIMEOUT, -2, "timed out")                                                         \
    X(HBENCH_ERR_EOF, -3, "the server closed a connection with a request in flight")               \
    X(HBENCH_ERR_HTTP, -4, "a response that is not HTTP/1.1 as sent by a server")                  \
    X(HBENCH_ERR_REPLY, -5, "unexpected answer")                                                   \
    X(HBENCH_ERR_NOMEM, -6, "out of memory")                                                       \
    X(HBENCH_ERR_SPAWN, -7, "cannot start the server")                                             \
    X(HBENCH_ERR_USAGE, -8, "wrong arguments")

enum hbench_status {
#define HBENCH_STATUS_ENUM(name, code, text) name = code,
    HBENCH_STATUS_LIST(HBENCH_STATUS_ENUM)
#undef HBENCH_STATUS_ENUM
};

static const char *hbench_status_str(int status)
{
    switch (status) {
#define HBENCH_STATUS_CASE(name, code, text)                                                       \
    case name:                                                                                     \
        return text;
        HBENCH_STATUS_LIST(HBENCH_STATUS_CASE)
#undef HBENCH_STATUS_CASE
    }
    return "unknown status";
}

/* The echo text of every call (as driver.c's): no character that JSON escapes. */
#define HBENCH_TEXT "The quick brown fox jumps over the lazy dog"
/* What every server writes to stderr once it listens, followed by the port. */
#define HBENCH_LISTENING "listening on http://127.0.0.1:"
#define HBENCH_PATH 4096
#define HBENCH_MAX_ARGV 8
#define HBENCH_MAX_ROUNDS 9
/* Processes of one server whose CPU, context switches and RSS are added up, at most (nginx:
 * its master and a worker a CPU). */
#define HBENCH_MAX_TREE 64
/* Tries at a free port for nginx (another process may take it between the look and nginx's
 * bind). */
#define HBENCH_NGINX_TRIES 5
/* Connections of the concurrent series: one request in flight on each. */
#define HBENCH_CONNS 64
/* A request's bytes (headers and body), and an answer's at most. */
#define HBENCH_REQ_MAX 4096 /* a JWT of a few hundred bytes fits */
#define HBENCH_RESP_MAX (1024u * 1024u)
#define HBENCH_READ_CHUNK 16384u
/* Seconds a server gets to listen, and to exit after SIGTERM. */
#define HBENCH_START_S 30.0
#define HBENCH_EXIT_S 10.0

enum hbench_server {
    SRV_MCPH26,
    SRV_MCPH_SESS,
    SRV_SDK,
    SRV_SDK_SSE,
    SRV_NGINX,
    SRV_MCPH_JWT,
    SRV_MCPH_METRICS,
    SRV_COUNT
};

/* How a server is called: the requests' headers and body. */
enum hbench_mode {
    MODE_2026,    /* sessionless 2026-07-28 */
    MODE_SESSION, /* a legacy session, made by initialize */
    MODE_LEGACY   /* legacy requests without a session (a stateless server) */
};

struct hbench_kind {
    const char *name; /* the column's head */
    const char *key;  /* its name in --only and in the log's name */
    enum hbench_mode mode;
    int sdk;          /* 0: mcph; 1: the SDK server */
    int nginx;        /* 1: nginx (nginx.h), every request with id NGINX_ID */
    const char *flag; /* the SDK server's extra argument, or NULL */
    int conf;         /* mcph: which INI (enum hbench_conf) */
};

/* The INI an mcph column serves: the default deployment, or it with a JWT required on every
 * request (--jwt-conf, its token in --jwt-token), or with metrics on (--metrics-conf). */
enum hbench_conf { CONF_DEFAULT, CONF_JWT, CONF_METRICS, CONF_COUNT };

static const struct hbench_kind hbench_kinds[SRV_COUNT] = {
    [SRV_MCPH26] = {.name = "mcph 2026", .key = "mcph-2026", .mode = MODE_2026},
    [SRV_MCPH_SESS] = {.name = "mcph sess", .key = "mcph-sess", .mode = MODE_SESSION},
    [SRV_SDK] = {.name = "sdk", .key = "sdk", .mode = MODE_LEGACY, .sdk = 1},
    [SRV_SDK_SSE] =
        {.name = "sdk sse", .key = "sdk-sse", .mode = MODE_LEGACY, .sdk = 1, .flag = "--sse"},
    [SRV_NGINX] = {.name = "nginx", .key = "nginx", .mode = MODE_2026, .nginx = 1},
    [SRV_MCPH_JWT] = {.name = "mcph jwt", .key = "mcph-jwt", .mode = MODE_2026, .conf = CONF_JWT},
    [SRV_MCPH_METRICS] = {.name = "mcph metr",
                          .key = "mcph-metrics",
                          .mode = MODE_2026,
                          .conf = CONF_METRICS},
};

/* How many of everything: full run and --quick. Each series also has a time budget. */
struct hbench_counts {
    int rounds;      /* rounds, each a fresh server of every kind, interleaved */
    int warmup;      /* untimed sequential calls before the timed ones */
    int seq_calls;   /* timed sequential calls, one connection */
    int conc_warmup; /* untimed calls with HBENCH_CONNS in flight */
    double conc_s;   /* seconds of the timed series with HBENCH_CONNS in flight */
    double budget_s; /* time budget of one series */
    const char *caption;
};

/* The warm-up stays at 1000 calls: with less, the SDK server's JIT is still cold. */
static const struct hbench_counts hbench_full = {
    .rounds = 3,
    .warmup = 1000,
    .seq_calls = 5000,
    .conc_warmup = 1000,
    .conc_s = 2.0,
    .budget_s = 60.0,
    .caption = "full",
};

static const struct hbench_counts hbench_quick = {
    .rounds = 3,
    .warmup = 1000,
    .seq_calls = 2000,
    .conc_warmup = 500,
    .conc_s = 0.5,
    .budget_s = 20.0,
    .caption = "QUICK",
};

/* ---------------------------------------------------------------------------------------
 * Figures.
 * --------------------------------------------------------------------------------------- */

#define HBENCH_FIGURES(X)                                                                          \
    X(FIG_P50, "echo round trip over HTTP, 1 connection, p50", "us", 1)                            \
    X(FIG_P99, "echo round trip over HTTP, 1 connection, p99", "us", 1)                            \
    X(FIG_CPU1, "server CPU per echo call, 1 connection", "us", 2)                                 \
    X(FIG_CSW1, "server context switches per call, 1 connection", "count", 2)                      \
    X(FIG_CLIENT1, "client CPU per echo call, 1 connection", "us", 2)                              \
    X(FIG_TPUT, "throughput over HTTP, 64 connections", "call/s", 0)                               \
    X(FIG_CPU64, "server CPU per call, 64 connections", "us", 2)                                   \
    X(FIG_CSW64, "server context switches per call, 64 connections", "count", 2)                   \
    X(FIG_CLIENT64, "client CPU per call, 64 connections", "us", 2)                                \
    X(FIG_RSS, "RSS after the calls", "MiB", 2)                                                    \
    X(FIG_ERRORS, "answers not 200 or not the echo, of all calls", "count", 0)

enum hbench_fig {
#define HBENCH_FIG_ENUM(id, label, unit, decimals) id,
    HBENCH_FIGURES(HBENCH_FIG_ENUM)
#undef HBENCH_FIG_ENUM
        FIG_COUNT
};

struct hbench_row {
    const char *label;
    const char *unit;
    int decimals;
};

static const struct hbench_row hbench_rows[FIG_COUNT] = {
#define HBENCH_FIG_ROW(id, l, u, d) [id] = {.label = l, .unit = u, .decimals = d},
    HBENCH_FIGURES(HBENCH_FIG_ROW)
#undef HBENCH_FIG_ROW
};

/* ---------------------------------------------------------------------------------------
 * The run.
 * --------------------------------------------------------------------------------------- */

struct hbench {
    const struct hbench_counts *n;
    const char *mcph, *sdk, *node, *dir; /* borrowed from argv */
    const char *nginx;                   /* borrowed from argv, or NULL: no nginx column */
    const char *conf[CONF_COUNT];        /* borrowed from argv, or NULL */
    char token[2048];                    /* --jwt-token's JWT, or "" */
    int enabled[SRV_COUNT];
    double val[FIG_COUNT][SRV_COUNT]; /* NAN: not measured */
    int answer_differs;               /* mcph 2026's answer to the echo call is not NGINX_ANSWER */
};

/* One server process. */
struct hbench_proc {
    pid_t pid;
    int port;
    char session[160]; /* MODE_SESSION: the Mcp-Session-Id; else "" */
    const char *token; /* a JWT sent with every request, or NULL */
    int fixed_id;      /* every request has id NGINX_ID (nginx's fixed answer) */
};

/* One keep-alive connection and the request in flight on it. */
struct hbench_conn {
    int fd;
    int want_out; /* EPOLLOUT is asked for: the request is not all written */
    char out[HBENCH_REQ_MAX];
    size_t out_off;
    size_t out_len;
    char *in; /* owned: bytes read, an answer not yet complete at the front */
    size_t in_len;
    size_t in_cap;
    char *plain; /* owned: a chunked body, decoded */
    size_t plain_cap;
    unsigned long long id; /* the request in flight */
    double sent;           /* when its first byte was written */
    int busy;              /* a request is in flight */
};

/* A response at the front of a connection's input. Pointers borrowed until the next read. */
struct hbench_resp {
    int status;
    int close;       /* Connection: close */
    int sse;         /* Content-Type: text/event-stream */
    const char *sid; /* Mcp-Session-Id's value, or NULL */
    size_t sid_len;
    const char *body;
    size_t body_len;
    size_t total; /* bytes of the whole response */
};

/* One series of calls over `nconns` connections, one request in flight on each. */
struct hbench_load {
    const struct hbench_proc *p;
    enum hbench_mode mode;
    struct hbench_conn *conns;
    int nconns;
    int epfd;
    double stop;           /* no request is sent after it (0: none) */
    long issued;           /* requests written (or being written) */
    long done;             /* answers read */
    long errors;           /* answers not 200 or not the echo */
    int checked;           /* the first answer was parsed in full */
    int same_answer;       /* the first answer with id NGINX_ID: 1 when it is NGINX_ANSWER
                              byte for byte, 0 when not; -1: none */
    unsigned long long id; /* the next request id */
    double *rtt;           /* NULL, or room for the round trip of every call */
};

static int hbench_ms_until(double deadline)
{
    double ms = ceil((deadline - measure_now()) * 1e3);

    if (ms <= 0)
        return 0;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

static void hbench_sleep(double seconds)
{
    struct timespec ts = {.tv_sec = (time_t)seconds,
                          .tv_nsec = (long)((seconds - floor(seconds)) * 1e9)};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* VmRSS of /proc/PID/status, in KiB. */
static double hbench_rss_kib(pid_t pid)
{
    char path[64], line[256];
    double kib = NAN;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return NAN;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtod(line + 6, NULL);
            break;
        }
    }
    fclose(f);
    return kib;
}

/* VmRSS of pid and every process under it, in KiB (pages they share count once a process). */
static double hbench_tree_rss_kib(pid_t pid)
{
    pid_t tree[HBENCH_MAX_TREE];
    size_t n = measure_tree(pid, tree, HBENCH_MAX_TREE);
    double kib = 0.0;

    for (size_t i = 0; i < n; i++)
        kib += hbench_rss_kib(tree[i]);
    return kib;
}

/* ---------------------------------------------------------------------------------------
 * Server processes.
 * --------------------------------------------------------------------------------------- */

/* The port a server wrote to its log at or after offset `from`, or 0 while there is none. */
static int hbench_log_port(const char *log, off_t from)
{
    char buf[8192];
    ssize_t n;
    int fd = open(log, O_RDONLY), port = 0;

    if (fd < 0)
        return 0;
    n = pread(fd, buf, sizeof(buf) - 1, from);
    close(fd);
    if (n > 0) {
        char *at;

        buf[n] = '\0';
        at = strstr(buf, HBENCH_LISTENING);
        if (at != NULL && strchr(at, '\n') != NULL)
            port = atoi(at + strlen(HBENCH_LISTENING));
    }
    return port > 0 && port < 65536 ? port : 0;
}

/* SIGTERM, then wait for the exit; SIGKILL past HBENCH_EXIT_S (logged). */
static void hbench_stop(struct hbench_proc *p, const char *who)
{
    double deadline = measure_now() + HBENCH_EXIT_S;
    int wstatus = 0;
    pid_t got = 0;

    if (p->pid <= 0)
        return;
    kill(p->pid, SIGTERM);
    while ((got = waitpid(p->pid, &wstatus, WNOHANG)) == 0 && measure_now() < deadline)
        hbench_sleep(0.002);
    if (got == 0) {
        fprintf(stderr, "bench: http: %s: no exit %.0f s after SIGTERM: killed\n", who,
                HBENCH_EXIT_S);
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &wstatus, 0);
    } else if (got == p->pid && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) &&
               !(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM)) {
        fprintf(stderr, "bench: http: %s: exited with status 0x%x after SIGTERM\n", who,
                (unsigned)wstatus);
    }
    p->pid = -1;
}

static void hbench_child(int log, const char *const *argv)
{
    int null = open("/dev/null", O_RDONLY);

    if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(log, STDOUT_FILENO) < 0 ||
        dup2(log, STDERR_FILENO) < 0)
        _exit(127);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
}

/* nginx started on a port found free, its stderr on log; ready once its master listens and
 * has forked a worker (it binds before it forks). When it exits first (the port was taken
 * meanwhile), another port. Its prefix is DIR/nginx, absolute: nginx resolves the paths of
 * its configuration from the prefix. */
static int hbench_spawn_nginx(const struct hbench *b, int log, struct hbench_proc *p)
{
    char dir[PATH_MAX], prefix[HBENCH_PATH], conf[HBENCH_PATH + 16];
    const char *argv[] = {b->nginx, "-p", prefix, "-e", "stderr", "-c", conf, NULL};

    if (realpath(b->dir, dir) == NULL ||
        snprintf(prefix, sizeof(prefix), "%s/nginx", dir) >= (int)sizeof(prefix))
        return HBENCH_ERR_USAGE;
    snprintf(conf, sizeof(conf), "%s/nginx.conf", prefix);
    for (int i = 0; i < HBENCH_NGINX_TRIES; i++) {
        double deadline = measure_now() + HBENCH_START_S;
        int port = nginx_free_port();
        pid_t tree[2];

        if (port == 0 || nginx_write_conf(prefix, port) != 0)
            return HBENCH_ERR_IO;
        p->pid = fork();
        if (p->pid == 0)
            hbench_child(log, argv);
        if (p->pid < 0)
            return HBENCH_ERR_SPAWN;
        while (waitpid(p->pid, NULL, WNOHANG) == 0) {
            if (measure_tree(p->pid, tree, 2) == 2 && nginx_listening(port)) {
                p->port = port;
                return HBENCH_OK;
            }
            if (measure_now() >= deadline) {
                hbench_stop(p, "nginx");
                return HBENCH_ERR_SPAWN;
            }
            hbench_sleep(0.002);
        }
        p->pid = -1; /* it exited: see its log */
    }
    return HBENCH_ERR_SPAWN;
}

/* Start server s, its stderr appended to DIR/logs/http-NAME.log, and wait for its port. */
static int hbench_spawn(const struct hbench *b, int s, struct hbench_proc *p)
{
    const struct hbench_kind *k = &hbench_kinds[s];
    const char *mcph[] = {b->mcph, "--listen", "127.0.0.1:0", b->conf[k->conf], NULL};
    const char *sdk[] = {b->node, b->sdk, k->flag, NULL};
    char log[HBENCH_PATH];
    double deadline = measure_now() + HBENCH_START_S;
    struct stat st;
    int fd;

    if (snprintf(log, sizeof(log), "%s/logs/http-%s.log", b->dir, k->key) >= (int)sizeof(log))
        return HBENCH_ERR_USAGE;
    fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return HBENCH_ERR_IO;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return HBENCH_ERR_IO;
    }
    memset(p, 0, sizeof(*p));
    p->token = k->conf == CONF_JWT ? b->token : NULL;
    p->fixed_id = k->nginx;
    if (k->nginx) {
        int status = hbench_spawn_nginx(b, fd, p);

        close(fd);
        return status;
    }
    p->pid = fork();
    if (p->pid == 0)
        hbench_child(fd, k->sdk ? sdk : mcph);
    close(fd);
    if (p->pid < 0)
        return HBENCH_ERR_SPAWN;
    while ((p->port = hbench_log_port(log, st.st_size)) == 0 && measure_now() < deadline &&
           waitpid(p->pid, NULL, WNOHANG) == 0)
        hbench_sleep(0.002);
    if (p->port == 0) {
        hbench_stop(p, k->name);
        return HBENCH_ERR_SPAWN;
    }
    return HBENCH_OK;
}

/* ---------------------------------------------------------------------------------------
 * HTTP/1.1: requests, and the framing of responses.
 * --------------------------------------------------------------------------------------- */

static const char hbench_meta[] =
    ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{},"
    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcph-bench\",\"version\":\"1.0.0\"}}";

/* A POST of body to the server: its headers as the mode wants. Returns its length, or 0 when
 * it does not fit. */
static size_t hbench_post(const struct hbench_proc *p, enum hbench_mode mode, const char *method,
                          const char *body, size_t body_len, char *buf, size_t size)
{
    char extra[256], auth[2100] = "";
    int n;

    if (p->token != NULL)
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s\r\n", p->token);
    if (mode == MODE_2026)
        snprintf(extra, sizeof(extra), "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\n%s",
                 method, strcmp(method, "tools/call") == 0 ? "Mcp-Name: echo\r\n" : "");
    else if (p->session[0] != '\0')
        snprintf(extra, sizeof(extra), "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: %s\r\n",
                 p->session);
    else
        snprintf(extra, sizeof(extra), "%s",
                 strcmp(method, "initialize") == 0 ? "" : "MCP-Protocol-Version: 2025-11-25\r\n");
    n = snprintf(buf, size,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                 "Accept: application/json, text/event-stream\r\n%s%sContent-Length: %zu\r\n\r\n",
                 p->port, auth, extra, body_len);
    if (n < 0 || (size_t)n + body_len > size)
        return 0;
    memcpy(buf + n, body, body_len);
    return (size_t)n + body_len;
}

/* The echo call with `id`, as a POST for the mode. */
static size_t hbench_echo_request(const struct hbench_proc *p, enum hbench_mode mode,
                                  unsigned long long id, char *buf, size_t size)
{
    char body[512];
    int n = snprintf(body, sizeof(body),
                     "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"echo\",\"arguments\":{\"text\":\"" HBENCH_TEXT "\"}%s}}",
                     id, mode == MODE_2026 ? hbench_meta : "");

    if (n < 0 || (size_t)n >= sizeof(body))
        return 0;
    return hbench_post(p, mode, "tools/call", body, (size_t)n, buf, size);
}

/* Case-insensitive: does header line [line, end) name `name`? Then *value is its value. */
static int hbench_header(const char *line, const char *end, const char *name, const char **value,
                         size_t *len)
{
    size_t n = strlen(name);

    if ((size_t)(end - line) <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
        return 0;
    line += n + 1;
    while (line < end && (*line == ' ' || *line == '\t'))
        line++;
    while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *value = line;
    *len = (size_t)(end - line);
    return 1;
}

/* Fields of the header block [at, end): one line each, "\r\n" ended. */
struct hbench_fields {
    long long length; /* Content-Length, or -1 */
    int chunked;
};

static int hbench_fields(const char *at, const char *end, struct hbench_resp *r,
                         struct hbench_fields *f)
{
    while (at < end) {
        const char *eol = memmem(at, (size_t)(end - at), "\r\n", 2);
        const char *v;
        size_t vlen;

        eol = eol ? eol : end;
        if (hbench_header(at, eol, "Content-Length", &v, &vlen)) {
            char num[24];

            if (vlen == 0 || vlen >= sizeof(num) || f->length >= 0)
                return HBENCH_ERR_HTTP;
            memcpy(num, v, vlen);
            num[vlen] = '\0';
            f->length = strtoll(num, NULL, 10);
        } else if (hbench_header(at, eol, "Transfer-Encoding", &v, &vlen)) {
            f->chunked = vlen >= 7 && strncasecmp(v + vlen - 7, "chunked", 7) == 0;
        } else if (hbench_header(at, eol, "Content-Type", &v, &vlen)) {
            r->sse = vlen >= 17 && strncasecmp(v, "text/event-stream", 17) == 0;
        } else if (hbench_header(at, eol, "Connection", &v, &vlen)) {
            r->close = vlen == 5 && strncasecmp(v, "close", 5) == 0;
        } else if (hbench_header(at, eol, "Mcp-Session-Id", &v, &vlen)) {
            r->sid = v;
            r->sid_len = vlen;
        }
        at = eol + 2;
    }
    return f->length >= 0 && f->chunked ? HBENCH_ERR_HTTP : HBENCH_OK;
}

/* A chunked body at [at, at + avail): 1 with it decoded into c->plain when it is all there,
 * 0 when more must be read, or an error. *used: the bytes it took, trailers included. */
static int hbench_dechunk(struct hbench_conn *c, const char *at, size_t avail, size_t *used,
                          size_t *plain_len)
{
    size_t off = 0, len = 0;

    for (;;) {
        const char *eol = memmem(at + off, avail - off, "\r\n", 2);
        char *end;
        unsigned long size;

        if (eol == NULL)
            return 0;
        size = strtoul(at + off, &end, 16);
        if (end == at + off || size > HBENCH_RESP_MAX)
            return HBENCH_ERR_HTTP;
        off = (size_t)(eol - at) + 2;
        if (size == 0) {
            const char *blank = memmem(at + off - 2, avail - off + 2, "\r\n\r\n", 4);

            if (blank == NULL)
                return 0;
            *used = (size_t)(blank - at) + 4;
            *plain_len = len;
            return 1;
        }
        if (avail - off < size + 2)
            return 0;
        if (len + size > c->plain_cap) {
            size_t cap = len + size + HBENCH_READ_CHUNK;
            char *grown = realloc(c->plain, cap);

            if (grown == NULL)
                return HBENCH_ERR_NOMEM;
            c->plain = grown;
            c->plain_cap = cap;
        }
        memcpy(c->plain + len, at + off, size);
        len += size;
        off += size + 2;
    }
}

/* The response at the front of c->in: 1 when it is all there (*r filled), 0 when more must
 * be read, or an error. Both servers send Content-Length or a chunked body. */
static int hbench_parse(struct hbench_conn *c, struct hbench_resp *r)
{
    const char *head = c->in, *blank = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    const char *eol;
    struct hbench_fields f = {.length = -1};
    size_t body_at, used = 0, plain_len = 0;
    int status;

    memset(r, 0, sizeof(*r));
    if (blank == NULL)
        return c->in_len > HBENCH_READ_CHUNK ? HBENCH_ERR_HTTP : 0;
    eol = memmem(head, (size_t)(blank - head) + 2, "\r\n", 2);
    if (strncmp(head, "HTTP/1.1 ", 9) != 0 || eol - head < 12)
        return HBENCH_ERR_HTTP;
    r->status = atoi(head + 9);
    status = hbench_fields(eol + 2, blank + 2, r, &f);
    body_at = (size_t)(blank - head) + 4;
    if (status != HBENCH_OK || (!f.chunked && f.length < 0 && r->status != 204))
        return HBENCH_ERR_HTTP;
    if (f.chunked) {
        status = hbench_dechunk(c, head + body_at, c->in_len - body_at, &used, &plain_len);
        if (status != 1)
            return status;
        r->body = c->plain;
        r->body_len = plain_len;
        r->total = body_at + used;
        return 1;
    }
    f.length = f.length < 0 ? 0 : f.length;
    if ((size_t)f.length > HBENCH_RESP_MAX)
        return HBENCH_ERR_HTTP;
    if (c->in_len - body_at < (size_t)f.length)
        return 0;
    r->body = head + body_at;
    r->body_len = (size_t)f.length;
    r->total = body_at + (size_t)f.length;
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * Answers.
 * --------------------------------------------------------------------------------------- */

/* The JSON-RPC message of a body: all of it, or an event stream's message that carries
 * `"id":` (its "data:" line). NULL when there is none. */
static const char *hbench_message(const struct hbench_resp *r, size_t *len)
{
    const char *at = r->body, *end = r->body + r->body_len;

    if (!r->sse) {
        *len = r->body_len;
        return r->body;
    }
    while (at < end) {
        const char *eol = memchr(at, '\n', (size_t)(end - at));

        eol = eol ? eol : end;
        if ((size_t)(eol - at) > 5 && memcmp(at, "data:", 5) == 0 &&
            memmem(at, (size_t)(eol - at), "\"id\":", 5) != NULL) {
            at += at[5] == ' ' ? 6 : 5;
            *len = (size_t)(eol - at);
            return at;
        }
        at = eol + 1;
    }
    return NULL;
}

/* The id after the first `"id":` of msg, or -1. */
static long long hbench_msg_id(const char *msg, size_t len)
{
    const char *at = memmem(msg, len, "\"id\":", 5), *end = msg + len;
    long long id = 0;

    if (at == NULL)
        return -1;
    at += 5;
    if (at >= end || *at < '0' || *at > '9')
        return -1;
    while (at < end && *at >= '0' && *at <= '9' && id < LLONG_MAX / 10)
        id = id * 10 + (*at++ - '0');
    return id;
}

/* The answer is result.content[0].text == HBENCH_TEXT, with the id (cJSON, in full). */
static int hbench_check_full(const char *msg, size_t len, unsigned long long id)
{
    cJSON *root = cJSON_ParseWithLength(msg, len);
    cJSON *jid = cJSON_GetObjectItemCaseSensitive(root, "id");
    cJSON *result = cJSON_GetObjectItemCaseSensitive(root, "result");
    cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    cJSON *text = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(content, 0), "text");
    cJSON *is_error = cJSON_GetObjectItemCaseSensitive(result, "isError");
    int ok = cJSON_IsNumber(jid) && jid->valuedouble == (double)id && cJSON_IsString(text) &&
             strcmp(text->valuestring, HBENCH_TEXT) == 0 && !cJSON_IsTrue(is_error);

    cJSON_Delete(root);
    return ok ? HBENCH_OK : HBENCH_ERR_REPLY;
}

/* Every answer: 200, the id, a result carrying the echoed text, no error. The first of a
 * series (full) is also parsed whole. */
static int hbench_check(const struct hbench_resp *r, unsigned long long id, int full)
{
    static const char echoed[] = "\"text\":\"" HBENCH_TEXT "\"";
    size_t len = 0;
    const char *msg = r->status == 200 ? hbench_message(r, &len) : NULL;

    if (msg == NULL || hbench_msg_id(msg, len) != (long long)id ||
        memmem(msg, len, "\"result\":{", 10) == NULL ||
        memmem(msg, len, echoed, sizeof(echoed) - 1) == NULL ||
        memmem(msg, len, "\"error\":", 8) != NULL || memmem(msg, len, "\"isError\":true", 14))
        return HBENCH_ERR_REPLY;
    return full ? hbench_check_full(msg, len, id) : HBENCH_OK;
}

/* Is the JSON-RPC message of r NGINX_ANSWER, byte for byte? 1 or 0. */
static int hbench_is_nginx_answer(const struct hbench_resp *r)
{
    size_t len = 0;
    const char *msg = r->status == 200 ? hbench_message(r, &len) : NULL;

    return msg != NULL && len == sizeof(NGINX_ANSWER) - 1 && memcmp(msg, NGINX_ANSWER, len) == 0;
}

/* ---------------------------------------------------------------------------------------
 * Connections.
 * --------------------------------------------------------------------------------------- */

static void hbench_conn_init(struct hbench_conn *c)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
}

static void hbench_conn_release(struct hbench_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->plain);
    hbench_conn_init(c);
}

/* A keep-alive connection to 127.0.0.1:port, without Nagle's delay, non-blocking. */
static int hbench_connect(struct hbench_conn *c, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int one = 1;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        return HBENCH_ERR_IO;
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0 ||
        fcntl(c->fd, F_SETFL, O_NONBLOCK) != 0) {
        close(c->fd);
        c->fd = -1;
        return HBENCH_ERR_IO;
    }
    c->in_cap = HBENCH_READ_CHUNK * 2;
    c->in = malloc(c->in_cap);
    return c->in ? HBENCH_OK : HBENCH_ERR_NOMEM;
}

/* Write what is left of c->out; asks epoll for EPOLLOUT while some is left. */
static int hbench_flush(struct hbench_load *l, struct hbench_conn *c)
{
    struct epoll_event ev = {.data.ptr = c};

    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return HBENCH_ERR_IO;
        if (n < 0)
            break;
        c->out_off += (size_t)n;
    }
    if ((c->out_off < c->out_len) != c->want_out) {
        c->want_out = !c->want_out;
        ev.events = EPOLLIN | (c->want_out ? EPOLLOUT : 0u);
        if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
            return HBENCH_ERR_IO;
    }
    return HBENCH_OK;
}

/* The next echo call on c. */
static int hbench_send(struct hbench_load *l, struct hbench_conn *c)
{
    c->id = l->p->fixed_id ? NGINX_ID : l->id++;
    c->out_off = 0;
    c->out_len = hbench_echo_request(l->p, l->mode, c->id, c->out, sizeof(c->out));
    if (c->out_len == 0)
        return HBENCH_ERR_USAGE;
    c->busy = 1;
    l->issued++;
    c->sent = measure_now();
    return hbench_flush(l, c);
}

/* The answer on c is in: check it, then send the next call if the series wants more. A
 * Connection: close is honoured by a new connection. */
static int hbench_answered(struct hbench_load *l, struct hbench_conn *c,
                           const struct hbench_resp *r, long total)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    int status = hbench_check(r, c->id, !l->checked);

    if (l->rtt != NULL)
        l->rtt[l->done] = measure_now() - c->sent;
    if (!l->checked && c->id == NGINX_ID)
        l->same_answer = hbench_is_nginx_answer(r);
    l->checked = 1;
    l->done++;
    l->errors += status != HBENCH_OK;
    c->busy = 0;
    memmove(c->in, c->in + r->total, c->in_len - r->total);
    c->in_len -= r->total;
    if (r->close) {
        close(c->fd);
        free(c->in);
        c->fd = -1;
        c->in = NULL;
        c->in_len = 0;
        c->want_out = 0;
        if (hbench_connect(c, l->p->port) != HBENCH_OK ||
            epoll_ctl(l->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
            return HBENCH_ERR_IO;
    }
    if (l->issued >= total || (l->stop > 0 && measure_now() >= l->stop))
        return HBENCH_OK;
    return hbench_send(l, c);
}

/* Read what c has; handle the answer when it is whole. */
static int hbench_readable(struct hbench_load *l, struct hbench_conn *c, long total)
{
    struct hbench_resp r;
    ssize_t n;
    int status;

    if (c->in_cap - c->in_len < HBENCH_READ_CHUNK) {
        size_t cap = c->in_cap * 2;
        char *grown = cap <= 2 * HBENCH_RESP_MAX ? realloc(c->in, cap) : NULL;

        if (grown == NULL)
            return HBENCH_ERR_HTTP;
        c->in = grown;
        c->in_cap = cap;
    }
    n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? HBENCH_OK : HBENCH_ERR_IO;
    if (n == 0)
        return HBENCH_ERR_EOF;
    c->in_len += (size_t)n;
    status = hbench_parse(c, &r);
    if (status == 1 && !c->busy)
        return HBENCH_ERR_HTTP; /* an answer to nothing */
    return status == 1 ? hbench_answered(l, c, &r, total) : status;
}

/* Open the load's connections and register them. */
static int hbench_load_open(struct hbench_load *l, const struct hbench_proc *p,
                            enum hbench_mode mode, int nconns)
{
    memset(l, 0, sizeof(*l));
    l->p = p;
    l->mode = mode;
    l->id = 1;
    l->same_answer = -1;
    l->nconns = nconns;
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    l->conns = calloc((size_t)nconns, sizeof(*l->conns));
    if (l->epfd < 0 || l->conns == NULL)
        return HBENCH_ERR_NOMEM;
    for (int i = 0; i < nconns; i++)
        hbench_conn_init(&l->conns[i]);
    for (int i = 0; i < nconns; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &l->conns[i]};
        int status = hbench_connect(&l->conns[i], p->port);

        if (status != HBENCH_OK)
            return status;
        if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->conns[i].fd, &ev) != 0)
            return HBENCH_ERR_IO;
    }
    return HBENCH_OK;
}

static void hbench_load_close(struct hbench_load *l)
{
    for (int i = 0; l->conns != NULL && i < l->nconns; i++)
        hbench_conn_release(&l->conns[i]);
    free(l->conns);
    if (l->epfd >= 0)
        close(l->epfd);
    l->conns = NULL;
    l->epfd = -1;
}

/* `total` echo calls over the load's connections, one in flight on each, until deadline;
 * fewer when l->stop comes first (the calls in flight are then answered). l->rtt, when set,
 * gets each round trip. */
static int hbench_series(struct hbench_load *l, long total, double deadline)
{
    struct epoll_event evs[HBENCH_CONNS];
    int status = HBENCH_OK;

    l->issued = l->done = 0;
    l->checked = 0;
    for (int i = 0; i < l->nconns && l->issued < total && status == HBENCH_OK; i++)
        status = hbench_send(l, &l->conns[i]);
    while (status == HBENCH_OK && l->done < l->issued) {
        int n = epoll_wait(l->epfd, evs, HBENCH_CONNS, hbench_ms_until(deadline));

        if (n < 0 && errno != EINTR)
            return HBENCH_ERR_IO;
        if (n == 0)
            return HBENCH_ERR_TIMEOUT;
        for (int i = 0; i < n && status == HBENCH_OK; i++) {
            struct hbench_conn *c = evs[i].data.ptr;

            if (evs[i].events & EPOLLOUT)
                status = hbench_flush(l, c);
            if (status == HBENCH_OK && (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
                status = hbench_readable(l, c, total);
        }
    }
    return status;
}

/* ---------------------------------------------------------------------------------------
 * A legacy session: initialize, its Mcp-Session-Id, notifications/initialized.
 * --------------------------------------------------------------------------------------- */

/* One POST on c and its whole response (blocking, until deadline). r borrowed from c. */
static int hbench_exchange(struct hbench_conn *c, const char *req, size_t len, double deadline,
                           struct hbench_resp *r)
{
    size_t off = 0;
    int status = 0;

    while (off < len && measure_now() < deadline) {
        ssize_t n = send(c->fd, req + off, len - off, MSG_NOSIGNAL);

        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return HBENCH_ERR_IO;
        off += n > 0 ? (size_t)n : 0;
    }
    c->in_len = 0;
    while (status == 0 && off == len && measure_now() < deadline) {
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);

        if (n == 0)
            return HBENCH_ERR_EOF;
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return HBENCH_ERR_IO;
        if (n < 0) {
            hbench_sleep(0.001);
            continue;
        }
        c->in_len += (size_t)n;
        status = c->in_len < c->in_cap ? hbench_parse(c, r) : HBENCH_ERR_HTTP;
    }
    return status == 1 ? HBENCH_OK : status == 0 ? HBENCH_ERR_TIMEOUT : status;
}

static int hbench_session(struct hbench_proc *p, double deadline)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"mcph-bench\",\"version\":\"1.0.0\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    struct hbench_conn c;
    struct hbench_resp r;
    char req[HBENCH_REQ_MAX];
    size_t len =
        hbench_post(p, MODE_SESSION, "initialize", init, sizeof(init) - 1, req, sizeof(req));
    int status;

    hbench_conn_init(&c);
    status = hbench_connect(&c, p->port);

    if (status == HBENCH_OK)
        status = hbench_exchange(&c, req, len, deadline, &r);
    if (status == HBENCH_OK &&
        (r.status != 200 || r.sid == NULL || r.sid_len == 0 || r.sid_len >= sizeof(p->session)))
        status = HBENCH_ERR_REPLY;
    if (status == HBENCH_OK) {
        memcpy(p->session, r.sid, r.sid_len);
        p->session[r.sid_len] = '\0';
        len = hbench_post(p, MODE_SESSION, "notifications/initialized", done, sizeof(done) - 1, req,
                          sizeof(req));
        status = hbench_exchange(&c, req, len, deadline, &r);
    }
    if (status == HBENCH_OK && r.status != 202)
        status = HBENCH_ERR_REPLY;
    hbench_conn_release(&c);
    return status;
}

/* ---------------------------------------------------------------------------------------
 * Phases.
 * --------------------------------------------------------------------------------------- */

/* What a series is measured by: taken before and after it. */
struct hbench_snap {
    double at;                   /* wall clock */
    double cpu;                  /* the server's CPU seconds */
    double csw;                  /* the server's context switches */
    double self;                 /* the client's CPU seconds */
    pid_t tree[HBENCH_MAX_TREE]; /* the server's processes, read by the first snapshot */
    size_t ntree;
};

/* The figures of s; the server's processes are those of `from` when given (the snapshot at
 * the start of the series), so both ends of a series add up the same processes. */
static void hbench_snap(const struct hbench_proc *p, const struct hbench_snap *from,
                        struct hbench_snap *s)
{
    if (from != NULL) {
        memcpy(s->tree, from->tree, sizeof(s->tree));
        s->ntree = from->ntree;
    } else {
        s->ntree = measure_tree(p->pid, s->tree, HBENCH_MAX_TREE);
    }
    s->at = measure_now();
    s->cpu = measure_tree_cpu(s->tree, s->ntree);
    s->csw = measure_tree_ctxsw(s->tree, s->ntree);
    s->self = measure_cpu(0);
}

/* On one connection: n->warmup untimed calls, then n->seq_calls timed, each sent when the
 * previous answer is in. *same: whether the first answer (id 1) is NGINX_ANSWER (-1: none). */
static int hbench_sequential(const struct hbench_proc *p, enum hbench_mode mode,
                             const struct hbench_counts *n, double *fig, long *errors, int *same)
{
    double deadline = measure_now() + n->budget_s;
    struct hbench_snap a, z;
    struct hbench_load l;
    int status = hbench_load_open(&l, p, mode, 1);

    if (status == HBENCH_OK)
        status = hbench_series(&l, n->warmup, deadline);
    l.rtt = calloc((size_t)n->seq_calls, sizeof(double));
    if (status == HBENCH_OK && l.rtt == NULL)
        status = HBENCH_ERR_NOMEM;
    hbench_snap(p, NULL, &a);
    if (status == HBENCH_OK)
        status = hbench_series(&l, n->seq_calls, deadline);
    hbench_snap(p, &a, &z);
    if (status == HBENCH_OK) {
        fig[FIG_P50] = measure_quantile(l.rtt, (size_t)l.done, 0.5) * 1e6;
        fig[FIG_P99] = measure_quantile(l.rtt, (size_t)l.done, 0.99) * 1e6;
        fig[FIG_CPU1] = (z.cpu - a.cpu) / (double)l.done * 1e6;
        fig[FIG_CSW1] = (z.csw - a.csw) / (double)l.done;
        fig[FIG_CLIENT1] = (z.self - a.self) / (double)l.done * 1e6;
    }
    *errors += l.errors;
    *same = l.same_answer;
    free(l.rtt);
    hbench_load_close(&l);
    return status;
}

/* On HBENCH_CONNS connections, one request in flight on each: n->conc_warmup untimed calls,
 * then as many as n->conc_s seconds take. */
static int hbench_concurrent(const struct hbench_proc *p, enum hbench_mode mode,
                             const struct hbench_counts *n, double *fig, long *errors)
{
    double deadline = measure_now() + n->budget_s;
    struct hbench_snap a, z;
    struct hbench_load l;
    int status = hbench_load_open(&l, p, mode, HBENCH_CONNS);

    if (status == HBENCH_OK)
        status = hbench_series(&l, n->conc_warmup, deadline);
    hbench_snap(p, NULL, &a);
    l.stop = a.at + n->conc_s;
    if (status == HBENCH_OK)
        status = hbench_series(&l, LONG_MAX, deadline);
    hbench_snap(p, &a, &z);
    if (status == HBENCH_OK) {
        fig[FIG_TPUT] = (double)l.done / (z.at - a.at);
        fig[FIG_CPU64] = (z.cpu - a.cpu) / (double)l.done * 1e6;
        fig[FIG_CSW64] = (z.csw - a.csw) / (double)l.done;
        fig[FIG_CLIENT64] = (z.self - a.self) / (double)l.done * 1e6;
    }
    *errors += l.errors;
    hbench_load_close(&l);
    return status;
}

/* One round of server s: a fresh server, the session when its mode has one, the sequential
 * series, then the concurrent one, then its RSS; stopped. fig[] gets FIG_COUNT figures,
 * *same what hbench_sequential says of its first answer. */
static int hbench_round(const struct hbench *b, int s, double *fig, long *errors, int *same)
{
    const struct hbench_kind *k = &hbench_kinds[s];
    const struct hbench_counts *n = b->n;
    struct hbench_proc p;
    int status = hbench_spawn(b, s, &p);

    for (int f = 0; f < FIG_COUNT; f++)
        fig[f] = NAN;
    if (status == HBENCH_OK && k->mode == MODE_SESSION)
        status = hbench_session(&p, measure_now() + n->budget_s);
    if (status == HBENCH_OK)
        status = hbench_sequential(&p, k->mode, n, fig, errors, same);
    if (status == HBENCH_OK)
        status = hbench_concurrent(&p, k->mode, n, fig, errors);
    if (status == HBENCH_OK)
        fig[FIG_RSS] = hbench_tree_rss_kib(p.pid) / 1024.0;
    hbench_stop(&p, k->name);
    return status;
}

/* Is server s run: enabled, and for nginx, found (--nginx)? */
static int hbench_runs(const struct hbench *b, int s)
{
    return b->enabled[s] && (!hbench_kinds[s].nginx || b->nginx != NULL);
}

/* n->rounds rounds, the servers interleaved; each figure the median of the rounds that
 * completed. */
static void hbench_run(struct hbench *b)
{
    double fig[SRV_COUNT][FIG_COUNT][HBENCH_MAX_ROUNDS];
    size_t done[SRV_COUNT] = {0};
    long errors[SRV_COUNT] = {0};

    for (int r = 0; r < b->n->rounds && r < HBENCH_MAX_ROUNDS; r++) {
        for (int s = 0; s < SRV_COUNT; s++) {
            double one[FIG_COUNT];
            int status, same = -1;

            if (!hbench_runs(b, s))
                continue;
            fprintf(stderr, "bench: http: %s, round %d of %d\n", hbench_kinds[s].name, r + 1,
                    b->n->rounds);
            status = hbench_round(b, s, one, &errors[s], &same);
            if (s == SRV_MCPH26 && same == 0)
                b->answer_differs = 1;
            if (status != HBENCH_OK) {
                fprintf(stderr, "bench: http: %s: %s\n", hbench_kinds[s].name,
                        hbench_status_str(status));
                continue;
            }
            for (int f = 0; f < FIG_COUNT; f++)
                fig[s][f][done[s]] = one[f];
            done[s]++;
        }
    }
    for (int s = 0; s < SRV_COUNT; s++) {
        for (int f = 0; f < FIG_COUNT && b->enabled[s]; f++)
            b->val[f][s] = measure_quantile(fig[s][f], done[s], 0.5);
        if (hbench_runs(b, s))
            b->val[FIG_ERRORS][s] = (double)errors[s];
    }
}

/* ---------------------------------------------------------------------------------------
 * Output.
 * --------------------------------------------------------------------------------------- */

static void hbench_table(const struct hbench *b)
{
    int width = 0;

    for (int f = 0; f < FIG_COUNT; f++) {
        int len = (int)strlen(hbench_rows[f].label);

        width = len > width ? len : width;
    }
    fprintf(stdout, "\n%-*s %-6s", width, "figure over HTTP", "unit");
    for (int s = 0; s < SRV_COUNT; s++) {
        if (b->enabled[s])
            fprintf(stdout, " %10s", hbench_kinds[s].name);
    }
    fprintf(stdout, " %10s %10s", "sdk/2026", "sdk/sess");
    if (b->enabled[SRV_NGINX])
        fprintf(stdout, " %10s %10s", "2026/ngx", "sess/ngx");
    for (int s = SRV_MCPH_JWT; s < SRV_COUNT; s++) {
        if (b->enabled[s])
            fprintf(stdout, " %10s", s == SRV_MCPH_JWT ? "jwt/2026" : "metr/2026");
    }
    fprintf(stdout, "\n");
    for (int f = 0; f < FIG_COUNT; f++) {
        const struct hbench_row *r = &hbench_rows[f];
        const double *v = b->val[f];

        fprintf(stdout, "%-*s %-6s", width, r->label, r->unit);
        for (int s = 0; s < SRV_COUNT; s++) {
            if (b->enabled[s])
                measure_put(v[s], r->decimals, 10);
        }
        measure_put_ratio(f == FIG_ERRORS ? NAN : v[SRV_SDK] / v[SRV_MCPH26], 10);
        measure_put_ratio(f == FIG_ERRORS ? NAN : v[SRV_SDK] / v[SRV_MCPH_SESS], 10);
        if (b->enabled[SRV_NGINX]) {
            measure_put_ratio(f == FIG_ERRORS ? NAN : v[SRV_MCPH26] / v[SRV_NGINX], 10);
            measure_put_ratio(f == FIG_ERRORS ? NAN : v[SRV_MCPH_SESS] / v[SRV_NGINX], 10);
        }
        for (int s = SRV_MCPH_JWT; s < SRV_COUNT; s++) {
            if (b->enabled[s])
                measure_put_ratio(f == FIG_ERRORS ? NAN : v[s] / v[SRV_MCPH26], 10);
        }
        fprintf(stdout, "\n");
    }
}

/* A target of mcph 2026 (sessionless): its figure at most limit (HRULE_AT_MOST), or its ratio
 * to nginx's at most (HRULE_NGINX_MAX, rows better lower) or at least (HRULE_NGINX_MIN, rows
 * better higher) limit. mcph sess's ratio is printed next to it, as information. */
enum hbench_rule { HRULE_AT_MOST = 1, HRULE_NGINX_MAX, HRULE_NGINX_MIN };

struct hbench_target {
    enum hbench_fig fig;
    enum hbench_rule rule;
    double limit;
    const char *text;
};

static const struct hbench_target hbench_targets[] = {
    {FIG_CPU1, HRULE_NGINX_MAX, 2.0, "server CPU per echo call <= 2x nginx, 1 connection"},
    {FIG_CPU64, HRULE_NGINX_MAX, 2.0, "server CPU per echo call <= 2x nginx, 64 connections"},
    {FIG_CSW1, HRULE_AT_MOST, 2.0, "server context switches per call, 1 connection <= 2"},
    {FIG_TPUT, HRULE_NGINX_MIN, 0.5, "throughput over HTTP, 64 connections >= 0.5x nginx"},
    {0},
};

/* One verdict line: PASS, MISS or n/a, the figure or ratio, and by how much a miss misses. */
static void hbench_verdict(const struct hbench *b, const struct hbench_target *t)
{
    const double *v = b->val[t->fig];
    int absolute = t->rule == HRULE_AT_MOST;
    double x = absolute ? v[SRV_MCPH26] : v[SRV_MCPH26] / v[SRV_NGINX];
    int pass = t->rule == HRULE_NGINX_MIN ? x >= t->limit : x <= t->limit;

    if (isnan(x) || isinf(x)) {
        fprintf(stdout, "  n/a   %s: not measured%s\n", t->text,
                b->nginx == NULL && !absolute ? " (no nginx)" : "");
        return;
    }
    fprintf(stdout, "  %-5s %s: ", pass ? "PASS" : "MISS", t->text);
    if (absolute)
        fprintf(stdout, "%.2f %s", x, hbench_rows[t->fig].unit);
    else
        fprintf(stdout, "2026/nginx %.2fx", x);
    if (!pass && t->rule == HRULE_NGINX_MIN)
        fprintf(stdout, " (%.2fx short of the target)", t->limit / x);
    else if (!pass)
        fprintf(stdout, " (%.2fx the target)", x / t->limit);
    if (absolute && !isnan(v[SRV_MCPH_SESS]))
        fprintf(stdout, "; sess %.2f %s", v[SRV_MCPH_SESS], hbench_rows[t->fig].unit);
    else if (!absolute && !isnan(v[SRV_MCPH_SESS] / v[SRV_NGINX]))
        fprintf(stdout, "; sess/nginx %.2fx", v[SRV_MCPH_SESS] / v[SRV_NGINX]);
    fprintf(stdout, "\n");
}

static void hbench_report(const struct hbench *b)
{
    fprintf(stdout, "\nmcph bench over HTTP (%s run)\n", b->n->caption);
    fprintf(stdout, "mcph: %s --listen 127.0.0.1:0 %s | sdk: %s %s (stateless, JSON responses)%s\n",
            b->mcph, b->conf[CONF_DEFAULT], b->node, b->sdk,
            b->enabled[SRV_SDK_SSE] ? " | sdk sse: the same with --sse (event streams)" : "");
    fprintf(stdout,
            "counts: %d rounds (a fresh server each); %d sequential calls (after %d) on 1 "
            "keep-alive connection; %.1f s of calls (after %d) on %d keep-alive connections, "
            "one request in flight on each (no pipelining)\n",
            b->n->rounds, b->n->seq_calls, b->n->warmup, b->n->conc_s, b->n->conc_warmup,
            HBENCH_CONNS);
    hbench_table(b);
    fprintf(stdout,
            "(mcph 2026: sessionless 2026-07-28 tools/call, with MCP-Protocol-Version, "
            "Mcp-Method and Mcp-Name; mcph sess:\n a 2025-11-25 session, Mcp-Session-Id; sdk: "
            "SDK v1 stateless, a McpServer and a transport per POST; medians of\n the rounds; "
            "x/y is a ratio of the figures, call/s is better higher, all others lower; every "
            "answer is checked:\n status 200, its id, the echoed text)\n");
    if (b->enabled[SRV_MCPH_JWT])
        fprintf(stdout,
                "(mcph jwt: as mcph 2026, serving %s: every request carries an OAuth "
                "access token, a JWT checked against a JWKS)\n",
                b->conf[CONF_JWT]);
    if (b->enabled[SRV_MCPH_METRICS])
        fprintf(stdout, "(mcph metr: as mcph 2026, serving %s: metrics counted for every call)\n",
                b->conf[CONF_METRICS]);
    if (b->enabled[SRV_NGINX] && b->nginx != NULL)
        fprintf(stdout,
                "(nginx: %s, master and a worker a CPU, keep-alive, POST /mcp answered with "
                "return 200 and mcph's answer to the call; its requests are mcph 2026's with id "
                "%d, the id of that answer; CPU, context switches and RSS of every process of "
                "a server are added up)\n",
                b->nginx, NGINX_ID);
    else if (b->enabled[SRV_NGINX])
        fprintf(stdout, "(nginx: not found (tests/bench/run.sh installs Debian's with apt-get): "
                        "no figures, its targets n/a)\n");
    if (b->enabled[SRV_NGINX] && b->answer_differs)
        fprintf(stdout, "(warning: mcph's answer to the echo call is not the one nginx gives any "
                        "more: update NGINX_ANSWER in tests/bench/nginx.h)\n");
    fprintf(stdout, "\ntargets over HTTP (mcph 2026; mcph sess as information):\n");
    for (const struct hbench_target *t = hbench_targets; t->text != NULL; t++)
        hbench_verdict(b, t);
}

/* ---------------------------------------------------------------------------------------
 * main.
 * --------------------------------------------------------------------------------------- */

/* The JWT in file (its first line) into buf. */
static int hbench_read_token(const char *file, char *buf, size_t size)
{
    FILE *f = fopen(file, "r");
    int ok = f != NULL && fgets(buf, (int)size, f) != NULL;

    if (f != NULL)
        fclose(f);
    buf[ok ? strcspn(buf, "\r\n") : 0] = '\0';
    return ok && buf[0] != '\0' ? HBENCH_OK : HBENCH_ERR_IO;
}

/* Is key one of the comma-separated names of list? */
static int hbench_listed(const char *list, const char *key)
{
    size_t n = strlen(key);

    for (const char *at = list; at != NULL; at = strchr(at, ',')) {
        at += *at == ',';
        if (strncmp(at, key, n) == 0 && (at[n] == ',' || at[n] == '\0'))
            return 1;
    }
    return 0;
}

static int hbench_args(int argc, char **argv, struct hbench *b)
{
    const char *quick = getenv("QUICK");
    int is_quick = quick != NULL && *quick != '\0' && strcmp(quick, "0") != 0, sse = 0;
    const char *only = NULL, *token = NULL;

    memset(b, 0, sizeof(*b));
    b->node = "node";
    for (int i = 1; i < argc; i++) {
        const char **slot = NULL;

        if (strcmp(argv[i], "--quick") == 0)
            is_quick = 1;
        else if (strcmp(argv[i], "--sdk-sse") == 0)
            sse = 1;
        else if (strcmp(argv[i], "--mcph") == 0)
            slot = &b->mcph;
        else if (strcmp(argv[i], "--conf") == 0)
            slot = &b->conf[CONF_DEFAULT];
        else if (strcmp(argv[i], "--jwt-conf") == 0)
            slot = &b->conf[CONF_JWT];
        else if (strcmp(argv[i], "--metrics-conf") == 0)
            slot = &b->conf[CONF_METRICS];
        else if (strcmp(argv[i], "--jwt-token") == 0)
            slot = &token;
        else if (strcmp(argv[i], "--sdk") == 0)
            slot = &b->sdk;
        else if (strcmp(argv[i], "--nginx") == 0)
            slot = &b->nginx;
        else if (strcmp(argv[i], "--node") == 0)
            slot = &b->node;
        else if (strcmp(argv[i], "--dir") == 0)
            slot = &b->dir;
        else if (strcmp(argv[i], "--only") == 0)
            slot = &only;
        else
            return HBENCH_ERR_USAGE;
        if (slot != NULL && ++i >= argc)
            return HBENCH_ERR_USAGE;
        if (slot != NULL)
            *slot = argv[i];
    }
    if (!b->mcph || !b->conf[CONF_DEFAULT] || !b->sdk || !b->dir ||
        (b->conf[CONF_JWT] != NULL) != (token != NULL))
        return HBENCH_ERR_USAGE;
    if (token != NULL && hbench_read_token(token, b->token, sizeof(b->token)) != HBENCH_OK)
        return HBENCH_ERR_USAGE;
    b->n = is_quick ? &hbench_quick : &hbench_full;
    for (int s = 0; s < SRV_COUNT; s++)
        b->enabled[s] =
            b->conf[hbench_kinds[s].conf] != NULL &&
            (only != NULL ? hbench_listed(only, hbench_kinds[s].key) : s != SRV_SDK_SSE || sse);
    for (int f = 0; f < FIG_COUNT; f++) {
        for (int s = 0; s < SRV_COUNT; s++)
            b->val[f][s] = NAN;
    }
    return HBENCH_OK;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    struct hbench b;
    char logs[HBENCH_PATH];

    if (hbench_args(argc, argv, &b) != HBENCH_OK) {
        fprintf(
            stderr,
            "usage: http-driver [--quick] [--sdk-sse] [--only mcph-2026,mcph-sess,sdk,sdk-sse,"
            "nginx,mcph-jwt,mcph-metrics] --mcph BIN --conf INI [--jwt-conf INI --jwt-token FILE] "
            "[--metrics-conf INI] --sdk SCRIPT [--node NODE] [--nginx NGINX] --dir DIR\n");
        return 2;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    if (snprintf(logs, sizeof(logs), "%s/logs", b.dir) < (int)sizeof(logs))
        mkdir(logs, 0755);
    hbench_run(&b);
    hbench_report(&b);
    return 0;
}
