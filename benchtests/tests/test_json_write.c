/* kb_json_print: the deterministic JSON writer behind baseline and result
 * files. Its contract: keys sorted, fixed layout, and parsing the output then
 * writing it again gives the same bytes. */
#include "formats/json_write.h"
#include "kb_test.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Parses text, prints it; the caller frees the result. */
static char *reprint(const char *text) {
    cJSON *root = cJSON_Parse(text);
    if (!root) return NULL;
    char *out = kb_json_print(root);
    cJSON_Delete(root);
    return out;
}

/* print(parse(print(parse(text)))) must equal print(parse(text)). */
static void assert_stable(const char *text) {
    char *once = reprint(text);
    char *twice = once ? reprint(once) : NULL;
    ASSERT(once != NULL && twice != NULL);
    if (once && twice && strcmp(once, twice) != 0)
        KB_TEST_FAIL("not stable for %s:\n%s---\n%s", text, once, twice);
    free(once);
    free(twice);
}

static void test_layout_and_sorted_keys(void) {
    char *out = reprint("{\"b\": [1, 2.5, \"x\"], \"a\": {\"z\": true, \"y\": null}, \"c\": [],"
                        " \"d\": {}, \"e\": [{\"k\": 1}]}");
    const char *expected = "{\n"
                           "  \"a\": {\n"
                           "    \"y\": null,\n"
                           "    \"z\": true\n"
                           "  },\n"
                           "  \"b\": [1, 2.5, \"x\"],\n"
                           "  \"c\": [],\n"
                           "  \"d\": {},\n"
                           "  \"e\": [\n"
                           "    {\n"
                           "      \"k\": 1\n"
                           "    }\n"
                           "  ]\n"
                           "}\n";
    ASSERT(out != NULL);
    if (out && strcmp(out, expected) != 0) KB_TEST_FAIL("got:\n%s", out);
    free(out);
}

static void test_numbers(void) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "int", 42);
    cJSON_AddNumberToObject(root, "neg", -7);
    cJSON_AddNumberToObject(root, "frac", 1.0 / 3.0); /* 8 significant digits */
    cJSON_AddNumberToObject(root, "small", 1.5e-7);
    cJSON_AddNumberToObject(root, "nan", NAN); /* JSON has no NaN: null */
    cJSON_AddNumberToObject(root, "inf", INFINITY);
    char *out = kb_json_print(root);
    ASSERT_STR_CONTAINS(out, "\"int\": 42,");
    ASSERT_STR_CONTAINS(out, "\"neg\": -7,");
    ASSERT_STR_CONTAINS(out, "\"frac\": 0.33333333,");
    ASSERT_STR_CONTAINS(out, "\"small\": 1.5e-07\n");
    ASSERT_STR_CONTAINS(out, "\"nan\": null,");
    ASSERT_STR_CONTAINS(out, "\"inf\": null,");
    free(out);
    cJSON_Delete(root);
}

static void test_string_escapes(void) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "s", "q\"b\\n\nt\tc\x01");
    char *out = kb_json_print(root);
    ASSERT_STR_CONTAINS(out, "\"s\": \"q\\\"b\\\\n\\nt\\tc\\u0001\"");
    cJSON *back = cJSON_Parse(out);
    ASSERT(back != NULL);
    if (back) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(back, "s");
        ASSERT(cJSON_IsString(s) && strcmp(s->valuestring, "q\"b\\n\nt\tc\x01") == 0);
    }
    cJSON_Delete(back);
    free(out);
    cJSON_Delete(root);
}

static void test_reprint_stable_typical(void) {
    assert_stable("{\"median_ms\": 0.123456789, \"samples_ms\": [1.25, 0.99999999, 3e-9],"
                  " \"rmse\": 1.2345678e-05, \"n\": 400, \"neg\": -0.0, \"big\": 1e300}");
}

/* A non-integer of magnitude 1e8 or more prints as 8 significant digits in
 * exponent form ("1.2345679e+08"), which parses back as an integer and is
 * then printed the integer way ("123456790"): a second pass changes the
 * bytes, against the contract in formats/json_write.h. */
static void test_reprint_stable_large_fractions(void) {
    assert_stable("{\"gbps\": 123456789.5}");
    assert_stable("{\"x\": 99999999.7}");
}

int main(void) {
    RUN_TEST(test_layout_and_sorted_keys);
    RUN_TEST(test_numbers);
    RUN_TEST(test_string_escapes);
    RUN_TEST(test_reprint_stable_typical);
    RUN_TEST(test_reprint_stable_large_fractions);
    return kb_test_summary();
}
