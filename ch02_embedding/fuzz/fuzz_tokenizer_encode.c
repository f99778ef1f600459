/* fuzz_tokenizer_encode — arbitrary text through the real Qwen3 tokenizer, and back.
 *
 * The input is the text. For valid UTF-8 x, encoding must succeed, every id
 * must be a token, and decode(encode(x)) must be NFC(x) (exactly, when x holds
 * no added token; canonically equivalent otherwise, see tests/tok_check.h).
 * For anything else, encoding must fail with one error giving the offset of
 * the first bad byte, the offset that utf8proc (an independent decoder) also
 * stops at. Then the input's bytes, read as ids, are decoded: that either says
 * which id is no token or gives valid UTF-8, never anything else.
 *
 * The tokenizer: $FUZZ_TOKENIZER if set, else the real Qwen3 tokenizer.json
 * where ch02_embedding/tests/fetch_qwen3_tokenizer.sh puts it (.cache/, run the
 * script once to fetch it), else the hand-made tests/data/tiny_tokenizer.json,
 * so that `make test` replays the saved inputs meaningfully without network.
 * Which one is used is said once on stderr.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>

#include "qwen/tokenizer.h"
#include "tests/tok_check.h"

#define QWEN3_JSON REPO_ROOT "/.cache/tokenizer-qwen3-3.7.2/tokenizer.json"
#define TINY_JSON  REPO_ROOT "/ch02_embedding/tests/data/tiny_tokenizer.json"

static void check(bool ok, const char *what, const char *detail) {
    if (ok) return;
    fprintf(stderr, "fuzz_tokenizer_encode: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static const Tokenizer *tokenizer(void) {
    static Tokenizer tok;
    static bool loaded;
    if (loaded) return &tok;
    const char *path = getenv("FUZZ_TOKENIZER");
    if (!path || !*path) path = access(QWEN3_JSON, R_OK) == 0 ? QWEN3_JSON : TINY_JSON;
    Error err;
    if (!tok_load(&tok, path, &err)) die("%s", err.msg);
    fprintf(stderr, "fuzz_tokenizer_encode: tokenizer %s (%d ids)%s\n", path, tok.n_ids,
            strcmp(path, TINY_JSON) == 0
                ? "; the real Qwen3 file is not in .cache/ (fetch_qwen3_tokenizer.sh)"
                : "");
    loaded = true;
    return &tok;
}

/* Offset of the first byte utf8proc does not accept as part of a character, or len. */
static size_t utf8proc_bad_offset(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &c);
        if (k <= 0 || c < 0) return i;
        i += (size_t)k;
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const Tokenizer *tok = tokenizer();
    const char *text = (const char *)data;
    TokenIds ids = {0};
    Error err;
    size_t bad = utf8proc_bad_offset(data, size), ours;
    bool valid = bad == size;
    check(utf8_check(text, size, &ours) == valid, "utf8_check and utf8proc disagree on validity", NULL);
    bool ok = tok_encode(tok, text, size, &ids, &err);
    if (valid) {
        check(ok, "valid UTF-8 did not encode", err.msg);
        char why[256];
        check(tok_check_round_trip(tok, text, size, &ids, why, sizeof why), why, NULL);
        check(size == 0 || ids.n >= 1, "text without ids", NULL);
        check((size_t)ids.n <= 3 * size, "more ids than bytes after NFC (which at most triples them)", NULL);
    } else {
        char want[64];
        snprintf(want, sizeof want, "at offset %zu", bad);
        check(!ok && ours == bad && strstr(err.msg, "not valid UTF-8") && strstr(err.msg, want),
              "invalid UTF-8: not refused at utf8proc's offset", ok ? "(encoded)" : err.msg);
        check(ids.n == 0, "ids appended before the error", NULL);
    }
    tok_ids_free(&ids);

    /* every 3 bytes an id, a little past the last one so unknown ids occur too */
    int n = (int)(size / 3);
    int *raw = xmalloc(sizeof *raw * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        raw[i] =
            (int)((uint32_t)data[3 * i] | (uint32_t)data[3 * i + 1] << 8 | (uint32_t)data[3 * i + 2] << 16) %
            (tok->n_ids + 16);
    size_t len;
    char *back = tok_decode(tok, raw, n, &len, &err);
    bool all_tokens = true;
    for (int i = 0; i < n; i++) all_tokens = all_tokens && tok_token(tok, raw[i]) != NULL;
    check((back != NULL) == all_tokens, "decode of ids: success iff every id is a token",
          back ? NULL : err.msg);
    if (back)
        check(utf8_check(back, len, NULL) && back[len] == '\0', "decode gave bytes that are not UTF-8", NULL);
    free(back);
    free(raw);
    return 0;
}
