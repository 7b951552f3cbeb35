/*
 * structured.c: a tool with an output schema that answers with a structured result.
 * stats_of takes an array of numbers and returns {count, sum, mean}; the JSON is built with
 * mcph-strbuf.h, and mcph adds a text mirror for clients older than 2025-06-18.
 */
#include <stdlib.h>

#include "mcph-strbuf.h" /* includes plugin-api.h */

static int stats_of(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *json = NULL;
    double sum = 0;
    size_t count = 0;

    (void)state;
    if (host->arg_json(call, "numbers", &json) != MCPH_OK || json[0] != '[')
        return host->tool_error(call, "give \"numbers\", an array of numbers");
    /* The input schema made mcph check the array's items: only numbers, commas and spaces. */
    for (const char *p = json + 1; *p != ']' && *p != '\0';) {
        char *end = NULL;
        sum += strtod(p, &end);
        if (end == p)
            break;
        count++;
        p = end + (*end == ',');
    }
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    mcph_sb_addf(&sb, "{\"count\":%zu,\"sum\":%.17g,\"mean\":%.17g}", count, sum,
                 count > 0 ? sum / (double)count : 0.0);
    int rc = sb.nomem ? MCPH_ERR_NOMEM : host->structured(call, sb.buf); /* copied */
    mcph_sb_release(&sb);
    return rc;
}

static const struct mcph_tool structured_tools[] = {
    {
        .name = "stats_of",
        .description = "Count, sum and mean of a list of numbers.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"numbers\":{\"type\":\"array\","
                        "\"items\":{\"type\":\"number\"}}},\"required\":[\"numbers\"]}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"},"
                         "\"sum\":{\"type\":\"number\"},\"mean\":{\"type\":\"number\"}},"
                         "\"required\":[\"count\",\"sum\",\"mean\"]}",
        .read_only_hint = MCPH_HINT_TRUE,
        .call = stats_of,
    },
    {0},
};

static const struct mcph_plugin structured_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "structured",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = structured_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &structured_plugin;
}
