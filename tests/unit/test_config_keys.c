/* Unit tests for config/keys.c: the tables hold what the parser relies on, each setter takes
 * exactly its range, and mcph.ini(5) documents every key of each table and no other. */
#include "config/keys.h"

#include "check.h"
#include "config/config.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t keys_count(const struct config_key *keys)
{
    size_t n = 0;

    while (keys[n].name != NULL)
        n++;
    return n;
}

/* Names unique, a type each, a help each, ranges the right way round. */
static void keys_check_table(const struct config_key *keys)
{
    for (size_t i = 0; keys[i].name != NULL; i++) {
        const struct config_key *k = &keys[i];
        struct strbuf help = STRBUF_INIT;

        CHECK(config_key_find(keys, k->name) == k);
        CHECK(k->type >= CONFIG_KEY_TEXT && k->type <= CONFIG_KEY_RATE);
        config_key_help(k, &help);
        CHECK(help.len > 0);
        if (k->type == CONFIG_KEY_INT || k->type == CONFIG_KEY_BYTES)
            CHECK(k->min <= k->max);
        CHECK(k->type != CONFIG_KEY_WORD || k->word != NULL);
        strbuf_release(&help);
    }
}

static void test_tables(void)
{
    keys_check_table(config_server_keys);
    keys_check_table(config_plugin_keys);
    keys_check_table(config_access_keys);
    keys_check_table(config_limit_keys);
    /* The parser marks each [server] key it has seen in one bit of an unsigned long long. */
    CHECK(keys_count(config_server_keys) <= 64);
    CHECK(config_key_find(config_server_keys, "nope") == NULL);
    CHECK_STR_EQ(config_shared_key_name(0), "call_timeout_ms");
    CHECK_STR_EQ(config_shared_key_name(1), "confine");
    CHECK_STR_EQ(config_shared_key_name(5), "network");
    CHECK(config_shared_key_name(6) == NULL);
}

/* value as text into buf. */
static const char *keys_number(char *buf, size_t size, long long value)
{
    snprintf(buf, size, "%lld", value);
    return buf;
}

/* Every whole-number key takes its ends and refuses one past each, on a scratch struct. */
static void keys_check_ranges(const struct config_key *keys, void *base, size_t size)
{
    for (size_t i = 0; keys[i].name != NULL; i++) {
        const struct config_key *k = &keys[i];
        char text[32];

        if (k->type != CONFIG_KEY_INT)
            continue;
        memset(base, 0, size);
        CHECK_INT_EQ(config_key_set(k, base, ".", keys_number(text, sizeof(text), k->min), NULL),
                     STATUS_OK);
        CHECK_INT_EQ(*(int *)(void *)((char *)base + k->field), k->min);
        CHECK_INT_EQ(config_key_set(k, base, ".", keys_number(text, sizeof(text), k->max), NULL),
                     STATUS_OK);
        CHECK_INT_EQ(*(int *)(void *)((char *)base + k->field), k->max);
        CHECK_INT_EQ(
            config_key_set(k, base, ".", keys_number(text, sizeof(text), k->min - 1), NULL),
            STATUS_INVALID);
        CHECK_INT_EQ(
            config_key_set(k, base, ".", keys_number(text, sizeof(text), k->max + 1), NULL),
            STATUS_INVALID);
        CHECK_INT_EQ(config_key_set(k, base, ".", "1x", NULL), STATUS_INVALID);
    }
}

static void test_ranges(void)
{
    struct config cfg;
    struct config_plugin pl;
    const struct config_key *mem = config_key_find(config_plugin_keys, "max_memory");
    struct strbuf help = STRBUF_INIT;

    keys_check_ranges(config_server_keys, &cfg, sizeof(cfg));
    keys_check_ranges(config_plugin_keys, &pl, sizeof(pl));
    /* Bytes: the help names the ends the setter takes. */
    if (!CHECK(mem != NULL))
        return;
    config_key_help(mem, &help);
    CHECK_STR_EQ(help.buf, "bytes from 16M to 1024G, with K, M or G (1024-based)");
    CHECK_INT_EQ(config_key_set(mem, &pl, ".", "16M", NULL), STATUS_OK);
    CHECK_INT_EQ(pl.isolate.max_memory, 16LL << 20);
    CHECK_INT_EQ(config_key_set(mem, &pl, ".", "1024G", NULL), STATUS_OK);
    CHECK_INT_EQ(config_key_set(mem, &pl, ".", "16383K", NULL), STATUS_INVALID);
    CHECK_INT_EQ(config_key_set(mem, &pl, ".", "1025G", NULL), STATUS_INVALID);
    strbuf_release(&help);
}

/* The key an entry of the man page documents: the line after .TP, as ".BI key ..." or
 * ".B key", into key (size bytes). 1 when the line is such an entry. */
static int keys_man_entry(const char *line, char *key, size_t size)
{
    size_t n;

    if (strncmp(line, ".BI ", 4) == 0)
        line += 4;
    else if (strncmp(line, ".B ", 3) == 0)
        line += 3;
    else
        return 0;
    line += strspn(line, " \"");
    n = strspn(line, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || n >= size ||
        (line[n] != '\0' && !isspace((unsigned char)line[n]) && line[n] != '"'))
        return 0;
    memcpy(key, line, n);
    key[n] = '\0';
    return 1;
}

/* An entry's range, "KEY = MIN\-MAX" as the page writes a whole-number key's, when it shows
 * one: it must be the table's (the page is the one other place a range is written). */
static void keys_man_range(const struct config_key *keys, const char *key, const char *line)
{
    const struct config_key *k = config_key_find(keys, key);
    const char *eq = strchr(line, '=');
    long long min, max;

    if (k == NULL || k->type != CONFIG_KEY_INT || eq == NULL ||
        sscanf(eq + 1, " %lld\\-%lld", &min, &max) != 2)
        return;
    if (min != k->min || max != k->max)
        fprintf(stderr, "man/mcph.ini.5: %s = %lld-%lld, the table says %lld-%lld\n", key, min, max,
                k->min, k->max);
    CHECK_INT_EQ(min, k->min);
    CHECK_INT_EQ(max, k->max);
}

/* The sections of mcph.ini(5) whose entries are keys, by the text of their .SH line. */
static const struct {
    const char *heading;
    const char *name;
    const struct config_key *keys;
} man_sections[] = {
    {"[server]", "[server]", config_server_keys},
    {"[plugin", "[plugin.NAME]", config_plugin_keys},
    {"[access", "[access.NAME]", config_access_keys},
    {"[limit", "[limit.NAME]", config_limit_keys},
};
#define MAN_SECTIONS (sizeof(man_sections) / sizeof(man_sections[0]))

/* The keys mcph.ini(5) documents: " name" for each, appended to docs[i] for the section
 * (.SH) of man_sections[i] they are in; each whole-number range it shows is checked. 0 when
 * the page cannot be read. */
static int keys_read_man(const char *file, struct strbuf docs[MAN_SECTIONS])
{
    FILE *f = fopen(file, "r");
    int in = -1;
    char line[1024], key[64];
    int after_tp = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, ".SH", 3) == 0) {
            in = -1;
            for (size_t i = 0; i < MAN_SECTIONS; i++)
                in = strstr(line, man_sections[i].heading) ? (int)i : in;
        } else if (in >= 0 && after_tp && keys_man_entry(line, key, sizeof(key))) {
            (void)strbuf_addf(&docs[in], " %s", key);
            keys_man_range(man_sections[in].keys, key, line);
        }
        /* .TQ: another entry sharing the one after it. */
        after_tp = strncmp(line, ".TP", 3) == 0 || strncmp(line, ".TQ", 3) == 0;
    }
    fclose(f);
    return 1;
}

/* The names of keys that are not words of documented (" a b c"), as " x y", into missing. */
static void keys_missing(const struct config_key *keys, const char *documented,
                         struct strbuf *missing)
{
    for (size_t i = 0; keys[i].name != NULL; i++) {
        char word[80];

        snprintf(word, sizeof(word), " %s ", keys[i].name);
        if (strstr(documented, word) == NULL)
            (void)strbuf_addf(missing, " %s", keys[i].name);
    }
}

/* The documented names (" a b c") that are no key of the table, as " x y", into extra. */
static void keys_extra(const struct config_key *keys, const char *documented, struct strbuf *extra)
{
    char *copy = strdup(documented);
    char *save = NULL;

    for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w != NULL;
         w = strtok_r(NULL, " ", &save)) {
        if (config_key_find(keys, w) == NULL)
            (void)strbuf_addf(extra, " %s", w);
    }
    free(copy);
}

static void keys_compare(const char *section, const struct config_key *keys, struct strbuf *doc)
{
    struct strbuf missing = STRBUF_INIT, extra = STRBUF_INIT;

    (void)strbuf_addstr(doc, " ");
    keys_missing(keys, doc->buf, &missing);
    keys_extra(keys, doc->buf, &extra);
    if (missing.len > 0)
        fprintf(stderr, "man/mcph.ini.5 %s: keys not documented:%s\n", section, missing.buf);
    if (extra.len > 0)
        fprintf(stderr, "man/mcph.ini.5 %s: not keys of mcph:%s\n", section, extra.buf);
    CHECK_STR_EQ(missing.len > 0 ? missing.buf : "", "");
    CHECK_STR_EQ(extra.len > 0 ? extra.buf : "", "");
    strbuf_release(&missing);
    strbuf_release(&extra);
}

/* mcph.ini(5) has an entry for each key of each table, and none for a key mcph does not
 * read: a key added to a table without its page, or dropped, fails here. */
static void test_man_page(void)
{
    const char *file = getenv("MCPH_TEST_MAN_INI") ? getenv("MCPH_TEST_MAN_INI") : "man/mcph.ini.5";
    struct strbuf docs[MAN_SECTIONS];

    for (size_t i = 0; i < MAN_SECTIONS; i++)
        strbuf_init(&docs[i]);
    if (CHECK(keys_read_man(file, docs))) {
        for (size_t i = 0; i < MAN_SECTIONS; i++)
            keys_compare(man_sections[i].name, man_sections[i].keys, &docs[i]);
    }
    for (size_t i = 0; i < MAN_SECTIONS; i++)
        strbuf_release(&docs[i]);
}

static const struct check_test tests[] = {
    {"tables", test_tables},
    {"ranges", test_ranges},
    {"man_page", test_man_page},
    {0},
};

int main(void)
{
    return check_main("test_config_keys", tests);
}
