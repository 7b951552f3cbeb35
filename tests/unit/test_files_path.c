/*
 * test_files_path.c: the files plugin's checks of a client's path as text (path.c:
 * files_path_check) and the helpers it leans on (util.c: files_show, files_utf8_text,
 * files_utf8_cut, files_uri_encode, files_uri_decode). These decide what a client may name
 * before anything is opened, so each refusal is checked with the words that tell the user why.
 * Linked with plugins/files/path.c and util.c alone; nothing here opens a file.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"

/* Checks path against a root of "/srv/data" (or root) and returns the status; *rel is set
 * (owned by the caller) on success, err's text on a refusal. */
static int path_check(const char *root, int hidden, const char *path, char **rel,
                      struct files_error *err)
{
    struct files fs;

    memset(&fs, 0, sizeof(fs));
    fs.root = (char *)root;
    fs.hidden = hidden;
    *rel = NULL;
    memset(err, 0, sizeof(*err));
    return files_path_check(&fs, path, rel, err);
}

/* The relative form path_check gives for path, or "(refused)". */
static void check_rel(const char *root, const char *path, const char *want)
{
    struct files_error err;
    char *rel = NULL;
    int rc = path_check(root, 0, path, &rel, &err);

    CHECK_INT_EQ(rc, MCPH_OK);
    CHECK_STR_EQ(rel != NULL ? rel : "(refused)", want);
    free(rel);
}

/* path_check refuses path with MCPH_ERR_INVALID and a message holding `says`. */
static void check_refused(int hidden, const char *path, const char *says)
{
    struct files_error err;
    char *rel = NULL;
    int rc = path_check("/srv/data", hidden, path, &rel, &err);

    CHECK_INT_EQ(rc, MCPH_ERR_INVALID);
    CHECK(rel == NULL);
    CHECK_INT_EQ(err.status, MCPH_ERR_INVALID);
    CHECK_STR_HAS(err.text, says);
    free(rel);
}

static void test_relative_forms(void)
{
    check_rel("/srv/data", "a/b.txt", "a/b.txt");
    check_rel("/srv/data", "./a//b/", "a/b");
    check_rel("/srv/data", ".", "");
    check_rel("/srv/data", "a/./b", "a/b");
    check_rel("/srv/data", "caf\xc3\xa9.txt", "caf\xc3\xa9.txt");
}

static void test_absolute_under_root(void)
{
    check_rel("/srv/data", "/srv/data/x/y", "x/y");
    check_rel("/srv/data", "/srv/data", "");
    check_rel("/srv/data", "/srv/data/", "");
    /* A root of "/" is kept as "": every absolute path is beneath it. */
    check_rel("", "/etc/hosts", "etc/hosts");
}

static void test_absolute_outside_root(void)
{
    check_refused(0, "/etc/passwd", "outside the root (/srv/data)");
    /* A sibling that shares the root's text as a prefix is not beneath it. */
    check_refused(0, "/srv/database/x", "outside the root");
    check_refused(0, "/srv", "outside the root");
}

static void test_dot_dot(void)
{
    check_refused(0, "..", "\"..\" is not allowed");
    check_refused(0, "a/../b", "\"..\" is not allowed");
    check_refused(0, "a/..", "\"..\" is not allowed");
    check_refused(1, "/srv/data/../etc", "\"..\" is not allowed");
}

static void test_hidden_names(void)
{
    check_refused(0, ".git/config", "\".git\" is a hidden name");
    check_refused(0, "a/.env", "\".env\" is a hidden name");
    check_refused(0, "...", "hidden name");

    struct files_error err;
    char *rel = NULL;
    CHECK_INT_EQ(path_check("/srv/data", 1, "a/.env", &rel, &err), MCPH_OK);
    CHECK_STR_EQ(rel, "a/.env");
    free(rel);
}

static void test_bad_text(void)
{
    check_refused(0, "", "the path is empty");
    check_refused(0, "a\x01z", "control character 0x01 at byte 1");
    check_refused(0, "a\x7f", "control character 0x7f");
    check_refused(0, "\xff.txt", "not valid UTF-8");
    check_refused(0, "\xc3", "not valid UTF-8");
}

static void test_lengths(void)
{
    char *path = malloc(FILES_PATH_MAX + 2);
    char name[FILES_NAME_MAX + 2];

    if (!CHECK(path != NULL))
        return;
    for (size_t i = 0; i < FILES_PATH_MAX + 1; i++)
        path[i] = i % 100 == 99 ? '/' : 'a';
    path[FILES_PATH_MAX + 1] = '\0';
    check_refused(0, path, "over the limit of 4095 bytes");
    path[FILES_PATH_MAX] = '\0';
    check_rel("/srv/data", path, path);
    free(path);

    memset(name, 'n', FILES_NAME_MAX + 1);
    name[FILES_NAME_MAX + 1] = '\0';
    check_refused(0, name, "a name of 256 bytes, over the limit of 255");
    name[FILES_NAME_MAX] = '\0';
    check_rel("/srv/data", name, name);
}

static void test_show(void)
{
    char out[160];
    char longer[300];

    files_show("a\tb", out, sizeof(out));
    CHECK_STR_EQ(out, "a?b");
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    files_show(longer, out, sizeof(out));
    CHECK_STR_HAS(out, "... (299 bytes)");
    CHECK_INT_EQ(strspn(out, "x"), 100);
    /* A cut never splits a character: 99 x then a 2-byte é keeps 99 x only. */
    memset(longer, 'x', 99);
    memcpy(longer + 99, "\xc3\xa9zz", 5);
    files_show(longer, out, sizeof(out));
    CHECK(strncmp(out + 99, "...", 3) == 0);
}

static void test_utf8(void)
{
    CHECK(files_utf8_text("caf\xc3\xa9", 5));
    CHECK(!files_utf8_text("caf\xc3", 4));
    CHECK(!files_utf8_text("a\0b", 3));
    CHECK(!files_utf8_text("\xed\xa0\x80", 3)); /* a surrogate */
    CHECK_INT_EQ(files_utf8_cut("ab\xe2\x82", 4), 2);
    CHECK_INT_EQ(files_utf8_cut("ab\xe2\x82\xac", 5), 5);
    CHECK_INT_EQ(files_utf8_cut("abc", 3), 3);
}

static void test_uri(void)
{
    struct files_error err;
    char *enc = files_uri_encode("a b/c%d/\xc3\xa9~");
    char *dec = NULL;

    CHECK_STR_EQ(enc, "a%20b/c%25d/%C3%A9~");
    CHECK_INT_EQ(files_uri_decode(enc, &dec, &err), MCPH_OK);
    CHECK_STR_EQ(dec, "a b/c%d/\xc3\xa9~");
    free(enc);
    free(dec);
    dec = NULL;
    CHECK_INT_EQ(files_uri_decode("a%2", &dec, &err), MCPH_ERR_INVALID);
    CHECK(dec == NULL);
    CHECK_INT_EQ(files_uri_decode("a%00b", &dec, &err), MCPH_ERR_INVALID);
    CHECK(dec == NULL);
}

static const struct check_test tests[] = {
    {"relative_forms", test_relative_forms},
    {"absolute_under_root", test_absolute_under_root},
    {"absolute_outside_root", test_absolute_outside_root},
    {"dot_dot", test_dot_dot},
    {"hidden_names", test_hidden_names},
    {"bad_text", test_bad_text},
    {"lengths", test_lengths},
    {"show", test_show},
    {"utf8", test_utf8},
    {"uri", test_uri},
    {0},
};

int main(void)
{
    return check_main("test_files_path", tests);
}
