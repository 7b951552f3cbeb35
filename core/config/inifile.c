#include "config/inifile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the quote opened at *q ends on the line (in "..." a backslash escapes the next
 * character), or NULL when it does not. */
static const char *inifile_quote_end(const char *q)
{
    for (const char *c = q + 1; *c != '\0'; c++) {
        if (*q == '"' && *c == '\\' && c[1] != '\0')
            c++;
        else if (*c == *q)
            return c;
    }
    return NULL;
}

/* The length of value text s up to its comment: a ';' after white space, unless in quotes
 * (a " or ' at the start of a word, closed later on the line). libinih cuts at every such
 * ';', quotes or not. */
static size_t inifile_uncommented(const char *s)
{
    int was_space = 0;

    for (const char *c = s; *c != '\0'; c++) {
        const char *end = NULL;

        if ((*c == '"' || *c == '\'') && (c == s || isspace((unsigned char)c[-1])))
            end = inifile_quote_end(c);
        if (end != NULL) {
            c = end;
            was_space = 0;
            continue;
        }
        if (was_space && *c == ';')
            return (size_t)(c - s);
        was_space = isspace((unsigned char)*c) != 0;
    }
    return strlen(s);
}

const char *inifile_value(const char *raw, int continuation, char *out)
{
    const char *s = raw + strspn(raw, " \t");
    size_t len;

    if (!continuation)
        s += strcspn(s, "=:") + (s[strcspn(s, "=:")] != '\0');
    len = inifile_uncommented(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    memcpy(out, s, len);
    out[len] = '\0';
    return out;
}

/* pread, because a descriptor an isolated child shares with its parent shares its offset
 * too. */
char *inifile_read_fd(int fd, const char *path, struct diag *errs)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    ssize_t n;

    do {
        if (cap - len < 4096) {
            char *grown = realloc(text, cap + 65536);

            if (grown == NULL) {
                errs->nomem = 1;
                free(text);
                return NULL;
            }
            text = grown;
            cap += 65536;
        }
        n = pread(fd, text + len, cap - len - 1, (off_t)len);
        if (n > 0)
            len += (size_t)n;
    } while (n > 0 || (n < 0 && errno == EINTR));
    text[len] = '\0';
    if (n < 0 || memchr(text, '\0', len) != NULL) {
        diag_add(errs, "%s: cannot read it as text; is it an INI file?", path);
        free(text);
        return NULL;
    }
    return text;
}

char *inifile_read_file(const char *path, struct diag *errs)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *text;

    if (fd < 0) {
        diag_add(errs, "%s: cannot open: %s; check the path", path, strerror(errno));
        return NULL;
    }
    text = inifile_read_fd(fd, path, errs);
    close(fd);
    return text;
}
