/* fuzz_ids_parse — the --ids / --decode parser (workbook/sentence.h) on arbitrary text.
 *
 * The input (up to its first NUL) is the flag's value. Each is parsed with a
 * few vocabulary sizes, and checked against a second, independent reading of
 * the grammar written here (white space, an optional [ ], ids of decimal digits
 * separated by commas):
 *   - the parser succeeds exactly when that reading finds 1 .. SENTENCE_MAX_TOKENS
 *     ids, all below the vocabulary size;
 *   - then its ids are that reading's ids, and printing them back ("1,2,3", and
 *     "[1, 2, 3]" as --encode prints them) parses to the same list;
 *   - a failure leaves nothing allocated, and its message starts with the flag.
 *     (The message quotes the text; a newline in it is the message's own
 *     business, for error_set, which every message goes through.)
 */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/sentence.h"

static void check(bool ok, const char *what, const char *text) {
    if (ok) return;
    fprintf(stderr, "fuzz_ids_parse: %s: '%s'\n", what, text);
    abort();
}

/* The grammar, read independently: true when text is a list of ids; the ids
 * go to ids (up to cap), their count to *n, and *too_big says an id has more
 * than 10 digits or is at least limit. */
static bool reading(const char *text, long long limit, int *ids, int cap, int *n, bool *too_big) {
    size_t len = strlen(text), a = 0, b = len;
    *n = 0;
    *too_big = false;
    while (a < b && isspace((unsigned char)text[a])) a++;
    while (b > a && isspace((unsigned char)text[b - 1])) b--;
    if (a < b && text[a] == '[') {
        if (text[b - 1] != ']' || b - a < 2) return false;
        a++, b--;
    }
    /* items between commas, each white space around digits */
    for (size_t i = a;;) {
        size_t j = i;
        while (j < b && text[j] != ',') j++;
        size_t s = i, e = j;
        while (s < e && isspace((unsigned char)text[s])) s++;
        while (e > s && isspace((unsigned char)text[e - 1])) e--;
        if (s == e) return false;
        long long v = 0;
        for (size_t k = s; k < e; k++) {
            if (!isdigit((unsigned char)text[k])) return false;
            if (v < 100000000000LL) v = v * 10 + (text[k] - '0');
        }
        if (v >= limit) *too_big = true;
        if (*n < cap) ids[*n] = (int)(v < INT_MAX ? v : 0);
        (*n)++;
        if (j == b) return true;
        i = j + 1;
    }
}

static void parse_checked(const char *text, int vocab, int *scratch) {
    TokenIds got;
    Error err;
    long long limit = vocab > 0 ? vocab : INT_MAX;
    int n;
    bool too_big;
    bool is_list = reading(text, limit, scratch, SENTENCE_MAX_TOKENS + 1, &n, &too_big);
    bool want_ok = is_list && !too_big && n >= 1 && n <= SENTENCE_MAX_TOKENS;
    bool ok = ids_parse_as("--x", text, vocab, &got, &err);
    check(ok == want_ok,
          ok ? "accepted what is not a list of ids in range" : "refused a list of ids in range", text);
    if (!ok) {
        check(got.ids == NULL && got.n == 0, "something left allocated after a failure", text);
        check(strncmp(err.msg, "--x: ", 5) == 0, "the message does not start with the flag", err.msg);
        return;
    }
    check(got.n == n && memcmp(got.ids, scratch, sizeof *scratch * (size_t)n) == 0, "not the ids of the text",
          text);
    for (int style = 0; style < 2; style++) { /* "1,2,3" and "[1, 2, 3]" */
        char *printed = xmalloc(14 * (size_t)n + 3), *p = printed;
        if (style) *p++ = '[';
        for (int i = 0; i < n; i++) p += sprintf(p, "%s%d", i ? (style ? ", " : ",") : "", got.ids[i]);
        if (style) *p++ = ']';
        *p = '\0';
        TokenIds again;
        check(ids_parse_as("--x", printed, vocab, &again, &err), "the printed ids do not parse", printed);
        check(again.n == got.n && memcmp(again.ids, got.ids, sizeof *got.ids * (size_t)n) == 0,
              "the printed ids parse to another list", printed);
        tok_ids_free(&again);
        free(printed);
    }
    tok_ids_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0'; /* a command-line value ends at its first NUL */
    static int scratch[SENTENCE_MAX_TOKENS + 1];
    static const int vocabs[] = {248320, 1000, 1, 0};
    for (size_t i = 0; i < ARRAY_LEN(vocabs); i++) parse_checked(text, vocabs[i], scratch);
    free(text);
    return 0;
}
