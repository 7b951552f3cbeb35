/*
 * traced.c: the test plugin for ABI 1.6, the call's trace context (host->trace_context),
 * driven by tests/trust/trace.mjs. One tool, `trace`: its structured result is
 * {"traceparent": ..., "tracestate": ... or null, "same": bool} (same: a second call of
 * trace_context in the run gave the same text), mirrored as text; it also logs
 * "traced call" at info through host->log, a line mcph tags with the call's trace id.
 * With argument fail true it returns MCPH_ERR instead (a failure mcph logs, tagged too).
 * Thread-safe (no state).
 */
#include <string.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

static int traced_trace(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct mcph_strbuf out = MCPH_STRBUF_INIT;
    const char *tracestate = NULL;
    const char *parent = host->trace_context(call, &tracestate);
    const char *again = host->trace_context(call, NULL);
    int fail = 0, rc;

    (void)state;
    host->log(host, MCPH_LOG_INFO, "traced call");
    if (host->arg_bool(call, "fail", &fail) == MCPH_OK && fail)
        return host->error(call, MCPH_ERR, "failed on purpose");
    mcph_sb_addstr(&out, "{\"traceparent\":");
    mcph_sb_addjson(&out, parent ? parent : "", parent ? strlen(parent) : 0);
    mcph_sb_addstr(&out, ",\"tracestate\":");
    if (tracestate != NULL)
        mcph_sb_addjson(&out, tracestate, strlen(tracestate));
    else
        mcph_sb_addstr(&out, "null");
    mcph_sb_addf(&out, ",\"same\":%s}", parent == again ? "true" : "false");
    rc = out.nomem ? MCPH_ERR_NOMEM : host->structured(call, out.buf);
    mcph_sb_release(&out);
    return rc;
}

static const struct mcph_tool traced_tools[] = {
    {
        .name = "trace",
        .description = "Returns the call's trace context (traceparent, tracestate) as mcph "
                       "gives it to plugins.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"fail\":{\"type\":\"boolean\"}}}",
        .call = traced_trace,
    },
    {0},
};

static const struct mcph_plugin traced_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "traced",
    .description = "Test plugin: the call's trace context (ABI 1.6)",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = traced_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &traced_plugin;
}
