/* test_ch07_quant — ch07_model --quant, run as a reader runs it, on the tiny checkpoint.
 *
 *   - --quant takes bf16 or q8_0 and nothing else: each other value is refused with one
 *     line listing the two; --quant bf16 is the default to the last bit (the same
 *     generated ids and the same --dump, tensor for tensor);
 *   - --quant q8_0 generates, says on its summary line what it ran on and how long the
 *     weights took to make, and --dump writes every tensor: the embedding rows exactly
 *     the checkpoint's (the look-up keeps them), the logits near but not equal to the
 *     checkpoint's weights' (a run that ignored the flag would give them equal);
 *   - --threads 1, 2, 3 give the same ids and the same --dump, bit for bit;
 *   - a conversation saved and loaded goes on as one run: 3 tokens, saved, then 5
 *     more, are the 8 tokens of one run (greedy); --interactive keeps its state the same
 *     way; a state records the weights that made it (its metadata), and a run on the
 *     other kind refuses it with one line naming the file and both kinds, both ways;
 *   - --max-memory knows the packed weights: a limit that the checkpoint's weights fit
 *     and the 8-bit ones do not (they are allocated; the file is mapped) refuses the
 *     8-bit run with one line, and lets the other run;
 *   - --reference --quant q8_0 runs the readable 8-bit product; the walkthrough says
 *     which weights it runs on.
 */
#include <math.h>

#include "ch07_demo.h"
#include "qwen/model.h"
#include "qwen/safetensors.h"

static void setup(void) { demo_setup("test_ch07_quant"); }
static void teardown(void) { demo_teardown(); }

/* The float32 tensor name of the safetensors file path, copied ([*n] values). */
static float *tensor_of(const char *path, const char *name, int64_t *n) {
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    const Tensor *t = st_find(&st, name);
    ck_assert_msg(t && t->dtype == DTYPE_F32, "%s: no F32 tensor %s", path, name);
    float *v = xmalloc(sizeof(float) * (size_t)t->numel);
    memcpy(v, t->data, sizeof(float) * (size_t)t->numel);
    *n = t->numel;
    st_close(&st);
    return v;
}

/* Whether the two dumps hold the same bits in every tensor (and the same tensors). */
static bool same_dump(const char *a, const char *b) {
    SafeTensors x, y;
    Error err;
    ck_assert_msg(st_open(&x, a, &err), "%s", err.msg);
    ck_assert_msg(st_open(&y, b, &err), "%s", err.msg);
    bool same = x.count == y.count;
    for (int i = 0; same && i < x.count; i++) {
        const Tensor *t = &x.tensors[i], *u = st_find(&y, t->name);
        same = u && u->numel == t->numel && memcmp(t->data, u->data, (size_t)t->numel * 4) == 0;
    }
    st_close(&x), st_close(&y);
    return same;
}

static char *stderr_of(const char *args) {
    free(generated(args));
    return slurp("err");
}

START_TEST(only_bf16_and_q8_0) {
    const char *bad[] = {"q4_0", "Q8_0", "q8_0x", "q8", "'bf16 '", "''", "f32", "q8_0,bf16"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char args[256];
        snprintf(args, sizeof args, "--ids 1,2 --quant %s", bad[i]);
        expect_refused(args, "--quant takes one of bf16, q8_0, got '");
    }
    expect_refused("--ids 1,2 --quant", "--quant needs a value");
    expect_refused("--ids 1,2 --quant=Q8_0", "--quant takes one of bf16, q8_0, got 'Q8_0'");
}
END_TEST

START_TEST(bf16_is_the_default) {
    char args[512];
    snprintf(args, sizeof args, "--ids 3,14,15,92 -n 6 --dump %s", at("default.st"));
    char *a = generated(args);
    snprintf(args, sizeof args, "--ids 3,14,15,92 -n 6 --quant bf16 --dump %s", at("bf16.st"));
    char *b = generated(args);
    ck_assert_str_eq(a, b);
    ck_assert(same_dump(at("default.st"), at("bf16.st")));
    char *err = slurp("err");
    ck_assert_msg(!strstr(err, "量化"), "a bf16 run speaks of quantization: %s", err);
    free(a), free(b), free(err);
}
END_TEST

START_TEST(q8_0_generates_and_dumps) {
    char args[512];
    snprintf(args, sizeof args, "--ids 3,14,15,92 -n 6 --dump %s", at("b.st"));
    free(generated(args));
    snprintf(args, sizeof args, "--ids 3,14,15,92 -n 6 --quant q8_0 --dump %s", at("q.st"));
    char *err = stderr_of(args);
    ck_assert_msg(strstr(err, "（q8_0，量化用了 "), "the summary line does not say so: %s", err);
    free(err);
    int64_t n, m;
    float *e8 = tensor_of(at("q.st"), "embed", &n), *e16 = tensor_of(at("b.st"), "embed", &m);
    ck_assert(n == m && memcmp(e8, e16, sizeof(float) * (size_t)n) == 0); /* the exact rows */
    float *l8 = tensor_of(at("q.st"), "logits", &n), *l16 = tensor_of(at("b.st"), "logits", &m);
    ck_assert(n == m);
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++)
        d += ((double)l8[i] - l16[i]) * ((double)l8[i] - l16[i]), s += (double)l16[i] * l16[i];
    double rel = sqrt(d / s);
    printf("ok   --quant q8_0 --dump: logits %.4f (relative RMS) from the checkpoint's weights'\n", rel);
    ck_assert_msg(rel > 0 && rel < 0.1, "logits %.4g from bf16's (test_model_q8 bounds them)", rel);
    free(e8), free(e16), free(l8), free(l16);
}
END_TEST

START_TEST(any_worker_count) {
    char *first = NULL;
    for (int t = 1; t <= 3; t++) {
        char args[512], name[32];
        snprintf(name, sizeof name, "t%d.st", t);
        snprintf(args, sizeof args, "--ids 3,14,15,92,65,35 -n 8 --quant q8_0 --threads %d --dump %s", t,
                 at(name));
        char *out = generated(args);
        if (!first)
            first = out;
        else {
            ck_assert_msg(strcmp(first, out) == 0, "--threads %d: %s, 1 thread: %s", t, out, first);
            ck_assert_msg(same_dump(at("t1.st"), at(name)), "--threads %d: the dump differs", t);
            free(out);
        }
    }
    free(first);
}
END_TEST

/* The ids of the generated text (" 1 2 3") as a string without the leading blank. */
static char *continuation(const char *args) { return generated(args); }

START_TEST(saved_and_loaded_is_one_run) {
    char args[1024];
    char *whole = continuation("--ids 3,14,15,92,65 -n 8 --quant q8_0");
    snprintf(args, sizeof args, "--ids 3,14,15,92,65 -n 3 --quant q8_0 --save-state %s", at("q8.st"));
    char *first = continuation(args);
    snprintf(args, sizeof args, "--load-state %s -n 5 --quant q8_0", at("q8.st"));
    char *rest = continuation(args);
    char joined[512];
    snprintf(joined, sizeof joined, "%s%s", first, rest);
    ck_assert_msg(strcmp(joined, whole) == 0, "saved and loaded: '%s' + '%s'; one run: '%s'", first, rest,
                  whole);
    /* the state says which weights made it */
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, at("q8.st"), &err), "%s", err.msg);
    ck_assert_msg(st_metadata(&st, "workbook.weights") &&
                      strcmp(st_metadata(&st, "workbook.weights"), "q8_0") == 0,
                  "the state records no q8_0");
    st_close(&st);
    free(whole), free(first), free(rest);
}
END_TEST

START_TEST(a_state_of_the_other_kind_is_refused) {
    char args[1024], want[1024];
    snprintf(args, sizeof args, "--ids 3,14,15 -n 2 --quant q8_0 --save-state %s", at("made_q8.st"));
    free(generated(args));
    snprintf(args, sizeof args, "--ids 3,14,15 -n 2 --save-state %s", at("made_bf16.st"));
    free(generated(args));
    snprintf(args, sizeof args, "--load-state %s -n 2", at("made_q8.st"));
    snprintf(want, sizeof want, "%s: a state made with q8_0 weights, and this run has bf16 weights",
             at("made_q8.st"));
    expect_refused(args, want);
    snprintf(args, sizeof args, "--load-state %s -n 2 --quant q8_0", at("made_bf16.st"));
    snprintf(want, sizeof want, "%s: a state made with bf16 weights, and this run has q8_0 weights",
             at("made_bf16.st"));
    expect_refused(args, want);
    /* a state of an unknown kind (the metadata rewritten): refused, the value escaped */
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, at("made_q8.st"), &err), "%s", err.msg);
    size_t header = (size_t)((const char *)st.tensors[0].data - (const char *)st.map);
    char *bytes = xmalloc(st.size);
    memcpy(bytes, st.map, st.size);
    size_t size = st.size;
    st_close(&st);
    char *q = memmem(bytes, header, "\"q8_0\"", 6);
    ck_assert(q);
    memcpy(q, "\"q\x1b_0\"", 6);
    ck_assert(write_file(at("odd.st"), bytes, size, &err));
    free(bytes);
    snprintf(args, sizeof args, "--load-state %s -n 2 --quant q8_0", at("odd.st"));
    expect_refused(args, "made with weights \"q\\x1b_0\", which are none of bf16, q8_0");
}
END_TEST

START_TEST(interactive_keeps_its_state) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cp -r '%s' %s && cp " REPO_ROOT
             "/ch02_embedding/tests/data/tiny_tokenizer.json %s/tokenizer.json",
             tiny, at("tok"), at("tok"));
    ck_assert(system(cmd) == 0);
    const char *saved = tiny;
    tiny = at("tok");
    Error err;
    ck_assert(write_file(at("lines.txt"), "abc\nxyz\n", 8, &err));
    char args[1024];
    snprintf(args, sizeof args, "--interactive -n 2 --quant q8_0 --save-state %s < %s", at("chat.st"),
             at("lines.txt"));
    free(generated(args));
    snprintf(args, sizeof args, "--interactive -n 2 --quant q8_0 --load-state %s --save-state %s < %s",
             at("chat.st"), at("chat.st"), at("lines.txt"));
    free(generated(args));
    snprintf(args, sizeof args, "--interactive -n 2 --load-state %s < %s", at("chat.st"), at("lines.txt"));
    char want[1024];
    snprintf(want, sizeof want, "%s: a state made with q8_0 weights", at("chat.st"));
    expect_refused(args, want);
    tiny = saved;
}
END_TEST

/* The memory the two runs need, from the library's own estimate: a limit between them. */
START_TEST(max_memory_counts_the_packed_weights) {
    Model m;
    Error err;
    ck_assert_msg(model_open(&m, tiny, &err), "%s", err.msg);
    uint64_t bf16 = run_bytes(&m, 256, 5);
    ck_assert_msg(model_quantize(&m, QUANT_Q8_0, &err), "%s", err.msg);
    uint64_t q8 = run_bytes(&m, 256, 5);
    model_close(&m);
    ck_assert(q8 > bf16);
    uint64_t limit = bf16 + (q8 - bf16) / 2;
    char args[512];
    snprintf(args, sizeof args, "--ids 3,14,15 -n 2 --max-memory %llu", (unsigned long long)limit);
    free(generated(args));
    snprintf(args, sizeof args, "--ids 3,14,15 -n 2 --quant q8_0 --max-memory %llu",
             (unsigned long long)limit);
    expect_refused(args, "would need about");
    printf(
        "ok   --max-memory %llu: the checkpoint's weights run (%llu bytes), the 8-bit ones (%llu) do not\n",
        (unsigned long long)limit, (unsigned long long)bf16, (unsigned long long)q8);
}
END_TEST

START_TEST(reference_and_walkthrough) {
    char *err = stderr_of("--ids 3,14,15 -n 2 --quant q8_0 --reference");
    ck_assert_msg(strstr(err, "q8_0") && strstr(err, "--reference"), "%s", err);
    free(err);
    int rc = run("--quant q8_0 -n 2");
    char *out = slurp("out");
    ck_assert_msg(rc == 0, "walkthrough with --quant q8_0: exit %d", rc);
    ck_assert_msg(strstr(out, "--quant q8_0：每个投影矩阵和输出层换成 8 位整数"), "%s", out);
    free(out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch07_model --quant");
    TCase *tc = tcase_create("quant");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, only_bf16_and_q8_0);
    tcase_add_test(tc, bf16_is_the_default);
    tcase_add_test(tc, q8_0_generates_and_dumps);
    tcase_add_test(tc, any_worker_count);
    tcase_add_test(tc, saved_and_loaded_is_one_run);
    tcase_add_test(tc, a_state_of_the_other_kind_is_refused);
    tcase_add_test(tc, interactive_keeps_its_state);
    tcase_add_test(tc, max_memory_counts_the_packed_weights);
    tcase_add_test(tc, reference_and_walkthrough);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
