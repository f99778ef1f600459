/* test_ch07_model — the whole-model demo, ch07_model, run as a reader runs it.
 *
 * On the tiny checkpoint (no tokenizer: prompts are --ids and the output is ids):
 *   - --dump holds embed, every layer's residual stream, final_norm and logits of
 *     the prompt, each against the PyTorch reference;
 *   - greedy generation is the same with 1 and 2 threads, on the readable path,
 *     and with --top-k 1 at any temperature;
 *   - a sampled run repeats itself with the same seed, whatever the thread count,
 *     and changes with the seed;
 *   - --save-state after k tokens and --load-state to go on gives exactly the
 *     tokens of one run (greedy and sampled), and a state saved when the context
 *     is full loads;
 *   - a state file from another model, a damaged one and a truncated one are refused
 *     with one line;
 *   - a checkpoint with a NaN weight stops generation with one line naming the logits,
 *     greedy or sampled, instead of printing a token.
 */
#include "ch07_demo.h"
#include "qwen/safetensors.h"

static SafeTensors golden;

/* The golden prompt as --ids. */
static char golden_ids[256];

static void setup(void) {
    demo_setup("test_ch07_model");
    golden_open(&golden);
    const Tensor *ids = st_find(&golden, "ids");
    for (int64_t i = 0, o = 0; i < ids->numel; i++)
        o += snprintf(golden_ids + o, sizeof golden_ids - (size_t)o, "%s%d", i ? "," : "",
                      (int)((const float *)ids->data)[i]);
}

static void teardown(void) {
    st_close(&golden);
    demo_teardown();
}

START_TEST(dump_matches_reference) {
    char args[1024];
    snprintf(args, sizeof args, "--ids %s -n 0 --dump %s/dump.safetensors", golden_ids, tmp);
    ck_assert_int_eq(run(args), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/dump.safetensors", tmp);
    SafeTensors d;
    Error err;
    ck_assert_msg(st_open(&d, path, &err), "%s", err.msg);
    int T = (int)golden_rows(&golden, "ids");
    const Tensor *cfg_vocab = st_find(&d, "logits");
    ck_assert(cfg_vocab && cfg_vocab->ndim == 2 && cfg_vocab->shape[0] == T);
    int64_t H = st_find(&d, "embed")->shape[1], V = cfg_vocab->shape[1];
    /* the demo's tensors against the reference, tolerances as in test_model.c */
    bool ok = golden_check(&golden, "ids", golden_f32(&d, "ids", T), T, 0, 0);
    ok &= golden_check(&golden, "embed", golden_f32(&d, "embed", T * H), T * H, 0, 0);
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "layer.%d", i);
        ok &= golden_check(&golden, name, golden_f32(&d, name, T * H), T * H, 2e-5, 1e-4);
    }
    ok &= golden_check(&golden, "final_norm", golden_f32(&d, "final_norm", T * H), T * H, 2e-5, 1e-4);
    ok &= golden_check(&golden, "logits", golden_f32(&d, "logits", T * V), T * V, 1e-4, 1e-4);
    ck_assert_msg(ok, "ch07_model --dump differs from the reference");
    st_close(&d);
}
END_TEST

START_TEST(greedy_everywhere_the_same) {
    char args[1024];
    snprintf(args, sizeof args, "--ids %s -n 12 --threads 2", golden_ids);
    char *two = generated(args);
    ck_assert_msg(strlen(two) > 12, "too little output: '%s'", two);
    snprintf(args, sizeof args, "--ids %s -n 12 --threads 1", golden_ids);
    char *one = generated(args);
    snprintf(args, sizeof args, "--ids %s -n 12 --reference", golden_ids);
    char *ref = generated(args);
    snprintf(args, sizeof args, "--ids %s -n 12 --temp 1.7 --top-k 1 --seed 5", golden_ids);
    char *k1 = generated(args);
    ck_assert_str_eq(one, two);
    ck_assert_str_eq(ref, two);
    ck_assert_str_eq(k1, two);
    printf("OK   greedy: '%s' on 1 and 2 threads, the readable path and top-k 1\n", two);
    free(one), free(two), free(ref), free(k1);
}
END_TEST

START_TEST(sampling_repeats_with_its_seed) {
    char args[1024];
    /* the tiny model's best token leads by far: a high temperature spreads the draws */
    snprintf(args, sizeof args, "--ids %s -n 24 --temp 8 --seed 11 --threads 2", golden_ids);
    char *a = generated(args);
    snprintf(args, sizeof args, "--ids %s -n 24 --temp 8 --seed 11 --threads 1", golden_ids);
    char *b = generated(args);
    snprintf(args, sizeof args, "--ids %s -n 24 --temp 8 --seed 12", golden_ids);
    char *c = generated(args);
    snprintf(args, sizeof args, "--ids %s -n 24", golden_ids);
    char *greedy = generated(args);
    ck_assert_str_eq(a, b);
    ck_assert_str_ne(a, c);
    ck_assert_str_ne(a, greedy);
    free(a), free(b), free(c), free(greedy);
}
END_TEST

/* One run of n + m tokens against n tokens, saved, then m more from the loaded state. */
static void check_continuation(const char *sampling) {
    char args[1024];
    snprintf(args, sizeof args, "--ids %s -n 20 %s", golden_ids, sampling);
    char *whole = generated(args);
    snprintf(args, sizeof args, "--ids %s -n 8 %s --save-state %s/state.safetensors", golden_ids, sampling,
             tmp);
    char *first = generated(args);
    snprintf(args, sizeof args, "--load-state %s/state.safetensors -n 12 %s", tmp, sampling);
    char *rest = generated(args);
    char *joined = xmalloc(strlen(first) + strlen(rest) + 1);
    strcpy(joined, first), strcat(joined, rest);
    ck_assert_msg(strcmp(joined, whole) == 0, "%s: saved + loaded gives '%s', one run '%s'", sampling, joined,
                  whole);
    printf("OK   save + load = one run (%s): '%s'\n", sampling[0] ? sampling : "greedy", whole);
    free(whole), free(first), free(rest), free(joined);
}

START_TEST(save_and_load_state) {
    check_continuation("");
    check_continuation("--temp 8 --top-p 0.9 --seed 3");
}
END_TEST

/* A run that fills the context: the tiny model with room for 12 positions. The last
 * token sampled is shown but not read (no position is left), so the saved state ends
 * before it — and loads, and samples that same token again. */
START_TEST(save_at_a_full_context) {
    char cmd[2048], path[512];
    snprintf(cmd, sizeof cmd,
             "cp -r '%s' %s/short && sed -i 's/\"max_position_embeddings\":[[:space:]]*4096/"
             "\"max_position_embeddings\": 12/' %s/short/config.json",
             tiny, tmp, tmp);
    ck_assert_int_eq(system(cmd), 0);
    const char *saved_tiny = tiny;
    char short_dir[512];
    snprintf(short_dir, sizeof short_dir, "%s/short", tmp);
    tiny = short_dir;
    snprintf(path, sizeof path, "%s/full.safetensors", tmp);
    snprintf(cmd, sizeof cmd, "--ids 1,2,3,4,5,6,7,8,9,10 -n 20 --save-state %s", path);
    char *first = generated(cmd); /* 2 tokens read after the 10 of the prompt, a third shown */
    snprintf(cmd, sizeof cmd, "--load-state %s -n 5", path);
    char *again = generated(cmd); /* the context is still full: one token, the same */
    tiny = saved_tiny;
    ck_assert_msg(strlen(first) > 0 && strcmp(strrchr(first, ' '), again) == 0,
                  "a full context: the run ends with '%s', the loaded state gives '%s'", first, again);
    int shown = 0;
    for (const char *c = first; *c; c++) shown += *c == ' ';
    ck_assert_int_eq(shown, 3); /* " id id id" */
    free(first), free(again);
}
END_TEST

START_TEST(bad_states) {
    char args[2048], path[512], other[512];
    snprintf(path, sizeof path, "%s/good.safetensors", tmp);
    snprintf(args, sizeof args, "--ids %s -n 2 --save-state %s", golden_ids, path);
    free(generated(args));

    /* another model: the tiny one with a bigger vocabulary */
    snprintf(other, sizeof other, "%s/other", tmp);
    snprintf(args, sizeof args, "%s --size tiny --vocab 2048 --out %s > /dev/null 2>&1", synth, other);
    ck_assert_int_eq(system(args), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s --model %s --load-state %s -n 1 > %s/out 2> %s/err", demo, other, path, tmp,
             tmp);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 1);
    char *err = slurp("err");
    ck_assert_msg(strstr(err, "the state of another model"), "%s", err);
    free(err);

    /* cut short */
    Error e;
    size_t len;
    char *bytes = read_file(path, &len, &e);
    ck_assert(bytes);
    char cut[512];
    snprintf(cut, sizeof cut, "%s/cut.safetensors", tmp);
    ck_assert(write_file(cut, bytes, len / 2, &e));
    snprintf(args, sizeof args, "--load-state %s -n 1", cut);
    expect_refused(args, "cut.safetensors");
    /* not a safetensors file at all */
    ck_assert(write_file(cut, "hello", 5, &e));
    expect_refused(args, "cut.safetensors");
    free(bytes);
}
END_TEST

START_TEST(bad_flags) {
    expect_refused("--ids 1,2,1024 -n 1", "outside the vocabulary");
    expect_refused("--ids 1,2 -n -1", "-n needs a whole number");
    expect_refused("--ids 1,2 --temp -0.5", "--temp needs a decimal number such as 0.7");
    expect_refused("--ids 1,2 --temp 0x10", "--temp needs a decimal number such as 0.7"); /* not 16 */
    expect_refused("--ids 1,2 --temp inf", "--temp needs a decimal number");
    expect_refused("--ids 1,2 --temp 1e39", "--temp must be at most");
    expect_refused("--ids 1,2 --top-p 0x1p-1", "--top-p needs a decimal number");
    expect_refused("--ids 1,2 --top-p 0", "--top-p must be in (0, 1]");
    expect_refused("--ids 1,2 --top-p 1.5", "--top-p must be in (0, 1]");
    expect_refused("--ids 1,2 --top-k -1", "--top-k needs a whole number");
    expect_refused("--ids 1,2 --threads 0", "--threads needs a whole number");
    expect_refused("--prompt ''", "the prompt is empty");
    expect_refused("--prompt hello", "has no tokenizer.json");
    expect_refused("--think --ids 1", "--think goes with --chat");
    expect_refused("--prompt a --ids 1", "one at a time");
    expect_refused("--frobnicate", "unknown option");
    expect_refused("--save-state nowhere.st", "--save-state saves a run: give --prompt TEXT"); /* the walkthrough */
    /* --dump needs a prompt: the walkthrough, or a loaded state alone, would write nothing */
    char dump_args[1024], dump_path[512];
    snprintf(dump_path, sizeof dump_path, "%s/nothing.safetensors", tmp);
    snprintf(dump_args, sizeof dump_args, "--dump %s", dump_path);
    expect_refused(dump_args, "--dump writes the tensors of a prompt: give --prompt TEXT or --ids 1,2,3");
    snprintf(dump_args, sizeof dump_args, "-n 0 --load-state %s/good.safetensors --dump %s", tmp, dump_path);
    expect_refused(dump_args, "--dump writes the tensors of a prompt");
    ck_assert_msg(!is_file(dump_path), "a refused --dump wrote %s", dump_path);
    /* a prompt beyond the context (4096 positions in the tiny config) */
    size_t n = 4097 * 2 + 16;
    char *args = xmalloc(n + 32), *p = args + sprintf(args, "-n 0 --ids ");
    for (int i = 0; i < 4097; i++) p += sprintf(p, i ? ",1" : "1");
    expect_refused(args, "the context holds 4096");
    free(args);
}
END_TEST

/* A copy of the tiny checkpoint in tmp/name whose tensor `tensor` starts with the
 * BF16 value `bits` (0x7FC0: NaN). */
static void poisoned_copy(const char *name, const char *tensor, uint16_t bits) {
    char cmd[2048], dir[512], shard[640];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r '%s' %s", dir, tiny, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(shard, sizeof shard, "%s/model.safetensors-00001-of-00001.safetensors", dir);
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, shard, &err), "%s", err.msg);
    const Tensor *t = st_find(&st, tensor);
    ck_assert_msg(t && t->dtype == DTYPE_BF16, "%s", tensor);
    long offset = (long)((const char *)t->data - (const char *)st.map);
    st_close(&st);
    FILE *f = fopen(shard, "r+b");
    ck_assert(f && fseek(f, offset, SEEK_SET) == 0);
    unsigned char le[2] = {(unsigned char)(bits & 0xFF), (unsigned char)(bits >> 8)};
    ck_assert(fwrite(le, 1, 2, f) == 2 && fclose(f) == 0);
}

START_TEST(nonfinite_logits_stop) {
    poisoned_copy("nan", "model.language_model.norm.weight", 0x7FC0);
    const char *saved_tiny = tiny;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/nan", tmp);
    tiny = dir;
    expect_refused("--ids 1,2,3 -n 4", "the logits after 3 tokens are NaN");
    expect_refused("--ids 1,2,3 -n 4 --temp 1e7 --top-p 1e-6",
                   "the weights or the state hold numbers that are not finite");
    expect_refused("--ids 1,2,3 -n 4 --temp 0.8 --top-k 5", "the logits after 3 tokens are NaN");
    tiny = saved_tiny;
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch07_model");
    TCase *tc = tcase_create("demo");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, dump_matches_reference);
    tcase_add_test(tc, greedy_everywhere_the_same);
    tcase_add_test(tc, sampling_repeats_with_its_seed);
    tcase_add_test(tc, save_and_load_state);
    tcase_add_test(tc, save_at_a_full_context);
    tcase_add_test(tc, bad_states);
    tcase_add_test(tc, bad_flags);
    tcase_add_test(tc, nonfinite_logits_stop);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
