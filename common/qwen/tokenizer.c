/* tokenizer.c — Hugging Face tokenizer.json, read and run (see tokenizer.h). */
#include "tokenizer.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <oniguruma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#include "workbook/jsonstr.h"
#include "workbook/strmap.h"
#include "workbook/utf8.h"

/* ------------------------------------------------------------------------- */
/* Byte level: GPT-2's bytes_to_unicode table                                */
/* ------------------------------------------------------------------------- */

/* The printable bytes 33–126, 161–172 and 174–255 stand for themselves; the 68
 * others (controls, space, DEL, no-break space, soft hyphen) are moved, in byte
 * order, to U+0100 upward. So a space (32) is U+0120 `Ġ`, a newline (10) is
 * U+010A `Ċ`. */
static uint32_t byte_to_char(unsigned char b) {
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174) return b;
    if (b <= 32) return 256u + b;               /* 0..32    -> U+0100..U+0120 */
    if (b <= 160) return 256u + 33 + (b - 127); /* 127..160 -> U+0121..U+0142 */
    return 256u + 67;                           /* 173      -> U+0143 */
}

/* The inverse: the byte a byte-level character stands for, or -1. */
static int char_to_byte(uint32_t c) {
    if (c < 256) return byte_to_char((unsigned char)c) == c ? (int)c : -1;
    if (c <= 256 + 32) return (int)(c - 256);
    if (c <= 256 + 66) return (int)(c - 256 - 33 + 127);
    if (c == 256 + 67) return 173;
    return -1;
}

/* ------------------------------------------------------------------------- */
/* Hash tables                                                               */
/* ------------------------------------------------------------------------- */

/* Vocabulary: token string -> id, open addressing. The strings live in one
 * arena, a slot holds the id and the hash (so most probes skip memcmp). */
typedef struct {
    uint32_t hash;
    int32_t id; /* -1: empty */
} VocabSlot;

/* Merges: (left id, right id) -> (rank, id of the merged token). */
typedef struct {
    uint64_t key; /* left << 32 | right; UINT64_MAX: empty */
    int32_t rank;
    int32_t merged;
} MergeSlot;

struct TokTables {
    char *strings;   /* every vocabulary string, NUL-terminated, back to back */
    int64_t *offset; /* [n_ids] offset of the id's vocabulary string, -1 if none */
    int32_t *length; /* [n_ids] its length in bytes */
    int *added_of;   /* [n_ids] index into tok->added, -1 if not an added token */
    VocabSlot *vocab;
    uint32_t vocab_mask;
    MergeSlot *merges;
    uint32_t merge_mask;
    OnigRegex regex;
    int *added_by_len;              /* added-token indices, longest content first */
    unsigned char added_first[256]; /* bit 1: a raw added token starts with this byte, 2: normalized */
};

static uint32_t hash_string(const char *s, size_t n) {
    uint64_t h = hash_bytes(s, n); /* FNV-1a, as StrMap */
    return (uint32_t)(h ^ h >> 32);
}

static uint32_t table_size(size_t n) {
    uint32_t cap = 1024;
    while (cap < 2 * n) cap *= 2;
    return cap;
}

static int vocab_find(const TokTables *t, const char *s, size_t n) {
    uint32_t h = hash_string(s, n);
    for (uint32_t i = h & t->vocab_mask;; i = (i + 1) & t->vocab_mask) {
        const VocabSlot *slot = &t->vocab[i];
        if (slot->id < 0) return -1;
        if (slot->hash == h && (size_t)t->length[slot->id] == n &&
            memcmp(t->strings + t->offset[slot->id], s, n) == 0)
            return slot->id;
    }
}

/* Inserts id (whose string is already in the arena); false if the string is taken. */
static bool vocab_insert(TokTables *t, int id) {
    const char *s = t->strings + t->offset[id];
    size_t n = (size_t)t->length[id];
    uint32_t h = hash_string(s, n);
    for (uint32_t i = h & t->vocab_mask;; i = (i + 1) & t->vocab_mask) {
        VocabSlot *slot = &t->vocab[i];
        if (slot->id < 0) {
            slot->hash = h;
            slot->id = id;
            return true;
        }
        if (slot->hash == h && (size_t)t->length[slot->id] == n &&
            memcmp(t->strings + t->offset[slot->id], s, n) == 0)
            return false;
    }
}

static uint32_t hash_pair(uint64_t key) { return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32); }

static const MergeSlot *merge_find(const TokTables *t, int left, int right) {
    uint64_t key = (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
    for (uint32_t i = hash_pair(key) & t->merge_mask;; i = (i + 1) & t->merge_mask) {
        const MergeSlot *slot = &t->merges[i];
        if (slot->key == key) return slot;
        if (slot->key == UINT64_MAX) return NULL;
    }
}

/* A pair listed twice keeps the later rank, as in the reference (its map is
 * built from the list in order). */
static void merge_insert(TokTables *t, int left, int right, int rank, int merged) {
    uint64_t key = (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
    for (uint32_t i = hash_pair(key) & t->merge_mask;; i = (i + 1) & t->merge_mask) {
        MergeSlot *slot = &t->merges[i];
        if (slot->key == key || slot->key == UINT64_MAX) {
            slot->key = key;
            slot->rank = rank;
            slot->merged = merged;
            return;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Loading tokenizer.json                                                    */
/* ------------------------------------------------------------------------- */

static const char *json_type_of(const cJSON *obj) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(obj, "type");
    return cJSON_IsString(type) ? type->valuestring : NULL;
}

/* A boolean field that may be absent (then `fallback`). */
static bool json_flag(const cJSON *obj, const char *key, bool fallback) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

/* True when the field is absent, null or "" (options we do not support are
 * written that way when they are off). */
static bool json_empty(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return !v || cJSON_IsNull(v) || (cJSON_IsString(v) && v->valuestring[0] == '\0');
}

/* An id as the file writes it: a non-negative integer. */
static bool json_id(const cJSON *v, int *out) {
    if (!cJSON_IsNumber(v)) return false;
    double d = v->valuedouble;
    if (!(d >= 0 && d < (double)(1 << 26)) || d != (double)(int)d) return false;
    *out = (int)d;
    return true;
}

static bool load_normalizer(Tokenizer *tok, const cJSON *norm, Error *err) {
    tok->nfc = false;
    if (!norm || cJSON_IsNull(norm)) return true;
    const char *type = json_type_of(norm);
    if (type && strcmp(type, "NFC") == 0) {
        tok->nfc = true;
        return true;
    }
    if (type && strcmp(type, "Sequence") == 0) { /* a Sequence of NFC alone is NFC */
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(norm, "normalizers");
        const cJSON *item;
        cJSON_ArrayForEach(item, list) {
            const char *t = json_type_of(item);
            if (!t || strcmp(t, "NFC") != 0)
                return error_set(err, "%s: normalizer %s inside a Sequence is not supported (only NFC)",
                                 tok->path, t ? t : "(without a type)");
            tok->nfc = true;
        }
        return true;
    }
    return error_set(err, "%s: normalizer %s is not supported (only NFC or none)", tok->path,
                     type ? type : "(without a type)");
}

/* One step of the pre-tokenizer: a Split with a regex, or ByteLevel. */
static bool load_pre_step(Tokenizer *tok, const cJSON *step, bool *byte_level, Error *err) {
    const char *t = json_type_of(step);
    if (t && strcmp(t, "Split") == 0) {
        const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(step, "pattern");
        const cJSON *regex = cJSON_GetObjectItemCaseSensitive(pattern, "Regex");
        const cJSON *behavior = cJSON_GetObjectItemCaseSensitive(step, "behavior");
        if (!cJSON_IsString(regex))
            return error_set(
                err, "%s: the Split pre-tokenizer has no Regex pattern (only Regex is supported)", tok->path);
        if (!cJSON_IsString(behavior) || strcmp(behavior->valuestring, "Isolated") != 0)
            return error_set(err, "%s: Split behavior %s is not supported (only Isolated)", tok->path,
                             cJSON_IsString(behavior) ? behavior->valuestring : "(missing)");
        if (json_flag(step, "invert", false))
            return error_set(err, "%s: Split with invert true is not supported", tok->path);
        if (tok->split_regex || *byte_level)
            return error_set(err, "%s: pre_tokenizer: only one Split, before ByteLevel, is supported",
                             tok->path);
        if (!utf8_check(regex->valuestring, strlen(regex->valuestring), NULL))
            return error_set(err, "%s: the Split regex is not valid UTF-8", tok->path);
        tok->split_regex = xstrdup(regex->valuestring);
        return true;
    }
    if (t && strcmp(t, "ByteLevel") == 0) {
        if (json_flag(step, "add_prefix_space", false))
            return error_set(err, "%s: ByteLevel with add_prefix_space true is not supported", tok->path);
        if (json_flag(step, "use_regex", true))
            return error_set(err, "%s: ByteLevel with use_regex true (GPT-2's own split) is not supported",
                             tok->path);
        *byte_level = true;
        return true;
    }
    return error_set(err, "%s: pre-tokenizer %s is not supported (only Split and ByteLevel)", tok->path,
                     t ? t : "(without a type)");
}

static bool load_pre_tokenizer(Tokenizer *tok, const cJSON *pre, Error *err) {
    const char *type = pre ? json_type_of(pre) : NULL;
    if (!type)
        return error_set(err, "%s: pre_tokenizer is missing; a byte-level BPE needs Split + ByteLevel",
                         tok->path);
    bool byte_level = false;
    if (strcmp(type, "Sequence") == 0) {
        const cJSON *steps = cJSON_GetObjectItemCaseSensitive(pre, "pretokenizers"), *step;
        cJSON_ArrayForEach(step, steps) if (!load_pre_step(tok, step, &byte_level, err)) return false;
    } else if (!load_pre_step(tok, pre, &byte_level, err)) {
        return false;
    }
    if (!byte_level || !tok->split_regex)
        return error_set(err, "%s: pre_tokenizer must be Split(Regex) followed by ByteLevel", tok->path);

    OnigErrorInfo info;
    const OnigUChar *pat = (const OnigUChar *)tok->split_regex;
    int r = onig_new(&tok->tables->regex, pat, pat + strlen(tok->split_regex), ONIG_OPTION_NONE,
                     ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
    if (r != ONIG_NORMAL) {
        tok->tables->regex = NULL;
        OnigUChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
        onig_error_code_to_str(msg, r, &info);
        return error_set(err, "%s: the Split regex does not compile: %s", tok->path, (const char *)msg);
    }
    return true;
}

static bool load_vocab(Tokenizer *tok, const cJSON *vocab, const cJSON *added, Error *err) {
    TokTables *t = tok->tables;
    if (!cJSON_IsObject(vocab)) return error_set(err, "%s: model.vocab is not an object", tok->path);

    /* First pass: the largest id (vocabulary and added tokens) and the arena size. */
    size_t bytes = 0;
    int max_id = -1, n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, vocab) {
        /* Every token string is checked before it is used or printed: decoding
         * walks it character by character, and an empty token would stand for
         * nothing (no merge can make one, no text can need one). */
        const char *key = item->string;
        size_t len = strlen(key), bad;
        if (len == 0) return error_set(err, "%s: model.vocab entry #%d is the empty string", tok->path, n);
        if (!utf8_check(key, len, &bad))
            return error_set(err, "%s: model.vocab entry #%d is not valid UTF-8 (byte 0x%02X at offset %zu)",
                             tok->path, n, (unsigned char)key[bad], bad);
        int id;
        if (!json_id(item, &id))
            return error_set(err, "%s: model.vocab[\"%s\"] is not a valid id", tok->path, key);
        if (id > max_id) max_id = id;
        bytes += len + 1;
        n++;
    }
    int n_added = 0;
    cJSON_ArrayForEach(item, added) {
        int id;
        if (json_id(cJSON_GetObjectItemCaseSensitive(item, "id"), &id) && id > max_id) max_id = id;
        n_added++;
    }
    if (n == 0) return error_set(err, "%s: model.vocab is empty", tok->path);
    /* Ids are numbered densely from 0; a stray huge id would make every table
     * indexed by id huge. */
    if (max_id >= 2 * (n + n_added) + 1024)
        return error_set(err,
                         "%s: the largest id (%d) is far beyond the %d tokens: ids are not numbered from 0",
                         tok->path, max_id, n + n_added);
    tok->n_vocab = n;
    tok->n_ids = max_id + 1;

    t->strings = xmalloc(bytes);
    t->offset = xmalloc(sizeof *t->offset * (size_t)tok->n_ids);
    t->length = xmalloc(sizeof *t->length * (size_t)tok->n_ids);
    for (int i = 0; i < tok->n_ids; i++) t->offset[i] = -1, t->length[i] = 0;
    uint32_t cap = table_size((size_t)n);
    t->vocab = xmalloc(sizeof *t->vocab * cap);
    t->vocab_mask = cap - 1;
    for (uint32_t i = 0; i < cap; i++) t->vocab[i].id = -1;

    size_t at = 0;
    cJSON_ArrayForEach(item, vocab) {
        int id = 0;
        json_id(item, &id); /* checked in the first pass */
        if (t->offset[id] >= 0)
            return error_set(err, "%s: model.vocab gives id %d to both \"%s\" and \"%s\"", tok->path, id,
                             t->strings + t->offset[id], item->string);
        size_t len = strlen(item->string);
        memcpy(t->strings + at, item->string, len + 1);
        t->offset[id] = (int64_t)at;
        t->length[id] = (int32_t)len;
        at += len + 1;
        if (!vocab_insert(t, id))
            return error_set(err, "%s: model.vocab lists \"%s\" twice", tok->path, item->string);
    }

    /* Every byte must have its one-byte token, or some text could not be encoded. */
    for (int b = 0; b < 256; b++) {
        char s[4];
        int len = utf8_encode(byte_to_char((unsigned char)b), s);
        tok->byte_token[b] = vocab_find(t, s, (size_t)len);
        if (tok->byte_token[b] < 0)
            return error_set(err,
                             "%s: model.vocab has no token for byte 0x%02X (\"%.*s\"); a byte-level BPE "
                             "needs all 256",
                             tok->path, b, len, s);
    }
    return true;
}

/* One merge: "a b" (older files) or ["a", "b"] (newer files). */
static bool merge_parts(const cJSON *item, const char **a, size_t *la, const char **b, size_t *lb) {
    if (cJSON_IsString(item)) {
        const char *s = item->valuestring, *space = strchr(s, ' ');
        if (!space || space == s || space[1] == '\0' || strchr(space + 1, ' ')) return false;
        *a = s, *la = (size_t)(space - s);
        *b = space + 1, *lb = strlen(space + 1);
        return true;
    }
    if (cJSON_GetArraySize(item) == 2) {
        const cJSON *x = cJSON_GetArrayItem(item, 0), *y = cJSON_GetArrayItem(item, 1);
        if (!cJSON_IsString(x) || !cJSON_IsString(y)) return false;
        *a = x->valuestring, *la = strlen(x->valuestring);
        *b = y->valuestring, *lb = strlen(y->valuestring);
        return true;
    }
    return false;
}

static bool load_merges(Tokenizer *tok, const cJSON *merges, Error *err) {
    TokTables *t = tok->tables;
    if (!cJSON_IsArray(merges)) return error_set(err, "%s: model.merges is not a list", tok->path);
    int n = cJSON_GetArraySize(merges);
    tok->n_merges = n;
    uint32_t cap = table_size((size_t)n);
    t->merges = xmalloc(sizeof *t->merges * cap);
    t->merge_mask = cap - 1;
    for (uint32_t i = 0; i < cap; i++) t->merges[i].key = UINT64_MAX;

    Text joined = {0};
    int rank = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, merges) {
        const char *a, *b;
        size_t la, lb;
        if (!merge_parts(item, &a, &la, &b, &lb)) {
            free(joined.s);
            return error_set(err, "%s: model.merges[%d] is neither \"a b\" nor [\"a\", \"b\"]", tok->path,
                             rank);
        }
        if (la == 0 || lb == 0) {
            free(joined.s);
            return error_set(err, "%s: model.merges[%d] has an empty part", tok->path, rank);
        }
        if (!utf8_check(a, la, NULL) || !utf8_check(b, lb, NULL)) {
            free(joined.s);
            return error_set(err, "%s: model.merges[%d] is not valid UTF-8", tok->path, rank);
        }
        int ia = vocab_find(t, a, la), ib = vocab_find(t, b, lb);
        joined.len = 0;
        text_put(&joined, a, la);
        text_put(&joined, b, lb);
        int im = vocab_find(t, joined.s, joined.len);
        if (ia < 0 || ib < 0 || im < 0) {
            const char *missing = ia < 0 ? a : ib < 0 ? b : joined.s;
            int len = (int)(ia < 0 ? la : ib < 0 ? lb : joined.len);
            error_set(err, "%s: model.merges[%d]: \"%.*s\" is not in model.vocab", tok->path, rank, len,
                      missing);
            free(joined.s);
            return false;
        }
        merge_insert(t, ia, ib, rank, im);
        rank++;
    }
    free(joined.s);
    return true;
}

static int longer_first(const void *x, const void *y, void *context) {
    const AddedToken *added = context;
    int i = *(const int *)x, j = *(const int *)y;
    int li = added[i].len, lj = added[j].len;
    return li != lj ? (li > lj ? -1 : 1) : (i > j) - (i < j);
}

static bool load_added(Tokenizer *tok, const cJSON *added, Error *err) {
    TokTables *t = tok->tables;
    if (added && !cJSON_IsNull(added) && !cJSON_IsArray(added))
        return error_set(err, "%s: added_tokens is not a list", tok->path);
    int n = cJSON_GetArraySize(added);
    tok->n_added = n;
    tok->added = xcalloc((size_t)(n ? n : 1), sizeof *tok->added);
    t->added_of = xmalloc(sizeof *t->added_of * (size_t)tok->n_ids);
    for (int i = 0; i < tok->n_ids; i++) t->added_of[i] = -1;
    t->added_by_len = xmalloc(sizeof *t->added_by_len * (size_t)(n ? n : 1));

    StrMap contents; /* content -> id, to find a content given twice */
    strmap_init(&contents);
    bool ok = true;
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, added) {
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(item, "content");
        AddedToken *a = &tok->added[i];
        if (!json_id(cJSON_GetObjectItemCaseSensitive(item, "id"), &a->id)) {
            ok = error_set(err, "%s: added_tokens[%d] has no valid id", tok->path, i);
            break;
        }
        if (!cJSON_IsString(content) || content->valuestring[0] == '\0') {
            ok = error_set(err, "%s: added_tokens[%d] has no content", tok->path, i);
            break;
        }
        a->content = xstrdup(content->valuestring);
        a->len = (int)strlen(a->content);
        a->special = json_flag(item, "special", false);
        a->normalized = json_flag(item, "normalized", !a->special);
        if (!utf8_check(a->content, (size_t)a->len, NULL)) {
            ok = error_set(err, "%s: added_tokens[%d] is not valid UTF-8", tok->path, i);
            break;
        }
        static const char *const unsupported[] = {"single_word", "lstrip", "rstrip"};
        for (size_t k = 0; k < ARRAY_LEN(unsupported); k++)
            if (json_flag(item, unsupported[k], false)) {
                ok = error_set(err, "%s: added token \"%s\" (id %d) sets %s, which is not supported",
                               tok->path, a->content, a->id, unsupported[k]);
                break;
            }
        if (!ok) break;
        if (t->added_of[a->id] >= 0) {
            ok = error_set(err, "%s: added_tokens gives id %d twice", tok->path, a->id);
            break;
        }
        /* The same id for two different strings: the text would encode as one
         * and decode as the other. (Some files list a token in both places,
         * with the same string: that is fine.) */
        if (t->offset[a->id] >= 0 && strcmp(t->strings + t->offset[a->id], a->content) != 0) {
            ok = error_set(err, "%s: added_tokens[%d] \"%s\" has id %d, which model.vocab gives to \"%s\"",
                           tok->path, i, a->content, a->id, t->strings + t->offset[a->id]);
            break;
        }
        /* One content, one id: a second token with the same text (added, or in the
         * vocabulary under another id) could never come out of encode, and decode
         * and encode would disagree about it. */
        int in_vocab = vocab_find(t, a->content, (size_t)a->len);
        if (!strmap_put(&contents, a->content, a->id)) {
            ok = error_set(err, "%s: added_tokens[%d] \"%s\" repeats the content of an earlier added token",
                           tok->path, i, a->content);
            break;
        }
        if (in_vocab >= 0 && in_vocab != a->id) {
            ok = error_set(err,
                           "%s: added_tokens[%d] \"%s\" has id %d, but model.vocab gives that string id %d",
                           tok->path, i, a->content, a->id, in_vocab);
            break;
        }
        t->added_of[a->id] = i;
        t->added_first[(unsigned char)a->content[0]] |= a->normalized ? 2 : 1;
        t->added_by_len[i] = i;
        i++;
    }
    strmap_free(&contents);
    if (!ok) return false;
    /* Longest first, so that the first match found at a position is the longest
     * one; equal lengths in file order. */
    qsort_r(t->added_by_len, (size_t)n, sizeof *t->added_by_len, longer_first, tok->added);
    return true;
}

static bool load_model(Tokenizer *tok, const cJSON *root, Error *err) {
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsObject(model))
        return error_set(err, "%s: not a tokenizer.json (no \"model\" object)", tok->path);
    const char *type = json_type_of(model);
    if (type && strcmp(type, "BPE") != 0)
        return error_set(err, "%s: model type %s is not supported (only BPE)", tok->path, type);
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!type && !merges)
        return error_set(err, "%s: model has no type and no merges: not a BPE tokenizer", tok->path);
    if (json_flag(model, "byte_fallback", false))
        return error_set(err, "%s: model.byte_fallback is true, which is not supported", tok->path);
    const cJSON *dropout = cJSON_GetObjectItemCaseSensitive(model, "dropout");
    if (cJSON_IsNumber(dropout) && dropout->valuedouble != 0)
        return error_set(err, "%s: model.dropout is set (random merges), which is not supported", tok->path);
    if (!json_empty(model, "continuing_subword_prefix") || !json_empty(model, "end_of_word_suffix"))
        return error_set(err, "%s: a BPE with a subword prefix or end-of-word suffix is not supported",
                         tok->path);
    tok->ignore_merges = json_flag(model, "ignore_merges", false);

    const cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    return load_vocab(tok, cJSON_GetObjectItemCaseSensitive(model, "vocab"), added, err) &&
           load_merges(tok, merges, err) && load_added(tok, added, err);
}

bool tok_load_json(Tokenizer *tok, const char *json, size_t len, const char *name, Error *err) {
    memset(tok, 0, sizeof *tok);
    tok->path = xstrdup(name);
    tok->tables = xcalloc(1, sizeof *tok->tables);

    static OnigEncoding encodings[1];
    encodings[0] = ONIG_ENCODING_UTF8;
    onig_initialize(encodings, 1); /* once per process; later calls do nothing */

    /* strictly: a token, a merge or the regex written with "\u0000" would end there */
    cJSON *root = json_parse_document(json, len, name, err);
    if (!root) {
        tok_free(tok);
        return false;
    }
    bool ok = cJSON_IsObject(root);
    if (!ok) error_set(err, "%s: not a tokenizer.json (the top level is not an object)", name);
    ok = ok && load_model(tok, root, err) &&
         load_normalizer(tok, cJSON_GetObjectItemCaseSensitive(root, "normalizer"), err) &&
         load_pre_tokenizer(tok, cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"), err);
    if (ok) {
        const cJSON *decoder = cJSON_GetObjectItemCaseSensitive(root, "decoder");
        const char *type = decoder ? json_type_of(decoder) : NULL;
        if (decoder && !cJSON_IsNull(decoder) && (!type || strcmp(type, "ByteLevel") != 0))
            ok = error_set(err, "%s: decoder %s is not supported (only ByteLevel)", name, type ? type : "?");
    }
    cJSON_Delete(root);
    if (!ok) tok_free(tok);
    return ok;
}

/* What a path is when it is not a regular file, in the words of a message. */
static const char *file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/* Reads tokenizer.json whole. Only a regular file is read: opening a FIFO for
 * reading would wait for a writer forever, so the file is opened without
 * waiting and looked at before anything is read. Its size comes from the file
 * system and is checked before the buffer is allocated. */
static char *read_tokenizer_file(const char *path, size_t *len, Error *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error_set(err, "cannot open %s for reading: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        error_set(err, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        error_set(err, "%s is %s, not a tokenizer.json file", path, file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    int64_t size = (int64_t)st.st_size;
    if (size > TOK_MAX_FILE_BYTES) {
        error_set(err, "%s is %" PRId64 " bytes; a tokenizer.json of more than %d MiB is refused", path, size,
                  TOK_MAX_FILE_BYTES >> 20);
        close(fd);
        return NULL;
    }
    char *buf = xmalloc((size_t)size + 1);
    size_t n = 0;
    while (n < (size_t)size) {
        ssize_t got = read(fd, buf + n, (size_t)size - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            error_set(err, "cannot read %s: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0) break; /* the file shrank while being read: take what is there */
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
}

bool tok_load(Tokenizer *tok, const char *path, Error *err) {
    memset(tok, 0, sizeof *tok);
    size_t len;
    char *json = read_tokenizer_file(path, &len, err);
    if (!json) return false;
    bool ok = tok_load_json(tok, json, len, path, err);
    free(json);
    return ok;
}

void tok_free(Tokenizer *tok) {
    TokTables *t = tok->tables;
    if (t) {
        free(t->strings);
        free(t->offset);
        free(t->length);
        free(t->added_of);
        free(t->vocab);
        free(t->merges);
        free(t->added_by_len);
        if (t->regex) onig_free(t->regex);
        free(t);
    }
    for (int i = 0; i < tok->n_added; i++) free(tok->added[i].content);
    free(tok->added);
    free(tok->split_regex);
    free(tok->path);
    memset(tok, 0, sizeof *tok);
}

/* ------------------------------------------------------------------------- */
/* Encoding                                                                  */
/* ------------------------------------------------------------------------- */

void tok_ids_push(TokenIds *t, int id) {
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->ids = xrealloc(t->ids, sizeof *t->ids * (size_t)t->cap);
    }
    t->ids[t->n++] = id;
}

void tok_ids_free(TokenIds *t) {
    free(t->ids);
    memset(t, 0, sizeof *t);
}

/* A candidate merge: the symbol at `pos` with its right neighbour, which would
 * become token `merged`. The heap pops the lowest rank, leftmost first. */
typedef struct {
    int rank, pos, merged;
} Candidate;

/* Scratch space for one tok_encode call, grown as pieces get longer. */
typedef struct {
    int cap;
    int *id, *prev, *next; /* [cap] the piece's symbols as a linked list; id -1 = merged away */
    Candidate *heap;       /* [3 * cap] */
    int heap_n;
    OnigRegion *region;
    OnigMatchParam *mp;         /* the limits of the current search */
    unsigned long budget;       /* backtracking steps the rest of the text may take */
    unsigned long budget_total; /* ... and the whole text, for messages */
    size_t text_bytes;          /* the text's length, for messages */
    Text word;                  /* byte-level string of a piece (ignore_merges only) */
    bool plain;                 /* tok_encode_text: no added token is matched */
} Work;

static void work_reserve(Work *w, int n) {
    if (n <= w->cap) return;
    w->cap = n > 2 * w->cap ? n : 2 * w->cap;
    w->id = xrealloc(w->id, sizeof *w->id * (size_t)w->cap);
    w->prev = xrealloc(w->prev, sizeof *w->prev * (size_t)w->cap);
    w->next = xrealloc(w->next, sizeof *w->next * (size_t)w->cap);
    w->heap = xrealloc(w->heap, sizeof *w->heap * 3 * (size_t)w->cap);
}

static void work_free(Work *w) {
    free(w->id);
    free(w->prev);
    free(w->next);
    free(w->heap);
    free(w->word.s);
    if (w->region) onig_region_free(w->region, 1);
    if (w->mp) onig_free_match_param(w->mp);
}

static bool cand_less(const Candidate *a, const Candidate *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_push(Work *w, Candidate c) {
    int i = w->heap_n++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!cand_less(&c, &w->heap[parent])) break;
        w->heap[i] = w->heap[parent];
        i = parent;
    }
    w->heap[i] = c;
}

static Candidate heap_pop(Work *w) {
    Candidate top = w->heap[0], last = w->heap[--w->heap_n];
    int i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= w->heap_n) break;
        if (child + 1 < w->heap_n && cand_less(&w->heap[child + 1], &w->heap[child])) child++;
        if (!cand_less(&w->heap[child], &last)) break;
        w->heap[i] = w->heap[child];
        i = child;
    }
    w->heap[i] = last;
    return top;
}

/* Queues the pair (symbol at pos, its right neighbour) if it is a merge. */
static void offer_pair(const TokTables *t, Work *w, int pos) {
    int right = w->next[pos];
    const MergeSlot *m = merge_find(t, w->id[pos], w->id[right]);
    if (m) heap_push(w, (Candidate){m->rank, pos, m->merged});
}

/* BPE on one piece of n bytes: ids appended to out. */
static void bpe_piece(const Tokenizer *tok, Work *w, const unsigned char *p, int n, TokenIds *out) {
    const TokTables *t = tok->tables;
    if (n == 1) {
        tok_ids_push(out, tok->byte_token[p[0]]);
        return;
    }
    if (tok->ignore_merges) { /* the whole piece is a vocabulary entry: keep it */
        w->word.len = 0;
        for (int i = 0; i < n; i++) {
            char c[4];
            text_put(&w->word, c, (size_t)utf8_encode(byte_to_char(p[i]), c));
        }
        int id = vocab_find(t, w->word.s, w->word.len);
        if (id >= 0) {
            tok_ids_push(out, id);
            return;
        }
    }
    work_reserve(w, n);
    /* Every byte starts as its own symbol: the one-byte tokens. */
    for (int i = 0; i < n; i++) {
        w->id[i] = tok->byte_token[p[i]];
        w->prev[i] = i - 1;
        w->next[i] = i + 1 < n ? i + 1 : -1;
    }
    w->heap_n = 0;
    for (int i = 0; i + 1 < n; i++) offer_pair(t, w, i);

    /* Merge the best pair left; a queued pair whose symbols have changed since
     * is stale and skipped (its left symbol was merged away, lost its right
     * neighbour, or the two no longer make the token it was queued for). */
    while (w->heap_n > 0) {
        Candidate c = heap_pop(w);
        int left = c.pos, right = w->next[left];
        if (w->id[left] < 0 || right < 0) continue;
        const MergeSlot *m = merge_find(t, w->id[left], w->id[right]);
        if (!m || m->merged != c.merged) continue;
        w->id[left] = c.merged; /* left absorbs right */
        w->id[right] = -1;
        w->next[left] = w->next[right];
        if (w->next[left] >= 0) w->prev[w->next[left]] = left;
        if (w->prev[left] >= 0) offer_pair(t, w, w->prev[left]);
        if (w->next[left] >= 0) offer_pair(t, w, left);
    }
    for (int i = 0; i >= 0; i = w->next[i]) tok_ids_push(out, w->id[i]);
}

/* ---- the Split regex, on a budget (tokenizer.h: "How long a regex may take") ---- */

static bool over_limit(int r) {
    return r == ONIGERR_RETRY_LIMIT_IN_MATCH_OVER || r == ONIGERR_RETRY_LIMIT_IN_SEARCH_OVER ||
           r == ONIGERR_MATCH_STACK_LIMIT_OVER;
}

/* One onig_search from str + pos with these limits: Oniguruma's retry limits
 * (per match and per search) and its stack limit. */
static int search_limited(const Tokenizer *tok, Work *w, const OnigUChar *str, size_t n, size_t pos,
                          unsigned long steps, unsigned int stack) {
    onig_set_retry_limit_in_match_of_match_param(w->mp, steps);
    onig_set_retry_limit_in_search_of_match_param(w->mp, steps);
    onig_set_match_stack_limit_size_of_match_param(w->mp, stack);
    onig_region_clear(w->region);
    return onig_search_with_param(tok->tables->regex, str, str + n, str + pos, str + n, w->region,
                                  ONIG_OPTION_NONE, w->mp);
}

/* The next match at or after pos, paid for from the text's budget of steps
 * (w->budget). How many steps a search takes is known only as "fewer than its
 * limit", so it runs with a small limit first, then with twice as much, and so
 * on up to what is left; it pays the limit it finished under, at most twice
 * what it took (or TOK_REGEX_FIRST_STEPS for a cheap search). The stack limit
 * grows with it, so that a failed run also stops early when it only pushes
 * (\s* over a long run of spaces), up to a bound that keeps the memory in
 * proportion to the text. A limit only ever stops a search, it never changes
 * what it finds, so the run that finishes gives the answer. Returns
 * Oniguruma's result (a match position or ONIG_MISMATCH), or ONIGERR_* with
 * the message in err. */
static int search_next(const Tokenizer *tok, Work *w, const OnigUChar *str, size_t n, size_t pos,
                       Error *err) {
    uint64_t cap = TOK_REGEX_STACK_BASE + TOK_REGEX_STACK_PER_BYTE * (uint64_t)(n - pos);
    if (cap > UINT_MAX) cap = UINT_MAX;
    unsigned long limit = w->budget < TOK_REGEX_FIRST_STEPS ? w->budget : TOK_REGEX_FIRST_STEPS;
    for (;;) {
        unsigned int stack = limit < cap ? (unsigned int)limit : (unsigned int)cap;
        int r = limit > 0 ? search_limited(tok, w, str, n, pos, limit, stack)
                          : ONIGERR_RETRY_LIMIT_IN_SEARCH_OVER;
        if (!over_limit(r)) {
            w->budget -= limit;
            if (r < 0 && r != ONIG_MISMATCH) {
                OnigUChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
                onig_error_code_to_str(msg, r);
                error_set(err, "%s: the Split regex failed on the input: %s", tok->path, (const char *)msg);
            }
            return r;
        }
        if (r == ONIGERR_MATCH_STACK_LIMIT_OVER && stack == cap) {
            error_set(
                err,
                "%s: the Split regex needs too much memory for this text: more than %u backtracking stack "
                "entries for the last %zu bytes (the limit is %d per byte + %d)",
                tok->path, stack, n - pos, TOK_REGEX_STACK_PER_BYTE, TOK_REGEX_STACK_BASE);
            return r;
        }
        if (limit == w->budget) {
            error_set(
                err,
                "%s: the Split regex is too slow for this text: more than %lu backtracking steps for %zu "
                "bytes (the limit is %d per byte + %d)",
                tok->path, w->budget_total, w->text_bytes, TOK_REGEX_STEPS_PER_BYTE, TOK_REGEX_STEPS_BASE);
            return ONIGERR_RETRY_LIMIT_IN_SEARCH_OVER;
        }
        limit = limit <= w->budget / 2 ? 2 * limit : w->budget;
    }
}

/* Split (behavior Isolated): every regex match is a piece and so is every gap
 * between matches. Each search starts where the last match ended but sees the
 * whole segment, so a look-ahead such as (?!\S) sees what follows. */
static bool split_and_bpe(const Tokenizer *tok, Work *w, const char *s, size_t n, TokenIds *out, Error *err) {
    const OnigUChar *str = (const OnigUChar *)s;
    if (!w->region) w->region = onig_region_new();
    if (!w->mp) {
        w->mp = onig_new_match_param();
        if (!w->mp) die("out of memory");
        onig_initialize_match_param(w->mp);
    }
    size_t pos = 0, prev = 0;
    bool had_match = false;
    size_t last_end = 0;
    while (pos <= n) {
        int r = search_next(tok, w, str, n, pos, err);
        if (r == ONIG_MISMATCH) break;
        if (r < 0) return false;
        size_t ms = (size_t)w->region->beg[0], me = (size_t)w->region->end[0];
        if (ms == me && had_match && last_end == me) {
            /* an empty match right after the last one: step over a character */
            int len = 1;
            if (pos < n) utf8_decode(str + pos, &len);
            pos += (size_t)len;
            continue;
        }
        if (prev < ms) bpe_piece(tok, w, str + prev, (int)(ms - prev), out);
        if (ms < me) bpe_piece(tok, w, str + ms, (int)(me - ms), out);
        prev = pos = last_end = me;
        had_match = true;
    }
    if (prev < n) bpe_piece(tok, w, str + prev, (int)(n - prev), out);
    return true;
}

static bool all_ascii(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80) return false;
    return true;
}

/* Cuts out the added tokens of one kind (raw or normalized) from s, leftmost
 * first and the longest at each position, and passes on the text between. */
static bool encode_stage(const Tokenizer *tok, Work *w, const char *s, size_t n, bool normalized,
                         TokenIds *out, Error *err);

static bool encode_gap(const Tokenizer *tok, Work *w, const char *s, size_t n, bool normalized, TokenIds *out,
                       Error *err) {
    if (normalized) return split_and_bpe(tok, w, s, n, out, err);
    if (!tok->nfc || all_ascii(s, n)) return encode_stage(tok, w, s, n, true, out, err);
    utf8proc_uint8_t *nfc = NULL;
    utf8proc_ssize_t m = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &nfc,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (m < 0) return error_set(err, "NFC normalization failed: %s", utf8proc_errmsg(m));
    bool ok = encode_stage(tok, w, (const char *)nfc, (size_t)m, true, out, err);
    free(nfc);
    return ok;
}

static bool encode_stage(const Tokenizer *tok, Work *w, const char *s, size_t n, bool normalized,
                         TokenIds *out, Error *err) {
    const TokTables *t = tok->tables;
    unsigned char kind = normalized ? 2 : 1;
    size_t gap = 0;
    for (size_t i = 0; i < n;) {
        const AddedToken *hit = NULL;
        if (!w->plain && t->added_first[(unsigned char)s[i]] & kind) {
            for (int k = 0; k < tok->n_added && !hit; k++) {
                const AddedToken *a = &tok->added[t->added_by_len[k]];
                if (a->normalized == normalized && (size_t)a->len <= n - i &&
                    memcmp(s + i, a->content, a->len) == 0)
                    hit = a;
            }
        }
        if (!hit) {
            i++;
            continue;
        }
        if (gap < i && !encode_gap(tok, w, s + gap, i - gap, normalized, out, err)) return false;
        tok_ids_push(out, hit->id);
        i += (size_t)hit->len;
        gap = i;
    }
    if (gap < n) return encode_gap(tok, w, s + gap, n - gap, normalized, out, err);
    return true;
}

/* tok_encode, or with plain tok_encode_text. */
static bool encode(const Tokenizer *tok, const char *text, size_t len, bool plain, TokenIds *out,
                   Error *err) {
    if (len > TOK_MAX_TEXT_BYTES)
        return error_set(err, "input text is %zu bytes; at most %d MiB are encoded at a time (split it up)",
                         len, TOK_MAX_TEXT_BYTES >> 20);
    size_t bad;
    if (!utf8_check(text, len, &bad))
        return error_set(err, "input text is not valid UTF-8: byte 0x%02X at offset %zu",
                         (unsigned char)text[bad], bad);
    Work w = {.plain = plain};
    w.text_bytes = len;
    w.budget = w.budget_total = TOK_REGEX_STEPS_BASE + TOK_REGEX_STEPS_PER_BYTE * (unsigned long)len;
    bool ok = encode_stage(tok, &w, text, len, false, out, err);
    work_free(&w);
    return ok;
}

bool tok_encode(const Tokenizer *tok, const char *text, size_t len, TokenIds *out, Error *err) {
    return encode(tok, text, len, false, out, err);
}

bool tok_encode_text(const Tokenizer *tok, const char *text, size_t len, TokenIds *out, Error *err) {
    return encode(tok, text, len, true, out, err);
}

/* ------------------------------------------------------------------------- */
/* Tokens and decoding                                                       */
/* ------------------------------------------------------------------------- */

const AddedToken *tok_added(const Tokenizer *tok, int id) {
    if (id < 0 || id >= tok->n_ids || tok->tables->added_of[id] < 0) return NULL;
    return &tok->added[tok->tables->added_of[id]];
}

const char *tok_token(const Tokenizer *tok, int id) {
    if (id < 0 || id >= tok->n_ids) return NULL;
    const AddedToken *a = tok_added(tok, id);
    if (a) return a->content;
    return tok->tables->offset[id] >= 0 ? tok->tables->strings + tok->tables->offset[id] : NULL;
}

int tok_token_id(const Tokenizer *tok, const char *token) {
    for (int i = 0; i < tok->n_added; i++)
        if (strcmp(tok->added[i].content, token) == 0) return tok->added[i].id;
    int id = vocab_find(tok->tables, token, strlen(token));
    return id >= 0 && !tok_added(tok, id) ? id : -1;
}

/* The token's string and its length in bytes, or false for an id that is no token. */
static bool token_string(const Tokenizer *tok, int id, const char **s, size_t *len) {
    if (id < 0 || id >= tok->n_ids) return false;
    const AddedToken *a = tok_added(tok, id);
    if (a) {
        *s = a->content, *len = (size_t)a->len;
        return true;
    }
    const TokTables *t = tok->tables;
    if (t->offset[id] < 0) return false;
    *s = t->strings + t->offset[id], *len = (size_t)t->length[id];
    return true;
}

/* ByteLevel decoding of one token: every character back to its byte. A token
 * with a character outside the table (an added token such as "\n" or Chinese
 * text) stands for its own UTF-8 bytes, as in the reference decoder. The walk
 * is bounded by the token's length, whatever its bytes (they are checked when
 * the file is loaded, but a decoder should not depend on that). */
int tok_token_bytes(const Tokenizer *tok, int id, unsigned char *buf, int cap) {
    const char *s;
    size_t len;
    if (!token_string(tok, id, &s, &len)) return -1;
    const unsigned char *u = (const unsigned char *)s;
    int n = 0;
    for (size_t i = 0; i < len;) {
        int prefix, k = utf8_char(u + i, len - i, &prefix);
        int b = k > 0 ? char_to_byte(utf8_decode(u + i, &k)) : -1;
        if (b < 0) { /* not a byte-level string: the raw text */
            n = len < (size_t)cap ? (int)len : cap;
            if (n > 0) memcpy(buf, s, (size_t)n);
            return n;
        }
        if (n < cap) buf[n] = (unsigned char)b;
        n++;
        i += (size_t)k;
    }
    return n < cap ? n : cap;
}

char *tok_decode(const Tokenizer *tok, const int *ids, int n, size_t *len, Error *err) {
    Text bytes = {0}, text = {0};
    unsigned char *tmp = NULL;
    size_t tmp_cap = 0;
    for (int i = 0; i < n; i++) {
        const char *s;
        size_t need;
        if (!token_string(tok, ids[i], &s, &need)) {
            free(bytes.s);
            free(tmp);
            error_set(err, "id %d is not a token of %s (ids go up to %d)", ids[i], tok->path, tok->n_ids - 1);
            return NULL;
        }
        /* a token decodes to at most as many bytes as its string has */
        if (need > tmp_cap) tmp = xrealloc(tmp, tmp_cap = need);
        text_put(&bytes, tmp, (size_t)tok_token_bytes(tok, ids[i], tmp, (int)need));
    }
    free(tmp);
    /* Bytes to text: each ill-formed part becomes one U+FFFD (the "maximal
     * subpart" rule of the Unicode standard, as Rust's from_utf8_lossy). */
    text_put(&text, "", 0);
    const unsigned char *u = (const unsigned char *)bytes.s;
    for (size_t i = 0; i < bytes.len;) {
        int prefix, k = utf8_char(u + i, bytes.len - i, &prefix);
        if (k > 0) {
            text_put(&text, u + i, (size_t)k);
            i += (size_t)k;
        } else {
            text_put(&text, "\xEF\xBF\xBD", 3);
            i += (size_t)prefix;
        }
    }
    free(bytes.s);
    if (len) *len = text.len;
    return text.s;
}

/* ------------------------------------------------------------------------- */
/* Chat template                                                             */
/* ------------------------------------------------------------------------- */

/* The template around the messages, piece by piece: emit(ctx, text, marker) with
 * marker true for its control tokens (<|im_start|>, <|im_end|>, <think>, </think>)
 * and false for text (a role, a newline, a message's content). */
static void chat_walk(const ChatMessage *messages, int n, bool add_generation_prompt, bool enable_thinking,
                      void (*emit)(void *ctx, const char *text, bool marker), void *ctx) {
    for (int i = 0; i < n; i++) {
        emit(ctx, "<|im_start|>", true);
        emit(ctx, messages[i].role, false);
        emit(ctx, "\n", false);
        emit(ctx, messages[i].content, false);
        emit(ctx, "<|im_end|>", true);
        emit(ctx, "\n", false);
    }
    if (add_generation_prompt) {
        emit(ctx, "<|im_start|>", true);
        emit(ctx, "assistant\n", false);
        emit(ctx, "<think>", true);
        emit(ctx, "\n", false);
        if (!enable_thinking) {
            emit(ctx, "\n", false);
            emit(ctx, "</think>", true);
            emit(ctx, "\n\n", false);
        }
    }
}

static void render_piece(void *ctx, const char *text, bool marker) {
    (void)marker;
    text_put(ctx, text, strlen(text));
}

char *tok_chat_render(const ChatMessage *messages, int n, bool add_generation_prompt, bool enable_thinking) {
    Text b = {0};
    text_put(&b, "", 0);
    chat_walk(messages, n, add_generation_prompt, enable_thinking, render_piece, &b);
    return b.s;
}

/* tok_chat_encode's state: the text since the last marker, encoded when the next
 * marker (or the end) comes, so that every run of text is split as one piece of
 * the whole rendered text would be. */
typedef struct {
    const Tokenizer *tok;
    TokenIds *out;
    Text text;
    bool ok;
    Error *err;
} ChatIds;

static void chat_flush(ChatIds *c) {
    if (c->ok && c->text.len > 0) c->ok = tok_encode_text(c->tok, c->text.s, c->text.len, c->out, c->err);
    c->text.len = 0;
}

static void encode_piece(void *ctx, const char *text, bool marker) {
    ChatIds *c = ctx;
    const AddedToken *a = NULL;
    for (int i = 0; marker && i < c->tok->n_added && !a; i++)
        if (strcmp(c->tok->added[i].content, text) == 0) a = &c->tok->added[i];
    if (!a) { /* text, or a marker the file does not have: text, as tok_encode would take it */
        text_put(&c->text, text, strlen(text));
        return;
    }
    chat_flush(c);
    if (c->ok) tok_ids_push(c->out, a->id);
}

bool tok_chat_encode(const Tokenizer *tok, const ChatMessage *messages, int n, bool add_generation_prompt,
                     bool enable_thinking, TokenIds *out, Error *err) {
    for (int i = 0; i < n; i++) {
        size_t bad;
        if (!utf8_check(messages[i].content, strlen(messages[i].content), &bad))
            return error_set(err, "message %d (%s) is not valid UTF-8: byte 0x%02X at offset %zu", i + 1,
                             messages[i].role, (unsigned char)messages[i].content[bad], bad);
    }
    ChatIds c = {.tok = tok, .out = out, .ok = true, .err = err};
    chat_walk(messages, n, add_generation_prompt, enable_thinking, encode_piece, &c);
    chat_flush(&c);
    free(c.text.s);
    return c.ok;
}
