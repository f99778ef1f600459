/* test_ch07_dump — the demo end to end against the PyTorch reference.
 *
 * Runs ch07_deltanet on the tiny checkpoint with the reference's token ids
 * (reference/golden/tiny_forward.safetensors, "ids") and --dump, then:
 *   - every tensor it dumped for the short text (the layer's input after the
 *     embedding and input_layernorm, every intermediate, the output, the tables)
 *     equals the reference's;
 *   - the gates line it printed (decay and β ranges) is what the reference's g and
 *     β give;
 *   - the long text begins with the short one, so its first rows of input and
 *     output are the short text's, bit for bit: the layer is causal, a token's
 *     output does not depend on what comes after it.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qwen/safetensors.h"
#include "tests/compare.h"
#include "workbook/util.h"
#include "tests/check_main.h"

#define GOLDEN REPO_ROOT "/reference/golden/tiny_forward.safetensors"

static SafeTensors golden, dumped;
static char stdout_text[8192];
static char dump_path[256];

static const Tensor *find(const SafeTensors *st, const char *name) {
    const Tensor *t = st_find(st, name);
    ck_assert_msg(t != NULL, "%s: no tensor %s", st->path, name);
    ck_assert_msg(t->dtype == DTYPE_F32, "%s: %s is not F32", st->path, name);
    return t;
}

/* "7 x 4 x 16" for the report lines. */
static const char *dims(const Tensor *t, char *buf, size_t len) {
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->ndim && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? " x " : "", (long long)t->shape[i]);
    return buf;
}

/* Runs the demo once for all the tests. */
static void run_demo(void) {
    Error err;
    if (!st_open(&golden, GOLDEN, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    const Tensor *ids = st_find(&golden, "ids");
    char list[256] = "";
    for (int64_t i = 0, o = 0; i < ids->numel; i++)
        o += snprintf(list + o, sizeof list - (size_t)o, "%s%d", i ? "," : "",
                      (int)((const float *)ids->data)[i]);
    const char *bindir = getenv("BINDIR"), *tiny = getenv("TINY");
    snprintf(dump_path, sizeof dump_path, "/tmp/test_ch07_dump.%d.safetensors", (int)getpid());
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "./%sch07_deltanet/ch07_deltanet --model '%s' --ids %s --sep 5 --plot=none --dump '%s'",
             bindir ? bindir : "", tiny ? tiny : "build/tiny", list, dump_path);
    printf("running: %s\n", cmd);
    FILE *p = popen(cmd, "r");
    if (!p) exit(1);
    size_t n = fread(stdout_text, 1, sizeof stdout_text - 1, p);
    stdout_text[n] = '\0';
    if (pclose(p) != 0) {
        fprintf(stderr, "the demo failed\n");
        exit(1);
    }
    if (!st_open(&dumped, dump_path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
}

static void finish(void) {
    st_close(&golden);
    st_close(&dumped);
    unlink(dump_path);
}

/* The same tolerances as test_deltanet.c, for the same reason: float32 against the
 * reference's float64 on values of size ≤ 4.5; the largest differences seen are
 * ~2e-6 (each comparison prints its own). */
#define ATOL 1e-5
#define RTOL 1e-5

START_TEST(every_intermediate_matches_the_reference) {
    static const char *names[] = {
        "layer.0.input_norm",        "layer.0.linear_attn.qkv", "layer.0.linear_attn.conv",
        "layer.0.linear_attn.q",     "layer.0.linear_attn.k",   "layer.0.linear_attn.v",
        "layer.0.linear_attn.beta",  "layer.0.linear_attn.g",   "layer.0.linear_attn.core",
        "layer.0.linear_attn.state", "layer.0.linear_attn.z",   "layer.0.linear_attn.normed",
        "layer.0.linear_attn.out"};
    bool all = true;
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        const Tensor *got = find(&dumped, names[i]), *want = find(&golden, names[i]);
        char shape[64], want_shape[64];
        ck_assert_msg(got->ndim == want->ndim && got->numel == want->numel, "%s: shape %s, reference %s",
                      names[i], dims(got, shape, sizeof shape), dims(want, want_shape, sizeof want_shape));
        for (int d = 0; d < got->ndim; d++) ck_assert_int_eq(got->shape[d], want->shape[d]);
        all &= compare_f32(names[i], dims(got, shape, sizeof shape), got->data, want->data, got->numel, ATOL,
                           RTOL, NULL);
    }
    ck_assert_msg(all, "the demo's intermediates differ from the reference (see above)");
}
END_TEST

/* The demo's line 6, from its stdout. */
static const char *gates_line(void) {
    const char *l = stdout_text;
    for (int i = 1; i < 6 && l; i++) {
        l = strchr(l, '\n');
        if (l) l++;
    }
    ck_assert_msg(l != NULL, "the demo printed fewer than 6 lines:\n%s", stdout_text);
    return l;
}

START_TEST(gates_line_matches_the_reference) {
    const Tensor *g = find(&golden, "layer.0.linear_attn.g"), *b = find(&golden, "layer.0.linear_attn.beta");
    const float *gv = g->data, *bv = b->data;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int64_t i = 0; i < g->numel; i++) {
        double decay = exp((double)gv[i]);
        lo[0] = fmin(lo[0], decay), hi[0] = fmax(hi[0], decay);
        lo[1] = fmin(lo[1], bv[i]), hi[1] = fmax(hi[1], bv[i]);
    }
    /* Each printed value is rounded to 2 decimals; the expected text is only certain
     * when the reference's value is not within the two computations' difference
     * (~1e-7) of a rounding edge x.xx5: here it keeps 1e-5 away. */
    double all[4] = {lo[0], hi[0], lo[1], hi[1]};
    for (int i = 0; i < 4; i++) {
        double frac = all[i] * 100 - floor(all[i] * 100);
        ck_assert_msg(fabs(frac - 0.5) > 1e-3, "reference value %.8f sits on a rounding edge", all[i]);
    }
    char want[256];
    snprintf(want, sizeof want,
             "第 0 层对这 %lld 个 token：衰减 exp(g) 的范围 [%.2f, %.2f]，β 的范围 [%.2f, %.2f]\n",
             (long long)g->shape[0], lo[0], hi[0], lo[1], hi[1]);
    const char *got = gates_line();
    ck_assert_msg(strncmp(got, want, strlen(want)) == 0, "gates line:\n  got  %.*s  want %s",
                  (int)(strchr(got, '\n') ? strchr(got, '\n') - got + 1 : (long)strlen(got)), got, want);
    printf("OK   gates line as the reference's g and β give: %s", want);
}
END_TEST

START_TEST(long_text_starts_as_the_short_one) {
    const Tensor *s_in = find(&dumped, "layer.0.input_norm"),
                 *l_in = find(&dumped, "long.layer.0.input_norm");
    const Tensor *s_out = find(&dumped, "layer.0.linear_attn.out"),
                 *l_out = find(&dumped, "long.layer.0.linear_attn.out");
    const Tensor *l_ids = find(&dumped, "long.ids");
    int64_t T = s_in->shape[0], H = s_in->shape[1];
    ck_assert_int_eq(l_ids->numel, 20 * T + 19); /* 20 copies joined by --sep */
    ck_assert_int_eq(l_in->shape[0], 20 * T + 19);
    ck_assert_msg(memcmp(s_in->data, l_in->data, (size_t)(T * H) * sizeof(float)) == 0, "inputs differ");
    ck_assert(compare_f32("long text output, first T rows, vs the short text's", NULL, l_out->data,
                          s_out->data, T * H, 0, 0, NULL));
}
END_TEST

int main(void) {
    run_demo();
    Suite *s = suite_create("ch07_deltanet --dump");
    TCase *tc = tcase_create("against the reference");
    tcase_add_test(tc, every_intermediate_matches_the_reference);
    tcase_add_test(tc, gates_line_matches_the_reference);
    tcase_add_test(tc, long_text_starts_as_the_short_one);
    suite_add_tcase(s, tc);
    int failed = run_suite(s, CK_NOFORK);
    finish();
    return failed;
}
