/*
 * cxx.cc: a plugin written in C++ (C++17), so the build proves that plugin-api.h and the
 * header-only helpers compile as C++ without warnings and that mcph finds the entry of a C++
 * plugin (C linkage, no mangled name). One tool, cxx_join, joins its "words" argument with
 * the INI's separator through mcph-strbuf.h, checks a count with mcph-value.h, and answers
 * with a structured result whose strings mcph_sb_addjson() quoted.
 */
#include <cstring>
#include <string>

#include "mcph-json.h"
#include "mcph-strbuf.h"
#include "mcph-value.h"
#include "plugin-api.h"

namespace
{

struct cxx_state {
    std::string separator;
};

const char cxx_input_schema[] = R"({"type":"object","properties":{
    "words":{"type":"array","items":{"type":"string"}},
    "times":{"type":"string","description":"how many times, a whole number 1-3"}},
    "required":["words"]})";

const char cxx_output_schema[] = R"({"type":"object","properties":{
    "joined":{"type":"string"}},"required":["joined"]})";

/* Appends the words of a JSON array text (strings only, as the schema says) to sb, separated
 * by sep. mcph_json_string_end() walks each string without a parser; an escape in a word is
 * kept as written (the test's words have none). */
void cxx_join_words(struct mcph_strbuf *sb, const char *json, const std::string &sep)
{
    size_t len = strlen(json);
    int first = 1;

    for (size_t i = 0; i < len; i++) {
        if (json[i] != '"')
            continue;
        size_t end = mcph_json_string_end(json, len, i + 1);
        if (!first)
            mcph_sb_add(sb, sep.data(), sep.size());
        mcph_sb_add(sb, json + i + 1, end - i - 1);
        first = 0;
        i = end;
    }
}

int cxx_join(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const cxx_state *st = static_cast<const cxx_state *>(state);
    const char *words = nullptr;
    const char *times_text = "1";
    long long times = 0;

    if (host->arg_json(call, "words", &words) != MCPH_OK)
        return host->tool_error(call, "missing the argument \"words\" (an array of strings)");
    host->arg_string(call, "times", &times_text);
    if (mcph_value_int(times_text, 1, 3, &times) != MCPH_OK)
        return host->tool_error(call, "times must be a whole number from 1 to 3");

    struct mcph_strbuf joined = MCPH_STRBUF_INIT;
    for (long long n = 0; n < times; n++) {
        if (n > 0)
            mcph_sb_add(&joined, st->separator.data(), st->separator.size());
        cxx_join_words(&joined, words, st->separator);
    }
    struct mcph_strbuf out = MCPH_STRBUF_INIT;
    mcph_sb_addstr(&out, "{\"joined\":");
    mcph_sb_addjson(&out, joined.buf, joined.len);
    mcph_sb_addch(&out, '}');
    int rc = out.nomem || joined.nomem ? MCPH_ERR_NOMEM : host->structured(call, out.buf);
    mcph_sb_release(&joined);
    mcph_sb_release(&out);
    return rc;
}

int cxx_init(const struct mcph_host *host, void **state)
{
    const char *sep = host->config(host, "separator");
    try {
        *state = new cxx_state{sep != nullptr ? sep : " "};
    } catch (...) {
        host->log(host, MCPH_LOG_ERROR, "out of memory");
        return MCPH_ERR_NOMEM;
    }
    return MCPH_OK;
}

void cxx_shutdown(void *state)
{
    delete static_cast<cxx_state *>(state);
}

/* C++17 has no designated initialisers: the tables are filled in code, once. */
struct mcph_tool cxx_tool_row()
{
    struct mcph_tool tool = {};
    tool.name = "join";
    tool.description = "Joins words with the configured separator (a C++ plugin).";
    tool.input_schema = cxx_input_schema;
    tool.output_schema = cxx_output_schema;
    tool.read_only_hint = MCPH_HINT_TRUE;
    tool.call = cxx_join;
    return tool;
}

const struct mcph_tool cxx_tools[] = {cxx_tool_row(), {}};

const struct mcph_config_key cxx_keys[] = {
    {"separator", "what goes between two words", " ", 0},
    {},
};

struct mcph_plugin cxx_descriptor()
{
    struct mcph_plugin plugin = {};
    mcph_plugin_header(&plugin);
    plugin.name = "cxx";
    plugin.version = "1.0.0";
    plugin.description = "a plugin in C++";
    plugin.flags = MCPH_PLUGIN_THREAD_SAFE;
    plugin.tools = cxx_tools;
    plugin.config_keys = cxx_keys;
    plugin.init = cxx_init;
    plugin.shutdown = cxx_shutdown;
    return plugin;
}

} /* namespace */

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    static const struct mcph_plugin plugin = cxx_descriptor();
    return &plugin;
}
