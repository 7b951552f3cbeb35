/*
 * link.h: the inside of the MCP client engine, for the .c files of core/client alone (users include
 * client/client.h):
 *   serve.c     the instance: init's work once the spec is known, the handlers that forward
 *               calls, reads, gets and completions, the server's questions through the client
 *   rounds.c    questions asked through the host, and a 2026-07-28 server's input_required
 *               rounds kept with the call across the client's retries (rounds.h)
 *   rows.c      the rows defined from the server's lists, and its instructions
 *   link.c      the link's writing, its requests and their answers, parking, subscriptions
 *   link_list.c init's lists (kept for an idle server), the handshake's capabilities
 *   link_read.c the messages from the server, and reading them: by the link's thread, or lent
 *               to the call that waits (a reply then reaches its call on its own thread), a
 *               call's result kept as the text the server wrote
 *   link_run.c  the link's thread: start, handshake, reading, restarts with backoff, down
 *               after too many crashes, stops when idle; opening and closing a link
 *   spawn.c     starting the process under its keeper (no shell; it dies with mcph)
 *   remote*.c   the relay a url section's link talks to (mcph --remote; client/remote.h)
 */
#ifndef MCPH_CLIENT_LINK_H
#define MCPH_CLIENT_LINK_H

#include "client/client.h"
#include "mcph-strbuf.h"

#include <cJSON.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define MCP_PROTOCOL "2025-11-25"          /* the newest revision of the initialize handshake */
#define MCP_MODERN "2026-07-28"            /* the revision without one (server/discover) */
#define MCP_CRASHES_DOWN 5                 /* crashes in a row before the section is down */
#define MCP_UPTIME_RESET_MS 60000          /* up this long, the crash count starts again */
#define MCP_BACKOFF_FIRST_MS 250           /* the first restart waits this long, then doubles */
#define MCP_BACKOFF_MAX_MS 16000           /* ... up to this */
#define MCP_STOP_GRACE_MS 1000             /* after closing its stdin, before SIGKILL */
#define MCP_LINE_MAX (48u * 1024u * 1024u) /* one line from the server */
#define MCP_READ_KEEP (1024u * 1024u)      /* a larger read buffer is not kept for the next */
#define MCP_PARK_MS 600000                 /* a parked call waits this long for its client */
#define MCP_TICK_MS 50                     /* a waiting call looks at its cancellation this often */
#define MCP_WRITE_MS 30000                 /* stdin not read this long: the server is hung */
#define MCP_OUT_MAX (64u * 1024u * 1024u)  /* bytes waiting for its stdin: past it, hung */
#define MCP_CALL_ASKS_MAX 100  /* the server's questions passed on in one call; more: refused */
#define MCP_LINK_ASKS_MAX 256  /* the server's questions waiting for their calls; more: refused */
#define MCP_PARKED_MAX 256     /* calls parked for their clients' answers, per server */
#define MCP_LIST_STALL_MS 1000 /* init's lists give up on a stdin not read */
#define MCP_LEND_MS 20         /* reading lent to calls: the link's thread looks this often */

/* What messages call the process of spec: "server 'x' ..." or "plugin 'x' ...". */
static inline const char *mcp_noun(const struct mcp_spec *spec)
{
    return spec->noun != NULL ? spec->noun : "server";
}

/* Whether a and b start the same server (their descriptors are not compared). */
int mcp_spec_same(const struct mcp_spec *a, const struct mcp_spec *b);

/* Start argv in cwd with envp, its stdin and stdout on pipes, in a process group of its own,
 * under a keeper (spawn.c) that dies with the calling thread (PR_SET_PDEATHSIG) and takes the
 * process's whole tree with it when either ends, and ends as the process did. On success
 * *pid (the keeper's: wait for it, signal its group), *to (its stdin) and *from (its stdout)
 * are set, and its stderr lines go to mcph's tagged with spec->tag (spec->tail reads them);
 * else why says what failed. */
int mcp_spawn(struct mcp_spec *spec, pid_t *pid, int *to, int *from, struct mcph_strbuf *why);

/* 0 when the keeper of mcp_spawn can hold the process's tree (PR_SET_CHILD_SUBREAPER), else
 * the errno that refused it: what the process starts may then outlive it, and max_procs and
 * max_cpu_s count the process alone. Starts a probe (vfork). */
int mcp_keeper_support(void);

/* How a process ended, from its wait status: "exited with status 3", "killed by SIGSEGV". */
void mcp_describe_end(int wstatus, char *buf, size_t n);

enum mcp_state {
    MCP_STARTING,   /* the first start, until the handshake ends */
    MCP_UP,         /* serving */
    MCP_RESTARTING, /* it ended; waiting out the backoff, or starting again */
    MCP_DOWN,       /* MCP_CRASHES_DOWN crashes in a row: down until a reload */
    MCP_STOPPED,    /* stopped, or the first start failed */
    MCP_IDLE,       /* spec.idle_stop_s idle: stopped (or stopping) until a request needs it */
};

/* A page of one of the server's lists as last answered, kept with spec.idle_stop_s so that a
 * rebuild while the server is idle (a reload that keeps the section) lists it without starting
 * it: only a page of the last process started, which may serve other rows than the one before. */
struct mcp_listed {
    struct mcp_listed *next;
    char *key;     /* owned: the method, a newline, the cursor ("" for the first page) */
    cJSON *result; /* owned */
    uint64_t gen;  /* the process that answered it */
};

/* Something that reached a call while it waited: a progress notification for it, or a
 * request of the server's (sampling, elicitation, roots) to answer through its client. */
struct mcp_event {
    struct mcp_event *next;
    cJSON *msg; /* owned */
};

/* A question of the server's passed to the client, kept for a call that parks (see serve.c). */
struct mcp_asked {
    char *method;
    char *params; /* JSON text, or NULL */
};

/* Bytes waiting for the server's stdin, which is non-blocking: a server that stops reading
 * holds up nobody (link.c). */
struct mcp_out {
    struct mcp_out *next;
    char *text; /* owned */
    size_t len, off;
};

/* One request sent to the server, waiting for its answer. */
struct mcp_pending {
    struct mcp_pending *next;
    int64_t id;
    uint64_t gen;             /* the server process it went to */
    int asks;                 /* the server's questions may be routed to it */
    struct timespec deadline; /* CLOCK_MONOTONIC; zero: none (its waiter's own) */
    struct timespec sent;     /* CLOCK_MONOTONIC: when it went (spec.call_timeout_ms) */
    cJSON *reply;             /* owned: the response, or NULL */
    int raw_ok;               /* its result may come as text (a call's: serve.c reads it) */
    char *raw;                /* owned: the result's text as the server wrote it, or NULL
                               * (then reply is an empty object: link_read.c) */
    char *failure;            /* owned: why no response will come, or NULL */
    struct mcp_event *events, **tail;
    /* Parked: its call was asked to come back with the client's answer (2026-07-28). */
    int parked;
    char *park_key;           /* owned: what identifies the call that comes back */
    struct timespec park_end; /* dropped after this */
    struct mcp_asked *asked;  /* the questions passed on so far, in order */
    size_t nasked;
    size_t answered;  /* of them, answered to the server */
    size_t asked_now; /* of them, asked (again) in this run of the call's handler */
    int questions;    /* the server's questions routed to it, all told (lock) */
    int queued;       /* of them, in events and not taken yet (lock) */
    cJSON *open_id;   /* owned: the id of the server's question not answered yet */
};

struct mcp_link {
    pthread_mutex_t lock;
    pthread_cond_t cond;            /* state, replies and events changed */
    pthread_mutex_t wlock;          /* to and out; held across non-blocking write()s only */
    pthread_mutex_t hlock;          /* held while host is used from the link's thread */
    int refs;                       /* instances holding the link (lock) */
    const struct mcph_host *host;   /* the newest instance attached, or NULL (hlock) */
    const struct mcph_host **hosts; /* every instance attached, oldest first (hlock) */
    size_t nhosts;
    struct mcp_spec spec;
    enum mcp_state state;
    uint64_t gen;                    /* counts processes started */
    pid_t pid;                       /* the server, or 0 */
    int to, from;                    /* its stdin (O_NONBLOCK) and stdout, or -1 */
    struct mcp_out *out, **out_tail; /* what waits to be written to to, oldest first (wlock) */
    size_t out_bytes;                /* of it (wlock) */
    struct timespec out_since;       /* when out last moved, or became non-empty (wlock) */
    int out_dead;                    /* this process is hung: writes fail at once (wlock) */
    int wake[2];                     /* wakes the link's thread (stop, retry) */
    pthread_t thread;
    int64_t next_id;
    int64_t init_id;   /* server/discover's or initialize's id while the handshake runs */
    int discovering;   /* init_id is server/discover's */
    int modern;        /* the server speaks MCP_MODERN: _meta on every request, no session */
    int64_t listen_id; /* the open subscriptions/listen request (modern), or 0 */
    struct mcp_pending *pending;
    size_t nparked;     /* of them, parked */
    cJSON *init_result; /* owned: the server's InitializeResult, once up */
    int crashes;        /* in a row */
    struct timespec up_since;
    char ended[192];           /* how the last process ended, or why it could not start */
    int timed_out;             /* the process was killed for spec.call_timeout_ms */
    int config_exited;         /* the last process exited with spec.config_exit (lock) */
    char stop_end[96];         /* how the process ended when asked to stop, if not as asked */
    int stop;                  /* asked to stop */
    int retry;                 /* down: asked to try again */
    int demand;                /* idle: a request (or a subscription) needs the server again */
    struct timespec last_use;  /* a request was sent or ended, or a subscription changed */
    struct mcp_listed *listed; /* the lists' pages, served to a rebuild while idle (lock) */
    char **subs;               /* the URIs subscribed at the server */
    size_t nsubs;
    unsigned noise;  /* lines from the server that are not JSON-RPC */
    char *meta_text; /* owned: a MCP_MODERN request's _meta members as text, or NULL (lock) */
    /* Reading the server's stdout, lent to the calls that wait (link_read.c): while lent, the
     * link's thread leaves `from` to the waiting call that leads (reading), so that a reply
     * reaches its call on the thread that waits for it, with no hand-off between threads. */
    int lent;                /* the link's thread lent reading to the calls (lock) */
    int reading;             /* a call reads `from` now (lock) */
    int lend_used;           /* a call read since the link's thread last looked (lock) */
    int want_lend;           /* a call waits and would read (lock) */
    int read_end;            /* a call read the end of `from`, or a line too long (lock) */
    int give_back;           /* a call read a line that is not a reply: the link's thread
                              * takes reading back and handles it (lock) */
    struct mcph_strbuf rbuf; /* what was read and is not a whole line yet (the reader's) */
    size_t rscan;            /* how far rbuf is known to hold no newline */
};

/* Start the server and wait for its handshake (spec's startup_ms). Returns a link with one
 * reference, or NULL after logging why, with *rc MCPH_ERR_INVALID when the process exited
 * with spec->config_exit (its section is wrong), else MCPH_ERR. Main thread. */
struct mcp_link *mcp_link_open(const struct mcph_host *host, struct mcp_spec *spec, int *rc);
void mcp_link_ref(struct mcp_link *l);
/* Drop a reference; the last one stops the server (stdin closed, then SIGTERM to its
 * group, SIGKILL after MCP_STOP_GRACE_MS) and joins the thread, and logs through host (when
 * not NULL) a server that crashed or failed while it stopped. */
void mcp_link_unref(struct mcp_link *l, const struct mcph_host *host);
/* An instance that serves the link (opened it, or took it over) attaches its host, and
 * detaches it at its shutdown; the server's notifications go to the newest one attached.
 * An instance that took over may be shut down before the one it replaced (a reload refused
 * after its init), so each keeps its place. */
int mcp_link_attach(struct mcp_link *l, const struct mcph_host *host);
void mcp_link_detach(struct mcp_link *l, const struct mcph_host *host);
/* Whether the link keeps trying (spec.keep_trying) a server that does not answer yet: its
 * instance serves no rows until it does (its restart's handshake then asks for a rebuild). */
int mcp_link_waiting(struct mcp_link *l);
/* A down link starts again (a reload took it over). */
void mcp_link_retry(struct mcp_link *l);

/* Send a request. params is consumed. Waits while the server (re)starts, at most the
 * start-up deadline. Returns the pending request, or NULL with why set. */
struct mcp_pending *mcp_link_send(struct mcp_link *l, const char *method, cJSON *params, int asks,
                                  struct mcph_strbuf *why);
enum mcp_wait {
    MCP_WAIT_REPLY,     /* p->reply is set */
    MCP_WAIT_EVENT,     /* *ev is an event, the caller's now */
    MCP_WAIT_FAILED,    /* p->failure says why */
    MCP_WAIT_CANCELLED, /* the client cancelled the call */
    MCP_WAIT_TIMEOUT,   /* p->deadline passed */
};
enum mcp_wait mcp_link_wait(struct mcp_link *l, struct mcp_pending *p, const struct mcph_host *host,
                            struct mcph_call *call, struct mcp_event **ev);
/* Forget a request (answered, failed, or cancelled: then the server is told). */
void mcp_link_done(struct mcp_link *l, struct mcp_pending *p, int cancel);
/* Park p until a call with key comes back (key is taken over; NULL keeps p's own): MCPH_OK,
 * or MCPH_ERR_LIMIT with MCP_PARKED_MAX parked already (key is freed, p is not parked);
 * whether anything is parked; take a parked request with key (or NULL), dropping the
 * expired. */
int mcp_link_park(struct mcp_link *l, struct mcp_pending *p, char *key);
int mcp_link_parked(struct mcp_link *l);
struct mcp_pending *mcp_link_unpark(struct mcp_link *l, const char *key);
/* Whether the server speaks MCP_MODERN. */
int mcp_link_modern(struct mcp_link *l);
/* Answer a request of the server's: result (consumed) or an error. */
void mcp_link_respond(struct mcp_link *l, const cJSON *id, cJSON *result, int code,
                      const char *message);
void mcp_link_notify(struct mcp_link *l, const char *method, cJSON *params);
/* A request answered at once, for init's lists: the result (owned by the caller) or NULL.
 * With spec.idle_stop_s an idle server is not started for a page it answered before. */
cJSON *mcp_link_request(struct mcp_link *l, const char *method, cJSON *params,
                        struct mcph_strbuf *why);
/* The _meta every request carries to a MCP_MODERN server (added to params), else nothing. */
void mcp_link_request_meta(struct mcp_link *l, cJSON *params);
/* A copy of the server's capabilities (owned by the caller). */
cJSON *mcp_link_capabilities(struct mcp_link *l);
/* A copy of member `name` of the server's answer to initialize or server/discover (owned by
 * the caller), or NULL when it has none. */
cJSON *mcp_link_hello(struct mcp_link *l, const char *name);
/* Follow or stop following uri at the server (resources/subscribe, unsubscribe; or, for a
 * MCP_MODERN server, a new subscriptions/listen with the URIs followed). */
void mcp_link_subscribe(struct mcp_link *l, const char *uri, int on);

void mcp_event_free(struct mcp_event *ev);

/* cJSON cuts a string at a \u0000 escape ("nul\u0000byte" reads as "nul"). A message whose
 * text held one gets MCP_JSON_CUT in the type of each node whose member name or string was
 * cut, and of every node that contains one (cJSON ignores the bit; cJSON_Duplicate keeps
 * it), so that what reads it can refuse such text rather than pass it on cut. */
#define MCP_JSON_CUT (1 << 14)
void mcp_json_mark_cut(cJSON *msg, const char *line, size_t len);

/* The state of an instance served by the engine (serve.c). */
struct mcp {
    const struct mcph_host *host;
    struct mcp_link *link;
    int subscribe; /* the server takes resources/subscribe */
};

/* --- Between the engine's files. --- */

/* link.c: clocks (CLOCK_MONOTONIC) and the link's condition. */
void link_now(struct timespec *ts);
int64_t link_ms_since(const struct timespec *t);
void link_after(struct timespec *ts, int64_t ms);
int link_timedwait(struct mcp_link *l, const struct timespec *ts);
/* How long what waits for the server's stdin has not moved, in ms (0: nothing waits). */
int64_t link_stalled_ms(struct mcp_link *l);
void link_wake(struct mcp_link *l);
/* link.c: writing to the server's stdin (wlock). */
int link_write_ms(const struct mcp_link *l);
void link_out_free(struct mcp_link *l);
void link_hung(struct mcp_link *l, const char *why);
int link_flush(struct mcp_link *l);
int link_write(struct mcp_link *l, const cJSON *msg);
int64_t link_fire(struct mcp_link *l, const char *method, cJSON *params);
/* link.c: the requests waiting for their answers (lock held). */
struct mcp_pending *link_find(struct mcp_link *l, int64_t id);
void link_pending_free(struct mcp_pending *p);
void link_push_event(struct mcp_link *l, struct mcp_pending *p, cJSON *msg);
void link_fail_all(struct mcp_link *l, uint64_t gen, const char *why);
/* link.c: the lists kept for an idle server, freed when the link is. */
void link_listed_free(struct mcp_link *l);
/* link.c: the host, from the link's thread. */
void link_log(struct mcp_link *l, enum mcph_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void link_alert(struct mcp_link *l, const char *text);
/* link_read.c: one line the server wrote, handled; 0 when a call reads (lent) and it is not a
 * reply: left for the link's thread. */
int link_on_line(struct mcp_link *l, const char *line, size_t len, int lent);
/* link_read.c: reading `from` (whoever reads it: the link's thread, or a call it was lent to).
 * link_read_in reads what poll said is there into rbuf and hands each whole line to
 * link_on_line: 1 when it read, 0 when interrupted, -1 at the end (EOF, an error, a line
 * longer than MCP_LINE_MAX: l->ended says). Only the thread that holds reading calls it. A call
 * it was lent to (lent) handles replies only: at the first other line it stops, leaves the
 * rest in rbuf and gives reading back (give_back). */
int link_read_in(struct mcp_link *l, int lent);
/* The link's thread, holding reading again: the whole lines a call left in rbuf (a message
 * that is not a reply, which a call does not handle: it would speak in that call's name). */
void link_read_left(struct mcp_link *l);
/* link_read.c, the link's thread: whether reading is lent (1: poll `from` not, and look again
 * within *timeout, shortened), the link's thread's own (0), or a call read the end (-1).
 * A call that waits has it lent; the link's thread takes it back when no call read for
 * MCP_LEND_MS (a server's messages between calls wait up to about twice that long). */
int link_lend(struct mcp_link *l, int *timeout);
/* link_read.c, the link's thread leaving its read loop: reading taken back (it waits for a
 * call that reads to stop), rbuf emptied for the next process. */
void link_lend_end(struct mcp_link *l);
/* link_read.c, a waiting call (lock held, released while it reads): read `from` for at most
 * ms if reading is lent and nobody reads; 1 when it led, 0 when it did not (then wait). */
int link_lead(struct mcp_link *l, int ms);
/* link_run.c: the handshake's first request, and a MCP_MODERN server's subscriptions. */
int link_send_initialize(struct mcp_link *l);
void link_listen(struct mcp_link *l);
/* rows.c: the rows of the server's lists, and its instructions. */
int mcp_define_all(struct mcp *m);
void mcp_instructions(struct mcp *m);
/* serve.c: the handlers of the rows. */
int mcp_call_tool(const struct mcph_host *host, void *state, struct mcph_call *call);
int mcp_get(const struct mcph_host *host, void *state, struct mcph_call *call);
int mcp_read(const struct mcph_host *host, void *state, struct mcph_call *call);
int mcp_complete_prompt(const struct mcph_host *host, void *state, struct mcph_call *call);
int mcp_complete_template(const struct mcph_host *host, void *state, struct mcph_call *call);

#endif
