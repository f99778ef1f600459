/* test_textstream — generated tokens printed as they come (common/workbook/textstream.h).
 *
 * The stream must print exactly what decoding all the ids at once gives (tok_decode,
 * itself held to Hugging Face's ids in chapter 2), and never half a character on
 * the way: checked on 天 split over two byte tokens by hand, and on 20,000 random id
 * sequences of the small test tokenizer (its 256 byte tokens make every kind of
 * broken UTF-8), after every single token. For a terminal, control characters come
 * out escaped but for newlines and tabs; a failed write is reported by the call that
 * made it.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/tokenizer.h"
#include "workbook/textstream.h"
#include "workbook/util.h"
#include "tests/check_main.h"

#define TINY_TOKENIZER REPO_ROOT "/ch02_embedding/tests/data/tiny_tokenizer.json"

static Tokenizer tok;
static void setup(void) {
    Error err;
    ck_assert_msg(tok_load(&tok, TINY_TOKENIZER, &err), "%s", err.msg);
}
static void teardown(void) { tok_free(&tok); }

/* The byte-level token of one byte (GPT-2's table: printable ASCII stands for itself). */
static int byte_token(unsigned char b) {
    for (int id = 0; id < tok.n_ids; id++) {
        unsigned char buf[8];
        if (tok_token_bytes(&tok, id, buf, (int)sizeof buf) == 1 && buf[0] == b) return id;
    }
    return -1;
}

/* Streams ids; after each token, what was printed so far must be whole UTF-8. */
static char *streamed(const int *ids, int n) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    TextStream s = {.tok = &tok, .to = f};
    for (int i = 0; i < n; i++) {
        text_stream_token(&s, ids[i]);
        size_t bad;
        ck_assert_msg(utf8_check(text, len, &bad), "after token %d: half a character at byte %zu", i, bad);
    }
    text_stream_end(&s);
    fclose(f);
    return text;
}

START_TEST(split_character) {
    /* 天 = E5 A4 A9: its three bytes as three tokens, then "a" */
    const unsigned char bytes[] = {0xE5, 0xA4, 0xA9, 'a'};
    int ids[4];
    for (int i = 0; i < 4; i++) ck_assert_int_ge(ids[i] = byte_token(bytes[i]), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    TextStream s = {.tok = &tok, .to = f};
    text_stream_token(&s, ids[0]);
    fflush(f);
    ck_assert_uint_eq(len, 0); /* a third of a character: nothing yet */
    text_stream_token(&s, ids[1]);
    fflush(f);
    ck_assert_uint_eq(len, 0);
    text_stream_token(&s, ids[2]);
    fflush(f);
    ck_assert_str_eq(text, "天");
    text_stream_token(&s, ids[3]);
    /* the start of 天 and then "a": one U+FFFD for the broken part, as tok_decode */
    text_stream_token(&s, ids[0]);
    text_stream_token(&s, ids[1]);
    text_stream_token(&s, ids[3]);
    /* a character cut off by the end of the text */
    text_stream_token(&s, ids[0]);
    text_stream_end(&s);
    fclose(f);
    ck_assert_str_eq(text, "天a\xEF\xBF\xBD"
                           "a\xEF\xBF\xBD");
    free(text);
}
END_TEST

START_TEST(random_sequences_equal_decode) {
    unsigned r = 12345;
    for (int round = 0; round < 20000; round++) {
        int n = 1 + round % 12, ids[12];
        for (int i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            ids[i] = (int)((r >> 8) % (unsigned)tok.n_ids);
        }
        Error err;
        char *want = tok_decode(&tok, ids, n, NULL, &err);
        ck_assert_msg(want, "%s", err.msg);
        char *got = streamed(ids, n);
        ck_assert_msg(strcmp(got, want) == 0, "round %d: streamed '%s', decoded '%s'", round, got, want);
        free(got), free(want);
    }
}
END_TEST

START_TEST(no_tokenizer_and_unknown_ids) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    TextStream ids_only = {.tok = NULL, .to = f};
    text_stream_token(&ids_only, 5);
    text_stream_token(&ids_only, 1023);
    fflush(f);
    ck_assert_str_eq(text, " 5 1023");
    TextStream s = {.tok = &tok, .to = f};
    text_stream_token(&s, tok.n_ids + 10); /* a padded row of the table: no token */
    text_stream_end(&s);
    fclose(f);
    ck_assert_str_eq(text, " 5 1023\xEF\xBF\xBD");
    free(text);
}
END_TEST

/* escape: ESC, CR, BEL, DEL and the C1 control U+009B escaped, as error messages
 * escape them; '\n', '\t' and ordinary text as they are. */
START_TEST(escaped_for_a_terminal) {
    const unsigned char bytes[] = {'a',  0x1B, '[',  '2',  'J',  '\n', '\t', '\r',
                                   0x07, 0x7F, 0xC2, 0x9B, 0xE5, 0xA4, 0xA9};
    int ids[sizeof bytes];
    for (size_t i = 0; i < sizeof bytes; i++) ck_assert_int_ge(ids[i] = byte_token(bytes[i]), 0);
    for (int escape = 0; escape < 2; escape++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        TextStream s = {.tok = &tok, .to = f, .escape = escape};
        for (size_t i = 0; i < sizeof bytes; i++) ck_assert(text_stream_token(&s, ids[i]));
        ck_assert(text_stream_end(&s));
        fclose(f);
        if (escape)
            ck_assert_str_eq(text, "a\\x1b[2J\n\t\\r\\x07\\x7f\\u009b天");
        else
            ck_assert(len == sizeof bytes && memcmp(text, bytes, len) == 0); /* raw when redirected */
        free(text);
    }
}
END_TEST

static ssize_t write_fails(void *cookie, const char *buf, size_t size) {
    (void)cookie, (void)buf, (void)size;
    errno = EPIPE;
    return -1;
}

/* A stream that takes nothing (a closed pipe): the first token says so. */
START_TEST(a_failed_write_is_reported) {
    FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = write_fails});
    TextStream s = {.tok = &tok, .to = f};
    ck_assert(!text_stream_token(&s, byte_token('a')));
    ck_assert_int_eq(s.error, EPIPE);
    ck_assert(!text_stream_token(&s, byte_token('b'))); /* and stays failed */
    TextStream ids = {.tok = NULL, .to = f};
    ck_assert(!text_stream_token(&ids, 5));
    fclose(f);
}
END_TEST

int main(void) {
    Suite *s = suite_create("textstream");
    TCase *tc = tcase_create("stream");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, split_character);
    tcase_add_test(tc, random_sequences_equal_decode);
    tcase_add_test(tc, no_tokenizer_and_unknown_ids);
    tcase_add_test(tc, escaped_for_a_terminal);
    tcase_add_test(tc, a_failed_write_is_reported);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
