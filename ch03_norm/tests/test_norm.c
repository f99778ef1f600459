/* test_norm.c — common/norm: RMSNorm, gated RMSNorm, l2norm.
 *
 *   1. small cases worked by hand (the numbers are in the comments);
 *   2. every norm of the tiny and the mid checkpoint (the real widths: 1024 values
 *      per row, 128 per head) against the PyTorch reference's goldens
 *      (reference/qwen35_reference.py, float64): layer.{i}.input_norm and post_norm,
 *      final_norm, and the DeltaNet's gated norm (layer.{i}.linear_attn.normed from
 *      the golden core and z; every DeltaNet layer of tiny, layer 0 of mid);
 *   3. the fast twins rmsnorm_fast and l2norm_fast (kernels/norm.c) against the
 *      readable loops, bit for bit: rows that fill their groups of 4 and rows left
 *      over, widths from 1 to past the fast path's widest, BF16 and float32 weights,
 *      in place, and 1 to 3 threads.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/norm.h"
#include "qwen/safetensors.h"
#include "qwen/weights.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* A float32 weight vector as if it came from a checkpoint. */
static Tensor f32_tensor(const float *values, int n) {
    Tensor t = {.name = "w", .dtype = DTYPE_F32, .ndim = 1, .numel = n, .data = values, .file = "test"};
    t.shape[0] = n;
    return t;
}

/* ---- 1. by hand ---------------------------------------------------------------- */

/* x = (2, −4, 4, −8): mean(x²) = (4 + 16 + 16 + 64) / 4 = 25, rms = 5
 * (eps = 1e−6 changes 1/sqrt(25 + eps) by 2e−8 relative: invisible in float32).
 *   x / rms = (0.4, −0.8, 0.8, −1.6)
 * stored w = (0, 0.5, −0.5, 1), centred on 0; the scale is 1 + w = (1, 1.5, 0.5, 2):
 *   y = (0.4, −1.2, 0.4, −3.2)
 * A second row x = (0.001, 0.001, 0.001, 0.001): mean(x²) = 1e−6, the same size as
 * eps, so 1/sqrt(1e−6 + 1e−6) = 707.10678 and x/rms = 0.70710678 (not 1: eps keeps a
 * near-silent token from being blown up); times 1 + w = (0.7071068, 1.0606602,
 * 0.3535534, 1.4142136). A third row of zeros stays zeros (no division by zero). */
START_TEST(test_rmsnorm_by_hand) {
    const float w[4] = {0, 0.5f, -0.5f, 1};
    Tensor wt = f32_tensor(w, 4);
    const float x[12] = {2, -4, 4, -8, 0.001f, 0.001f, 0.001f, 0.001f, 0, 0, 0, 0}; /* [3, 4] */
    const float want[12] = {0.4f,       -1.2f,      0.4f, -3.2f, 0.7071068f, 1.0606602f,
                            0.3535534f, 1.4142136f, 0,    0,     0,          0};
    float y[12];
    rmsnorm(x, &wt, 3, 4, 1e-6f, y);
    /* hand values to 8 digits; float32 arithmetic adds a few ulps */
    ck_assert(compare_f32("rmsnorm by hand", "3 x 4", y, want, 12, 1e-7, 1e-6, NULL));

    /* Stored as BF16 (0.5 and 1 are exact in bfloat16): the same answer. */
    uint16_t wb[4];
    for (int i = 0; i < 4; i++) wb[i] = f32_to_bf16(w[i]);
    Tensor wbt = wt;
    wbt.dtype = DTYPE_BF16, wbt.data = wb;
    float yb[12];
    rmsnorm(x, &wbt, 3, 4, 1e-6f, yb);
    ck_assert(compare_f32("rmsnorm, BF16 weight", "3 x 4", yb, y, 12, 0, 0, NULL));

    /* In place (y == x), as the layers call it. */
    float inplace[12];
    memcpy(inplace, x, sizeof inplace);
    rmsnorm(inplace, &wt, 3, 4, 1e-6f, inplace);
    ck_assert(compare_f32("rmsnorm in place", "3 x 4", inplace, y, 12, 0, 0, NULL));

    /* w = 0 is "no change": the output is x / rms(x) = (0.4, −0.8, 0.8, −1.6), RMS 1. */
    const float zero[4] = {0, 0, 0, 0};
    Tensor zt = f32_tensor(zero, 4);
    const float want0[4] = {0.4f, -0.8f, 0.8f, -1.6f};
    rmsnorm(x, &zt, 1, 4, 1e-6f, y);
    ck_assert(compare_f32("rmsnorm, w = 0", "4", y, want0, 4, 1e-7, 1e-6, NULL));
}
END_TEST

/* Gated: y = w · (x / rms(x)) · silu(z), w used directly.
 * x = (2, −4, 4, −8) → x / rms = (0.4, −0.8, 0.8, −1.6) as above;
 * w = (1, 1, 0.5, 2); z = (0, 1, −1, 2):
 *   silu(0) = 0, silu(1) = 0.7310586, silu(−1) = −0.2689414, silu(2) = 1.7615942
 *   y = (1·0.4·0, 1·(−0.8)·0.7310586, 0.5·0.8·(−0.2689414), 2·(−1.6)·1.7615942)
 *     = (0, −0.5848469, −0.1075766, −5.6371013) */
START_TEST(test_gated_by_hand) {
    const float w[4] = {1, 1, 0.5f, 2};
    Tensor wt = f32_tensor(w, 4);
    const float x[4] = {2, -4, 4, -8}, z[4] = {0, 1, -1, 2};
    const float want[4] = {0, -0.5848469f, -0.1075766f, -5.6371013f};
    float y[4];
    gated_rmsnorm(x, z, &wt, 1, 4, 1e-6f, y);
    ck_assert(compare_f32("gated rmsnorm by hand", "4", y, want, 4, 1e-7, 1e-6, NULL));
}
END_TEST

/* l2norm: y = x / sqrt(Σx² + 1e−6).
 *   (1, 2, 2): Σx² = 9 → (1/3, 2/3, 2/3)
 *   (3, 4, 0): Σx² = 25 → (0.6, 0.8, 0)
 *   (0, 0, 0): stays 0 (the eps, where F.normalize would clamp the norm instead) */
START_TEST(test_l2norm_by_hand) {
    const float x[9] = {1, 2, 2, 3, 4, 0, 0, 0, 0}; /* [3, 3] */
    const float want[9] = {1 / 3.0f, 2 / 3.0f, 2 / 3.0f, 0.6f, 0.8f, 0, 0, 0, 0};
    float y[9];
    l2norm(x, 3, 3, L2NORM_EPS, y);
    ck_assert(compare_f32("l2norm by hand", "3 x 3", y, want, 9, 1e-7, 1e-6, NULL));
    for (int r = 0; r < 2; r++) {
        double len = 0;
        for (int i = 0; i < 3; i++) len += (double)y[r * 3 + i] * y[r * 3 + i];
        ck_assert_double_eq_tol(len, 1.0, 1e-6); /* unit length */
    }
}
END_TEST

/* ---- 2. against the golden -------------------------------------------------------- */

/* y = rmsnorm(golden input) compared with the golden output. Tolerance: the golden is
 * float64 rounded to float32; ours is float32 (sum of squares in double), so the
 * two differ by a few float32 roundings on values of size ~1. */
static bool check_rmsnorm(const GoldenFixture *f, const char *in, const char *out, const Tensor *w) {
    int T = f->T, H = f->model.ck.config.hidden_size;
    float *x = golden_values(f, in, (int64_t)T * H), *want = golden_values(f, out, (int64_t)T * H);
    float *y = xmalloc((size_t)T * H * sizeof(float)); /* [T, H] */
    rmsnorm(x, w, T, H, (float)f->model.ck.config.rms_norm_eps, y);
    char shape[32];
    snprintf(shape, sizeof shape, "%d x %d", T, H);
    bool ok = compare_f32(out, shape, y, want, (int64_t)T * H, 2e-6, 1e-5, NULL);
    free(x), free(want), free(y);
    return ok;
}

START_TEST(test_rmsnorm_vs_golden) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    const Model *w = &f.model;
    int L = f.model.ck.config.num_hidden_layers;
    char in[64], mid[64], out[64];
    bool ok = true;
    for (int i = 0; i < L; i++) {
        /* input_layernorm reads the residual stream before layer i */
        if (i == 0)
            snprintf(in, sizeof in, "embed");
        else
            snprintf(in, sizeof in, "layer.%d", i - 1);
        snprintf(out, sizeof out, "layer.%d.input_norm", i);
        ok &= check_rmsnorm(&f, in, out, w->layers[i].input_layernorm);
        /* post_attention_layernorm reads the stream after the mixer */
        snprintf(mid, sizeof mid, "layer.%d.mixer_residual", i);
        snprintf(out, sizeof out, "layer.%d.post_norm", i);
        ok &= check_rmsnorm(&f, mid, out, w->layers[i].post_attention_layernorm);
    }
    snprintf(in, sizeof in, "layer.%d", L - 1);
    ok &= check_rmsnorm(&f, in, "final_norm", w->norm);
    ck_assert(ok);
    golden_fixture_close(&f);
}
END_TEST

/* The DeltaNet output norm: per value head, rows of dv, with the gate z of that head.
 * The tiny golden has every DeltaNet layer's core, z and normed, the mid one layer 0's. */
START_TEST(test_gated_vs_golden) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    const Config *c = &f.model.ck.config;
    int T = f.T, Hv = c->linear_num_value_heads, dv = c->linear_value_head_dim, n = T * Hv * dv;
    int tested = 0;
    bool ok = true;
    for (int i = 0; i < c->num_hidden_layers; i++) {
        if (c->layer_types[i] != LAYER_LINEAR_ATTENTION) continue;
        char name[80], shape[48];
        snprintf(name, sizeof name, "layer.%d.linear_attn.core", i);
        if (f.size == GOLDEN_MID && i > 0) continue;
        float *core = golden_values(&f, name, n); /* [T, Hv, dv] */
        snprintf(name, sizeof name, "layer.%d.linear_attn.z", i);
        float *z = golden_values(&f, name, n); /* [T, Hv·dv] */
        snprintf(name, sizeof name, "layer.%d.linear_attn.normed", i);
        float *want = golden_values(&f, name, n); /* [T, Hv·dv] */
        float *y = xmalloc((size_t)n * sizeof(float));
        gated_rmsnorm(core, z, f.model.layers[i].linear_attn.w.norm, T * Hv, dv, (float)c->rms_norm_eps, y);
        snprintf(shape, sizeof shape, "%d x %d x %d", T, Hv, dv);
        /* as for RMSNorm, plus silu in float32: a few roundings on values of size ~1 */
        ok &= compare_f32(name, shape, y, want, n, 2e-6, 1e-5, NULL);
        free(core), free(z), free(want), free(y);
        tested++;
    }
    ck_assert_int_eq(tested, f.size == GOLDEN_MID ? 1 : cfg_count_layers(c, LAYER_LINEAR_ATTENTION));
    ck_assert(ok);
    golden_fixture_close(&f);
}
END_TEST

/* l2norm on real data: the golden DeltaNet q and k are l2-normalised (q then scaled
 * by 1/sqrt(dk)), so every head's k has length 1 and q length 1/sqrt(dk); l2norm
 * of them must give them back. */
START_TEST(test_l2norm_vs_golden) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    const Config *c = &f.model.ck.config;
    int T = f.T, Hv = c->linear_num_value_heads, dk = c->linear_key_head_dim, n = T * Hv * dk;
    float *k = golden_values(&f, "layer.0.linear_attn.k", n); /* [T, Hv, dk], unit rows */
    float *q = golden_values(&f, "layer.0.linear_attn.q", n); /* [T, Hv, dk], rows of length 1/sqrt(dk) */
    float *y = xmalloc((size_t)n * sizeof(float));
    char shape[48];
    snprintf(shape, sizeof shape, "%d x %d x %d", T, Hv, dk);
    l2norm(k, T * Hv, dk, L2NORM_EPS, y);
    /* eps 1e−6 against a squared length of 1: a 5e−7 relative change, plus roundings */
    ck_assert(compare_f32("l2norm(k)", shape, y, k, n, 1e-6, 2e-6, NULL));
    l2norm(q, T * Hv, dk, L2NORM_EPS, y);
    for (int i = 0; i < n; i++) q[i] *= sqrtf((float)dk); /* back to unit length */
    /* eps against a squared length of 1/dk: 1e−6·dk/2 relative */
    ck_assert(compare_f32("l2norm(q)", shape, y, q, n, 1e-6, 1e-6 * dk, NULL));
    free(k), free(q), free(y);
    golden_fixture_close(&f);
}
END_TEST

/* ---- 3. the fast twins ----------------------------------------------------------- */

/* Numbers of many sizes (1e-3 .. 1e3, either sign): squares twelve orders of magnitude
 * apart, so that a sum kept in float32 instead of double changes the outputs. (The order
 * of a row's additions in double does not show: it moves a sum by ~1e-13, and a float32
 * result only at a rounding tie.) */
static void fill_wide(float *x, int64_t n, unsigned seed) {
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        float m = (float)((seed >> 8) & 0xffff) / 65536.0f;
        x[i] = (seed & 1 ? -1.0f : 1.0f) * m * powf(10.0f, (float)((seed >> 4) % 7) - 3.0f);
    }
}

START_TEST(test_fast_equals_readable) {
    const int64_t rows_list[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 139};
    const int widths[] = {1, 3, 16, 17, 128, 256, 1024, 1027, 8193};
    int saved = pool_threads();
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
        int n = widths[wi];
        float *wf = xmalloc((size_t)n * sizeof(float));
        uint16_t *wb = xmalloc((size_t)n * sizeof(uint16_t));
        fill_wide(wf, n, 7u + (unsigned)n);
        for (int i = 0; i < n; i++) wf[i] *= 1e-3f, wb[i] = f32_to_bf16(wf[i]); /* |w| < 1 */
        Tensor wt32 = f32_tensor(wf, n), wt16 = wt32;
        wt16.dtype = DTYPE_BF16, wt16.data = wb;
        for (size_t ri = 0; ri < sizeof rows_list / sizeof *rows_list; ri++) {
            int64_t rows = rows_list[ri];
            size_t count = (size_t)rows * n;
            if (n > 1024 && rows > 9) continue; /* the wide rows need not be many */
            float *x = xmalloc(count * sizeof(float)), *want = xmalloc(count * sizeof(float));
            float *got = xmalloc(count * sizeof(float));
            fill_wide(x, (int64_t)count, (unsigned)(rows * 31 + n));
            char shape[48];
            snprintf(shape, sizeof shape, "%lld x %d", (long long)rows, n);
            for (int threads = 1; threads <= 3; threads++) {
                pool_set_threads(threads);
                for (int dt = 0; dt < 2; dt++) {
                    const Tensor *w = dt ? &wt16 : &wt32;
                    rmsnorm(x, w, rows, n, 1e-6f, want);
                    rmsnorm_fast(x, w, rows, n, 1e-6f, got);
                    ck_assert_msg(memcmp(got, want, count * sizeof(float)) == 0,
                                  "rmsnorm_fast differs from rmsnorm: %s, %s weight, %d threads", shape,
                                  dt ? "BF16" : "F32", threads);
                    memcpy(got, x, count * sizeof(float)); /* in place, as the layers call it */
                    rmsnorm_fast(got, w, rows, n, 1e-6f, got);
                    ck_assert_msg(memcmp(got, want, count * sizeof(float)) == 0,
                                  "rmsnorm_fast in place differs: %s, %d threads", shape, threads);
                }
                l2norm(x, rows, n, L2NORM_EPS, want);
                l2norm_fast(x, rows, n, L2NORM_EPS, got);
                ck_assert_msg(memcmp(got, want, count * sizeof(float)) == 0,
                              "l2norm_fast differs from l2norm: %s, %d threads", shape, threads);
                memcpy(got, x, count * sizeof(float));
                l2norm_fast(got, rows, n, L2NORM_EPS, got);
                ck_assert_msg(memcmp(got, want, count * sizeof(float)) == 0,
                              "l2norm_fast in place differs: %s, %d threads", shape, threads);
            }
            free(x), free(want), free(got);
        }
        free(wf), free(wb);
    }
    pool_set_threads(saved);
    printf("OK   rmsnorm_fast and l2norm_fast == the readable loops bit for bit: rows 1-139, widths "
           "1-8193, BF16/F32 weights, in place, 1-3 threads\n");
}
END_TEST

int main(void) {
    Suite *s = suite_create("norm");
    TCase *tc = tcase_create("norm");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_rmsnorm_by_hand);
    tcase_add_test(tc, test_gated_by_hand);
    tcase_add_test(tc, test_l2norm_by_hand);
    tcase_add_loop_test(tc, test_rmsnorm_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, test_gated_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, test_l2norm_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_test(tc, test_fast_equals_readable);
    suite_add_tcase(s, tc);
    /* Check runs each test in a child process that may end without flushing stdout:
     * line buffering keeps the comparison lines of a failing test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    return run_suite(s, CK_FORK_GETENV);
}
