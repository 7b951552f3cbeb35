/* test_http.c: the HTTP transport's parts that need no connection nor daemon (http_int.h):
 * header values trimmed, the framing checks, Host and Origin against the allowed names, the
 * bearer tokens (file and check), the media type of a body, session ids (made and found) and
 * the legacy version check, which POSTs listen, and the event stream's framing and sending. */
#include "transport/http_int.h"

#include "check.h"

#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

static void test_trim(void)
{
    char buf[8];

    CHECK_STR_EQ(http_trim("  a b \t", buf, sizeof(buf)), "a b");
    CHECK_STR_EQ(http_trim("\t\t", buf, sizeof(buf)), "");
    CHECK_STR_EQ(http_trim("plain", buf, sizeof(buf)), "plain");
    /* A longer value is cut to the buffer. */
    CHECK_STR_EQ(http_trim(" 0123456789 ", buf, sizeof(buf)), "0123456");
}

static void test_error_text(void)
{
    char *text = http_error_text(-32000, "Bad Request: x");
    cJSON *msg = text ? cJSON_Parse(text) : NULL;
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(msg, "error");

    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(msg, "id")));
    CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(error, "code")), -32000);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(error, "message")),
                 "Bad Request: x");
    cJSON_Delete(msg);
    free(text);
}

static void free_names(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
}

static void test_names(void)
{
    char *list[4];
    size_t n = 0;

    CHECK_INT_EQ(http_add_names(list, &n, 4, " Example.COM,,api.test\tLocalHost "), STATUS_OK);
    if (!CHECK_INT_EQ(n, 3))
        return;
    CHECK_STR_EQ(list[0], "example.com");
    CHECK_STR_EQ(list[1], "api.test");
    CHECK_STR_EQ(list[2], "localhost");
    CHECK_INT_EQ(http_add_names(list, &n, 4, NULL), STATUS_OK);
    CHECK_INT_EQ(http_add_names(list, &n, 4, "one two"), STATUS_LIMIT);
    CHECK_INT_EQ(n, 4);
    free_names(list, n);
}

static void test_loopback(void)
{
    CHECK(http_is_loopback("localhost"));
    CHECK(http_is_loopback("127.0.0.1"));
    CHECK(http_is_loopback("127.8.9.10"));
    CHECK(http_is_loopback("::1"));
    CHECK(http_is_loopback("::ffff:127.0.0.1"));
    CHECK(!http_is_loopback("0.0.0.0"));
    CHECK(!http_is_loopback("10.0.0.1"));
    CHECK(!http_is_loopback("128.0.0.1"));
    CHECK(!http_is_loopback("::"));
    CHECK(!http_is_loopback("::ffff:10.0.0.1"));
    CHECK(!http_is_loopback("localhost.example"));
}

/* The names a loopback listener with allowed_hosts and allowed_origins answers to. */
static struct http *allow_list(void)
{
    struct http *h = calloc(1, sizeof(*h));

    if (h == NULL)
        return NULL;
    if (http_add_names(h->hosts, &h->nhosts, 32, "localhost 127.0.0.1 [::1]") != STATUS_OK ||
        http_add_names(h->hosts, &h->nhosts, 32, "mcp.example") != STATUS_OK ||
        http_add_names(h->origins, &h->norigins, 32, "https://app.test") != STATUS_OK) {
        free(h);
        return NULL;
    }
    return h;
}

static void free_allow_list(struct http *h)
{
    free_names(h->hosts, h->nhosts);
    free_names(h->origins, h->norigins);
    free(h);
}

static int host_ok(const struct http *h, const char *host)
{
    return http_host_allowed(h, host, strlen(host));
}

static void test_hosts(void)
{
    struct http *h = allow_list();

    if (!CHECK(h != NULL))
        return;
    CHECK(host_ok(h, "localhost"));
    CHECK(host_ok(h, "localhost:8080"));
    CHECK(host_ok(h, "LOCALHOST:8080"));
    CHECK(host_ok(h, "127.0.0.1:3000"));
    CHECK(host_ok(h, "[::1]:3000"));
    CHECK(host_ok(h, "MCP.example"));
    CHECK(!host_ok(h, "evil.example"));
    CHECK(!host_ok(h, "localhost.evil.example"));
    CHECK(!host_ok(h, "mcp.example.evil"));
    CHECK(!host_ok(h, "::1"));
    CHECK(!host_ok(h, ""));
    /* Only len bytes are looked at. */
    CHECK(http_host_allowed(h, "localhost/evil", 9));
    free_allow_list(h);
}

static void test_origins(void)
{
    struct http *h = allow_list();

    if (!CHECK(h != NULL))
        return;
    CHECK(http_origin_allowed(h, NULL));
    CHECK(http_origin_allowed(h, "http://localhost:3000"));
    CHECK(http_origin_allowed(h, "HTTPS://mcp.example"));
    CHECK(http_origin_allowed(h, "https://mcp.example/some/path"));
    CHECK(http_origin_allowed(h, "https://app.test"));
    CHECK(http_origin_allowed(h, "HTTPS://APP.TEST"));
    CHECK(!http_origin_allowed(h, "http://app.test"));
    CHECK(!http_origin_allowed(h, "http://evil.example"));
    CHECK(!http_origin_allowed(h, "ftp://localhost"));
    CHECK(!http_origin_allowed(h, "localhost"));
    CHECK(!http_origin_allowed(h, "null"));
    free_allow_list(h);
}

/* Which token authorization carries (-1: accepted, none configured), or -2: refused. */
static int token(const struct http *h, const char *authorization)
{
    int which = 0;

    return http_token_ok(h, authorization, &which) ? which : -2;
}

static void test_tokens(void)
{
    struct http *h = calloc(1, sizeof(*h));
    char text[] = "alpha\r\n# a comment\n\n  beta \t\ngamma";

    if (!CHECK(h != NULL))
        return;
    /* No tokens configured: anyone may ask, and nobody is told apart. */
    CHECK_INT_EQ(token(h, NULL), -1);
    CHECK_INT_EQ(token(h, "Bearer alpha"), -1);
    CHECK_INT_EQ(http_parse_tokens(h, text), STATUS_OK);
    CHECK_INT_EQ(h->ntokens, 3);
    CHECK_INT_EQ(token(h, "Bearer alpha"), 0);
    CHECK_INT_EQ(token(h, "Bearer beta"), 1);
    CHECK_INT_EQ(token(h, "bearer   gamma"), 2);
    CHECK_INT_EQ(token(h, "Bearer delta"), -2);
    CHECK_INT_EQ(token(h, "Bearer alph"), -2);
    CHECK_INT_EQ(token(h, "Bearer # a comment"), -2);
    CHECK_INT_EQ(token(h, "Basic alpha"), -2);
    CHECK_INT_EQ(token(h, "alpha"), -2);
    CHECK_INT_EQ(token(h, NULL), -2);
    free(h);
}

static void test_token_file(void)
{
    struct http *h = calloc(1, sizeof(*h));
    char empty[] = "# only a comment\n\n";
    struct strbuf many = STRBUF_INIT;

    if (!CHECK(h != NULL))
        return;
    CHECK_INT_EQ(http_parse_tokens(h, NULL), STATUS_INVALID);
    CHECK_INT_EQ(http_parse_tokens(h, empty), STATUS_INVALID);
    for (int i = 0; i <= HTTP_MAX_TOKENS; i++) {
        char line[32];

        snprintf(line, sizeof(line), "token-%d\n", i);
        strbuf_addstr(&many, line);
    }
    CHECK_INT_EQ(http_parse_tokens(h, many.buf), STATUS_LIMIT);
    CHECK_INT_EQ(h->ntokens, HTTP_MAX_TOKENS);
    strbuf_release(&many);
    free(h);
}

/* The framing problem of a request with these header names (NULL-ended). */
static const char *framing(const char *te, unsigned *status, const char *const *names)
{
    struct http_framing f = {0};

    for (size_t i = 0; names[i] != NULL; i++)
        http_framing_count(&f, names[i]);
    return http_framing_problem(&f, te, status);
}

static void test_framing(void)
{
    static const char *const good[] = {"Host", "Content-Type", "Accept", "Accept", NULL};
    static const char *const twice[] = {"Host", "host", NULL};
    static const char *const sessions[] = {"Mcp-Session-Id", "MCP-SESSION-ID", NULL};
    static const char *const both[] = {"Content-Length", "Transfer-Encoding", NULL};
    static const char *const spaced[] = {"Host ", NULL};
    static const char *const chunked[] = {"Transfer-Encoding", NULL};
    unsigned status = 0;

    CHECK(framing(NULL, &status, good) == NULL);
    CHECK_STR_HAS(framing(NULL, &status, twice), "must come once");
    CHECK_INT_EQ(status, 400);
    CHECK_STR_HAS(framing(NULL, &status, sessions), "must come once");
    CHECK_STR_HAS(framing("chunked", &status, both), "Content-Length and Transfer-Encoding");
    CHECK_STR_HAS(framing(NULL, &status, spaced), "white space in a header name");
    CHECK(framing("Chunked", &status, chunked) == NULL);
    CHECK_STR_HAS(framing("gzip", &status, chunked), "Not Implemented");
    CHECK_INT_EQ(status, 501);
}

static void test_json_type(void)
{
    CHECK(http_is_json_type("application/json"));
    CHECK(http_is_json_type("application/json; charset=utf-8"));
    CHECK(http_is_json_type("application/json;charset=utf-8"));
    CHECK(http_is_json_type("Application/JSON"));
    CHECK(http_is_json_type("application/json "));
    CHECK(!http_is_json_type("application/json-seq"));
    CHECK(!http_is_json_type("application/jso"));
    CHECK(!http_is_json_type("text/plain"));
    CHECK(!http_is_json_type(""));
    CHECK(!http_is_json_type(NULL));
}

static int all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    }
    return s[n] == '\0';
}

static void test_session_id(void)
{
    static const unsigned char rnd[16] = {0x00, 0x01, 0xab, 0xff, 0x10, 0x20, 0x30, 0x40,
                                          0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0};
    char id[LIMIT_ID_ROUTE + 34];

    http_session_id(id, sizeof(id), NULL, rnd);
    CHECK_STR_EQ(id, "0001abff102030405060708090a0b0c0");
    CHECK(all_hex(id, 32));
    /* A route (session_route) comes first, for a balancer's affinity on the prefix. */
    http_session_id(id, sizeof(id), "replica-2", rnd);
    CHECK_STR_EQ(id, "replica-2-0001abff102030405060708090a0b0c0");
    CHECK(all_hex(id + strlen("replica-2-"), 32));
    http_session_id(id, 8, "r", rnd);
    CHECK_STR_EQ(id, "r-0001a");
}

/* Sessions found by the id a request names: the whole id, nothing less or more. */
static void test_session_find(void)
{
    static const char *const ids[] = {"r1-00ff", "r1-00ff00", "r2-00ff"};
    struct http_session *table[3], s[3];
    struct http h;
    struct principal *alice = principal_new(PRINCIPAL_TOKEN, "token:1", "token 1");
    struct principal *alice2 = principal_new(PRINCIPAL_TOKEN, "token:1", "token 1");
    struct principal *bob = principal_new(PRINCIPAL_TOKEN, "token:2", "token 2");
    int foreign;

    memset(&h, 0, sizeof(h));
    memset(s, 0, sizeof(s));
    pthread_mutex_init(&h.lock, NULL);
    for (size_t i = 0; i < 3; i++) {
        snprintf(s[i].id, sizeof(s[i].id), "%s", ids[i]);
        atomic_init(&s[i].peer.refs, 1);
        table[i] = &s[i];
    }
    h.sessions = table;
    h.nsessions = 3;
    CHECK(http_session_find(&h, "r1-00ff", NULL, &foreign) == &s[0]);
    CHECK(http_session_find(&h, "r1-00ff00", NULL, &foreign) == &s[1]);
    CHECK(http_session_find(&h, "r2-00ff", NULL, &foreign) == &s[2]);
    /* Found is held: one reference more for the request. */
    CHECK_INT_EQ(atomic_load(&s[0].peer.refs), 2);
    CHECK(http_session_find(&h, "r1-00f", NULL, &foreign) == NULL && !foreign);
    CHECK(http_session_find(&h, "r1-00ff0", NULL, &foreign) == NULL);
    CHECK(http_session_find(&h, "R1-00FF", NULL, &foreign) == NULL);
    CHECK(http_session_find(&h, "", NULL, &foreign) == NULL);
    CHECK_INT_EQ(atomic_load(&s[1].peer.refs), 2);
    /* Bound to the principal that opened it: another one is refused, and nothing is held. */
    s[2].peer.principal = alice;
    CHECK(http_session_find(&h, "r2-00ff", bob, &foreign) == NULL && foreign);
    CHECK(http_session_find(&h, "r2-00ff", NULL, &foreign) == NULL && foreign);
    CHECK_INT_EQ(atomic_load(&s[2].peer.refs), 2);
    CHECK(http_session_find(&h, "r2-00ff", alice2, &foreign) == &s[2] && !foreign);
    CHECK(http_session_find(&h, "r1-00ff", alice, &foreign) == NULL && foreign);
    principal_drop(alice);
    principal_drop(alice2);
    principal_drop(bob);
    pthread_mutex_destroy(&h.lock);
}

static void test_version(void)
{
    char buf[200];

    CHECK(http_version_problem(NULL, buf, sizeof(buf)) == NULL);
    CHECK(http_version_problem("2025-06-18", buf, sizeof(buf)) == NULL);
    CHECK(http_version_problem("2024-11-05", buf, sizeof(buf)) == NULL);
    CHECK_STR_HAS(http_version_problem("1999-01-01", buf, sizeof(buf)),
                  "Unsupported protocol version: 1999-01-01");
    CHECK_STR_HAS(http_version_problem("", buf, sizeof(buf)), "Unsupported protocol version");
}

static int listens(const char *json)
{
    cJSON *root = cJSON_Parse(json);
    int yes = http_listens(root);

    cJSON_Delete(root);
    return yes;
}

static void test_listens(void)
{
    CHECK(listens("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\"}"));
    CHECK(listens("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"},"
                  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"subscriptions/listen\"}]"));
    CHECK(!listens("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));
    CHECK(!listens("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]"));
    CHECK(!listens("{\"jsonrpc\":\"2.0\",\"method\":\"subscriptions/listen\"}"));
    CHECK(!listens("[{\"jsonrpc\":\"2.0\",\"method\":\"subscriptions/listen\"}]"));
    CHECK(!listens("[]"));
    CHECK(!listens("7"));
}

static void conn_init(struct http_conn *c)
{
    memset(c, 0, sizeof(*c));
    strbuf_init(&c->raw);
    strbuf_init(&c->events);
}

static void conn_release(struct http_conn *c)
{
    strbuf_release(&c->raw);
    strbuf_release(&c->events);
}

static void test_raw_to_events(void)
{
    struct http_conn c;

    conn_init(&c);
    strbuf_addstr(&c.raw, "{\"a\":1}\n{\"b\":2}\n{\"c\"");
    http_raw_to_events(&c);
    CHECK_STR_EQ(c.events.buf, "event: message\ndata: {\"a\":1}\n\n"
                               "event: message\ndata: {\"b\":2}\n\n");
    /* The line not yet whole waits for the rest. */
    CHECK_STR_EQ(c.raw.buf, "{\"c\"");
    strbuf_addstr(&c.raw, ":3}\n");
    http_raw_to_events(&c);
    CHECK_STR_HAS(c.events.buf, "data: {\"c\":3}\n\n");
    CHECK_INT_EQ(c.raw.len, 0);
    conn_release(&c);
}

static void test_count_answers(void)
{
    static const char reply[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
    static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n";
    struct http_conn c;
    struct iovec split[2] = {{(void *)reply, 24}, {(void *)(reply + 24), sizeof(reply) - 25}};
    struct iovec two[2] = {{(void *)note, sizeof(note) - 1}, {(void *)reply, sizeof(reply) - 1}};

    conn_init(&c);
    /* A line written in two parts counts once, by its start (whose head is in the first). */
    http_count_answers(&c, split, 2);
    CHECK_INT_EQ(c.answers, 1);
    CHECK_INT_EQ(c.mid_line, 0);
    http_count_answers(&c, two, 2);
    CHECK_INT_EQ(c.answers, 2);
    /* A part that stops inside a line: what follows it is not a line's start. */
    http_count_answers(&c, split, 1);
    CHECK_INT_EQ(c.answers, 3);
    CHECK_INT_EQ(c.mid_line, 1);
    http_count_answers(&c, &two[1], 1);
    CHECK_INT_EQ(c.answers, 3);
    CHECK_INT_EQ(c.mid_line, 0);
    conn_release(&c);
}

static void test_events_take(void)
{
    struct http_conn c;
    char buf[16];

    conn_init(&c);
    strbuf_addstr(&c.events, "abcdefghij");
    CHECK_INT_EQ(http_events_take(&c, buf, 3), 3);
    CHECK(memcmp(buf, "abc", 3) == 0);
    CHECK_INT_EQ(c.events_at, 3);
    CHECK_INT_EQ(c.events.len, 10);
    /* Past half sent: what went is dropped. */
    CHECK_INT_EQ(http_events_take(&c, buf, 3), 3);
    CHECK(memcmp(buf, "def", 3) == 0);
    CHECK_INT_EQ(c.events_at, 0);
    CHECK_STR_EQ(c.events.buf, "ghij");
    CHECK_INT_EQ(http_events_take(&c, buf, sizeof(buf)), 4);
    CHECK(memcmp(buf, "ghij", 4) == 0);
    CHECK_INT_EQ(c.events.len, 0);
    CHECK_INT_EQ(c.events_at, 0);
    /* An event lost to memory stays known after the rest is sent: the stream then breaks
     * off (http_events_read) rather than leave its client waiting. */
    strbuf_addstr(&c.events, "kl");
    c.events.nomem = 1;
    CHECK_INT_EQ(http_events_take(&c, buf, sizeof(buf)), 2);
    CHECK_INT_EQ(c.events.len, 0);
    CHECK_INT_EQ(c.events.nomem, 1);
    conn_release(&c);
}

static const struct check_test tests[] = {
    {"trim", test_trim},
    {"error_text", test_error_text},
    {"names", test_names},
    {"loopback", test_loopback},
    {"hosts", test_hosts},
    {"origins", test_origins},
    {"tokens", test_tokens},
    {"token_file", test_token_file},
    {"framing", test_framing},
    {"json_type", test_json_type},
    {"session_id", test_session_id},
    {"session_find", test_session_find},
    {"version", test_version},
    {"listens", test_listens},
    {"raw_to_events", test_raw_to_events},
    {"count_answers", test_count_answers},
    {"events_take", test_events_take},
    {0},
};

int main(void)
{
    return check_main("test_http", tests);
}
