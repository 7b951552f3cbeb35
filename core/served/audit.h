/*
 * audit.h: the audit log ([server] audit = FILE, docs/audit.md): one line of JSON per call of
 * plugin code (tools/call, resources/read, prompts/get, completion/complete), refusals
 * included, each ending with an HMAC chained to the line before, so that a line removed,
 * changed or moved is found by `mcph --verify-audit FILE`.
 *
 * The call path pays for one pass of formatting and the digest of the arguments: a call's
 * line goes into an in-memory buffer of at most [server] audit_buffer bytes (audit_call), and
 * a thread of the log's own numbers, chains and writes the lines in batches, woken when the
 * buffer passes a mark or every AUDIT_FLUSH_MS. When the buffer is full a line is counted as
 * lost, and the count is written (a chained line of kind "lost") once writing works again; a
 * write that fails (ENOSPC, EIO) is logged at error level at most every AUDIT_WARN_MS, with
 * the count of lines lost so far. The buffer's lock is taken last and nothing is taken, and
 * no I/O done, while it is held.
 *
 * A line as written:
 *     {"seq":N,<body>,"mac":"<64 hex>"}\n
 * where mac = HMAC-SHA-256(key, previous line's mac (32 bytes) || the line's bytes up to,
 * not including, ',"mac":'). Every file opened gets a header (kind "open") carrying the MAC
 * the log had before (prev_mac: the last line of the file it appends to, or the previous
 * file's last one after a rotation; null for a new log). In a file appended to, the header is
 * chained from that line like any other; a new (empty) file's header is chained from 32 zero
 * bytes. A file appended to must end with a newline (else it is refused, see audit_open).
 */
#ifndef MCPH_AUDIT_H
#define MCPH_AUDIT_H

#include "lib/log.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* How often the writer looks at the buffer, at least. */
#define AUDIT_FLUSH_MS 50
/* The shortest interval between two error lines about writing the log. */
#define AUDIT_WARN_MS 5000
/* The shortest key accepted, in bytes; a key made by mcph is 64 hex digits. */
#define AUDIT_KEY_MIN 32
/* The longest key file read. */
#define AUDIT_KEY_MAX 4096

/* How a call ended, as the line's "outcome" says it. */
enum audit_outcome {
    AUDIT_RESULT,         /* "result" */
    AUDIT_TOOL_ERROR,     /* "tool_error": a result marked isError */
    AUDIT_ERROR,          /* "error", with "code" */
    AUDIT_CANCELLED,      /* "cancelled" */
    AUDIT_TIMEOUT,        /* "timeout" */
    AUDIT_INPUT_REQUIRED, /* "input_required" (2026-07-28) */
    AUDIT_REFUSED,        /* "refused", with "why" (and "code" when an error was sent) */
    AUDIT_OUTCOMES
};

/* One call to log; everything borrowed for the audit_call. */
struct audit_entry {
    const char *principal;       /* its id ("token:0", "jwt:ISS#SUB", ...), NULL: stdio */
    const char *principal_label; /* "token 1", a JWT's sub; NULL with principal */
    const cJSON *id;             /* the request id as sent, or NULL */
    const char *method;          /* "tools/call", ... */
    const char *target;          /* tool, URI or prompt as the client named it (a read matched
                                  * by a URI template: the template), or NULL */
    const char *uri;             /* a read matched by a template: the URI read, logged as
                                  * uri_sha256 (and as uri with with_args); else NULL */
    const char *plugin;          /* the section ([plugin.NAME]'s NAME), or NULL (refused) */
    int outcome;                 /* enum audit_outcome */
    int code;                    /* the JSON-RPC error code sent, 0 for none */
    const char *why;             /* AUDIT_REFUSED: "unknown", "invalid", "rate_limited",
                                  * "busy", "duplicate_id"; else NULL */
    long long duration_us;       /* from dispatch to the answer; -1 for none (refused) */
    const char *trace_id;        /* 32 hex digits, or NULL */
    const cJSON *args;           /* the arguments, or NULL: their digest is logged */
    int with_args;               /* the section says audit_arguments = yes: args logged too */
};

struct audit;

/* Read (or make) the key at key_path and open the log at path (both borrowed, copied),
 * starting its writer thread. The log is refused (STATUS_INVALID) when path is a symbolic
 * link, not a regular file, writable by group or others, does not end with a newline (a line
 * cut by a crash: verify it and move it aside) or its last line is not an audit line. buffer: the
 * most bytes held (audit_buffer); lg: where problems go (borrowed for the life of the log). On a
 * problem for the user to fix (a key readable by others, too short; a file that cannot be opened)
 * *out stays NULL, why holds the message naming the file, and STATUS_INVALID is returned;
 * STATUS_NOMEM, STATUS_IO otherwise. Main thread. */
int audit_open(struct audit **out, const char *path, const char *key_path, long long buffer,
               const struct log *lg, struct strbuf *why) __attribute__((warn_unused_result));

/* Log a call: its line formatted now (time, digest) and queued; never waits on the disk.
 * a NULL: nothing. Any thread. */
void audit_call(struct audit *a, const struct audit_entry *e);

/* Reopen the file (it was moved: log rotation) and read the key file again (key rotation);
 * the new file starts with a header chained from the last line written before it. A key or
 * file refused here (not a regular file, writable by others) leaves the old file and key
 * (logged), and so does, on the writer's thread, a file whose end is not a whole audit line.
 * Returns STATUS_OK or the status of a problem seen here. a NULL: STATUS_OK. Main thread. */
int audit_reopen(struct audit *a);

/* Write what is buffered (waiting at most timeout_ms), stop the writer, close and free. NULL
 * is fine. Main thread, after every call ended. */
void audit_free(struct audit *a, int timeout_ms);

/* Counters, for tests and metrics: lines written, lines lost. Any thread. */
void audit_counts(struct audit *a, uint64_t *written, uint64_t *lost);

/* --- The key and the chain (audit_verify.c), shared by the writer and the verifier. --- */

/* HMAC-SHA-256 under one key, its padded states computed once. */
struct audit_mac {
    struct sha256 inner; /* after (key ^ ipad) */
    struct sha256 outer; /* after (key ^ opad) */
    char key_id[17];     /* first 8 bytes of SHA-256(key), hex */
};

/* Set up m for key (keylen bytes, borrowed for the call). */
void audit_mac_init(struct audit_mac *m, const unsigned char *key, size_t keylen);

/* out = HMAC(key, prev (SHA256_BYTES) || line (len bytes)). Any thread (m is read only). */
void audit_mac_line(const struct audit_mac *m, const unsigned char *prev, const char *line,
                    size_t len, unsigned char out[SHA256_BYTES]);

/* Read the key file at path into key (AUDIT_KEY_MAX bytes; trailing white space dropped),
 * *len its length. make: create it when missing (getrandom, mode 0600). STATUS_INVALID with
 * why (naming the file) when it is readable or writable by others, shorter than
 * AUDIT_KEY_MIN, or unreadable; STATUS_NOT_FOUND when missing and not made. */
int audit_key_load(const char *path, int make, unsigned char *key, size_t *len, struct strbuf *why)
    __attribute__((warn_unused_result));

/* Check the chain of the log file at path under the key at key_path (NULL: path + ".key").
 * Its first line must be the header of a new log (prev_mac null, seq 0) unless after (64 hex
 * digits, or NULL) gives the MAC the header names: the previous file's last MAC, for a file
 * started by a rotation. Returns 0 with report "FILE: N lines verified (seq A to B)", or 1
 * with report "FILE:LINE: what is wrong" (the first bad line); 2 when a file cannot be read
 * or after is not a MAC (report says why). */
int audit_verify(const char *path, const char *key_path, const char *after, struct strbuf *report);

/* hex (2n digits) into n bytes; STATUS_INVALID when it is not hex. */
int audit_unhex(const char *hex, unsigned char *out, size_t n);

/* Whether x is a whole number that a long long holds (finite, |x| < 2^63): only then is it
 * cast. */
int audit_whole(double x);

/* Where a file opened stands: its last line's seq and MAC when it has lines. */
struct audit_tail {
    int found; /* the file has lines: seq and mac are its last one's */
    uint64_t seq;
    unsigned char mac[SHA256_BYTES];
};

/* The seq and MAC of the last line of the file open on fd (named path, for messages), so the
 * chain goes on in it: the line read whole whatever its length (found by looking back from
 * the end, bounded by the file's size); t->found 0 for an empty file. A file that does not end
 * with a newline (a line cut by a crash) or whose last line is not an audit line is refused:
 * STATUS_INVALID, why naming the file; STATUS_NOMEM. */
int audit_tail_read(int fd, const char *path, struct audit_tail *t, struct strbuf *why)
    __attribute__((warn_unused_result));

#endif
