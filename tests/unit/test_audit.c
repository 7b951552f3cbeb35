/* test_audit.c: the audit log's chain and its verifier. The MAC is HMAC-SHA-256 over the MAC
 * before and the line; a key is made 0600 and refused when others may read it or when it is
 * short; lines written from several threads verify; a changed byte, a removed line (the
 * header too), two swapped lines and a cut last line are each caught at their line; a file
 * reopened after a move starts with a header naming the last MAC before it, and so does a
 * file appended to (its header chained to the line before, so that a cut start is caught),
 * and a file with its rotated successor verifies as one; a reopen into a file whose end is
 * not a whole line leaves the old file going on;
 * a file with a cut last line is not appended to, a long last line is; ids and seqs no long
 * long holds are never cast; a link or a file others may write is refused; a log that cannot
 * grow loses lines and counts them, and calls never wait.
 * Files go under build/tests/tmp/audit/. */
#include "served/audit.h"

#include "lib/status.h"

#include "check.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char test_dir[256];

static const char *test_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", test_dir, name);
    return buf;
}

/* A fresh log path (and its key) named name. */
static const char *test_fresh(char *buf, size_t size, const char *name)
{
    char key[600];

    test_path(buf, size, name);
    snprintf(key, sizeof(key), "%s.key", buf);
    unlink(buf);
    unlink(key);
    return buf;
}

static struct log test_log;

/* n calls of echo by token:i, args {"n": k}. */
static void test_calls(struct audit *a, int who, int n)
{
    char id[32], label[32];

    snprintf(id, sizeof(id), "token:%d", who);
    snprintf(label, sizeof(label), "token %d", who + 1);
    for (int k = 0; k < n; k++) {
        cJSON *args = cJSON_CreateObject();
        cJSON *rid = cJSON_CreateNumber(k);
        struct audit_entry e = {.principal = id,
                                .principal_label = label,
                                .id = rid,
                                .method = "tools/call",
                                .target = "echo \"quoted\"\n",
                                .plugin = "example",
                                .outcome = k % 3 == 0 ? AUDIT_RESULT : AUDIT_REFUSED,
                                .why = k % 3 == 0 ? NULL : "unknown",
                                .code = k % 3 == 0 ? 0 : -32602,
                                .duration_us = k,
                                .args = args,
                                .with_args = k % 2};

        cJSON_AddNumberToObject(args, "n", k);
        audit_call(a, &e);
        cJSON_Delete(args);
        cJSON_Delete(rid);
    }
}

/* The key of log from beside log to (a hard link). */
static void test_key_copy(const char *from, const char *to)
{
    char a[600], b[600];

    snprintf(a, sizeof(a), "%s.key", from);
    snprintf(b, sizeof(b), "%s.key", to);
    unlink(b);
    CHECK(link(a, b) == 0);
}

/* The verifier's exit and report for path. */
static int test_verify(const char *path, struct strbuf *report)
{
    strbuf_reset(report);
    return audit_verify(path, NULL, NULL, report);
}

static char *test_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = malloc(1 << 22);

    *len = f && text ? fread(text, 1, (1 << 22) - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    if (text != NULL)
        text[*len] = '\0';
    return text;
}

static void test_write(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");

    if (f != NULL) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

/* The offset of line n (from 1) in text, or -1. */
static long test_line_at(const char *text, int n)
{
    const char *p = text;

    for (int i = 1; i < n && p != NULL; i++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return p && *p ? p - text : -1;
}

static void test_mac_is_hmac(void)
{
    unsigned char key[40], prev[SHA256_BYTES], a[SHA256_BYTES], b[SHA256_BYTES];
    unsigned char msg[SHA256_BYTES + 11];
    struct audit_mac m;

    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (unsigned char)(i * 7);
    for (size_t i = 0; i < sizeof(prev); i++)
        prev[i] = (unsigned char)(255 - i);
    memcpy(msg, prev, sizeof(prev));
    memcpy(msg + sizeof(prev), "{\"seq\":1,x}", 11);
    audit_mac_init(&m, key, sizeof(key));
    audit_mac_line(&m, prev, "{\"seq\":1,x}", 11, a);
    sha256_hmac(key, sizeof(key), msg, sizeof(msg), b);
    CHECK(memcmp(a, b, sizeof(a)) == 0);
    CHECK_INT_EQ(strlen(m.key_id), 16);
}

static void test_key_rules(void)
{
    unsigned char key[AUDIT_KEY_MAX];
    struct strbuf why = STRBUF_INIT;
    char path[512];
    struct stat st;
    size_t len = 0;

    test_fresh(path, sizeof(path), "made.key");
    CHECK_INT_EQ(audit_key_load(path, 0, key, &len, &why), STATUS_NOT_FOUND);
    strbuf_reset(&why);
    CHECK_INT_EQ(audit_key_load(path, 1, key, &len, &why), STATUS_OK);
    CHECK_INT_EQ(len, 64);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    chmod(path, 0640);
    CHECK_INT_EQ(audit_key_load(path, 1, key, &len, &why), STATUS_INVALID);
    CHECK_STR_HAS(why.buf, "others may read");
    CHECK_STR_HAS(why.buf, path);
    test_path(path, sizeof(path), "short.key");
    unlink(path);
    test_write(path, "0123456789\n", 11);
    chmod(path, 0600);
    strbuf_reset(&why);
    CHECK_INT_EQ(audit_key_load(path, 1, key, &len, &why), STATUS_INVALID);
    CHECK_STR_HAS(why.buf, "fewer than 32");
    strbuf_release(&why);
}

struct test_thread {
    struct audit *a;
    int who;
};

static void *test_thread_run(void *arg)
{
    struct test_thread *t = arg;

    test_calls(t->a, t->who, 500);
    return NULL;
}

/* Four threads of 500 calls: 2001 lines (the header first) that verify. */
static const char *test_write_log(char *path, size_t size, const char *name)
{
    struct strbuf why = STRBUF_INIT;
    struct test_thread t[4];
    pthread_t tid[4];
    struct audit *a;

    test_fresh(path, size, name);
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 22, &test_log, &why), STATUS_OK))
        return NULL;
    for (int i = 0; i < 4; i++) {
        t[i] = (struct test_thread){.a = a, .who = i};
        pthread_create(&tid[i], NULL, test_thread_run, &t[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(tid[i], NULL);
    audit_free(a, 5000);
    strbuf_release(&why);
    return path;
}

static void test_chain_verifies(void)
{
    struct strbuf report = STRBUF_INIT;
    char path[512];
    size_t len;
    char *text;

    if (test_write_log(path, sizeof(path), "good.jsonl") == NULL)
        return;
    CHECK_INT_EQ(test_verify(path, &report), 0);
    CHECK_STR_HAS(report.buf, ": 2001 lines verified");
    text = test_read(path, &len);
    CHECK(strstr(text, "\"kind\":\"open\"") != NULL);
    CHECK(strstr(text, "\"target\":\"echo \\\"quoted\\\"\\u000a\"") != NULL);
    CHECK(strstr(text, "\"args\":{\"n\":1}") != NULL);
    /* sha256 of {"n":0}, the compact JSON of the arguments, and no args member for it */
    CHECK(strstr(text,
                 "\"args_sha256\":\"f3013f933b9fb80ab6d995e7ad9da36f683837ba1d81e950c943d40111"
                 "eac2f0\",\"mac\"") != NULL);
    free(text);
    strbuf_release(&report);
}

/* Break a copy of the good log with fn and check the verifier names line `want`. */
static void test_broken(const char *name, void (*fn)(char *text, size_t *len), int want)
{
    struct strbuf report = STRBUF_INIT;
    char good[512], bad[512], at[32];
    size_t len;
    char *text;

    if (test_write_log(good, sizeof(good), "tamper.jsonl") == NULL)
        return;
    text = test_read(good, &len);
    fn(text, &len);
    test_path(bad, sizeof(bad), name);
    test_write(bad, text, len);
    test_key_copy(good, bad);
    CHECK_INT_EQ(test_verify(bad, &report), 1);
    snprintf(at, sizeof(at), ":%d: ", want);
    CHECK_STR_HAS(report.buf, at);
    free(text);
    strbuf_release(&report);
}

static void test_flip_byte(char *text, size_t *len)
{
    long at = test_line_at(text, 700);

    (void)len;
    /* A digit of the duration, the JSON still valid. */
    text[strstr(text + at, "\"duration_us\":") - text + 14] ^= 1;
}

static void test_remove_line(char *text, size_t *len)
{
    long from = test_line_at(text, 300), to = test_line_at(text, 301);

    memmove(text + from, text + to, *len - (size_t)to);
    *len -= (size_t)(to - from);
}

static void test_remove_header(char *text, size_t *len)
{
    long to = test_line_at(text, 2);

    memmove(text, text + to, *len - (size_t)to);
    *len -= (size_t)to;
}

static void test_swap_lines(char *text, size_t *len)
{
    long a = test_line_at(text, 1000), b = test_line_at(text, 1001), c = test_line_at(text, 1002);
    char *tmp = malloc((size_t)(c - a));

    (void)len;
    memcpy(tmp, text + b, (size_t)(c - b));
    memcpy(tmp + (c - b), text + a, (size_t)(b - a));
    memcpy(text + a, tmp, (size_t)(c - a));
    free(tmp);
}

static void test_cut_end(char *text, size_t *len)
{
    (void)text;
    *len -= 10;
}

static void test_tampering(void)
{
    test_broken("flip.jsonl", test_flip_byte, 700);
    test_broken("removed.jsonl", test_remove_line, 300);
    test_broken("noheader.jsonl", test_remove_header, 1);
    test_broken("swapped.jsonl", test_swap_lines, 1000);
    test_broken("cut.jsonl", test_cut_end, 2001);
}

/* A move then a reopen: the old file verifies, the new one starts with a header naming the old
 * file's last MAC; a restart appending to the same file verifies across its two headers. */
static void test_reopen_and_append(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512], moved[512];
    struct audit *a;
    size_t len;
    char *text, *last;

    test_fresh(path, sizeof(path), "rotate.jsonl");
    test_path(moved, sizeof(moved), "rotate.jsonl.1");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_OK))
        return;
    test_calls(a, 0, 10);
    usleep(200 * 1000);
    rename(path, moved);
    CHECK_INT_EQ(audit_reopen(a), STATUS_OK);
    test_calls(a, 1, 10);
    audit_free(a, 5000);
    test_key_copy(path, moved);
    CHECK_INT_EQ(test_verify(moved, &report), 0);
    CHECK_STR_HAS(report.buf, "(seq 0 to 10)");
    /* The rotated file names the old one's last MAC: verified only when given it. */
    CHECK_INT_EQ(test_verify(path, &report), 1);
    CHECK_STR_HAS(report.buf, ":1: the header names a line before it");
    text = test_read(moved, &len);
    last = strrchr(text, '{');
    {
        char *mac = strstr(last ? last : text, "\"mac\":\"");
        char want[100], after[65], *second;
        size_t n2;

        snprintf(want, sizeof(want), "\"prev_mac\":\"%.64s\"", mac ? mac + 7 : "");
        snprintf(after, sizeof(after), "%.64s", mac ? mac + 7 : "");
        second = test_read(path, &n2);
        CHECK(second != NULL && strstr(second, want) != NULL);
        free(second);
        strbuf_reset(&report);
        CHECK_INT_EQ(audit_verify(path, NULL, after, &report), 0);
        CHECK_STR_HAS(report.buf, "(seq 11 to 21)");
        after[0] = after[0] == '0' ? '1' : '0';
        strbuf_reset(&report);
        CHECK_INT_EQ(audit_verify(path, NULL, after, &report), 1);
    }
    free(text);
    /* A restart appends: a second header in the same file, chained to the line before. */
    if (CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_OK)) {
        test_calls(a, 2, 5);
        audit_free(a, 5000);
    }
    strbuf_reset(&report);
    CHECK_INT_EQ(audit_verify(path, NULL, NULL, &report), 1);
    strbuf_reset(&report);
    text = test_read(moved, &len);
    last = strrchr(text, '{');
    {
        char after[65];

        snprintf(after, sizeof(after), "%.64s", strstr(last, "\"mac\":\"") + 7);
        CHECK_INT_EQ(audit_verify(path, NULL, after, &report), 0);
    }
    free(text);
    CHECK_STR_HAS(report.buf, ": 17 lines verified");
    /* The two files in order (a collector's continuous copy) verify as one: the rotated
     * file's header is chained from the moved file's last line. */
    {
        char both[512], *old = test_read(moved, &len), *now;
        size_t n2;

        test_fresh(both, sizeof(both), "rotate-both.jsonl");
        now = test_read(path, &n2);
        if (CHECK(old != NULL && now != NULL)) {
            FILE *f = fopen(both, "wb");

            if (CHECK(f != NULL)) {
                fwrite(old, 1, len, f);
                fwrite(now, 1, n2, f);
                fclose(f);
            }
            test_key_copy(path, both);
            CHECK_INT_EQ(test_verify(both, &report), 0);
            CHECK_STR_HAS(report.buf, ": 28 lines verified (seq 0 to 27)");
        }
        free(old);
        free(now);
    }
    strbuf_release(&why);
    strbuf_release(&report);
}

/* A reopen into a file whose end is not a whole line: audit_reopen does not read it (the
 * writer's thread does), and the writer does not switch to it: the old file goes on. */
static void test_reopen_cut_file(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512], moved[512];
    struct audit *a;
    size_t len;
    char *text;

    test_fresh(path, sizeof(path), "cutnew.jsonl");
    test_fresh(moved, sizeof(moved), "cutnew.jsonl.1");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_OK))
        return;
    test_calls(a, 0, 3);
    usleep(200 * 1000);
    rename(path, moved);
    test_write(path, "{\"seq\":0,\"cut", 13);
    CHECK_INT_EQ(audit_reopen(a), STATUS_OK);
    test_calls(a, 1, 3);
    audit_free(a, 5000);
    text = test_read(path, &len);
    CHECK(text != NULL && len == 13);
    free(text);
    test_key_copy(path, moved);
    CHECK_INT_EQ(test_verify(moved, &report), 0);
    CHECK_STR_HAS(report.buf, ": 7 lines verified (seq 0 to 6)");
    strbuf_release(&why);
    strbuf_release(&report);
}

/* A reopen of a file that was not moved (a reload), with lines still buffered: the header goes
 * on from the last line written, those included. */
static void test_reopen_same_file(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512];
    struct audit *a;

    test_fresh(path, sizeof(path), "same.jsonl");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 16 << 20, &test_log, &why), STATUS_OK))
        return;
    test_calls(a, 0, 3);
    usleep(200 * 1000);
    for (int round = 0; round < 5; round++) {
        test_calls(a, 1, 200);
        CHECK_INT_EQ(audit_reopen(a), STATUS_OK);
        test_calls(a, 2, 200);
    }
    audit_free(a, 5000);
    /* 2003 calls and a header per reopen taken (one waiting may be replaced by the next). */
    CHECK_INT_EQ(test_verify(path, &report), 0);
    CHECK_STR_HAS(report.buf, "(seq 0 to 20");
    strbuf_release(&why);
    strbuf_release(&report);
}

/* [H0,a,b,H1,c,d] (a restart that appended) cut to [H1,c,d]: caught at line 1, because the
 * inner header is chained from the line before it and names a seq past 0. */
static void test_cut_start(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512], cut[512];
    struct audit *a;
    size_t len;
    char *text;
    long at;

    test_fresh(path, sizeof(path), "start.jsonl");
    test_fresh(cut, sizeof(cut), "start-cut.jsonl");
    for (int round = 0; round < 2; round++) {
        if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_OK))
            return;
        test_calls(a, round, 2);
        audit_free(a, 5000);
    }
    CHECK_INT_EQ(test_verify(path, &report), 0);
    CHECK_STR_HAS(report.buf, ": 6 lines verified (seq 0 to 5)");
    text = test_read(path, &len);
    at = test_line_at(text, 4);
    if (CHECK(at > 0 && strstr(text + at, "\"kind\":\"open\"") != NULL)) {
        test_write(cut, text + at, len - (size_t)at);
        test_key_copy(path, cut);
        CHECK_INT_EQ(test_verify(cut, &report), 1);
        CHECK_STR_HAS(report.buf, "start-cut.jsonl:1: the header names a line before it");
    }
    free(text);
    strbuf_release(&why);
    strbuf_release(&report);
}

/* A file whose last line was cut (a crash in the middle of a write) is not appended to; nor is
 * a last line longer than any read back from the end in one go, which is still found. */
static void test_partial_tail(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512];
    struct audit *a = NULL;
    size_t len;
    char *text;

    test_fresh(path, sizeof(path), "partial.jsonl");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_OK))
        return;
    test_calls(a, 0, 3);
    audit_free(a, 5000);
    text = test_read(path, &len);
    test_write(path, text, len - 5);
    free(text);
    a = NULL;
    CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_INVALID);
    CHECK(a == NULL);
    CHECK_STR_HAS(why.buf, "does not end with a newline");
    /* Left as it was: the verifier names the cut line. */
    CHECK_INT_EQ(test_verify(path, &report), 1);
    CHECK_STR_HAS(report.buf, "partial.jsonl:4: truncated");

    /* A last line of 300 KiB (arguments logged): appended to, the chain goes on. */
    test_fresh(path, sizeof(path), "long.jsonl");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 4 << 20, &test_log, &why), STATUS_OK))
        return;
    {
        char *big = malloc(300 * 1024);
        cJSON *args = cJSON_CreateObject();

        memset(big, 'x', 300 * 1024 - 1);
        big[300 * 1024 - 1] = '\0';
        cJSON_AddStringToObject(args, "text", big);
        audit_call(a, &(struct audit_entry){.method = "tools/call",
                                            .target = "echo",
                                            .outcome = AUDIT_RESULT,
                                            .duration_us = 1,
                                            .args = args,
                                            .with_args = 1});
        cJSON_Delete(args);
        free(big);
    }
    audit_free(a, 5000);
    if (CHECK_INT_EQ(audit_open(&a, path, NULL, 4 << 20, &test_log, &why), STATUS_OK)) {
        test_calls(a, 1, 2);
        audit_free(a, 5000);
    }
    CHECK_INT_EQ(test_verify(path, &report), 0);
    CHECK_STR_HAS(report.buf, ": 5 lines verified (seq 0 to 4)");
    strbuf_release(&why);
    strbuf_release(&report);
}

/* Numbers no long long holds: an id is logged as cJSON prints it, a seq is a bad line. */
static void test_huge_numbers(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512], bad[512];
    struct audit *a;
    size_t len;
    char *text, *seq;

    test_fresh(path, sizeof(path), "huge.jsonl");
    test_fresh(bad, sizeof(bad), "huge-seq.jsonl");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_OK))
        return;
    {
        const double ids[] = {1e300, -1e300, 9223372036854775808.0, 1.5};

        for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
            cJSON *id = cJSON_CreateNumber(ids[i]);

            audit_call(a, &(struct audit_entry){.method = "tools/call",
                                                .id = id,
                                                .outcome = AUDIT_RESULT,
                                                .duration_us = 1});
            cJSON_Delete(id);
        }
    }
    audit_free(a, 5000);
    CHECK_INT_EQ(test_verify(path, &report), 0);
    text = test_read(path, &len);
    CHECK_STR_HAS(text, "\"id\":1e+300");
    CHECK_STR_HAS(text, "\"id\":1.5");
    /* A seq of 1e999 (inf when read) on line 2: a bad line, no cast. */
    seq = strstr(text + test_line_at(text, 2), "\"seq\":1");
    if (CHECK(seq != NULL)) {
        struct strbuf edited = STRBUF_INIT;

        strbuf_add(&edited, text, (size_t)(seq - text));
        strbuf_addstr(&edited, "\"seq\":1e999");
        strbuf_addstr(&edited, seq + 7);
        test_write(bad, edited.buf, edited.len);
        test_key_copy(path, bad);
        CHECK_INT_EQ(test_verify(bad, &report), 1);
        CHECK_STR_HAS(report.buf, "huge-seq.jsonl:2: no seq (a whole number)");
        /* Its last line is whole: appended to. */
        CHECK_INT_EQ(audit_open(&a, bad, NULL, 1 << 20, &test_log, &why), STATUS_OK);
        audit_free(a, 5000);
        strbuf_release(&edited);
    }
    free(text);
    strbuf_release(&why);
    strbuf_release(&report);
}

/* The log file itself, not a link to one; a regular file only its owner may write. */
static void test_file_rules(void)
{
    struct strbuf why = STRBUF_INIT;
    char path[512], real[512];
    struct audit *a = NULL;
    int fd;

    test_fresh(path, sizeof(path), "link.jsonl");
    test_fresh(real, sizeof(real), "real.jsonl");
    fd = open(real, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0)
        close(fd);
    CHECK(symlink("real.jsonl", path) == 0); /* beside it: a link that resolves */
    CHECK_INT_EQ(audit_open(&a, path, NULL, 1 << 20, &test_log, &why), STATUS_INVALID);
    CHECK_STR_HAS(why.buf, "symbolic link");
    unlink(path);
    strbuf_reset(&why);
    chmod(real, 0620);
    CHECK_INT_EQ(audit_open(&a, real, NULL, 1 << 20, &test_log, &why), STATUS_INVALID);
    CHECK_STR_HAS(why.buf, "only its owner may write");
    strbuf_reset(&why);
    CHECK_INT_EQ(audit_open(&a, test_dir, NULL, 1 << 20, &test_log, &why), STATUS_INVALID);
    CHECK(a == NULL);
    strbuf_release(&why);
}

/* A log that cannot grow (RLIMIT_FSIZE at its size, SIGXFSZ ignored: EFBIG, as a full disk
 * gives ENOSPC): every line lost and counted, nothing waits. */
static void test_full_disk(void)
{
    struct strbuf why = STRBUF_INIT, report = STRBUF_INIT;
    char path[512];
    uint64_t written, lost;
    struct rlimit was, now;
    struct stat st;
    struct audit *a;

    test_fresh(path, sizeof(path), "full.jsonl");
    if (!CHECK_INT_EQ(audit_open(&a, path, NULL, 64 << 10, &test_log, &why), STATUS_OK))
        return;
    audit_free(a, 5000);
    if (!CHECK(stat(path, &st) == 0 && getrlimit(RLIMIT_FSIZE, &was) == 0))
        return;
    signal(SIGXFSZ, SIG_IGN);
    now = was;
    now.rlim_cur = (rlim_t)st.st_size;
    CHECK(setrlimit(RLIMIT_FSIZE, &now) == 0);
    if (CHECK_INT_EQ(audit_open(&a, path, NULL, 64 << 10, &test_log, &why), STATUS_OK)) {
        test_calls(a, 0, 2000);
        usleep(200 * 1000);
        audit_counts(a, &written, &lost);
        CHECK_INT_EQ(written, 0);
        CHECK_INT_EQ(lost, 2000);
        audit_free(a, 5000);
    }
    setrlimit(RLIMIT_FSIZE, &was);
    signal(SIGXFSZ, SIG_DFL);
    /* Nothing half written: the file is still whole. */
    CHECK_INT_EQ(test_verify(path, &report), 0);
    strbuf_release(&why);
    strbuf_release(&report);
}

static const struct check_test tests[] = {
    {"mac_is_hmac", test_mac_is_hmac},
    {"key_rules", test_key_rules},
    {"chain_verifies", test_chain_verifies},
    {"tampering", test_tampering},
    {"reopen_and_append", test_reopen_and_append},
    {"reopen_same_file", test_reopen_same_file},
    {"reopen_cut_file", test_reopen_cut_file},
    {"cut_start", test_cut_start},
    {"partial_tail", test_partial_tail},
    {"huge_numbers", test_huge_numbers},
    {"file_rules", test_file_rules},
    {"full_disk", test_full_disk},
    {0},
};

int main(void)
{
    log_init(&test_log);
    test_log.fd = -1;
    if (check_tmp(test_dir, sizeof(test_dir), "audit") == NULL)
        return 1;
    return check_main("test_audit", tests);
}
