/* fuzz_tokenizer_load — tokenizer.json from anywhere: tok_load_json on arbitrary bytes.
 *
 * Loading either fails with an error naming the file, or gives a
 * tokenizer that keeps its promises (tokenizer.h), checked here:
 *   - the ids: n_vocab + n_added ≤ n_ids; every id below n_ids is a token or a
 *     hole, every token string non-empty UTF-8; each byte's one-byte token
 *     decodes to exactly that byte; every added token is found by its content;
 *   - encoding a few texts (in every stretch the regex can find: letters,
 *     spaces, digits, added tokens, U+0000, NFC) succeeds, or stops at the
 *     regex's budget with that error; the ids are tokens, and decoding them
 *     gives the text back (common/tests/tok_check.h);
 *   - a file with a NUL byte or \u0000 anywhere is refused.
 * The seeds are the test tokenizer and small variants of it; the regressions
 * are files that found a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/tokenizer.h"
#include "tests/tok_check.h"

#define NAME "fuzz.json"

static void check(bool ok, const char *what, const char *detail) {
    if (ok) return;
    fprintf(stderr, "fuzz_tokenizer_load: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static bool has_nul(const uint8_t *data, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (data[i] == 0 || (data[i] == '\\' && size - i >= 6 && memcmp(data + i + 1, "u0000", 5) == 0))
            return true;
        else if (data[i] == '\\')
            i++;
    return false;
}

static void check_tables(const Tokenizer *tok) {
    check(tok->n_vocab >= 256 && tok->n_vocab + tok->n_added <= tok->n_ids, "counts", NULL);
    for (int id = -2; id < tok->n_ids + 2; id++) {
        const char *s = tok_token(tok, id);
        check(!s || (id >= 0 && id < tok->n_ids), "a token outside 0 .. n_ids - 1", NULL);
        if (!s) {
            check(tok_token_bytes(tok, id, NULL, 0) == -1, "tok_token_bytes of no token", NULL);
            continue;
        }
        size_t len = strlen(s);
        check(len > 0 && utf8_check(s, len, NULL), "a token string that is empty or not UTF-8", s);
        unsigned char *buf = xmalloc(len);
        int n = tok_token_bytes(tok, id, buf, (int)len);
        check(n >= 1 && (size_t)n <= len, "tok_token_bytes count", s);
        free(buf);
    }
    for (int b = 0; b < 256; b++) {
        unsigned char out[8];
        int id = tok->byte_token[b];
        check(id >= 0 && id < tok->n_ids && tok_token_bytes(tok, id, out, sizeof out) == 1 && out[0] == b,
              "a one-byte token that does not decode to its byte", NULL);
    }
    for (int i = 0; i < tok->n_added; i++) {
        const AddedToken *a = &tok->added[i];
        check(tok_added(tok, a->id) == a, "tok_added of an added token's id", a->content);
        check(tok_token_id(tok, a->content) == a->id, "tok_token_id of an added token's content", a->content);
    }
}

static void check_encode(const Tokenizer *tok, const char *text, size_t len, bool round_trip) {
    TokenIds ids = {0};
    Error err;
    if (!tok_encode(tok, text, len, &ids, &err)) {
        /* an arbitrary regex may be too slow for a text: the one allowed failure */
        check(strstr(err.msg, NAME ": the Split regex is too ") != NULL, "encoding failed", err.msg);
        check(ids.n == 0 || ids.ids != NULL, "ids after a failure", NULL);
        tok_ids_free(&ids);
        return;
    }
    char why[256];
    if (round_trip) check(tok_check_round_trip(tok, text, len, &ids, why, sizeof why), why, text);
    tok_ids_free(&ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Tokenizer tok;
    Error err = {{0}};
    bool loaded = tok_load_json(&tok, (const char *)data, size, NAME, &err);
    if (!loaded) {
        check(strncmp(err.msg, NAME ": ", strlen(NAME) + 2) == 0, "an error that does not name the file",
              err.msg);
        return 0;
    }
    check(!has_nul(data, size), "a file with U+0000 was loaded", NULL);
    check_tables(&tok);

    static const char *const texts[] = {
        "abc",
        "ab c  d\n\n\t x",
        "aaaa aaa",
        "1234567 3.14",
        "今天天气不错，我们去公园",
        "a\xCC\x88 e\xCC\x81!",
        "<|im_start|>user\nhi<|im_end|>\n",
        "<think>\n\n</think>",
        "  \r\n\r\n  ",
        "",
    };
    bool round_trip = tok_check_added_decode_to_themselves(&tok);
    for (size_t i = 0; i < ARRAY_LEN(texts); i++) check_encode(&tok, texts[i], strlen(texts[i]), round_trip);
    check_encode(&tok, "a\0b\0", 4, round_trip);
    /* every added token, with text on both sides */
    for (int i = 0; i < tok.n_added && i < 8; i++) {
        const AddedToken *a = &tok.added[i];
        size_t n = (size_t)a->len + 4;
        char *s = xmalloc(n + 1);
        snprintf(s, n + 1, "x %sy", a->content);
        check_encode(&tok, s, n - 1, round_trip);
        free(s);
    }
    /* the regex itself, as text: it is the one string the fuzzer shapes freely */
    if (utf8_check(tok.split_regex, strlen(tok.split_regex), NULL))
        check_encode(&tok, tok.split_regex, strlen(tok.split_regex), round_trip);
    tok_free(&tok);
    return 0;
}
