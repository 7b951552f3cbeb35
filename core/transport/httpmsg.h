/*
 * httpmsg.h: what the Streamable HTTP transport (http_*.c) reads off MCP messages and headers,
 * with no connection in sight: media types in Accept, the event stream's framing, which lines
 * are answers, the 2026-07-28 headers that mirror the body (and their base64 form), Host
 * names, and the HTTP status an answer gets. Pure functions; any thread.
 */
#ifndef MCPH_HTTPMSG_H
#define MCPH_HTTPMSG_H

#include "lib/strbuf.h"

#include <cJSON.h>
#include <stddef.h>

/* Whether an Accept value (borrowed; NULL: no header, taken as anything) lists media type
 * `type` ("text/event-stream"), or a wildcard that covers it. */
int httpmsg_accepts(const char *accept, const char *type);

/* One message (a line of len bytes, no newline) appended to sb as an event of the stream. */
void httpmsg_event(struct strbuf *sb, const char *line, size_t len);

/* Whether text (len bytes, at the start of a line mcph wrote) is an answer: a response or a
 * batch of them, not a notification nor a request of mcph's own. */
int httpmsg_is_answer(const char *text, size_t len);

/* Whether lines (len bytes of whole lines) hold a message that is not an answer: the POST's
 * response is then an event stream. */
int httpmsg_has_message(const char *lines, size_t len);

/* The HTTP status of a POST answered with one message (line, len bytes): 400 when the message
 * could not be read (an error with id null for a body with no request, -32700, -32600), its
 * version is not spoken (-32022), its headers disagree (-32020), it lacks a capability
 * (-32021), or (outside a session) its _meta is malformed; 404 for a method a 2026-07-28
 * request names that mcph does not have; else 200. `requests`: how many the body held. */
unsigned httpmsg_status(const char *line, size_t len, int requests, int in_session);

/* The method of root when it is one request (an object with an id), else NULL. Borrowed. */
const char *httpmsg_request_method(const cJSON *root);

/* How many requests root (a message or a batch) holds. */
int httpmsg_count_requests(const cJSON *root);

/* What Mcp-Name mirrors for method: params.name (tools/call, prompts/get) or params.uri
 * (resources/read), borrowed from msg, or NULL. *needed: whether the method has one. */
const char *httpmsg_name_of(const cJSON *msg, const char *method, int *needed);

/* The protocol version msg's _meta names, or NULL. Borrowed. */
const char *httpmsg_meta_version(const cJSON *msg);

/* A header value as meant: "=?base64?B64?=" is the UTF-8 text B64 encodes, anything else is
 * itself. Owned; NULL when it does not decode (or decodes to a NUL). */
char *httpmsg_decode_value(const char *value);

/* One mirrored header (`name`, its value as sent or NULL) against the body's value (NULL:
 * none): NULL when they agree (or the header is absent and not `needed`), else what is wrong
 * (a value with bytes outside visible ASCII, space and tab is wrong: those need the base64
 * form), written into buf (size bytes) and returned. */
const char *httpmsg_check_header(const char *name, const char *header, const char *body, int needed,
                                 char *buf, size_t size);

/* How deep in nested properties an x-mcp-header annotation is looked for. */
#define HTTPMSG_PARAM_DEPTH 16

/* The value of the header Mcp-Param-NAME as sent (borrowed; NULL: absent); *count: how many
 * times it came. */
typedef const char *(*httpmsg_param_fn)(void *ctx, const char *name, int *count);

/* A 2026-07-28 tools/call's Mcp-Param-* headers against its arguments (args, NULL: none), for
 * each property of the tool's inputSchema (schema) annotated x-mcp-header and reached through
 * `properties` alone (the spec's statically reachable): an argument a header can carry must
 * come in its header once, with the same value (base64 form decoded; a number compared as
 * one; true/false), and a header must not come for an argument absent or null. Headers no
 * annotation names are not looked at. NULL when all agree, else what is wrong (a -32020
 * HeaderMismatch), written into buf (size bytes) and returned. */
const char *httpmsg_check_params(const cJSON *schema, const cJSON *args, httpmsg_param_fn get,
                                 void *ctx, char *buf, size_t size);

/* The host of a Host value or an origin's authority (len bytes): no port, lower case, an IPv6
 * address kept in its brackets; into buf (size bytes, cut to fit). */
void httpmsg_host_part(const char *authority, size_t len, char *buf, size_t size);

#endif
