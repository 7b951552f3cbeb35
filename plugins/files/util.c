/*
 * util.c: the small pieces every other module of the files plugin uses: messages, UTF-8
 * checks, percent-encoding, MIME types and config values (the buffer and JSON strings come
 * from the shared mcph-strbuf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "files.h"

/* --- Errors and messages. --- */

int files_fail(struct files_error *err, int status, const char *fmt, ...)
{
    va_list ap;

    err->status = status;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof(err->text), fmt, ap);
    va_end(ap);
    return status;
}

void files_show(const char *path, char *out, size_t size)
{
    enum { SHOWN = 100 };
    size_t len = strlen(path);
    size_t keep = files_utf8_cut(path, len > SHOWN ? SHOWN : len);
    size_t n = 0;

    if (size == 0)
        return;
    for (size_t i = 0; i < keep && n + 1 < size; i++) {
        unsigned char c = (unsigned char)path[i];
        out[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    out[n] = '\0';
    if (keep < len)
        snprintf(out + n, size - n, "... (%zu bytes)", len);
}

const char *files_strerror(int errnum, char *buf, size_t size)
{
    /* GNU strerror_r: returns a static string or one written into buf. */
    return strerror_r(errnum, buf, size);
}

/* --- UTF-8. --- */

int files_utf8_text(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;

    for (size_t i = 0; i < n;) {
        if (p[i] == 0)
            return 0;
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = mcph_sb_utf8_len(p + i, n - i);
        if (len == 0)
            return 0;
        i += len;
    }
    return 1;
}

size_t files_utf8_cut(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = n;

    /* Back over continuation bytes to the start of the last character; keep it only if
     * it is complete. */
    while (i > 0 && (p[i - 1] & 0xc0) == 0x80 && n - i < 3)
        i--;
    if (i > 0 && p[i - 1] >= 0xc0) {
        size_t start = i - 1;
        size_t want = p[start] >= 0xf0 ? 4 : p[start] >= 0xe0 ? 3 : 2;
        return n - start >= want ? start + want : start;
    }
    return n;
}

/* --- Percent-encoding. --- */

static int files_uri_plain(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '/';
}

char *files_uri_encode(const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    struct mcph_strbuf out = MCPH_STRBUF_INIT;

    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        char esc[3] = {'%', hex[*s >> 4], hex[*s & 15]};

        if (files_uri_plain(*s))
            mcph_sb_addch(&out, (char)*s);
        else
            mcph_sb_add(&out, esc, sizeof(esc));
    }
    return mcph_sb_detach(&out, NULL);
}

static int files_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int files_uri_decode(const char *s, char **out, struct files_error *err)
{
    size_t len = strlen(s);
    char *dec = malloc(len + 1);
    size_t n = 0;

    if (!dec)
        return files_fail(err, MCPH_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '%') {
            dec[n++] = s[i];
            continue;
        }
        int hi = i + 2 < len ? files_hex(s[i + 1]) : -1;
        int lo = hi >= 0 ? files_hex(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            free(dec);
            return files_fail(err, MCPH_ERR_INVALID,
                              "the URI has a bad percent escape at byte %zu: '%%' must be "
                              "followed by two hex digits",
                              i);
        }
        if (hi == 0 && lo == 0) {
            free(dec);
            return files_fail(err, MCPH_ERR_INVALID,
                              "the URI is refused: %%00 (a NUL byte) at byte %zu cannot be part "
                              "of a path",
                              i);
        }
        dec[n++] = (char)(hi * 16 + lo);
        i += 2;
    }
    dec[n] = '\0';
    *out = dec;
    return MCPH_OK;
}

/* --- MIME types. --- */

struct files_mime {
    const char *suffix; /* ".ext" (compared without case) or a whole file name */
    const char *type;
};

static const struct files_mime files_mime_table[] = {
    {".md", "text/markdown"},
    {".markdown", "text/markdown"},
    {".txt", "text/plain"},
    {".text", "text/plain"},
    {".log", "text/plain"},
    {".ini", "text/plain"},
    {".cfg", "text/plain"},
    {".conf", "text/plain"},
    {".rst", "text/x-rst"},
    {".json", "application/json"},
    {".c", "text/x-c"},
    {".h", "text/x-c"},
    {".cc", "text/x-c++"},
    {".cpp", "text/x-c++"},
    {".cxx", "text/x-c++"},
    {".hpp", "text/x-c++"},
    {".hh", "text/x-c++"},
    {".py", "text/x-python"},
    {".rs", "text/x-rust"},
    {".go", "text/x-go"},
    {".java", "text/x-java"},
    {".rb", "text/x-ruby"},
    {".js", "text/javascript"},
    {".mjs", "text/javascript"},
    {".cjs", "text/javascript"},
    {".ts", "text/x-typescript"},
    {".sh", "text/x-shellscript"},
    {".html", "text/html"},
    {".htm", "text/html"},
    {".css", "text/css"},
    {".csv", "text/csv"},
    {".tsv", "text/tab-separated-values"},
    {".xml", "application/xml"},
    {".yaml", "application/yaml"},
    {".yml", "application/yaml"},
    {".toml", "application/toml"},
    {".sql", "application/sql"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"},
    {".gif", "image/gif"},
    {".webp", "image/webp"},
    {".bmp", "image/bmp"},
    {".ico", "image/vnd.microsoft.icon"},
    {".pdf", "application/pdf"},
    {".zip", "application/zip"},
    {".gz", "application/gzip"},
    {".tar", "application/x-tar"},
    {".wasm", "application/wasm"},
    {".wav", "audio/wav"},
    {".mp3", "audio/mpeg"},
    {".ogg", "audio/ogg"},
    {".mp4", "video/mp4"},
    {"Makefile", "text/x-makefile"},
    {"Dockerfile", "text/plain"},
    {"README", "text/plain"},
    {"LICENSE", "text/plain"},
    {"COPYING", "text/plain"},
    {"CHANGELOG", "text/plain"},
    {0},
};

/* Types that are text although they are not text/x. */
static const char *const files_text_types[] = {
    "application/json",
    "application/xml",
    "application/yaml",
    "application/toml",
    "application/sql",
    "image/svg+xml",
    NULL,
};

const char *files_mime_type(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strrchr(base, '.');

    for (const struct files_mime *m = files_mime_table; m->suffix; m++) {
        if (m->suffix[0] == '.') {
            if (dot && dot != base && strcasecmp(dot, m->suffix) == 0)
                return m->type;
        } else if (strcmp(base, m->suffix) == 0) {
            return m->type;
        }
    }
    return "application/octet-stream";
}

const char *files_content_type(const char *name, const char *head, size_t len)
{
    const char *mime = files_mime_type(name);

    if (strcmp(mime, "application/octet-stream") != 0)
        return mime;
    size_t n = len > FILES_SNIFF_BYTES ? files_utf8_cut(head, FILES_SNIFF_BYTES) : len;
    return files_utf8_text(head, n) ? "text/plain" : mime;
}

int files_mime_is_text(const char *mime)
{
    if (strncmp(mime, "text/", 5) == 0)
        return 1;
    for (size_t i = 0; files_text_types[i]; i++) {
        if (strcmp(mime, files_text_types[i]) == 0)
            return 1;
    }
    return 0;
}
