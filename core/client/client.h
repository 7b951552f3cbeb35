/*
 * client.h: the MCP client engine, the component that serves an upstream MCP server (a process
 * on stdin and stdout) as the rows of one instance. It starts the process under a keeper,
 * runs the handshake in either era (initialize, or server/discover of 2026-07-28), defines a
 * row for each tool, resource, template and prompt it lists, forwards calls with the
 * server's progress and questions, restarts it after a crash, and lets the next instance of
 * the same section take the running process over. Two users build a spec and call
 * mcp_serve(): the mcp plugin (plugins/mcp: a spec from its INI section) and isolation
 * (host/isolate.c: a child that is mcph itself). The link to the process and everything
 * else stay inside core/client/ (client/link.h); this header is all a user needs.
 */
#ifndef MCPH_CLIENT_H
#define MCPH_CLIENT_H

#include "plugin-api.h"

#define MCP_PASS_MAX 2 /* descriptors a child gets besides stdin and stdout */

/* The reader of a process's stderr (client/spawn.c). */
struct spawn_tail;
/* What a confined process may do (client/confine.h). */
struct confine;

/* What starts the server; two are the same server when every member is. */
struct mcp_spec {
    char **argv;   /* owned, NULL-ended; argv[0] resolved to a path */
    char **envp;   /* owned, NULL-ended */
    char *cwd;     /* owned: the folder it runs in */
    char *display; /* owned: the command as configured, for messages */
    char *tag;     /* owned: the section, tagging the server's stderr lines; NULL: not tagged */
    struct spawn_tail *tail; /* owned: the reader of the last process's stderr (spawn.c) */
    int startup_ms;          /* start-up and handshake deadline */
    int idle_stop_s; /* no request, question or subscription this long: the process is stopped
                      * until a request needs it (the mcp plugin's idle_stop_s); 0: never */
    struct confine *confine; /* owned or NULL (not confined): applied before exec */
    /* An isolated plugin's child (host/isolate.c) sets these; the mcp plugin leaves them 0. */
    const char *noun;       /* static: what messages call it ("server" when NULL, "plugin") */
    int pass[MCP_PASS_MAX]; /* owned: given to the process as fds 3, 4, ... */
    int npass;
    int call_timeout_ms;  /* a request unanswered this long kills the process; 0: none */
    long long max_memory; /* RLIMIT_AS; 0: none */
    int max_cpu_s;        /* RLIMIT_CPU; 0: none */
    int max_files;        /* RLIMIT_NOFILE; 0: mcph's own */
    int max_procs;        /* processes under the child, counted by the child itself; 0: none */
    int pass_origin;      /* send each call's host->call_origin() under MCP_ORIGIN_KEY in _meta */
    int config_exit;      /* the first process exiting with this status before its handshake
                           * is a configuration error (mcp_link_open); 0: none */
    int own_instructions; /* its instructions are the instance's paragraph, headed by its
                           * section (an isolated plugin's child): passed on with no title */
    /* A url section of the mcp plugin sets these: the process is mcph's relay to a remote
     * server (mcph --remote, client/remote.h), its settings on fd 3 (pass[0], a memfd read
     * from its start at each start). */
    char *remote;    /* owned: the settings (JSON text), compared by mcp_spec_same; or NULL */
    int keep_trying; /* never down after crashes in a row: restarts at the longest backoff
                      * go on; a first start that fails leaves the link restarting (the
                      * instance serves no rows until the server answers) */
};

/* The notification a relay (spec.remote) sends as its last line before it exits, params
 * {"reason": TEXT}: why, as the rest of a sentence that starts with the server's URL ("could
 * not connect: Connection refused"), for the link's messages and the calls it fails. */
#define MCP_RELAY_ENDED "notifications/dev.mcph/relay_ended"

/* Where an isolated plugin's child finds the origin of the request its parent serves (the
 * core reads it as MRTR_KEY_ORIGIN, calls/mrtr.h). */
#define MCP_ORIGIN_KEY "dev.mcph/origin"

/* Confine the process of spec (built: argv and envp set) by a section's rules, read, write and
 * exec as the config keeps them (NULL: not set), network 1 for yes (client/confine.h). What
 * this kernel cannot enforce is logged through host at warning level (naming the section).
 * Returns MCPH_OK, MCPH_ERR_INVALID (logged: a path that does not exist) or MCPH_ERR_NOMEM. */
int mcp_spec_confine(const struct mcph_host *host, struct mcp_spec *spec, const char *read,
                     const char *write, const char *exec, int network);

/* A copy of a NULL-ended list of strings (a spec's argv or envp), or NULL out of memory; freed
 * by mcp_spec_release, or mcph_env_free. */
char **mcp_list_copy(const char *const *words);

/* Free what spec owns (its lists, folder, descriptors, stderr reader) and zero it. */
void mcp_spec_release(struct mcp_spec *spec);

/* The descriptor flags of an instance served by the engine: its handlers run on any thread,
 * a reload rebuilds it, and the next instance of its section takes its process over. */
#define MCP_CLIENT_FLAGS                                                                           \
    (MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_REBUILD_ON_RELOAD | MCPH_PLUGIN_TAKE_OVER)

/* Serve the process of spec (taken over: released here) as the rows of the instance of host:
 * an init's work once the spec is known. On MCPH_OK *state is the instance's state, for
 * mcp_unserve and mcp_serve_subscribe. */
int mcp_serve(const struct mcph_host *host, void **state, struct mcp_spec *spec);
/* The descriptor's shutdown and subscribe of such an instance. */
void mcp_unserve(void *state);
void mcp_serve_subscribe(const struct mcph_host *host, void *state, const char *uri, int on);

/* The state of the process an instance serves (state: what mcp_serve stored), as metrics name
 * it: "up", "restarting" (starting, or waiting out a restart's backoff), "down" (too many
 * crashes, or stopped) or "idle" (stopped by idle_stop_s until a request needs it). Static
 * text. Any thread (the link's lock is taken for a moment). */
const char *mcp_serve_health(void *state);

#endif
