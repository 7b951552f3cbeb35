/*
 * pin.h: definitions pinned against silent change ([server] lock, docs/trust.md). The lock
 * file holds, for each row served (tool, resource, template, prompt), its kind, exposed name
 * (or URI), plugin section, and the SHA-256 of its canonical definition (lib/canon.h) with
 * the definition itself. While a set is built (start, reload, refresh, an isolated child or
 * an upstream server listed again), each row goes through pin_admit as the registry's gate:
 * a row whose definition differs from its pinned one, or that the lock file lacks, is left
 * out (with lock_new = accept, a new row is served and pinned), and the refusal is logged
 * once, naming the section, the row and a short diff of the fields. The rest is served.
 *
 * A struct pin belongs to the main thread: it is read and changed only while a set is built
 * (server_load, reload.c) and by main.c; requests never see it, so serving costs nothing.
 *
 * The file: a first line starting with '#' that says what it is, then one JSON object a
 * line, sorted by kind then name: {"kind":K,"name":N,"plugin":ID,"sha256":HEX,
 * "definition":CANONICAL}. Lines starting with '#' and empty lines are skipped on reading.
 * Written whole to a new temporary file (mkostemp, in its folder) renamed over it (mode
 * 0644), never in place. pin_save remembers the file as read or last written (device, inode,
 * size, mtime): if it changed since (mcph --lock, an edit), its rows win: it is read again
 * and only the rows accepted since that it lacks are added to it (docs/trust.md).
 */
#ifndef MCPH_PIN_H
#define MCPH_PIN_H

#include "lib/diag.h"
#include "lib/log.h"
#include "served/registry.h"

#include <stddef.h>

/* What a build does with what it finds. */
enum pin_mode {
    PIN_SERVE = 0, /* leave refused rows out; pin new ones when accepting (pin_save) */
    PIN_CHECK,     /* mcph --check: the same verdicts, but nothing is pinned or written */
    PIN_OFF,       /* mcph --lock: nothing checked (the lock file is being written) */
};

struct pin;

/*
 * Read the lock file at path (borrowed) into a new set in *out (owned by the caller).
 * accept is [server] lock_new. A file that does not exist is an empty set when accept is
 * set, else an error. Errors name FILE:LINE in errs (a line that is not a JSON object of the
 * five members, an unknown kind, a sha256 that is not the definition's, a row listed twice)
 * and return STATUS_CONFIG; STATUS_NOMEM. Main thread.
 */
int pin_load(struct pin **out, const char *path, int accept, struct diag *errs)
    __attribute__((warn_unused_result));

/* Free a set. NULL is fine. */
void pin_free(struct pin *pin);

/* Carry over what `old` (borrowed; may be NULL) said in its last build to pin, the set that
 * replaces it on a reload: a refusal is said once, not again on each reload. */
int pin_keep_said(struct pin *pin, const struct pin *old) __attribute__((warn_unused_result));

/* Make gate ask pin (both borrowed until the build ends) about each row of the next build,
 * logging refusals to log (borrowed). Starts the build's counts and drift text afresh. */
void pin_gate(struct pin *pin, struct registry_gate *gate, const struct log *log,
              enum pin_mode mode);

/* The registry gate itself (ctx is the struct pin): see struct registry_gate. */
int pin_admit(void *ctx, const char *kind, const char *plugin, const char *name,
              const cJSON *entry);

/* How many rows the last build refused. */
size_t pin_refused(const struct pin *pin);

/* The refusals of the last build, for --check: per row a line "[plugin.ID] KIND 'NAME': ..."
 * and its diff lines indented by two spaces. Borrowed from pin until its next build; "" when
 * none. */
const char *pin_drift(const struct pin *pin);

/* --check with lock_new = accept: how many rows the last build found that the lock file lacks
 * (served, and pinned when serving), and per row a line "[plugin.ID] KIND 'NAME': would pin".
 * Borrowed from pin until its next build; 0 and "" when none, or pin NULL. */
size_t pin_would_pin(const struct pin *pin);
const char *pin_news(const struct pin *pin);

/* The lock file's path. Borrowed from pin. */
const char *pin_path(const struct pin *pin);

/* When the last build pinned new rows (lock_new = accept), write the lock file again with
 * them. Returns STATUS_OK (also when there was nothing to write) or STATUS_IO (logged to
 * log, borrowed). */
int pin_save(struct pin *pin, const struct log *log);

/* mcph --lock: write a lock file at path (borrowed) pinning every row reg (borrowed) serves;
 * *rows gets how many. Returns STATUS_OK, STATUS_IO (said in errs), STATUS_NOMEM. */
int pin_write_registry(const char *path, const struct registry *reg, size_t *rows,
                       struct diag *errs) __attribute__((warn_unused_result));

#endif
