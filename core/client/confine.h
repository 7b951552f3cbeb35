/*
 * confine.h: what the process of a confined section may do (docs/isolation.md, Confinement).
 * The parent builds a confinement from the section's rules (read, write, exec, network) and
 * what every process needs (the system's libraries, a few files of /etc, /dev/null and the
 * like, its own /proc entry, its program and that program's interpreter and loader); the
 * child applies it between fork and exec, in this order: no_new_privs, every capability
 * dropped, Landlock's file rules and scopes, then a seccomp filter (built here through
 * libseccomp) that refuses the system calls no plugin needs and, with network = no, every
 * socket. What this kernel cannot enforce is named by confine_gaps(), never skipped quietly.
 */
#ifndef MCPH_CLIENT_CONFINE_H
#define MCPH_CLIENT_CONFINE_H

#include "mcph-strbuf.h"

struct confine;

/*
 * A confinement from a section's rules: read, write and exec are the section's values as the
 * config keeps them (words, '...' or "..."-quoted, absolute paths; NULL when not set),
 * network 1 for yes. program (a path; NULL: not known here) is granted exec with its #!
 * interpreter (through /usr/bin/env too, looked up in path_env, a PATH value) and the
 * dynamic loader each names. A path of the rules that does not exist is refused: why says
 * which. Returns MCPH_OK with *out set, MCPH_ERR_INVALID or MCPH_ERR_NOMEM.
 */
int confine_new(struct confine **out, const char *read, const char *write, const char *exec,
                int network, const char *program, const char *path_env, struct mcph_strbuf *why);

void confine_free(struct confine *c);

/* 1 when a and b grant the same (NULL: not confined), else 0. */
int confine_same(const struct confine *a, const struct confine *b);

/* When a path of c's rules or program is gone, or is another file than when c was built (a
 * child refused ESTALE then), appends "PATH is gone or ..." to sb and returns 1; else 0. */
int confine_changed(const struct confine *c, struct mcph_strbuf *sb);

/* What this kernel cannot enforce of c, as phrases joined by "; " appended to sb. Returns how
 * many (0: all of it is enforced). */
int confine_gaps(const struct confine *c, struct mcph_strbuf *sb);

/* The rules in effect, a line each, every line starting with indent, appended to sb: what
 * --check prints under a confined section. */
void confine_describe(const struct confine *c, const char *indent, struct mcph_strbuf *sb);

/* Confine the calling process: between fork and exec, in a process of one thread (system
 * calls only, no allocation). Returns 0, or the errno of the step that failed. */
int confine_apply(const struct confine *c);

#endif
