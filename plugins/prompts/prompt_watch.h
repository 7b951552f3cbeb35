/*
 * prompt_watch.h: a thread that watches the prompt folder with inotify and asks mcph to
 * rebuild the instance (host->refresh) when a .md file in it is created, changed, deleted
 * or renamed, or when the folder itself goes away.
 *
 * Events are debounced: the refresh comes PROMPT_WATCH_QUIET_MS after the last event of a
 * burst (an editor's save is several events), and at most PROMPT_WATCH_MAX_WAIT_MS after
 * the first, so a file rewritten without pause still shows up. Only the folder is
 * watched: a change to the target of a symbolic link outside it is not seen.
 */
#ifndef PROMPTS_PROMPT_WATCH_H
#define PROMPTS_PROMPT_WATCH_H

#include "plugin-api.h"

/* Milliseconds without an event before the refresh. */
#define PROMPT_WATCH_QUIET_MS 150
/* Milliseconds after the first event of a burst by which the refresh happens anyway. */
#define PROMPT_WATCH_MAX_WAIT_MS 1000

struct prompt_watch;

/*
 * Starts watching dir (borrowed for the call): *out receives the watcher, owned by the
 * caller, to be given to prompt_watch_stop(). host is borrowed until prompt_watch_stop()
 * returns. Returns MCPH_OK, or MCPH_ERR / MCPH_ERR_NOMEM after logging why (the folder
 * cannot be watched: too many inotify watches, say). Main thread (during init).
 */
int prompt_watch_start(struct prompt_watch **out, const struct mcph_host *host, const char *dir);

/* Stops the thread, waits for it to end, and frees the watcher. Nothing is left running.
 * Accepts NULL. Main thread (during shutdown, or init when it fails). */
void prompt_watch_stop(struct prompt_watch *w);

#endif
