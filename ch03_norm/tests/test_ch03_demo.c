/* test_ch03_demo — what ch03_norm prints and dumps, against the PyTorch reference.
 *
 * Runs the demo on the tiny checkpoint (it has no tokenizer.json, so the demo takes
 * the reference's ids) with --dump, then:
 *   - every dumped tensor the golden has (ids, embed, layer.0.input_norm) equals it;
 *   - the tensors only the demo has (the division alone, the output without the
 *     "1 +", the per-token RMS) equal what this test computes in double from the
 *     golden embedding rows and layer 0's stored weight;
 *   - every printed line that depends on the weights is recomputed the same way: the
 *     per-token RMS lines, the weight's statistics, the 1 + w line, the "forgot 1 +"
 *     line and the gated norm's weight line.
 * The lines with hand-worked examples are checked by test_ch03_cli.sh.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/demo_output.h"
#include "tests/golden_fixture.h"
#include "tests/check_main.h"

static GoldenFixture fx;
static DemoRun run; /* run.out: the demo's stdout; run.dumped: its --dump file */

/* What the test computes from the golden: per token t of T, in double. */
static int T, H;
static double *unit, *bad;                        /* [T, H]: x / sqrt(mean(x²) + eps), and that · w */
static double *rms_x, *rms_unit, *rms_y;          /* [T]: before, after the division, after · (1 + w) */
static double rms_bad_mean, rms_y_mean, cos_mean; /* the "forgot 1 +" line */
static float *w;                                  /* [H]: layer 0's input_layernorm.weight as stored */

static double rms(const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s / n);
}

static void setup(void) {
    golden_fixture_open(&fx);
    demo_run_open(&run, "ch03_norm/ch03_norm", "");

    T = fx.T, H = fx.model.ck.config.hidden_size;
    double eps = fx.model.ck.config.rms_norm_eps;
    const float *x = golden_f32(&fx.golden, "embed", (int64_t)T * H);
    const float *y = golden_f32(&fx.golden, "layer.0.input_norm", (int64_t)T * H);
    w = xmalloc(sizeof(float) * H);
    tensor_read_f32(fx.model.layers[0].input_layernorm, 0, H, w);
    unit = xmalloc(sizeof(double) * T * H), bad = xmalloc(sizeof(double) * T * H);
    rms_x = xmalloc(sizeof(double) * T), rms_unit = xmalloc(sizeof(double) * T),
    rms_y = xmalloc(sizeof(double) * T);
    double *yt = xmalloc(sizeof(double) * H), *xt = xmalloc(sizeof(double) * H);
    rms_bad_mean = rms_y_mean = cos_mean = 0;
    for (int t = 0; t < T; t++) {
        double ms = 0, dot = 0, n_bad = 0, n_y = 0;
        for (int i = 0; i < H; i++) xt[i] = x[t * H + i], yt[i] = y[t * H + i], ms += xt[i] * xt[i] / H;
        for (int i = 0; i < H; i++) {
            unit[t * H + i] = xt[i] / sqrt(ms + eps);
            bad[t * H + i] = unit[t * H + i] * w[i]; /* the classic bug: w instead of 1 + w */
            dot += bad[t * H + i] * yt[i], n_bad += bad[t * H + i] * bad[t * H + i], n_y += yt[i] * yt[i];
        }
        rms_x[t] = rms(xt, H), rms_unit[t] = rms(unit + t * H, H), rms_y[t] = rms(yt, H);
        rms_bad_mean += rms(bad + t * H, H) / T;
        rms_y_mean += rms_y[t] / T;
        cos_mean += dot / sqrt(n_bad * n_y) / T;
    }
    free(xt), free(yt);
}

static void teardown(void) {
    demo_run_close(&run);
    golden_fixture_close(&fx);
    free(w), free(unit), free(bad), free(rms_x), free(rms_unit), free(rms_y);
}

/* The golden and the demo's tensors are float32 roundings of the same values, computed
 * in float64 and float32 from values of size ≤ 4: a few float32 steps apart (≤ 1e-6);
 * a mistake (a missing 1 +, a wrong row) moves them by 1e-2 and more. */
#define ATOL 1e-5
#define RTOL 1e-5
/* Printed lines: besides the rounding to the printed digits, float32 against double
 * on sums of 64 squares (relative ~1e-7; 1e-5 leaves a margin). */
#define LINE_REL 1e-5

START_TEST(dump_matches_the_golden) {
    int compared = 0;
    ck_assert(golden_check_dump(&run.dumped, &fx.golden, "ch03", ATOL, RTOL, &compared));
    ck_assert_int_eq(compared, 3); /* ids, embed, layer.0.input_norm */
}
END_TEST

/* A [n] double array as float32, for compare_f32. */
static float *to_f32(const double *v, int64_t n) {
    float *f = xmalloc(sizeof(float) * n);
    for (int64_t i = 0; i < n; i++) f[i] = (float)v[i];
    return f;
}

static bool check_dumped(const char *name, const double *want, int64_t n) {
    float *f = to_f32(want, n);
    bool ok = golden_check(&run.dumped, name, f, n, ATOL, RTOL);
    free(f);
    return ok;
}

START_TEST(demo_only_tensors_match_the_test) {
    bool ok = check_dumped("layer.0.input_norm.unscaled", unit, (int64_t)T * H);
    ok &= check_dumped("layer.0.input_norm.without_one_plus", bad, (int64_t)T * H);
    ok &= check_dumped("layer.0.input_norm.rms_before", rms_x, T);
    ok &= check_dumped("layer.0.input_norm.rms_after", rms_y, T);
    ck_assert(ok);
}
END_TEST

START_TEST(rms_lines) {
    const float *ids = golden_f32(&fx.golden, "ids", T);
    ck_assert_int_eq(demo_count_lines(run.out, "  token "), T);
    bool ok = true;
    for (int t = 0; t < T; t++) {
        char want[512];
        snprintf(want, sizeof want,
                 "  token %d（id %d）：归一化前 %.9g，除以 RMS 之后 %.9g，再乘 (1 + w) 之后 %.9g", t,
                 (int)ids[t], rms_x[t], rms_unit[t], rms_y[t]);
        ok &= demo_line_matches(demo_line(run.out, "  token ", t), want, LINE_REL);
    }
    ck_assert(ok);
}
END_TEST

START_TEST(weight_lines) {
    double sum = 0, sq = 0;
    int lo = 0, hi = 0, grow = 0, shrink = 0;
    for (int i = 0; i < H; i++) {
        sum += w[i], sq += (double)w[i] * w[i];
        if (w[i] < w[lo]) lo = i; /* the first of equal values, as the line names one */
        if (w[i] > w[hi]) hi = i;
        grow += w[i] > 0, shrink += w[i] < 0;
    }
    double mean = sum / H, sd = sqrt(fmax(sq / H - mean * mean, 0));
    char want[1024];
    snprintf(want, sizeof want,
             "input_layernorm.weight 存的是 w（BF16，%d 个数）：均值 %.9g，标准差 %.9g，范围 [%.9g, %.9g]——"
             "存的是相对 1 的偏移，w = 0 就是不缩放",
             H, mean, sd, (double)w[lo], (double)w[hi]);
    bool ok = demo_line_matches(demo_line(run.out, "input_layernorm.weight", 0), want, LINE_REL);
    snprintf(
        want, sizeof want,
        "真正乘上去的是 1 + w：%d 维放大、%d 维缩小；放得最大的是第 %d 维（× %.9g），压得最狠的是第 %d 维（× "
        "%.9g）",
        grow, shrink, hi, 1.0 + w[hi], lo, 1.0 + w[lo]);
    ok &= demo_line_matches(demo_line(run.out, "真正乘上去的是", 0), want, LINE_REL);
    ck_assert(ok);
}
END_TEST

/* The classic bug, as the demo shows it: x / rms(x) · w has an RMS of ~0.06 (w is
 * ±0.1 around 0), while the right output has RMS ~1; the two point in unrelated
 * directions. Computed here from the golden embedding and the stored weight. */
START_TEST(forgot_one_plus_line) {
    char want[512];
    snprintf(
        want, sizeof want,
        "忘了「1 +」、直接乘 w：输出的 RMS 平均只有 %.9g（正确的是 %.9g），和正确输出的余弦相似度平均 %.9g",
        rms_bad_mean, rms_y_mean, cos_mean);
    ck_assert(demo_line_matches(demo_line(run.out, "忘了「1 +」", 0), want, LINE_REL));
}
END_TEST

START_TEST(gated_norm_weight_line) {
    const Tensor *gw = fx.model.layers[0].linear_attn.w.norm; /* layer 0 is the first DeltaNet layer */
    int n = (int)gw->numel;
    float *g = xmalloc(sizeof(float) * n);
    tensor_read_f32(gw, 0, n, g);
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) sum += g[i], lo = fmin(lo, g[i]), hi = fmax(hi, g[i]);
    char want[512];
    snprintf(want, sizeof want,
             "  第 0 层的 linear_attn.norm.weight（F32，%d 个数，%d 个头共用）：均值 %.9g，范围 [%.9g, %.9g]"
             "——存的就是缩放本身",
             n, fx.model.ck.config.linear_num_value_heads, sum / n, lo, hi);
    ck_assert(
        demo_line_matches(demo_line(run.out, "  第 0 层的 linear_attn.norm.weight", 0), want, LINE_REL));
    free(g);
}
END_TEST

/* The line comparison itself can fail: a digit off, a count off by one, other text,
 * a number missing; and it allows what rounding allows, no more. */
START_TEST(line_comparison_can_fail) {
    printf("-- four lines that must not match (FAIL expected), then two that must:\n");
    ck_assert(!demo_line_matches("RMS 0.5670，共 7 个", "RMS 0.566912，共 7 个", 1e-5));
    ck_assert(!demo_line_matches("RMS 0.5669，共 8 个", "RMS 0.566912，共 7 个", 1e-5));
    ck_assert(!demo_line_matches("RMS 0.5669，有 7 个", "RMS 0.566912，共 7 个", 1e-5));
    ck_assert(!demo_line_matches("RMS 0.5669，共 个", "RMS 0.566912，共 7 个", 1e-5));
    ck_assert(demo_line_matches("RMS 0.5669，共 7 个\n", "RMS 0.56685，共 7 个", 1e-9)); /* a rounding edge */
    ck_assert(demo_line_matches("相差 7.0e-08，共 -0.0000", "相差 <any>，共 -4e-06", 1e-5));
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch03_norm: the printed lines and --dump");
    TCase *tc = tcase_create("against the reference");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, dump_matches_the_golden);
    tcase_add_test(tc, demo_only_tensors_match_the_test);
    tcase_add_test(tc, rms_lines);
    tcase_add_test(tc, weight_lines);
    tcase_add_test(tc, forgot_one_plus_line);
    tcase_add_test(tc, gated_norm_weight_line);
    tcase_add_test(tc, line_comparison_can_fail);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
