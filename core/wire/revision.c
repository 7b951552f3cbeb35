#include "wire/revision.h"

#include <stddef.h>
#include <string.h>

static const struct revision_info revision_table[REV_COUNT] = {
    [REV_NONE] = {.name = NULL, .features = 0},
    [REV_2024_11_05] = {.name = "2024-11-05", .features = 0},
    [REV_2025_03_26] = {.name = "2025-03-26",
                        .features =
                            REVF_AUDIO | REVF_TOOL_ANNOTATIONS | REVF_COMPLETIONS | REVF_BATCH},
    [REV_2025_06_18] = {.name = "2025-06-18",
                        .features = REVF_AUDIO | REVF_TOOL_ANNOTATIONS | REVF_COMPLETIONS |
                                    REVF_TITLE | REVF_STRUCTURED | REVF_RESOURCE_LINK | REVF_META |
                                    REVF_ELICITATION},
    [REV_2025_11_25] = {.name = "2025-11-25",
                        .features = REVF_AUDIO | REVF_TOOL_ANNOTATIONS | REVF_COMPLETIONS |
                                    REVF_TITLE | REVF_STRUCTURED | REVF_RESOURCE_LINK | REVF_META |
                                    REVF_ICONS | REVF_ELICITATION},
    [REV_2026_07_28] = {.name = "2026-07-28",
                        .features = REVF_AUDIO | REVF_TOOL_ANNOTATIONS | REVF_COMPLETIONS |
                                    REVF_TITLE | REVF_STRUCTURED | REVF_RESOURCE_LINK | REVF_META |
                                    REVF_ICONS | REVF_ELICITATION | REVF_MODERN},
};

const struct revision_info *revision_get(int rev)
{
    if (rev <= REV_NONE || rev >= REV_COUNT)
        return &revision_table[REV_NONE];
    return &revision_table[rev];
}

int revision_parse(const char *name)
{
    for (int rev = REV_NONE + 1; rev < REV_COUNT; rev++) {
        if (strcmp(revision_table[rev].name, name) == 0)
            return rev;
    }
    return REV_NONE;
}

int revision_has(int rev, unsigned features)
{
    return (revision_get(rev)->features & features) == features;
}
