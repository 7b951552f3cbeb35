/*
 * jsonrpc.h: JSON-RPC 2.0 over newline-delimited stdio: the reader frames lines (with a size
 * cap), and the messages' envelopes are built here. Writing is out.h's.
 */
#ifndef MCPH_JSONRPC_H
#define MCPH_JSONRPC_H

#include <cJSON.h>
#include <stddef.h>

/* Every error code mcph sends: the standard JSON-RPC ones, then those of MCP and of its
 * transports (the implementation-defined range, -32000 to -32099). The one place each is
 * defined. */
enum jsonrpc_code {
    JSONRPC_PARSE_ERROR = -32700,
    JSONRPC_INVALID_REQUEST = -32600,
    JSONRPC_METHOD_NOT_FOUND = -32601,
    JSONRPC_INVALID_PARAMS = -32602,
    JSONRPC_INTERNAL_ERROR = -32603,
    /* A server error (the SDKs' generic one): too much held for requests in flight, or a
     * request the HTTP transport refuses. */
    JSONRPC_SERVER_ERROR = -32000,
    JSONRPC_SESSION_NOT_FOUND = -32001,  /* Streamable HTTP: no such legacy session */
    JSONRPC_RESOURCE_NOT_FOUND = -32002, /* legacy revisions; 2026-07-28 uses -32602 */
    /* 2026-07-28: the HTTP headers that mirror the body do not say what it says. */
    JSONRPC_HEADER_MISMATCH = -32020,
    /* 2026-07-28, MissingRequiredClientCapabilityError: a handler needed a capability the
     * request did not declare (it returned MCPH_ERR_UNSUPPORTED). */
    JSONRPC_MISSING_CAPABILITY = -32021,
    /* 2026-07-28: a protocol version mcph does not serve per request. */
    JSONRPC_UNSUPPORTED_VERSION = -32022,
};

struct jsonrpc_reader {
    int fd;
    char *buf;    /* owned */
    size_t len;   /* bytes in buf */
    size_t start; /* first byte not yet returned */
    size_t scan;  /* bytes from start known to hold no newline: a long line is searched once */
    size_t cap;
    size_t max;   /* longest line accepted */
    int skipping; /* dropping the rest of an over-long line */
    int eof;
};

/* Set up a reader of fd for lines of at most max bytes. */
void jsonrpc_reader_init(struct jsonrpc_reader *r, int fd, size_t max);
void jsonrpc_reader_release(struct jsonrpc_reader *r);

/* Read what is available (one read(), which waits for input). Returns STATUS_OK, STATUS_EOF
 * at end of input, STATUS_AGAIN when a signal interrupted the wait, or STATUS_IO. */
int jsonrpc_reader_fill(struct jsonrpc_reader *r) __attribute__((warn_unused_result));

/*
 * The next complete line, without its newline (and '\r'), NUL-terminated in place:
 * *line is borrowed until the next call. Returns STATUS_OK, STATUS_AGAIN when no complete
 * line is buffered, or STATUS_LIMIT once for a line longer than max (its bytes are skipped).
 * At EOF a last line without newline is returned too. A buffer grown past 1 MiB by a long
 * line is let go on the STATUS_AGAIN that finds it empty, before the calls its lines queued
 * run: a large message's text is not held while it is answered.
 */
int jsonrpc_reader_next(struct jsonrpc_reader *r, char **line, size_t *len);

/* {"jsonrpc":"2.0","id":ID,"result":RESULT}; takes ownership of result; id is copied (NULL
 * for null; an integer id as a raw-text node, which prints the same). New object or NULL when
 * out of memory. */
cJSON *jsonrpc_result(const cJSON *id, cJSON *result);

/* {"jsonrpc":"2.0","id":ID,"error":{"code":..,"message":..[,"data":DATA]}}; takes ownership
 * of data (may be NULL); id copied, NULL for null. */
cJSON *jsonrpc_error(const cJSON *id, int code, const char *message, cJSON *data);

/* A notification {"jsonrpc":"2.0","method":M[,"params":P]}; takes ownership of params. */
cJSON *jsonrpc_notification(const char *method, cJSON *params);

/* What one pass over a message's text finds, short of parsing it. */
enum jsonrpc_text {
    JSONRPC_TEXT_OK,
    JSONRPC_TEXT_NUL_ESCAPE, /* a string has a \u0000 escape: C strings (cJSON's and the plugin
                              * ABI's) end there, so it cannot be passed on whole */
    JSONRPC_TEXT_CONTROL,    /* a raw byte below 0x20 inside a string, or a raw NUL or other
                              * control byte outside one (JSON allows neither) */
    JSONRPC_TEXT_UTF8,       /* bytes that are not well-formed UTF-8 */
};

struct jsonrpc_scan {
    int depth;                 /* nesting depth, or a depth past the limit when it stopped */
    enum jsonrpc_text problem; /* the first one found */
    size_t at;                 /* where, for JSONRPC_TEXT_CONTROL and JSONRPC_TEXT_UTF8 */
};

/* One pass over the JSON text: its nesting depth (stopping early past limit) and the first
 * problem of its bytes. */
void jsonrpc_scan(const char *text, size_t len, int limit, struct jsonrpc_scan *out);

/* Room for the text of an integer request id (a sign, 16 digits, the NUL, to spare). */
#define JSONRPC_INT_TEXT 24

/* The decimal text of the integer request id (a number for which jsonrpc_valid_id holds) in
 * buf (JSONRPC_INT_TEXT bytes); returns buf. Written directly: snprintf costs more than the
 * rest of an id's bookkeeping. */
char *jsonrpc_int_text(const cJSON *id, char *buf);

/* The error for a missing resource in the request's era: -32002 (legacy) or -32602
 * (2026-07-28), with data {uri}. A new object. */
cJSON *jsonrpc_not_found(const cJSON *id, const char *uri, const char *message, int modern);

/* Whether id is a valid MCP request id: a string or an integer number. */
int jsonrpc_valid_id(const cJSON *id);

#endif
