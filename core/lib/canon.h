/*
 * canon.h: canonical JSON (one text for one value, whatever order or spacing it came in),
 * its SHA-256, and a short diff of two values by path. Used to pin definitions
 * (served/pin.h); the rules are written down in docs/trust.md ("The canonical form") so that
 * anyone can recompute a hash in another language:
 *
 * - objects: members sorted by key, bytewise on the UTF-8 text (members with the same key
 *   keep their order); arrays: in order; no whitespace anywhere;
 * - strings: UTF-8 as is, escaping only what JSON requires: \" and \\, \b \f \n \r \t, and
 *   \u00XX (lowercase hex) for the other characters below U+0020;
 * - numbers: a whole number of magnitude at most 2^53 as an integer ("-0" is "0"); any other
 *   the shortest of %.1g ... %.17g that reads back as the same double; a number that is not
 *   finite as null;
 * - true, false, null as themselves.
 *
 * Nothing here keeps state: any thread may call any function.
 */
#ifndef MCPH_CANON_H
#define MCPH_CANON_H

#include "lib/strbuf.h"

#include <cJSON.h>

/* The size of a hex SHA-256 with its NUL. */
#define CANON_HEX_BYTES 65

/* Append the canonical text of item (borrowed for the call) to sb. Returns STATUS_OK,
 * STATUS_NOMEM, or STATUS_INVALID for an item JSON cannot hold (cJSON_Raw, an invalid
 * item). */
int canon_append(struct strbuf *sb, const cJSON *item) __attribute__((warn_unused_result));

/* Append s (borrowed, NUL-terminated UTF-8) as a canonical JSON string, quotes included.
 * STATUS_OK or STATUS_NOMEM (sb->nomem is set too, so a caller adding many pieces may look
 * once at the end). */
int canon_append_string(struct strbuf *sb, const char *s);

/* The hex SHA-256 (lowercase) of item's canonical text into hex. STATUS_OK, STATUS_NOMEM or
 * STATUS_INVALID (as canon_append). */
int canon_hash(const cJSON *item, char hex[CANON_HEX_BYTES]) __attribute__((warn_unused_result));

/* Whether a and b (borrowed) have the same canonical text; an allocation failure counts as
 * different. */
int canon_equal(const cJSON *a, const cJSON *b);

/*
 * What changed from `was` to `now` (both borrowed), a line each, appended to sb with "\n"
 * after each line; at most max_lines lines, then "... and N more". Members are named by
 * their path from the top, dot-separated ("inputSchema.properties.path", an array element
 * as "[2]"); a member of one side only is "PATH: added" or "PATH: removed"; a value that
 * differs is "PATH: OLD -> NEW", each side its canonical text cut to about 60 characters
 * ("..." after a cut). Objects are compared member by member; arrays and scalars whole.
 * Returns the number of differences (0: same), or STATUS_NOMEM.
 */
int canon_diff(struct strbuf *sb, const cJSON *was, const cJSON *now, int max_lines)
    __attribute__((warn_unused_result));

#endif
