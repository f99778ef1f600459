/* workbook/jsonstr.h: the JSON string literal of one --encode-jsonl line,
 * decoded with its length. Every expected value is the RFC 8259 reading of the
 * literal; cJSON (which cuts at U+0000) is the cross-check for the rest. */
#include <cJSON.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/jsonstr.h"
#include "tests/check_main.h"

/* The line decodes to the n bytes of want. */
static void decodes_to(const char *line, const char *want, size_t n) {
    char *s;
    size_t len;
    Error err;
    ck_assert_msg(json_string_decode(line, strlen(line), &s, &len, &err), "'%s': %s", line, err.msg);
    ck_assert_msg(len == n && memcmp(s, want, n) == 0, "'%s': %zu bytes, not the %zu expected", line, len, n);
    ck_assert(s[len] == '\0');
    free(s);
}
#define DECODES_TO(line, want) decodes_to(line, want, sizeof want - 1)

static void refuses(const char *line, size_t n, const char *want) {
    char *s = NULL;
    size_t len;
    Error err;
    ck_assert_msg(!json_string_decode(line, n, &s, &len, &err), "'%s' was accepted", line);
    ck_assert_msg(strstr(err.msg, want), "'%s': message '%s' lacks '%s'", line, err.msg, want);
    ck_assert_ptr_null(s);
}
#define REFUSES(line, want) refuses(line, sizeof line - 1, want)

START_TEST(plain_and_escapes) {
    DECODES_TO("\"\"", "");
    DECODES_TO("\"abc\"", "abc");
    DECODES_TO("\"abc\"\n", "abc"); /* a line as getline() gives it */
    DECODES_TO("  \"abc\" \r\n", "abc");
    DECODES_TO("\"今天 👍🏽\"", "今天 👍🏽"); /* raw UTF-8 copied */
    DECODES_TO("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t");
    DECODES_TO("\"\\u0041\\u00e9\\u4ECA\"", "Aé今"); /* 1, 2 and 3 UTF-8 bytes */
    DECODES_TO("\"\\ud83d\\udc4d\"", "👍");           /* a surrogate pair: 4 bytes */
    DECODES_TO("\"\\uD83D\\uDC4D!\"", "👍!");
    DECODES_TO("\"\\u005c\\u0022\"", "\\\""); /* escaped escapes stay text */
    DECODES_TO("\"-abc\"", "-abc");
}
END_TEST

START_TEST(nul_is_kept) {
    DECODES_TO("\"a\\u0000b\"", "a\0b");
    DECODES_TO("\"\\u0000\"", "\0");
    DECODES_TO("\"\\u0000\\u0000\\u0000\"", "\0\0\0");
    DECODES_TO("\"\\\\u0000\"", "\\u0000"); /* a backslash, then the letters */
}
END_TEST

START_TEST(bytes_that_are_not_utf8_pass_through) {
    /* whether the text is UTF-8 is the tokenizer's question: it gives the offset */
    DECODES_TO("\"bad \xFF byte\"", "bad \xFF byte");
    DECODES_TO("\"\xE4\xBD\"", "\xE4\xBD");
}
END_TEST

START_TEST(not_a_string) {
    REFUSES("", "the line is empty");
    REFUSES("\n", "the line is empty");
    REFUSES("42", "does not start with a quote");
    REFUSES("[\"a\"]", "does not start with a quote");
    REFUSES("'a'", "does not start with a quote");
    REFUSES("\"abc", "no closing quote");
    REFUSES("\"abc\\\"", "no closing quote");
    REFUSES("\"a\" \"b\"", "more after the closing quote, at byte 4");
    REFUSES("\"a\",", "more after the closing quote");
    REFUSES("\"a\tb\"", "a raw control character 0x09 at byte 2");
    REFUSES("\"a\nb\"", "a raw control character 0x0A at byte 2");
    REFUSES("\"a\0b\"", "a raw control character 0x00 at byte 2");
    REFUSES("\"\\x41\"", "an unknown escape at byte 1");
    REFUSES("\"\\'\"", "an unknown escape at byte 1");
    REFUSES("\"ab\\", "a backslash at the end");
    REFUSES("\"\\u12\"", "\\u at byte 1 is not followed by 4 hex digits");
    REFUSES("\"\\u12g4\"", "not followed by 4 hex digits");
    REFUSES("\"\\u", "not followed by 4 hex digits");
    REFUSES("\"\\ud83d\"", "\\uD83D at byte 1 is the first half of a surrogate pair, alone");
    REFUSES("\"\\ud83dx\\udc4d\"", "the first half of a surrogate pair, alone");
    REFUSES("\"\\ud83d\\ud83d\"", "the first half of a surrogate pair, alone");
    REFUSES("\"\\ud83d\\u0041\"", "the first half of a surrogate pair, alone");
    REFUSES("\"x\\udc4d\"", "\\uDC4D at byte 2 is the second half of a surrogate pair, alone");
}
END_TEST

/* Every string cJSON reads (without U+0000) decodes to the same bytes here. */
START_TEST(same_as_cjson) {
    static const char *const lines[] = {
        "\"\"",           "\"a\\nb\"",  "\"\\u00e9\\u0301\"", "\"\\ud83d\\ude00 ok\"",
        "\"tab\\there\"", "\"q\\\"q\"", "\"\\/\\\\\"",        " \"x\" "};
    for (size_t i = 0; i < ARRAY_LEN(lines); i++) {
        cJSON *v = cJSON_Parse(lines[i]);
        ck_assert(cJSON_IsString(v));
        decodes_to(lines[i], v->valuestring, strlen(v->valuestring));
        cJSON_Delete(v);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("jsonstr");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, plain_and_escapes);
    tcase_add_test(tc, nul_is_kept);
    tcase_add_test(tc, bytes_that_are_not_utf8_pass_through);
    tcase_add_test(tc, not_a_string);
    tcase_add_test(tc, same_as_cjson);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
