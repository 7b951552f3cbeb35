/*
 * lists.c: the list methods, a page at a time, of the rows the request's principal sees
 * (served/access.h); cursors count the rows of that view.
 */
#include "protocol/lists.h"

#include "lib/base64.h"
#include "served/entry.h"
#include "lib/status.h"
#include "lib/utf8.h"
#include "served/decorate.h"
#include "wire/jsonrpc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lists_kind {
    const char *key; /* "tools" */
    char tag;        /* marks cursors of this list */
    int filter;      /* enum filter_key: which globs of an access section keep its rows */
    size_t (*count)(const struct registry *reg);
    cJSON *(*item)(const struct registry *reg, size_t i, int rev);
    const char *(*name)(const struct registry *reg, size_t i); /* as clients see it */
};

static size_t lists_ntools(const struct registry *reg)
{
    return reg->ntools;
}

static size_t lists_nresources(const struct registry *reg)
{
    return reg->nresources;
}

static size_t lists_ntemplates(const struct registry *reg)
{
    return reg->ntemplates;
}

static size_t lists_nprompts(const struct registry *reg)
{
    return reg->nprompts;
}

static cJSON *lists_tool_item(const struct registry *reg, size_t i, int rev)
{
    return entry_tool(&reg->tools[i], rev);
}

static cJSON *lists_resource_item(const struct registry *reg, size_t i, int rev)
{
    return entry_resource(&reg->resources[i], rev);
}

static cJSON *lists_template_item(const struct registry *reg, size_t i, int rev)
{
    return entry_template(&reg->templates[i], rev);
}

static cJSON *lists_prompt_item(const struct registry *reg, size_t i, int rev)
{
    return entry_prompt(&reg->prompts[i], rev);
}

static const char *lists_tool_name(const struct registry *reg, size_t i)
{
    return reg->tools[i].name;
}

static const char *lists_resource_name(const struct registry *reg, size_t i)
{
    return reg->resources[i].def->uri;
}

static const char *lists_template_name(const struct registry *reg, size_t i)
{
    return reg->templates[i].def->uri_template;
}

static const char *lists_prompt_name(const struct registry *reg, size_t i)
{
    return reg->prompts[i].name;
}

static const struct lists_kind lists_kinds[] = {
    {.key = "tools",
     .tag = 't',
     .filter = FILTER_TOOLS,
     .count = lists_ntools,
     .item = lists_tool_item,
     .name = lists_tool_name},
    {.key = "resources",
     .tag = 'r',
     .filter = FILTER_RESOURCES,
     .count = lists_nresources,
     .item = lists_resource_item,
     .name = lists_resource_name},
    {.key = "resourceTemplates",
     .tag = 'u',
     .filter = FILTER_RESOURCES,
     .count = lists_ntemplates,
     .item = lists_template_item,
     .name = lists_template_name},
    {.key = "prompts",
     .tag = 'p',
     .filter = FILTER_PROMPTS,
     .count = lists_nprompts,
     .item = lists_prompt_item,
     .name = lists_prompt_name},
    {0},
};

/* One list as a view sees it: the rows it keeps, in registry order. */
struct lists_view {
    const struct registry *reg;
    const struct config *cfg;
    const struct lists_kind *list;
    struct access_view view;
};

static int lists_sees(const struct lists_view *lv, size_t i)
{
    return access_sees(lv->cfg, lv->view, lv->list->filter, lv->list->name(lv->reg, i));
}

/* How many rows the view sees. */
static size_t lists_count(const struct lists_view *lv)
{
    size_t all = lv->list->count(lv->reg), n = 0;

    if (lv->view.all)
        return all;
    for (size_t i = 0; i < all; i++)
        n += (size_t)lists_sees(lv, i);
    return n;
}

/* Add the view's rows from the offset-th it sees up to (not including) the end-th. */
static void lists_add_rows(const struct lists_view *lv, cJSON *items, size_t offset, size_t end,
                           int rev)
{
    size_t all = lv->list->count(lv->reg), seen = 0;

    for (size_t i = 0; i < all && seen < end; i++) {
        if (!lv->view.all && !lists_sees(lv, i))
            continue;
        if (seen >= offset)
            cJSON_AddItemToArray(items, lv->list->item(lv->reg, i, rev));
        seen++;
    }
}

char *lists_cursor(char tag, size_t offset)
{
    char plain[64];

    snprintf(plain, sizeof(plain), "mcph:%c:%zu", tag, offset);
    return base64_encode(plain, strlen(plain));
}

int lists_cursor_offset(const char *cursor, char tag, size_t count, size_t *offset)
{
    size_t len = 0;
    unsigned char *plain = base64_decode(cursor, &len);
    char want[8], *end = NULL;
    unsigned long long n;
    int status = STATUS_INVALID;

    snprintf(want, sizeof(want), "mcph:%c:", tag);
    if (plain != NULL && len > 7 && len < 40 && memcmp(plain, want, 7) == 0) {
        plain[len] = '\0';
        n = strtoull((char *)plain + 7, &end, 10);
        if (*end == '\0' && end > (char *)plain + 7 && n <= count) {
            *offset = (size_t)n;
            status = STATUS_OK;
        }
    }
    free(plain);
    return status;
}

/* The result object of a list page, printed; for 2026-07-28 with its envelope members. */
static char *lists_print_page(struct request *req, const struct lists_view *lv, size_t offset,
                              size_t count)
{
    const struct registry *reg = req->srv->reg;
    size_t end = offset + (size_t)req->srv->cfg.page_size;
    cJSON *result = cJSON_CreateObject();
    cJSON *items = cJSON_AddArrayToObject(result, lv->list->key);
    char *text = NULL;

    if (end > count)
        end = count;
    if (items != NULL)
        lists_add_rows(lv, items, offset, end, req->rev);
    if (items != NULL && end < count) {
        char *next = lists_cursor(lv->list->tag, end);

        if (next == NULL || cJSON_AddStringToObject(result, "nextCursor", next) == NULL)
            items = NULL;
        free(next);
    }
    if (items != NULL) {
        if (req->modern)
            decorate_result(result, reg, NULL, req->cacheable);
        /* What this list holds depends on the credential: no shared cache may keep it. */
        if (req->modern && !lv->view.all)
            decorate_private(result);
        /* Checked once here, not each time the page is sent. */
        text = utf8_own(cJSON_PrintUnformatted(result));
    }
    cJSON_Delete(result);
    return text;
}

/* The offset of the page asked for: STATUS_OK, or STATUS_INVALID for a cursor mcph did not
 * make for this list. count: the rows seen, or SIZE_MAX for a first check. */
static int lists_offset(struct request *req, const struct lists_kind *list, size_t count,
                        size_t *offset)
{
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(req->params, "cursor");

    *offset = 0;
    if (cursor == NULL)
        return STATUS_OK;
    if (!cJSON_IsString(cursor))
        return STATUS_INVALID;
    return lists_cursor_offset(cursor->valuestring, list->tag, count, offset);
}

/* Print a page not cached yet, answer with it and keep it. */
static void lists_answer_new(struct request *req, const struct lists_view *lv, size_t offset,
                             size_t count)
{
    char *text = lists_print_page(req, lv, offset, count);

    if (text == NULL) {
        request_no_reply(req);
        return;
    }
    out_result_text(req->peer->out, req->batch, req->slot, req->id, text);
    /* The cache is full: the text goes. */
    if (!registry_page_put(req->srv->reg, lv->list->tag, req->rev, offset, req->srv->cfg.page_size,
                           lv->view, text))
        free(text);
}

static void lists_page(struct request *req, const struct lists_kind *list)
{
    struct registry *reg = req->srv->reg;
    const struct lists_view lv = {reg, &req->srv->cfg, list, request_view(req)};
    size_t count = SIZE_MAX, offset = 0;
    const char *page = NULL;

    /* A served set never changes, so each page of a view is printed once per revision. A page
     * cached at that offset was printed for a cursor checked against the view's rows, so it
     * needs no count (a view's count walks the list). */
    if (lists_offset(req, list, count, &offset) == STATUS_OK)
        page =
            registry_page_get(reg, list->tag, req->rev, offset, req->srv->cfg.page_size, lv.view);
    if (page != NULL) {
        out_result_text(req->peer->out, req->batch, req->slot, req->id, page);
        return;
    }
    count = lists_count(&lv);
    if (lists_offset(req, list, count, &offset) != STATUS_OK) {
        request_error(req, JSONRPC_INVALID_PARAMS,
                      "Invalid cursor: use the nextCursor of "
                      "the previous page, or none for the first page");
        return;
    }
    lists_answer_new(req, &lv, offset, count);
}

void lists_tools(struct request *req)
{
    lists_page(req, &lists_kinds[0]);
}

void lists_resources(struct request *req)
{
    lists_page(req, &lists_kinds[1]);
}

void lists_templates(struct request *req)
{
    lists_page(req, &lists_kinds[2]);
}

void lists_prompts(struct request *req)
{
    lists_page(req, &lists_kinds[3]);
}
