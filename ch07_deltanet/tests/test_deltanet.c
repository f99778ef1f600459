/* test_deltanet — the Gated DeltaNet layer (common/qwen/deltanet.h).
 *
 *   - the chapter's hand-worked 2 × 2 table: writing, reading, overwriting with the
 *     delta rule, half a write with β = 0.5, decaying with α = 0.5;
 *   - the short convolution on numbers small enough to check by hand;
 *   - the fast delta_rule equals the four-loop delta_rule_ref bit for bit, with more
 *     value heads than key heads, from an empty and from a given table, on 1 and 2
 *     threads, and a table's −0 kept as the four loops keep it;
 *   - every intermediate of the layer against the PyTorch reference
 *     (reference/golden/tiny_forward.safetensors, float64 math on the tiny checkpoint
 *     in $TINY, which has 2 key heads and 4 value heads), for all three DeltaNet
 *     layers and for a 33-token run; and at the real widths
 *     (reference/golden/mid_forward.safetensors on the mid checkpoint in $MID):
 *     every intermediate of layer 0, the outputs of layers 1 and 2;
 *   - reading a text token by token (conv state + tables) equals one pass, and so
 *     does handing the state over between two halves (both checkpoints).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/activations.h"
#include "qwen/deltanet.h"
#include "qwen/norm.h"
#include "qwen/safetensors.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* ---- the chapter's 2 × 2 example, by hand ---------------------------------- */

/* One token through delta_rule on a single 2 × 2 table (one key head, one value head). */
static void one_step(const float k[2], const float v[2], const float q[2], float alpha, float beta,
                     const float S0[4], float S[4], float o[2]) {
    float g = logf(alpha);
    delta_rule(q, k, v, &g, &beta, 1, 1, 1, 2, 2, S0, S, o);
}

START_TEST(hand_worked_table) {
    const float k1[2] = {1, 0}, k2[2] = {0, 1}, v1[2] = {3, 1}, v2[2] = {-1, 2};
    /* Writing k1 → (3, 1), then k2 → (−1, 2), into an empty table with β = 1 and no
     * decay: nothing is there to look up (pred = 0), so each write is k vᵀ and the
     * table is [[3, 1], [−1, 2]], row i = what key i stored. */
    float q[2 * 2] = {1, 0, 0.6f, 0.8f}, k[2 * 2] = {1, 0, 0, 1}, v[2 * 2] = {3, 1, -1, 2};
    float g[2] = {0, 0}, beta[2] = {1, 1}, S[4], o[2 * 2];
    delta_rule(q, k, v, g, beta, 2, 1, 1, 2, 2, NULL, S, o);
    ck_assert_float_eq(S[0], 3);
    ck_assert_float_eq(S[1], 1);
    ck_assert_float_eq(S[2], -1);
    ck_assert_float_eq(S[3], 2);
    /* Reading after token 1 with q = (1, 0): exactly what k1 stored. */
    ck_assert_float_eq(o[0], 3);
    ck_assert_float_eq(o[1], 1);
    /* Reading after token 2 with q = (0.6, 0.8): 0.6 (3, 1) + 0.8 (−1, 2) = (1.0, 2.2). */
    ck_assert_float_eq_tol(o[2], 1.0f, 1e-6f);
    ck_assert_float_eq_tol(o[3], 2.2f, 1e-6f);

    /* DeltaNet, β = 1: k1 should now hold (5, 0). Looked up first: (3, 1); the
     * difference (2, −1) is written, and reading k1 gives exactly (5, 0). The k2 row
     * is untouched. */
    const float table[4] = {3, 1, -1, 2}, v_new[2] = {5, 0};
    float T1[4], r[2];
    one_step(k1, v_new, k1, 1.0f, 1.0f, table, T1, r);
    ck_assert_float_eq(r[0], 5);
    ck_assert_float_eq(r[1], 0);
    ck_assert_float_eq(T1[2], -1);
    ck_assert_float_eq(T1[3], 2);
    /* β = 0.5 goes half way: (3, 1) + 0.5 (2, −1) = (4, 0.5). */
    one_step(k1, v_new, k1, 1.0f, 0.5f, table, T1, r);
    ck_assert_float_eq(r[0], 4);
    ck_assert_float_eq(r[1], 0.5f);
    /* Gated DeltaNet, α = 0.5: the whole table is halved first, then k1 is
     * overwritten with (5, 0); the k2 row, not written again, fades to (−0.5, 1). */
    one_step(k1, v_new, k2, 0.5f, 1.0f, table, T1, r);
    ck_assert_float_eq_tol(T1[0], 5, 1e-6f);
    ck_assert_float_eq_tol(T1[1], 0, 1e-6f);
    ck_assert_float_eq_tol(r[0], -0.5f, 1e-6f);
    ck_assert_float_eq_tol(r[1], 1.0f, 1e-6f);
    /* Same key written again with β = 1: nothing piles up (linear attention would read (8, 1)). */
    one_step(k1, v_new, k1, 1.0f, 1.0f, T1, T1, r);
    ck_assert_float_eq_tol(r[0], 5, 1e-6f);
    ck_assert_float_eq_tol(r[1], 0, 1e-6f);
    (void)v1, (void)v2;
}
END_TEST

/* ---- the short convolution, by hand ------------------------------------------ */

static float silu(float x) { return x / (1.0f + expf(-x)); }

typedef void ConvFn(const float *x, const float *w, int T, int C, int kernel, float *state, float *out);

START_TEST(conv_by_hand) {
    /* Two channels, window 3. Channel 0 taps (1, 2, 3) (oldest first), channel 1 taps
     * (0, 0, 1) (passes the current token through). Inputs 1, 2, 3, 4 on channel 0 and
     * 10, 20, 30, 40 on channel 1. Both the kernel and the plain reference. */
    ConvFn *conv = _i ? causal_conv_silu_ref : causal_conv_silu;
    const float w[3 * 2] = {1, 0, 2, 0, 3, 1}; /* [kernel, C] */
    const float x[4 * 2] = {1, 10, 2, 20, 3, 30, 4, 40};
    float state[2 * 2] = {0}, out[4 * 2];
    conv(x, w, 4, 2, 3, state, out);
    /* Channel 0: t0 = 3·1 = 3; t1 = 2·1 + 3·2 = 8; t2 = 1 + 4 + 9 = 14; t3 = 2 + 6 + 12 = 20. */
    const float pre0[4] = {3, 8, 14, 20};
    for (int t = 0; t < 4; t++) {
        ck_assert_float_eq_tol(out[t * 2], silu(pre0[t]), 1e-5f);
        ck_assert_float_eq_tol(out[t * 2 + 1], silu(x[t * 2 + 1]), 1e-5f);
    }
    /* The state keeps the last two pre-conv vectors: (3, 30), (4, 40). */
    ck_assert_float_eq(state[0], 3);
    ck_assert_float_eq(state[1], 30);
    ck_assert_float_eq(state[2], 4);
    ck_assert_float_eq(state[3], 40);
    /* One more token, 5 on channel 0: 1·3 + 2·4 + 3·5 = 26 — the state supplied the past. */
    const float x5[2] = {5, 50};
    float o5[2];
    conv(x5, w, 1, 2, 3, state, o5);
    ck_assert_float_eq_tol(o5[0], silu(26), 1e-5f);
    ck_assert_float_eq(state[0], 4);
    ck_assert_float_eq(state[2], 5);
}
END_TEST

/* silu_vec against silu computed in double, over [-100, 100] (beyond, silu(x) is x
 * or rounds to nothing): within 2e-7 relative, i.e. 1-3 float32 steps (a step is
 * 6e-8 to 1.2e-7 of a value); far out it gives exactly x, resp. (minus) almost 0. */
START_TEST(silu_vec_matches_siluf) {
    enum { N = 200001 };
    float *x = xmalloc(sizeof(float) * N), *y = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) x[i] = -100.0f + 200.0f * (float)i / (N - 1);
    silu_vec(x, N, y);
    double worst = 0, worst_f = 0;
    for (int i = 0; i < N; i++) {
        double want = x[i] / (1.0 + exp(-(double)x[i])), rel = fabs(y[i] - want) / fmax(fabs(want), 1e-30);
        if (fabs(want) > 1e-30 && rel > worst) worst = rel;
        double rel_f = fabs(siluf(x[i]) - want) / fmax(fabs(want), 1e-30);
        if (fabs(want) > 1e-30 && rel_f > worst_f) worst_f = rel_f;
    }
    printf("OK   silu_vec vs silu in double on [-100, 100]: max rel %.3g (siluf: %.3g)\n", worst, worst_f);
    ck_assert_msg(worst < 2e-7, "silu_vec differs from silu by %g relative", worst);
    const float big[4] = {1e30f, 120.0f, -120.0f, -1e30f};
    float out[4];
    silu_vec(big, 4, out);
    ck_assert_float_eq(out[0], 1e30f);
    ck_assert_float_eq(out[1], 120.0f);
    ck_assert(fabsf(out[2]) < 1e-30f && fabsf(out[3]) < 1e-6f);
    ck_assert(!isnan(out[3]));
    free(x), free(y);
}
END_TEST

/* A small, repeatable stream of numbers in [-0.5, 0.5). */
static float frand(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* gated_norm_heads (the layer's fast path) against norm.h's gated_rmsnorm (the
 * reference, summing in double and taking silu one value at a time): 4 heads of 128,
 * outputs of very different sizes per head. Each output is a handful of float32
 * operations from its inputs, so 1e-6 relative (~10 float32 steps) is ample, and far
 * below what a wrong formula gives (a missing gate or 1 + w: 10% and more). */
START_TEST(gated_norm_matches_norm_module) {
    enum { H = 4, D = 128 };
    unsigned s = 3;
    float o[H * D], z[H * D], w[D], fast[H * D], ref[H * D];
    for (int h = 0; h < H; h++)
        for (int j = 0; j < D; j++)
            o[h * D + j] = frand(&s) * powf(10.0f, (float)h - 2), z[h * D + j] = 8 * frand(&s);
    for (int j = 0; j < D; j++) w[j] = 1.0f + 0.2f * frand(&s);
    Tensor wt = {.name = "norm.weight", .dtype = DTYPE_F32, .ndim = 1, .shape = {D}, .numel = D, .data = w};
    gated_norm_heads(o, z, w, H, D, 1e-6f, fast);
    gated_rmsnorm(o, z, &wt, H, D, 1e-6f, ref);
    ck_assert(
        compare_f32("gated_norm_heads vs gated_rmsnorm", "4 x 128", fast, ref, H * D, 1e-30, 1e-6, NULL));
}
END_TEST

/* The blocked kernel against the plain loops, at a width that is not a whole number
 * of its 512-channel blocks (1300 = 2 × 512 + 276) and at the real width 6144, with
 * random taps per channel (so a block that used another block's taps would show) and
 * the state carried through pieces of 5, 1, 2 and 9 tokens, windows 4 and 2. The sums
 * are the same operations in the same order; only SiLU differs (silu_vec vs siluf,
 * within 2e-7 relative), so the outputs agree to 3e-7 and the states exactly. */
START_TEST(conv_fast_matches_reference) {
    const int widths[] = {1300, 6144}, kernels[] = {4, 2}, pieces[] = {5, 1, 2, 9};
    for (size_t wi = 0; wi < ARRAY_LEN(widths); wi++)
        for (size_t ki = 0; ki < ARRAY_LEN(kernels); ki++) {
            int C = widths[wi], K = kernels[ki], T = 17;
            unsigned s = 11 + (unsigned)(wi * 2 + ki);
            float *w = xmalloc(sizeof(float) * K * C), *x = xmalloc(sizeof(float) * T * C);
            float *st_fast = xmalloc(sizeof(float) * (K - 1) * C),
                  *st_ref = xmalloc(sizeof(float) * (K - 1) * C);
            float *o_fast = xmalloc(sizeof(float) * T * C), *o_ref = xmalloc(sizeof(float) * T * C);
            for (int i = 0; i < K * C; i++) w[i] = 2 * frand(&s);
            for (int i = 0; i < T * C; i++) x[i] = 8 * frand(&s);
            for (int i = 0; i < (K - 1) * C; i++)
                st_fast[i] = st_ref[i] = 8 * frand(&s); /* a text already read */
            for (int p = 0, t = 0; p < (int)ARRAY_LEN(pieces); t += pieces[p++]) {
                causal_conv_silu(x + (size_t)t * C, w, pieces[p], C, K, st_fast, o_fast + (size_t)t * C);
                causal_conv_silu_ref(x + (size_t)t * C, w, pieces[p], C, K, st_ref, o_ref + (size_t)t * C);
                ck_assert_msg(memcmp(st_fast, st_ref, sizeof(float) * (K - 1) * C) == 0,
                              "C %d, kernel %d: conv states differ after piece %d", C, K, p);
            }
            char name[96];
            snprintf(name, sizeof name, "causal_conv_silu vs _ref, C %d, kernel %d, 4 pieces", C, K);
            ck_assert(compare_f32(name, NULL, o_fast, o_ref, (int64_t)T * C, 1e-30, 3e-7, NULL));
            free(w), free(x), free(st_fast), free(st_ref), free(o_fast), free(o_ref);
        }
}
END_TEST

/* ---- fast delta rule == the four loops ---------------------------------------- */

START_TEST(fast_equals_reference) {
    /* 3 key heads, 6 value heads (each key head read by two), 9 tokens; value widths
     * for every path of delta_rule: 128 (the model's, 8 vectors of 16), 16 (one
     * vector: the tiny model), 64 (4 vectors), 40 (not whole vectors: plain loops). */
    enum { T = 9, NK = 3, NV = 6, DK = 24 };
    const int widths[] = {128, 16, 64, 40};
    for (size_t w = 0; w < ARRAY_LEN(widths); w++) {
        int DV = widths[w];
        unsigned s = 7 + (unsigned)w;
        float *q = xmalloc(sizeof(float) * T * NK * DK), *k = xmalloc(sizeof(float) * T * NK * DK);
        float *v = xmalloc(sizeof(float) * T * NV * DV), g[T * NV], beta[T * NV];
        for (int i = 0; i < T * NK * DK; i++) q[i] = frand(&s), k[i] = frand(&s);
        for (int i = 0; i < T * NV * DV; i++) v[i] = frand(&s);
        for (int i = 0; i < T * NV; i++) g[i] = -fabsf(frand(&s)) * 4, beta[i] = frand(&s) + 0.5f;
        size_t n_tab = (size_t)NV * DK * DV, n_out = (size_t)T * NV * DV;
        float *S0 = xmalloc(sizeof(float) * n_tab);
        for (size_t i = 0; i < n_tab; i++) S0[i] = frand(&s);

        for (int from_table = 0; from_table < 2; from_table++) {
            const float *init = from_table ? S0 : NULL;
            float *S_ref = xmalloc(sizeof(float) * n_tab), *o_ref = xmalloc(sizeof(float) * n_out);
            delta_rule_ref(q, k, v, g, beta, T, NK, NV, DK, DV, init, S_ref, o_ref);
            for (int threads = 1; threads <= 2; threads++) {
                pool_set_threads(threads);
                float *S = xmalloc(sizeof(float) * n_tab), *o = xmalloc(sizeof(float) * n_out);
                for (size_t i = 0; i < n_tab; i++) S[i] = NAN; /* whatever was there must not matter */
                delta_rule(q, k, v, g, beta, T, NK, NV, DK, DV, init, S, o);
                ck_assert_msg(memcmp(S, S_ref, sizeof(float) * n_tab) == 0,
                              "dv %d: tables differ (%d threads)", DV, threads);
                ck_assert_msg(memcmp(o, o_ref, sizeof(float) * n_out) == 0,
                              "dv %d: outputs differ (%d threads)", DV, threads);
                free(S), free(o);
            }
            free(S_ref), free(o_ref);
        }
        /* One token on a given table, a decode step (its own look-up, then one sweep). */
        {
            float *S_ref = xmalloc(sizeof(float) * n_tab), *S1 = xmalloc(sizeof(float) * n_tab);
            float o_ref[NV * 128], o1[NV * 128];
            delta_rule_ref(q, k, v, g, beta, 1, NK, NV, DK, DV, S0, S_ref, o_ref);
            delta_rule(q, k, v, g, beta, 1, NK, NV, DK, DV, S0, S1, o1);
            ck_assert_msg(memcmp(S1, S_ref, sizeof(float) * n_tab) == 0, "dv %d: one token's tables differ", DV);
            ck_assert_msg(memcmp(o1, o_ref, sizeof(float) * NV * DV) == 0, "dv %d: one token's outputs differ",
                          DV);
            free(S_ref), free(S1);
        }
        /* S0 == S: continuing in place gives the same as into a new buffer. */
        float *S_in = xmalloc(sizeof(float) * n_tab), *S_out = xmalloc(sizeof(float) * n_tab);
        float *o1 = xmalloc(sizeof(float) * n_out), *o2 = xmalloc(sizeof(float) * n_out);
        memcpy(S_in, S0, sizeof(float) * n_tab);
        delta_rule(q, k, v, g, beta, T, NK, NV, DK, DV, S0, S_out, o1);
        delta_rule(q, k, v, g, beta, T, NK, NV, DK, DV, S_in, S_in, o2);
        ck_assert(memcmp(S_in, S_out, sizeof(float) * n_tab) == 0);
        ck_assert(memcmp(o1, o2, sizeof(float) * n_out) == 0);
        printf(
            "OK   delta_rule == delta_rule_ref bit for bit, dv %d, 1 and 2 threads, empty and given tables, "
            "9 tokens and 1\n",
            DV);
        free(S_in), free(S_out), free(o1), free(o2);
        free(q), free(k), free(v), free(S0);
    }
    pool_set_threads(2);
}
END_TEST

/* A table that holds −0 where the keys are 0. The four loops keep such a zero's sign
 * (−0 · decay = −0, and −0 + (+0 · a negative difference) = −0); a sweep that adds a
 * zero it has no token for (0 · 0 = +0) would store +0 instead. Every row of the key
 * dimensions the keys leave at 0 stays a zero of either sign, and the tables are
 * compared bit for bit: from a given table, one token and several. */
START_TEST(fast_keeps_the_sign_of_zero) {
    enum { T = 3, DK = 16, DV = 16 };
    unsigned s = 11;
    float q[T * DK], k[T * DK], v[T * DV], g[T], beta[T], S0[DK * DV];
    for (int i = 0; i < T * DK; i++) q[i] = frand(&s), k[i] = i % DK < DK / 2 ? 0.0f : frand(&s);
    for (int i = 0; i < T * DV; i++) v[i] = frand(&s); /* differences of both signs */
    for (int t = 0; t < T; t++) g[t] = -0.5f, beta[t] = 1.0f;
    for (int i = 0; i < DK * DV; i++) S0[i] = i < DK / 2 * DV ? -0.0f : frand(&s); /* rows k leaves at 0 */
    const int counts[] = {1, T}; /* tokens: a decode step, and a prompt */
    for (size_t c = 0; c < ARRAY_LEN(counts); c++) {
        int n = counts[c];
        float S_ref[DK * DV], S[DK * DV], o_ref[T * DV], o[T * DV];
        delta_rule_ref(q, k, v, g, beta, n, 1, 1, DK, DV, S0, S_ref, o_ref);
        delta_rule(q, k, v, g, beta, n, 1, 1, DK, DV, S0, S, o);
        int minus = 0;
        for (int i = 0; i < DK / 2 * DV; i++) minus += signbit(S_ref[i]) != 0;
        ck_assert_msg(minus > 0 && minus < DK / 2 * DV,
                      "%d tokens: the test needs zeros of both signs, has %d of %d negative", n, minus,
                      DK / 2 * DV);
        ck_assert_msg(memcmp(S, S_ref, sizeof S) == 0, "%d tokens: the tables differ (a zero's sign?)", n);
        ck_assert_msg(memcmp(o, o_ref, sizeof(float) * n * DV) == 0, "%d tokens: the outputs differ", n);
    }
    printf("OK   delta_rule keeps a table's -0 where the key is 0, as delta_rule_ref does (1 token and 3)\n");
}
END_TEST

/* ---- against the PyTorch reference ---------------------------------------------- */

/* The goldens and the checkpoints they came from (common/tests/golden_fixture.h):
 * fx[GOLDEN_TINY] (hidden 64, 2 key / 4 value heads of 16) and fx[GOLDEN_MID] (the real
 * widths: hidden 1024, 16 + 16 heads of 128, a 6144-channel convolution, i.e. twelve
 * of the kernel's 512-channel blocks, each with its own taps). The loop tests below run
 * once per checkpoint, _i being the GoldenSize. */
static GoldenFixture fx[GOLDEN_SIZES];

static void open_all(void) {
    for (int s = 0; s < GOLDEN_SIZES; s++) golden_fixture_open_size(&fx[s], s);
}
static void close_all(void) {
    for (int s = 0; s < GOLDEN_SIZES; s++) golden_fixture_close(&fx[s]);
}

/* A golden tensor as float32, with its element count checked. */
static const float *gold(const GoldenFixture *f, const char *name, int64_t numel) {
    return golden_f32(&f->golden, name, numel);
}

static int64_t gold_rows(const GoldenFixture *f, const char *name) { return golden_rows(&f->golden, name); }

/* The text the state tests read: tiny's 33-token run (long.*), mid's 7 tokens. */
static const char *run_prefix(const GoldenFixture *f) { return f->size == GOLDEN_MID ? "" : "long."; }

/* Key-head tensor [T, n_k, dk] as the reference stores it, [T, n_v, dk]. */
static float *repeat_heads(const DeltaNetDims *d, const float *x, int T) {
    float *y = xmalloc(sizeof(float) * T * d->n_v * d->dk);
    dn_repeat_key_heads(d, x, T, y);
    return y;
}

static bool check(const GoldenFixture *f, const char *prefix, const char *what, const float *got, int64_t n,
                  double atol, double rtol) {
    char name[128];
    snprintf(name, sizeof name, "%s.%s", prefix, what);
    return golden_check(&f->golden, name, got, n, atol, rtol);
}

/* Tolerances. The reference computes in float64 from the same BF16/F32 weights, the
 * layer in float32, so what is left is float32 rounding (6e-8 relative per
 * operation) through sums of 64 products (the tiny model's hidden size) and the
 * recurrence. The values are at most ~4.5 in size (normed; rms 0.03 to 1 depending
 * on the tensor), and the largest differences seen are 2.3e-6 (normed, ~5 float32
 * steps at that size) and 1.6e-6 (the 33-token output); every comparison prints its
 * own. atol 1e-5 + rtol 1e-5 leaves a factor of 4 or more above that, and is still
 * 1000 times smaller than what a real mistake does (a wrong head, a missing
 * sqrt(dk), a step out of order, e^g instead of g: 1e-2 and more). Relative
 * differences near zero (up to 1e-3 on values of 1e-4) are covered by atol.
 *
 * At the real widths (mid) the projections sum 1024 (in_proj_*) and 2048 (out_proj)
 * products instead of 64, so float32's rounding grows (~sqrt(16) to sqrt(32) times);
 * the largest differences seen there are 4.8e-6 (normed) and 1.1e-6 (out). MID_ATOL
 * keeps a factor of 4, and a mistake still lands 500 times beyond it: a block of the
 * convolution with another block's taps moves layer 0's output by ~1. */
#define ATOL     1e-5
#define RTOL     1e-5
#define MID_ATOL 2e-5

/* What a golden holds of a layer: only its output (mid's layers 1 and 2), the output
 * with the delta rule's read-out and final tables (tiny's 33-token run), everything. */
typedef enum { DN_OUT, DN_CORE_STATE_OUT, DN_ALL } DnGolden;

static void check_layer(const GoldenFixture *f, int layer, const char *prefix_in, int T, DnGolden what) {
    const DeltaNet *dn = &f->model.layers[layer].linear_attn;
    const DeltaNetDims *d = &dn->d;
    char pre[64], name[96];
    snprintf(pre, sizeof pre, "%slayer.%d.linear_attn", prefix_in, layer);
    snprintf(name, sizeof name, "%slayer.%d.input_norm", prefix_in, layer);
    ck_assert_int_eq(gold_rows(f, name), T);
    const float *x = gold(f, name, (int64_t)T * d->hidden);

    DeltaNetActs a;
    DeltaNetState st;
    dn_acts_init(&a, d, T);
    dn_state_init(&st, d);
    float *y = xmalloc(sizeof(float) * T * d->hidden);
    dn_forward(dn, &a, x, T, &st, y, PATH_FAST);

    double atol = f->size == GOLDEN_MID ? MID_ATOL : ATOL;
    bool ok = true;
    if (what == DN_ALL) {
        float *q = repeat_heads(d, a.q, T), *k = repeat_heads(d, a.k, T);
        ok &= check(f, pre, "qkv", a.qkv, (int64_t)T * d->conv_dim, atol, RTOL);
        ok &= check(f, pre, "conv", a.conv, (int64_t)T * d->conv_dim, atol, RTOL);
        ok &= check(f, pre, "q", q, (int64_t)T * d->n_v * d->dk, atol, RTOL);
        ok &= check(f, pre, "k", k, (int64_t)T * d->n_v * d->dk, atol, RTOL);
        ok &= check(f, pre, "v", a.v, (int64_t)T * d->value_dim, atol, RTOL);
        ok &= check(f, pre, "beta", a.beta, (int64_t)T * d->n_v, atol, RTOL);
        ok &= check(f, pre, "g", a.g, (int64_t)T * d->n_v, atol, RTOL);
        ok &= check(f, pre, "z", a.z, (int64_t)T * d->value_dim, atol, RTOL);
        ok &= check(f, pre, "normed", a.normed, (int64_t)T * d->value_dim, atol, RTOL);
        free(q), free(k);
    }
    if (what != DN_OUT) {
        ok &= check(f, pre, "core", a.core, (int64_t)T * d->value_dim, atol, RTOL);
        ok &= check(f, pre, "state", st.S, (int64_t)d->n_v * d->dk * d->dv, atol, RTOL);
    }
    ok &= check(f, pre, "out", y, (int64_t)T * d->hidden, atol, RTOL);
    ck_assert_int_eq(st.n_tokens, T);
    ck_assert_msg(ok, "%s (%s) differs from the PyTorch reference (see the lines above)", pre, f->name);

    free(y);
    dn_acts_free(&a);
    dn_state_free(&st);
}

START_TEST(golden_layers) {
    /* Layers 0, 1, 2 are DeltaNet layers (LLLF): every intermediate of each in tiny;
     * in mid every intermediate of layer 0 and the outputs of layers 1 and 2. */
    const GoldenFixture *f = &fx[_i];
    int T = (int)gold_rows(f, "ids");
    for (int layer = 0; layer < 3; layer++) {
        ck_assert(f->model.layers[layer].type == LAYER_LINEAR_ATTENTION);
        check_layer(f, layer, "", T, f->size == GOLDEN_MID && layer > 0 ? DN_OUT : DN_ALL);
    }
}
END_TEST

START_TEST(golden_long) {
    const GoldenFixture *f = &fx[GOLDEN_TINY];
    check_layer(f, 0, "long.", (int)gold_rows(f, "long.ids"), DN_CORE_STATE_OUT);
}
END_TEST

/* The layer's input, as the demo builds it: embedding rows, then input_layernorm. */
START_TEST(golden_input) {
    const GoldenFixture *f = &fx[_i];
    int T = (int)gold_rows(f, "ids"), H = f->model.ck.config.hidden_size;
    const float *ids = gold(f, "ids", T);
    float *x = xmalloc(sizeof(float) * T * H);
    for (int t = 0; t < T; t++)
        tensor_read_f32(f->model.embed_tokens, (int64_t)ids[t] * H, H, x + (size_t)t * H);
    rmsnorm(x, f->model.layers[0].input_layernorm, T, H, (float)f->model.ck.config.rms_norm_eps, x);
    char shape[32];
    snprintf(shape, sizeof shape, "%d x %d", T, H);
    ck_assert(compare_f32("layer.0.input_norm", shape, x, gold(f, "layer.0.input_norm", (int64_t)T * H),
                          (int64_t)T * H, ATOL, RTOL, NULL));
    free(x);
}
END_TEST

/* ---- state: token by token, and two halves -------------------------------------- */

/* The run's input through layer 0 in pieces of the given lengths, the state carried
 * from each piece to the next; returns the outputs [T, hidden] and leaves the final
 * state in st. */
static float *run_in_pieces(const DeltaNet *dn, const float *x, int T, const int *lens, int n_pieces,
                            DeltaNetState *st) {
    const DeltaNetDims *d = &dn->d;
    float *y = xmalloc(sizeof(float) * T * d->hidden);
    DeltaNetActs a;
    dn_acts_init(&a, d, T);
    int t = 0;
    for (int p = 0; p < n_pieces; p++) {
        dn_forward(dn, &a, x + (size_t)t * d->hidden, lens[p], st, y + (size_t)t * d->hidden, PATH_FAST);
        t += lens[p];
    }
    dn_acts_free(&a);
    ck_assert_int_eq(t, T);
    ck_assert_int_eq(st->n_tokens, T);
    return y;
}

static void compare_runs(const DeltaNet *dn, int T, const float *y1, const DeltaNetState *s1, const float *y2,
                         const DeltaNetState *s2, const char *what) {
    const DeltaNetDims *d = &dn->d;
    char name[128];
    /* Same projections (linear_batch's rows equal linear() bit for bit), same conv
     * inputs through the state, same per-head arithmetic: the result is the same to
     * the last bit, so the tolerance is zero. */
    snprintf(name, sizeof name, "%s: out", what);
    ck_assert(compare_f32(name, NULL, y2, y1, (int64_t)T * d->hidden, 0, 0, NULL));
    snprintf(name, sizeof name, "%s: tables", what);
    ck_assert(compare_f32(name, NULL, s2->S, s1->S, (int64_t)d->n_v * d->dk * d->dv, 0, 0, NULL));
    snprintf(name, sizeof name, "%s: conv state", what);
    ck_assert(
        compare_f32(name, NULL, s2->conv, s1->conv, (int64_t)(d->kernel - 1) * d->conv_dim, 0, 0, NULL));
}

/* Layer 0, the run's length T and its input [T, hidden] (golden {prefix}layer.0.input_norm). */
static const float *run_input(const GoldenFixture *f, DeltaNet *dn, int *T) {
    char name[96];
    *dn = f->model.layers[0].linear_attn;
    snprintf(name, sizeof name, "%sids", run_prefix(f));
    *T = (int)gold_rows(f, name);
    snprintf(name, sizeof name, "%slayer.0.input_norm", run_prefix(f));
    return gold(f, name, (int64_t)*T * dn->d.hidden);
}

/* The run's output of layer 0 in the golden, [T, hidden]. */
static const float *run_output(const GoldenFixture *f, int T, int hidden) {
    char name[96];
    snprintf(name, sizeof name, "%slayer.0.linear_attn.out", run_prefix(f));
    return gold(f, name, (int64_t)T * hidden);
}

START_TEST(token_by_token_equals_full_pass) {
    const GoldenFixture *f = &fx[_i];
    DeltaNet dn;
    int T;
    const float *x = run_input(f, &dn, &T);
    DeltaNetState full, step;
    dn_state_init(&full, &dn.d);
    dn_state_init(&step, &dn.d);
    int whole[1] = {T}, *ones = xmalloc(sizeof(int) * T);
    for (int t = 0; t < T; t++) ones[t] = 1;
    float *y1 = run_in_pieces(&dn, x, T, whole, 1, &full);
    float *y2 = run_in_pieces(&dn, x, T, ones, T, &step);
    compare_runs(&dn, T, y1, &full, y2, &step, "token by token vs one pass");
    /* And the one pass is the reference's. */
    ck_assert(compare_f32("one pass vs reference", NULL, y1, run_output(f, T, dn.d.hidden),
                          (int64_t)T * dn.d.hidden, f->size == GOLDEN_MID ? MID_ATOL : ATOL, RTOL, NULL));
    free(ones), free(y1), free(y2);
    dn_state_free(&full), dn_state_free(&step);
}
END_TEST

START_TEST(two_halves_equal_one_pass) {
    const GoldenFixture *f = &fx[_i];
    DeltaNet dn;
    int T;
    const float *x = run_input(f, &dn, &T);
    int whole[1] = {T};
    /* Halves of every split, including pieces shorter than the conv history (1, 2)
     * where the new history still has rows of the old one. */
    int splits[] = {1, 2, 3, 16, T - 2, T - 1};
    DeltaNetState one;
    dn_state_init(&one, &dn.d);
    float *y1 = run_in_pieces(&dn, x, T, whole, 1, &one);
    for (size_t i = 0; i < ARRAY_LEN(splits); i++) {
        if (splits[i] >= T) continue; /* 16 of mid's 7 tokens */
        int halves[2] = {splits[i], T - splits[i]};
        DeltaNetState two;
        dn_state_init(&two, &dn.d);
        float *y2 = run_in_pieces(&dn, x, T, halves, 2, &two);
        char what[64];
        snprintf(what, sizeof what, "halves %d + %d vs one pass", halves[0], halves[1]);
        compare_runs(&dn, T, y1, &one, y2, &two, what);
        free(y2);
        dn_state_free(&two);
    }
    /* Three pieces with a one-token piece in the middle. */
    int three[3] = {5, 1, T - 6};
    DeltaNetState st3;
    dn_state_init(&st3, &dn.d);
    float *y3 = run_in_pieces(&dn, x, T, three, 3, &st3);
    compare_runs(&dn, T, y1, &one, y3, &st3, "5 + 1 + rest vs one pass");
    free(y3), free(y1);
    dn_state_free(&st3), dn_state_free(&one);
}
END_TEST

/* A reset state starts from nothing: the same bits as a new state, twice, and the
 * reference's numbers; the buffers of the earlier call change nothing. */
START_TEST(reset_state_is_a_fresh_start) {
    const GoldenFixture *f = &fx[_i];
    DeltaNet dn;
    int T;
    const float *x = run_input(f, &dn, &T);
    const float *want = run_output(f, T, dn.d.hidden);
    double atol = f->size == GOLDEN_MID ? MID_ATOL : ATOL;
    float *y1 = xmalloc(sizeof(float) * T * dn.d.hidden), *y2 = xmalloc(sizeof(float) * T * dn.d.hidden);
    DeltaNetActs a;
    DeltaNetState st;
    dn_acts_init(&a, &dn.d, T);
    dn_state_init(&st, &dn.d);
    dn_forward(&dn, &a, x, T, &st, y1, PATH_FAST);
    dn_state_reset(&st);
    dn_forward(&dn, &a, x, T, &st, y2, PATH_FAST);
    ck_assert(memcmp(y1, y2, sizeof(float) * T * dn.d.hidden) == 0);
    ck_assert(
        compare_f32("fresh pass vs reference", NULL, y1, want, (int64_t)T * dn.d.hidden, atol, RTOL, NULL));
    /* The readable path (linear_ref, causal_conv_silu_ref, delta_rule_ref,
     * gated_rmsnorm): the reference's numbers as well, within the same tolerance. */
    dn_state_reset(&st);
    dn_forward(&dn, &a, x, T, &st, y2, PATH_READABLE);
    ck_assert(compare_f32("reference path vs reference", NULL, y2, want, (int64_t)T * dn.d.hidden, atol, RTOL,
                          NULL));
    /* the readable linear_ref sums one product after another in float32, the kernels
     * in 16 lanes: over mid's rows of 1024 and 2048 the orders differ by up to 4e-6 */
    ck_assert(compare_f32("reference path vs kernels", NULL, y2, y1, (int64_t)T * dn.d.hidden,
                          f->size == GOLDEN_MID ? 2e-5 : 1e-6, 1e-5, NULL));
    dn_acts_free(&a);
    dn_state_free(&st);
    free(y1), free(y2);
}
END_TEST

int main(void) {
    Suite *s = suite_create("deltanet");
    TCase *hand = tcase_create("by hand");
    tcase_add_test(hand, hand_worked_table);
    tcase_add_loop_test(hand, conv_by_hand, 0, 2);
    tcase_add_test(hand, conv_fast_matches_reference);
    tcase_add_test(hand, silu_vec_matches_siluf);
    tcase_add_test(hand, gated_norm_matches_norm_module);
    tcase_add_test(hand, fast_equals_reference);
    tcase_add_test(hand, fast_keeps_the_sign_of_zero);
    suite_add_tcase(s, hand);
    TCase *ref = tcase_create("reference");
    tcase_add_unchecked_fixture(ref, open_all, close_all);
    tcase_set_timeout(ref, 120);
    tcase_add_loop_test(ref, golden_input, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(ref, golden_layers, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_test(ref, golden_long);
    tcase_add_loop_test(ref, token_by_token_equals_full_pass, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(ref, two_halves_equal_one_pass, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(ref, reset_state_is_a_fresh_start, GOLDEN_TINY, GOLDEN_SIZES);
    suite_add_tcase(s, ref);
    return run_suite(s, CK_NOFORK);
}
