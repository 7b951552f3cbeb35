#include "transport/pipe.h"

#include "protocol/dispatch.h"
#include "lib/log.h"
#include "lib/status.h"

static void pipe_dispatch(void *ctx)
{
    struct server *srv = ctx;
    char *line;
    size_t len;
    int rc;

    while ((rc = jsonrpc_reader_next(&srv->in, &line, &len)) != STATUS_AGAIN) {
        /* A message is answered under the state lock (dispatch_root), which a reload waits
         * for: no write there waits on the client. Back-pressure comes after, outside it. */
        int was = out_thread_nowait(1);

        if (rc == STATUS_LIMIT)
            dispatch_oversized(srv, &srv->pipe_peer);
        else if (rc == STATUS_OK)
            dispatch_line(srv, &srv->pipe_peer, line, len);
        out_thread_nowait(was);
        if (!was)
            out_make_room(&srv->out);
    }
}

static int pipe_read(void *ctx)
{
    struct server *srv = ctx;
    int status = jsonrpc_reader_fill(&srv->in);

    if (status == STATUS_OK)
        return 1;
    if (status == STATUS_AGAIN)
        return -1;
    if (status != STATUS_EOF)
        log_msg(&srv->log, LOG_ERROR, NULL, "reading stdin: %s", status_str(status));
    return 0;
}

static void pipe_flush(void *ctx)
{
    struct server *srv = ctx;

    out_flush(&srv->out);
}

static int pipe_stale(void *ctx, unsigned long *since)
{
    struct server *srv = ctx;

    return out_stale(&srv->out, since);
}

static void pipe_ended(void *ctx)
{
    struct server *srv = ctx;

    atomic_store(&srv->input_ended, 1);
    server_wake(srv);
}

void pipe_source(struct server *srv, struct work_source *src)
{
    src->ctx = srv;
    src->dispatch = pipe_dispatch;
    src->read = pipe_read;
    src->flush = pipe_flush;
    src->stale = pipe_stale;
    src->ended = pipe_ended;
}
