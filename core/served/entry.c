#include "served/entry.h"

#include "wire/revision.h"

#include <string.h>

/* Add a string member unless value is NULL. 0 on success. */
static int entry_add_str(cJSON *obj, const char *key, const char *value)
{
    if (value == NULL)
        return 0;
    return cJSON_AddStringToObject(obj, key, value) == NULL ? -1 : 0;
}

static int entry_add_hints(cJSON *tool, const struct plugin_tool *def, int rev)
{
    static const char *const names[4] = {"readOnlyHint", "destructiveHint", "idempotentHint",
                                         "openWorldHint"};
    /* Before titles were first-class (2025-06-18), ToolAnnotations carried the title. */
    const char *title = revision_has(rev, REVF_TITLE) ? NULL : def->title;
    cJSON *ann;
    int any = title != NULL;

    if (!revision_has(rev, REVF_TOOL_ANNOTATIONS))
        return 0;
    for (int i = 0; i < 4; i++)
        any |= def->hints[i] != MCPH_HINT_UNSET;
    if (!any)
        return 0;
    ann = cJSON_AddObjectToObject(tool, "annotations");
    if (ann == NULL || entry_add_str(ann, "title", title) != 0)
        return -1;
    for (int i = 0; i < 4; i++) {
        if (def->hints[i] != MCPH_HINT_UNSET &&
            cJSON_AddBoolToObject(ann, names[i], def->hints[i] == MCPH_HINT_TRUE) == NULL)
            return -1;
    }
    return 0;
}

/* icons (2025-11-25) and _meta (2025-06-18 and newer) of a definition, when it has them. */
static int entry_add_extras(cJSON *obj, const cJSON *icons, const cJSON *meta, int rev)
{
    cJSON *copy;

    if (icons != NULL && revision_has(rev, REVF_ICONS)) {
        copy = cJSON_Duplicate(icons, 1);
        if (copy == NULL)
            return -1;
        cJSON_AddItemToObject(obj, "icons", copy);
    }
    if (meta != NULL && revision_has(rev, REVF_META)) {
        copy = cJSON_Duplicate(meta, 1);
        if (copy == NULL)
            return -1;
        cJSON_AddItemToObject(obj, "_meta", copy);
    }
    return 0;
}

/* Resource annotations; lastModified only where the revision defines it. */
static int entry_add_annotations(cJSON *obj, const cJSON *annotations, int rev)
{
    cJSON *copy;

    if (annotations == NULL)
        return 0;
    copy = cJSON_Duplicate(annotations, 1);
    if (copy == NULL)
        return -1;
    if (!revision_has(rev, REVF_META))
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "lastModified");
    cJSON_AddItemToObject(obj, "annotations", copy);
    return 0;
}

static int entry_add_schema(cJSON *obj, const char *key, const cJSON *schema)
{
    cJSON *copy = cJSON_Duplicate(schema, 1);

    if (copy == NULL)
        return -1;
    cJSON_AddItemToObject(obj, key, copy);
    return 0;
}

cJSON *entry_tool(const struct registry_tool *t, int rev)
{
    const struct plugin_tool *def = t->def;
    int titled = revision_has(rev, REVF_TITLE);
    cJSON *tool = cJSON_CreateObject();

    if (tool == NULL || entry_add_str(tool, "name", t->name) != 0 ||
        (titled && entry_add_str(tool, "title", def->title) != 0) ||
        entry_add_str(tool, "description", def->description) != 0 ||
        entry_add_schema(tool, "inputSchema", def->input_schema) != 0 ||
        (def->output_schema != NULL && revision_has(rev, REVF_STRUCTURED) &&
         entry_add_schema(tool, "outputSchema", def->output_schema) != 0) ||
        entry_add_hints(tool, def, rev) != 0 ||
        entry_add_extras(tool, def->icons, def->meta, rev) != 0) {
        cJSON_Delete(tool);
        return NULL;
    }
    return tool;
}

cJSON *entry_resource(const struct registry_resource *r, int rev)
{
    const struct plugin_resource *def = r->def;
    cJSON *res = cJSON_CreateObject();

    if (res == NULL || entry_add_str(res, "uri", def->uri) != 0 ||
        entry_add_str(res, "name", def->name) != 0 ||
        (revision_has(rev, REVF_TITLE) && entry_add_str(res, "title", def->title) != 0) ||
        entry_add_str(res, "description", def->description) != 0 ||
        entry_add_str(res, "mimeType", def->mime_type) != 0 ||
        (def->size > 0 && cJSON_AddNumberToObject(res, "size", (double)def->size) == NULL) ||
        entry_add_annotations(res, def->annotations, rev) != 0 ||
        entry_add_extras(res, def->icons, def->meta, rev) != 0) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}

cJSON *entry_template(const struct registry_template *t, int rev)
{
    const struct plugin_template *def = t->def;
    cJSON *tpl = cJSON_CreateObject();

    if (tpl == NULL || entry_add_str(tpl, "uriTemplate", def->uri_template) != 0 ||
        entry_add_str(tpl, "name", def->name) != 0 ||
        (revision_has(rev, REVF_TITLE) && entry_add_str(tpl, "title", def->title) != 0) ||
        entry_add_str(tpl, "description", def->description) != 0 ||
        entry_add_str(tpl, "mimeType", def->mime_type) != 0 ||
        entry_add_annotations(tpl, def->annotations, rev) != 0 ||
        entry_add_extras(tpl, def->icons, def->meta, rev) != 0) {
        cJSON_Delete(tpl);
        return NULL;
    }
    return tpl;
}

static int entry_add_args(cJSON *prompt, const struct plugin_prompt *def, int rev)
{
    cJSON *args;

    if (def->nargs == 0)
        return 0;
    args = cJSON_AddArrayToObject(prompt, "arguments");
    if (args == NULL)
        return -1;
    for (size_t i = 0; i < def->nargs; i++) {
        const struct plugin_prompt_arg *a = &def->args[i];
        cJSON *arg = cJSON_CreateObject();

        if (arg == NULL)
            return -1;
        cJSON_AddItemToArray(args, arg);
        if (entry_add_str(arg, "name", a->name) != 0 ||
            (revision_has(rev, REVF_TITLE) && entry_add_str(arg, "title", a->title) != 0) ||
            entry_add_str(arg, "description", a->description) != 0 ||
            (a->required && cJSON_AddBoolToObject(arg, "required", 1) == NULL))
            return -1;
    }
    return 0;
}

cJSON *entry_prompt(const struct registry_prompt *p, int rev)
{
    const struct plugin_prompt *def = p->def;
    cJSON *prompt = cJSON_CreateObject();

    if (prompt == NULL || entry_add_str(prompt, "name", p->name) != 0 ||
        (revision_has(rev, REVF_TITLE) && entry_add_str(prompt, "title", def->title) != 0) ||
        entry_add_str(prompt, "description", def->description) != 0 ||
        entry_add_args(prompt, def, rev) != 0 ||
        entry_add_extras(prompt, def->icons, def->meta, rev) != 0) {
        cJSON_Delete(prompt);
        return NULL;
    }
    return prompt;
}
