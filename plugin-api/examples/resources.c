/*
 * resources.c: a fixed resource and a resource template. notes://index lists the notes;
 * notes://note/{n} reads note n, and a number out of range is "not found" (-32002), a
 * protocol error, since a resource read has no tool error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "plugin-api.h"

static const char *const notes[] = {"Buy milk.", "Call Ada.", "Water the plants."};
#define NOTES_COUNT (sizeof(notes) / sizeof(notes[0]))

static int notes_index(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    char text[256];
    size_t n = 0;

    (void)state;
    for (size_t i = 0; i < NOTES_COUNT && n < sizeof(text); i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "notes://note/%zu\n", i + 1);
    /* uri NULL: the URI being read. */
    return host->contents_text(call, NULL, "text/plain", text);
}

static int notes_note(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *var = NULL;
    char *end = NULL;

    (void)state;
    host->arg_string(call, "n", &var); /* a template variable, percent-decoded */
    unsigned long n = strtoul(var, &end, 10);
    if (*end != '\0' || n < 1 || n > NOTES_COUNT)
        return host->error(call, MCPH_ERR_NOT_FOUND, "no note %s: there are %zu", var, NOTES_COUNT);
    return host->contents_text(call, NULL, "text/plain", notes[n - 1]);
}

static const struct mcph_resource notes_resources[] = {
    {.uri = "notes://index", .name = "index", .mime_type = "text/plain", .read = notes_index},
    {0},
};

static const struct mcph_resource_template notes_templates[] = {
    {.uri_template = "notes://note/{n}", .name = "note", .read = notes_note},
    {0},
};

static const struct mcph_plugin notes_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "notes",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .resources = notes_resources,
    .resource_templates = notes_templates,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &notes_plugin;
}
