/*
 * limits.h: every size and count mcph bounds, in one place. Hitting one of these gives a
 * clear error naming the limit; none of them is silently truncated.
 */
#ifndef MCPH_LIMITS_H
#define MCPH_LIMITS_H

/* The limits plugins see are published in the ABI header as MCPH_MAX_*. */
#include "mcph-json.h"
#include "plugin-api.h"

/* One JSON-RPC message (one line on stdin), in bytes, newline excluded. */
#define LIMIT_MESSAGE_BYTES (16u * 1024u * 1024u)
/* A schema pattern's bounded repetitions ({m,n}): each bound, and their product through nested
 * groups (glibc's regex compiler copies the atom for each count: "[a-z]{,9004}" took 1.2 GB).
 * 255 is POSIX's RE_DUP_MAX, the most a portable pattern may use. */
#define LIMIT_PATTERN_REPEAT 255
/* Nesting depth of arrays and objects in one message. */
#define LIMIT_JSON_DEPTH 64
/* What one message from outside may cost once parsed, in bytes: its text and
 * MCPH_JSON_VALUE_COST for each of its values, estimated before it is parsed (mcph-json.h). A
 * client's message past it is refused (-32600), an upstream's reply fails its call, and an
 * upstream's notification or request is dropped with a warning. */
#define LIMIT_JSON_COST MCPH_JSON_COST_MAX
/* After a message that cost at least this much parsed (a client's, a plugin's result, an
 * upstream's), freed memory goes back to the system (malloc_trim). */
#define LIMIT_TRIM_COST MCPH_JSON_TRIM_COST
/* Elements in one JSON-RPC batch (2025-03-26). */
#define LIMIT_BATCH 256
/* Bytes of one result built by a plugin (tool content, resource contents, prompt). */
#define LIMIT_RESULT_BYTES MCPH_MAX_RESULT_BYTES
/* Plugin sections in one INI file. */
#define LIMIT_PLUGINS 256
/* [access.NAME] sections (each a bit of a principal's view) and [limit.NAME] sections. */
#define LIMIT_ACCESS_SECTIONS 64
#define LIMIT_LIMIT_SECTIONS 64
/* Metrics series kept: (plugin, tool) pairs and plugins; calls past them count in one series
 * labelled "(other)". Powers of two (the tables are twice as large). */
#define LIMIT_METRICS_SERIES 4096
#define LIMIT_METRICS_PLUGINS 512
/* OAuth: the clock skew allowed on exp, nbf and iat, and how long a fetched JWKS is kept. */
#define LIMIT_OAUTH_LEEWAY_S 60
#define LIMIT_OAUTH_JWKS_REFRESH_S 300
/* The audit log (served/audit.h): bytes of lines held while the disk is slow or full,
 * [server] audit_buffer's default and range. */
#define LIMIT_AUDIT_BUFFER_DEFAULT (4LL << 20)
#define LIMIT_AUDIT_BUFFER_MIN (64LL << 10)
#define LIMIT_AUDIT_BUFFER_MAX (1LL << 30)
/* Rows in one table of one plugin (tools, resources, templates, prompts, config keys). */
#define LIMIT_ROWS MCPH_MAX_ROWS
/* Arguments of one prompt, variables of one URI template. */
#define LIMIT_ARGS MCPH_MAX_ARGS
/* A tool or prompt name as exposed (the spec's tool-name rule: 1-128 characters). */
#define LIMIT_NAME MCPH_MAX_NAME
/* Exposed names longer than this get a warning: clients add prefixes, models cap near 64. */
#define LIMIT_NAME_ADVISED 64
/* A plugin instance id ([plugin.NAME]) and a prefix. */
#define LIMIT_ID 64
/* A resource URI or URI template. */
#define LIMIT_URI MCPH_MAX_URI
/* One line of the INI file (libinih's INI_MAX_LINE is 200, terminator included). */
#define LIMIT_INI_LINE 199
/* A value continued on indented lines, joined (the instructions, a plugin's own key). */
#define LIMIT_INI_VALUE 65536
/* List pages kept printed per served set (each revision and page counts once). */
#define LIMIT_PAGE_CACHE 512
/* Page size of list results: default and maximum. */
#define LIMIT_PAGE_DEFAULT 100
#define LIMIT_PAGE_MAX 1000
/* Calls one plugin instance may run at once ([server] workers, a section's max_concurrent). */
#define LIMIT_WORKERS_DEFAULT 4
#define LIMIT_WORKERS_MAX 64
/* Threads of the pool in all (reading, watching and running calls of every plugin); they
 * start when a runnable call waits and end after LIMIT_WORK_IDLE_MS without work. */
#define LIMIT_THREADS 128
#define LIMIT_WORK_IDLE_MS 10000
/* The pool's watcher ticks this often while calls run: a reader inside one call for a whole
 * tick hands reading to another thread, and queued calls nobody started get a thread. */
#define LIMIT_WORK_TICK_US 1000
/* The reader wakes a helper for the calls it queued when they add up to this much work
 * (nanoseconds, from how long each plugin's calls took so far), counting only plugins whose
 * calls take at least LIMIT_WORK_HELPER_MIN_NS: shorter ones cost less than what two threads
 * lose contending over the allocator and the queue. */
#define LIMIT_WORK_HELPER_NS 200000u
#define LIMIT_WORK_HELPER_MIN_NS 20000u
/* Ticks without a call before the watcher stops ticking until the next call. */
#define LIMIT_WORK_QUIET_TICKS 100
/* Output queued and not yet written before a writer waits for the client to read. */
#define LIMIT_OUT_PENDING_BYTES (8u * 1024u * 1024u)
/* A client that takes no byte of output for this long while output waits for it is gone:
 * its output fails (on stdio the session ends as at the end of input) and every thread
 * waiting to write to it wakes then. A client that reads slowly is not: each byte it takes
 * starts the wait again. */
#define LIMIT_OUT_STALL_MS 30000
/* The largest write buffer kept for the next write (a larger one is freed after use). */
#define LIMIT_OUT_KEEP_BYTES (256u * 1024u)
/* A message this long is written from where it is rather than copied into the queue. */
#define LIMIT_OUT_DIRECT_BYTES (64u * 1024u)
/* A thread that may not wait on the client (the reader under the state lock, the main
 * thread) still gives a line that long this many milliseconds to be taken before it queues
 * the rest (a copy): a client that reads takes it, one that does not costs this bound. */
#define LIMIT_OUT_NOWAIT_DIRECT_MS 20
/* Memory held for requests in flight (their input, queued or running) and replies not yet
 * written, in MiB ([server] max_pending_mb): past it a call is refused with an error. */
#define LIMIT_PENDING_MB_DEFAULT 64
#define LIMIT_PENDING_MB_MAX 4096

/* Streamable HTTP (transport/): legacy sessions and connections at once ([server] max_sessions,
 * max_connections), how long a session may sit unused and a connection may trickle, and how
 * often an open event stream gets a comment (a client that went away is found by it). */
/* The longest [server] session_route: a session id is ROUTE-32 hex digits. */
#define LIMIT_ID_ROUTE 32
#define LIMIT_HTTP_SESSIONS_DEFAULT 256
#define LIMIT_HTTP_SESSIONS_MAX 4096
#define LIMIT_HTTP_SESSION_IDLE_S 1800
#define LIMIT_HTTP_CONNECTIONS_DEFAULT 512
#define LIMIT_HTTP_CONNECTIONS_MAX 4096
#define LIMIT_HTTP_TIMEOUT_S 30
#define LIMIT_HTTP_KEEPALIVE_MS 10000
/* How often the HTTP transport looks for clients gone from waiting requests and for requests
 * trickling in. */
#define LIMIT_HTTP_TICK_MS 200
/* At shutdown, how long open responses get to send what they hold. */
#define LIMIT_HTTP_STOP_MS 1000
/* libmicrohttpd's memory for one connection: its read buffer and a request's header lines
 * (a header block of more than about 14 KiB gets 431). The library zeroes it for every
 * request, so it is no larger than a request's headers need. */
#define LIMIT_HTTP_CONN_MEMORY 16384
/* From http_quiesce to http_stop the pump runs the daemon, looking at least this often whether
 * it is to stop (http_loop.c). */
#define LIMIT_HTTP_PUMP_MS 10
/* What one HTTP response may hold unsent (a client that does not read its stream): past it
 * the stream is dropped. */
#define LIMIT_HTTP_STREAM_BYTES (64u * 1024u * 1024u)
/* Long-lived streams (a legacy session's GET stream, a subscriptions/listen POST) hold a
 * connection each: at most max_connections / LIMIT_HTTP_STREAM_SHARE of them, the rest kept
 * for short requests; one client (its bearer token, or its address off loopback) may hold a
 * 1 / LIMIT_HTTP_CLIENT_STREAM_SHARE of those (at least one). Past either: 503 at once. */
#define LIMIT_HTTP_STREAM_SHARE 2
#define LIMIT_HTTP_CLIENT_STREAM_SHARE 4
/* A legacy session that has not sent notifications/initialized (a client sends it right
 * after initialize's answer) ends after this long unused, however long session_idle_s is: a
 * flood of bare initialize requests cannot hold every max_sessions slot. */
#define LIMIT_HTTP_SESSION_UNINIT_S 10
/* What one call holds besides its input (its job, in-flight entry, parsed tree's nodes). */
#define LIMIT_PENDING_CALL_BYTES 1024
/* Text of the client's quoted in an error message (a name, a method, a member name), in
 * bytes: longer text is cut there, so an answer does not grow with what was sent. */
#define LIMIT_QUOTED_BYTES 200
/* One log line on stderr, in bytes; longer messages are cut and marked. */
#define LIMIT_LOG_LINE 4096
/* Milliseconds that SIGTERM/SIGINT wait for calls in flight before exiting anyway. */
#define LIMIT_SHUTDOWN_GRACE_MS 5000
/* Then every call still running is cancelled (handlers that poll cancelled() stop, and a
 * plugin's child processes with them) and gets this long before mcph exits anyway. */
#define LIMIT_SHUTDOWN_CANCEL_MS 2000
/* How long shutdown waits for the reader to leave its role before going on without it (a
 * client that stopped reading can hold it in a write). */
#define LIMIT_SHUTDOWN_READER_MS 200
/* From the first stop signal (or the end of input), how long the orderly shutdown may take
 * before mcph exits anyway (main.c's watchdog): the grace and cancel periods, the pool's own
 * stop and a margin for plugins' shutdown hooks. */
#define LIMIT_SHUTDOWN_WATCHDOG_MS                                                                 \
    (LIMIT_SHUTDOWN_GRACE_MS + 2 * LIMIT_SHUTDOWN_CANCEL_MS + LIMIT_SHUTDOWN_READER_MS + 1000)
/* At the end of shutdown, how long what is left of the output waits for the client (within
 * the watchdog's margin). */
#define LIMIT_SHUTDOWN_FLUSH_MS 500
/* Shutdown waits for calls in slices of this long, looking for a stop signal between them. */
#define LIMIT_SHUTDOWN_SLICE_MS 50

/* Milliseconds a plugin's question to the client (sampling, elicitation, roots) waits for
 * the answer by default ([server] ask_timeout_ms). */
#define LIMIT_ASK_TIMEOUT_MS 60000
/* Questions one 2026-07-28 call may ask the client across its retries (input requests
 * "ask-1" to "ask-N", or named by host->ask_key); a plugin asking more gets MCPH_ERR_LIMIT.
 * Also the most answers a retry keeps (inputResponses first, then requestState's). */
#define LIMIT_MRTR_ASKS 256
/* The longest text host->keep keeps with a call across its retries, in bytes (as
 * MCPH_MAX_KEPT of the plugin ABI): a relayed server's requestState and its questions. */
#define LIMIT_MRTR_KEPT 65536
/* The longest name host->ask_key gives a question, in bytes. */
#define LIMIT_MRTR_KEY 64
/* How long a sealed requestState (HTTP) is taken after it was made, in seconds: a retry later
 * than this is refused and must start again. */
#define LIMIT_MRTR_STATE_S 600
/* The longest ttlMs a cache hint may give (a day). */
#define LIMIT_CACHE_TTL_MAX_MS 86400000

/* isolate = process: the keys' ranges (config.c), and how long a child has to start and
 * list what its plugin serves (isolate.c). */
#define LIMIT_CALL_TIMEOUT_MAX_MS 86400000
#define LIMIT_ISOLATE_MEMORY_MIN (16LL << 20)
#define LIMIT_ISOLATE_MEMORY_MAX (1024LL << 30)
#define LIMIT_ISOLATE_CPU_MAX_S 86400
#define LIMIT_ISOLATE_FILES_MIN 16
#define LIMIT_ISOLATE_FILES_MAX 1048576
#define LIMIT_ISOLATE_PROCS_MAX 4096 /* max_procs */
#define LIMIT_ISOLATE_STARTUP_MS 30000
/* Resources one client subscribes to (resources/subscribe, or one listen request's
 * resourceSubscriptions). */
#define LIMIT_SUBSCRIPTIONS 4096
/* subscriptions/listen requests open at once. */
#define LIMIT_LISTENERS 1024
/* Watch mode: milliseconds without a relevant file event before a reload starts. */
#define LIMIT_WATCH_QUIET_MS 300
/* A plugin's refresh requests: milliseconds without another one before the rebuild. */
#define LIMIT_REFRESH_QUIET_MS 100
/* ... and at the latest this long after the first, however often they come. */
#define LIMIT_REFRESH_MAX_MS 1000
/* The lock file of pinned definitions ([server] lock, served/pin.h): its size in bytes. */
#define LIMIT_LOCK_FILE (64 << 20)
/* Token buckets kept at once ([server] rate per principal, [limit.NAME]); past it the least
 * recently used goes (ratelimit.h). */
#define LIMIT_RATE_BUCKETS 4096
/* A bucket's refusals are logged at most once this often. */
#define LIMIT_RATE_LOG_MS 5000

#endif
