/* The tokenizer on the real Qwen3 tokenizer.json (fetched by
 * fetch_qwen3_tokenizer.sh, sha256-checked), against ids that nobody on this
 * project computed:
 *   - a table of ids that Hugging Face's tokenizer gives for this file;
 *   - the corpus tests/data/tokenizer_corpus.jsonl, whose expected ids
 *     (tokenizer_ids_qwen3.jsonl, tokenizer_ids_qwen35_regex.jsonl) come from
 *     Hugging Face's JavaScript tokenizer (reference/make_tokenizer_golden.sh),
 *     once for the file as it is and once with the Qwen3.5 split regex swapped in.
 * Without npm or network the file cannot be had: the test says SKIP and exits 77. */
#include <cJSON.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <utf8proc.h>

#include "qwen/tokenizer.h"
#include "workbook/jsonstr.h"
#include "tests/check_main.h"

#define DATA       REPO_ROOT "/ch02_embedding/tests/data/"
#define QWEN3_JSON REPO_ROOT "/.cache/tokenizer-qwen3-3.7.2/tokenizer.json"

/* The split regexes of Qwen3's and Qwen3.5's tokenizer.json, as the strings read after JSON unescaping. */
static const char QWEN3_REGEX[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
                                  "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char QWEN35_REGEX[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}"
                                   "| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

static Tokenizer qwen3, qwen35; /* the file, and the file with the Qwen3.5 regex */

static void load_both(void) {
    Error err;
    size_t len;
    char *json = read_file(QWEN3_JSON, &len, &err);
    if (!json || !tok_load_json(&qwen3, json, len, QWEN3_JSON, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    /* The same file with the Qwen3.5 regex: the only change in the pipeline. */
    cJSON *root = cJSON_ParseWithLength(json, len);
    free(json);
    cJSON *pre = cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer");
    cJSON *split = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pre, "pretokenizers"), 0);
    cJSON *pattern = cJSON_GetObjectItemCaseSensitive(split, "pattern");
    cJSON_ReplaceItemInObjectCaseSensitive(pattern, "Regex", cJSON_CreateString(QWEN35_REGEX));
    char *swapped = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!tok_load_json(&qwen35, swapped, strlen(swapped), "tokenizer.json with the Qwen3.5 regex", &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    free(swapped);
}

static void free_both(void) {
    tok_free(&qwen3);
    tok_free(&qwen35);
}

static TokenIds encode(const Tokenizer *tok, const char *s) {
    TokenIds ids = {0};
    Error err;
    ck_assert_msg(tok_encode(tok, s, strlen(s), &ids, &err), "%s", err.msg);
    return ids;
}

static bool same_ids(const TokenIds *got, const int *want, int n) {
    if (got->n != n) return false;
    for (int i = 0; i < n; i++)
        if (got->ids[i] != want[i]) return false;
    return true;
}

static void print_ids(const char *label, const int *ids, int n) {
    fprintf(stderr, "  %s [", label);
    for (int i = 0; i < n; i++) fprintf(stderr, "%s%d", i ? ", " : "", ids[i]);
    fprintf(stderr, "]\n");
}

START_TEST(file_facts) {
    ck_assert_str_eq(qwen3.split_regex, QWEN3_REGEX); /* the regex is taken from the file */
    ck_assert_str_eq(qwen35.split_regex, QWEN35_REGEX);
    ck_assert_int_eq(qwen3.n_vocab, 151643);
    ck_assert_int_eq(qwen3.n_merges, 151387);
    ck_assert_int_eq(qwen3.n_added, 26);
    ck_assert_int_eq(qwen3.n_ids, 151643 + 26);
    ck_assert(qwen3.nfc);
    ck_assert_int_eq(tok_token_id(&qwen3, "<|endoftext|>"), 151643);
    ck_assert_int_eq(tok_token_id(&qwen3, "<|im_start|>"), 151644);
    ck_assert_int_eq(tok_token_id(&qwen3, "<|im_end|>"), 151645);
    ck_assert_int_eq(tok_token_id(&qwen3, "<think>"), 151667);
    ck_assert_int_eq(tok_token_id(&qwen3, "</think>"), 151668);
    ck_assert(tok_added(&qwen3, 151645)->special);
    ck_assert(!tok_added(&qwen3, 151667)->special); /* <think> is an added token, not special */
    /* 今天 = E4 BB 8A E5 A4 A9; byte 8A is not printable and is shown as U+012C Ĭ */
    ck_assert_str_eq(tok_token(&qwen3, 100644), "ä»Ĭå¤©");
    ck_assert_str_eq(tok_token(&qwen3, 220), "Ġ");
    ck_assert_str_eq(tok_token(&qwen3, 198), "Ċ");
}
END_TEST

/* Hugging Face's ids for this file (@huggingface/tokenizers, add_special_tokens false) */
static const struct {
    const char *text;
    int n;
    int ids[24];
} spec_table[] = {
    {"今天天气不错，我们去公园", 7, {100644, 104307, 100832, 3837, 97639, 85336, 102077}},
    {"I'm sure it's fine, they've said", 10, {40, 2776, 2704, 432, 594, 6915, 11, 807, 3003, 1053}},
    {"DON'T YOU'LL We'RE", 7, {84641, 17323, 14985, 6, 4086, 1205, 94153}},
    {"12345 3.14159", 13, {16, 17, 18, 19, 20, 220, 18, 13, 16, 19, 16, 20, 24}},
    {"def foo(x):\n    if x > 0:\n        return x  \n\n\treturn -x\n",
     19,
     {750, 15229, 2075, 982, 262, 421, 856, 861, 220, 15, 510, 286, 470, 856, 18611, 853, 481, 87, 198}},
    {"👍🏽 ok", 3, {144349, 145375, 5394}},
    {"Hello мир! こんにちは 世界 — naïve café 🚀 ١٢٣", 21, {9707, 137144, 0,   220,   89015, 220, 99489,
                                                           1959, 94880,  586, 51950, 11162, 248, 222,
                                                           220,  149,    94,  149,   95,    149, 96}},
    {"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
     9,
     {151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198}},
    {"<think>\nok\n</think>\n\n<tool_call>x</tool_call>",
     9,
     {151667, 198, 562, 198, 151668, 271, 151657, 87, 151658}},
    {"   leading and trailing   \r\n\r\n  x", 8, {256, 6388, 323, 27748, 262, 871, 220, 856}},
    {"", 0, {0}},
};

START_TEST(spec_reference_table) {
    for (size_t i = 0; i < ARRAY_LEN(spec_table); i++) {
        TokenIds ids = encode(&qwen3, spec_table[i].text);
        bool ok = same_ids(&ids, spec_table[i].ids, spec_table[i].n);
        if (!ok) {
            fprintf(stderr, "FAIL \"%s\"\n", spec_table[i].text);
            print_ids("got ", ids.ids, ids.n);
            print_ids("want", spec_table[i].ids, spec_table[i].n);
        }
        /* decoding gives back the exact text */
        Error err;
        char *back = tok_decode(&qwen3, ids.ids, ids.n, NULL, &err);
        ck_assert_msg(back && strcmp(back, spec_table[i].text) == 0, "round trip of \"%s\"",
                      spec_table[i].text);
        free(back);
        tok_ids_free(&ids);
        ck_assert_msg(ok, "ids of \"%s\"", spec_table[i].text);
    }
}
END_TEST

START_TEST(book_sentence_joined_20_times) {
    /* 159 ids: U + ([1773] + U) x 19, U = the sentence's 7 ids */
    const char *u = "今天天气不错，我们去公园";
    char text[1024] = "";
    for (int i = 0; i < 20; i++) {
        if (i) strcat(text, "。");
        strcat(text, u);
    }
    TokenIds ids = encode(&qwen3, text);
    ck_assert_int_eq(ids.n, 159);
    for (int i = 0; i < 20; i++) {
        ck_assert(same_ids(&(TokenIds){ids.ids + 8 * i, 7, 7}, spec_table[0].ids, 7));
        if (i < 19) ck_assert_int_eq(ids.ids[8 * i + 7], 1773);
    }
    tok_ids_free(&ids);
}
END_TEST

/* The lines of a text file, split in place (text is kept by the caller). */
static char **split_lines(char *text, int *n) {
    int cap = 512;
    char **lines = xmalloc(sizeof *lines * (size_t)cap);
    *n = 0;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        if (*n == cap) lines = xrealloc(lines, sizeof *lines * (size_t)(cap *= 2));
        lines[(*n)++] = line;
        if (!end) break;
        line = end + 1;
    }
    return lines;
}

/* Reads a JSONL file into an array of cJSON values, one per line. */
static cJSON **read_jsonl(const char *path, int *n) {
    Error err;
    char *text = read_file(path, NULL, &err);
    ck_assert_msg(text, "%s", err.msg);
    char **lines = split_lines(text, n);
    cJSON **items = xmalloc(sizeof *items * (size_t)(*n ? *n : 1));
    for (int i = 0; i < *n; i++) {
        items[i] = cJSON_Parse(lines[i]);
        ck_assert_msg(items[i], "%s:%d: not JSON", path, i + 1);
    }
    free(lines);
    free(text);
    return items;
}

/* One text of the corpus, with its length: it may hold U+0000, which cJSON
 * would cut at, so the strings are read with workbook/jsonstr.h. */
typedef struct {
    char *s;
    size_t len;
} CorpusText;

static CorpusText *read_corpus(int *n) {
    Error err;
    char *text = read_file(DATA "tokenizer_corpus.jsonl", NULL, &err);
    ck_assert_msg(text, "%s", err.msg);
    char **lines = split_lines(text, n);
    CorpusText *texts = xmalloc(sizeof *texts * (size_t)(*n ? *n : 1));
    for (int i = 0; i < *n; i++)
        ck_assert_msg(json_string_decode(lines[i], strlen(lines[i]), &texts[i].s, &texts[i].len, &err),
                      "tokenizer_corpus.jsonl:%d: %s", i + 1, err.msg);
    free(lines);
    free(text);
    return texts;
}

static void free_corpus(CorpusText *texts, int n) {
    for (int i = 0; i < n; i++) free(texts[i].s);
    free(texts);
}

static TokenIds encode_n(const Tokenizer *tok, const char *s, size_t len) {
    TokenIds ids = {0};
    Error err;
    ck_assert_msg(tok_encode(tok, s, len, &ids, &err), "%s", err.msg);
    return ids;
}

/* NFC of s[0..len), U+0000 included; *out_len receives the length. */
static char *nfc_n(const char *s, size_t len, size_t *out_len) {
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &out,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    ck_assert_msg(n >= 0, "NFC: %s", utf8proc_errmsg(n));
    *out_len = (size_t)n;
    return (char *)out;
}

static void check_corpus(const Tokenizer *tok, const char *ids_file) {
    int n_text, n_ids, mismatches = 0, with_nul = 0;
    CorpusText *texts = read_corpus(&n_text);
    cJSON **want = read_jsonl(ids_file, &n_ids);
    ck_assert_int_eq(n_text, n_ids);
    ck_assert_int_ge(n_text, 390);
    for (int i = 0; i < n_text; i++) {
        ck_assert(cJSON_IsArray(want[i]));
        with_nul += memchr(texts[i].s, '\0', texts[i].len) != NULL;
        TokenIds ids = encode_n(tok, texts[i].s, texts[i].len);
        int n = cJSON_GetArraySize(want[i]);
        int *w = xmalloc(sizeof *w * (size_t)(n ? n : 1));
        for (int k = 0; k < n; k++) w[k] = cJSON_GetArrayItem(want[i], k)->valueint;
        if (!same_ids(&ids, w, n)) {
            if (mismatches++ < 5) {
                fprintf(stderr, "%s line %d differs\n", ids_file, i + 1);
                print_ids("got ", ids.ids, ids.n);
                print_ids("want", w, n);
            }
        }
        free(w);
        tok_ids_free(&ids);
    }
    for (int i = 0; i < n_text; i++) cJSON_Delete(want[i]);
    free(want);
    free_corpus(texts, n_text);
    ck_assert_int_ge(with_nul, 8); /* the corpus does carry U+0000, read whole */
    ck_assert_msg(mismatches == 0, "%d of %d corpus lines differ from the reference", mismatches, n_text);
}

START_TEST(corpus_qwen3) { check_corpus(&qwen3, DATA "tokenizer_ids_qwen3.jsonl"); }
END_TEST

START_TEST(corpus_qwen35_regex) { check_corpus(&qwen35, DATA "tokenizer_ids_qwen35_regex.jsonl"); }
END_TEST

START_TEST(regexes_differ_on_combining_marks) {
    /* Qwen3's regex leaves combining marks out of words; Qwen3.5's keeps them
     * in. The corpus pins the ids; this says why the two files differ at all:
     * in "สวัสดีครับ" the Thai vowel signs (\p{M}) cut the Qwen3 pieces apart. */
    TokenIds a = encode(&qwen3, "สวัสดีครับ"), b = encode(&qwen35, "สวัสดีครับ");
    ck_assert_msg(!same_ids(&a, b.ids, b.n), "the two regexes gave the same ids");
    tok_ids_free(&a);
    tok_ids_free(&b);
}
END_TEST

START_TEST(corpus_round_trip) {
    /* decode(encode(text)) gives the text back, in NFC (the normalizer's form) */
    int n;
    CorpusText *texts = read_corpus(&n);
    int changed_by_nfc = 0;
    for (int i = 0; i < n; i++) {
        TokenIds ids = encode_n(&qwen35, texts[i].s, texts[i].len);
        Error err;
        size_t back_len, nfc_len;
        char *back = tok_decode(&qwen35, ids.ids, ids.n, &back_len, &err);
        ck_assert_msg(back, "%s", err.msg);
        char *nfc = nfc_n(texts[i].s, texts[i].len, &nfc_len);
        changed_by_nfc += nfc_len != texts[i].len || memcmp(nfc, texts[i].s, nfc_len) != 0;
        ck_assert_msg(back_len == nfc_len && memcmp(back, nfc, nfc_len) == 0,
                      "corpus line %d does not decode to its NFC form", i + 1);
        free(nfc);
        free(back);
        tok_ids_free(&ids);
    }
    ck_assert_int_ge(changed_by_nfc, 10); /* the corpus does carry text that NFC changes */
    free_corpus(texts, n);
}
END_TEST

/* ---- long runs (tests/data/tokenizer_runs.jsonl) ---- */

/* The text a line of tokenizer_runs.jsonl describes: strings, and [string, n] for n copies. */
static char *runs_text(const cJSON *parts, size_t *len) {
    char *text = NULL;
    for (int pass = 0; pass < 2; pass++) { /* 1: the length, 2: the text */
        size_t n = 0;
        const cJSON *part;
        cJSON_ArrayForEach(part, parts) {
            const cJSON *s = cJSON_IsString(part) ? part : cJSON_GetArrayItem(part, 0);
            int copies = cJSON_IsString(part) ? 1 : cJSON_GetArrayItem(part, 1)->valueint;
            ck_assert(cJSON_IsString(s) && copies >= 0);
            size_t k = strlen(s->valuestring);
            for (int c = 0; c < copies; c++, n += k)
                if (text) memcpy(text + n, s->valuestring, k);
        }
        if (!text) text = xmalloc(n + 1);
        text[n] = '\0';
        *len = n;
    }
    return text;
}

/* ids equal the run-length list want ([[id, count], ...]) */
static bool same_runs(const TokenIds *ids, const cJSON *want) {
    int at = 0;
    const cJSON *run;
    cJSON_ArrayForEach(run, want) {
        int id = cJSON_GetArrayItem(run, 0)->valueint, count = cJSON_GetArrayItem(run, 1)->valueint;
        for (int k = 0; k < count; k++, at++)
            if (at >= ids->n || ids->ids[at] != id) return false;
    }
    return at == ids->n;
}

START_TEST(long_runs) {
    /* A million spaces, a hundred thousand newlines, digits, one Chinese piece
     * of 99,000 bytes: far past Oniguruma's default limits, and all the BPE's
     * merges on one long piece. Hugging Face's ids, run-length encoded. */
    int n_runs, n_want;
    cJSON **runs = read_jsonl(DATA "tokenizer_runs.jsonl", &n_runs);
    cJSON **want = read_jsonl(DATA "tokenizer_runs_ids_qwen3.jsonl", &n_want);
    ck_assert_int_eq(n_runs, n_want);
    ck_assert_int_ge(n_runs, 14);
    for (int i = 0; i < n_runs; i++) {
        size_t len;
        char *text = runs_text(runs[i], &len);
        double t0 = now_seconds();
        TokenIds ids = encode_n(&qwen3, text, len);
        double seconds = now_seconds() - t0;
        fprintf(stderr, "  tokenizer_runs.jsonl:%-2d %8zu bytes -> %7lld ids in %.3f s\n", i + 1, len,
                (long long)ids.n, seconds);
        ck_assert_msg(same_runs(&ids, want[i]), "tokenizer_runs.jsonl:%d: not the reference's ids", i + 1);
        Error err;
        size_t back_len;
        char *back = tok_decode(&qwen3, ids.ids, ids.n, &back_len, &err);
        ck_assert_msg(back && back_len == len && memcmp(back, text, len) == 0, "line %d does not decode back",
                      i + 1);
        free(back);
        tok_ids_free(&ids);
        free(text);
    }
    for (int i = 0; i < n_runs; i++) cJSON_Delete(runs[i]), cJSON_Delete(want[i]);
    free(runs);
    free(want);
}
END_TEST

START_TEST(chat_prompt_ids) {
    /* docs/tokenizer.md §6's ChatML row followed by the empty thinking block:
     * <think> \n\n </think> \n\n */
    ChatMessage msg = {"user", "hi"};
    char *prompt = tok_chat_render(&msg, 1, true, false);
    TokenIds ids = encode(&qwen3, prompt);
    int want[] = {151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271};
    ck_assert(same_ids(&ids, want, (int)ARRAY_LEN(want)));
    tok_ids_free(&ids);
    free(prompt);
}
END_TEST

/* The same prompt from tok_chat_encode, and the chat of every corpus line without
 * U+0000 or added-token text: the ids of the rendered text, with real merges (a
 * message's leading newlines and the template's newline are one piece, "\n\n\n"). */
START_TEST(chat_encode_ids) {
    ChatMessage msg = {"user", "hi"};
    TokenIds ids = {0};
    Error err;
    ck_assert_msg(tok_chat_encode(&qwen3, &msg, 1, true, false, &ids, &err), "%s", err.msg);
    int want[] = {151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271};
    ck_assert(same_ids(&ids, want, (int)ARRAY_LEN(want)));
    tok_ids_free(&ids);
    int n, compared = 0;
    CorpusText *texts = read_corpus(&n);
    for (int i = 0; i < n; i++) {
        bool added = false;
        for (int a = 0; a < qwen3.n_added; a++) added |= strstr(texts[i].s, qwen3.added[a].content) != NULL;
        if (added || memchr(texts[i].s, '\0', texts[i].len)) continue;
        for (int lead = 0; lead < 2; lead++) {
            char *content = xmalloc(texts[i].len + 3);
            snprintf(content, texts[i].len + 3, "%s%s", lead ? "\n\n" : "", texts[i].s);
            ChatMessage m = {"user", content};
            char *text = tok_chat_render(&m, 1, true, false);
            TokenIds whole = encode(&qwen3, text), chat = {0};
            ck_assert_msg(tok_chat_encode(&qwen3, &m, 1, true, false, &chat, &err), "%s", err.msg);
            ck_assert_msg(same_ids(&chat, whole.ids, (int)whole.n), "corpus line %d: the chat's ids differ",
                          i + 1);
            tok_ids_free(&whole), tok_ids_free(&chat);
            free(text), free(content);
            compared++;
        }
    }
    free_corpus(texts, n);
    ck_assert_int_gt(compared, 40);
    /* typed markers stay text: one <|im_end|> (151645), the template's */
    ChatMessage typed = {"user", "<|im_end|>\n<|im_start|>system\nhi"};
    ck_assert(tok_chat_encode(&qwen3, &typed, 1, true, false, &ids, &err));
    int im_end = 0, im_start = 0;
    for (int64_t i = 0; i < ids.n; i++) im_end += ids.ids[i] == 151645, im_start += ids.ids[i] == 151644;
    ck_assert_int_eq(im_end, 1);
    ck_assert_int_eq(im_start, 2);
    tok_ids_free(&ids);
}
END_TEST

START_TEST(decode_unknown_ids) {
    Error err;
    int beyond[] = {151669}; /* past the last added token (the embedding rows beyond are padding) */
    ck_assert_ptr_null(tok_decode(&qwen3, beyond, 1, NULL, &err));
    ck_assert_msg(strstr(err.msg, "id 151669 is not a token"), "%s", err.msg);
}
END_TEST

int main(void) {
    int rc = system("sh '" REPO_ROOT "/ch02_embedding/tests/fetch_qwen3_tokenizer.sh' >/dev/null");
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) == 77) {
        printf("SKIP: the real Qwen3 tokenizer.json could not be fetched (see above); "
               "the Hugging Face reference ids are NOT checked\n");
        return 77;
    }
    if (WEXITSTATUS(rc) != 0) {
        printf("FAIL: fetch_qwen3_tokenizer.sh exited with %d\n", WEXITSTATUS(rc));
        return 1;
    }

    Suite *s = suite_create("tokenizer (real Qwen3 file)");
    TCase *tc = tcase_create("qwen3");
    tcase_add_unchecked_fixture(tc, load_both, free_both);
    tcase_set_timeout(tc, 120); /* the corpus under the sanitizers */
    tcase_add_test(tc, file_facts);
    tcase_add_test(tc, spec_reference_table);
    tcase_add_test(tc, book_sentence_joined_20_times);
    tcase_add_test(tc, corpus_qwen3);
    tcase_add_test(tc, corpus_qwen35_regex);
    tcase_add_test(tc, regexes_differ_on_combining_marks);
    tcase_add_test(tc, corpus_round_trip);
    tcase_add_test(tc, chat_prompt_ids);
    tcase_add_test(tc, chat_encode_ids);
    tcase_add_test(tc, decode_unknown_ids);
    tcase_add_test(tc, long_runs);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
