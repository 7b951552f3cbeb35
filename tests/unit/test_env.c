/* test_env.c: plugin-api/mcph-env.h, the words of a command line and the environment of a
 * child, read alike by the exec and mcp plugins. */
#include "mcph-env.h"

#include "check.h"

#include <stdarg.h>

/* --- A host with an env key and a log that keeps the last line. --- */

static const char *env_value;
static char env_logged[512];
static int env_level = -1;

static void env_log(const struct mcph_host *host, enum mcph_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void env_log(const struct mcph_host *host, enum mcph_log_level level, const char *fmt, ...)
{
    va_list ap;

    (void)host;
    va_start(ap, fmt);
    vsnprintf(env_logged, sizeof(env_logged), fmt, ap);
    va_end(ap);
    env_level = (int)level;
}

static const char *env_config(const struct mcph_host *host, const char *key)
{
    (void)host;
    return strcmp(key, "env") == 0 ? env_value : NULL;
}

static struct mcph_host env_host(void)
{
    struct mcph_host h;

    memset(&h, 0, sizeof(h));
    h.instance = "t";
    h.log = env_log;
    h.config = env_config;
    return h;
}

static const char *env_get(char **envp, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; envp[i] != NULL; i++) {
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    }
    return NULL;
}

static size_t env_count(char **envp)
{
    size_t n = 0;

    while (envp[n] != NULL)
        n++;
    return n;
}

/* --- Words. --- */

/* The words of text joined by '|', or "ERR@c" at an unclosed quote c. */
static const char *words_of(const char *text)
{
    static char out[256];
    char word[128];
    const char *p = mcph_word_skip(text);
    int quoted;

    out[0] = '\0';
    while (*p != '\0') {
        if (mcph_word_next(&p, word, &quoted) != MCPH_OK) {
            snprintf(out, sizeof(out), "ERR@%c", *p);
            return out;
        }
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s%s", out[0] ? "|" : "",
                 quoted ? "q:" : "", word);
        p = mcph_word_skip(p);
    }
    return out;
}

static void test_words(void)
{
    CHECK_STR_EQ(words_of("  /bin/echo a  b\tc\nd "), "/bin/echo|a|b|c|d");
    CHECK_STR_EQ(words_of("a'b c'd"), "q:ab cd");
    CHECK_STR_EQ(words_of("\"x\\\"y\\\\z\" 'p\\q'"), "q:x\"y\\z|q:p\\q");
    CHECK_STR_EQ(words_of("a\\b"), "a\\b");
    CHECK_STR_EQ(words_of("''"), "q:");
    CHECK_STR_EQ(words_of("ok 'open"), "ERR@'");
    CHECK_STR_EQ(words_of("\"open"), "ERR@\"");
    CHECK_STR_EQ(words_of(""), "");
    CHECK(mcph_word_space(' ') && mcph_word_space('\t') && mcph_word_space('\n'));
    CHECK(!mcph_word_space('\0') && !mcph_word_space('x') && !mcph_word_space('\r'));
}

/* --- Environment. --- */

static void test_names(void)
{
    char longest[MCPH_ENV_NAME_MAX + 1];

    CHECK(mcph_env_name_ok("PATH", 4));
    CHECK(mcph_env_name_ok("_a1", 3));
    CHECK(!mcph_env_name_ok("1A", 2));
    CHECK(!mcph_env_name_ok("A-B", 3));
    CHECK(!mcph_env_name_ok("", 0));
    memset(longest, 'A', sizeof(longest));
    CHECK(mcph_env_name_ok(longest, MCPH_ENV_NAME_MAX - 1));
    CHECK(!mcph_env_name_ok(longest, MCPH_ENV_NAME_MAX));
}

static void test_set(void)
{
    char **envp = calloc(MCPH_ENV_MAX + 1, sizeof(*envp));
    char name[16];
    int unset = -1;

    CHECK_INT_EQ(mcph_env_set(envp, "AB", 2, "2"), MCPH_OK);
    CHECK_INT_EQ(mcph_env_set(envp, "A", 1, "1"), MCPH_OK); /* a name, not a prefix of one */
    CHECK_INT_EQ(mcph_env_set(envp, "A", 1, "3"), MCPH_OK); /* replaces A */
    CHECK_INT_EQ(env_count(envp), 2);
    CHECK_STR_EQ(env_get(envp, "A"), "3");
    CHECK_STR_EQ(env_get(envp, "AB"), "2");
    CHECK_INT_EQ(mcph_env_word(envp, "B=x=y", 5, &unset), MCPH_OK);
    CHECK_INT_EQ(unset, 0);
    CHECK_STR_EQ(env_get(envp, "B"), "x=y");
    CHECK_INT_EQ(mcph_env_word(envp, "C=", 2, &unset), MCPH_OK);
    CHECK_STR_EQ(env_get(envp, "C"), "");
    CHECK_INT_EQ(mcph_env_word(envp, "MCPH_TEST_ENV_UNSET", 19, &unset), MCPH_OK);
    CHECK_INT_EQ(unset, 1);
    CHECK(env_get(envp, "MCPH_TEST_ENV_UNSET") == NULL);
    CHECK_INT_EQ(mcph_env_word(envp, "=v", 2, &unset), MCPH_ERR_INVALID);
    CHECK_INT_EQ(mcph_env_word(envp, "9=v", 3, &unset), MCPH_ERR_INVALID);
    for (int i = (int)env_count(envp); i < MCPH_ENV_MAX; i++) {
        snprintf(name, sizeof(name), "V%d", i);
        CHECK_INT_EQ(mcph_env_set(envp, name, strlen(name), "v"), MCPH_OK);
    }
    CHECK_INT_EQ(mcph_env_set(envp, "ONE_MORE", 8, "v"), MCPH_ERR_LIMIT);
    CHECK_INT_EQ(mcph_env_set(envp, "A", 1, "4"), MCPH_OK); /* a replacement still fits */
    CHECK_INT_EQ(env_count(envp), MCPH_ENV_MAX);
    mcph_env_free(envp);
}

static void test_read(void)
{
    struct mcph_host h = env_host();
    char **envp = NULL;
    char big[1200];

    setenv("MCPH_TEST_ENV_SET", "from mcph", 1);
    setenv("HOME", "/home/t", 1);
    env_value = " MCPH_TEST_ENV_SET LANG=C PATH=/x\tMCPH_TEST_ENV_UNSET\n";
    env_logged[0] = '\0';
    CHECK_INT_EQ(mcph_env_read(&h, "/usr/bin:/bin", "commands run", &envp), MCPH_OK);
    CHECK_STR_EQ(env_get(envp, "PATH"), "/x");
    CHECK_STR_EQ(env_get(envp, "LANG"), "C");
    CHECK_STR_EQ(env_get(envp, "HOME"), "/home/t");
    CHECK_STR_EQ(env_get(envp, "MCPH_TEST_ENV_SET"), "from mcph");
    CHECK_INT_EQ(env_count(envp), 4);
    CHECK_INT_EQ(env_level, MCPH_LOG_INFO);
    CHECK_STR_HAS(env_logged, "MCPH_TEST_ENV_UNSET is not set in mcph's environment; commands "
                              "run without it");
    mcph_env_free(envp);

    /* The defaults; a HOME that is not absolute is /. No cap on a value's length. */
    setenv("HOME", "relative", 1);
    memset(big, 'v', sizeof(big));
    memcpy(big, "BIG=", 4);
    big[sizeof(big) - 1] = '\0';
    env_value = big;
    CHECK_INT_EQ(mcph_env_read(&h, "/usr/local/bin:/usr/bin:/bin", "the server runs", &envp),
                 MCPH_OK);
    CHECK_STR_EQ(env_get(envp, "PATH"), "/usr/local/bin:/usr/bin:/bin");
    CHECK_STR_EQ(env_get(envp, "HOME"), "/");
    CHECK_INT_EQ(strlen(env_get(envp, "BIG")), sizeof(big) - 5);
    mcph_env_free(envp);

    env_value = "GOOD=1 1BAD=2";
    envp = NULL;
    CHECK_INT_EQ(mcph_env_read(&h, "/bin", "commands run", &envp), MCPH_ERR_INVALID);
    CHECK(envp == NULL);
    CHECK_INT_EQ(env_level, MCPH_LOG_ERROR);
    CHECK_STR_HAS(env_logged, "env in [plugin.t]: '1BAD=2' is not NAME or NAME=VALUE");
}

static void test_read_limit(void)
{
    struct mcph_host h = env_host();
    char list[MCPH_ENV_MAX * 8];
    char **envp = NULL;

    list[0] = '\0';
    for (int i = 0; i < MCPH_ENV_MAX - 2; i++) /* with PATH, LANG and HOME: one too many */
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "V%d=1 ", i);
    env_value = list;
    CHECK_INT_EQ(mcph_env_read(&h, "/bin", "commands run", &envp), MCPH_ERR_INVALID);
    CHECK_STR_HAS(env_logged, "more than 64 variables");
    list[strlen(list) - strlen("V61=1 ")] = '\0';
    CHECK_INT_EQ(mcph_env_read(&h, "/bin", "commands run", &envp), MCPH_OK);
    CHECK_INT_EQ(env_count(envp), MCPH_ENV_MAX);
    mcph_env_free(envp);
}

static const struct check_test tests[] = {
    {"words", test_words}, {"names", test_names},           {"set", test_set},
    {"read", test_read},   {"read_limit", test_read_limit}, {0},
};

int main(void)
{
    return check_main("test_env", tests);
}
