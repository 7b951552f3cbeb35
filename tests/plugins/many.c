/*
 * many.c: large tables for the pagination tests: 250 tools t000..t249, 120 resources
 * many://r000..many://r119 and 60 prompts p00..p59, each kind sharing one handler. The
 * counts are chosen to need several pages of every list and not to fall on a page boundary.
 *
 * The rows come from one X-macro: MANY_TEN(ROW, p) writes the ten rows whose number starts
 * with the digits p, so MANY_TEN(TOOL, 24) gives t240..t249.
 */
#include "plugin-api.h"

#define MANY_TEN(ROW, p)                                                                           \
    ROW(p##0)                                                                                      \
    ROW(p##1) ROW(p##2) ROW(p##3) ROW(p##4) ROW(p##5) ROW(p##6) ROW(p##7) ROW(p##8) ROW(p##9)

#define MANY_TOOL(n) {.name = "t" #n, .call = many_tool},
#define MANY_RESOURCE(n) {.uri = "many://r" #n, .name = "r" #n, .read = many_resource},
#define MANY_PROMPT(n) {.name = "p" #n, .get = many_prompt},

static int many_tool(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

/* Answers with the URI, so a test can tell which row it read. */
static int many_resource(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/plain", host->uri(call));
}

static int many_prompt(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    int rc = host->prompt_message(call, MCPH_ROLE_USER);
    if (rc != MCPH_OK)
        return rc;
    return host->text(call, "ok");
}

static const struct mcph_tool many_tools[] = {
    MANY_TEN(MANY_TOOL, 00) MANY_TEN(MANY_TOOL, 01) MANY_TEN(MANY_TOOL, 02) MANY_TEN(MANY_TOOL, 03)
        MANY_TEN(MANY_TOOL, 04) MANY_TEN(MANY_TOOL, 05) MANY_TEN(MANY_TOOL, 06)
            MANY_TEN(MANY_TOOL, 07) MANY_TEN(MANY_TOOL, 08) MANY_TEN(MANY_TOOL, 09)
                MANY_TEN(MANY_TOOL, 10) MANY_TEN(MANY_TOOL, 11) MANY_TEN(MANY_TOOL, 12)
                    MANY_TEN(MANY_TOOL, 13) MANY_TEN(MANY_TOOL, 14) MANY_TEN(MANY_TOOL, 15)
                        MANY_TEN(MANY_TOOL, 16) MANY_TEN(MANY_TOOL, 17) MANY_TEN(MANY_TOOL, 18)
                            MANY_TEN(MANY_TOOL, 19) MANY_TEN(MANY_TOOL, 20) MANY_TEN(MANY_TOOL, 21)
                                MANY_TEN(MANY_TOOL, 22) MANY_TEN(MANY_TOOL, 23)
                                    MANY_TEN(MANY_TOOL, 24){0},
};

static const struct mcph_resource many_resources[] = {
    MANY_TEN(MANY_RESOURCE, 00) MANY_TEN(MANY_RESOURCE, 01) MANY_TEN(MANY_RESOURCE, 02)
        MANY_TEN(MANY_RESOURCE, 03) MANY_TEN(MANY_RESOURCE, 04) MANY_TEN(MANY_RESOURCE, 05)
            MANY_TEN(MANY_RESOURCE, 06) MANY_TEN(MANY_RESOURCE, 07) MANY_TEN(MANY_RESOURCE, 08)
                MANY_TEN(MANY_RESOURCE, 09) MANY_TEN(MANY_RESOURCE, 10)
                    MANY_TEN(MANY_RESOURCE, 11){0},
};

static const struct mcph_prompt many_prompts[] = {
    MANY_TEN(MANY_PROMPT, 0) MANY_TEN(MANY_PROMPT, 1) MANY_TEN(MANY_PROMPT, 2)
        MANY_TEN(MANY_PROMPT, 3) MANY_TEN(MANY_PROMPT, 4) MANY_TEN(MANY_PROMPT, 5){0},
};

static const struct mcph_plugin many_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "many",
    .description = "Test plugin: long lists for pagination",
    .tools = many_tools,
    .resources = many_resources,
    .prompts = many_prompts,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &many_plugin;
}
