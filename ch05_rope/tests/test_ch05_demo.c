/* test_ch05_demo — what ch05_rope prints and dumps, against the PyTorch reference.
 *
 * Runs the demo on the tiny checkpoint (no tokenizer.json: the reference's ids) with
 * --plot=none --dump. The demo takes head 0's query of token 1 and KV head 0's key of
 * token 0 from layer 3 (after q_norm / k_norm, before RoPE) and scores them at far
 * apart positions; the reference stored that query and key as ch05.rope_check.q / .k.
 * Then:
 *   - every dumped tensor the golden has equals it (ids, rope.cos, rope.sin, the query
 *     and the key);
 *   - the frequencies and wavelengths equal theta^(−2i/rotary_dim) and 2π over it;
 *   - every score, its rotated part, and the part of the dims that do not rotate are
 *     recomputed here: the golden query and key, rotated in double by this test's own
 *     rotate-half (out[i] = a·cos − b·sin, out[i + half] = b·cos + a·sin), and
 *     compared with the dumped scores and with each printed line.
 * The weight-independent lines (dims, pairs, wavelengths) are checked by
 * test_ch05_cli.sh.
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
static int d, rot, half;
static double theta;

static void setup(void) {
    golden_fixture_open(&fx);
    demo_run_open(&run, "ch05_rope/ch05_rope", "--plot=none");
    const Config *c = &fx.model.ck.config;
    d = c->head_dim, rot = c->rotary_dim, half = rot / 2, theta = c->rope_theta;
}

static void teardown(void) {
    demo_run_close(&run);
    golden_fixture_close(&fx);
}

/* The demo's cos/sin are float32 roundings of the exact angle's (test_rope.c), its
 * rotation and dot products float32 over 32 values of size ~1: its scores are within
 * ~1e-6 of the double ones here. A wrong pairing or a position off by one moves a
 * score by 1e-2 and more (the score itself is ~0.1-1). */
#define ATOL     1e-5
#define RTOL     1e-5
#define LINE_REL 1e-5

START_TEST(dump_matches_the_golden) {
    int compared = 0;
    ck_assert(golden_check_dump(&run.dumped, &fx.golden, "ch05", ATOL, RTOL, &compared));
    ck_assert_int_eq(compared, 5); /* ids, rope.cos, rope.sin, rope_check.q, rope_check.k */
}
END_TEST

START_TEST(frequencies) {
    float *f = xmalloc(sizeof(float) * half), *wave = xmalloc(sizeof(float) * half);
    for (int i = 0; i < half; i++) {
        double inv = pow(theta, -2.0 * i / rot);
        f[i] = (float)inv, wave[i] = (float)(2 * M_PI / inv);
    }
    /* both sides round a double to float32 once: equal up to one float32 step */
    ck_assert(golden_check(&run.dumped, "rope.inv_freq", f, half, 0, 1.2e-7));
    ck_assert(golden_check(&run.dumped, "rope.wavelength", wave, half, 0, 1.2e-7));
    free(f), free(wave);
}
END_TEST

/* x [d] rotated to position p, in double. */
static void rotate(const float *x, int p, double *y) {
    for (int i = 0; i < d; i++) y[i] = x[i];
    for (int i = 0; i < half; i++) {
        double angle = p * pow(theta, -2.0 * i / rot), a = x[i], b = x[i + half];
        y[i] = a * cos(angle) - b * sin(angle);
        y[i + half] = b * cos(angle) + a * sin(angle);
    }
}

START_TEST(score_lines) {
    const float *q = golden_f32(&fx.golden, "ch05.rope_check.q", d),
                *k = golden_f32(&fx.golden, "ch05.rope_check.k", d);
    const Tensor *qp = st_find(&run.dumped, "rope_check.query_position"),
                 *kp = st_find(&run.dumped, "rope_check.key_position");
    ck_assert(qp && kp && qp->numel == kp->numel);
    int n = (int)qp->numel;
    ck_assert_int_eq(demo_count_lines(run.out, "  q 在位置 "), n);
    double *qm = xmalloc(sizeof(double) * d), *kn = xmalloc(sizeof(double) * d);
    float *scores = xmalloc(sizeof(float) * n);
    bool ok = true;
    for (int j = 0; j < n; j++) {
        int m = (int)((const float *)qp->data)[j], p = (int)((const float *)kp->data)[j];
        rotate(q, m, qm);
        rotate(k, p, kn);
        double rotated = 0, all = 0;
        for (int i = 0; i < d; i++) {
            all += qm[i] * kn[i];
            if (i < rot) rotated += qm[i] * kn[i];
        }
        scores[j] = (float)(all / sqrt(d));
        char want[512];
        snprintf(want, sizeof want, "  q 在位置 %d，k 在位置 %d（距离 %d）：%.9g（其中转的 %d 维贡献 %.9g）",
                 m, p, m - p, all / sqrt(d), rot, rotated / sqrt(d));
        ok &= demo_line_matches(demo_line(run.out, "  q 在位置 ", j), want, LINE_REL);
    }
    ok &= golden_check(&run.dumped, "rope_check.score", scores, n, ATOL, RTOL);
    ck_assert(ok);
    free(qm), free(kn), free(scores);
}
END_TEST

/* The dims that do not rotate add q[i]·k[i] for i ≥ rotary_dim, whatever the positions. */
START_TEST(non_rotating_part_line) {
    const float *q = golden_f32(&fx.golden, "ch05.rope_check.q", d),
                *k = golden_f32(&fx.golden, "ch05.rope_check.k", d);
    double rest = 0;
    for (int i = rot; i < d; i++) rest += (double)q[i] * k[i];
    char want[512];
    snprintf(want, sizeof want,
             "距离相同的几行分数一样（最大相差 <any>，只是 float32 的舍入）；不转的 %d 维贡献永远是 %.9g，"
             "位置只通过转的 %d 维进来",
             d - rot, rest / sqrt(d), rot);
    ck_assert(demo_line_matches(demo_line(run.out, "距离相同的几行", 0), want, LINE_REL));
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch05_rope: the printed lines and --dump");
    TCase *tc = tcase_create("against the reference");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, dump_matches_the_golden);
    tcase_add_test(tc, frequencies);
    tcase_add_test(tc, score_lines);
    tcase_add_test(tc, non_rotating_part_line);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
