#include "protocol/lists.h"

#include "lib/base64.h"
#include "served/entry.h"
#include "lib/status.h"
#include "lib/utf8.h"
#include "served/decorate.h"
#include "wire/jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lists_kind {
    const char *key; /* "tools" */
    char tag;        /* marks cursors of this list */
    size_t (*count)(const struct registry *reg);
    cJSON *(*item)(const struct registry *reg, size_t i, int rev);
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

static const struct lists_kind lists_kinds[] = {
    {.key = "tools", .tag = 't', .count = lists_ntools, .item = lists_tool_item},
    {.key = "resources", .tag = 'r', .count = lists_nresources, .item = lists_resource_item},
    {.key = "resourceTemplates",
     .tag = 'u',
     .count = lists_ntemplates,
     .item = lists_template_item},
    {.key = "prompts", .tag = 'p', .count = lists_nprompts, .item = lists_prompt_item},
    {0},
};

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
static char *lists_print_page(struct request *req, const struct lists_kind *list, size_t offset,
                              size_t count)
{
    const struct registry *reg = req->srv->reg;
    size_t end = offset + (size_t)req->srv->cfg.page_size;
    cJSON *result = cJSON_CreateObject();
    cJSON *items = cJSON_AddArrayToObject(result, list->key);
    char *text = NULL;

    if (end > count)
        end = count;
    for (size_t i = offset; items != NULL && i < end; i++)
        cJSON_AddItemToArray(items, list->item(reg, i, req->rev));
    if (items != NULL && end < count) {
        char *next = lists_cursor(list->tag, end);

        if (next == NULL || cJSON_AddStringToObject(result, "nextCursor", next) == NULL)
            items = NULL;
        free(next);
    }
    if (items != NULL) {
        if (req->modern)
            decorate_result(result, reg, NULL, req->cacheable);
        /* Checked once here, not each time the page is sent. */
        text = utf8_own(cJSON_PrintUnformatted(result));
    }
    cJSON_Delete(result);
    return text;
}

static void lists_page(struct request *req, const struct lists_kind *list)
{
    struct registry *reg = req->srv->reg;
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(req->params, "cursor");
    size_t count = list->count(reg), offset = 0;
    const char *page;

    if (cursor != NULL &&
        (!cJSON_IsString(cursor) ||
         lists_cursor_offset(cursor->valuestring, list->tag, count, &offset) != STATUS_OK)) {
        request_error(req, JSONRPC_INVALID_PARAMS,
                      "Invalid cursor: use the nextCursor of "
                      "the previous page, or none for the first page");
        return;
    }
    /* A served set never changes, so each page is printed once per revision. */
    page = registry_page_get(reg, list->tag, req->rev, offset, req->srv->cfg.page_size);
    if (page == NULL) {
        char *text = lists_print_page(req, list, offset, count);

        if (text == NULL) {
            request_no_reply(req);
            return;
        }
        if (!registry_page_put(reg, list->tag, req->rev, offset, req->srv->cfg.page_size, text)) {
            /* The cache is full: answer from the text, then let it go. */
            out_result_text(req->peer->out, req->batch, req->slot, req->id, text);
            free(text);
            return;
        }
        page = text;
    }
    out_result_text(req->peer->out, req->batch, req->slot, req->id, page);
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
