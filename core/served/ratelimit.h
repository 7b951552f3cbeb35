/*
 * ratelimit.h: token buckets, one table per server (srv->rates): the rate of HTTP requests per
 * principal ([server] rate) and of tools/call per [limit.NAME] section. A bucket is named by
 * its kind, its section and whose it is; it holds up to `burst` tokens and gains `rate` a
 * second (CLOCK_MONOTONIC); a request takes one, or is told how long until one is there.
 *
 * The rate and burst are given with every take, not kept from the first: a reload that changes
 * a limit applies at the next request (a bucket gains at the rate given since it was last
 * used, and holds no more than the burst given), and the buckets of a section a reload removed are
 * never asked for again (they age out of the table).
 *
 * The table is bounded (its cap, LIMIT_RATE_BUCKETS in the server): past it, the bucket used
 * least recently goes. A bucket that is not there is full, so an eviction can only let more
 * through, never less: with more principals active at once than the cap, limits are lenient.
 *
 * Its own mutex, held only inside these calls (never across I/O): any thread.
 */
#ifndef MCPH_RATELIMIT_H
#define MCPH_RATELIMIT_H

#include "config/config.h"
#include "lib/log.h"

#include <stddef.h>

enum ratelimit_kind {
    RATELIMIT_REQUESTS = 1, /* [server] rate: HTTP requests of one principal */
    RATELIMIT_TOOL,         /* [limit.NAME]: calls of the tools it names */
};

/* One bucket asked for a token. The caller fills the first five members. */
struct ratelimit_ask {
    int kind;            /* enum ratelimit_kind */
    const char *section; /* borrowed: the NAME of [limit.NAME], or "" */
    const char *who;     /* borrowed: whose bucket (a principal's id, a client's address), or
                          * "" for one bucket shared by all */
    double rate;         /* tokens a second, > 0 */
    int burst;           /* the bucket's size, >= 1 */
    /* Set by ratelimit_take when it refuses: */
    long retry_ms;         /* how long until this bucket holds a token (0: it holds one) */
    int log;               /* this bucket's refusals are due a log line (one per log_ms) */
    unsigned long refused; /* with log: refusals since its last line, this one included */
};

/* The clock, in nanoseconds (monotonic); ctx is the one given to ratelimit_new. */
typedef long long (*ratelimit_clock_fn)(void *ctx);

/* A table of at most cap buckets (>= 1), reading the time from clock (NULL: CLOCK_MONOTONIC;
 * tests give their own, with ctx), and allowing one log line per bucket every log_ms. Owned:
 * ratelimit_free. NULL when out of memory. */
struct ratelimit *ratelimit_new(size_t cap, long log_ms, ratelimit_clock_fn clock, void *ctx);

/* Free the table. NULL is fine. */
void ratelimit_free(struct ratelimit *rl);

/* One token from each of the n buckets asks names, or none: STATUS_OK when every bucket held
 * one (each gave it); STATUS_LIMIT when one or more did not (no token was taken), with
 * *retry_ms the longest wait among them (at least 1), and each ask's retry_ms, log and refused
 * set. n 0 is STATUS_OK. rl NULL admits everything. Any thread. */
int ratelimit_take(struct ratelimit *rl, struct ratelimit_ask *asks, size_t n, long *retry_ms)
    __attribute__((warn_unused_result));

/* How many buckets the table holds now. Any thread. */
size_t ratelimit_count(struct ratelimit *rl);

/* A call of tool (the name clients see) by principal who (its id; NULL: the pipe's local
 * user; label names it in logs) against the [limit.NAME] sections of cfg whose tools keep it:
 * STATUS_OK with a token taken from each (none match: nothing taken), or STATUS_LIMIT when one
 * is past its rate, nothing taken, *retry_ms how long until every one admits, and msg (size
 * bytes) the JSON-RPC error's message, "Rate limit exceeded: ...". A refusal is logged to lg
 * at warning level at most once per bucket every LIMIT_RATE_LOG_MS. Out of memory admits. The
 * dispatching thread, under the state lock (cfg). */
int ratelimit_tool(struct ratelimit *rl, const struct config *cfg, const struct log *lg,
                   const char *tool, const char *who, const char *label, long *retry_ms, char *msg,
                   size_t size) __attribute__((warn_unused_result));

/* The bucket size of a rate: burst when set (> 0), else the rate's N. */
int ratelimit_burst(const struct config_rate *rate, int burst);

/* Whole seconds to wait for retry_ms, rounded up, at least 1: a Retry-After value. */
long ratelimit_seconds(long retry_ms);

#endif
