/* test_access.c: tool sets per credential (served/access.h). A principal's view is the set of
 * [access.NAME] sections it matches by scopes, claims (a string, a number or boolean by its
 * text, an array holding it) and tokens, every key a section sets holding; a row is seen when
 * a section of the view keeps its exposed name, a kind a section leaves out keeping none; no
 * principal (stdio) or no sections sees everything. The sections are read from an INI file by
 * config_load, as mcph reads them. */
#include "served/access.h"

#include "check.h"
#include "lib/diag.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

/* The INI every test loads: tokens for [access.tok]; scopes and claims need the OAuth keys. */
static const char ini_text[] = "[server]\n"
                               "auth_token_file = tokens\n"
                               "oauth_issuer = http://127.0.0.1:9/\n"
                               "oauth_resource = http://127.0.0.1:8/mcp\n"
                               "oauth_jwks_file = jwks.json\n"
                               "[access.tok]\n"
                               "tokens = 1 3\n"
                               "tools = ex_* !ex_secret\n"
                               "[access.readers]\n"
                               "scopes = read docs\n"
                               "resources = file:///docs/* doc://\\{name\\}\n"
                               "[access.team]\n"
                               "claims = groups=eng tier=2 admin=true\n"
                               "tools = ex_secret\n"
                               "prompts = *\n"
                               "[access.both]\n"
                               "scopes = ops\n"
                               "tokens = 2\n"
                               "tools = ops_*\n";

static int load(struct config *cfg)
{
    char dir[512], path[600];
    struct diag errs;
    FILE *f;
    int status;

    check_tmp(dir, sizeof(dir), "access");
    snprintf(path, sizeof(path), "%s/mcph.ini", dir);
    f = fopen(path, "w");
    if (f == NULL)
        return STATUS_IO;
    fputs(ini_text, f);
    fclose(f);
    config_init(cfg);
    diag_init(&errs);
    status = config_load(cfg, path, &errs);
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "%s\n", errs.msgs[i]);
    diag_release(&errs);
    return status;
}

static struct principal *token(int line)
{
    char id[32];
    struct principal *p;

    snprintf(id, sizeof(id), "token:%d", line);
    p = principal_new(PRINCIPAL_TOKEN, id, id);
    if (p != NULL)
        p->token = line;
    return p;
}

static struct principal *jwt(const char *scopes, const char *claims)
{
    struct principal *p = principal_new(PRINCIPAL_JWT, "jwt:iss#sub", "sub");
    char buf[256], *at, *w;

    if (p == NULL)
        return NULL;
    snprintf(buf, sizeof(buf), "%s", scopes);
    for (at = buf; (w = strtok(at, " ")) != NULL; at = NULL)
        CHECK_INT_EQ(principal_add_scope(p, w), STATUS_OK);
    p->claims = claims ? cJSON_Parse(claims) : NULL;
    return p;
}

static void test_everything(void)
{
    struct config cfg;
    struct principal *p = token(0);
    struct access_view v;

    config_init(&cfg);
    /* No sections: everyone sees everything. */
    v = access_view_of(&cfg, p);
    CHECK(v.all);
    CHECK(access_sees(&cfg, v, FILTER_TOOLS, "anything"));
    config_release(&cfg);
    if (!CHECK_INT_EQ(load(&cfg), STATUS_OK))
        return;
    /* No principal: the stdio pipe, the local user. */
    v = access_view_of(&cfg, NULL);
    CHECK(v.all);
    CHECK(access_sees(&cfg, v, FILTER_PROMPTS, "whatever"));
    /* With sections, a principal's view is never everything, even matching all. */
    CHECK(!access_view_of(&cfg, p).all);
    CHECK(!access_same(access_view_of(&cfg, p), access_view_of(&cfg, NULL)));
    principal_drop(p);
    config_release(&cfg);
}

static void test_tokens(void)
{
    struct config cfg;
    struct principal *t0 = token(0), *t1 = token(1), *t2 = token(2), *t3 = token(3);
    struct access_view v;

    if (!CHECK_INT_EQ(load(&cfg), STATUS_OK))
        return;
    /* Line 1 is token 0: [access.tok] (tokens = 1 3). */
    v = access_view_of(&cfg, t0);
    CHECK_INT_EQ(v.mask, 1);
    CHECK(access_sees(&cfg, v, FILTER_TOOLS, "ex_echo"));
    CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "ex_secret"));
    CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "other"));
    /* A kind the section leaves out is none of it. */
    CHECK(!access_sees(&cfg, v, FILTER_PROMPTS, "ex_echo"));
    CHECK(!access_sees(&cfg, v, FILTER_RESOURCES, "file:///docs/a"));
    CHECK(access_same(access_view_of(&cfg, t2), v));
    /* Line 2: [access.both] also wants the scope ops, which a bearer token has not. */
    v = access_view_of(&cfg, t1);
    CHECK_INT_EQ(v.mask, 0);
    CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "ops_x"));
    CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "ex_echo"));
    /* Line 4: named by no section, sees nothing. */
    CHECK_INT_EQ(access_view_of(&cfg, t3).mask, 0);
    principal_drop(t0);
    principal_drop(t1);
    principal_drop(t2);
    principal_drop(t3);
    config_release(&cfg);
}

static void test_scopes(void)
{
    struct config cfg;
    struct principal *both = jwt("docs read write", NULL), *one = jwt("read", NULL);
    struct access_view v;

    if (!CHECK_INT_EQ(load(&cfg), STATUS_OK))
        return;
    v = access_view_of(&cfg, both);
    CHECK_INT_EQ(v.mask, 2);
    CHECK(access_sees(&cfg, v, FILTER_RESOURCES, "file:///docs/a/b"));
    CHECK(access_sees(&cfg, v, FILTER_RESOURCES, "doc://{name}"));
    CHECK(!access_sees(&cfg, v, FILTER_RESOURCES, "file:///etc/passwd"));
    CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "ex_echo"));
    /* Every scope the section names, not one of them. */
    CHECK_INT_EQ(access_view_of(&cfg, one).mask, 0);
    principal_drop(both);
    principal_drop(one);
    config_release(&cfg);
}

static void test_claims(void)
{
    static const char *const yes[] = {
        "{\"groups\":[\"ops\",\"eng\"],\"tier\":2,\"admin\":true}",
        "{\"groups\":\"eng\",\"tier\":\"2\",\"admin\":\"true\"}",
        "{\"groups\":[\"eng\"],\"tier\":[1,2],\"admin\":[true]}",
    };
    static const char *const no[] = {
        "{\"groups\":[\"ops\"],\"tier\":2,\"admin\":true}",
        "{\"groups\":\"engineering\",\"tier\":2,\"admin\":true}",
        "{\"groups\":\"eng\",\"tier\":2.5,\"admin\":true}",
        "{\"groups\":\"eng\",\"tier\":2,\"admin\":false}",
        "{\"groups\":\"eng\",\"tier\":2}",
        "{\"groups\":{\"eng\":1},\"tier\":2,\"admin\":true}",
        "[\"groups=eng\"]",
    };
    struct config cfg;

    if (!CHECK_INT_EQ(load(&cfg), STATUS_OK))
        return;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        struct principal *p = jwt("", yes[i]);
        struct access_view v = access_view_of(&cfg, p);

        if (!CHECK_INT_EQ(v.mask, 4))
            fprintf(stderr, "  claims %s\n", yes[i]);
        CHECK(access_sees(&cfg, v, FILTER_TOOLS, "ex_secret"));
        CHECK(access_sees(&cfg, v, FILTER_PROMPTS, "any"));
        CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "ex_echo"));
        principal_drop(p);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        struct principal *p = jwt("", no[i]);

        if (!CHECK_INT_EQ(access_view_of(&cfg, p).mask, 0))
            fprintf(stderr, "  claims %s\n", no[i]);
        principal_drop(p);
    }
    config_release(&cfg);
}

/* A section with scopes and tokens: a principal must hold both; the union of two sections. */
static void test_union(void)
{
    struct config cfg;
    struct principal *p = jwt("ops read docs", "{\"groups\":\"eng\",\"tier\":2,\"admin\":true}");
    struct access_view v;

    if (!CHECK_INT_EQ(load(&cfg), STATUS_OK))
        return;
    v = access_view_of(&cfg, p);
    /* readers and team, not both (a JWT is no bearer token of the file). */
    CHECK_INT_EQ(v.mask, 2 | 4);
    CHECK(access_sees(&cfg, v, FILTER_TOOLS, "ex_secret"));
    CHECK(access_sees(&cfg, v, FILTER_RESOURCES, "file:///docs/x"));
    CHECK(!access_sees(&cfg, v, FILTER_TOOLS, "ops_restart"));
    CHECK(!access_same(v, access_view_of(&cfg, NULL)));
    principal_drop(p);
    config_release(&cfg);
}

static const struct check_test tests[] = {
    {"everything", test_everything}, {"tokens", test_tokens}, {"scopes", test_scopes},
    {"claims", test_claims},         {"union", test_union},   {0},
};

int main(void)
{
    return check_main("test_access", tests);
}
