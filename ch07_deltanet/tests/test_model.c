/* test_model — the whole model (common/qwen/model.h) and the sampler (sample.h).
 *
 *   - the tiny checkpoint's residual stream after every layer, the final norm and
 *     the logits against the PyTorch reference (reference/golden/tiny_forward.safetensors,
 *     float64), the largest difference per layer printed;
 *   - the promise of the chapter: reading a text in one pass, in pieces of any size
 *     (prefill then token by token, three segments, passes of 1 or 3 tokens), or on 1
 *     or 2 threads gives the same logits to the last bit; a reset state is a new text;
 *   - the readable path (one token at a time, the reference loops) agrees with the
 *     fast one, and with the reference;
 *   - refusals: ids outside the vocabulary, a text longer than the context;
 *   - the sampler: greedy, top-k 1, top-k and top-p on a distribution worked out by
 *     hand, the temperature, a fixed seed repeating itself; a nucleus that is the best
 *     token alone at any temperature; NaN and infinite logits refused (-1), never
 *     drawn from.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/model.h"
#include "qwen/sample.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "tests/huge_pages.h"
#include "workbook/util.h"
#include "tests/check_main.h"

static GoldenFixture fx;
static void open_all(void) { golden_fixture_open(&fx); }
static void close_all(void) { golden_fixture_close(&fx); }

/* The golden token ids of f as ints ([f->T]). */
static int *golden_ids_of(const GoldenFixture *f) {
    const float *v = golden_f32(&f->golden, "ids", f->T);
    int *ids = xmalloc(sizeof(int) * (size_t)f->T);
    for (int t = 0; t < f->T; t++) ids[t] = (int)v[t];
    return ids;
}

/* The tiny golden token ids as ints ([T]). */
static int *golden_ids(int *T) {
    *T = fx.T;
    const float *f = golden_f32(&fx.golden, "ids", fx.T);
    int *ids = xmalloc(sizeof(int) * (size_t)fx.T);
    for (int t = 0; t < fx.T; t++) ids[t] = (int)f[t];
    return ids;
}

/* All positions' logits [T, V] of ids read in pieces of the given lengths, with
 * passes of at most chunk tokens. */
static float *logits_in_pieces(const int *ids, const int *lens, int n_pieces, int chunk) {
    const Model *m = &fx.model;
    int V = m->ck.config.vocab_size, T = 0;
    for (int p = 0; p < n_pieces; p++) T += lens[p];
    float *logits = xmalloc(sizeof(float) * (size_t)T * V);
    RunState s;
    run_init(&s, m, chunk);
    Error err;
    for (int p = 0, t = 0; p < n_pieces; t += lens[p++]) {
        ModelTrace tr = {.logits = logits + (size_t)t * V};
        ck_assert_msg(model_forward(m, &s, ids + t, lens[p], &tr, &err), "%s", err.msg);
        /* after each piece, s.logits is the last row of that piece */
        ck_assert(memcmp(s.logits, logits + (size_t)(t + lens[p] - 1) * V, sizeof(float) * V) == 0);
    }
    ck_assert_int_eq(s.pos, T);
    run_free(&s);
    return logits;
}

/* ---- against the PyTorch reference ---------------------------------------------------- */

/* Tolerances. The reference runs the same stored weights in float64; the C model in
 * float32. Each layer adds a few float32 roundings per element on values of size ~1
 * (the residual stream grows to RMS ~1-3 over the 4 layers), so the differences
 * grow from 0 after the embedding (exact: BF16 to float32 loses nothing) to a few
 * 1e-6 after layer 3, on the tiny model and at the real widths of the mid one alike
 * (largest seen: 2.5e-6 and 4.8e-6); 2e-5 + 1e-4 relative leaves room and is still
 * 1000 times below what a real mistake does (a missing 1 + in a norm, a wrong head,
 * a skipped residual: 1e-2 and more). The logits are dot products of those with the
 * embedding rows: sums of 64 (tiny) or 1024 (mid) products, on values up to ~100
 * for mid, so 1e-4 absolute plus 1e-4 relative. */
START_TEST(layers_match_reference) {
    GoldenFixture f;
    golden_fixture_open_size(&f, (GoldenSize)_i);
    const Model *m = &f.model;
    const Config *c = &m->ck.config;
    int T = f.T, H = c->hidden_size, V = c->vocab_size, L = c->num_hidden_layers;
    int *ids = golden_ids_of(&f);
    float *embed = xmalloc(sizeof(float) * (size_t)T * H), *final = xmalloc(sizeof(float) * (size_t)T * H);
    float *logits = xmalloc(sizeof(float) * (size_t)T * V), **layer = xcalloc((size_t)L, sizeof *layer);
    for (int i = 0; i < L; i++) layer[i] = xmalloc(sizeof(float) * (size_t)T * H);
    ModelTrace tr = {.embed = embed, .layer = layer, .final_norm = final, .logits = logits};
    RunState s;
    run_init(&s, m, 128);
    Error err;
    ck_assert_msg(model_forward(m, &s, ids, T, &tr, &err), "%s", err.msg);

    bool ok = golden_check(&f.golden, "embed", embed, (int64_t)T * H, 0, 0);
    for (int i = 0; i < L; i++) {
        char name[32];
        snprintf(name, sizeof name, "layer.%d", i);
        ok &= golden_check(&f.golden, name, layer[i], (int64_t)T * H, 2e-5, 1e-4);
    }
    ok &= golden_check(&f.golden, "final_norm", final, (int64_t)T * H, 2e-5, 1e-4);
    ok &= golden_check(&f.golden, "logits", logits, (int64_t)T * V, 1e-4, 1e-4);
    ck_assert_msg(ok, "the %s model differs from the PyTorch reference (see the lines above)", f.name);
    /* the last row is what generation reads */
    ck_assert(memcmp(s.logits, logits + (size_t)(T - 1) * V, sizeof(float) * V) == 0);
    ck_assert_int_eq(s.pos, T);
    /* without a trace only the last token's logits are computed, by their own path:
     * the same bits, and the reference's */
    RunState plain;
    run_init(&plain, m, 128);
    ck_assert_msg(model_forward(m, &plain, ids, T, NULL, &err), "%s", err.msg);
    ck_assert(compare_f32("last logits without a trace", NULL, plain.logits, logits + (size_t)(T - 1) * V, V,
                          0, 0, NULL));
    const float *want = golden_f32(&f.golden, "logits", (int64_t)T * V) + (size_t)(T - 1) * V;
    ck_assert(compare_f32("last logits vs reference", NULL, plain.logits, want, V, 1e-4, 1e-4, NULL));
    run_free(&plain);

    for (int i = 0; i < L; i++) free(layer[i]);
    free(layer), free(embed), free(final), free(logits), free(ids);
    run_free(&s);
    golden_fixture_close(&f);
}
END_TEST

/* model_touch brings the weights in: on a system that offers huge pages, into memory of
 * the process's own (st_hold), nearly all of them (only the ends of the file's runs of
 * tensors, less than 2 MB each, stay mapped from the file), and the model reads the same
 * numbers there: the logits of the mid checkpoint are the same to the last bit. */
START_TEST(touched_weights_are_held) {
    GoldenFixture f;
    golden_fixture_open_size(&f, GOLDEN_MID);
    Model *m = &f.model;
    int V = m->ck.config.vocab_size;
    int *ids = golden_ids_of(&f);
    RunState s;
    run_init(&s, m, 128);
    Error err;
    ck_assert_msg(model_forward(m, &s, ids, f.T, NULL, &err), "%s", err.msg);
    float *before = xmalloc(sizeof(float) * (size_t)V);
    memcpy(before, s.logits, sizeof(float) * (size_t)V);

    model_touch(m, NULL, NULL);
    int64_t held = 0, weights = model_weight_bytes(m);
    for (int i = 0; i < m->ck.n_shards; i++)
        for (size_t c = 0; m->ck.shards[i].held && c <= m->ck.shards[i].size / ST_HOLD_CHUNK; c++)
            held += m->ck.shards[i].held[c] ? (int64_t)ST_HOLD_CHUNK : 0;
    bool offered = thp_offered();
    printf("OK   model_touch: %.1f of the %.1f MB of weights held in 2 MB pages (huge pages %s)\n",
           held / 1e6, weights / 1e6, offered ? "offered" : "not offered");
    if (offered)
        ck_assert_msg(held >= weights - 2 * (int64_t)ST_HOLD_CHUNK * m->ck.n_shards,
                      "held %lld of %lld bytes", (long long)held, (long long)weights);
    else
        ck_assert_int_eq(held, 0);

    run_reset(&s);
    ck_assert_msg(model_forward(m, &s, ids, f.T, NULL, &err), "%s", err.msg);
    ck_assert(memcmp(before, s.logits, sizeof(float) * (size_t)V) == 0);
    run_free(&s);
    free(before), free(ids);
    golden_fixture_close(&f);
}
END_TEST

/* Greedy continuations against the reference's: for each of its prompts, 16 tokens
 * generated one at a time (the state carried from token to token), every step's
 * logits within the tolerance above and every chosen token the reference's. The
 * reference recorded the margin between the best two logits at every step (0.1 and
 * more: 500 times what the tolerance lets two logits move together), so float32
 * cannot flip a choice; a step whose margin fell below 0.01 would prove nothing and
 * fails the test instead. */
START_TEST(greedy_matches_reference) {
    GoldenFixture f;
    golden_fixture_open_size(&f, (GoldenSize)_i);
    const Model *m = &f.model;
    int V = m->ck.config.vocab_size;
    Sampler greedy;
    sampler_init(&greedy, V, 0, 0, 1, 0);
    int runs = 0;
    for (int k = 0;; k++) {
        char name[64];
        snprintf(name, sizeof name, "greedy.%d.prompt", k);
        if (!st_find(&f.golden, name)) break;
        int n = (int)golden_rows(&f.golden, name), steps;
        const float *pf = golden_f32(&f.golden, name, n);
        snprintf(name, sizeof name, "greedy.%d.tokens", k);
        steps = (int)golden_rows(&f.golden, name);
        const float *want_tokens = golden_f32(&f.golden, name, steps);
        snprintf(name, sizeof name, "greedy.%d.logits", k);
        const float *want_logits = golden_f32(&f.golden, name, (int64_t)steps * V);
        snprintf(name, sizeof name, "greedy.%d.margin", k);
        const float *margin = golden_f32(&f.golden, name, steps);
        int *prompt = xmalloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) prompt[i] = (int)pf[i];
        RunState s;
        run_init(&s, m, 128);
        Error err;
        ck_assert_msg(model_forward(m, &s, prompt, n, NULL, &err), "%s", err.msg);
        double worst = 0;
        for (int t = 0; t < steps; t++) {
            ck_assert_msg(margin[t] >= 0.01f, "%s greedy.%d step %d: the reference's margin %.3g is too thin",
                          f.name, k, t, margin[t]);
            const float *want = want_logits + (size_t)t * V;
            for (int v = 0; v < V; v++) {
                double d = fabs((double)s.logits[v] - want[v]);
                worst = fmax(worst, d);
                ck_assert_msg(d <= 1e-4 + 1e-4 * fabs(want[v]),
                              "%s greedy.%d step %d, logit %d: %.6f, want %.6f", f.name, k, t, v, s.logits[v],
                              want[v]);
            }
            int id = sample_next(&greedy, s.logits);
            ck_assert_msg(id == (int)want_tokens[t], "%s greedy.%d step %d: token %d, the reference's %d",
                          f.name, k, t, id, (int)want_tokens[t]);
            ck_assert(model_forward(m, &s, &id, 1, NULL, &err));
        }
        printf("OK   %s greedy.%d: %d-token prompt, %d tokens as the reference, logits within %.2g\n", f.name,
               k, n, steps, worst);
        run_free(&s);
        free(prompt);
        runs++;
    }
    ck_assert_int_ge(runs, 3);
    sampler_free(&greedy);
    golden_fixture_close(&f);
}
END_TEST

/* ---- one pass = pieces = token by token --------------------------------------------------- */

START_TEST(pieces_equal_one_pass) {
    int T, V = fx.model.ck.config.vocab_size;
    int *ids = golden_ids(&T);
    ck_assert_int_ge(T, 6);
    int whole[1] = {T};
    float *one = logits_in_pieces(ids, whole, 1, 128);
    int *ones = xmalloc(sizeof(int) * (size_t)T);
    for (int t = 0; t < T; t++) ones[t] = 1;
    const int half = (T + 1) / 2;
    int prefill_decode[16] = {half}, n_pd = 1;
    for (int t = half; t < T; t++) prefill_decode[n_pd++] = 1;
    int three[3] = {T / 3, T / 3, T - 2 * (T / 3)};
    struct {
        const char *what;
        const int *lens;
        int n, chunk;
    } runs[] = {{"prefill half + decode the rest", prefill_decode, n_pd, 128},
                {"three segments", three, 3, 128},
                {"token by token", ones, T, 128},
                {"one call in passes of 1 token", whole, 1, 1},
                {"one call in passes of 3 tokens", whole, 1, 3}};
    for (size_t r = 0; r < ARRAY_LEN(runs); r++) {
        float *got = logits_in_pieces(ids, runs[r].lens, runs[r].n, runs[r].chunk);
        /* every row is computed by the same code in the same order either way, and the
         * DeltaNet's state carries over exactly: not close, equal */
        ck_assert(compare_f32(runs[r].what, NULL, got, one, (int64_t)T * V, 0, 0, NULL));
        free(got);
    }
    free(one), free(ones), free(ids);
}
END_TEST

START_TEST(threads_do_not_change_a_bit) {
    int T, V = fx.model.ck.config.vocab_size;
    int *ids = golden_ids(&T);
    int whole[1] = {T};
    int threads = pool_threads();
    pool_set_threads(1);
    float *one = logits_in_pieces(ids, whole, 1, 128);
    pool_set_threads(2);
    float *two = logits_in_pieces(ids, whole, 1, 128);
    pool_set_threads(threads);
    ck_assert(compare_f32("1 thread vs 2 threads", NULL, two, one, (int64_t)T * V, 0, 0, NULL));
    free(one), free(two), free(ids);
}
END_TEST

START_TEST(reset_starts_a_new_text) {
    const Model *m = &fx.model;
    int T, V = m->ck.config.vocab_size;
    int *ids = golden_ids(&T);
    RunState s;
    run_init(&s, m, 4);
    Error err;
    float *first = xmalloc(sizeof(float) * V);
    ck_assert(model_forward(m, &s, ids, T, NULL, &err));
    memcpy(first, s.logits, sizeof(float) * V);
    ck_assert(model_forward(m, &s, ids, T, NULL, &err)); /* the text read twice: different logits */
    ck_assert_int_eq(s.pos, 2 * T);
    ck_assert(memcmp(first, s.logits, sizeof(float) * V) != 0);
    run_reset(&s);
    ck_assert_int_eq(s.pos, 0);
    ck_assert(model_forward(m, &s, ids, T, NULL, &err));
    ck_assert(compare_f32("after run_reset", NULL, s.logits, first, V, 0, 0, NULL));
    free(first), free(ids);
    run_free(&s);
}
END_TEST

/* The readable path: one token at a time through linear_ref, delta_rule_ref,
 * causal_conv_silu_ref and gated_rmsnorm. Its sums run in another order than the
 * kernels', so it agrees to float32 rounding — and it is itself within the
 * reference's tolerance. */
START_TEST(reference_path_agrees) {
    const Model *m = &fx.model;
    int T, V = m->ck.config.vocab_size;
    int *ids = golden_ids(&T);
    int whole[1] = {T};
    float *fast = logits_in_pieces(ids, whole, 1, 128);
    float *slow = xmalloc(sizeof(float) * (size_t)T * V);
    RunState s;
    run_init(&s, m, 128);
    s.path = PATH_READABLE;
    ModelTrace tr = {.logits = slow};
    Error err;
    ck_assert(model_forward(m, &s, ids, T, &tr, &err));
    ck_assert(compare_f32("reference path vs kernels", NULL, slow, fast, (int64_t)T * V, 1e-4, 1e-4, NULL));
    ck_assert(golden_check(&fx.golden, "logits", slow, (int64_t)T * V, 1e-4, 1e-4));
    run_free(&s);
    free(fast), free(slow), free(ids);
}
END_TEST

START_TEST(refusals) {
    const Model *m = &fx.model;
    RunState s;
    run_init(&s, m, 8);
    Error err;
    int V = m->ck.config.vocab_size;
    int bad[3] = {1, V, 2};
    ck_assert(!model_forward(m, &s, bad, 3, NULL, &err));
    ck_assert_msg(strstr(err.msg, "token id") && strstr(err.msg, "outside the vocabulary"), "%s", err.msg);
    bad[1] = -1;
    ck_assert(!model_forward(m, &s, bad, 3, NULL, &err));
    ck_assert_int_eq(s.pos, 0); /* nothing was read */
    /* the context the config allows: here cut to 5 positions */
    s.max_pos = 5;
    int ids[6] = {1, 2, 3, 4, 5, 6};
    ck_assert(model_forward(m, &s, ids, 4, NULL, &err));
    ck_assert(!model_forward(m, &s, ids, 2, NULL, &err));
    ck_assert_msg(strstr(err.msg, "6 tokens do not fit") && strstr(err.msg, "max_position_embeddings is 5"),
                  "%s", err.msg);
    ck_assert_int_eq(s.pos, 4);
    ck_assert(model_forward(m, &s, ids, 1, NULL, &err)); /* exactly full */
    run_free(&s);
}
END_TEST

START_TEST(state_size) {
    const Model *m = &fx.model;
    const Config *c = &m->ck.config;
    RunState s;
    run_init(&s, m, 8);
    /* the tiny model: 3 DeltaNet layers of 4 tables of 16 × 16 plus a conv history of
     * 3 × 128, and 1 attention layer of 2 × 2 heads × 32 floats per token */
    int64_t fixed = 3 * (4 * 16 * 16 + 3 * 128) * 4, per_token = 2 * 2 * 32 * 4;
    ck_assert_int_eq(run_state_bytes(&s), fixed);
    int ids[5] = {1, 2, 3, 4, 5};
    Error err;
    ck_assert(model_forward(m, &s, ids, 5, NULL, &err));
    ck_assert_int_eq(run_state_bytes(&s), fixed + 5 * per_token);
    ck_assert_int_eq(model_param_count(m), 249544); /* by hand in ch01_weights/tests/test_checkpoint.c */
    ck_assert_int_eq(c->num_hidden_layers, 4);
    run_free(&s);
}
END_TEST

/* ---- the sampler ------------------------------------------------------------------------------ */

/* logits ln(0.5), ln(0.25), ln(0.125), ln(0.125): softmax gives exactly 1/2, 1/4, 1/8, 1/8. */
static const float HAND[4] = {-0.69314718f, -1.38629436f, -2.07944154f, -2.07944154f};

static void frequencies(Sampler *s, const float *logits, int n, int draws, double *freq) {
    for (int i = 0; i < n; i++) freq[i] = 0;
    for (int d = 0; d < draws; d++) freq[sample_next(s, logits)] += 1.0 / draws;
}

START_TEST(sampler_greedy_and_top_k_1) {
    const float logits[5] = {0.5f, 3.0f, -1.0f, 3.0f, 2.9f}; /* a tie at 1 and 3: the first wins */
    Sampler g, k1;
    sampler_init(&g, 5, 0.0f, 0, 1.0f, 7);
    sampler_init(&k1, 5, 1.5f, 1, 1.0f, 7);
    ck_assert(sampler_is_greedy(&g) && sampler_is_greedy(&k1));
    for (int i = 0; i < 20; i++) {
        ck_assert_int_eq(sample_next(&g, logits), 1);
        ck_assert_int_eq(sample_next(&k1, logits), 1);
    }
    ck_assert_int_eq(argmax(logits, 5), 1);
    sampler_free(&g), sampler_free(&k1);
}
END_TEST

START_TEST(sampler_distribution) {
    enum { DRAWS = 200000 };
    double f[4];
    /* temperature 1, no filter: the softmax itself. 200,000 draws: the standard error of
     * a frequency is at most sqrt(0.25 / 200000) = 0.0011, so 0.006 is over 5 of them. */
    Sampler s;
    sampler_init(&s, 4, 1.0f, 0, 1.0f, 42);
    frequencies(&s, HAND, 4, DRAWS, f);
    const double want[4] = {0.5, 0.25, 0.125, 0.125};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(fabs(f[i] - want[i]) < 0.006, "token %d: %.4f, want %.4f", i, f[i], want[i]);
    sampler_free(&s);

    /* temperature 0.5 squares the probabilities before renormalizing: 1/4, 1/16, 1/64,
     * 1/64 over 22/64 → 16/22, 4/22, 1/22, 1/22 */
    sampler_init(&s, 4, 0.5f, 0, 1.0f, 43);
    frequencies(&s, HAND, 4, DRAWS, f);
    const double sharp[4] = {16.0 / 22, 4.0 / 22, 1.0 / 22, 1.0 / 22};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(fabs(f[i] - sharp[i]) < 0.006, "T 0.5, token %d: %.4f", i, f[i]);
    sampler_free(&s);

    /* top-k 2: only the two best, renormalized: 2/3, 1/3 */
    sampler_init(&s, 4, 1.0f, 2, 1.0f, 44);
    frequencies(&s, HAND, 4, DRAWS, f);
    ck_assert(f[2] == 0 && f[3] == 0);
    ck_assert_msg(fabs(f[0] - 2.0 / 3) < 0.006, "top-k 2: %.4f", f[0]);
    sampler_free(&s);

    /* top-p 0.7: 0.5 < 0.7, 0.5 + 0.25 ≥ 0.7 → the two best, 2/3 and 1/3; top-p 0.5:
     * the first alone reaches it; top-p 0.8: three tokens, 4/7, 2/7, 1/7 */
    const struct {
        float p;
        double want[4];
    } nucleus[] = {
        {0.7f, {2.0 / 3, 1.0 / 3, 0, 0}}, {0.5f, {1, 0, 0, 0}}, {0.8f, {4.0 / 7, 2.0 / 7, 1.0 / 7, 0}}};
    for (size_t k = 0; k < ARRAY_LEN(nucleus); k++) {
        sampler_init(&s, 4, 1.0f, 0, nucleus[k].p, 45);
        frequencies(&s, HAND, 4, DRAWS, f);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(nucleus[k].want[i] == 0 ? f[i] == 0 : fabs(f[i] - nucleus[k].want[i]) < 0.006,
                          "top-p %.1f, token %d: %.4f, want %.4f", nucleus[k].p, i, f[i], nucleus[k].want[i]);
        sampler_free(&s);
    }
    /* top-k then top-p, as Hugging Face applies them: top-k 3 leaves 4/7, 2/7, 1/7;
     * top-p 0.8 of that: 4/7 + 2/7 = 0.857 ≥ 0.8 → 2/3, 1/3 */
    sampler_init(&s, 4, 1.0f, 3, 0.8f, 46);
    frequencies(&s, HAND, 4, DRAWS, f);
    ck_assert(f[2] == 0 && f[3] == 0);
    ck_assert_msg(fabs(f[0] - 2.0 / 3) < 0.006, "top-k 3 + top-p 0.8: %.4f", f[0]);
    sampler_free(&s);
}
END_TEST

START_TEST(sampler_seed_repeats) {
    enum { V = 1000, N = 500 };
    float *logits = xmalloc(sizeof(float) * V);
    for (int i = 0; i < V; i++) logits[i] = sinf((float)i * 0.37f) * 3; /* many near-ties */
    int a[N], b[N], c[N];
    Sampler s1, s2, s3;
    sampler_init(&s1, V, 0.9f, 50, 0.95f, 123);
    sampler_init(&s2, V, 0.9f, 50, 0.95f, 123);
    sampler_init(&s3, V, 0.9f, 50, 0.95f, 124);
    int same = 0;
    for (int i = 0; i < N; i++) {
        a[i] = sample_next(&s1, logits), b[i] = sample_next(&s2, logits), c[i] = sample_next(&s3, logits);
        same += a[i] == c[i];
    }
    ck_assert(memcmp(a, b, sizeof a) == 0); /* the same seed: the same draws */
    ck_assert_int_lt(same, N / 2);          /* another seed: other draws */
    /* top-p alone over the whole vocabulary (the pre-filtered path): still repeatable,
     * and only tokens of the nucleus */
    Sampler p1, p2;
    sampler_init(&p1, V, 1.0f, 0, 0.3f, 9);
    sampler_init(&p2, V, 1.0f, 0, 0.3f, 9);
    for (int i = 0; i < N; i++) {
        int x = sample_next(&p1, logits);
        ck_assert_int_eq(x, sample_next(&p2, logits));
        ck_assert_msg(logits[x] > 2.5f, "token %d (logit %.3f) is not in a 0.3 nucleus", x, logits[x]);
    }
    sampler_free(&s1), sampler_free(&s2), sampler_free(&s3), sampler_free(&p1), sampler_free(&p2);
    free(logits);
}
END_TEST

/* --temp 1e7 --top-p 1e-6: every probability is about 1/n, below the bound that
 * rules a token out of the nucleus, and the nucleus is the best token alone. */
START_TEST(sampler_tiny_nucleus) {
    const float logits[8] = {0.1f, 0.7f, -2.0f, 0.3f, 0.2f, 1.5f, 1.4f, -0.5f}; /* best: id 5 */
    Sampler s;
    sampler_init(&s, 8, 1e7f, 0, 1e-6f, 3);
    for (int i = 0; i < 100; i++) ck_assert_int_eq(sample_next(&s, logits), 5);
    sampler_free(&s);
}
END_TEST

/* Any temperature, top-k and top-p on any finite logits: an id in range, and the best
 * one whenever the filters leave only it (top-k 1, or a nucleus of 1e-6: the best
 * token's probability is at least 1/n). */
START_TEST(sampler_any_settings) {
    enum { V = 64 };
    float logits[V];
    const float temps[] = {1e-30f, 1e-3f, 0.7f, 1.0f, 1e7f, 3.4e38f};
    const int ks[] = {0, 1, 2, V - 1, V, V + 5};
    const float ps[] = {1e-6f, 0.3f, 0.999f, 1.0f};
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < V; i++) /* ties, huge and tiny values */
            logits[i] = round == 0   ? 0.0f
                        : round == 1 ? (i % 2 ? 3e38f : -3e38f)
                        : round == 2 ? (float)((i * 37) % 11)
                                     : sinf((float)i) * 1e-20f;
        int best = argmax(logits, V);
        for (size_t a = 0; a < ARRAY_LEN(temps); a++)
            for (size_t b = 0; b < ARRAY_LEN(ks); b++)
                for (size_t c = 0; c < ARRAY_LEN(ps); c++) {
                    Sampler s;
                    sampler_init(&s, V, temps[a], ks[b], ps[c], 1);
                    for (int d = 0; d < 20; d++) {
                        int id = sample_next(&s, logits);
                        ck_assert_msg(id >= 0 && id < V, "T %g, k %d, p %g: id %d", (double)temps[a], ks[b],
                                      (double)ps[c], id);
                        if (ks[b] == 1 || ps[c] == 1e-6f)
                            ck_assert_msg(id == best, "T %g, k %d, p %g: id %d, the best is %d",
                                          (double)temps[a], ks[b], (double)ps[c], id, best);
                    }
                    sampler_free(&s);
                }
    }
}
END_TEST

/* A NaN or an infinity anywhere: no token, whatever the settings (greedy would have
 * given id 0 for all-NaN logits, as if it meant something). */
START_TEST(sampler_refuses_nonfinite) {
    const float bad[] = {NAN, INFINITY, -INFINITY};
    const struct {
        float t;
        int k;
        float p;
    } settings[] = {{0, 0, 1}, {1, 0, 1}, {1, 2, 1}, {1, 0, 0.5f}, {1, 2, 0.5f}, {1e7f, 0, 1e-6f}};
    for (size_t b = 0; b < ARRAY_LEN(bad); b++) {
        float logits[6] = {0.5f, 1.0f, -1.0f, 0.0f, 2.0f, 0.25f};
        logits[3] = bad[b];
        ck_assert_int_eq(first_nonfinite(logits, 6), 3);
        for (size_t i = 0; i < ARRAY_LEN(settings); i++) {
            Sampler s;
            sampler_init(&s, 6, settings[i].t, settings[i].k, settings[i].p, 2);
            ck_assert_msg(sample_next(&s, logits) == -1, "%g at 3, setting %zu: a token was drawn",
                          (double)bad[b], i);
            sampler_free(&s);
        }
    }
    float all_nan[4] = {NAN, NAN, NAN, NAN}, fine[4] = {1, 2, 3, 4};
    Sampler g;
    sampler_init(&g, 4, 0, 0, 1, 0);
    ck_assert_int_eq(sample_next(&g, all_nan), -1);
    ck_assert_int_eq(first_nonfinite(all_nan, 4), 0);
    ck_assert_int_eq(first_nonfinite(fine, 4), -1);
    ck_assert_int_eq(sample_next(&g, fine), 3);
    sampler_free(&g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("model");
    TCase *model = tcase_create("model");
    tcase_add_unchecked_fixture(model, open_all, close_all);
    tcase_set_timeout(model, 120);
    tcase_add_loop_test(model, layers_match_reference, GOLDEN_TINY, GOLDEN_MID + 1);
    tcase_add_loop_test(model, greedy_matches_reference, GOLDEN_TINY, GOLDEN_MID + 1);
    tcase_add_test(model, touched_weights_are_held);
    tcase_add_test(model, pieces_equal_one_pass);
    tcase_add_test(model, threads_do_not_change_a_bit);
    tcase_add_test(model, reset_starts_a_new_text);
    tcase_add_test(model, reference_path_agrees);
    tcase_add_test(model, refusals);
    tcase_add_test(model, state_size);
    suite_add_tcase(s, model);
    TCase *sampler = tcase_create("sampler");
    tcase_set_timeout(sampler, 60);
    tcase_add_test(sampler, sampler_greedy_and_top_k_1);
    tcase_add_test(sampler, sampler_distribution);
    tcase_add_test(sampler, sampler_seed_repeats);
    tcase_add_test(sampler, sampler_tiny_nucleus);
    tcase_add_test(sampler, sampler_any_settings);
    tcase_add_test(sampler, sampler_refuses_nonfinite);
    suite_add_tcase(s, sampler);
    return run_suite(s, CK_NOFORK);
}
