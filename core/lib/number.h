/*
 * number.h: JSON numbers printed exactly. cJSON prints a double with 15 significant digits
 * unless a loose check finds they do not read back "close enough", so 0.30000000000000004
 * goes out as 0.3 and 1234567890123457 as 1.23456789012346e+15. What mcph passes on (a
 * plugin's structured result to the client, the client's arguments to a plugin as JSON text)
 * must keep every digit: each number that would lose one becomes a raw node holding the
 * shortest text that reads back to the same double.
 */
#ifndef MCPH_NUMBER_H
#define MCPH_NUMBER_H

#include <cJSON.h>

/* Make every number of `tree` (owned by the caller, changed in place) print exactly. The
 * numbers changed become raw nodes, so call it after anything that reads them as numbers
 * (schema checks). Returns STATUS_OK or STATUS_NOMEM (the tree is then partly changed, but
 * still valid). */
int number_exact(cJSON *tree) __attribute__((warn_unused_result));

/* cJSON_PrintUnformatted(item) with every number exact; item is not changed. A new string
 * owned by the caller, or NULL when out of memory. */
char *number_print(const cJSON *item);

#endif
