/* test_ch06_demo — what ch06_attention prints and dumps, against the PyTorch reference.
 *
 * Runs the demo on the tiny checkpoint (no tokenizer.json: the reference's ids) with
 * --plot=none --dump. The demo runs layer 3's attention on the embedding through
 * layer 3's input_layernorm (the chapter's stand-in for the real layer input); the
 * reference ran the same and stored it as ch06.layer.3.* (reference/README.md).
 * Then:
 *   - every dumped tensor equals the golden's (ids, embed, rope.cos / sin, and
 *     layer.3.input_norm, q_raw, gate, q, k, v, probs, attn, gated, run.out from the
 *     chapter's run);
 *   - every printed line that depends on the weights is recomputed here in double
 *     from those golden tensors: the per-head RMS before and after q_norm / k_norm,
 *     the last token's weights in every head and the token it weighs most, the
 *     gate's range, mean and shares, and the RMS before and after the gate and of
 *     the output.
 * The shape, GQA, KV-cache and decoding lines are checked by test_ch06_cli.sh.
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
static int T, H, Hq, Hkv, d;

static void setup(void) {
    golden_fixture_open(&fx);
    demo_run_open(&run, "ch06_attention/ch06_attention", "--plot=none");
    const Config *c = &fx.model.ck.config;
    T = fx.T, H = c->hidden_size, Hq = c->num_attention_heads, Hkv = c->num_key_value_heads, d = c->head_dim;
    ck_assert(c->layer_types[3] == LAYER_FULL_ATTENTION);
}

static void teardown(void) {
    demo_run_close(&run);
    golden_fixture_close(&fx);
}

/* As test_attention.c: float32 against float64 on O(1) values and sums of ≤ 128
 * terms, ~1e-6 apart; a mistake moves values by 1e-2 and more. */
#define ATOL     2e-5
#define RTOL     1e-4
#define LINE_REL 1e-5

START_TEST(dump_matches_the_golden) {
    int compared = 0;
    ck_assert(golden_check_dump(&run.dumped, &fx.golden, "ch06", ATOL, RTOL, &compared));
    ck_assert_int_eq(compared, 14); /* everything the demo dumps */
}
END_TEST

static const float *gold(const char *name, int64_t n) { return golden_f32(&fx.golden, name, n); }

/* Smallest and largest RMS over rows vectors of length n. */
static void rms_range(const float *x, int rows, int n, double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int i = 0; i < n; i++) s += (double)x[(size_t)r * n + i] * x[(size_t)r * n + i];
        *lo = fmin(*lo, sqrt(s / n)), *hi = fmax(*hi, sqrt(s / n));
    }
}

static double rms(const float *v, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)v[i] * v[i];
    return sqrt(s / (double)n);
}

START_TEST(norm_line) {
    double r[8];
    rms_range(gold("ch06.layer.3.self_attn.q_raw", (int64_t)T * Hq * d), T * Hq, d, &r[0], &r[1]);
    rms_range(gold("ch06.layer.3.self_attn.q", (int64_t)T * Hq * d), T * Hq, d, &r[2], &r[3]);
    rms_range(gold("ch06.layer.3.self_attn.k_raw", (int64_t)T * Hkv * d), T * Hkv, d, &r[4], &r[5]);
    rms_range(gold("ch06.layer.3.self_attn.k", (int64_t)T * Hkv * d), T * Hkv, d, &r[6], &r[7]);
    char want[1024];
    snprintf(want, sizeof want,
             "q_norm、k_norm 把每个头拉到同一尺度：query 每头的 RMS 从 [%.9g, %.9g] 变成 [%.9g, %.9g]，"
             "key 从 [%.9g, %.9g] 变成 [%.9g, %.9g]",
             r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    ck_assert(demo_line_matches(demo_line(run.out, "q_norm、k_norm", 0), want, LINE_REL));
}
END_TEST

START_TEST(last_token_lines) {
    const float *probs = gold("ch06.layer.3.self_attn.probs", (int64_t)Hq * T * T); /* [Hq, T, T] */
    const float *ids = gold("ids", T);
    ck_assert_int_le(T, 12); /* the demo lists every weight up to 12 tokens */
    ck_assert_int_eq(demo_count_lines(run.out, "  头 "), Hq);
    bool ok = true;
    for (int h = 0; h < Hq; h++) {
        const float *row = probs + ((size_t)h * T + (T - 1)) * T;
        int best = 0, second = -1;
        for (int j = 1; j < T; j++)
            if (row[j] > row[best])
                second = best, best = j;
            else if (second < 0 || row[j] > row[second])
                second = j;
        /* the named token is only certain when the top two weights are not a near tie */
        ck_assert_msg(row[best] - row[second] > 1e-5, "head %d: weights %g and %g nearly tie", h, row[best],
                      row[second]);
        char list[256] = "", want[512];
        for (int j = 0; j < T; j++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%.9g", j ? " " : "", (double)row[j]);
        }
        /* query head h reads KV head h / (Hq / Hkv): 4 / 2, so heads 0, 1 → 0 and 2, 3 → 1 */
        snprintf(want, sizeof want, "  头 %d（KV 头 %d）：%s，最看重「#%d」", h, h / (Hq / Hkv), list,
                 (int)ids[best]);
        ok &= demo_line_matches(demo_line(run.out, "  头 ", h), want, LINE_REL);
    }
    ck_assert(ok);
}
END_TEST

START_TEST(gate_lines) {
    int64_t n = (int64_t)T * Hq * d;
    const float *gate = gold("ch06.layer.3.self_attn.gate", n);
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int closed = 0, open = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = 1 / (1 + exp(-(double)gate[i]));
        lo = fmin(lo, s), hi = fmax(hi, s), sum += s;
        closed += s<0.1, open += s> 0.9;
        /* the shares are only certain when no gate sits within float32's reach of an edge */
        ck_assert_msg(fabs(s - 0.1) > 1e-6 && fabs(s - 0.9) > 1e-6, "sigmoid(gate) %g sits on an edge", s);
    }
    char want[1024];
    snprintf(
        want, sizeof want,
        "门 sigmoid(gate) 的范围 [%.9g, %.9g]，平均 %.9g；小于 0.1 的占 %.9g%%（几乎关上），大于 0.9 的占 "
        "%.9g%%（几乎全开）",
        lo, hi, sum / (double)n, 100.0 * closed / (double)n, 100.0 * open / (double)n);
    bool ok = demo_line_matches(demo_line(run.out, "门 sigmoid(gate)", 0), want, LINE_REL);
    snprintf(want, sizeof want,
             "乘门之前注意力输出的 RMS %.9g，乘门之后 %.9g；o_proj 写回残差流 [%d, %d]，RMS %.9g",
             rms(gold("ch06.layer.3.self_attn.attn", n), n), rms(gold("ch06.layer.3.self_attn.gated", n), n),
             T, H, rms(gold("ch06.layer.3.self_attn.out", (int64_t)T * H), (int64_t)T * H));
    ok &= demo_line_matches(demo_line(run.out, "乘门之前", 0), want, LINE_REL);
    ck_assert(ok);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch06_attention: the printed lines and --dump");
    TCase *tc = tcase_create("against the reference");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, dump_matches_the_golden);
    tcase_add_test(tc, norm_line);
    tcase_add_test(tc, last_token_lines);
    tcase_add_test(tc, gate_lines);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
