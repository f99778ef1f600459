/* test_mlp.c — common/mlp: SwiGLU, down(silu(gate(x)) · up(x)).
 *
 *   1. a 2 → 3 → 2 MLP worked by hand;
 *   2. every layer of the tiny and the mid checkpoint (the real 1024 → 3584 → 1024)
 *      against the PyTorch reference's goldens (layer.{i}.mlp.out from
 *      layer.{i}.post_norm, and gate / up / act where the golden has them: every
 *      layer of tiny, layer 0 of mid);
 *   3. T tokens at once give each token exactly what it gets alone (what a
 *      token-by-token decode relies on), with or without a trace.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/mlp.h"
#include "qwen/safetensors.h"
#include "qwen/weights.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"
#include "tests/check_main.h"

static Tensor f32_matrix(const float *values, int rows, int cols) {
    Tensor t = {
        .name = "w", .dtype = DTYPE_F32, .ndim = 2, .numel = rows * cols, .data = values, .file = "test"};
    t.shape[0] = rows, t.shape[1] = cols;
    return t;
}

/* x = (1, 2)
 * W_gate = [[1, 0], [0, 1], [−1, −1]]  →  gate = (1, 2, −3)
 * W_up   = [[2, 0], [1, 1], [0, 3]]    →  up   = (2, 3, 6)
 * silu(1) = 1·σ(1) = 0.7310586, silu(2) = 2·σ(2) = 1.7615942, silu(−3) = −3·σ(−3) = −0.1422776
 * act = silu(gate) · up = (1.4621172, 5.2847825, −0.8536657)
 * W_down = [[1, 1, 1], [1, 0, −1]]    →  out = (1.4621172 + 5.2847825 − 0.8536657,
 *                                                1.4621172 + 0.8536657) = (5.8932339, 2.3157829)
 * The third feature shows the gate: up says 6, but a gate of −3 lets only −0.85 through. */
START_TEST(test_by_hand) {
    const float wg[6] = {1, 0, 0, 1, -1, -1}, wu[6] = {2, 0, 1, 1, 0, 3}, wd[6] = {1, 1, 1, 1, 0, -1};
    Tensor g = f32_matrix(wg, 3, 2), u = f32_matrix(wu, 3, 2), d = f32_matrix(wd, 2, 3);
    Mlp w = {.d = {.hidden = 2, .intermediate = 3}, .w = {.gate_proj = &g, .up_proj = &u, .down_proj = &d}};
    const float x[2] = {1, 2};
    float y[2];
    MlpActs a;
    mlp_acts_init(&a, &w.d, 1);
    mlp_forward(&w, &a, x, 1, y, PATH_FAST);
    const float *gate = a.gate, *up = a.up, *act = a.act;
    const float want_gate[3] = {1, 2, -3}, want_up[3] = {2, 3, 6};
    const float want_act[3] = {1.4621172f, 5.2847825f, -0.8536657f}, want_y[2] = {5.8932339f, 2.3157829f};
    ck_assert(compare_f32("gate by hand", "3", gate, want_gate, 3, 0, 0, NULL)); /* small integers: exact */
    ck_assert(compare_f32("up by hand", "3", up, want_up, 3, 0, 0, NULL));
    /* hand values to 8 digits, float32 silu: a few ulps */
    ck_assert(compare_f32("act by hand", "3", act, want_act, 3, 1e-7, 1e-6, NULL));
    ck_assert(compare_f32("out by hand", "2", y, want_y, 2, 1e-7, 1e-6, NULL));
    ck_assert_int_eq(mlp_param_count(&w), 18);

    /* The same weights stored as BF16 (all exactly representable): the same answer. */
    uint16_t bg[6], bu[6], bd[6];
    for (int i = 0; i < 6; i++)
        bg[i] = f32_to_bf16(wg[i]), bu[i] = f32_to_bf16(wu[i]), bd[i] = f32_to_bf16(wd[i]);
    g.dtype = u.dtype = d.dtype = DTYPE_BF16;
    g.data = bg, u.data = bu, d.data = bd;
    float yb[2];
    mlp_forward(&w, &a, x, 1, yb, PATH_FAST);
    ck_assert(compare_f32("out, BF16 weights", "2", yb, y, 2, 0, 0, NULL));
    mlp_acts_free(&a);
}
END_TEST

static bool compare_golden(const GoldenFixture *f, const char *name, const float *got, int rows, int cols,
                           double atol, double rtol) {
    return golden_check(&f->golden, name, got, (int64_t)rows * cols, atol, rtol);
}

START_TEST(test_vs_golden) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    const Config *c = &f.model.ck.config;
    int T = f.T, H = c->hidden_size, I = c->intermediate_size;
    float *y = xmalloc((size_t)T * H * sizeof(float));
    MlpActs a;
    mlp_acts_init(&a, &f.model.layers[0].mlp.d, T);
    const float *gate = a.gate, *up = a.up, *act = a.act;
    bool ok = true;
    int with_intermediates = 0;
    for (int i = 0; i < c->num_hidden_layers; i++) {
        char name[64];
        snprintf(name, sizeof name, "layer.%d.post_norm", i);
        const float *x = golden_f32(&f.golden, name, (int64_t)T * H); /* [T, H]: the MLP's input in layer i */
        mlp_forward(&f.model.layers[i].mlp, &a, x, T, y, PATH_FAST);
        /* The golden is float64 math on the same stored weights. Ours sums H = 64
         * (gate, up) or I = 128 (down) float32 products of size ~0.1-1 each: the
         * rounding error is a few 1e-7 relative to the sum of |products| (~1-3),
         * so 2e-6 absolute; rtol covers the larger values. At the real widths (mid:
         * sums of 1024 and 3584 products, whose |products| add up to ~20) the largest
         * differences seen are 1.9e-6: 1e-5 leaves a factor of 5, and a mistake (a
         * missing gate, silu(up) · gate, a wrong row) moves values by 1e-2 and more. */
        double atol = f.size == GOLDEN_MID ? 1e-5 : 2e-6, atol_out = f.size == GOLDEN_MID ? 1e-5 : 4e-6;
        snprintf(name, sizeof name, "layer.%d.mlp.gate", i);
        if (golden_has(&f.golden, name)) {
            ok &= compare_golden(&f, name, gate, T, I, atol, 1e-5);
            snprintf(name, sizeof name, "layer.%d.mlp.up", i);
            ok &= compare_golden(&f, name, up, T, I, atol, 1e-5);
            snprintf(name, sizeof name, "layer.%d.mlp.act", i);
            ok &= compare_golden(&f, name, act, T, I, atol, 1e-5);
            with_intermediates++;
        }
        snprintf(name, sizeof name, "layer.%d.mlp.out", i);
        ok &= compare_golden(&f, name, y, T, H, atol_out, 1e-5);
    }
    ck_assert_int_eq(with_intermediates, f.size == GOLDEN_MID ? 1 : c->num_hidden_layers);
    ck_assert(ok);
    (void)I;
    mlp_acts_free(&a);
    free(y);
    golden_fixture_close(&f);
}
END_TEST

/* Token t of a batch == token t alone, bit for bit; the buffers of an earlier call
 * change nothing; the readable path (linear_ref) gives the same numbers up to the
 * order of the float32 sums. */
START_TEST(test_batch_equals_single) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    int T = f.T, H = f.model.ck.config.hidden_size;
    const Mlp *w = &f.model.layers[0].mlp;
    const float *x = golden_f32(&f.golden, "layer.0.post_norm", (int64_t)T * H);
    float *all = xmalloc((size_t)T * H * sizeof(float)), *one = xmalloc((size_t)T * H * sizeof(float));
    char shape[32];
    snprintf(shape, sizeof shape, "%d x %d", T, H);
    MlpActs a, fresh;
    mlp_acts_init(&a, &w->d, T);
    mlp_forward(w, &a, x, T, all, PATH_FAST);
    for (int t = 0; t < T; t++) mlp_forward(w, &a, x + (size_t)t * H, 1, one + (size_t)t * H, PATH_FAST);
    ck_assert(compare_f32("batch vs one token at a time", shape, all, one, (int64_t)T * H, 0, 0, NULL));
    mlp_acts_init(&fresh, &w->d, T);
    mlp_forward(w, &fresh, x, T, one, PATH_FAST);
    ck_assert(compare_f32("used vs fresh buffers", shape, all, one, (int64_t)T * H, 0, 0, NULL));
    /* The readable path sums the products one after another in float32, the kernels
     * in 16 lanes: over mid's 3584-long rows the two orders differ by up to 5e-6. */
    mlp_forward(w, &fresh, x, T, one, PATH_READABLE);
    ck_assert(compare_f32("reference path vs kernels", shape, one, all, (int64_t)T * H,
                          f.size == GOLDEN_MID ? 2e-5 : 1e-6, 1e-5, NULL));
    mlp_acts_free(&a), mlp_acts_free(&fresh);
    free(all), free(one);
    golden_fixture_close(&f);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mlp");
    TCase *tc = tcase_create("mlp");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_by_hand);
    tcase_add_loop_test(tc, test_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, test_batch_equals_single, GOLDEN_TINY, GOLDEN_SIZES);
    suite_add_tcase(s, tc);
    /* Check runs each test in a child process that may end without flushing stdout:
     * line buffering keeps the comparison lines of a failing test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    return run_suite(s, CK_FORK_GETENV);
}
