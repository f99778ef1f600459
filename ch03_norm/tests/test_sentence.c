/* test_sentence.c — common/sentence: parsing --ids and looking up the rows. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/model.h"
#include "workbook/sentence.h"

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
    tcase_add_test(tc, test_str);
    tcase_add_test(tc, test_fallback_and_embed);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
