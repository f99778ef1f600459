/* test_rope.c — common/rope: partial rotary position embedding.
 *
 *   1. a 2-pair RoPE worked by hand at positions 0 and 1;
 *   2. the cos/sin table against the PyTorch reference's golden (rope.cos, rope.sin),
 *      and q/k of the attention layer after q_norm/k_norm + RoPE against the golden
 *      layer.3.self_attn.q / .k, on the tiny checkpoint and on the mid one (the real
 *      head_dim 256 with 64 rotating dims);
 *   3. the property RoPE exists for: the rotated q·k depends only on the distance;
 *   4. bookkeeping: rope_reserve keeps old rows, the T-token form equals T single calls.
 *
 * The goldens come from reference/qwen35_reference.py (float64) run on the tiny and
 * mid checkpoints that `make test` writes to $TINY and $MID.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/norm.h"
#include "qwen/rope.h"
#include "qwen/safetensors.h"
#include "qwen/weights.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* ---- 1. by hand ----------------------------------------------------------------
 * head_dim 6, rotary_dim 4, theta 100: two pairs, (0, 2) and (1, 3); dims 4, 5 pass.
 *   inv_freq[0] = 100^(−0/4) = 1       (pair 0 turns 1 rad per token)
 *   inv_freq[1] = 100^(−2/4) = 0.1     (pair 1 turns 0.1 rad per token)
 * x = (1, 2, 3, 4, 5, 6).
 * Position 0: every angle is 0, cos = 1, sin = 0, so x comes back unchanged.
 * Position 1: cos 1 = 0.5403023, sin 1 = 0.8414710, cos 0.1 = 0.9950042, sin 0.1 = 0.0998334
 *   out[0] = x0·cos 1 − x2·sin 1     = 0.5403023 − 3·0.8414710   = −1.9841106
 *   out[2] = x2·cos 1 + x0·sin 1     = 3·0.5403023 + 0.8414710   =  2.4623779
 *   out[1] = x1·cos 0.1 − x3·sin 0.1 = 2·0.9950042 − 4·0.0998334 =  1.5906747
 *   out[3] = x3·cos 0.1 + x1·sin 0.1 = 4·0.9950042 + 2·0.0998334 =  4.1796835
 *   out[4] = 5, out[5] = 6 (not rotated)
 * Lengths are kept per pair: (1, 3) has length² 10 and so has (−1.9841, 2.4624). */
START_TEST(test_two_pairs_by_hand) {
    RopeTable rt;
    rope_init(&rt, 6, 4, 100.0, 2);
    ck_assert_int_eq(rt.half, 2);
    ck_assert_double_eq_tol(rt.inv_freq[0], 1.0, 1e-15);
    ck_assert_double_eq_tol(rt.inv_freq[1], 0.1, 1e-15);

    /* two heads: both must get the same rotation */
    float x[12] = {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}; /* [2 heads, 6] */
    float at0[12] = {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6};
    rope_apply(&rt, x, 2, 0);
    /* cos(0) = 1 and sin(0) = 0 exactly, so position 0 is the identity bit for bit */
    ck_assert(compare_f32("rope at position 0", "2 x 6", x, at0, 12, 0, 0, NULL));

    const float want1[6] = {-1.9841106f, 1.5906747f, 2.4623779f, 4.1796835f, 5, 6};
    float want[12];
    for (int i = 0; i < 12; i++) want[i] = want1[i % 6];
    rope_apply(&rt, x, 2, 1);
    /* the hand values carry 8 significant digits; float32 math differs by a few ulps */
    ck_assert(compare_f32("rope at position 1", "2 x 6", x, want, 12, 1e-6, 1e-6, NULL));
    /* the pass-through dims are not touched at all */
    ck_assert(x[4] == 5 && x[5] == 6 && x[10] == 5 && x[11] == 6);
    /* a rotation keeps each pair's length */
    ck_assert_double_eq_tol((double)x[0] * x[0] + (double)x[2] * x[2], 10.0, 1e-5);
    ck_assert_double_eq_tol((double)x[1] * x[1] + (double)x[3] * x[3], 20.0, 1e-5);
    rope_free(&rt);
}
END_TEST

/* The 0.8B settings: 64 of 256 dims, 32 frequencies from theta = 1e7. */
START_TEST(test_full_config_frequencies) {
    RopeTable rt;
    rope_init(&rt, 256, 64, 1e7, 1);
    ck_assert_int_eq(rt.half, 32);
    ck_assert(rt.inv_freq[0] == 1.0);
    /* pair 16 sits half way: 1e7^(−32/64) = 1/sqrt(1e7) = 3.1623e−4 */
    ck_assert_double_eq_tol(rt.inv_freq[16], 1.0 / sqrt(1e7), 1e-15);
    /* the slowest pair: 1e7^(−62/64); its wavelength 2π·1e7^(62/64) ≈ 3.79e7 tokens */
    ck_assert_double_eq_tol(2 * M_PI / rt.inv_freq[31], 2 * M_PI * pow(1e7, 62.0 / 64), 1e-3);
    for (int i = 1; i < 32; i++) ck_assert(rt.inv_freq[i] < rt.inv_freq[i - 1]);

    /* Far positions keep their precision: at p = 200 000 the angle of pair 0 is
     * 200 000 rad, where float32 steps by 0.016; the table must still hold
     * cos/sin of the exact angle (here in long double) to float32 rounding. */
    rope_reserve(&rt, 200001);
    const float *c = rope_cos(&rt, 200000), *s = rope_sin(&rt, 200000);
    for (int i = 0; i < 32; i++) {
        long double angle = 200000.0L * powl(1e7L, -2.0L * i / 64);
        ck_assert_msg(fabsl(c[i] - cosl(angle)) < 1e-7L && fabsl(s[i] - sinl(angle)) < 1e-7L,
                      "pair %d at 200000: cos %.9f sin %.9f, want %.9Lf %.9Lf", i, c[i], s[i], cosl(angle),
                      sinl(angle));
    }
    rope_free(&rt);
}
END_TEST

/* ---- 2. against the golden ------------------------------------------------------ */

START_TEST(test_tables_vs_golden) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    const Config *c = &f.model.ck.config;
    const Tensor *ids = st_find(&f.golden, "ids");
    ck_assert(ids);
    int T = (int)ids->numel, half = c->rotary_dim / 2;
    RopeTable rt;
    rope_init_config(&rt, c, T);
    ck_assert_int_eq(rt.half, half);
    float *want_cos = golden_values(&f, "rope.cos", (int64_t)T * half); /* [T, half] */
    float *want_sin = golden_values(&f, "rope.sin", (int64_t)T * half); /* [T, half] */
    char shape[32];
    snprintf(shape, sizeof shape, "%d x %d", T, half);
    /* Both sides compute the angle in double and round cos/sin once to float32:
     * they may differ by one float32 rounding (6e−8 relative) at most. */
    ck_assert(compare_f32("rope.cos", shape, rt.cos, want_cos, (int64_t)T * half, 1e-7, 0, NULL));
    ck_assert(compare_f32("rope.sin", shape, rt.sin, want_sin, (int64_t)T * half, 1e-7, 0, NULL));
    free(want_cos);
    free(want_sin);
    rope_free(&rt);
    golden_fixture_close(&f);
}
END_TEST

/* The attention layer of the tiny model: q = RoPE(q_norm(q_raw)), k = RoPE(k_norm(W_k x)).
 * q_raw and the layer input come from the golden; k is projected here by a plain
 * double loop (the linear layer is tested elsewhere). */
START_TEST(test_attention_q_k_vs_golden) {
    GoldenFixture f;
    golden_fixture_open_size(&f, _i);
    const Config *c = &f.model.ck.config;
    int layer = -1;
    for (int i = 0; i < c->num_hidden_layers && layer < 0; i++)
        if (c->layer_types[i] == LAYER_FULL_ATTENTION) layer = i;
    ck_assert_msg(layer >= 0, "the %s checkpoint has no full-attention layer", f.name);
    const AttnWeights *aw = &f.model.layers[layer].self_attn.w;
    int T = (int)st_find(&f.golden, "ids")->numel, H = c->hidden_size, d = c->head_dim;
    int Hq = c->num_attention_heads, Hkv = c->num_key_value_heads;
    float eps = (float)c->rms_norm_eps;
    char name[96], shape[48];

    RopeTable rt;
    rope_init_config(&rt, c, T);

    /* queries: [T, Hq, d] before the norm, straight from the golden */
    snprintf(name, sizeof name, "layer.%d.self_attn.q_raw", layer);
    float *q = golden_values(&f, name, (int64_t)T * Hq * d);
    rmsnorm(q, aw->q_norm, T * Hq, d, eps, q); /* every head of every token: one row of d */
    rope_apply_tokens(&rt, q, T, Hq, 0);
    snprintf(name, sizeof name, "layer.%d.self_attn.q", layer);
    float *want_q = golden_values(&f, name, (int64_t)T * Hq * d);
    snprintf(shape, sizeof shape, "%d x %d x %d", T, Hq, d);
    /* float32 norm + rotation vs float64: a few float32 roundings on values of size ~1 */
    ck_assert(compare_f32(name, shape, q, want_q, (int64_t)T * Hq * d, 2e-6, 2e-5, NULL));

    /* keys: project the golden layer input with W_k, then norm and rotate */
    snprintf(name, sizeof name, "layer.%d.input_norm", layer);
    float *x = golden_values(&f, name, (int64_t)T * H);      /* [T, H] */
    float *k = xmalloc((size_t)T * Hkv * d * sizeof(float)); /* [T, Hkv, d] */
    float *wrow = xmalloc((size_t)H * sizeof(float));        /* [H] */
    for (int o = 0; o < Hkv * d; o++) {
        tensor_read_f32(aw->k_proj, (int64_t)o * H, H, wrow);
        for (int t = 0; t < T; t++) {
            double s = 0;
            for (int i = 0; i < H; i++) s += (double)wrow[i] * x[(size_t)t * H + i];
            k[(size_t)t * Hkv * d + o] = (float)s;
        }
    }
    rmsnorm(k, aw->k_norm, T * Hkv, d, eps, k);
    rope_apply_tokens(&rt, k, T, Hkv, 0);
    snprintf(name, sizeof name, "layer.%d.self_attn.k", layer);
    float *want_k = golden_values(&f, name, (int64_t)T * Hkv * d);
    snprintf(shape, sizeof shape, "%d x %d x %d", T, Hkv, d);
    /* the projection's input is the float32-stored golden: one more rounding, same scale */
    ck_assert(compare_f32(name, shape, k, want_k, (int64_t)T * Hkv * d, 5e-6, 5e-5, NULL));

    free(q), free(want_q), free(x), free(k), free(wrow), free(want_k);
    rope_free(&rt);
    golden_fixture_close(&f);
}
END_TEST

/* ---- 3. only the distance counts -------------------------------------------------- */

/* A fixed pseudo-random vector in [−1, 1) (no libc rand: the same on every machine). */
static void fill(float *v, int n, uint32_t seed) {
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / (float)(1u << 23) - 1.0f;
    }
}

static double dot_at(const RopeTable *rt, const float *q, const float *k, int m, int n) {
    float qm[256], kn[256];
    memcpy(qm, q, sizeof qm);
    memcpy(kn, k, sizeof kn);
    rope_apply(rt, qm, 1, m);
    rope_apply(rt, kn, 1, n);
    double s = 0;
    for (int i = 0; i < 256; i++) s += (double)qm[i] * kn[i];
    return s;
}

START_TEST(test_relative_position) {
    RopeTable rt;
    rope_init(&rt, 256, 64, 1e7, 4100);
    float q[256], k[256];
    fill(q, 256, 1);
    fill(k, 256, 2);
    /* the same distance 3 at very different places gives the same score ... */
    double base = dot_at(&rt, q, k, 3, 0);
    int pairs[][2] = {{10, 7}, {100, 97}, {1000, 997}, {4099, 4096}};
    for (size_t p = 0; p < ARRAY_LEN(pairs); p++) {
        double s = dot_at(&rt, q, k, pairs[p][0], pairs[p][1]);
        /* float32 cos/sin (relative 6e−8) on 64 products of size ~1: well under 1e−4 */
        ck_assert_msg(fabs(s - base) < 1e-4, "q·k at (%d, %d) = %.7f, at (3, 0) = %.7f", pairs[p][0],
                      pairs[p][1], s, base);
    }
    /* ... and a different distance a different one (so the check above can fail) */
    double other = dot_at(&rt, q, k, 4, 0);
    ck_assert_msg(fabs(other - base) > 1e-2, "q·k at distance 4 (%.7f) equals distance 3 (%.7f)", other,
                  base);
    /* at distance 0 the rotation cancels: the score is the plain q·k */
    double plain = 0;
    for (int i = 0; i < 256; i++) plain += (double)q[i] * k[i];
    ck_assert_double_eq_tol(dot_at(&rt, q, k, 2000, 2000), plain, 1e-4);
    rope_free(&rt);
}
END_TEST

/* ---- 4. bookkeeping ------------------------------------------------------------- */

START_TEST(test_reserve_and_tokens) {
    RopeTable grown, fresh;
    rope_init(&grown, 256, 64, 1e7, 3);
    for (int n = 4; n <= 300; n += 37) rope_reserve(&grown, n); /* decoding, a few tokens at a time */
    rope_reserve(&grown, 300);
    rope_init(&fresh, 256, 64, 1e7, 300);
    ck_assert_int_eq(grown.n_pos, 300);
    ck_assert(compare_f32("cos after growing", "300 x 32", grown.cos, fresh.cos, 300 * 32, 0, 0, NULL));
    ck_assert(compare_f32("sin after growing", "300 x 32", grown.sin, fresh.sin, 300 * 32, 0, 0, NULL));

    /* [5 tokens, 3 heads, 256] from position 40 == one token at a time */
    enum { T = 5, HEADS = 3, D = 256 };
    float *a = xmalloc(T * HEADS * D * sizeof(float)), *b = xmalloc(T * HEADS * D * sizeof(float));
    fill(a, T * HEADS * D, 7);
    memcpy(b, a, T * HEADS * D * sizeof(float));
    rope_apply_tokens(&fresh, a, T, HEADS, 40);
    for (int t = 0; t < T; t++) rope_apply(&fresh, b + t * HEADS * D, HEADS, 40 + t);
    ck_assert(compare_f32("tokens vs one at a time", "5 x 3 x 256", a, b, T * HEADS * D, 0, 0, NULL));
    free(a), free(b);
    rope_free(&grown);
    rope_free(&fresh);
}
END_TEST

int main(void) {
    Suite *s = suite_create("rope");
    TCase *tc = tcase_create("rope");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_two_pairs_by_hand);
    tcase_add_test(tc, test_full_config_frequencies);
    tcase_add_loop_test(tc, test_tables_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, test_attention_q_k_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_test(tc, test_relative_position);
    tcase_add_test(tc, test_reserve_and_tokens);
    suite_add_tcase(s, tc);
    /* Check runs each test in a child process that may end without flushing stdout:
     * line buffering keeps the comparison lines of a failing test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    return run_suite(s, CK_FORK_GETENV);
}
