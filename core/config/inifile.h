/*
 * inifile.h: the INI text below libinih. mcph reads the file itself (whole, from a path or
 * from a descriptor an isolated child shares with its parent) and takes each value again
 * from the raw line, because libinih cuts a value at every ';' after white space, quoted or
 * not, while mcph keeps a ';' that is inside quotes.
 */
#ifndef MCPH_INIFILE_H
#define MCPH_INIFILE_H

#include "lib/diag.h"

/* The value of raw line `raw` (borrowed): after the first '=' or ':' of a key line, or the
 * whole of a continuation line (continuation 1), without its comment (a ';' after white
 * space, unless in quotes: a " or ' at the start of a word, closed later on the line) and
 * without outer white space. Written to out, which holds at least strlen(raw) + 1 bytes;
 * returns out. */
const char *inifile_value(const char *raw, int continuation, char *out);

/* The whole text behind fd, from its start, NUL-terminated. path names it in messages. Owned
 * by the caller; NULL when it cannot be read as text (a message in errs) or out of memory
 * (errs->nomem). */
char *inifile_read_fd(int fd, const char *path, struct diag *errs);

/* The same for the file at path, opened and closed here. */
char *inifile_read_file(const char *path, struct diag *errs);

#endif
