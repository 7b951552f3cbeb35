/* Unit tests for served/listing.c, what `mcph --check` prints: the table of rows served, and
 * for each filter what it kept and dropped, with a warning for a filter that keeps nothing. */
#include "served/listing.h"

#include "check.h"
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHK_SERVER "[server]\nplugin_dir = ../../plugins\n"

static struct fixture_server fx;

/* What listing_print writes for srv. Owned by the caller. */
static char *chk_listing(const struct server *srv)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    if (out == NULL)
        return NULL;
    listing_print(srv, out);
    fclose(out);
    return text;
}

/* Whether text has a line that starts with start. */
static int chk_has_line(const char *text, const char *start)
{
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');

        if (strncmp(line, start, strlen(start)) == 0)
            return 1;
        line = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

/* No filter: the table alone, a row a line, in the registry's order. */
static void test_table(void)
{
    char *text;

    if (!CHECK(fixture_server_serve(&fx, "check", CHK_SERVER "[plugin.b]\npath = basic.so\n")))
        return;
    text = chk_listing(&fx.srv);
    if (CHECK(text != NULL)) {
        CHECK(chk_has_line(text, "PLUGIN           KIND      NAME"));
        CHECK(chk_has_line(text, "b                tool      echo "));
        CHECK(chk_has_line(text, "b                tool      boom "));
        CHECK(chk_has_line(text, "b                resource  basic://hello "));
        CHECK(chk_has_line(text, "b                template  basic://items/{id} "));
        CHECK(chk_has_line(text, "b                prompt    greet "));
        CHECK(strstr(text, "FILTERS") == NULL);
        CHECK(strchr(text, '\n') < strstr(text, "tool      echo"));
    }
    free(text);
    fixture_server_close(&fx);
}

/* Filters: what each kept and dropped, on its own line, the section's line named; a filter
 * that keeps nothing is warned about in the log. */
static void test_filters(void)
{
    char *text, want[512];

    if (!CHECK(fixture_server_serve(&fx, "check",
                                    CHK_SERVER "[plugin.b]\npath = basic.so\n"
                                               "tools = echo greet\nprompts = !*\n")))
        return;
    text = chk_listing(&fx.srv);
    if (CHECK(text != NULL)) {
        CHECK(chk_has_line(text, "b                tool      echo "));
        CHECK(!chk_has_line(text, "b                tool      boom "));
        CHECK(chk_has_line(text, "FILTERS (the plugins' own names, before the prefix)"));
        snprintf(want, sizeof(want), "[plugin.b] tools = echo greet (%s:5): 2 kept, 4 dropped",
                 fx.ini);
        CHECK(chk_has_line(text, want));
        CHECK(chk_has_line(text, "  kept     echo"));
        CHECK(chk_has_line(text, "  kept     greet"));
        CHECK(chk_has_line(text, "  dropped  sleep"));
        CHECK(chk_has_line(text, "  dropped  boom"));
        snprintf(want, sizeof(want), "[plugin.b] prompts = !* (%s:6): 0 kept, 1 dropped", fx.ini);
        CHECK(chk_has_line(text, want));
    }
    CHECK_STR_HAS(fixture_capture_take(&fx.log), "prompts = '!*' keeps nothing (1 dropped)");
    free(text);
    fixture_server_close(&fx);
}

/* A server whose config did not load has nothing to list. */
static void test_nothing_loaded(void)
{
    struct server srv;
    char *text;

    server_init(&srv);
    text = chk_listing(&srv);
    CHECK(text != NULL && text[0] == '\0');
    free(text);
    server_release(&srv);
}

static const struct check_test tests[] = {
    {"table", test_table},
    {"filters", test_filters},
    {"nothing_loaded", test_nothing_loaded},
    {0},
};

int main(void)
{
    return check_main("test_check", tests);
}
