/*
 * fuzz_input.c: the whole input path of a running server. The fuzzed bytes are written to
 * the input pipe exactly as a client would (framing, parse, envelope, both protocol eras,
 * every method, calls into the example plugin and the basic, features and threadsafe test
 * plugins), followed by a newline and a sentinel ping. The harness waits for the sentinel's
 * answer, cancels whatever still runs, waits for the pool to be idle, and checks every line
 * the server wrote:
 *   - it is well-formed UTF-8 (FUZZ_ALLOW_BAD_UTF8=1 turns this off),
 *   - it parses as a JSON object with "jsonrpc":"2.0" (or a non-empty batch of them),
 *   - exactly one of them answers the sentinel.
 * Any failure abort()s with the offending line. Then the legacy session, the logging level,
 * the subscriptions and the open listen requests are reset, so every input starts afresh.
 *
 * Plugins come from build/fuzz/plugins (beside this binary, or FUZZ_PLUGIN_DIR). Their sleeps
 * are cut short: nanosleep is defined here (the binary exports it) and sleeps at most
 * FUZZ_SLEEP_CAP_NS, so a tool asked to sleep a minute cannot stall the fuzzer.
 * FUZZ_VERBOSE=1 keeps the server's log on stderr and copies its output there.
 */
#include "protocol/dispatch.h"
#include "served/inflight.h"
#include "wire/jsonrpc.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "served/notify.h"
#include "transport/pipe.h"
#include "served/server.h"
#include "served/session.h"
#include "lib/status.h"
#include "lib/work.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int nanosleep(const struct timespec *req, struct timespec *rem);

/* The longest sleep a plugin gets, whatever it asks for. */
#define FUZZ_SLEEP_CAP_NS 2000000L
/* How long the sentinel's answer, and then the pool's quiet, may take before it is a hang. */
#define FUZZ_WAIT_MS 5000

/* What the server wrote, gathered by the capture thread. */
struct fuzz_capture {
    pthread_mutex_t lock; /* guards buf, len and cap */
    pthread_cond_t grew;  /* more bytes arrived */
    char *buf;
    size_t len;
    size_t cap;
    int fd; /* read end of the output pipe (non-blocking) */
};

/* The one server every input goes to; static so that what it holds stays reachable for
 * LeakSanitizer between inputs. */
static struct server fuzz_srv;
static struct fuzz_capture fuzz_cap;
static int fuzz_in_fd = -1;  /* write end of the input pipe */
static unsigned long fuzz_n; /* inputs so far: the sentinel's id changes each time */
static int fuzz_allow_bad_utf8;
static int fuzz_verbose; /* FUZZ_VERBOSE: the server's log and output on stderr */

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    struct timespec capped = *req;

    if (capped.tv_sec > 0 || capped.tv_nsec > FUZZ_SLEEP_CAP_NS) {
        capped.tv_sec = 0;
        capped.tv_nsec = FUZZ_SLEEP_CAP_NS;
    }
    if (rem != NULL)
        rem->tv_sec = rem->tv_nsec = 0;
    return (int)syscall(SYS_nanosleep, &capped, NULL);
}

static void fuzz_die(const char *what)
{
    fprintf(stderr, "fuzz_input: %s: %s\n", what, strerror(errno));
    abort();
}

/* --- The capture thread. --- */

static void fuzz_capture_append(struct fuzz_capture *c, const char *bytes, size_t n)
{
    if (c->len + n + 1 > c->cap) {
        size_t cap = (c->len + n + 1) * 2;
        char *grown = realloc(c->buf, cap);

        if (grown == NULL)
            fuzz_die("capture buffer");
        c->buf = grown;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, bytes, n);
    c->len += n;
    c->buf[c->len] = '\0';
}

/* Reads are made under the lock, so that once the pipe is empty under the lock every byte
 * written so far is in buf. */
static void *fuzz_capture_run(void *arg)
{
    struct fuzz_capture *c = arg;
    char chunk[65536];

    for (;;) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        ssize_t n;

        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            fuzz_die("poll on the output pipe");
        pthread_mutex_lock(&c->lock);
        while ((n = read(c->fd, chunk, sizeof(chunk))) > 0)
            fuzz_capture_append(c, chunk, (size_t)n);
        pthread_cond_broadcast(&c->grew);
        pthread_mutex_unlock(&c->lock);
        if (n == 0)
            return NULL;
    }
}

/* Everything written to the output pipe so far is in the buffer. */
static void fuzz_capture_sync(struct fuzz_capture *c)
{
    for (;;) {
        int waiting = 0;

        pthread_mutex_lock(&c->lock);
        if (ioctl(c->fd, FIONREAD, &waiting) != 0)
            fuzz_die("FIONREAD");
        pthread_mutex_unlock(&c->lock);
        if (waiting == 0)
            return;
        sched_yield();
    }
}

static long fuzz_ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000L + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

/* Wait until needle shows up in the capture; 0 on time-out. */
static int fuzz_capture_wait(struct fuzz_capture *c, const char *needle, int timeout_ms)
{
    struct timespec start;
    int found;

    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_mutex_lock(&c->lock);
    while (!(found = c->buf != NULL && strstr(c->buf, needle) != NULL) &&
           fuzz_ms_since(&start) < timeout_ms) {
        struct timespec until;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 10 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->grew, &c->lock, &until);
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

/* --- The oracle. --- */

/* Whether text[0..len) is well-formed UTF-8 (RFC 3629). */
static int fuzz_utf8_ok(const unsigned char *s, size_t len)
{
    size_t i = 0;

    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned cp, min;

        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1, cp = c & 0x1F, min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2, cp = c & 0x0F, min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return 0;
        }
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += n + 1;
    }
    return 1;
}

static void fuzz_bad_line(const char *why, const char *line, size_t len)
{
    fprintf(stderr, "fuzz_input: %s; the line (%zu bytes) is:\n", why, len);
    fwrite(line, 1, len, stderr);
    fputc('\n', stderr);
    abort();
}

/* Whether msg is a JSON-RPC 2.0 message object; counts answers to the sentinel. */
static int fuzz_message_ok(const cJSON *msg, const char *sentinel, int *answers)
{
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");

    if (!cJSON_IsObject(msg) || !cJSON_IsString(version) || strcmp(version->valuestring, "2.0"))
        return 0;
    if (cJSON_IsString(id) && strcmp(id->valuestring, sentinel) == 0 &&
        (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error")))
        (*answers)++;
    return 1;
}

static void fuzz_check_line(const char *line, size_t len, const char *sentinel, int *answers)
{
    cJSON *root;
    const cJSON *el;
    int ok;

    if (!fuzz_allow_bad_utf8 && !fuzz_utf8_ok((const unsigned char *)line, len))
        fuzz_bad_line("output line is not well-formed UTF-8", line, len);
    root = cJSON_ParseWithLength(line, len);
    if (root == NULL)
        fuzz_bad_line("output line is not JSON", line, len);
    if (cJSON_IsArray(root)) {
        ok = cJSON_GetArraySize(root) > 0;
        cJSON_ArrayForEach(el, root) ok &= fuzz_message_ok(el, sentinel, answers);
    } else {
        ok = fuzz_message_ok(root, sentinel, answers);
    }
    cJSON_Delete(root);
    if (!ok)
        fuzz_bad_line("output line is not a JSON-RPC 2.0 message", line, len);
}

static void fuzz_check_output(struct fuzz_capture *c, const char *sentinel)
{
    int answers = 0;
    size_t at = 0;

    pthread_mutex_lock(&c->lock);
    if (fuzz_verbose && c->len > 0)
        fwrite(c->buf, 1, c->len, stderr);
    while (at < c->len) {
        const char *nl = memchr(c->buf + at, '\n', c->len - at);
        size_t end = nl ? (size_t)(nl - c->buf) : c->len;

        if (nl == NULL)
            fuzz_bad_line("output ends without a newline", c->buf + at, end - at);
        fuzz_check_line(c->buf + at, end - at, sentinel, &answers);
        at = end + 1;
    }
    c->len = 0;
    if (c->buf != NULL)
        c->buf[0] = '\0';
    pthread_mutex_unlock(&c->lock);
    if (answers != 1) {
        fprintf(stderr, "fuzz_input: %d answers to the sentinel %s, not one\n", answers, sentinel);
        abort();
    }
}

/* --- Setup. --- */

/* The folder of this binary + "/plugins", unless FUZZ_PLUGIN_DIR says otherwise. */
static void fuzz_plugin_dir(char *dir, size_t size)
{
    const char *env = getenv("FUZZ_PLUGIN_DIR");
    char exe[PATH_MAX];
    ssize_t n;
    char *slash;

    if (env != NULL) {
        snprintf(dir, size, "%s", env);
        return;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n < 0)
        fuzz_die("readlink /proc/self/exe");
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(dir, size, "%s/plugins", exe);
}

static void fuzz_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        fuzz_die(path);
}

/* The served set: the example plugin (prefixed), basic, features and threadsafe; small
 * pages so that cursors are exercised; a short wait for the client's answers. */
static void fuzz_write_ini(const char *dir, const char *plugins, char *ini, size_t size)
{
    char text[4096], notes[PATH_MAX];

    snprintf(notes, sizeof(notes), "%s/notes.txt", dir);
    fuzz_write_file(notes, "The notes of the fuzz run.\n");
    snprintf(text, sizeof(text),
             "[server]\n"
             "name = mcph-fuzz\n"
             "title = Fuzz host\n"
             "instructions = Fuzzed.\n"
             "plugin_dir = %s\n"
             "workers = 2\n"
             "page_size = 4\n"
             "ask_timeout_ms = 100\n"
             "log_level = debug\n"
             "cache_ttl_ms = 1000\n"
             "cache_scope = public\n"
             "\n"
             "[plugin.example]\n"
             "path = example.so\n"
             "prefix = ex\n"
             "greeting = Howdy\n"
             "shortcuts = hello: Hello there.\n"
             "    motto: Small core, plugins for the rest.\n"
             "notes_file = %s\n"
             "\n"
             "[plugin.basic]\n"
             "path = basic.so\n"
             "greeting = hey\n"
             "\n"
             "[plugin.features]\n"
             "path = features.so\n"
             "cache_ttl_ms = 500\n"
             "cache_scope = private\n"
             "\n"
             "[plugin.threadsafe]\n"
             "path = threadsafe.so\n"
             "max_concurrent = 2\n",
             plugins, notes);
    snprintf(ini, size, "%s/fuzz.ini", dir);
    fuzz_write_file(ini, text);
}

static void fuzz_load(void)
{
    char tmp[] = "/tmp/mcph-fuzz-XXXXXX", plugins[PATH_MAX], ini[PATH_MAX + 16];
    size_t failures = 0, collisions = 0;
    int fds[2];

    if (mkdtemp(tmp) == NULL)
        fuzz_die("mkdtemp");
    fuzz_plugin_dir(plugins, sizeof(plugins));
    fuzz_write_ini(tmp, plugins, ini, sizeof(ini));
    if (pipe2(fds, O_CLOEXEC) != 0)
        fuzz_die("output pipe");
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    fuzz_cap.fd = fds[0];
    server_init(&fuzz_srv);
    fuzz_verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (!fuzz_verbose)
        fuzz_srv.log.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    server_open_output(&fuzz_srv, fds[1]);
    if (server_load(&fuzz_srv, ini, &failures, &collisions) != STATUS_OK || failures > 0 ||
        fuzz_srv.reg == NULL || fuzz_srv.reg->nplugins != 4) {
        fprintf(stderr, "fuzz_input: the plugins in %s did not all load (%zu failures)\n", plugins,
                failures);
        exit(1);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct work_source src;
    pthread_t capture;
    int fds[2];

    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    fuzz_allow_bad_utf8 =
        getenv("FUZZ_ALLOW_BAD_UTF8") != NULL && strcmp(getenv("FUZZ_ALLOW_BAD_UTF8"), "1") == 0;
    pthread_mutex_init(&fuzz_cap.lock, NULL);
    pthread_cond_init(&fuzz_cap.grew, NULL);
    fuzz_load();
    if (pipe2(fds, O_CLOEXEC) != 0)
        fuzz_die("input pipe");
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    fuzz_in_fd = fds[1];
    jsonrpc_reader_init(&fuzz_srv.in, fds[0], LIMIT_MESSAGE_BYTES);
    /* The reader dispatches what is buffered before its first read, and with nothing read
     * yet jsonrpc_reader_next computes NULL + 0, which UBSan reports (see the README): an
     * empty line read here first gives the reader its buffer. FUZZ_NO_PRIME=1 skips it. */
    if (getenv("FUZZ_NO_PRIME") == NULL &&
        (write(fuzz_in_fd, "\n", 1) != 1 || jsonrpc_reader_fill(&fuzz_srv.in) != STATUS_OK))
        fuzz_die("priming the reader");
    pipe_source(&fuzz_srv, &src);
    if (pthread_create(&capture, NULL, fuzz_capture_run, &fuzz_cap) != 0)
        fuzz_die("capture thread");
    pthread_detach(capture);
    if (work_start(&fuzz_srv.work, &src, LIMIT_THREADS) != STATUS_OK)
        fuzz_die("work_start");
    return 0;
}

/* --- One input. --- */

static void fuzz_send(const void *bytes, size_t len)
{
    const char *p = bytes;

    while (len > 0) {
        ssize_t n = write(fuzz_in_fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fuzz_die("writing the input");
        p += n;
        len -= (size_t)n;
    }
}

/* What one input may leave behind in the server: back to a fresh pipe. Open listen requests
 * are closed with their final result (which goes through the oracle too). */
static void fuzz_reset(void)
{
    size_t n;
    char **ids = server_take_refresh(&fuzz_srv, &n);

    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    notify_listeners_close(&fuzz_srv);
    pthread_mutex_lock(&fuzz_srv.lock);
    session_release(&fuzz_srv.session);
    session_init(&fuzz_srv.session);
    atomic_store(&fuzz_srv.log.sink_level, LOG_OFF);
    subs_unsubscribe_all(&fuzz_srv.subs, &fuzz_srv.pipe_peer);
    pthread_mutex_unlock(&fuzz_srv.lock);
    server_free_retired(&fuzz_srv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char sentinel[64], line[160], quoted[80];

    snprintf(sentinel, sizeof(sentinel), "fuzz-sentinel-%lu", ++fuzz_n);
    snprintf(quoted, sizeof(quoted), "\"%s\"", sentinel);
    snprintf(line, sizeof(line), "\n{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}\n", quoted);
    fuzz_send(data, size);
    fuzz_send(line, strlen(line));
    if (!fuzz_capture_wait(&fuzz_cap, quoted, FUZZ_WAIT_MS)) {
        fprintf(stderr, "fuzz_input: no answer to the sentinel ping within %d ms\n", FUZZ_WAIT_MS);
        abort();
    }
    /* Calls the input started may still run (or wait for the client): cancel them all. */
    inflight_cancel_all(&fuzz_srv.inflight);
    if (!work_drain(&fuzz_srv.work, FUZZ_WAIT_MS)) {
        fprintf(stderr, "fuzz_input: calls still running %d ms after they were cancelled\n",
                FUZZ_WAIT_MS);
        abort();
    }
    fuzz_reset();
    out_flush(&fuzz_srv.out);
    fuzz_capture_sync(&fuzz_cap);
    fuzz_check_output(&fuzz_cap, sentinel);
    return 0;
}
