#include "lib/log.h"

#include "lib/limits.h"
#include "lib/nowait.h"
#include "lib/status.h"

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
    lg->tag = NULL;
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

/* Append msg to line (len so far, at most cap - 1 bytes in all) with every control character
 * written as an escape: \n, \r, \t stay readable, the rest are \xNN (C0, DEL) or \u00NN (the
 * C1 controls, U+0080-U+009F, in UTF-8). Text from outside (an upstream's tool name, a
 * child's line) then never starts a line of its own nor drives the terminal. Returns the new
 * length; *cut is set when msg did not fit whole. */
static size_t log_escape(char *line, size_t len, size_t cap, const char *msg, int *cut)
{
    for (const unsigned char *p = (const unsigned char *)msg; *p != '\0'; p++) {
        char esc[8];
        size_t n;

        if (*p == '\n' || *p == '\r' || *p == '\t')
            n = (size_t)snprintf(esc, sizeof(esc), "\\%c",
                                 *p == '\n'   ? 'n'
                                 : *p == '\r' ? 'r'
                                              : 't');
        else if (*p < 0x20 || *p == 0x7f)
            n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *p);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            n = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", *++p);
        else {
            esc[0] = (char)*p;
            n = 1;
        }
        if (len + n > cap - 1) {
            *cut = 1;
            return len;
        }
        memcpy(line + len, esc, n);
        len += n;
    }
    return len;
}

/* The thread's tag after the message, room made for it at the message's end (it names the
 * work the line is about, so it is kept whole). Returns the new length (room left for the
 * newline). */
static size_t log_add_tag(const struct log *lg, char *line, size_t len, size_t cap)
{
    const char *tag = lg->tag != NULL ? lg->tag(lg->sink_ctx) : NULL;
    size_t n = tag != NULL ? strlen(tag) : 0;

    if (n == 0 || n + 3 > cap)
        return len;
    if (len + 1 + n > cap - 1)
        len = cap - 1 - 1 - n;
    line[len] = ' ';
    memcpy(line + len + 1, tag, n);
    return len + 1 + n;
}

void log_vmsg(const struct log *lg, int level, const char *who, const char *fmt, va_list ap)
{
    char line[LIMIT_LOG_LINE], msg[LIMIT_LOG_LINE];
    int to_sink = log_sink_wants(lg, level);
    int n;
    size_t len, start;
    int cut = 0;

    if (level < atomic_load(&lg->level) && !to_sink)
        return;
    if (who != NULL)
        n = snprintf(line, sizeof(line), "%s: %s: %s: ", lg->name, log_level_name(level), who);
    else
        n = snprintf(line, sizeof(line), "%s: %s: ", lg->name, log_level_name(level));
    if (n < 0)
        return;
    start = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    n = vsnprintf(msg, sizeof(msg), fmt, ap);
    if (n < 0)
        return;
    /* The newline needs one byte: a message that fills the rest fits whole. */
    len = log_escape(line, start, sizeof(line), msg, &cut);
    if (cut || (size_t)n >= sizeof(msg)) {
        /* Cut, and say so, rather than lose the newline. */
        len = len < sizeof(line) - 5 ? len : sizeof(line) - 5;
        memcpy(line + len, "...", 3);
        len += 3;
    }
    line[len] = '\0';
    if (to_sink)
        lg->sink(lg->sink_ctx, level, who, line + start);
    if (level < atomic_load(&lg->level))
        return;
    len = log_add_tag(lg, line, len, sizeof(line));
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
