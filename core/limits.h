/*
 * limits.h: every size and count mcph bounds, in one place. Hitting one of these gives a
 * clear error naming the limit; none of them is silently truncated.
 */
#ifndef MCPH_LIMITS_H
#define MCPH_LIMITS_H

/* One JSON-RPC message (one line on stdin), in bytes, newline excluded. */
#define LIMIT_MESSAGE_BYTES (16u * 1024u * 1024u)
/* Nesting depth of arrays and objects in one message. */
#define LIMIT_JSON_DEPTH 64
/* Elements in one JSON-RPC batch (2025-03-26). */
#define LIMIT_BATCH 256
/* Bytes of one result built by a plugin (tool content, resource contents, prompt). */
#define LIMIT_RESULT_BYTES (32u * 1024u * 1024u)
/* Plugin sections in one INI file. */
#define LIMIT_PLUGINS 256
/* Rows in one table of one plugin (tools, resources, templates, prompts, config keys). */
#define LIMIT_ROWS 4096
/* Arguments of one prompt, variables of one URI template. */
#define LIMIT_ARGS 64
/* A tool or prompt name as exposed (the spec's tool-name rule: 1-128 characters). */
#define LIMIT_NAME 128
/* Exposed names longer than this get a warning: clients add prefixes, models cap near 64. */
#define LIMIT_NAME_ADVISED 64
/* A plugin instance id ([plugin.NAME]) and a prefix. */
#define LIMIT_ID 64
/* A resource URI or URI template. */
#define LIMIT_URI 4096
/* One line of the INI file (libinih's INI_MAX_LINE is 200, terminator included). */
#define LIMIT_INI_LINE 199
/* List pages kept printed per served set (each revision and page counts once). */
#define LIMIT_PAGE_CACHE 512
/* Page size of list results: default and maximum. */
#define LIMIT_PAGE_DEFAULT 100
#define LIMIT_PAGE_MAX 1000
/* Worker threads. */
#define LIMIT_WORKERS_DEFAULT 4
#define LIMIT_WORKERS_MAX 64
/* One log line on stderr, in bytes; longer messages are cut and marked. */
#define LIMIT_LOG_LINE 4096
/* Milliseconds that SIGTERM/SIGINT wait for calls in flight before exiting anyway. */
#define LIMIT_SHUTDOWN_GRACE_MS 5000

/* Milliseconds a plugin's question to the client (sampling, elicitation, roots) waits for
 * the answer by default ([server] ask_timeout_ms). */
#define LIMIT_ASK_TIMEOUT_MS 60000
/* The longest ttlMs a cache hint may give (a day). */
#define LIMIT_CACHE_TTL_MAX_MS 86400000
/* subscriptions/listen requests open at once. */
#define LIMIT_LISTENERS 1024
/* Watch mode: milliseconds without a relevant file event before a reload starts. */
#define LIMIT_WATCH_QUIET_MS 300
/* A plugin's refresh requests: milliseconds without another one before the rebuild. */
#define LIMIT_REFRESH_QUIET_MS 100

#endif
