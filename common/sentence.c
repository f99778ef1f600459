/* sentence.c — the token ids and vectors the chapter demos run on (see sentence.h). */
#include "sentence.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ids_parse(const char *text, int vocab, TokenIds *out, Error *err) {
    *out = (TokenIds){0};
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    bool bracket = *p == '[';
    if (bracket) p++;
    int cap = 0;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (bracket && *p == ']' && out->n == 0) break; /* "[]" */
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno) {
            ids_free(out);
            return error_set(err, "--ids: expected a token id at '%.20s' in '%.60s'", p, text);
        }
        if (v < 0 || v >= vocab) {
            ids_free(out);
            return error_set(err, "--ids: token id %ld is outside the vocabulary (0 .. %d)", v, vocab - 1);
        }
        if (out->n == SENTENCE_MAX_TOKENS) {
            ids_free(out);
            return error_set(err, "--ids: more than %d token ids", SENTENCE_MAX_TOKENS);
        }
        if (out->n == cap) out->ids = xrealloc(out->ids, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(int));
        out->ids[out->n++] = (int)v;
        p = end;
        while (isspace((unsigned char)*p)) p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (bracket && *p == ']') p++, bracket = false;
        while (isspace((unsigned char)*p)) p++;
        if (*p != '\0' || bracket) {
            ids_free(out);
            return error_set(err, "--ids: expected ',' or the end at '%.20s' in '%.60s'", p, text);
        }
        break;
    }
    if (out->n == 0) return error_set(err, "--ids: no token ids in '%.60s'", text);
    snprintf(out->label, sizeof out->label, "--ids 给的 %d 个 token", out->n);
    return true;
}

bool sentence_ids(const Checkpoint *ck, const char *ids_flag, TokenIds *out, Error *err) {
    int vocab = ck->config.vocab_size;
    if (ids_flag) return ids_parse(ids_flag, vocab, out, err);

    /* The tokenizer (chapter 2) is not part of this build yet: fixed ids instead. */
    char *tok_path = path_join(ck->dir, "tokenizer.json");
    bool has_tokenizer = is_file(tok_path);
    free(tok_path);
    const int ref[] = REFERENCE_IDS;
    *out = (TokenIds){.ids = xmalloc(sizeof ref), .n = (int)ARRAY_LEN(ref)};
    memcpy(out->ids, ref, sizeof ref);
    for (int i = 0; i < out->n; i++)
        if (out->ids[i] >= vocab) {
            ids_free(out);
            return error_set(err, "%s/config.json: vocab_size %d is too small for the reference ids; pass --ids",
                             ck->dir, vocab);
        }
    fprintf(stderr, "%s: %s，用参考脚本的 %d 个 token id 代替「%s」（--ids 1,2,3 可以换成别的）\n", program_name(),
            has_tokenizer ? "这个版本还没有分词器" : "模型目录里没有 tokenizer.json（合成权重没有分词器）", out->n,
            BOOK_SENTENCE);
    snprintf(out->label, sizeof out->label, "参考脚本的 %d 个 token", out->n);
    return true;
}

void ids_free(TokenIds *t) {
    free(t->ids);
    *t = (TokenIds){0};
}

const char *ids_str(const TokenIds *t, char *buf, int size) {
    int len = snprintf(buf, (size_t)size, "[");
    for (int i = 0; i < t->n && len < size; i++) {
        char item[24];
        int k = snprintf(item, sizeof item, "%s%d", i ? ", " : "", t->ids[i]);
        if (len + k + 5 >= size) { /* room for ", ...]" */
            snprintf(buf + len, (size_t)(size - len), ", ...]");
            return buf;
        }
        memcpy(buf + len, item, (size_t)k + 1);
        len += k;
    }
    snprintf(buf + len, (size_t)(size - len), "]");
    return buf;
}

void sentence_embed(const Checkpoint *ck, const TokenIds *t, float *x) {
    const Tensor *E = ck->weights.embed_tokens; /* [vocab, hidden] */
    int H = ck->config.hidden_size;
    for (int i = 0; i < t->n; i++) tensor_read_f32(E, (int64_t)t->ids[i] * H, H, x + (size_t)i * H);
}
