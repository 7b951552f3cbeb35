/* test_revision.c: revision names and what each revision's schema has, the 2026-07-28 one
 * (no initialize, per-request _meta) included. */
#include "wire/revision.h"

#include "check.h"

#include <stddef.h>

static const struct {
    const char *name;
    int rev;
} revision_names[] = {
    {"2024-11-05", REV_2024_11_05}, {"2025-03-26", REV_2025_03_26}, {"2025-06-18", REV_2025_06_18},
    {"2025-11-25", REV_2025_11_25}, {"2026-07-28", REV_2026_07_28}, {0},
};

static void test_parse(void)
{
    for (size_t i = 0; revision_names[i].name != NULL; i++) {
        CHECK_INT_EQ(revision_parse(revision_names[i].name), revision_names[i].rev);
        CHECK_STR_EQ(revision_get(revision_names[i].rev)->name, revision_names[i].name);
    }
    CHECK_INT_EQ(revision_parse(""), REV_NONE);
    CHECK_INT_EQ(revision_parse("2024-10-07"), REV_NONE);
    CHECK_INT_EQ(revision_parse("2025-06-18 "), REV_NONE);
    CHECK_INT_EQ(revision_parse("2025-06"), REV_NONE);
    CHECK_INT_EQ(revision_parse("latest"), REV_NONE);
    CHECK_INT_EQ(REV_LATEST_LEGACY, REV_2025_11_25);
    CHECK_INT_EQ(REV_MODERN, REV_2026_07_28);
    CHECK_INT_EQ(REV_COUNT, REV_2026_07_28 + 1);
}

static void test_get_out_of_range(void)
{
    CHECK(revision_get(REV_NONE)->name == NULL);
    CHECK_INT_EQ(revision_get(REV_NONE)->features, 0);
    CHECK(revision_get(-1)->name == NULL);
    CHECK(revision_get(REV_COUNT)->name == NULL);
    CHECK_INT_EQ(revision_get(99)->features, 0);
    CHECK(!revision_has(REV_NONE, REVF_AUDIO));
    CHECK(!revision_has(REV_COUNT, REVF_TITLE));
}

/* One row per feature: which of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28
 * have it. */
static const struct {
    const char *what;
    unsigned feature;
    int has[5];
} revision_features[] = {
    {"audio", REVF_AUDIO, {0, 1, 1, 1, 1}},
    {"tool annotations", REVF_TOOL_ANNOTATIONS, {0, 1, 1, 1, 1}},
    {"completions", REVF_COMPLETIONS, {0, 1, 1, 1, 1}},
    {"batch", REVF_BATCH, {0, 1, 0, 0, 0}},
    {"title", REVF_TITLE, {0, 0, 1, 1, 1}},
    {"structured", REVF_STRUCTURED, {0, 0, 1, 1, 1}},
    {"resource_link", REVF_RESOURCE_LINK, {0, 0, 1, 1, 1}},
    {"_meta", REVF_META, {0, 0, 1, 1, 1}},
    {"icons", REVF_ICONS, {0, 0, 0, 1, 1}},
    {"elicitation", REVF_ELICITATION, {0, 0, 1, 1, 1}},
    {"modern", REVF_MODERN, {0, 0, 0, 0, 1}},
    {0},
};

static void test_features(void)
{
    for (size_t i = 0; revision_features[i].what != NULL; i++) {
        for (int r = 0; r < 5; r++) {
            int rev = REV_2024_11_05 + r;
            int has = revision_has(rev, revision_features[i].feature);

            if (!CHECK_INT_EQ(has, revision_features[i].has[r]))
                fprintf(stderr, "    feature %s, revision %s\n", revision_features[i].what,
                        revision_get(rev)->name);
        }
    }
}

static void test_has_all_of_several(void)
{
    CHECK(revision_has(REV_2025_06_18, REVF_TITLE | REVF_STRUCTURED | REVF_AUDIO));
    CHECK(!revision_has(REV_2025_06_18, REVF_TITLE | REVF_BATCH));
    CHECK(!revision_has(REV_2025_03_26, REVF_AUDIO | REVF_TITLE));
    CHECK(revision_has(REV_2024_11_05, 0));
    CHECK_INT_EQ(revision_get(REV_2024_11_05)->features, 0);
    /* The modern revision has everything the newest legacy one has, and more. */
    CHECK(revision_has(REV_MODERN, revision_get(REV_LATEST_LEGACY)->features | REVF_MODERN));
}

static const struct check_test tests[] = {
    {"parse", test_parse},
    {"get_out_of_range", test_get_out_of_range},
    {"features", test_features},
    {"has_all_of_several", test_has_all_of_several},
    {0},
};

int main(void)
{
    return check_main("test_revision", tests);
}
