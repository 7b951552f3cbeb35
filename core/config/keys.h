/*
 * keys.h: every key mcph reads from its INI file, in one typed table per section: its name,
 * the type and range of its value, and what to write instead of a wrong one. The setters'
 * checks, the error messages' help, the list of keys a plugin may not declare and the check
 * that mcph.ini(5) documents each key (tests/unit/test_config_keys.c) all read these tables,
 * so a range is written once.
 */
#ifndef MCPH_CONFIG_KEYS_H
#define MCPH_CONFIG_KEYS_H

#include "config/config.h"
#include "lib/strbuf.h"

#include <stddef.h>

enum config_key_type {
    CONFIG_KEY_TEXT = 1, /* char *, copied as written; check (if any) may refuse it */
    CONFIG_KEY_FILE,     /* char *, resolved against the INI file's folder (config_join) */
    CONFIG_KEY_INT,      /* int, a whole number from min to max (mcph-value.h) */
    CONFIG_KEY_BOOL,     /* int, yes or no (mcph-value.h) */
    CONFIG_KEY_WORD,     /* int, one of a few words, read by word() */
    CONFIG_KEY_BYTES,    /* long long, bytes from min to max, with K, M or G (1024-based) */
    CONFIG_KEY_PATHS,    /* char *, words (mcph-env.h) each resolved as CONFIG_KEY_FILE, kept
                          * as "..."-quoted words */
    CONFIG_KEY_RATE,     /* struct config_rate, from N/s, N/min or N/h */
};

struct config_key {
    const char *name;
    int type;     /* enum config_key_type */
    size_t field; /* offsetof the member in struct config ([server]) or the section's struct */
    size_t line;  /* not [server]: offsetof the int holding the line it was set on */
    long long min, max; /* CONFIG_KEY_INT and CONFIG_KEY_BYTES */
    const char *unit;   /* CONFIG_KEY_INT: the help says "UNIT from MIN to MAX" */
    const char *help;   /* the other types: what the value is, for "use HELP" */
    /* CONFIG_KEY_TEXT: STATUS_OK, or STATUS_INVALID with (maybe) a reason added to why. */
    int (*check)(const char *value, struct strbuf *why);
    /* CONFIG_KEY_WORD: STATUS_OK with *out set, or STATUS_INVALID. */
    int (*word)(const char *value, int *out);
    int shared; /* [plugin.NAME] only: a core key a plugin may declare too (config_shared_key) */
};

/* The keys of [server] and of a [plugin.NAME] section, in the order mcph.ini(5) gives them;
 * each ends with {0}. */
extern const struct config_key config_server_keys[];
extern const struct config_key config_plugin_keys[];
/* The keys of an [access.NAME] and of a [limit.NAME] section (config/edge.c). */
extern const struct config_key config_access_keys[];
extern const struct config_key config_limit_keys[];

/* The key called name in table keys, or NULL. Borrowed from the table. */
const struct config_key *config_key_find(const struct config_key *keys, const char *name);

/* Set key k's member of base (a struct config for a [server] key, a struct config_plugin for
 * a section's) from value (borrowed). dir: the folder a CONFIG_KEY_FILE starts from. why gets
 * what is wrong when the check says more than the help. Returns STATUS_OK, STATUS_INVALID
 * (base untouched) or STATUS_NOMEM. */
int config_key_set(const struct config_key *k, void *base, const char *dir, const char *value,
                   struct strbuf *why) __attribute__((warn_unused_result));

/* An instance id ([plugin.NAME]) or a prefix: 1 to LIMIT_ID of A-Z a-z 0-9 _ -. STATUS_OK or
 * STATUS_INVALID; why (may be NULL) is not written. */
int config_id_check(const char *value, struct strbuf *why);

/* What a value of k is, as the end of "use ...", into sb. */
void config_key_help(const struct config_key *k, struct strbuf *sb);

/* The names of table keys as one line, "path, enabled, ...", appended to sb. */
void config_key_names(const struct config_key *keys, struct strbuf *sb);

/* Whether key belongs to mcph in a [plugin.NAME] section (path, enabled, prefix, the cache
 * keys, max_concurrent, the filters): a plugin may not declare a key of that name. */
int config_core_key(const char *key);

/* Whether core key `key` is one a plugin may declare too (call_timeout_ms): the only ones.
 * In a section without isolate = process, the loader refuses it (FILE:LINE) unless the
 * plugin declares it, and then hands its value to the plugin through host->config. */
int config_shared_key(const char *key);

/* The i-th of those keys (from 0), static; NULL past the last. */
const char *config_shared_key_name(size_t i);

/* The value of shared key `key` in section pl as text appended to sb, when the section sets
 * it. Returns the line it was set on, or 0 when not set (sb untouched). */
int config_shared_key_get(const struct config_plugin *pl, const char *key, struct strbuf *sb);

/* Those keys as one line for messages, "path, enabled, ...", appended to sb. */
void config_core_key_names(struct strbuf *sb);

#endif
