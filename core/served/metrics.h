/*
 * metrics.h: the counters [server] metrics_path shows (Prometheus text format 0.0.4), and the
 * readiness a load balancer probes ([server] ready_path).
 *
 * The call path pays little: a server without metrics_path has no struct metrics (srv->metrics
 * is NULL) and every hook is a NULL check; with it, a call finds its series in a hash table
 * read without a lock (series are only ever added, under the table's lock, and published with
 * one atomic store) and counts with relaxed atomic adds. Series are bounded: past
 * LIMIT_METRICS_SERIES (plugin, tool) pairs or LIMIT_METRICS_PLUGINS plugins, calls count in one
 * series whose labels are "(other)". What is read at scrape time (plugin states, readiness)
 * takes the state lock only to take a reference on the set served. The table's own lock is
 * taken last (a call begins under the state lock) and nothing is taken while it is held.
 *
 * The series (docs/http.md, "Metrics and health"):
 *   mcph_up, mcph_build_info{version}
 *   mcph_calls_total{plugin,tool,outcome}            tools/call, as answered
 *   mcph_call_duration_seconds{plugin,tool}          tools/call, submitted to answered
 *   mcph_plugin_calls_total{plugin,method,outcome}   every call of plugin code, by method
 *   mcph_plugin_call_duration_seconds{plugin}        the same, timed
 *   mcph_requests_in_flight                          calls queued or running
 *   mcph_http_rejected_total{reason}                 HTTP refusals, by status
 *   mcph_plugin_state{plugin,state}                  up, restarting, down, idle (1: current)
 *   mcph_reloads_total{result}                       ok, failed
 * The transport adds mcph_sessions and mcph_streams (transport/http_metrics.c).
 */
#ifndef MCPH_METRICS_H
#define MCPH_METRICS_H

#include "lib/strbuf.h"
#include "served/server.h"

#include <stdint.h>

/* How a call ended, as mcph_calls_total's outcome label says it. */
enum metrics_outcome {
    METRICS_OK,             /* a result */
    METRICS_TOOL_ERROR,     /* a result marked isError (a crash of an isolated plugin too) */
    METRICS_ERROR,          /* a JSON-RPC error: the plugin failed, or its result was wrong */
    METRICS_CANCELLED,      /* cancelled (by the client, a client gone, or shutting down) */
    METRICS_TIMEOUT,        /* the handler gave up waiting for the client (MCPH_ERR_TIMEOUT) */
    METRICS_INPUT_REQUIRED, /* 2026-07-28: answered with questions for a retry */
    METRICS_OUTCOMES
};

struct metrics_tool;
struct metrics_plugin;

/* One call being metered: filled by metrics_call_begin, ended by metrics_call_end. Lives in
 * the call's job; all zero (and so ignored) when metrics are off. */
struct metrics_call {
    struct metrics_tool *tool;     /* borrowed from struct metrics, or NULL (not tools/call) */
    struct metrics_plugin *plugin; /* borrowed from struct metrics, or NULL (metrics off) */
    uint64_t began;                /* CLOCK_MONOTONIC, ns */
    int method;                    /* enum result_kind */
    int outcome;                   /* enum metrics_outcome, set by the caller before the end */
};

/* A new set of counters (owned: metrics_free), or NULL when out of memory. */
struct metrics *metrics_new(void);

/* Free m. NULL is fine. After every call ended. */
void metrics_free(struct metrics *m);

/* A call of kind (enum result_kind) of instance plugin, named name (a tool's exposed name;
 * borrowed, copied when its series is new), starts: counted in flight, its series found or
 * made, the clock read. Its outcome starts as METRICS_CANCELLED. m NULL: mc is left zero. Any
 * thread. */
void metrics_call_begin(struct metrics *m, struct metrics_call *mc, const char *plugin, int kind,
                        const char *name);

/* The call was answered (or dropped) with mc->outcome: counted and timed. m NULL, or mc
 * never begun: nothing. Any thread. */
void metrics_call_end(struct metrics *m, struct metrics_call *mc);

/* The outcome of a handler's non-MCPH_OK status rc. */
int metrics_outcome_of(int rc);

/* The HTTP transport refused a request with status (400 or more). m NULL: nothing. Any
 * thread. */
void metrics_reject(struct metrics *m, unsigned status);

/* A reload ended: ok 1 when it served, 0 when it was refused. m NULL: nothing. */
void metrics_reload(struct metrics *m, int ok);

/* The Prometheus text of every series above into sb (m NULL: only mcph_up and
 * mcph_build_info, and the plugin states). Takes srv->lock briefly (the set served). Any
 * thread not holding it. */
void metrics_write(struct metrics *m, struct server *srv, struct strbuf *sb);

/* Whether srv is ready: at least one plugin serves rows and is up (or idle, started when a
 * request needs it). 1, or 0 with why (static text). Any thread not holding srv->lock. */
int metrics_ready(struct server *srv, const char **why);

/* Append a label value to sb, escaped as the text format wants (\\, \", \n). */
void metrics_label(struct strbuf *sb, const char *value);

#endif
