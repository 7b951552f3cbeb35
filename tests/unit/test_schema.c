/* test_schema.c: every enforced keyword with values that pass and values that fail, the
 * JSON-pointer path in the error, $ref resolution (pointers, escapes, recursion, cycles),
 * and schema_check. Cases are tables of JSON texts. */
#include "lib/schema.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One validation: schema and value as JSON text. path NULL: the value must pass. Otherwise
 * it must fail with an error that starts with "PATH: " and contains part. */
struct schema_case {
    const char *schema;
    const char *value;
    const char *path;
    const char *part;
};

/* Whether err is "PATH: ..." containing part. */
static int schema_err_is(const char *err, const char *path, const char *part)
{
    size_t n = strlen(path);

    return strncmp(err, path, n) == 0 && strncmp(err + n, ": ", 2) == 0 &&
           strstr(err + n, part) != NULL;
}

/* Run one case; when it does not go as expected, say why on stderr. */
static int schema_case_ok(const struct schema_case *k)
{
    cJSON *schema = cJSON_Parse(k->schema);
    cJSON *value = cJSON_Parse(k->value);
    struct strbuf sb = STRBUF_INIT;
    const char *err;
    int status = -999, ok = 0;

    strbuf_addstr(&sb, "untouched");
    if (schema != NULL && value != NULL) {
        status = schema_validate(schema, value, &sb);
        if (k->path == NULL)
            ok = status == STATUS_OK;
        else
            ok = status == STATUS_INVALID && schema_err_is(sb.buf, k->path, k->part);
    }
    err = sb.buf;
    if (!ok) {
        fprintf(stderr, "    schema %s\n    value  %s\n", k->schema, k->value);
        if (schema == NULL || value == NULL)
            fprintf(stderr, "    (the test's JSON does not parse)\n");
        else if (k->path == NULL)
            fprintf(stderr, "    want pass, got %d \"%s\"\n", status, err);
        else
            fprintf(stderr, "    want %d \"%s: ...%s...\", got %d \"%s\"\n", STATUS_INVALID,
                    k->path, k->part, status, err);
    }
    cJSON_Delete(schema);
    cJSON_Delete(value);
    strbuf_release(&sb);
    return ok;
}

/* Every case of the table (ended by {0}) is one check. */
static void schema_run(const struct schema_case *cases)
{
    for (size_t i = 0; cases[i].schema != NULL; i++) {
        if (!CHECK(schema_case_ok(&cases[i])))
            fprintf(stderr, "    (case %zu of the table)\n", i);
    }
}

static void test_type(void)
{
    static const struct schema_case cases[] = {
        {"{\"type\":\"string\"}", "\"s\"", NULL, NULL},
        {"{\"type\":\"string\"}", "1", "(root)", "expected string, got integer"},
        {"{\"type\":\"boolean\"}", "false", NULL, NULL},
        {"{\"type\":\"boolean\"}", "0", "(root)", "expected boolean, got integer"},
        {"{\"type\":\"null\"}", "null", NULL, NULL},
        {"{\"type\":\"null\"}", "false", "(root)", "expected null, got boolean"},
        {"{\"type\":\"object\"}", "{}", NULL, NULL},
        {"{\"type\":\"object\"}", "[]", "(root)", "expected object, got array"},
        {"{\"type\":\"array\"}", "[1]", NULL, NULL},
        {"{\"type\":\"array\"}", "{}", "(root)", "expected array, got object"},
        {"{\"type\":\"number\"}", "1.5", NULL, NULL},
        {"{\"type\":\"number\"}", "\"1.5\"", "(root)", "expected number, got string"},
        /* Integers are numbers; 1.0 is an integer; 1.5 is not. */
        {"{\"type\":\"number\"}", "3", NULL, NULL},
        {"{\"type\":\"integer\"}", "3", NULL, NULL},
        {"{\"type\":\"integer\"}", "-7", NULL, NULL},
        {"{\"type\":\"integer\"}", "1.0", NULL, NULL},
        {"{\"type\":\"integer\"}", "1e2", NULL, NULL},
        {"{\"type\":\"integer\"}", "1.5", "(root)", "expected integer, got number"},
        {"{\"type\":\"integer\"}", "true", "(root)", "expected integer, got boolean"},
        /* Lists of types. */
        {"{\"type\":[\"string\",\"null\"]}", "\"s\"", NULL, NULL},
        {"{\"type\":[\"string\",\"null\"]}", "null", NULL, NULL},
        {"{\"type\":[\"string\",\"null\"]}", "1", "(root)", "integer"},
        {"{\"type\":[\"integer\",\"boolean\"]}", "2.0", NULL, NULL},
        {"{\"type\":[\"integer\",\"boolean\"]}", "2.5", "(root)", "number"},
        {"{\"type\":[\"number\"]}", "2", NULL, NULL},
        /* The path of a nested value. */
        {"{\"properties\":{\"a\":{\"items\":{\"properties\":{\"b\":{\"type\":\"integer\"}}}}}}",
         "{\"a\":[{\"b\":\"x\"}]}", "/a/0/b", "expected integer, got string"},
        {"{\"properties\":{\"a\":{\"items\":{\"properties\":{\"b\":{\"type\":\"integer\"}}}}}}",
         "{\"a\":[{\"b\":1},{\"b\":2},{\"b\":3.5}]}", "/a/2/b", "expected integer, got number"},
        {"{\"properties\":{\"a\":{\"items\":{\"properties\":{\"b\":{\"type\":\"integer\"}}}}}}",
         "{\"a\":[{\"b\":1},{\"c\":\"x\"}]}", NULL, NULL},
        /* The member named "" has the pointer "/". */
        {"{\"properties\":{\"\":{\"type\":\"string\"}}}", "{\"\":1}", "/", "expected string"},
        {0},
    };

    schema_run(cases);
}

/* Property names are escaped in the path as JSON pointers do: "~" is "~0", "/" is "~1". */
static void test_path_escapes(void)
{
    static const struct schema_case cases[] = {
        {"{\"properties\":{\"a/b\":{\"type\":\"string\"}}}", "{\"a/b\":1}", "/a~1b",
         "expected string"},
        {"{\"properties\":{\"m~n\":{\"type\":\"string\"}}}", "{\"m~n\":1}", "/m~0n",
         "expected string"},
        {0},
    };

    schema_run(cases);
}

static void test_enum_const(void)
{
    static const struct schema_case cases[] = {
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "1", NULL, NULL},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "1.0", NULL, NULL},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "\"a\"", NULL, NULL},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "null", NULL, NULL},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "{\"x\":[1,2]}", NULL, NULL},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "{\"x\":[2,1]}", "(root)", "enum"},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "{\"x\":[1,2],\"y\":0}", "(root)", "enum"},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "\"A\"", "(root)", "enum"},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "\"1\"", "(root)", "enum"},
        {"{\"enum\":[1,\"a\",null,{\"x\":[1,2]}]}", "false", "(root)", "enum"},
        /* Members of an object compare in any order. */
        {"{\"enum\":[{\"a\":1,\"b\":2}]}", "{\"b\":2,\"a\":1}", NULL, NULL},
        {"{\"properties\":{\"c\":{\"enum\":[\"red\",\"green\"]}}}", "{\"c\":\"blue\"}", "/c",
         "enum"},
        {"{\"const\":{\"a\":[1,{\"b\":null}]}}", "{\"a\":[1,{\"b\":null}]}", NULL, NULL},
        {"{\"const\":{\"a\":[1,{\"b\":null}]}}", "{\"a\":[1,{\"b\":0}]}", "(root)", "constant"},
        {"{\"const\":{\"a\":[1,{\"b\":null}]}}", "{\"a\":[1,{}]}", "(root)", "constant"},
        {"{\"const\":{\"a\":1,\"b\":2}}", "{\"b\":2,\"a\":1}", NULL, NULL},
        {"{\"const\":null}", "null", NULL, NULL},
        {"{\"const\":null}", "0", "(root)", "constant"},
        {"{\"const\":false}", "false", NULL, NULL},
        {"{\"const\":false}", "0", "(root)", "constant"},
        {"{\"const\":0}", "false", "(root)", "constant"},
        {"{\"const\":\"x\"}", "\"x\"", NULL, NULL},
        {"{\"items\":{\"const\":2}}", "[2,2,3]", "/2", "constant"},
        {0},
    };

    schema_run(cases);
}

static void test_numbers(void)
{
    static const struct schema_case cases[] = {
        {"{\"minimum\":1}", "1", NULL, NULL},
        {"{\"minimum\":1}", "0.999", "(root)", ">= 1"},
        {"{\"minimum\":-2.5}", "-2.5", NULL, NULL},
        {"{\"minimum\":-2.5}", "-3", "(root)", ">= -2.5"},
        {"{\"maximum\":10}", "10", NULL, NULL},
        {"{\"maximum\":10}", "10.5", "(root)", "<= 10"},
        /* The number form of the exclusive bounds. */
        {"{\"exclusiveMinimum\":1}", "1", "(root)", "> 1"},
        {"{\"exclusiveMinimum\":1}", "1.001", NULL, NULL},
        {"{\"exclusiveMaximum\":10}", "10", "(root)", "< 10"},
        {"{\"exclusiveMaximum\":10}", "9.999", NULL, NULL},
        {"{\"exclusiveMinimum\":0,\"exclusiveMaximum\":1}", "0.5", NULL, NULL},
        {"{\"exclusiveMinimum\":0,\"exclusiveMaximum\":1}", "0", "(root)", "> 0"},
        /* draft-04's boolean form makes minimum and maximum strict. */
        {"{\"minimum\":1,\"exclusiveMinimum\":true}", "1", "(root)", "> 1"},
        {"{\"minimum\":1,\"exclusiveMinimum\":true}", "2", NULL, NULL},
        {"{\"minimum\":1,\"exclusiveMinimum\":false}", "1", NULL, NULL},
        {"{\"minimum\":1,\"exclusiveMinimum\":false}", "0", "(root)", ">= 1"},
        {"{\"maximum\":5,\"exclusiveMaximum\":true}", "5", "(root)", "< 5"},
        {"{\"maximum\":5,\"exclusiveMaximum\":true}", "4.5", NULL, NULL},
        {"{\"maximum\":5,\"exclusiveMaximum\":false}", "5", NULL, NULL},
        {"{\"maximum\":5,\"exclusiveMaximum\":false}", "6", "(root)", "<= 5"},
        /* multipleOf, with steps of 0.1 despite binary floating point. */
        {"{\"multipleOf\":3}", "9", NULL, NULL},
        {"{\"multipleOf\":3}", "-9", NULL, NULL},
        {"{\"multipleOf\":3}", "10", "(root)", "multiple of 3"},
        {"{\"multipleOf\":0.1}", "0", NULL, NULL},
        {"{\"multipleOf\":0.1}", "0.3", NULL, NULL},
        {"{\"multipleOf\":0.1}", "0.7", NULL, NULL},
        {"{\"multipleOf\":0.1}", "1.1", NULL, NULL},
        {"{\"multipleOf\":0.1}", "2.3", NULL, NULL},
        {"{\"multipleOf\":0.1}", "12.3", NULL, NULL},
        {"{\"multipleOf\":0.1}", "-0.2", NULL, NULL},
        {"{\"multipleOf\":0.1}", "5", NULL, NULL},
        {"{\"multipleOf\":0.1}", "0.35", "(root)", "multiple of 0.1"},
        {"{\"multipleOf\":0.1}", "0.01", "(root)", "multiple of 0.1"},
        {"{\"multipleOf\":0.01}", "19.99", NULL, NULL},
        {"{\"multipleOf\":0.5}", "2.5", NULL, NULL},
        {"{\"multipleOf\":0.5}", "2.25", "(root)", "multiple of 0.5"},
        /* Number keywords leave other types alone. */
        {"{\"minimum\":5,\"multipleOf\":2}", "\"abc\"", NULL, NULL},
        {"{\"properties\":{\"n\":{\"maximum\":3}}}", "{\"n\":4}", "/n", "<= 3"},
        {0},
    };

    schema_run(cases);
}

/* Decimal steps stay exact enough for large values too (amounts of money, say). */
static void test_multiple_of_large(void)
{
    static const struct schema_case cases[] = {
        {"{\"multipleOf\":0.1}", "123456789.1", NULL, NULL},
        {"{\"multipleOf\":0.01}", "1234567.89", NULL, NULL},
        {"{\"multipleOf\":0.01}", "1234567.895", "(root)", "multiple of 0.01"},
        {0},
    };

    schema_run(cases);
}

static void test_strings(void)
{
    static const struct schema_case cases[] = {
        {"{\"minLength\":2,\"maxLength\":3}", "\"ab\"", NULL, NULL},
        {"{\"minLength\":2,\"maxLength\":3}", "\"abc\"", NULL, NULL},
        {"{\"minLength\":2,\"maxLength\":3}", "\"a\"", "(root)", "at least 2"},
        {"{\"minLength\":2,\"maxLength\":3}", "\"abcd\"", "(root)", "at most 3"},
        {"{\"minLength\":1}", "\"\"", "(root)", "at least 1"},
        /* Code points, not bytes: "héllo" is 5 (6 bytes), "日本" is 2, one emoji is 1. */
        {"{\"maxLength\":5}", "\"h\xc3\xa9llo\"", NULL, NULL},
        {"{\"minLength\":5}", "\"h\xc3\xa9llo\"", NULL, NULL},
        {"{\"minLength\":6}", "\"h\xc3\xa9llo\"", "(root)", "at least 6"},
        {"{\"maxLength\":4}", "\"h\xc3\xa9llo\"", "(root)", "at most 4"},
        {"{\"maxLength\":5}", "\"h\\u00e9llo\"", NULL, NULL},
        {"{\"maxLength\":2}", "\"\xe6\x97\xa5\xe6\x9c\xac\"", NULL, NULL},
        {"{\"maxLength\":1}", "\"\xf0\x9f\x98\x80\"", NULL, NULL},
        {"{\"maxLength\":1}", "\"\\ud83d\\ude00\"", NULL, NULL},
        {"{\"minLength\":2}", "\"\xf0\x9f\x98\x80\"", "(root)", "at least 2"},
        /* pattern searches anywhere unless anchored. */
        {"{\"pattern\":\"ell\"}", "\"hello\"", NULL, NULL},
        {"{\"pattern\":\"ell\"}", "\"help\"", "(root)", "pattern ell"},
        {"{\"pattern\":\"^ell\"}", "\"hello\"", "(root)", "pattern ^ell"},
        {"{\"pattern\":\"^h.*o$\"}", "\"hello\"", NULL, NULL},
        {"{\"pattern\":\"^h.*o$\"}", "\"hello!\"", "(root)", "pattern"},
        {"{\"pattern\":\"^[a-z]+$\"}", "\"abc\"", NULL, NULL},
        {"{\"pattern\":\"^[a-z]+$\"}", "\"abc1\"", "(root)", "pattern"},
        {"{\"pattern\":\"^[0-9]{3}-[0-9]{4}$\"}", "\"555-1234\"", NULL, NULL},
        {"{\"pattern\":\"^[0-9]{3}-[0-9]{4}$\"}", "\"5555-1234\"", "(root)", "pattern"},
        {"{\"pattern\":\"^(cat|dog)s?$\"}", "\"dogs\"", NULL, NULL},
        {"{\"pattern\":\"^(cat|dog)s?$\"}", "\"cow\"", "(root)", "pattern"},
        /* String keywords leave other types alone. */
        {"{\"minLength\":3,\"pattern\":\"^x$\"}", "12", NULL, NULL},
        {"{\"properties\":{\"s\":{\"maxLength\":1}}}", "{\"s\":\"ab\"}", "/s", "at most 1"},
        {0},
    };

    schema_run(cases);
}

static void test_items(void)
{
    static const struct schema_case cases[] = {
        /* items as one schema for every element. */
        {"{\"items\":{\"type\":\"integer\"}}", "[]", NULL, NULL},
        {"{\"items\":{\"type\":\"integer\"}}", "[1,2,3]", NULL, NULL},
        {"{\"items\":{\"type\":\"integer\"}}", "[1,2,\"x\"]", "/2", "expected integer, got string"},
        {"{\"items\":{\"type\":\"integer\"}}", "[1.5]", "/0", "expected integer, got number"},
        {"{\"items\":{\"items\":{\"type\":\"string\"}}}", "[[\"a\"],[\"b\",2]]", "/1/1",
         "expected string"},
        {"{\"items\":false}", "[]", NULL, NULL},
        {"{\"items\":false}", "[1]", "/0", "no value is allowed"},
        {"{\"items\":true}", "[1,\"a\",null]", NULL, NULL},
        /* draft-07's array form: one schema per position; additionalItems for the rest. */
        {"{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",1]", NULL, NULL},
        {"{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\"]", NULL, NULL},
        {"{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",1,true]", NULL,
         NULL},
        {"{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",\"b\"]", "/1",
         "expected integer, got string"},
        {"{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[1,1]", "/0",
         "expected string, got integer"},
        {"{\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}", "[\"a\"]", NULL, NULL},
        {"{\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}", "[\"a\",\"b\"]", "/1",
         "no value is allowed"},
        {"{\"items\":[{\"type\":\"string\"}],\"additionalItems\":{\"type\":\"boolean\"}}",
         "[\"a\",true,false]", NULL, NULL},
        {"{\"items\":[{\"type\":\"string\"}],\"additionalItems\":{\"type\":\"boolean\"}}",
         "[\"a\",true,\"x\"]", "/2", "expected boolean, got string"},
        /* additionalItems means nothing without the array form. */
        {"{\"items\":{\"type\":\"string\"},\"additionalItems\":false}", "[\"a\",\"b\"]", NULL,
         NULL},
        /* prefixItems, with items for the rest. */
        {"{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",1,null]", NULL,
         NULL},
        {"{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",\"b\"]", "/1",
         "expected integer"},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}",
         "[\"a\",1,2]", NULL, NULL},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}", "[1]", "/0",
         "expected string"},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}",
         "[\"a\",1,\"b\"]", "/2", "expected integer, got string"},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\"]", NULL, NULL},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\",\"b\"]", "/1",
         "no value is allowed"},
        {0},
    };

    schema_run(cases);
}

static void test_array_size_unique(void)
{
    static const struct schema_case cases[] = {
        {"{\"minItems\":2,\"maxItems\":3}", "[1,2]", NULL, NULL},
        {"{\"minItems\":2,\"maxItems\":3}", "[1,2,3]", NULL, NULL},
        {"{\"minItems\":2,\"maxItems\":3}", "[1]", "(root)", "at least 2 items"},
        {"{\"minItems\":2,\"maxItems\":3}", "[1,2,3,4]", "(root)", "at most 3 items"},
        {"{\"maxItems\":0}", "[]", NULL, NULL},
        {"{\"properties\":{\"l\":{\"minItems\":1}}}", "{\"l\":[]}", "/l", "at least 1 items"},
        {"{\"uniqueItems\":true}", "[1,2,3]", NULL, NULL},
        {"{\"uniqueItems\":true}", "[]", NULL, NULL},
        {"{\"uniqueItems\":true}", "[1,2,1]", "(root)", "unique"},
        {"{\"uniqueItems\":true}", "[1,1.0]", "(root)", "unique"},
        {"{\"uniqueItems\":true}", "[1,\"1\",true,null]", NULL, NULL},
        {"{\"uniqueItems\":true}", "[\"a\",\"A\"]", NULL, NULL},
        /* Objects are equal whatever the order of their members. */
        {"{\"uniqueItems\":true}", "[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1}]", "(root)", "unique"},
        {"{\"uniqueItems\":true}", "[{\"a\":1},{\"a\":2}]", NULL, NULL},
        {"{\"uniqueItems\":true}", "[{\"a\":1},{\"a\":1,\"b\":1}]", NULL, NULL},
        {"{\"uniqueItems\":true}", "[[1,2],[2,1]]", NULL, NULL},
        {"{\"uniqueItems\":true}", "[[1,2],[1,2]]", "(root)", "unique"},
        {"{\"uniqueItems\":false}", "[1,1]", NULL, NULL},
        {0},
    };

    schema_run(cases);
}

static void test_objects(void)
{
    static const char *const person = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
                                      "\"string\"},\"age\":{\"type\":\"integer\",\"minimum\":0}},"
                                      "\"required\":[\"name\"]}";
    const struct schema_case cases[] = {
        {person, "{\"name\":\"a\"}", NULL, NULL},
        {person, "{\"name\":\"a\",\"age\":3,\"other\":[]}", NULL, NULL},
        {person, "{}", "(root)", "missing required property 'name'"},
        {person, "{\"age\":3}", "(root)", "'name'"},
        {person, "{\"name\":1}", "/name", "expected string, got integer"},
        {person, "{\"name\":\"a\",\"age\":-1}", "/age", ">= 0"},
        /* required and properties only concern objects. */
        {person, "[]", "(root)", "expected object, got array"},
        {"{\"required\":[\"a\"],\"properties\":{\"a\":{\"type\":\"string\"}}}", "[1]", NULL, NULL},
        /* additionalProperties false names the unexpected member. */
        {"{\"properties\":{\"a\":{}},\"additionalProperties\":false}", "{\"a\":1}", NULL, NULL},
        {"{\"properties\":{\"a\":{}},\"additionalProperties\":false}", "{\"a\":1,\"b\":2}",
         "(root)", "'b'"},
        {"{\"properties\":{\"o\":{\"additionalProperties\":false}}}", "{\"o\":{\"x\":1}}", "/o",
         "unexpected property 'x'"},
        {"{\"additionalProperties\":true}", "{\"x\":1}", NULL, NULL},
        /* additionalProperties as a schema applies to the members properties do not name. */
        {"{\"properties\":{\"a\":{}},\"additionalProperties\":{\"type\":\"integer\"}}",
         "{\"a\":\"s\",\"b\":1}", NULL, NULL},
        {"{\"properties\":{\"a\":{}},\"additionalProperties\":{\"type\":\"integer\"}}",
         "{\"a\":\"s\",\"b\":\"t\"}", "/b", "expected integer, got string"},
        /* patternProperties, and additionalProperties for what no pattern matches. */
        {"{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
         "{\"x-a\":\"s\",\"x-b\":\"t\"}", NULL, NULL},
        {"{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
         "{\"x-a\":1}", "/x-a", "expected string, got integer"},
        {"{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
         "{\"y\":\"s\"}", "(root)", "'y'"},
        {"{\"patternProperties\":{\"^n\":{\"type\":\"integer\"}},\"additionalProperties\":"
         "{\"type\":\"string\"}}",
         "{\"n1\":1,\"s\":\"a\"}", NULL, NULL},
        {"{\"patternProperties\":{\"^n\":{\"type\":\"integer\"}},\"additionalProperties\":"
         "{\"type\":\"string\"}}",
         "{\"n1\":1,\"s\":2}", "/s", "expected string"},
        /* A member named by properties and matched by a pattern must satisfy both. */
        {"{\"properties\":{\"n1\":{\"minimum\":5}},\"patternProperties\":{\"^n\":{\"type\":"
         "\"integer\"}}}",
         "{\"n1\":6}", NULL, NULL},
        {"{\"properties\":{\"n1\":{\"minimum\":5}},\"patternProperties\":{\"^n\":{\"type\":"
         "\"integer\"}}}",
         "{\"n1\":6.5}", "/n1", "expected integer"},
        {"{\"properties\":{\"n1\":{\"minimum\":5}},\"patternProperties\":{\"^n\":{\"type\":"
         "\"integer\"}}}",
         "{\"n1\":4}", "/n1", ">= 5"},
        /* Property counts. */
        {"{\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1}", NULL, NULL},
        {"{\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1,\"b\":2}", NULL, NULL},
        {"{\"minProperties\":1,\"maxProperties\":2}", "{}", "(root)", "at least 1 propert"},
        {"{\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1,\"b\":2,\"c\":3}", "(root)",
         "at most 2 propert"},
        {"{\"items\":{\"maxProperties\":0}}", "[{},{\"a\":1}]", "/1", "at most 0 propert"},
        {0},
    };

    schema_run(cases);
}

static void test_combinators(void)
{
    static const struct schema_case cases[] = {
        {"{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":5}]}", "6", NULL, NULL},
        {"{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":5}]}", "3", "(root)", ">= 5"},
        {"{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":5}]}", "5.5", "(root)",
         "expected integer"},
        {"{\"allOf\":[{\"properties\":{\"a\":{\"type\":\"string\"}}}]}", "{\"a\":1}", "/a",
         "expected string"},
        {"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "\"s\"", NULL, NULL},
        {"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "1", NULL, NULL},
        {"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "1.5", "(root)", "anyOf"},
        {"{\"properties\":{\"a\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}}}",
         "{\"a\":null}", "/a", "anyOf"},
        /* oneOf: exactly one; matching two fails as matching none does. */
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":0}]}", "-1", NULL, NULL},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":0}]}", "1.5", NULL, NULL},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":0}]}", "1", "(root)", "oneOf"},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":0}]}", "-1.5", "(root)", "oneOf"},
        {"{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"string\"}]}", "\"s\"", "(root)", "oneOf"},
        {"{\"properties\":{\"k\":{\"oneOf\":[{\"const\":1},{\"const\":2}]}}}", "{\"k\":3}", "/k",
         "oneOf"},
        {"{\"not\":{\"type\":\"string\"}}", "1", NULL, NULL},
        {"{\"not\":{\"type\":\"string\"}}", "\"s\"", "(root)", "not"},
        {"{\"items\":{\"not\":{\"const\":0}}}", "[1,0]", "/1", "not"},
        {"{\"not\":{\"not\":{\"type\":\"null\"}}}", "null", NULL, NULL},
        /* A failure inside anyOf is not the error: the combinator's own is. */
        {"{\"anyOf\":[{\"properties\":{\"a\":{\"type\":\"string\"}}},{\"required\":[\"b\"]}]}",
         "{\"a\":1}", "(root)", "anyOf"},
        {0},
    };

    schema_run(cases);
}

static void test_boolean_schemas(void)
{
    static const struct schema_case cases[] = {
        {"true", "1", NULL, NULL},
        {"true", "{\"a\":[null]}", NULL, NULL},
        {"false", "1", "(root)", "no value is allowed"},
        {"false", "null", "(root)", "no value is allowed"},
        {"{}", "\"anything\"", NULL, NULL},
        {"{\"properties\":{\"a\":true,\"b\":false}}", "{\"a\":1}", NULL, NULL},
        {"{\"properties\":{\"a\":true,\"b\":false}}", "{\"a\":1,\"b\":1}", "/b",
         "no value is allowed"},
        {"{\"properties\":{\"a\":true,\"b\":false},\"additionalProperties\":false}", "{\"a\":[]}",
         NULL, NULL},
        {"{\"anyOf\":[false,true]}", "1", NULL, NULL},
        {"{\"allOf\":[true,false]}", "1", "(root)", "no value is allowed"},
        {"{\"not\":false}", "1", NULL, NULL},
        {"{\"not\":true}", "1", "(root)", "not"},
        {0},
    };

    schema_run(cases);
}

/* A tree whose children use the root schema again. */
#define SCHEMA_TREE                                                                                \
    "{\"type\":\"object\",\"required\":[\"v\"],\"additionalProperties\":false,"                    \
    "\"properties\":{\"v\":{\"type\":\"integer\"},"                                                \
    "\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}}}"

/* "a" refers to "b" and "b" to "a". */
#define SCHEMA_CYCLE "\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/a\"}}"

static void test_ref(void)
{
    static const struct schema_case cases[] = {
        {"{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}},"
         "\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}}}",
         "{\"n\":2}", NULL, NULL},
        {"{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}},"
         "\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}}}",
         "{\"n\":0}", "/n", ">= 1"},
        {"{\"definitions\":{\"s\":{\"type\":\"string\"}},\"items\":{\"$ref\":\"#/definitions/s\"}}",
         "[\"a\",\"b\"]", NULL, NULL},
        {"{\"definitions\":{\"s\":{\"type\":\"string\"}},\"items\":{\"$ref\":\"#/definitions/s\"}}",
         "[\"a\",2]", "/1", "expected string, got integer"},
        /* A $ref at the root; a $ref to a $ref. */
        {"{\"$defs\":{\"s\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/s\"}", "1", "(root)",
         "expected string"},
        {"{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"const\":7}},\"$ref\":\"#/$defs/a\"}",
         "7", NULL, NULL},
        {"{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"const\":7}},\"$ref\":\"#/$defs/a\"}",
         "8", "(root)", "constant"},
        /* Pointer escapes: ~1 is "/" and ~0 is "~" in a member name. */
        {"{\"$defs\":{\"a/b\":{\"type\":\"string\"},\"c~d\":{\"type\":\"integer\"}},"
         "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a~1b\"},\"y\":{\"$ref\":\"#/$defs/c~0d\"}}}",
         "{\"x\":\"s\",\"y\":1}", NULL, NULL},
        {"{\"$defs\":{\"a/b\":{\"type\":\"string\"},\"c~d\":{\"type\":\"integer\"}},"
         "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a~1b\"},\"y\":{\"$ref\":\"#/$defs/c~0d\"}}}",
         "{\"x\":1}", "/x", "expected string"},
        {"{\"$defs\":{\"a/b\":{\"type\":\"string\"},\"c~d\":{\"type\":\"integer\"}},"
         "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a~1b\"},\"y\":{\"$ref\":\"#/$defs/c~0d\"}}}",
         "{\"y\":\"s\"}", "/y", "expected integer"},
        /* "~01" is "~1" (escapes are undone left to right, once). */
        {"{\"$defs\":{\"~1\":{\"const\":1},\"/\":{\"const\":2}},\"$ref\":\"#/$defs/~01\"}", "1",
         NULL, NULL},
        /* A pointer through an array. */
        {"{\"$defs\":{\"l\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},"
         "\"$ref\":\"#/$defs/l/1\"}",
         "3", NULL, NULL},
        {"{\"$defs\":{\"l\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},"
         "\"$ref\":\"#/$defs/l/1\"}",
         "\"s\"", "(root)", "expected integer"},
        /* "#": a recursive tree schema on a nested tree. */
        {SCHEMA_TREE, "{\"v\":1}", NULL, NULL},
        {SCHEMA_TREE,
         "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{\"v\":3},{\"v\":4,\"kids\":[{\"v\":5}]}]},"
         "{\"v\":6,\"kids\":[]}]}",
         NULL, NULL},
        {SCHEMA_TREE, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{\"v\":3},{\"v\":\"x\"}]}]}",
         "/kids/0/kids/1/v", "expected integer, got string"},
        {SCHEMA_TREE, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{}]}]}", "/kids/0/kids/0",
         "missing required property 'v'"},
        {SCHEMA_TREE, "{\"v\":1,\"kids\":[{\"v\":2,\"extra\":true}]}", "/kids/0", "'extra'"},
        /* A $ref that names nothing fails validation too. */
        {"{\"properties\":{\"a\":{\"$ref\":\"#/$defs/none\"}}}", "{\"a\":1}", "/a", "#/$defs/none"},
        /* A cycle is refused with a depth error, not followed for ever. */
        {"{" SCHEMA_CYCLE ",\"$ref\":\"#/$defs/a\"}", "1", "(root)", "deeper than"},
        {"{" SCHEMA_CYCLE ",\"properties\":{\"p\":{\"$ref\":\"#/$defs/b\"}}}", "{\"p\":1}", "/p",
         "deeper than"},
        {"{\"$ref\":\"#\"}", "1", "(root)", "deeper than"},
        {0},
    };

    schema_run(cases);
}

/* A cycle under "not" is still a schema that cannot be evaluated: the depth error must not
 * be inverted into acceptance. */
static void test_ref_cycle_inside_combinators(void)
{
    static const struct schema_case cases[] = {
        {"{" SCHEMA_CYCLE ",\"not\":{\"$ref\":\"#/$defs/a\"}}", "1", "(root)", "deeper than"},
        {0},
    };

    schema_run(cases);
}

static void test_unknown_keywords(void)
{
    static const struct schema_case cases[] = {
        {"{\"type\":\"string\",\"format\":\"email\"}", "\"not an email\"", NULL, NULL},
        {"{\"format\":\"date-time\",\"x-vendor\":{\"type\":\"integer\"}}", "\"yesterday\"", NULL,
         NULL},
        {"{\"title\":\"t\",\"description\":\"d\",\"default\":1,\"examples\":[2],"
         "\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"$id\":\"urn:x\"}",
         "\"s\"", NULL, NULL},
        {"{\"type\":\"string\",\"format\":\"email\"}", "1", "(root)", "expected string"},
        {0},
    };

    schema_run(cases);
}

/* err is replaced, not appended to: a failure gives the whole message, a pass leaves it
 * empty. */
static void test_validate_err_buffer(void)
{
    cJSON *schema = cJSON_Parse("{\"properties\":{\"abc\":{\"type\":\"string\"}}}");
    cJSON *value = cJSON_Parse("{\"abc\":1}");
    struct strbuf err = STRBUF_INIT;

    if (!CHECK(schema != NULL && value != NULL))
        goto out;
    strbuf_addstr(&err, "xxxxxxx");
    CHECK_INT_EQ(schema_validate(schema, value, &err), STATUS_INVALID);
    CHECK(strncmp(err.buf, "/abc: e", 7) == 0);
    CHECK_STR_EQ(err.buf, "/abc: expected string, got integer");
    cJSON_ReplaceItemInObject(value, "abc", cJSON_CreateString("ok"));
    strbuf_addstr(&err, "xxxxxxx");
    CHECK_INT_EQ(schema_validate(schema, value, &err), STATUS_OK);
    CHECK_STR_EQ(err.buf, "");
out:
    strbuf_release(&err);
    cJSON_Delete(schema);
    cJSON_Delete(value);
}

/* Nested properties: {"properties":{"k0":{"properties":{"k1":...{"type":"string"}}}}} and the
 * matching value with 1 at the bottom; names are `key` with the level appended. */
static void schema_nest(struct strbuf *schema, struct strbuf *value, const char *key, int levels)
{
    for (int i = 0; i < levels; i++) {
        strbuf_addf(schema, "{\"properties\":{\"%s%d\":", key, i);
        strbuf_addf(value, "{\"%s%d\":", key, i);
    }
    strbuf_addstr(schema, "{\"type\":\"string\"}");
    strbuf_addch(value, '1');
    for (int i = 0; i < levels; i++) {
        strbuf_addstr(schema, "}}");
        strbuf_addch(value, '}');
    }
}

/* A path longer than any fixed buffer comes out whole: 12 levels of 60-byte names. */
static void test_deep_path_whole(void)
{
    struct strbuf schema_text = STRBUF_INIT, value_text = STRBUF_INIT;
    struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
    char key[61];
    cJSON *schema, *value;

    memset(key, 'k', 60);
    key[60] = '\0';
    schema_nest(&schema_text, &value_text, key, 12);
    for (int i = 0; i < 12; i++)
        strbuf_addf(&want, "/%s%d", key, i);
    strbuf_addstr(&want, ": expected string, got integer");
    schema = cJSON_Parse(schema_text.buf);
    value = cJSON_Parse(value_text.buf);
    if (CHECK(schema != NULL && value != NULL)) {
        CHECK_INT_EQ(schema_validate(schema, value, &err), STATUS_INVALID);
        CHECK(err.len > 700);
        CHECK_STR_EQ(err.buf, want.buf);
    }
    cJSON_Delete(schema);
    cJSON_Delete(value);
    strbuf_release(&schema_text);
    strbuf_release(&value_text);
    strbuf_release(&err);
    strbuf_release(&want);
}

/* A member name is the client's text: the path and a message quote its first
 * LIMIT_QUOTED_BYTES bytes only, however long it is ('/' and '~' still escaped). */
static void test_long_names_cut(void)
{
    struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
    size_t n = 4 * LIMIT_QUOTED_BYTES;
    char *name = malloc(n + 1);
    cJSON *schema = cJSON_Parse("{\"additionalProperties\":{\"type\":\"string\"}}");
    cJSON *closed = cJSON_Parse("{\"additionalProperties\":false}");
    cJSON *value = cJSON_CreateObject();

    if (!CHECK(name != NULL && schema != NULL && closed != NULL && value != NULL))
        goto out;
    memset(name, 'n', n);
    name[0] = '/';
    name[1] = '~';
    name[n] = '\0';
    cJSON_AddNumberToObject(value, name, 1);
    strbuf_addf(&want, "/~1~0%.*s: expected string, got integer", (int)LIMIT_QUOTED_BYTES - 2,
                name + 2);
    CHECK_INT_EQ(schema_validate(schema, value, &err), STATUS_INVALID);
    CHECK_STR_EQ(err.buf, want.buf);
    strbuf_reset(&want);
    strbuf_addf(&want, "(root): unexpected property '%.*s'", (int)LIMIT_QUOTED_BYTES, name);
    CHECK_INT_EQ(schema_validate(closed, value, &err), STATUS_INVALID);
    CHECK_STR_EQ(err.buf, want.buf);
out:
    free(name);
    cJSON_Delete(schema);
    cJSON_Delete(closed);
    cJSON_Delete(value);
    strbuf_release(&text);
    strbuf_release(&err);
    strbuf_release(&want);
}

/* Nesting past SCHEMA_MAX_DEPTH (64) is refused with a message naming the path down to it,
 * whole: 70 levels of 20-byte names. */
static void test_too_deep_path(void)
{
    struct strbuf schema_text = STRBUF_INIT, value_text = STRBUF_INIT, err = STRBUF_INIT;
    cJSON *schema, *value;

    schema_nest(&schema_text, &value_text, "abcdefghijklmnopqrst", 70);
    schema = cJSON_Parse(schema_text.buf);
    value = cJSON_Parse(value_text.buf);
    if (CHECK(schema != NULL && value != NULL)) {
        CHECK_INT_EQ(schema_validate(schema, value, &err), STATUS_INVALID);
        CHECK(strncmp(err.buf, "/abcdefghijklmnopqrst0/abcdefghijklmnopqrst1/", 44) == 0);
        CHECK_STR_HAS(err.buf, "/abcdefghijklmnopqrst63: schema nests or refers deeper than 64");
    }
    cJSON_Delete(schema);
    cJSON_Delete(value);
    strbuf_release(&schema_text);
    strbuf_release(&value_text);
    strbuf_release(&err);
}

/* schema_check on a schema text: the status, and err containing part when refused. */
static int schema_check_is(const char *text, int want, const char *part)
{
    cJSON *schema = cJSON_Parse(text);
    struct strbuf err = STRBUF_INIT;
    int status = -999, ok;

    if (schema != NULL)
        status = schema_check(schema, &err);
    ok = status == want && (part == NULL || strstr(err.buf, part) != NULL);
    if (!ok)
        fprintf(stderr, "    schema %s\n    want %d \"...%s...\", got %d \"%s\"\n", text, want,
                part ? part : "", status, err.buf);
    cJSON_Delete(schema);
    strbuf_release(&err);
    return ok;
}

static void test_check(void)
{
    /* Good schemas, with every kind of $ref and pattern. */
    CHECK(schema_check_is("true", STATUS_OK, NULL));
    CHECK(schema_check_is("{}", STATUS_OK, NULL));
    CHECK(schema_check_is(SCHEMA_TREE, STATUS_OK, NULL));
    CHECK(schema_check_is("{\"$defs\":{\"a/b\":{\"pattern\":\"^[a-z]+$\"},\"c~d\":{}},"
                          "\"definitions\":{\"x\":{\"format\":\"email\"}},"
                          "\"properties\":{\"p\":{\"$ref\":\"#/$defs/a~1b\"},"
                          "\"q\":{\"$ref\":\"#/$defs/c~0d\"},\"r\":{\"$ref\":\"#/definitions/x\"},"
                          "\"s\":{\"items\":[{\"pattern\":\"(cat|dog)s?\"}]}},"
                          "\"patternProperties\":{\"^x-[0-9]+$\":{\"type\":\"string\"}}}",
                          STATUS_OK, NULL));
    /* A pattern that does not compile, at the top or deep inside. */
    CHECK(schema_check_is("{\"pattern\":\"(\"}", STATUS_INVALID, "("));
    /* patternProperties that is not an object has no names to compile (it crashed once). */
    CHECK(schema_check_is("{\"patternProperties\":[2]}", STATUS_INVALID, "must be an object"));
    CHECK(schema_check_is("{\"patternProperties\":\"x\"}", STATUS_INVALID, "must be an object"));
    CHECK(schema_check_is("{\"pattern\":\"[a-\"}", STATUS_INVALID, "[a-"));
    CHECK(schema_check_is("{\"$defs\":{\"d\":{\"properties\":{\"p\":{\"pattern\":\"a{2\"}}}}}",
                          STATUS_INVALID, "a{2"));
    CHECK(
        schema_check_is("{\"anyOf\":[{},{\"items\":{\"pattern\":\"(x\"}}]}", STATUS_INVALID, "(x"));
    /* A $ref that does not resolve. */
    CHECK(schema_check_is("{\"$ref\":\"#/$defs/missing\"}", STATUS_INVALID, "#/$defs/missing"));
    CHECK(schema_check_is("{\"$defs\":{\"a\":{}},\"properties\":{\"p\":{\"$ref\":\"#/$defs/b\"}}}",
                          STATUS_INVALID, "#/$defs/b"));
    CHECK(schema_check_is("{\"$defs\":{\"a/b\":{}},\"$ref\":\"#/$defs/a/b\"}", STATUS_INVALID,
                          "#/$defs/a/b"));
    CHECK(schema_check_is("{\"$defs\":{\"l\":[{}]},\"$ref\":\"#/$defs/l/3\"}", STATUS_INVALID,
                          "#/$defs/l/3"));
}

/* The names in patternProperties are patterns too. */
static void test_check_pattern_properties(void)
{
    CHECK(schema_check_is("{\"patternProperties\":{\"^ok$\":{}}}", STATUS_OK, NULL));
    CHECK(schema_check_is("{\"patternProperties\":{\"(\":{}}}", STATUS_INVALID, "("));
}

/* Values of const, enum, default and examples are data, not schemas: a "pattern" or "$ref"
 * member inside them is not checked. */
static void test_check_data_is_not_schema(void)
{
    CHECK(schema_check_is("{\"const\":{\"pattern\":\"(\"}}", STATUS_OK, NULL));
    CHECK(schema_check_is("{\"enum\":[{\"$ref\":\"#/nowhere\"}]}", STATUS_OK, NULL));
    CHECK(schema_check_is("{\"default\":{\"$ref\":\"#/nowhere\"}}", STATUS_OK, NULL));
}

/* Each keyword's value follows the keyword's own rule (the meta-schema's), at any depth; the
 * message names the keyword, where it is and what it must be. */
static void test_check_keywords(void)
{
    static const struct {
        const char *schema;
        const char *part; /* NULL: accepted */
    } cases[] = {
        {"{\"required\":\"text\"}", "\"required\" at # must be an array of unique strings; it is "
                                    "a string"},
        {"{\"required\":[\"a\",\"a\"]}", "\"required\" at # must be an array of unique"},
        {"{\"required\":[\"a\",1]}", "unique strings; it is an array"},
        {"{\"required\":[]}", NULL},
        {"{\"properties\":{\"p\":{\"required\":\"x\"}}}", "\"required\" at #/properties/p must"},
        {"{\"type\":\"text\"}", "\"type\" at # must be a type name"},
        {"{\"type\":[\"string\",\"string\"]}", "\"type\" at #"},
        {"{\"type\":[]}", "\"type\" at #"},
        {"{\"type\":5}", "it is a number"},
        {"{\"type\":[\"string\",\"null\"]}", NULL},
        {"{\"properties\":[{}]}", "\"properties\" at # must be an object of schemas"},
        {"{\"properties\":{\"p\":\"string\"}}", "the schema at #/properties/p must be an object "
                                                "or a boolean; it is a string"},
        {"{\"properties\":{\"p\":true,\"q\":{}}}", NULL},
        {"{\"enum\":\"a\"}", "\"enum\" at # must be an array"},
        {"{\"enum\":[]}", NULL},
        {"{\"minimum\":\"1\"}", "\"minimum\" at # must be a number; it is a string"},
        {"{\"maximum\":null}", "\"maximum\" at # must be a number; it is null"},
        {"{\"exclusiveMinimum\":true,\"minimum\":1}", NULL},
        {"{\"exclusiveMaximum\":\"2\"}", "\"exclusiveMaximum\" at # must be a number"},
        {"{\"multipleOf\":0}", "\"multipleOf\" at # must be a number greater than 0"},
        {"{\"multipleOf\":-2}", "greater than 0"},
        {"{\"minLength\":-1}", "\"minLength\" at # must be a non-negative integer"},
        {"{\"maxLength\":1.5}", "\"maxLength\" at # must be a non-negative integer"},
        {"{\"minItems\":\"2\"}", "\"minItems\""},
        {"{\"maxItems\":2,\"minProperties\":0,\"maxProperties\":3}", NULL},
        {"{\"uniqueItems\":\"yes\"}", "\"uniqueItems\" at # must be a boolean"},
        {"{\"pattern\":5}", "\"pattern\" at # must be a regular expression"},
        /* Bounds glibc's compiler would copy into gigabytes (LIMIT_PATTERN_REPEAT). */
        {"{\"pattern\":\"^[a-z]{,9004}$\"}", "pattern ^[a-z]{,9004}$ at # is not a valid"},
        {"{\"pattern\":\"^(x{0,255}){0,255}$\"}", "repeats more than 255 times"},
        {"{\"pattern\":\"^((a{1,16}){1,16})$\"}", "repeats more than 255 times"},
        {"{\"patternProperties\":{\"^(ab|cd){2,300}$\":{}}}", "repeats more than 255"},
        {"{\"pattern\":\"^[{]9999}x{1,255}\\\\{9999}(y{1,15}){1,17}[^]{]{255}$\"}", NULL},
        {"{\"pattern\":\"^.{1,255}$\"}", NULL},
        /* A quantifier on a quantifier: no pattern in ECMA-262, and glibc's compiler takes
         * time exponential in the run; one lazy "?" is ECMA's own. */
        {"{\"pattern\":\"^n**$\"}", "pattern ^n**$ at # is not a valid"},
        {"{\"patternProperties\":{\"^n*+*\":{}}}", "patternProperties name ^n*+* at # is not"},
        {"{\"pattern\":\"^a+?b{2}?c*?$\"}", NULL},
        {"{\"pattern\":\"^a*??$\"}", "is not a valid"},
        {"{\"pattern\":\"^(ab)*[*+]\\\\*x$\"}", NULL},
        {"{\"pattern\":\"^[a-z]{5,}$\"}", NULL},
        {"{\"items\":\"string\"}", "\"items\" at # must be a schema, or an array of schemas"},
        {"{\"items\":[{},5]}", "the schema at #/items/1 must be an object or a boolean"},
        {"{\"prefixItems\":[]}", "\"prefixItems\" at # must be a non-empty array of schemas"},
        {"{\"anyOf\":[]}", "\"anyOf\" at # must be a non-empty array"},
        {"{\"oneOf\":{}}", "\"oneOf\" at #"},
        {"{\"allOf\":[{\"type\":\"nope\"}]}", "\"type\" at #/allOf/0 must be a type name"},
        {"{\"not\":[]}", "\"not\" at # must be a schema"},
        {"{\"additionalProperties\":\"no\"}", "\"additionalProperties\" at # must be a schema"},
        {"{\"$ref\":5}", "\"$ref\" at # must be"},
        {"{\"$defs\":{\"x\":{\"minimum\":\"0\"}},\"$ref\":\"#/$defs/x\"}",
         "\"minimum\" at #/$defs/x must be a number"},
        /* Annotations and keywords mcph does not enforce are not checked. */
        {"{\"format\":5,\"title\":[],\"description\":{},\"x-anything\":1}", NULL},
        {"[]", "the schema at # must be an object or a boolean; it is an array"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK(schema_check_is(cases[i].schema, cases[i].part ? STATUS_INVALID : STATUS_OK,
                              cases[i].part));
}

static const struct check_test tests[] = {
    {"check_keywords", test_check_keywords},
    {"type", test_type},
    {"path_escapes", test_path_escapes},
    {"enum_const", test_enum_const},
    {"numbers", test_numbers},
    {"multiple_of_large", test_multiple_of_large},
    {"strings", test_strings},
    {"items", test_items},
    {"array_size_unique", test_array_size_unique},
    {"objects", test_objects},
    {"combinators", test_combinators},
    {"boolean_schemas", test_boolean_schemas},
    {"ref", test_ref},
    {"ref_cycle_inside_combinators", test_ref_cycle_inside_combinators},
    {"unknown_keywords", test_unknown_keywords},
    {"validate_err_buffer", test_validate_err_buffer},
    {"deep_path_whole", test_deep_path_whole},
    {"long_names_cut", test_long_names_cut},
    {"too_deep_path", test_too_deep_path},
    {"check", test_check},
    {"check_pattern_properties", test_check_pattern_properties},
    {"check_data_is_not_schema", test_check_data_is_not_schema},
    {0},
};

int main(void)
{
    return check_main("test_schema", tests);
}
