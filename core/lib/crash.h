/*
 * crash.h: what a fatal signal in plugin code leaves on stderr.
 *
 * A plugin loaded in process shares mcph's address space: when it faults (SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE) or aborts (SIGABRT), mcph ends with it. What this module adds is one line on
 * stderr saying which plugin, which tool or row and which request was running on the thread
 * that faulted, and that `isolate = process` would contain it; then the signal is raised again
 * with its default action, so the exit status and a core dump stay what they would have been.
 * Each thread that runs plugin code gets an alternate signal stack, so a stack overflow is
 * reported too.
 */
#ifndef MCPH_CRASH_H
#define MCPH_CRASH_H

#include <cJSON.h>

/* Install the handlers (once, process-wide) and give the calling thread its alternate stack.
 * Main thread, at start-up. Returns STATUS_OK or STATUS_IO. */
int crash_install(void);

/* This process is an isolated plugin's child (mcph --isolated): a crash line says that the
 * plugin's own process ends (its parent starts it again), not that isolation would help. */
void crash_set_isolated(void);

/* An alternate signal stack for the calling thread (a thread that runs plugin code, at its
 * start); crash_thread_leave frees it before the thread ends. Without one (out of memory) a
 * crash is still reported, unless it is a stack overflow. */
void crash_thread_enter(void);
void crash_thread_leave(void);

/*
 * The calling thread runs plugin code from now on, until crash_leave: `plugin` (its section
 * id), doing `what` ("tool", "resource", "prompt", "completion", "init"), on `name` (a tool or
 * prompt name, a URI; NULL for none) for request `id` (NULL for none). Every pointer is
 * borrowed and must stay valid until crash_leave; nothing is copied or formatted here (this
 * sits on every call's path), the handler formats what it reads.
 */
void crash_enter(const char *plugin, const char *what, const char *name, const cJSON *id);
void crash_leave(void);

#endif
