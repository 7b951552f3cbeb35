/*
 * log.h: diagnostics on stderr. One write() per message, so lines from several threads
 * never interleave. stdout is never touched: it belongs to the protocol.
 */
#ifndef MCPH_LOG_H
#define MCPH_LOG_H

#include "lib/limits.h"

#include <stdarg.h>
#include <stdatomic.h>

/* The MCP (syslog) levels, in the order of enum mcph_log_level. */
enum log_level {
    LOG_DEBUG = 0,
    LOG_INFO,
    LOG_NOTICE,
    LOG_WARNING,
    LOG_ERROR,
    LOG_CRITICAL,
    LOG_ALERT,
    LOG_EMERGENCY,
};

/* Where messages go besides stderr (the client's notifications/message). Any thread. */
typedef void (*log_sink_fn)(void *ctx, int level, const char *who, const char *text);

/* No message reaches the sink: above every level. */
#define LOG_OFF (LOG_EMERGENCY + 1)

struct log {
    atomic_int level; /* stderr gets messages at or above it; main thread sets it, any
                       * thread reads it (plugins' own threads log through the host) */
    int fd;           /* where lines go (stderr's descriptor) */
    log_sink_fn sink; /* NULL, or set before any plugin loads (plugins may start threads
                       * that log); turned off with sink_level = LOG_OFF, never unset */
    void *sink_ctx;   /* borrowed: handed to sink */
    /* NULL, or decides instead of sink_level whether the sink wants a message. */
    int (*sink_wants)(void *ctx, int level);
    atomic_int sink_level; /* the sink gets messages at or above it; LOG_OFF for none */
    /* NULL, or what the calling thread's stderr lines end with (after a space): a text
     * naming the work it does (a call's "trace=ID"), or NULL for none, lent until the line
     * is written. Handed sink_ctx; set before any plugin loads, never unset. Any thread. */
    const char *(*tag)(void *ctx);
    char name[LIMIT_ID + 8]; /* starts each line: "mcph", or "mcph[ID]" in an isolated
                              * plugin's process */
};

/* Set up with level info on fd 2, no sink. */
void log_init(struct log *lg);

/* The level named by `name` ("debug" ... "emergency", "warn" too) into *level. Returns 0 or
 * STATUS_INVALID. */
int log_level_parse(const char *name, int *level);

/* The name of a level ("info"). Static; "unknown" for an invalid level. */
const char *log_level_name(int level);

/* Whether a message at `level` goes to the sink: there is one, and its filter (sink_wants,
 * else sink_level) admits the level. Any thread. */
int log_sink_wants(const struct log *lg, int level);

/* Write "mcph: LEVEL: [who: ]message[ TAG]\n" to stderr if level passes lg->level (TAG:
 * lg->tag's, when it gives one), and hand the message to the sink if it passes sink_level.
 * `who` may be NULL. Any thread. */
void log_msg(const struct log *lg, int level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void log_vmsg(const struct log *lg, int level, const char *who, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
