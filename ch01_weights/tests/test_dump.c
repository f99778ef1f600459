/* test_dump.c — `ch01_weights --dump FILE TENSOR...` on the tiny checkpoint.
 *
 * The demo writes the named weights as float32 safetensors, so anyone can load them
 * in PyTorch. Read back, each must have the checkpoint tensor's shape and exactly
 * its values: BF16 -> float32 only appends 16 zero bits, so the comparison allows
 * no difference at all (atol = rtol = 0). As an anchor outside our own code, A_log
 * must hold what common/workbook/synthetic.h says the synthetic checkpoint stores:
 * log(0.001 · 1300^(h / (n − 1))) for head h of n.
 */
#include <math.h>

#include "helpers.h"
#include "qwen/weights.h"
#include "tests/compare.h"

static char *scratch, *demo, *out_txt, *err_txt;
static const char *tiny;

static void setup(void) {
    scratch = scratch_dir();
    demo = chapter_binary("ch01_weights");
    tiny = getenv("TINY");
    ck_assert_msg(tiny && is_dir(tiny), "$TINY is not the tiny checkpoint folder (run through make test)");
    out_txt = in_dir(scratch, "stdout.txt");
    err_txt = in_dir(scratch, "stderr.txt");
}

static void teardown(void) {
    scratch_remove(scratch);
    free(scratch);
    free(demo);
    free(out_txt);
    free(err_txt);
}

START_TEST(dumped_tensors_read_back_exactly) {
    char *file = in_dir(scratch, "dump.safetensors");
    /* short names and the stored (prefixed) name both work; F32 and BF16; 1-D to 3-D */
    static const char *const names[] = {
        "layers.0.linear_attn.A_log",                              /* F32 [4] */
        "model.language_model.layers.0.linear_attn.conv1d.weight", /* BF16 [128, 1, 4] */
        "embed_tokens.weight",                                     /* BF16 [1024, 64] */
        "layers.3.self_attn.q_norm.weight",                        /* BF16 [32] */
        "layers.1.linear_attn.norm.weight",                        /* F32 [16] */
    };
    enum { N = 5 };
    char *argv[6 + N] = {demo, "--model", (char *)tiny, "--dump", file};
    for (int i = 0; i < N; i++) argv[5 + i] = (char *)names[i];
    int rc = run_program(argv, out_txt, err_txt);
    char *err_text = slurp(err_txt, NULL);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err_text);
    ck_assert_msg(strstr(err_text, "5 个张量（float32）已写到 ") && strstr(err_text, file), "stderr: %s",
                  err_text);
    free(err_text);

    Checkpoint ck;
    SafeTensors st;
    Error err;
    ck_assert_msg(ckpt_open(&ck, tiny, &err), "%s", err.msg);
    ck_assert_msg(st_open(&st, file, &err), "%s", err.msg);
    ck_assert_int_eq(st.count, N);
    for (int i = 0; i < N; i++) {
        const char *short_name = ckpt_text_name(names[i]);
        const Tensor *want = ckpt_find(&ck, short_name), *got = st_find(&st, short_name);
        ck_assert_msg(got != NULL, "%s is not in the dump (stored under the workbook's short name)",
                      short_name);
        ck_assert_int_eq(got->dtype, DTYPE_F32);
        ck_assert_int_eq(got->ndim, want->ndim);
        ck_assert_mem_eq(got->shape, want->shape, (size_t)want->ndim * sizeof want->shape[0]);
        float *w = xmalloc((size_t)want->numel * sizeof(float));
        tensor_read_f32(want, 0, want->numel, w);
        char shape[96] = "";
        for (int d = 0; d < want->ndim; d++) /* "128 x 1 x 4", as compare.h prints shapes */
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", d ? " x " : "",
                     (long long)want->shape[d]);
        ck_assert(compare_f32(short_name, shape, got->data, w, want->numel, 0, 0, NULL));
        free(w);
    }
    /* A_log of 4 heads: log(0.001) for head 0 up to log(1.3) for head 3; float32
     * rounding of the double expression allows ~1 ulp */
    const Tensor *a = st_find(&st, "layers.0.linear_attn.A_log");
    const float *v = a->data;
    for (int h = 0; h < 4; h++) {
        double want = log(0.001 * pow(1300.0, h / 3.0));
        ck_assert_msg(fabs(v[h] - want) <= 1e-6 * fabs(want) + 1e-7, "A_log[%d] = %.9g, want %.9g", h, v[h],
                      want);
    }
    /* the gated-norm weight is drawn around 1 (used without "1 +"): 1 ± 0.1 */
    const Tensor *g = st_find(&st, "layers.1.linear_attn.norm.weight");
    for (int i = 0; i < 16; i++) ck_assert(fabsf(((const float *)g->data)[i] - 1.0f) <= 0.1f);
    st_close(&st);
    ckpt_close(&ck);
    free(file);
}
END_TEST

/* A name the checkpoint does not have: one line naming it, and no file written. */
START_TEST(unknown_tensor_is_one_clear_error) {
    static const char *const names[] = {"layers.0.mlp.no_such_proj.weight", "mtp.fc.weight",
                                        "model.visual.blocks.0.norm1.weight", "lm_head.weight"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        char *file = in_dir(scratch, "dump.safetensors");
        char *argv[] = {demo, "--model", (char *)tiny, "--dump", file, "norm.weight", (char *)names[i], NULL};
        int rc = run_program(argv, out_txt, err_txt);
        char *err_text = slurp(err_txt, NULL);
        ck_assert_msg(rc != 0, "--dump %s succeeded", names[i]);
        ck_assert_msg(count_lines(err_text) == 1, "stderr is not one line:\n%s", err_text);
        ck_assert_msg(strstr(err_text, names[i]) && strstr(err_text, tiny), "stderr: %s", err_text);
        ck_assert_msg(!is_file(file), "a dump was written although %s does not exist", names[i]);
        free(err_text);
        free(file);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("dump");
    TCase *c = tcase_with_scratch("dump");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_test(c, dumped_tensors_read_back_exactly);
    tcase_add_test(c, unknown_tensor_is_one_clear_error);
    suite_add_tcase(s, c);
    return run_suite(s);
}
