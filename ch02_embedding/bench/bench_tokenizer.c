/* How fast the tokenizer is on the real Qwen3 tokenizer.json:
 *   - loading the 11 MB file (JSON parse + hash tables + regex);
 *   - encoding mixed Chinese/English text, in MB/s;
 *   - one long piece: Chinese without punctuation is a single regex match, so
 *     the BPE gets 1650 bytes at once. Ten times longer should cost about ten
 *     times more (n log n with the heap), not a hundred (a rescan per merge).
 * Skips (exit 0, with a message) when the file cannot be fetched. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "qwen/tokenizer.h"

#define QWEN3_JSON REPO_ROOT "/.cache/tokenizer-qwen3-3.7.2/tokenizer.json"

static char *repeat(const char *s, int times) {
    size_t n = strlen(s);
    char *out = xmalloc(n * (size_t)times + 1);
    for (int i = 0; i < times; i++) memcpy(out + n * (size_t)i, s, n);
    out[n * (size_t)times] = '\0';
    return out;
}

/* Seconds per encode of text (best of `rounds`, each round `reps` encodes). */
static double time_encode(const Tokenizer *tok, const char *text, int reps, int rounds, int *n_ids) {
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        TokenIds ids = {0};
        Error err;
        double t0 = now_seconds();
        for (int i = 0; i < reps; i++) {
            ids.n = 0;
            if (!tok_encode(tok, text, strlen(text), &ids, &err)) die("%s", err.msg);
        }
        double t = (now_seconds() - t0) / reps;
        if (t < best) best = t;
        *n_ids = ids.n;
        tok_ids_free(&ids);
    }
    return best;
}

int main(int argc, char **argv) {
    (void)argc;
    set_program_name(argv[0]);
    int rc = system("sh '" REPO_ROOT "/ch02_embedding/tests/fetch_qwen3_tokenizer.sh' >/dev/null");
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
        printf("skipped: the real Qwen3 tokenizer.json is not available (%s)\n", QWEN3_JSON);
        return 0;
    }

    /* Loading: best of 5. */
    Tokenizer tok;
    Error err;
    double best_load = 1e30;
    for (int i = 0; i < 5; i++) {
        double t0 = now_seconds();
        if (!tok_load(&tok, QWEN3_JSON, &err)) die("%s", err.msg);
        double t = now_seconds() - t0;
        if (t < best_load) best_load = t;
        if (i < 4) tok_free(&tok);
    }
    printf("load tokenizer.json (11.4 MB, %d tokens, %d merges): %.3f s (best of 5)\n", tok.n_vocab,
           tok.n_merges, best_load);

    /* Mixed text: Chinese prose, English prose, code, numbers; about 1 MB. */
    const char *mix =
        "今天天气不错，我们去公园。手写 Transformer 把 Qwen3.5 的每个零件都用 C 重新写一遍：嵌入、归一化、"
        "注意力和 Gated DeltaNet。\n"
        "The tokenizer turns text into ids; the embedding table turns ids into vectors. It's the first step "
        "of every forward pass, and they've kept it byte-level so nothing is ever unknown.\n"
        "for (int i = 0; i < n; i++) {\n\tsum += x[i] * w[i];  // 点积\n}\n"
        "在 2025 年，模型有 24 层、1024 维隐藏状态，词表 248,320 行。\n";
    char *text = repeat(mix, (int)(1000000 / strlen(mix)));
    size_t bytes = strlen(text);
    int n_ids;
    double t = time_encode(&tok, text, 1, 5, &n_ids);
    printf("encode mixed Chinese/English text: %.2f MB in %.3f s = %.1f MB/s (%d ids, %.2f bytes per id)\n",
           bytes / 1e6, t, bytes / 1e6 / t, n_ids, (double)bytes / n_ids);

    /* The book's sentence, the 550-character piece, and ten times that. */
    const char *sentence = "今天天气不错，我们去公园";
    double t_sentence = time_encode(&tok, sentence, 2000, 5, &n_ids);
    printf("encode the book's sentence (%d ids): %.2f us\n", n_ids, t_sentence * 1e6);
    char *piece = repeat("今天天气不错我们去公园", 50), *piece10 = repeat("今天天气不错我们去公园", 500);
    double t1 = time_encode(&tok, piece, 200, 5, &n_ids);
    printf("encode one 550-character piece (%zu bytes, %d ids): %.1f us\n", strlen(piece), n_ids, t1 * 1e6);
    double t10 = time_encode(&tok, piece10, 20, 5, &n_ids);
    printf("encode one 5500-character piece (%d ids): %.1f us = %.1fx the 550-character piece "
           "(10x is linear, 100x would be quadratic)\n",
           n_ids, t10 * 1e6, t10 / t1);

    free(piece);
    free(piece10);
    free(text);
    tok_free(&tok);
    return 0;
}
