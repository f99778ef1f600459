/* test_sentence.c — common/sentence: parsing --ids and looking up the rows. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/model.h"
#include "workbook/sentence.h"
#include "tests/check_main.h"

static void parses_to(const char *text, const int *want, int n) {
    TokenIds t;
    Error err;
    ck_assert_msg(ids_parse(text, 1000, &t, &err), "'%s': %s", text, err.msg);
    ck_assert_int_eq(t.n, n);
    for (int i = 0; i < n; i++) ck_assert_int_eq(t.ids[i], want[i]);
    tok_ids_free(&t);
}

static void refuses(const char *text, const char *msg_part) {
    TokenIds t;
    Error err;
    ck_assert_msg(!ids_parse(text, 1000, &t, &err), "'%s' was accepted", text);
    ck_assert_msg(strstr(err.msg, msg_part), "'%s': message '%s' lacks '%s'", text, err.msg, msg_part);
    ck_assert_ptr_null(t.ids); /* nothing left to free */
}

START_TEST(test_parse) {
    parses_to("1,2,3", (int[]){1, 2, 3}, 3);
    parses_to("7", (int[]){7}, 1);
    parses_to(" 0 , 999 ", (int[]){0, 999}, 2);
    parses_to("[100, 4, 5]", (int[]){100, 4, 5}, 3); /* the chapter-2 --encode output */
    refuses("", "expected a token id");
    refuses("[]", "no token ids");
    refuses("1,,2", "expected a token id at ',2'");
    refuses("1,2,", "expected a token id");
    refuses("1 2", "expected ',' or the end at '2'");
    refuses("-1", "token id -1 is outside the vocabulary (0 .. 999)");
    refuses("1000", "token id 1000 is outside the vocabulary");
    refuses("[1, 2", "expected ',' or the end");
    refuses("99999999999999999999", "expected a token id");
}
END_TEST

/* Only digits, commas, spaces and one pair of brackets: what the old --decode
 * parser let through ("1,,2", "", signs, other separators) is refused. */
START_TEST(test_parse_strict) {
    parses_to("1\t,\n2", (int[]){1, 2}, 2); /* any white space between */
    parses_to("007", (int[]){7}, 1);
    parses_to("0", (int[]){0}, 1);
    parses_to("00000000000000000000000000009,0", (int[]){9, 0}, 2); /* zeros do not count as digits */
    parses_to("[5]", (int[]){5}, 1);
    refuses("+5", "expected a token id at '+5'");
    refuses("1,+5", "expected a token id at '+5' in '1,+5'");
    refuses("-0", "token id -0 is outside the vocabulary");
    refuses(" ", "expected a token id at the end of ' '");
    refuses(",1", "expected a token id at ',1'");
    refuses("1;2", "expected ',' or the end at ';2'");
    refuses("1.5", "expected ',' or the end at '.5'");
    refuses("0x10", "expected ',' or the end at 'x10'");
    refuses("[1,2]]", "expected ',' or the end at ']'");
    refuses("[1,2],3", "expected ',' or the end at ',3'");
    refuses("1]", "expected ',' or the end at ']'");
    refuses("[[1]]", "expected a token id at '[1]]'");
    refuses("[1, 2", "expected ',' or the end of the list (']')");
    refuses("123456789012", "token id 123456789012 is outside the vocabulary");
    refuses("1234567890123", "expected a token id at '1234567890123'"); /* longer than any id */

    /* the flag names the messages; vocab 0 leaves the range to the caller */
    TokenIds t;
    Error err;
    ck_assert(!ids_parse_as("--decode", "1,,2", 1000, &t, &err));
    ck_assert_msg(strncmp(err.msg, "--decode: expected a token id at ',2' in '1,,2'", 47) == 0, "%s",
                  err.msg);
    ck_assert(ids_parse_as("--decode", "2147483646", 0, &t, &err));
    ck_assert_int_eq(t.n, 1);
    ck_assert_int_eq(t.ids[0], 2147483646);
    tok_ids_free(&t);
    ck_assert(!ids_parse_as("--decode", "2147483647", 0, &t, &err));
    ck_assert_str_eq(err.msg, "--decode: token id 2147483647 is too large");
    ck_assert(!ids_parse_as("--decode", "5,-3", 0, &t, &err));
    ck_assert_str_eq(err.msg, "--decode: token id -3 is negative");
    ck_assert_ptr_null(t.ids);

    /* at most SENTENCE_MAX_TOKENS ids */
    size_t cap = 2 * (SENTENCE_MAX_TOKENS + 1) + 1;
    char *many = malloc(cap), *p = many;
    for (int i = 0; i < SENTENCE_MAX_TOKENS; i++) p += sprintf(p, i ? ",7" : "7");
    ck_assert(ids_parse(many, 1000, &t, &err));
    ck_assert_int_eq(t.n, SENTENCE_MAX_TOKENS);
    tok_ids_free(&t);
    strcpy(p, ",7");
    refuses(many, "more than 65536 token ids");
    free(many);
}
END_TEST

START_TEST(test_str) {
    TokenIds t;
    Error err;
    ck_assert(ids_parse("3,141,592", 1000, &t, &err));
    char buf[64];
    ck_assert_str_eq(ids_str(t.ids, t.n, buf, sizeof buf), "[3, 141, 592]");
    char small[12];
    ck_assert_str_eq(ids_str(t.ids, t.n, small, sizeof small), "[3, ...]"); /* cut, still closed */
    tok_ids_free(&t);
}
END_TEST

/* Without --ids and without a tokenizer: the reference's ids; the rows are the table's. */
START_TEST(test_fallback_and_embed) {
    Model m;
    Error err;
    const char *tiny = getenv("TINY") ? getenv("TINY") : "build/tiny";
    ck_assert_msg(model_open(&m, tiny, &err), "%s", err.msg);
    TokenIds t;
    char label[256];
    ck_assert_msg(sentence_ids(&m.ck, NULL, &t, label, sizeof label, &err), "%s", err.msg);
    ck_assert_str_eq(label, "参考脚本的 7 个 token");
    const int ref[] = REFERENCE_IDS;
    ck_assert_int_eq(t.n, (int)ARRAY_LEN(ref));
    for (int i = 0; i < t.n; i++) ck_assert_int_eq(t.ids[i], ref[i]);
    int H = m.ck.config.hidden_size;
    float *x = malloc((size_t)t.n * H * sizeof(float)); /* [T, H] */
    ck_assert_msg(sentence_embed(&m, t.ids, t.n, x, &err), "%s", err.msg);
    for (int i = 0; i < t.n; i++)
        for (int j = 0; j < H; j++)
            ck_assert(x[(size_t)i * H + j] == tensor_get_f32(m.embed_tokens, (int64_t)t.ids[i] * H + j));
    free(x);
    tok_ids_free(&t);
    model_close(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sentence");
    TCase *tc = tcase_create("sentence");
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_parse_strict);
    tcase_add_test(tc, test_str);
    tcase_add_test(tc, test_fallback_and_embed);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
