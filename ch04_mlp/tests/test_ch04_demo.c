/* test_ch04_demo — what ch04_mlp prints and dumps, against the PyTorch reference.
 *
 * Runs the demo on the tiny checkpoint (no tokenizer.json: the reference's ids) with
 * --dump. The demo runs layer 0's MLP on layer 0's input_norm (the embedding through
 * input_layernorm, chapter 3's output); the reference ran the same and stored it as
 * ch04.mlp.* (reference/README.md). Then:
 *   - every dumped tensor equals the golden's (ids, embed, mlp.x/gate/up/act/out);
 *   - every printed line that depends on the weights is recomputed here in double
 *     from those golden tensors: the gate and up statistics, the share of negative
 *     gates and of nearly closed ones, the RMS of act, of every token's output and of
 *     the residual stream it is added to.
 * The shape and parameter lines are checked by test_ch04_cli.sh.
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
static int T, H, I;

static void setup(void) {
    golden_fixture_open(&fx);
    demo_run_open(&run, "ch04_mlp/ch04_mlp", "");
    T = fx.T, H = fx.model.ck.config.hidden_size, I = fx.model.ck.config.intermediate_size;
}

static void teardown(void) {
    demo_run_close(&run);
    golden_fixture_close(&fx);
}

/* float32 against float64 on sums of 64 and 128 products of size ≤ 1: a few 1e-7
 * (test_mlp.c); a mistake moves values by 1e-2 and more. */
#define ATOL 1e-5
#define RTOL 1e-5
/* Printed lines: the rounding to the printed digits, plus float32 against double. */
#define LINE_REL 1e-5

START_TEST(dump_matches_the_golden) {
    int compared = 0;
    ck_assert(golden_check_dump(&run.dumped, &fx.golden, "ch04", ATOL, RTOL, &compared));
    ck_assert_int_eq(compared, 7); /* ids, embed, mlp.x, mlp.gate, mlp.up, mlp.act, mlp.out */
}
END_TEST

static double rms(const float *v, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)v[i] * v[i];
    return sqrt(s / (double)n);
}

static const float *gold(const char *name, int64_t n) { return golden_f32(&fx.golden, name, n); }

START_TEST(gate_lines) {
    int64_t n = (int64_t)T * I;
    const float *gate = gold("ch04.mlp.gate", n), *up = gold("ch04.mlp.up", n),
                *act = gold("ch04.mlp.act", n);
    double lo = INFINITY, hi = -INFINITY;
    int negative = 0, nearly_off = 0;
    const double edge = -log(9.0); /* sigmoid(g) < 0.1 exactly when g < −ln 9 = −2.197 */
    for (int64_t i = 0; i < n; i++) {
        double g = gate[i];
        lo = fmin(lo, g), hi = fmax(hi, g);
        negative += g < 0;
        nearly_off += 1 / (1 + exp(-g)) < 0.1;
        /* a count is only certain when no gate sits within float32's reach of an edge */
        ck_assert_msg(fabs(g) > 1e-5 && fabs(g - edge) > 1e-5, "gate %g sits on an edge of a count", g);
    }
    char want[1024];
    snprintf(want, sizeof want,
             "  gate = gate_proj(x)：形状 (%d, %d)，范围 [%.9g, %.9g]，RMS %.9g；up = up_proj(x)：RMS %.9g",
             T, I, lo, hi, rms(gate, n), rms(up, n));
    bool ok = demo_line_matches(demo_line(run.out, "  gate = gate_proj(x)", 0), want, LINE_REL);
    snprintf(want, sizeof want,
             "  silu(gate) = gate · sigmoid(gate)：%lld 个 gate 里 %.9g%% 是负的，被压进 (-0.28, 0)；"
             "%d 个（%.9g%%）的 sigmoid(gate) < 0.1（gate < -2.2），几乎关掉",
             (long long)n, 100.0 * negative / (double)n, nearly_off, 100.0 * nearly_off / (double)n);
    ok &= demo_line_matches(demo_line(run.out, "  silu(gate) = ", 0), want, LINE_REL);
    snprintf(want, sizeof want, "  act = silu(gate) · up：形状 (%d, %d)，RMS %.9g", T, I, rms(act, n));
    ok &= demo_line_matches(demo_line(run.out, "  act = silu(gate)", 0), want, LINE_REL);
    ck_assert(ok);
}
END_TEST

START_TEST(output_lines) {
    const float *y = gold("ch04.mlp.out", (int64_t)T * H), *emb = gold("embed", (int64_t)T * H);
    ck_assert_int_le(T, 16); /* the demo lists up to 16 tokens' RMS */
    char list[512] = "[";
    double mean_out = 0, mean_emb = 0;
    for (int t = 0; t < T; t++) {
        double r = rms(y + (size_t)t * H, H);
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%.9g", t ? ", " : "", r);
        mean_out += r / T, mean_emb += rms(emb + (size_t)t * H, H) / T;
    }
    strcat(list, "]");
    char want[1024];
    snprintf(want, sizeof want,
             "  out = down_proj(act)：形状 (%d, %d)，每个 token 的 RMS %s，平均 %.9g（输入 x 的 RMS 是 1）",
             T, H, list, mean_out);
    /* Python's round(v, 3) drops trailing zeros ("0.49"): such a value is held to its
     * printed digits only, like any other. */
    bool ok = demo_line_matches(demo_line(run.out, "  out = down_proj(act)", 0), want, LINE_REL);
    snprintf(want, sizeof want,
             "它要加回残差流：残差流（这里是词向量）的 RMS 平均 %.9g，MLP 这一步加上去的 RMS 平均 %.9g",
             mean_emb, mean_out);
    ok &= demo_line_matches(demo_line(run.out, "它要加回残差流", 0), want, LINE_REL);
    ck_assert(ok);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch04_mlp: the printed lines and --dump");
    TCase *tc = tcase_create("against the reference");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, dump_matches_the_golden);
    tcase_add_test(tc, gate_lines);
    tcase_add_test(tc, output_lines);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
