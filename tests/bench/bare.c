/*
 * bare.c: the floor of `make bench`. The least a cJSON-based MCP stdio server does: read a
 * line, parse it with cJSON, answer it, one line per reply.
 *
 *   initialize   a fixed, minimal InitializeResult (protocol 2025-06-18, tools capability)
 *   tools/call   of "echo": {"content":[{"type":"text","text":<the text argument>}]}
 *                of "spin" {us: 1-100000}: the CPU kept busy for us microseconds (a loop
 *                reading CLOCK_MONOTONIC, as bench.c's spin), then "spun US" as one text item
 *   tools/list   the 1,000 tools of tools.h, printed once (on the first tools/list, so that
 *                start-up stays the floor too) and reused
 *   ping         {"jsonrpc":"2.0","id":ID,"result":{}}
 *   notifications (no id): ignored; anything else: -32601
 *
 * No threads, no validation beyond what the reply needs, no limits: this is a measuring
 * stick, not a server to deploy.
 */
#include "tools.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BARE_INIT_RESULT                                                                           \
    "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"                         \
    "\"serverInfo\":{\"name\":\"bare\",\"version\":\"1.0.0\"}}"

struct bare_tool {
    const char *name;
    const char *title;
    const char *description;
};

#define BARE_TOOL_ROW(n) {BENCH_TOOL_NAME(n), BENCH_TOOL_TITLE(n), BENCH_TOOL_DESCRIPTION(n)},

static const struct bare_tool bare_tools[] = {BENCH_TOOLS(BARE_TOOL_ROW){0}};

/* The tools/list result as compact JSON text, in the member order mcph uses. Owned by the
 * caller; NULL when out of memory. */
static char *bare_list_result(void)
{
    cJSON *result = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(result, "tools");
    char *text = NULL;

    if (tools == NULL)
        goto out;
    for (const struct bare_tool *t = bare_tools; t->name != NULL; t++) {
        cJSON *tool = cJSON_CreateObject();
        cJSON *schema = cJSON_Parse(BENCH_TOOL_SCHEMA);

        cJSON_AddItemToArray(tools, tool);
        if (cJSON_AddStringToObject(tool, "name", t->name) == NULL ||
            cJSON_AddStringToObject(tool, "title", t->title) == NULL ||
            cJSON_AddStringToObject(tool, "description", t->description) == NULL ||
            !cJSON_AddItemToObject(tool, "inputSchema", schema))
            goto out;
    }
    text = cJSON_PrintUnformatted(result);
out:
    cJSON_Delete(result);
    return text;
}

/* One reply line: the envelope around result_json (a JSON text), written and flushed. */
static void bare_send_raw(const cJSON *id, const char *key, const char *json)
{
    char *id_text = id ? cJSON_PrintUnformatted(id) : NULL;

    fputs("{\"jsonrpc\":\"2.0\",\"id\":", stdout);
    fputs(id_text ? id_text : "null", stdout);
    fprintf(stdout, ",\"%s\":", key);
    fputs(json, stdout);
    fputs("}\n", stdout);
    fflush(stdout);
    free(id_text);
}

static void bare_error(const cJSON *id, int code, const char *message)
{
    char json[128];

    snprintf(json, sizeof(json), "{\"code\":%d,\"message\":\"%s\"}", code, message);
    bare_send_raw(id, "error", json);
}

/* tools/call of spin: the clock read until us microseconds have passed (bounded in count
 * too, and stopped if the clock fails), then the reply. */
static void bare_spin(const cJSON *args, const cJSON *id)
{
    const cJSON *us = cJSON_GetObjectItemCaseSensitive(args, "us");
    struct timespec t0, now;
    char json[96];
    long long ns;

    if (!cJSON_IsNumber(us) || us->valuedouble < 1 || us->valuedouble > 100000 ||
        us->valuedouble != (double)us->valueint) {
        bare_error(id, -32602, "Unknown tool or bad arguments");
        return;
    }
    ns = (long long)us->valueint * 1000;
    for (long long reads = clock_gettime(CLOCK_MONOTONIC, &t0) == 0 ? 0 : ns; reads < ns; reads++) {
        if (clock_gettime(CLOCK_MONOTONIC, &now) != 0 ||
            (now.tv_sec - t0.tv_sec) * 1000000000LL + (now.tv_nsec - t0.tv_nsec) >= ns)
            break;
    }
    snprintf(json, sizeof(json), "{\"content\":[{\"type\":\"text\",\"text\":\"spun %d\"}]}",
             us->valueint);
    bare_send_raw(id, "result", json);
}

/* tools/call of echo (moves the text item of root into the reply) or of spin. */
static void bare_call(cJSON *root, cJSON *id)
{
    cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    cJSON *text = cJSON_GetObjectItemCaseSensitive(args, "text");

    if (!cJSON_IsString(name) || strcmp(name->valuestring, "echo") != 0 || !cJSON_IsString(text)) {
        if (cJSON_IsString(name) && strcmp(name->valuestring, "spin") == 0)
            bare_spin(args, id);
        else
            bare_error(id, -32602, "Unknown tool or bad arguments");
        return;
    }
    cJSON *reply = cJSON_CreateObject();
    cJSON *result = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(result, "content");
    cJSON *item = cJSON_CreateObject();

    cJSON_AddStringToObject(reply, "jsonrpc", "2.0");
    cJSON_AddItemToObject(reply, "id", cJSON_DetachItemViaPointer(root, id));
    cJSON_AddItemToObject(reply, "result", result);
    cJSON_AddItemToArray(content, item);
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddItemToObject(item, "text", cJSON_DetachItemViaPointer(args, text));
    char *out = cJSON_PrintUnformatted(reply);
    if (out != NULL) {
        fputs(out, stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    free(out);
    cJSON_Delete(reply);
}

/* tools/list: *list is the result text, made on the first call (owned by main). */
static void bare_list(cJSON *id, char **list)
{
    if (*list == NULL)
        *list = bare_list_result();
    if (*list == NULL)
        bare_error(id, -32603, "Out of memory");
    else
        bare_send_raw(id, "result", *list);
}

/* A request (it has an id and a method); notifications and anything else get no answer. */
static void bare_request(cJSON *root, cJSON *id, const char *method, char **list)
{
    if (strcmp(method, "tools/call") == 0)
        bare_call(root, id);
    else if (strcmp(method, "tools/list") == 0)
        bare_list(id, list);
    else if (strcmp(method, "initialize") == 0)
        bare_send_raw(id, "result", BARE_INIT_RESULT);
    else if (strcmp(method, "ping") == 0)
        bare_send_raw(id, "result", "{}");
    else
        bare_error(id, -32601, "Method not found");
}

static void bare_line(const char *line, size_t len, char **list)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    cJSON *method = cJSON_GetObjectItemCaseSensitive(root, "method");

    if (root == NULL)
        bare_error(NULL, -32700, "Parse error");
    else if (id != NULL && cJSON_IsString(method))
        bare_request(root, id, method->valuestring, list);
    cJSON_Delete(root);
}

int main(void)
{
    char *list = NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    /* 64 KiB reads, as mcph does, so a 1 MiB message is not read 4 KiB at a time. */
    setvbuf(stdin, NULL, _IOFBF, 65536);
    while ((len = getline(&line, &cap, stdin)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        bare_line(line, (size_t)len, &list);
    }
    free(line);
    free(list);
    return 0;
}
