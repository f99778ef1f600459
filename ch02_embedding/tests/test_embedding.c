/* Embedding look-up and the tied output head, on the tiny synthetic checkpoint
 * (common/workbook/synthetic.h, deterministic values), against the independent PyTorch
 * reference reference/golden/tiny_forward.safetensors (reference/README.md):
 * its "embed" is E[ids] and its "logits" is final_norm · Eᵀ, both computed in
 * float64 from the same stored weights. Also the demo's --dump file. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/embedding.h"
#include "qwen/model.h"
#include "qwen/safetensors.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "workbook/synthetic.h"
#include "tests/check_main.h"

#define TINY_TOKENIZER REPO_ROOT "/ch02_embedding/tests/data/tiny_tokenizer.json"

static Model model;
static const Checkpoint *ck = &model.ck;
static SafeTensors golden;
static Embedding emb;
static char *dir;

static void setup(void) {
    const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
    dir = path_join(REPO_ROOT, build);
    char *tiny = path_join(dir, "ch02_tiny");
    free(dir);
    dir = tiny;
    SynthOptions o = {.n_shards = 1, .tokenizer = TINY_TOKENIZER};
    synth_config_tiny(&o.config);
    Error err;
    if (!synth_write(dir, &o, &err) || !model_open(&model, dir, &err) ||
        !emb_init(&emb, model.embed_tokens, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    golden_open(&golden);
}

static void teardown(void) {
    model_close(&model);
    st_close(&golden);
    free(dir);
}

START_TEST(shape) {
    ck_assert_int_eq(emb.vocab, ck->config.vocab_size);
    ck_assert_int_eq(emb.hidden, ck->config.hidden_size);
    ck_assert(model.tied); /* no lm_head.weight: the head is this table */
}
END_TEST

START_TEST(lookup_matches_reference) {
    int64_t n_ids = golden_rows(&golden, "ids"), n_embed = n_ids * emb.hidden;
    const float *ids_f = golden_f32(&golden, "ids", n_ids), *want = golden_f32(&golden, "embed", n_embed);
    int ids[64];
    for (int i = 0; i < n_ids; i++) ids[i] = (int)ids_f[i];
    float *got = xmalloc(sizeof *got * (size_t)n_embed); /* [T, hidden] */
    Error err;
    ck_assert_msg(emb_lookup(&emb, ids, (int)n_ids, got, &err), "%s", err.msg);
    /* BF16 -> float32 is exact, and so is the golden's float64 -> float32: no tolerance */
    ck_assert(compare_f32("embed", "T x hidden", got, want, n_embed, 0, 0, NULL));
    free(got);
}
END_TEST

START_TEST(tied_head_matches_reference) {
    int T = (int)golden_rows(&golden, "final_norm");
    int64_t n_logits = (int64_t)T * emb.vocab;
    const float *h = golden_f32(&golden, "final_norm", (int64_t)T * emb.hidden);
    const float *want = golden_f32(&golden, "logits", n_logits);
    float *got = xmalloc(sizeof *got * (size_t)n_logits); /* [T, vocab] */
    /* 64-term float32 dot products of O(1) values against float64: relative
     * rounding ~1e-6 of terms up to ~10, so 1e-4 absolute is ample and a wrong
     * row or a missing term (errors of order 0.1) still fails. Both paths, all T
     * at once and one token at a time. */
    for (int path = PATH_FAST; path <= PATH_READABLE; path++) {
        emb_logits(&emb, h, T, got, (Path)path);
        ck_assert(compare_f32("logits", "T x vocab", got, want, n_logits, 1e-4, 1e-5, NULL));
        for (int t = 0; t < T; t++)
            emb_logits(&emb, h + (int64_t)t * emb.hidden, 1, got + (int64_t)t * emb.vocab, (Path)path);
        ck_assert(compare_f32("logits token by token", "T x vocab", got, want, n_logits, 1e-4, 1e-5, NULL));
    }
    free(got);
}
END_TEST

START_TEST(bad_ids_and_tables) {
    float out[2 * 64];
    Error err;
    int too_big[] = {1, 1024};
    ck_assert(!emb_lookup(&emb, too_big, 2, out, &err));
    ck_assert_msg(strstr(err.msg, "id 1024 is outside the embedding table's 1024 rows"), "%s", err.msg);
    int negative[] = {-1};
    ck_assert(!emb_lookup(&emb, negative, 1, out, &err));

    Embedding e;
    const Tensor *norm = model.norm; /* 1-D: not a table */
    ck_assert(!emb_init(&e, norm, &err));
    ck_assert_msg(strstr(err.msg, "2-D"), "%s", err.msg);
    ck_assert(!emb_init(&e, NULL, &err));
}
END_TEST

START_TEST(demo_dump) {
    /* The demo embeds "abc 你" = ids 257 (abc), 32 (space), 264 (你) in the
     * hand-made tokenizer, and --dump writes exactly those rows. */
    char *dump = path_join(dir, "dump.safetensors"), cmd[4096];
    const char *bindir = getenv("BINDIR") ? getenv("BINDIR") : "";
    snprintf(cmd, sizeof cmd,
             "%sch02_embedding/ch02_embedding --model '%s' --text 'abc 你' --dump '%s' >/dev/null", bindir,
             dir, dump);
    ck_assert_int_eq(system(cmd), 0);
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, dump, &err), "%s", err.msg);
    const Tensor *ids = st_find(&st, "ids"), *x = st_find(&st, "embed");
    ck_assert(ids && x && ids->dtype == DTYPE_F32 && x->dtype == DTYPE_F32);
    ck_assert(ids->ndim == 1 && ids->shape[0] == 3);
    ck_assert(x->ndim == 2 && x->shape[0] == 3 && x->shape[1] == emb.hidden);
    const float *id_values = ids->data;
    ck_assert(id_values[0] == 257 && id_values[1] == 32 && id_values[2] == 264);
    int want_ids[] = {257, 32, 264};
    float *want = xmalloc(sizeof *want * 3 * (size_t)emb.hidden); /* [3, hidden] */
    ck_assert(emb_lookup(&emb, want_ids, 3, want, &err));
    ck_assert(compare_f32("dumped embed", "3 x hidden", x->data, want, 3 * emb.hidden, 0, 0, NULL));
    free(want);
    st_close(&st);
    free(dump);
}
END_TEST

START_TEST(norm_by_hand) {
    float row[] = {3, 4, 0, 12}; /* sqrt(9 + 16 + 144) = 13 */
    ck_assert_float_eq(emb_norm(row, 4), 13.0f);
}
END_TEST

int main(void) {
    Suite *s = suite_create("embedding");
    TCase *tc = tcase_create("tiny checkpoint");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, shape);
    tcase_add_test(tc, lookup_matches_reference);
    tcase_add_test(tc, tied_head_matches_reference);
    tcase_add_test(tc, bad_ids_and_tables);
    tcase_add_test(tc, demo_dump);
    tcase_add_test(tc, norm_by_hand);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
