#include "log.h"

#include "limits.h"
#include "nowait.h"
#include "status.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const log_names[] = {
    [LOG_DEBUG] = "debug",     [LOG_INFO] = "info",           [LOG_NOTICE] = "notice",
    [LOG_WARNING] = "warning", [LOG_ERROR] = "error",         [LOG_CRITICAL] = "critical",
    [LOG_ALERT] = "alert",     [LOG_EMERGENCY] = "emergency",
};

void log_init(struct log *lg)
{
    atomic_init(&lg->level, LOG_INFO);
    lg->fd = 2;
    lg->sink = NULL;
    lg->sink_ctx = NULL;
    lg->sink_wants = NULL;
    atomic_init(&lg->sink_level, LOG_OFF);
    snprintf(lg->name, sizeof(lg->name), "mcph");
}

int log_level_parse(const char *name, int *level)
{
    for (int i = LOG_DEBUG; i <= LOG_EMERGENCY; i++) {
        if (strcmp(name, log_names[i]) == 0) {
            *level = i;
            return STATUS_OK;
        }
    }
    if (strcmp(name, "warn") == 0) {
        *level = LOG_WARNING;
        return STATUS_OK;
    }
    return STATUS_INVALID;
}

const char *log_level_name(int level)
{
    if (level < LOG_DEBUG || level > LOG_EMERGENCY)
        return "unknown";
    return log_names[level];
}

int log_sink_wants(const struct log *lg, int level)
{
    if (lg->sink == NULL)
        return 0;
    if (lg->sink_wants != NULL)
        return lg->sink_wants(lg->sink_ctx, level);
    return level >= atomic_load(&lg->sink_level);
}

void log_vmsg(const struct log *lg, int level, const char *who, const char *fmt, va_list ap)
{
    char line[LIMIT_LOG_LINE];
    int to_sink = log_sink_wants(lg, level);
    int n;
    size_t len, start;

    if (level < atomic_load(&lg->level) && !to_sink)
        return;
    if (who != NULL)
        n = snprintf(line, sizeof(line), "%s: %s: %s: ", lg->name, log_level_name(level), who);
    else
        n = snprintf(line, sizeof(line), "%s: %s: ", lg->name, log_level_name(level));
    if (n < 0)
        return;
    start = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    n = vsnprintf(line + start, sizeof(line) - start, fmt, ap);
    if (n < 0)
        return;
    len = start + (size_t)n;
    /* The newline needs one byte: a message that fills the rest fits whole. */
    if (len > sizeof(line) - 1) {
        /* Cut, and say so, rather than lose the newline. */
        len = sizeof(line) - 5;
        memcpy(line + len, "...", 3);
        len += 3;
    }
    line[len] = '\0';
    if (to_sink)
        lg->sink(lg->sink_ctx, level, who, line + start);
    if (level < atomic_load(&lg->level))
        return;
    line[len++] = '\n';
    /* One write: lines from several threads never interleave. It never waits for a reader
     * (a client that stopped reading stderr loses lines, not mcph); errors on stderr have
     * nowhere to go. */
    if (nowait_write(lg->fd, line, len) < 0)
        return;
}

void log_msg(const struct log *lg, int level, const char *who, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(lg, level, who, fmt, ap);
    va_end(ap);
}
