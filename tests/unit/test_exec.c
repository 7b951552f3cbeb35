/* test_exec.c: the exec plugin's command grammar (plugins/exec/spec.c, included whole so that
 * its static parser is in reach; linked with path.c for the kinds' names): one line of the
 * commands key into a tool name, a description, words and placeholders, or the reason why
 * not. */
#include "spec.c"

#include "check.h"

struct parsed {
    struct exec_cmd cmd;
    char err[SPEC_ERR_LEN];
    int rc;
};

static void parse(struct parsed *p, const char *line)
{
    memset(p, 0, sizeof(*p));
    p->rc = spec_line(&p->cmd, line, p->err, sizeof(p->err));
    if (p->rc == MCPH_OK)
        p->rc = spec_display(&p->cmd);
}

static void test_plain(void)
{
    struct parsed p;

    parse(&p, "  list 'List a folder' : /bin/ls -la \"two words\" --");
    CHECK_INT_EQ(p.rc, MCPH_OK);
    CHECK_STR_EQ(p.cmd.name, "list");
    CHECK_STR_EQ(p.cmd.description, "List a folder");
    CHECK_INT_EQ(p.cmd.nwords, 4);
    CHECK_STR_EQ(p.cmd.words[0].text, "/bin/ls");
    CHECK_STR_EQ(p.cmd.words[2].text, "two words");
    CHECK(!p.cmd.words[2].param);
    CHECK_INT_EQ(p.cmd.nparams, 0);
    CHECK_STR_EQ(p.cmd.display, "/bin/ls -la \"two words\" --");
    spec_cmd_release(&p.cmd);
}

static void test_placeholders(void)
{
    struct parsed p;

    parse(&p, "grep: /bin/grep -e -- {pattern} {where?:path} <{input:file} '{}'");
    CHECK_INT_EQ(p.rc, MCPH_OK);
    CHECK_STR_EQ(p.cmd.description, NULL);
    CHECK_INT_EQ(p.cmd.nwords, 7);
    CHECK_INT_EQ(p.cmd.nparams, 3);
    CHECK(p.cmd.words[3].param && !p.cmd.words[3].optional && p.cmd.words[3].dash_ok);
    CHECK_STR_EQ(p.cmd.words[3].text, "pattern");
    CHECK_INT_EQ(p.cmd.words[3].kind, EXEC_KIND_TEXT);
    CHECK(p.cmd.words[4].param && p.cmd.words[4].optional);
    CHECK_INT_EQ(p.cmd.words[4].kind, EXEC_KIND_PATH);
    CHECK(p.cmd.words[5].to_stdin);
    CHECK_INT_EQ(p.cmd.words[5].kind, EXEC_KIND_FILE);
    CHECK(!p.cmd.words[6].param); /* quoted braces are literal */
    CHECK_STR_EQ(p.cmd.words[6].text, "{}");
    CHECK_STR_HAS(p.cmd.display, "{where?:path} <{input:file} \"{}\"");
    spec_cmd_release(&p.cmd);

    /* Before any "--", a placeholder's value may not start with '-'. */
    parse(&p, "echo: /bin/echo {x}");
    CHECK_INT_EQ(p.rc, MCPH_OK);
    CHECK(!p.cmd.words[1].dash_ok);
    spec_cmd_release(&p.cmd);
}

static void test_refused(void)
{
    static const struct {
        const char *line, *why;
    } bad[] = {
        {": /bin/ls", "starts with its tool name"},
        {"ls /bin/ls", "expected ':' after the tool name"},
        {"ls 'desc' /bin/ls", "expected ':' after the tool name and its description"},
        {"ls 'open: /bin/ls", "a ' quote is not closed"},
        {"ls: /bin/ls \"open", "a \" quote is not closed"},
        {"ls: /bin/ls a{b}", "is not a placeholder"},
        {"ls: /bin/ls {1x}", "is not a placeholder"},
        {"ls: /bin/ls {x:song}", "is not a placeholder"},
        {"ls: /bin/ls {x} {x?}", "both optional"},
        {"ls: /bin/ls {x} {x:file}", "two different types"},
        {"ls: /bin/ls <{x}", "must name a file"},
        {"ls: /bin/cat <{a:file} <{b:file}", "one stdin"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct parsed p;

        parse(&p, bad[i].line);
        CHECK_INT_EQ(p.rc, MCPH_ERR_INVALID);
        CHECK_STR_HAS(p.err, bad[i].why);
        spec_cmd_release(&p.cmd);
    }
}

static void test_limits(void)
{
    char line[4096] = "many: /bin/echo";
    struct parsed p;

    for (int i = 1; i < EXEC_WORDS_MAX; i++)
        strcat(line, " w");
    parse(&p, line);
    CHECK_INT_EQ(p.rc, MCPH_OK);
    CHECK_INT_EQ(p.cmd.nwords, EXEC_WORDS_MAX);
    spec_cmd_release(&p.cmd);
    strcat(line, " w");
    parse(&p, line);
    CHECK_INT_EQ(p.rc, MCPH_ERR_INVALID);
    CHECK_STR_HAS(p.err, "more than 64 words");
    spec_cmd_release(&p.cmd);
}

static const struct check_test tests[] = {
    {"plain", test_plain},
    {"placeholders", test_placeholders},
    {"refused", test_refused},
    {"limits", test_limits},
    {0},
};

int main(void)
{
    return check_main("test_exec", tests);
}
