/*
 * audit.c: the audit log's lines, from the call that formats one to the thread that numbers,
 * chains and writes them (audit.h; the key and the MAC are audit_verify.c's).
 */
#include "served/audit.h"

#include "lib/status.h"
#include "lib/version.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const audit_outcomes[] = {
    [AUDIT_RESULT] = "result",   [AUDIT_TOOL_ERROR] = "tool_error",
    [AUDIT_ERROR] = "error",     [AUDIT_CANCELLED] = "cancelled",
    [AUDIT_TIMEOUT] = "timeout", [AUDIT_INPUT_REQUIRED] = "input_required",
    [AUDIT_REFUSED] = "refused",
};

/* A file and key to switch to (audit_reopen), handed to the writer. */
struct audit_next {
    int fd; /* -1: none waiting */
    struct audit_mac mac;
    struct audit_tail tail;
};

struct audit {
    pthread_mutex_t lock; /* guards buf, len, alloc, lost, stop, done, next; taken last */
    pthread_cond_t wake;  /* the writer waits on it */
    pthread_cond_t ended; /* done was set */
    char *buf;            /* lines waiting: bodies, each ended by '\n' */
    size_t len;
    size_t alloc;
    size_t cap;    /* the most bytes buf may hold (half of audit_buffer) */
    size_t mark;   /* past it, the writer is woken */
    uint64_t lost; /* lines lost and not yet written as a "lost" line */
    int stop;      /* audit_free asked the writer to finish */
    int done;      /* the writer finished */
    struct audit_next next;
    pthread_t thread;

    /* The writer's own. */
    int fd;
    struct audit_mac mac;
    unsigned char prev[SHA256_BYTES]; /* the last MAC written */
    int has_prev;                     /* a line was ever written (prev is meaningful) */
    uint64_t seq;                     /* the next line's number */
    int need_header;                  /* the file opened has no header yet */
    int failing;                      /* the last write failed */
    struct timespec warned;           /* when the last error line was logged */
    struct strbuf out;                /* a batch being written */
    char *spare;                      /* the buffer swapped in for buf */
    size_t spare_alloc;

    struct log log;       /* a copy of the server's, sink and tag off: the writer may outlive
                           * the server when the disk does not answer (audit_free) */
    const struct log *lg; /* &log */
    char *path;           /* owned */
    char *key_path;       /* owned */
    atomic_uint_fast64_t written;
    atomic_uint_fast64_t lost_total;
};

/* --- Formatting (any thread). --- */

/* A line formatted into a buffer of the caller's: what does not fit is counted in len but not
 * written, so that the caller can format it again with room enough. No allocation, no
 * printf: this runs on every call. */
struct audit_fmt {
    char *buf;
    size_t len;
    size_t cap;
};

static void audit_put(struct audit_fmt *f, const char *s, size_t n)
{
    if (f->len + n <= f->cap)
        memcpy(f->buf + f->len, s, n);
    f->len += n;
}

#define AUDIT_LIT(f, s) audit_put((f), (s), sizeof(s) - 1)

/* v in decimal, zero-padded to width digits at least. */
static void audit_uint(struct audit_fmt *f, unsigned long long v, int width)
{
    char digits[24];
    int n = 0;

    do {
        digits[sizeof(digits) - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 || n < width);
    audit_put(f, digits + sizeof(digits) - n, (size_t)n);
}

static void audit_int(struct audit_fmt *f, long long v)
{
    if (v < 0) {
        AUDIT_LIT(f, "-");
        audit_uint(f, 0ULL - (unsigned long long)v, 1);
    } else {
        audit_uint(f, (unsigned long long)v, 1);
    }
}

/* s as a JSON string: ", \ and control characters escaped, the rest as it is. */
static void audit_str(struct audit_fmt *f, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *run = s;

    AUDIT_LIT(f, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};

        if (*p != '"' && *p != '\\' && *p >= 0x20)
            continue;
        audit_put(f, run, (size_t)((const char *)p - run));
        if (*p < 0x20)
            audit_put(f, esc, sizeof(esc));
        else
            audit_put(f, (const char[2]){'\\', (char)*p}, 2);
        run = (const char *)p + 1;
    }
    audit_put(f, run, strlen(run));
    AUDIT_LIT(f, "\"");
}

static void audit_str_or_null(struct audit_fmt *f, const char *s)
{
    if (s == NULL)
        AUDIT_LIT(f, "null");
    else
        audit_str(f, s);
}

/* "time":"2026-01-02T03:04:05.123456Z". The date from the day number (H. Hinnant's
 * civil_from_days), not gmtime_r: glibc's takes a process-wide lock, which every call would. */
static void audit_time(struct audit_fmt *f)
{
    struct timespec ts;
    long long days, secs, era, doe, yoe, doy, mp;
    unsigned d, m;

    clock_gettime(CLOCK_REALTIME, &ts);
    days = (long long)ts.tv_sec / 86400 + 719468;
    secs = (long long)ts.tv_sec % 86400;
    era = (days >= 0 ? days : days - 146096) / 146097;
    doe = days - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    AUDIT_LIT(f, "\"time\":\"");
    audit_uint(f, (unsigned long long)(yoe + era * 400 + (m <= 2)), 4);
    AUDIT_LIT(f, "-");
    audit_uint(f, m, 2);
    AUDIT_LIT(f, "-");
    audit_uint(f, d, 2);
    AUDIT_LIT(f, "T");
    audit_uint(f, (unsigned long long)(secs / 3600), 2);
    AUDIT_LIT(f, ":");
    audit_uint(f, (unsigned long long)(secs / 60 % 60), 2);
    AUDIT_LIT(f, ":");
    audit_uint(f, (unsigned long long)(secs % 60), 2);
    AUDIT_LIT(f, ".");
    audit_uint(f, (unsigned long long)ts.tv_nsec / 1000, 6);
    AUDIT_LIT(f, "Z\"");
}

/* Compact JSON of item (as cJSON prints it) into f; *text, when not NULL, gets it too (the
 * pointer into small, or an owned copy when it did not fit: free it if it is not small). */
static size_t audit_json_text(const cJSON *item, char *small, size_t size, char **text)
{
    if (cJSON_PrintPreallocated((cJSON *)item, small, (int)size, 0)) {
        *text = small;
        return strlen(small);
    }
    *text = cJSON_PrintUnformatted(item);
    return *text ? strlen(*text) : 0;
}

/* The request id as sent: an integer or a string without cJSON's printing of doubles. */
static void audit_id(struct audit_fmt *f, const cJSON *id)
{
    char small[128], *text;
    size_t len;

    if (cJSON_IsString(id)) {
        audit_str(f, id->valuestring);
    } else if (cJSON_IsNumber(id) && audit_whole(id->valuedouble)) {
        audit_int(f, (long long)id->valuedouble);
    } else if (id == NULL) {
        AUDIT_LIT(f, "null");
    } else {
        len = audit_json_text(id, small, sizeof(small), &text);
        audit_put(f, text ? text : "null", text ? len : 4);
        if (text != small)
            cJSON_free(text);
    }
}

/* The member that opens with `lit` (,"NAME":") and holds the SHA-256 of len bytes at p. */
static void audit_digest(struct audit_fmt *f, const char *lit, size_t lit_len, const void *p,
                         size_t len)
{
    unsigned char digest[SHA256_BYTES];
    char hex[2 * SHA256_BYTES + 1];
    struct sha256 c;

    sha256_init(&c);
    sha256_update(&c, p, len);
    sha256_final(&c, digest);
    sha256_hex(digest, sizeof(digest), hex);
    audit_put(f, lit, lit_len);
    audit_put(f, hex, 2 * SHA256_BYTES);
    AUDIT_LIT(f, "\"");
}
#define AUDIT_DIGEST(f, lit, p, len) audit_digest((f), (lit), sizeof(lit) - 1, (p), (len))

/* "args_sha256":"..." (and "args" when asked): the digest of the compact JSON. */
static void audit_args(struct audit_fmt *f, const cJSON *args, int with_args)
{
    char small[1024], *text;
    size_t len;

    if (args == NULL) {
        AUDIT_LIT(f, ",\"args_sha256\":null");
        return;
    }
    len = audit_json_text(args, small, sizeof(small), &text);
    AUDIT_DIGEST(f, ",\"args_sha256\":\"", text ? text : "null", text ? len : 4);
    if (with_args) {
        AUDIT_LIT(f, ",\"args\":");
        audit_put(f, text ? text : "null", text ? len : 4);
    }
    if (text != small)
        cJSON_free(text);
}

/* "uri_sha256":"..." (and "uri" when asked): a URI read through a template, whose variables
 * may be secrets. */
static void audit_uri(struct audit_fmt *f, const char *uri, int with_args)
{
    AUDIT_DIGEST(f, ",\"uri_sha256\":\"", uri, strlen(uri));
    if (with_args) {
        AUDIT_LIT(f, ",\"uri\":");
        audit_str(f, uri);
    }
}

/* The body of a call's line: everything between {"seq":N, and ,"mac". */
static void audit_format(struct audit_fmt *f, const struct audit_entry *e)
{
    audit_time(f);
    AUDIT_LIT(f, ",\"kind\":\"call\",\"transport\":");
    if (e->principal)
        AUDIT_LIT(f, "\"http\"");
    else
        AUDIT_LIT(f, "\"stdio\"");
    AUDIT_LIT(f, ",\"principal\":");
    audit_str(f, e->principal ? e->principal : "local");
    AUDIT_LIT(f, ",\"principal_label\":");
    audit_str(f, e->principal_label ? e->principal_label : "local");
    AUDIT_LIT(f, ",\"id\":");
    audit_id(f, e->id);
    AUDIT_LIT(f, ",\"method\":");
    audit_str_or_null(f, e->method);
    AUDIT_LIT(f, ",\"target\":");
    audit_str_or_null(f, e->target);
    AUDIT_LIT(f, ",\"plugin\":");
    audit_str_or_null(f, e->plugin);
    AUDIT_LIT(f, ",\"outcome\":");
    audit_str(f, audit_outcomes[e->outcome]);
    if (e->code != 0) {
        AUDIT_LIT(f, ",\"code\":");
        audit_int(f, e->code);
    }
    if (e->why != NULL) {
        AUDIT_LIT(f, ",\"why\":");
        audit_str(f, e->why);
    }
    AUDIT_LIT(f, ",\"duration_us\":");
    if (e->duration_us >= 0)
        audit_int(f, e->duration_us);
    else
        AUDIT_LIT(f, "null");
    AUDIT_LIT(f, ",\"trace_id\":");
    audit_str_or_null(f, e->trace_id);
    if (e->uri != NULL)
        audit_uri(f, e->uri, e->with_args);
    audit_args(f, e->args, e->with_args);
}

/* Append a body to the buffer, or count it lost when the buffer is full. */
static void audit_queue(struct audit *a, const char *body, size_t len)
{
    int wake = 0;

    pthread_mutex_lock(&a->lock);
    if (a->len + len + 1 > a->alloc && a->len + len + 1 <= a->cap) {
        size_t want = a->alloc ? a->alloc : 65536;
        char *grown;

        while (want < a->len + len + 1)
            want *= 2;
        want = want < a->cap ? want : a->cap;
        grown = realloc(a->buf, want);
        if (grown != NULL) {
            a->buf = grown;
            a->alloc = want;
        }
    }
    if (a->len + len + 1 > a->alloc) {
        a->lost++;
        atomic_fetch_add_explicit(&a->lost_total, 1, memory_order_relaxed);
    } else {
        memcpy(a->buf + a->len, body, len);
        a->buf[a->len + len] = '\n';
        /* One wake as the mark is passed, not one per line. */
        wake = a->len < a->mark && a->len + len + 1 >= a->mark;
        a->len += len + 1;
    }
    pthread_mutex_unlock(&a->lock);
    if (wake)
        pthread_cond_signal(&a->wake);
}

void audit_call(struct audit *a, const struct audit_entry *e)
{
    char small[1024];
    struct audit_fmt f = {.buf = small, .cap = sizeof(small)};
    char *big = NULL;

    if (a == NULL)
        return;
    audit_format(&f, e);
    /* A long line (arguments logged, a long URI): formatted again where it fits. */
    if (f.len > f.cap && (big = malloc(f.len + 64)) != NULL) {
        f = (struct audit_fmt){.buf = big, .cap = f.len + 64};
        audit_format(&f, e);
    }
    if (f.len > f.cap) {
        pthread_mutex_lock(&a->lock);
        a->lost++;
        pthread_mutex_unlock(&a->lock);
        atomic_fetch_add_explicit(&a->lost_total, 1, memory_order_relaxed);
    } else {
        audit_queue(a, f.buf, f.len);
    }
    free(big);
}

/* --- The writer's thread. --- */

/* Chain one body into a->out as a whole line: {"seq":N,<body>,"mac":"..."}\n. */
static void audit_chain(struct audit *a, const unsigned char *from, const char *body, size_t len,
                        unsigned char *mac, uint64_t *seq)
{
    size_t start = a->out.len;
    char head[40], tail[2 * SHA256_BYTES + 16];
    struct audit_fmt f = {.buf = head, .cap = sizeof(head)};

    AUDIT_LIT(&f, "{\"seq\":");
    audit_uint(&f, (*seq)++, 1);
    AUDIT_LIT(&f, ",");
    strbuf_add(&a->out, head, f.len);
    strbuf_add(&a->out, body, len);
    if (a->out.nomem)
        return;
    audit_mac_line(&a->mac, from, a->out.buf + start, a->out.len - start, mac);
    memcpy(tail, ",\"mac\":\"", 8);
    sha256_hex(mac, SHA256_BYTES, tail + 8);
    memcpy(tail + 8 + 2 * SHA256_BYTES, "\"}\n", 3);
    strbuf_add(&a->out, tail, 8 + 2 * SHA256_BYTES + 3);
}

/* The header that opens a file: chained from zero in a new (empty) file, from the last line's
 * MAC in a file appended to. */
static void audit_header(struct audit *a, unsigned char *mac, uint64_t *seq)
{
    static const unsigned char zero[SHA256_BYTES];
    struct strbuf body = STRBUF_INIT;
    char hex[2 * SHA256_BYTES + 1], when[64];
    struct audit_fmt f = {.buf = when, .cap = sizeof(when)};

    audit_time(&f);
    strbuf_add(&body, when, f.len);
    strbuf_addf(&body, ",\"kind\":\"open\",\"version\":\"%s\",\"key_id\":\"%s\",\"pid\":%ld",
                MCPH_VERSION, a->mac.key_id, (long)getpid());
    if (a->has_prev) {
        sha256_hex(a->prev, SHA256_BYTES, hex);
        strbuf_addf(&body, ",\"prev_mac\":\"%s\"", hex);
    } else {
        strbuf_addstr(&body, ",\"prev_mac\":null");
    }
    /* Chained from the line before it, in this file or (after a rotation) the one moved
     * away, so that files kept in order verify as one; from zero only for a new log. */
    audit_chain(a, a->has_prev ? a->prev : zero, body.buf, body.len, mac, seq);
    strbuf_release(&body);
}

static int audit_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static long audit_ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* A write of lines (and of a count of lost ones) failed: its lines are lost; say so, at most every
 * AUDIT_WARN_MS. */
static void audit_failed(struct audit *a, int err, uint64_t lines, uint64_t lost)
{
    /* The lost ones were counted already; they wait to be reported again. */
    pthread_mutex_lock(&a->lock);
    a->lost += lines + lost;
    pthread_mutex_unlock(&a->lock);
    atomic_fetch_add_explicit(&a->lost_total, lines, memory_order_relaxed);
    if (a->failing && audit_ms_since(&a->warned) < AUDIT_WARN_MS)
        return;
    clock_gettime(CLOCK_MONOTONIC, &a->warned);
    a->failing = 1;
    log_msg(a->lg, LOG_ERROR, NULL,
            "audit log %s: cannot write: %s; %llu line(s) lost so far (calls go on; a line of "
            "kind \"lost\" counts them once writing works again)",
            a->path, strerror(err),
            (unsigned long long)atomic_load_explicit(&a->lost_total, memory_order_relaxed));
}

/* Chain and write one batch of bodies (and a "lost" line for lost ones), header first when
 * the file has none. On failure nothing of it counts: the chain goes on from before it. */
static void audit_write_batch(struct audit *a, const char *batch, size_t len, uint64_t lost)
{
    unsigned char mac[SHA256_BYTES], prev[SHA256_BYTES];
    uint64_t seq = a->seq, lines = lost;
    struct stat st;
    off_t size = fstat(a->fd, &st) == 0 ? st.st_size : -1;
    int err;

    memcpy(prev, a->prev, sizeof(prev));
    strbuf_reset(&a->out);
    if (a->need_header) {
        audit_header(a, mac, &seq);
        memcpy(prev, mac, sizeof(prev));
    }
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(batch + at, '\n', len - at);

        audit_chain(a, prev, batch + at, (size_t)(nl - (batch + at)), mac, &seq);
        memcpy(prev, mac, sizeof(prev));
        at = (size_t)(nl - batch) + 1;
        lines++;
    }
    if (lost > 0) {
        struct strbuf body = STRBUF_INIT;
        char when[64];
        struct audit_fmt f = {.buf = when, .cap = sizeof(when)};

        audit_time(&f);
        strbuf_add(&body, when, f.len);
        strbuf_addf(&body, ",\"kind\":\"lost\",\"count\":%llu", (unsigned long long)lost);
        audit_chain(a, prev, body.buf, body.len, mac, &seq);
        memcpy(prev, mac, sizeof(prev));
        strbuf_release(&body);
    }
    if (a->out.len == 0)
        return;
    err = a->out.nomem ? ENOMEM : audit_write_all(a->fd, a->out.buf, a->out.len);
    if (err != 0) {
        /* A line cut in the middle would break the chain for good: cut it off. */
        if (size >= 0 && ftruncate(a->fd, size) != 0) {
            /* a device such as /dev/full: nothing was written anyway */
        }
        audit_failed(a, err, lines - lost, lost);
        return;
    }
    if (a->failing)
        log_msg(a->lg, LOG_NOTICE, NULL, "audit log %s: writing again", a->path);
    a->failing = 0;
    a->need_header = 0;
    a->has_prev = 1;
    a->seq = seq;
    memcpy(a->prev, prev, sizeof(prev));
    atomic_fetch_add_explicit(&a->written, lines - lost, memory_order_relaxed);
}

/* Go on from the last line of the file just opened, when it has lines. */
static void audit_use_tail(struct audit *a, const struct audit_tail *t)
{
    if (!t->found)
        return;
    a->seq = t->seq + 1;
    memcpy(a->prev, t->mac, SHA256_BYTES);
    a->has_prev = 1;
}

/* Switch to the file and key audit_reopen prepared. */
static void audit_switch(struct audit *a, struct audit_next *next)
{
    struct strbuf why = STRBUF_INIT;

    if (next->fd < 0)
        return;
    /* Read here, on the thread that writes: when the file was not moved, lines written up to
     * now are in it (none half written), and the header goes on from the last of them. A
     * file that cannot be read, or whose end is not a whole audit line, is not switched to:
     * a header chained from zero into it would break its chain from there on. */
    if (audit_tail_read(next->fd, a->path, &next->tail, &why) != STATUS_OK) {
        log_msg(a->lg, LOG_ERROR, NULL, "audit log not reopened (the old file goes on): %s",
                why.nomem ? "out of memory" : why.buf);
        strbuf_release(&why);
        close(next->fd);
        next->fd = -1;
        memset(&next->mac, 0, sizeof(next->mac));
        return;
    }
    strbuf_release(&why);
    close(a->fd);
    a->fd = next->fd;
    a->mac = next->mac;
    a->need_header = 1;
    audit_use_tail(a, &next->tail);
    next->fd = -1;
    memset(&next->mac, 0, sizeof(next->mac));
    log_msg(a->lg, LOG_INFO, NULL, "audit log %s reopened (key %s)", a->path, a->mac.key_id);
}

static void *audit_writer(void *arg)
{
    struct audit *a = arg;
    int stopping = 0;

    while (!stopping) {
        struct audit_next next = {.fd = -1};
        struct timespec until;
        char *batch;
        size_t len, alloc;
        uint64_t lost;

        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += AUDIT_FLUSH_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&a->lock);
        if (!a->stop && a->len < a->mark)
            pthread_cond_timedwait(&a->wake, &a->lock, &until);
        batch = a->buf;
        len = a->len;
        alloc = a->alloc;
        a->buf = a->spare;
        a->alloc = a->spare_alloc;
        a->len = 0;
        lost = a->lost;
        a->lost = 0;
        next = a->next;
        a->next.fd = -1;
        stopping = a->stop;
        pthread_mutex_unlock(&a->lock);
        audit_switch(a, &next);
        if (len > 0 || lost > 0 || a->need_header)
            audit_write_batch(a, batch, len, lost);
        a->spare = batch;
        a->spare_alloc = alloc;
    }
    pthread_mutex_lock(&a->lock);
    a->done = 1;
    pthread_cond_signal(&a->ended);
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

/* --- Life. --- */

/* Open the log file (appended to, made 0600; not through a symbolic link; a regular file
 * that only its owner may write), read the key and, tail not NULL, where the file stands, into
 * fd, mac and tail. */
static int audit_open_files(const char *path, const char *key_path, int *fd, struct audit_mac *mac,
                            struct audit_tail *tail, struct strbuf *why)
{
    struct stat st;

    unsigned char key[AUDIT_KEY_MAX];
    size_t keylen = 0;
    int status = audit_key_load(key_path, 1, key, &keylen, why);

    if (status != STATUS_OK)
        return status == STATUS_NOT_FOUND ? STATUS_INVALID : status;
    audit_mac_init(mac, key, keylen);
    memset(key, 0, sizeof(key));
    *fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (*fd < 0) {
        strbuf_addf(why, "%s: cannot open the audit log: %s%s", path, strerror(errno),
                    errno == ELOOP ? " (a symbolic link: name the file itself)" : "");
        return STATUS_INVALID;
    }
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 022) != 0) {
        strbuf_addf(why,
                    "%s: the audit log must be a regular file that only its owner may write "
                    "(chmod 600)",
                    path);
        status = STATUS_INVALID;
    } else if (tail != NULL) {
        status = audit_tail_read(*fd, path, tail, why);
    }
    if (status != STATUS_OK) {
        close(*fd);
        *fd = -1;
    }
    return status;
}

static struct audit *audit_new(const char *path, const char *key_path, long long buffer,
                               const struct log *lg)
{
    struct audit *a = calloc(1, sizeof(*a));
    pthread_condattr_t attr;

    if (a == NULL)
        return NULL;
    a->path = strdup(path);
    a->key_path = key_path ? strdup(key_path) : NULL;
    if (key_path == NULL && a->path != NULL && (a->key_path = malloc(strlen(path) + 5)) != NULL)
        strcat(strcpy(a->key_path, path), ".key");
    if (a->path == NULL || a->key_path == NULL) {
        free(a->path);
        free(a->key_path);
        free(a);
        return NULL;
    }
    a->cap = (size_t)buffer / 2;
    a->mark = a->cap / 4 < 256 * 1024 ? a->cap / 4 : 256 * 1024;
    /* The writer logs through a copy: stderr only, no sink, no tag (those are the server's,
     * and a writer left to a disk that does not answer outlives it). */
    atomic_init(&a->log.level, atomic_load(&lg->level));
    atomic_init(&a->log.sink_level, LOG_OFF);
    a->log.fd = lg->fd;
    memcpy(a->log.name, lg->name, sizeof(a->log.name));
    a->lg = &a->log;
    a->fd = -1;
    a->next.fd = -1;
    a->need_header = 1;
    strbuf_init(&a->out);
    pthread_mutex_init(&a->lock, NULL);
    /* Deadlines on the monotonic clock: a change of the date moves none of them. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&a->wake, &attr);
    pthread_cond_init(&a->ended, &attr);
    pthread_condattr_destroy(&attr);
    return a;
}

static void audit_destroy(struct audit *a)
{
    if (a->fd >= 0)
        close(a->fd);
    if (a->next.fd >= 0)
        close(a->next.fd);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->wake);
    pthread_cond_destroy(&a->ended);
    strbuf_release(&a->out);
    memset(&a->mac, 0, sizeof(a->mac));
    free(a->buf);
    free(a->spare);
    free(a->path);
    free(a->key_path);
    free(a);
}

int audit_open(struct audit **out, const char *path, const char *key_path, long long buffer,
               const struct log *lg, struct strbuf *why)
{
    struct audit *a = audit_new(path, key_path, buffer, lg);
    struct audit_tail tail;
    int status;

    *out = NULL;
    if (a == NULL)
        return STATUS_NOMEM;
    status = audit_open_files(a->path, a->key_path, &a->fd, &a->mac, &tail, why);
    if (status == STATUS_OK) {
        audit_use_tail(a, &tail);
        if (pthread_create(&a->thread, NULL, audit_writer, a) != 0) {
            strbuf_addf(why, "%s: cannot start the audit log's thread", path);
            status = STATUS_IO;
        }
    }
    if (status != STATUS_OK) {
        audit_destroy(a);
        return status;
    }
    *out = a;
    return STATUS_OK;
}

int audit_reopen(struct audit *a)
{
    struct audit_next next = {.fd = -1};
    struct strbuf why = STRBUF_INIT;
    int status;

    if (a == NULL)
        return STATUS_OK;
    /* No look at the file's end here: the writer may be appending to it. audit_switch reads
     * it on the writer's thread. */
    status = audit_open_files(a->path, a->key_path, &next.fd, &next.mac, NULL, &why);
    if (status != STATUS_OK) {
        log_msg(a->lg, LOG_ERROR, NULL, "audit log not reopened (the old file goes on): %s",
                why.buf);
        strbuf_release(&why);
        return status;
    }
    pthread_mutex_lock(&a->lock);
    if (a->next.fd >= 0)
        close(a->next.fd);
    a->next = next;
    pthread_mutex_unlock(&a->lock);
    pthread_cond_signal(&a->wake);
    memset(&next.mac, 0, sizeof(next.mac));
    return STATUS_OK;
}

void audit_free(struct audit *a, int timeout_ms)
{
    struct timespec until;
    int done;

    if (a == NULL)
        return;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (timeout_ms % 1000) * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&a->lock);
    a->stop = 1;
    pthread_cond_signal(&a->wake);
    while (!a->done && pthread_cond_timedwait(&a->ended, &a->lock, &until) == 0)
        ;
    done = a->done;
    pthread_mutex_unlock(&a->lock);
    if (!done) {
        /* A disk that does not answer: the thread is left to it, and what it holds. */
        log_msg(a->lg, LOG_ERROR, NULL,
                "audit log %s: the last lines were not written within %d ms; exiting without "
                "them",
                a->path, timeout_ms);
        pthread_detach(a->thread);
        return;
    }
    pthread_join(a->thread, NULL);
    audit_destroy(a);
}

void audit_counts(struct audit *a, uint64_t *written, uint64_t *lost)
{
    *written = a ? atomic_load(&a->written) : 0;
    *lost = a ? atomic_load(&a->lost_total) : 0;
}
