/* sentence.c — the token ids and vectors the chapter demos run on (see sentence.h). */
#include "sentence.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/embedding.h"
#include "qwen/norm.h"

/* What stands at p in text, for messages: "at ',2' in '1,,2'" or "at the end of '1,'". */
static const char *where(const char *p, const char *text, char *buf, size_t size) {
    if (*p == '\0')
        snprintf(buf, size, "at the end of '%.60s'", text);
    else
        snprintf(buf, size, "at '%.20s' in '%.60s'", p, text);
    return buf;
}

bool ids_parse_as(const char *flag, const char *text, int vocab, TokenIds *out, Error *err) {
    *out = (TokenIds){0};
    char at[128];
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    bool bracket = *p == '[';
    if (bracket) p++;
    while (isspace((unsigned char)*p)) p++;
    if (bracket && *p == ']') return error_set(err, "%s: no token ids in '%.60s'", flag, text); /* "[]" */
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        /* an id: decimal digits, nothing else (a '-' only to say the id is out of
         * range); leading zeros are allowed, more than 12 digits after them are
         * not an id at all */
        const char *digits = *p == '-' ? p + 1 : p, *end = digits;
        while (*end == '0' && isdigit((unsigned char)end[1])) end++;
        const char *significant = end;
        long long v = 0;
        while (isdigit((unsigned char)*end) && end - significant < 12) v = v * 10 + (*end++ - '0');
        if (end == digits || isdigit((unsigned char)*end)) {
            tok_ids_free(out);
            return error_set(err,
                             "%s: expected a token id %s, which is not a list of ids like 1,2,3 or [1, 2, 3]",
                             flag, where(p, text, at, sizeof at));
        }
        if (p < digits || v >= (vocab > 0 ? vocab : INT_MAX)) {
            tok_ids_free(out);
            if (vocab <= 0)
                return error_set(err, "%s: token id %.*s is %s", flag, (int)(end - p), p,
                                 p < digits ? "negative" : "too large");
            return error_set(err, "%s: token id %.*s is outside the vocabulary (0 .. %d)", flag,
                             (int)(end - p), p, vocab - 1);
        }
        if (out->n == SENTENCE_MAX_TOKENS) {
            tok_ids_free(out);
            return error_set(err, "%s: more than %d token ids", flag, SENTENCE_MAX_TOKENS);
        }
        tok_ids_push(out, (int)v);
        p = end;
        while (isspace((unsigned char)*p)) p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (bracket && *p == ']') p++, bracket = false;
        while (isspace((unsigned char)*p)) p++;
        if (*p != '\0' || bracket) {
            tok_ids_free(out);
            return error_set(
                err, "%s: expected ',' or the end%s %s, which is not a list of ids like 1,2,3 or [1, 2, 3]",
                flag, bracket && *p == '\0' ? " of the list (']')" : "", where(p, text, at, sizeof at));
        }
        return true;
    }
}

bool ids_parse(const char *text, int vocab, TokenIds *out, Error *err) {
    return ids_parse_as("--ids", text, vocab, out, err);
}

/* The book's sentence through the checkpoint's tokenizer.json. */
static bool encode_sentence(const Checkpoint *ck, const char *path, TokenIds *out, Error *err) {
    Tokenizer tok;
    if (!tok_load(&tok, path, err)) return false;
    bool ok = tok_encode(&tok, BOOK_SENTENCE, strlen(BOOK_SENTENCE), out, err);
    tok_free(&tok);
    if (!ok) return false;
    for (int i = 0; i < out->n; i++)
        if (out->ids[i] >= ck->config.vocab_size) {
            int id = out->ids[i];
            tok_ids_free(out);
            return error_set(err,
                             "%s: token id %d is outside the embedding table (%d rows in %s/config.json)",
                             path, id, ck->config.vocab_size, ck->dir);
        }
    return true;
}

bool sentence_ids(const Checkpoint *ck, const char *ids_flag, TokenIds *out, char *label, size_t label_size,
                  Error *err) {
    *out = (TokenIds){0};
    if (ids_flag) {
        if (!ids_parse(ids_flag, ck->config.vocab_size, out, err)) return false;
        snprintf(label, label_size, "--ids 给的 %lld 个 token", (long long)out->n);
        return true;
    }
    char *tok_path = path_join(ck->dir, "tokenizer.json");
    if (is_file(tok_path)) {
        bool ok = encode_sentence(ck, tok_path, out, err);
        free(tok_path);
        if (ok) snprintf(label, label_size, "「%s」的 %lld 个 token", BOOK_SENTENCE, (long long)out->n);
        return ok;
    }
    free(tok_path);

    /* No tokenizer (a synthetic checkpoint): the reference script's ids. */
    const int ref[] = REFERENCE_IDS;
    for (size_t i = 0; i < ARRAY_LEN(ref); i++) {
        if (ref[i] >= ck->config.vocab_size) {
            tok_ids_free(out);
            return error_set(err,
                             "%s/config.json: vocab_size %d is too small for the reference ids; pass --ids",
                             ck->dir, ck->config.vocab_size);
        }
        tok_ids_push(out, ref[i]);
    }
    fprintf(stderr,
            "%s: 模型目录里没有 tokenizer.json，用参考脚本的 %lld 个 token id 代替「%s」"
            "（--ids 1,2,3 可以换成别的）\n",
            program_name(), (long long)out->n, BOOK_SENTENCE);
    snprintf(label, label_size, "参考脚本的 %lld 个 token", (long long)out->n);
    return true;
}

const char *ids_str(const int *ids, int n, char *buf, int size) {
    int len = snprintf(buf, (size_t)size, "[");
    for (int i = 0; i < n; i++) {
        char item[24];
        int k = snprintf(item, sizeof item, "%s%d", i ? ", " : "", ids[i]);
        if (len + k + 6 > size) { /* keep room for ", ...]" */
            snprintf(buf + len, (size_t)(size - len), ", ...]");
            return buf;
        }
        memcpy(buf + len, item, (size_t)k + 1);
        len += k;
    }
    snprintf(buf + len, (size_t)(size - len), "]");
    return buf;
}

bool sentence_embed(const Model *m, const int *ids, int n, float *x, Error *err) {
    Embedding e;
    return emb_init(&e, m->embed_tokens, err) && emb_lookup(&e, ids, n, x, err);
}

bool sentence_layer_input(const Model *m, const int *ids, int n, int layer, float *embed, float *x,
                          Error *err) {
    if (!sentence_embed(m, ids, n, embed, err)) return false;
    const Config *c = &m->ck.config;
    rmsnorm(embed, m->layers[layer].input_layernorm, n, c->hidden_size, (float)c->rms_norm_eps, x);
    return true;
}
