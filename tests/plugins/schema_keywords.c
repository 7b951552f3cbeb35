/*
 * schema_keywords.c: tools whose schemas are valid JSON objects of "type": "object" but break
 * a keyword's own rule: "required" as a string (an array of unique strings is meant), and an
 * output schema whose "minimum" is a string. Such a schema used to be accepted and its keyword
 * ignored, so a call without the "required" argument reached the handler. mcph must refuse
 * the plugin at load, naming the tool, the keyword and where it is.
 */
#include "plugin-api.h"

static int schema_keywords_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool schema_keywords_tools[] = {
    {
        .name = "needs_text",
        .description = "Says it requires text, as a string instead of an array.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                        "\"required\":\"text\"}",
        .call = schema_keywords_call,
    },
    {
        .name = "counts",
        .description = "Its output schema has a string for a minimum.",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\","
                         "\"minimum\":\"0\"}}}",
        .call = schema_keywords_call,
    },
    {0},
};

static const struct mcph_plugin schema_keywords_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "schema_keywords",
    .description = "Test plugin: schemas that break their keywords' own rules",
    .tools = schema_keywords_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &schema_keywords_plugin;
}
