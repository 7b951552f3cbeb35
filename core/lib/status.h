/*
 * status.h: the one status table of the core. Functions that can fail return int: 0 for
 * success or a negative STATUS_* code. The enum and the messages come from one X-macro
 * list so they cannot drift apart.
 */
#ifndef MCPH_STATUS_H
#define MCPH_STATUS_H

#define STATUS_LIST(X)                                                                             \
    X(STATUS_OK, 0, "success")                                                                     \
    X(STATUS_NOMEM, -1, "out of memory")                                                           \
    X(STATUS_IO, -2, "input/output error")                                                         \
    X(STATUS_CONFIG, -3, "configuration error")                                                    \
    X(STATUS_PLUGIN, -4, "plugin refused")                                                         \
    X(STATUS_INVALID, -5, "invalid input")                                                         \
    X(STATUS_LIMIT, -6, "limit exceeded")                                                          \
    X(STATUS_NOT_FOUND, -7, "not found")                                                           \
    X(STATUS_EXISTS, -8, "already exists")                                                         \
    X(STATUS_EOF, -9, "end of input")                                                              \
    X(STATUS_AGAIN, -10, "nothing yet")

enum status {
#define STATUS_ENUM(name, value, text) name = value,
    STATUS_LIST(STATUS_ENUM)
#undef STATUS_ENUM
};

/* The text of a status code ("unknown status" for a code not in the table). Static. */
const char *status_str(int status);

/*
 * The plugin ABI has its own codes (enum mcph_status, plugin-api.h). The core's functions
 * return STATUS_* codes; a value crosses the ABI (a host vtable member's return, a plugin's
 * return read by the core) only through these two, the one place where the two tables meet.
 */

/* The MCPH_* code a plugin is given for status: MCPH_ERR for a code with no ABI peer. */
int status_to_mcph(int status);

/* The STATUS_* code for what a plugin returned: STATUS_PLUGIN for an MCPH_* code with no
 * peer here (the plugin refused). */
int status_from_mcph(int mcph);

#endif
