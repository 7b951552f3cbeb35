/*
 * audit_verify.c: the audit log's key (read, or made), its chained HMAC, the last line of a
 * file appended to read back, and the check that `mcph --verify-audit FILE` runs over a whole
 * file (audit.h).
 */
#include "served/audit.h"

#include "lib/status.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* What ends every line's body: the MAC member follows it. */
static const char audit_mac_key[] = ",\"mac\":\"";

void audit_mac_init(struct audit_mac *m, const unsigned char *key, size_t keylen)
{
    unsigned char block[SHA256_BLOCK_BYTES] = {0}, digest[SHA256_BYTES];
    struct sha256 c;

    sha256_init(&c);
    sha256_update(&c, key, keylen);
    sha256_final(&c, digest);
    sha256_hex(digest, 8, m->key_id);
    if (keylen > SHA256_BLOCK_BYTES)
        memcpy(block, digest, SHA256_BYTES);
    else
        memcpy(block, key, keylen);
    for (size_t i = 0; i < sizeof(block); i++)
        block[i] ^= 0x36;
    sha256_init(&m->inner);
    sha256_update(&m->inner, block, sizeof(block));
    for (size_t i = 0; i < sizeof(block); i++)
        block[i] ^= 0x36 ^ 0x5c;
    sha256_init(&m->outer);
    sha256_update(&m->outer, block, sizeof(block));
    memset(block, 0, sizeof(block));
}

void audit_mac_line(const struct audit_mac *m, const unsigned char *prev, const char *line,
                    size_t len, unsigned char out[SHA256_BYTES])
{
    struct sha256 c = m->inner;
    unsigned char inner[SHA256_BYTES];

    sha256_update(&c, prev, SHA256_BYTES);
    sha256_update(&c, line, len);
    sha256_final(&c, inner);
    c = m->outer;
    sha256_update(&c, inner, sizeof(inner));
    sha256_final(&c, out);
}

/* Make a new key file at path: 32 random bytes, as 64 hex digits, mode 0600. */
static int audit_key_make(const char *path, struct strbuf *why)
{
    unsigned char rnd[32];
    char text[2 * sizeof(rnd) + 2];
    int fd;
    ssize_t n;

    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        strbuf_addf(why, "%s: cannot make a key: getrandom: %s", path, strerror(errno));
        return STATUS_IO;
    }
    sha256_hex(rnd, sizeof(rnd), text);
    memset(rnd, 0, sizeof(rnd));
    strcat(text, "\n");
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        strbuf_addf(why, "%s: cannot make the audit key: %s", path, strerror(errno));
        return STATUS_INVALID;
    }
    n = write(fd, text, strlen(text));
    memset(text, 0, sizeof(text));
    if (n != (ssize_t)(2 * sizeof(rnd) + 1) || fsync(fd) != 0) {
        strbuf_addf(why, "%s: cannot write the audit key: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return STATUS_INVALID;
    }
    close(fd);
    return STATUS_OK;
}

/* The key file's bytes, after checking who may read it. */
static int audit_key_read(int fd, const char *path, unsigned char *key, size_t *len,
                          struct strbuf *why)
{
    struct stat st;
    ssize_t n;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        strbuf_addf(why, "%s: the audit key is not a regular file", path);
        return STATUS_INVALID;
    }
    if (st.st_mode & 077) {
        strbuf_addf(why,
                    "%s: the audit key has mode %04o: others may read or change it; "
                    "chmod 600 it (and keep it where whoever may change the log cannot read it)",
                    path, (unsigned)(st.st_mode & 07777));
        return STATUS_INVALID;
    }
    n = read(fd, key, AUDIT_KEY_MAX);
    if (n < 0) {
        strbuf_addf(why, "%s: cannot read the audit key: %s", path, strerror(errno));
        return STATUS_INVALID;
    }
    while (n > 0 && (key[n - 1] == '\n' || key[n - 1] == '\r' || key[n - 1] == ' '))
        n--;
    if (n < AUDIT_KEY_MIN) {
        strbuf_addf(why,
                    "%s: the audit key has %zd bytes, fewer than %d; remove it and mcph makes "
                    "one, or write 32 random bytes or more",
                    path, n, AUDIT_KEY_MIN);
        return STATUS_INVALID;
    }
    *len = (size_t)n;
    return STATUS_OK;
}

int audit_key_load(const char *path, int make, unsigned char *key, size_t *len, struct strbuf *why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int status;

    if (fd < 0 && errno == ENOENT && make) {
        status = audit_key_make(path, why);
        if (status != STATUS_OK)
            return status;
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        strbuf_addf(why, "%s: cannot open the audit key: %s", path, strerror(errno));
        return errno == ENOENT ? STATUS_NOT_FOUND : STATUS_INVALID;
    }
    status = audit_key_read(fd, path, key, len, why);
    close(fd);
    return status;
}

/* --- A file appended to. --- */

/* The bytes read at a time while looking back for the start of a file's last line. */
#define AUDIT_TAIL_CHUNK (64 * 1024)

int audit_whole(double x)
{
    return isfinite(x) && fabs(x) < 9223372036854775808.0 && x == trunc(x);
}

int audit_tail_read(int fd, const char *path, struct audit_tail *t, struct strbuf *why)
{
    char chunk[AUDIT_TAIL_CHUNK], *text = NULL;
    struct stat st;
    off_t start, at;
    const char *mac;
    cJSON *line = NULL;
    int status = STATUS_INVALID;

    memset(t, 0, sizeof(*t));
    if (fstat(fd, &st) != 0 || st.st_size <= 0)
        return STATUS_OK;
    if (pread(fd, chunk, 1, st.st_size - 1) != 1 || chunk[0] != '\n') {
        strbuf_addf(why,
                    "%s: the file does not end with a newline (a line cut by a crash?): "
                    "check it with mcph --verify-audit, then move it aside",
                    path);
        return STATUS_INVALID;
    }
    /* The newline before the last line, looked for backwards a chunk at a time. */
    start = 0;
    for (at = st.st_size - 1; at > 0 && start == 0;) {
        size_t want = at < AUDIT_TAIL_CHUNK ? (size_t)at : AUDIT_TAIL_CHUNK;

        if (pread(fd, chunk, want, at - (off_t)want) != (ssize_t)want)
            break;
        for (size_t i = want; i > 0; i--) {
            if (chunk[i - 1] == '\n') {
                start = at - (off_t)want + (off_t)i;
                break;
            }
        }
        at -= (off_t)want;
    }
    text = malloc((size_t)(st.st_size - start));
    if (text != NULL &&
        pread(fd, text, (size_t)(st.st_size - start - 1), start) == st.st_size - start - 1)
        line = cJSON_ParseWithLength(text, (size_t)(st.st_size - start - 1));
    mac = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "mac"));
    if (text == NULL) {
        strbuf_addf(why, "%s: out of memory reading its last line", path);
        status = STATUS_NOMEM;
    } else if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(line, "seq")) ||
               !audit_whole(cJSON_GetObjectItemCaseSensitive(line, "seq")->valuedouble) ||
               cJSON_GetObjectItemCaseSensitive(line, "seq")->valuedouble < 0 || mac == NULL ||
               strlen(mac) != 2 * SHA256_BYTES || audit_unhex(mac, t->mac, SHA256_BYTES) != 0) {
        strbuf_addf(why,
                    "%s: its last line is not an audit line (no seq or mac): not appending "
                    "to it",
                    path);
    } else {
        t->seq = (uint64_t)cJSON_GetObjectItemCaseSensitive(line, "seq")->valuedouble;
        t->found = 1;
        status = STATUS_OK;
    }
    cJSON_Delete(line);
    free(text);
    return status;
}

/* --- The check. --- */

/* What the check has seen so far. */
struct audit_check {
    const struct audit_mac *mac;
    unsigned char prev[SHA256_BYTES]; /* the last line's MAC */
    long long seq;                    /* the last line's seq */
    long long first;                  /* the first line's seq */
    size_t lines;                     /* lines checked */
    const unsigned char *after;       /* --after: the MAC before the file (rotated), or NULL */
};

int audit_unhex(const char *hex, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < 2 * n; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

        if (v < 0)
            return STATUS_INVALID;
        if (i % 2 == 0)
            out[i / 2] = (unsigned char)(v << 4);
        else
            out[i / 2] |= (unsigned char)v;
    }
    return STATUS_OK;
}

/* The MAC a line carries, and the length of what it covers; STATUS_INVALID when the line
 * does not end with one. */
static int audit_split(const char *line, size_t len, size_t *covered, unsigned char *mac)
{
    size_t tail = sizeof(audit_mac_key) - 1 + 2 * SHA256_BYTES + 2;

    if (len < tail || memcmp(line + len - tail, audit_mac_key, sizeof(audit_mac_key) - 1) != 0 ||
        memcmp(line + len - 2, "\"}", 2) != 0)
        return STATUS_INVALID;
    *covered = len - tail;
    return audit_unhex(line + *covered + sizeof(audit_mac_key) - 1, mac, SHA256_BYTES);
}

/* A header line (kind "open"). The first line of a file: a new log's (prev_mac null, seq 0,
 * chained from zero) or, with --after, a rotated file's (prev_mac the MAC given, chained from
 * it). In the middle of a file (a restart or a reopen that appended): prev_mac the MAC of the
 * line before, its seq followed, chained from it like any line. */
static int audit_check_open(struct audit_check *ck, const cJSON *line, long long seq,
                            struct strbuf *why)
{
    const char *key_id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "key_id"));
    const cJSON *prev_item = cJSON_GetObjectItemCaseSensitive(line, "prev_mac");
    const char *prev = cJSON_GetStringValue(prev_item);
    unsigned char named[SHA256_BYTES];
    int has = prev != NULL && strlen(prev) == 2 * SHA256_BYTES &&
              audit_unhex(prev, named, SHA256_BYTES) == STATUS_OK;

    if (key_id == NULL || strcmp(key_id, ck->mac->key_id) != 0) {
        strbuf_addf(why, "written under key %s, the key file holds key %s: verify with that key",
                    key_id ? key_id : "(none)", ck->mac->key_id);
        return STATUS_INVALID;
    }
    if (ck->lines > 0) {
        if (!has || !sha256_equal(named, ck->prev, SHA256_BYTES)) {
            strbuf_addstr(why, "reopened without the MAC of the line before (prev_mac): a line "
                               "before it is missing or changed");
            return STATUS_INVALID;
        }
        if (seq != ck->seq + 1) {
            strbuf_addf(why, "sequence gap: seq %lld after %lld", seq, ck->seq);
            return STATUS_INVALID;
        }
        return STATUS_OK;
    }
    if (ck->after == NULL && (!cJSON_IsNull(prev_item) || seq != 0)) {
        strbuf_addf(why,
                    "the header names a line before it (seq %lld, prev_mac %s): the start "
                    "of the file was cut, or it is a rotated file: verify it with --after "
                    "and the previous file's last MAC",
                    seq, prev ? prev : "(none)");
        return STATUS_INVALID;
    }
    if (ck->after != NULL && (!has || !sha256_equal(named, ck->after, SHA256_BYTES))) {
        strbuf_addstr(why, "the header's prev_mac is not the MAC given with --after");
        return STATUS_INVALID;
    }
    /* The chain starts where the file's predecessor ended (--after), or at zero. */
    if (ck->after != NULL)
        memcpy(ck->prev, ck->after, sizeof(ck->prev));
    else
        memset(ck->prev, 0, sizeof(ck->prev));
    return STATUS_OK;
}

/* Check one line (len bytes, its newline excluded). */
static int audit_check_line(struct audit_check *ck, const char *text, size_t len,
                            struct strbuf *why)
{
    unsigned char mac[SHA256_BYTES], want[SHA256_BYTES];
    cJSON *line = cJSON_ParseWithLength(text, len);
    const cJSON *seq_item = cJSON_GetObjectItemCaseSensitive(line, "seq");
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "kind"));
    int open = kind != NULL && strcmp(kind, "open") == 0;
    long long seq = 0;
    size_t covered;
    int status = STATUS_INVALID;

    /* Only a whole number in range is cast (a hostile file may say 1e999). */
    if (cJSON_IsNumber(seq_item) && audit_whole(seq_item->valuedouble) &&
        seq_item->valuedouble >= 0)
        seq = (long long)seq_item->valuedouble;
    else
        seq_item = NULL;
    if (!cJSON_IsObject(line)) {
        strbuf_addstr(why, "not JSON");
    } else if (seq_item == NULL || audit_split(text, len, &covered, mac) != STATUS_OK) {
        strbuf_addstr(why, "no seq (a whole number) or no mac member at its end");
    } else if (ck->lines == 0 && !open) {
        strbuf_addstr(why, "the first line is not a header (kind \"open\"): lines before it "
                           "were removed");
    } else if (!open && seq != ck->seq + 1) {
        strbuf_addf(why, "sequence gap: seq %lld after %lld (a line removed or moved)", seq,
                    ck->seq);
    } else if (open && audit_check_open(ck, line, seq, why) != STATUS_OK) {
        /* why says it */
    } else {
        audit_mac_line(ck->mac, ck->prev, text, covered, want);
        if (!sha256_equal(want, mac, SHA256_BYTES)) {
            strbuf_addstr(why, "MAC mismatch: the line was changed, or a line before it");
        } else {
            memcpy(ck->prev, mac, sizeof(mac));
            if (ck->lines == 0)
                ck->first = seq;
            ck->seq = seq;
            ck->lines++;
            status = STATUS_OK;
        }
    }
    cJSON_Delete(line);
    return status;
}

/* The whole file, read at once (an audit file to check fits in memory). */
static int audit_slurp(const char *path, char **text, size_t *len, struct strbuf *report)
{
    FILE *f = fopen(path, "rb");
    struct strbuf sb = STRBUF_INIT;
    char chunk[65536];
    size_t n;

    if (f == NULL) {
        strbuf_addf(report, "%s: %s", path, strerror(errno));
        return STATUS_IO;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        (void)strbuf_add(&sb, chunk, n);
    if (ferror(f) || sb.nomem) {
        strbuf_addf(report, "%s: cannot read it%s", path, sb.nomem ? ": out of memory" : "");
        fclose(f);
        strbuf_release(&sb);
        return STATUS_IO;
    }
    fclose(f);
    *text = strbuf_detach(&sb, len);
    return STATUS_OK;
}

static int audit_verify_text(const char *path, const char *text, size_t len,
                             const struct audit_mac *mac, const unsigned char *after,
                             struct strbuf *report)
{
    struct audit_check ck = {.mac = mac, .after = after};
    struct strbuf why = STRBUF_INIT;
    size_t at = 0, lineno = 0;

    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);

        lineno++;
        if (nl == NULL) {
            strbuf_addf(report, "%s:%zu: truncated last line (no newline at its end)", path,
                        lineno);
            return 1;
        }
        if (audit_check_line(&ck, text + at, (size_t)(nl - (text + at)), &why) != STATUS_OK) {
            strbuf_addf(report, "%s:%zu: %s", path, lineno, why.buf);
            strbuf_release(&why);
            return 1;
        }
        at = (size_t)(nl - text) + 1;
    }
    if (lineno == 0) {
        strbuf_addf(report, "%s:1: empty: not even a header line", path);
        return 1;
    }
    strbuf_addf(report, "%s: %zu lines verified (seq %lld to %lld)", path, lineno, ck.first,
                ck.seq);
    return 0;
}

int audit_verify(const char *path, const char *key_path, const char *after, struct strbuf *report)
{
    unsigned char key[AUDIT_KEY_MAX], after_mac[SHA256_BYTES];
    struct strbuf default_key = STRBUF_INIT;
    struct audit_mac mac;
    size_t keylen = 0, len = 0;
    char *text = NULL;
    int code;

    if (after != NULL &&
        (strlen(after) != 2 * SHA256_BYTES || audit_unhex(after, after_mac, SHA256_BYTES) != 0)) {
        strbuf_addf(report, "--after %s: not a MAC (64 hex digits)", after);
        return 2;
    }
    if (key_path == NULL) {
        strbuf_addf(&default_key, "%s.key", path);
        key_path = default_key.buf;
    }
    if (audit_key_load(key_path, 0, key, &keylen, report) != STATUS_OK) {
        strbuf_release(&default_key);
        return 2;
    }
    strbuf_release(&default_key);
    audit_mac_init(&mac, key, keylen);
    memset(key, 0, sizeof(key));
    if (audit_slurp(path, &text, &len, report) != STATUS_OK)
        return 2;
    code = audit_verify_text(path, text, len, &mac, after ? after_mac : NULL, report);
    free(text);
    return code;
}
