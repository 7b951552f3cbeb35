/*
 * revision.h: the MCP protocol revisions mcph speaks and what each one has. Everything
 * that differs between revisions is decided from this table, so the rest of the core asks
 * "does this client's revision have X", never "is it revision Y".
 */
#ifndef MCPH_REVISION_H
#define MCPH_REVISION_H

enum revision {
    REV_NONE = 0,
    REV_2024_11_05,
    REV_2025_03_26,
    REV_2025_06_18,
    REV_2025_11_25,
    REV_2026_07_28,
    REV_COUNT,
};

/* The newest revision negotiated by initialize, and the modern one (per-request _meta). */
#define REV_LATEST_LEGACY REV_2025_11_25
#define REV_MODERN REV_2026_07_28

/* Features: what a revision's schema has. */
enum revision_feature {
    REVF_AUDIO = 1u << 0,            /* AudioContent */
    REVF_TOOL_ANNOTATIONS = 1u << 1, /* Tool.annotations (ToolAnnotations) */
    REVF_COMPLETIONS = 1u << 2,      /* the completions capability */
    REVF_BATCH = 1u << 3,            /* JSON-RPC batches */
    REVF_TITLE = 1u << 4,            /* title on tools, resources, prompts, arguments, info */
    REVF_STRUCTURED = 1u << 5,       /* Tool.outputSchema, CallToolResult.structuredContent */
    REVF_RESOURCE_LINK = 1u << 6,    /* ResourceLink content */
    REVF_META = 1u << 7,             /* _meta on definitions and content */
    REVF_ICONS = 1u << 8,            /* icons, Implementation.description/websiteUrl */
    REVF_ELICITATION = 1u << 9,      /* elicitation/create */
    REVF_MODERN = 1u << 10, /* no initialize; per-request _meta, resultType, caching, MRTR */
};

struct revision_info {
    const char *name;  /* "2025-06-18" */
    unsigned features; /* enum revision_feature bits */
};

/* The row of `rev` (REV_NONE gives a row with name NULL and no features). Static. */
const struct revision_info *revision_get(int rev);

/* The revision named `name`, or REV_NONE when mcph does not speak it. */
int revision_parse(const char *name);

/* Whether `rev` has every feature in `features`. */
int revision_has(int rev, unsigned features);

#endif
