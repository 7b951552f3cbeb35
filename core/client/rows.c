/*
 * rows.c: what the server lists, as the rows of the instance: a row for each tool, resource,
 * template and prompt whose name mcph can serve (the others are said once and left out), and
 * the server's instructions as the instance's paragraph.
 */
#include "client/link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Text cut at a NUL. --- */

/* Mark a and its containers when a string of a (member name or value) differs from b's. */
static int mcp_cut_walk(cJSON *a, const cJSON *b)
{
    int cut = 0;
    const cJSON *bc = b->child;

    if ((a->string != NULL) != (b->string != NULL) ||
        (a->string != NULL && strcmp(a->string, b->string) != 0))
        cut = 1;
    if (cJSON_IsString(a) && cJSON_IsString(b) && strcmp(a->valuestring, b->valuestring) != 0)
        cut = 1;
    for (cJSON *ac = a->child; ac != NULL && bc != NULL; ac = ac->next, bc = bc->next)
        cut |= mcp_cut_walk(ac, bc);
    if (cut)
        a->type |= MCP_JSON_CUT;
    return cut;
}

void mcp_json_mark_cut(cJSON *msg, const char *line, size_t len)
{
    char *copy;
    cJSON *other;
    int found = 0;

    if (msg == NULL || memmem(line, len, "\\u0000", 6) == NULL)
        return;
    copy = malloc(len);
    if (copy == NULL)
        return;
    memcpy(copy, line, len);
    /* A backslash is only ever inside a string, where it starts an escape of 2 or 6. */
    for (size_t i = 0; i + 1 < len; i++) {
        if (copy[i] != '\\')
            continue;
        if (copy[i + 1] == 'u' && i + 6 <= len && memcmp(copy + i + 2, "0000", 4) == 0) {
            copy[i + 5] = '1';
            found = 1;
        }
        i++;
    }
    other = found ? cJSON_ParseWithLength(copy, len) : NULL;
    if (other != NULL)
        mcp_cut_walk(msg, other);
    cJSON_Delete(other);
    free(copy);
}

/* --- Rows from the server's lists. --- */

/* Members as the row's strings: borrowed from the item, or printed into scratch. */
static const char *mcp_str(const cJSON *item, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, name);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

struct mcp_scratch {
    char *texts[8];
    size_t n;
};

static const char *mcp_json(struct mcp_scratch *s, const cJSON *item, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, name);

    if (v == NULL || s->n == sizeof(s->texts) / sizeof(s->texts[0]))
        return NULL;
    s->texts[s->n] = cJSON_PrintUnformatted(v);
    return s->texts[s->n++];
}

static void mcp_scratch_free(struct mcp_scratch *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->texts[i]);
    s->n = 0;
}

static unsigned char mcp_hint(const cJSON *annotations, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(annotations, name);

    if (!cJSON_IsBool(v))
        return MCPH_HINT_UNSET;
    return cJSON_IsTrue(v) ? MCPH_HINT_TRUE : MCPH_HINT_FALSE;
}

static int mcp_define_tool(const struct mcph_host *host, const cJSON *item)
{
    const cJSON *ann = cJSON_GetObjectItemCaseSensitive(item, "annotations");
    struct mcp_scratch s = {0};
    struct mcph_tool t = {
        .name = mcp_str(item, "name"),
        .title = mcp_str(item, "title") != NULL ? mcp_str(item, "title") : mcp_str(ann, "title"),
        .description = mcp_str(item, "description"),
        .read_only_hint = mcp_hint(ann, "readOnlyHint"),
        .destructive_hint = mcp_hint(ann, "destructiveHint"),
        .idempotent_hint = mcp_hint(ann, "idempotentHint"),
        .open_world_hint = mcp_hint(ann, "openWorldHint"),
        .call = mcp_call_tool,
    };
    int rc;

    t.input_schema = mcp_json(&s, item, "inputSchema");
    t.output_schema = mcp_json(&s, item, "outputSchema");
    t.icons = mcp_json(&s, item, "icons");
    t.meta = mcp_json(&s, item, "_meta");
    rc = t.name != NULL ? host->define_tool(host, &t) : MCPH_ERR_INVALID;
    mcp_scratch_free(&s);
    return rc;
}

static int mcp_define_resource(const struct mcph_host *host, const cJSON *item)
{
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(item, "size");
    struct mcp_scratch s = {0};
    struct mcph_resource r = {
        .uri = mcp_str(item, "uri"),
        .name = mcp_str(item, "name"),
        .title = mcp_str(item, "title"),
        .description = mcp_str(item, "description"),
        .mime_type = mcp_str(item, "mimeType"),
        .size = cJSON_IsNumber(size) && size->valuedouble >= 0 ? (uint64_t)size->valuedouble : 0,
        .read = mcp_read,
    };
    int rc;

    r.annotations = mcp_json(&s, item, "annotations");
    r.icons = mcp_json(&s, item, "icons");
    r.meta = mcp_json(&s, item, "_meta");
    rc = r.uri != NULL && r.name != NULL ? host->define_resource(host, &r) : MCPH_ERR_INVALID;
    mcp_scratch_free(&s);
    return rc;
}

static int mcp_define_template(const struct mcph_host *host, const cJSON *item, int complete)
{
    struct mcp_scratch s = {0};
    struct mcph_resource_template t = {
        .uri_template = mcp_str(item, "uriTemplate"),
        .name = mcp_str(item, "name"),
        .title = mcp_str(item, "title"),
        .description = mcp_str(item, "description"),
        .mime_type = mcp_str(item, "mimeType"),
        .read = mcp_read,
        .complete = complete ? mcp_complete_template : NULL,
    };
    int rc;

    t.annotations = mcp_json(&s, item, "annotations");
    t.icons = mcp_json(&s, item, "icons");
    t.meta = mcp_json(&s, item, "_meta");
    rc = t.uri_template != NULL && t.name != NULL ? host->define_template(host, &t)
                                                  : MCPH_ERR_INVALID;
    mcp_scratch_free(&s);
    return rc;
}

static int mcp_define_prompt(const struct mcph_host *host, const cJSON *item, int complete)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(item, "arguments");
    int n = cJSON_IsArray(args) ? cJSON_GetArraySize(args) : 0;
    struct mcph_prompt_arg *table = calloc((size_t)n + 1, sizeof(*table));
    struct mcp_scratch s = {0};
    struct mcph_prompt p = {
        .name = mcp_str(item, "name"),
        .title = mcp_str(item, "title"),
        .description = mcp_str(item, "description"),
        .arguments = table,
        .get = mcp_get,
        .complete = complete ? mcp_complete_prompt : NULL,
    };
    int i = 0, rc;
    const cJSON *a;

    if (table == NULL)
        return MCPH_ERR_NOMEM;
    cJSON_ArrayForEach(a, args)
    {
        const cJSON *required = cJSON_GetObjectItemCaseSensitive(a, "required");

        if (mcp_str(a, "name") == NULL)
            continue;
        table[i].name = mcp_str(a, "name");
        table[i].title = mcp_str(a, "title");
        table[i].description = mcp_str(a, "description");
        table[i].required = cJSON_IsTrue(required);
        i++;
    }
    p.icons = mcp_json(&s, item, "icons");
    p.meta = mcp_json(&s, item, "_meta");
    rc = p.name != NULL ? host->define_prompt(host, &p) : MCPH_ERR_INVALID;
    mcp_scratch_free(&s);
    free(table);
    return rc;
}

/* One of the server's lists and how its items become rows. */
struct mcp_kind_list {
    const char *method, *member;
    const char *what; /* a row of it, for messages */
    const char *key;  /* the member that names an item, for messages */
    int (*define)(const struct mcph_host *, const cJSON *, int);
};

/* Items of a list left out for one reason: counted, the first few named, said in one line
 * once the list is read (an upstream with 100,000 such items writes one line, not 100,000). */
#define MCP_LEFT_NAMED 5

struct mcp_left {
    size_t n;
    struct mcph_strbuf names;
};

static void mcp_left_add(struct mcp_left *left, const char *name)
{
    if (left->n++ < MCP_LEFT_NAMED)
        mcph_sb_addf(&left->names, "%s'%s'", left->n > 1 ? ", " : "",
                     name != NULL ? name : "(no name)");
}

static void mcp_left_say(const struct mcph_host *host, const struct mcp_kind_list *k,
                         struct mcp_left *left, const char *why)
{
    if (left->n > 0)
        host->log(host, MCPH_LOG_WARNING, "%s: %zu %s%s left out, %s: %s%s", k->method, left->n,
                  k->what, left->n == 1 ? "" : "s", why, left->names.buf,
                  left->n > MCP_LEFT_NAMED ? " and more" : "");
    mcph_sb_release(&left->names);
    left->n = 0;
}

/* Why an item of a list is left out before the host sees it, each said in one line a list. */
enum mcp_why {
    MCP_WHY_NUL,   /* text held \u0000 */
    MCP_WHY_TASKS, /* a tool that requires tasks */
    MCP_WHY_NAME,  /* a tool or prompt name the host refuses (one line each, else) */
    MCP_WHY_OVER,  /* past MCPH_MAX_ROWS */
    MCP_WHYS,
    MCP_WHY_NONE = MCP_WHYS,
};

static const char *const mcp_whys[MCP_WHYS] = {
    [MCP_WHY_NUL] = "for text holding a NUL character (\\u0000), which mcph cannot pass on whole",
    [MCP_WHY_TASKS] = "for requiring tasks (execution.taskSupport \"required\"), not run by mcph",
    [MCP_WHY_NAME] = "for a name mcph cannot serve (1-128 of A-Z a-z 0-9 _ . -)",
    [MCP_WHY_OVER] = "past the 4096 that mcph serves of one kind",
};

_Static_assert(MCPH_MAX_ROWS == 4096, "mcp_whys names the limit");

/* The rule of tool and prompt names (plugin-api.h). */
static int mcp_name_ok(const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;

    if (n == 0 || n > MCPH_MAX_NAME)
        return 0;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static enum mcp_why mcp_unservable(const struct mcp_kind_list *k, const cJSON *item)
{
    const cJSON *execution = cJSON_GetObjectItemCaseSensitive(item, "execution");
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(execution, "taskSupport");
    int tool = strcmp(k->member, "tools") == 0;

    if (item->type & MCP_JSON_CUT)
        return MCP_WHY_NUL;
    if (tool && cJSON_IsString(tasks) && strcmp(tasks->valuestring, "required") == 0)
        return MCP_WHY_TASKS;
    if ((tool || strcmp(k->member, "prompts") == 0) && !mcp_name_ok(mcp_str(item, "name")))
        return MCP_WHY_NAME;
    return MCP_WHY_NONE;
}

/* Every page of one list. Returns MCPH_OK, or MCPH_ERR after logging why. */
static int mcp_list(struct mcp *m, const struct mcp_kind_list *k, int complete)
{
    const struct mcph_host *host = m->host;
    char *cursor = NULL;
    struct mcp_left left[MCP_WHYS] = {0};
    size_t defined = 0;
    int rc = MCPH_ERR;

    for (int page = 0; page < 1000; page++) {
        struct mcph_strbuf why = MCPH_STRBUF_INIT;
        cJSON *params = cJSON_CreateObject();
        cJSON *result, *next;
        const cJSON *item;

        if (cursor != NULL)
            cJSON_AddStringToObject(params, "cursor", cursor);
        free(cursor);
        cursor = NULL;
        result = mcp_link_request(m->link, k->method, params, &why);
        if (result == NULL) {
            host->log(host, MCPH_LOG_ERROR, "%s: %s", k->method, why.buf);
            mcph_sb_release(&why);
            goto out;
        }
        mcph_sb_release(&why);
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(result, k->member))
        {
            enum mcp_why w = mcp_unservable(k, item);

            if (w == MCP_WHY_NONE && defined >= MCPH_MAX_ROWS)
                w = MCP_WHY_OVER;
            if (w != MCP_WHY_NONE)
                mcp_left_add(&left[w], mcp_str(item, k->key));
            else if (k->define(host, item, complete) == MCPH_OK)
                defined++;
        }
        next = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
        if (cJSON_IsString(next) && next->valuestring[0] != '\0')
            cursor = strdup(next->valuestring);
        cJSON_Delete(result);
        if (cursor == NULL) {
            rc = MCPH_OK;
            goto out;
        }
    }
    free(cursor);
    host->log(host, MCPH_LOG_ERROR, "%s: more than 1000 pages", k->method);
out:
    for (int w = 0; w < MCP_WHYS; w++)
        mcp_left_say(host, k, &left[w], mcp_whys[w]);
    return rc;
}

static int mcp_define_tool_row(const struct mcph_host *host, const cJSON *item, int complete)
{
    (void)complete;
    return mcp_define_tool(host, item);
}

static int mcp_define_resource_row(const struct mcph_host *host, const cJSON *item, int complete)
{
    (void)complete;
    return mcp_define_resource(host, item);
}

static const struct mcp_kind_list mcp_tools = {"tools/list", "tools", "tool", "name",
                                               mcp_define_tool_row};
static const struct mcp_kind_list mcp_resources = {"resources/list", "resources", "resource", "uri",
                                                   mcp_define_resource_row};
static const struct mcp_kind_list mcp_templates = {"resources/templates/list", "resourceTemplates",
                                                   "resource template", "uriTemplate",
                                                   mcp_define_template};
static const struct mcp_kind_list mcp_prompts = {"prompts/list", "prompts", "prompt", "name",
                                                 mcp_define_prompt};

int mcp_define_all(struct mcp *m)
{
    cJSON *caps = mcp_link_capabilities(m->link);
    const cJSON *resources = cJSON_GetObjectItemCaseSensitive(caps, "resources");
    int complete = cJSON_GetObjectItemCaseSensitive(caps, "completions") != NULL;
    int rc = MCPH_OK;

    m->subscribe = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resources, "subscribe"));
    if (cJSON_GetObjectItemCaseSensitive(caps, "tools") != NULL)
        rc = mcp_list(m, &mcp_tools, 0);
    if (rc == MCPH_OK && resources != NULL)
        rc = mcp_list(m, &mcp_resources, 0);
    if (rc == MCPH_OK && resources != NULL)
        rc = mcp_list(m, &mcp_templates, complete);
    if (rc == MCPH_OK && cJSON_GetObjectItemCaseSensitive(caps, "prompts") != NULL)
        rc = mcp_list(m, &mcp_prompts, complete);
    cJSON_Delete(caps);
    return rc;
}

/* --- Instructions. --- */

/* body without the heading "[plugin.ID]\n" of instance id, when it starts with it. */
static const char *mcp_unheaded(const char *body, const char *id)
{
    size_t n = strlen(id);

    if (strncmp(body, "[plugin.", 8) == 0 && strncmp(body + 8, id, n) == 0 &&
        strncmp(body + 8 + n, "]\n", 2) == 0)
        return body + 8 + n + 2;
    return body;
}

/* A string member of obj not cut at a U+0000, else NULL. */
static const char *mcp_whole(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

    return cJSON_IsString(v) && !(v->type & MCP_JSON_CUT) ? v->valuestring : NULL;
}

/* The server's instructions as the instance's paragraph, after the server's title (or name)
 * when it gives one: "TITLE: TEXT". An isolated plugin's child sends its plugin's paragraph
 * headed by the section, as the core serves it: taken as it is, the heading off (the core
 * heads it again). Never logged: it is the server's text, newlines and all. */
void mcp_instructions(struct mcp *m)
{
    const struct mcph_host *host = m->host;
    const struct mcp_spec *spec = &m->link->spec;
    cJSON *text = mcp_link_hello(m->link, "instructions");
    cJSON *info = mcp_link_hello(m->link, "serverInfo");
    cJSON *meta = info == NULL ? mcp_link_hello(m->link, "_meta") : NULL;
    const char *title;
    const char *body =
        cJSON_IsString(text) && !(text->type & MCP_JSON_CUT) ? text->valuestring : NULL;
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    int rc = MCPH_OK;

    /* A MCP_MODERN server says who it is in _meta. */
    if (meta != NULL)
        info = cJSON_DetachItemFromObjectCaseSensitive(meta, "io.modelcontextprotocol/serverInfo");
    cJSON_Delete(meta);
    title = mcp_whole(info, "title") ? mcp_whole(info, "title") : mcp_whole(info, "name");

    if (text != NULL && body == NULL)
        host->log(host, MCPH_LOG_WARNING, "%s '%s' sends instructions that are %s; left out",
                  mcp_noun(spec), spec->display,
                  cJSON_IsString(text) ? "cut by a U+0000 (\\u0000)" : "not a string");
    if (body != NULL && spec->own_instructions)
        body = mcp_unheaded(body, host->instance);
    else if (body != NULL && body[0] != '\0' && title != NULL)
        mcph_sb_addf(&sb, "%s: ", title);
    if (body != NULL && body[0] != '\0') {
        mcph_sb_addstr(&sb, body);
        rc = sb.nomem ? MCPH_ERR_NOMEM : host->instructions(host, sb.buf);
    }
    if (rc == MCPH_ERR_LIMIT)
        host->log(host, MCPH_LOG_WARNING,
                  "%s '%s' sends instructions of %zu bytes, past the %d mcph serves; left out",
                  mcp_noun(spec), spec->display, sb.len, MCPH_MAX_INSTRUCTIONS);
    mcph_sb_release(&sb);
    cJSON_Delete(text);
    cJSON_Delete(info);
}
