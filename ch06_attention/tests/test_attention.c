/* test_attention.c — common/attention: gated full attention, GQA, the KV cache.
 *
 *   1. a 2-token attention worked by hand (every number in the comments);
 *   2. every intermediate of layer 3 against the PyTorch reference
 *      (reference/qwen35_reference.py, float64), fed the golden layer.3.input_norm:
 *      q_raw, gate, q, k, v, probs, attn, gated, out — on the tiny checkpoint
 *      and on the mid one (the real 8 query / 2 KV heads of 256);
 *   3. the KV cache: prefill + token-by-token decode equals the full pass, bit for
 *      bit, however the tokens are split, and whatever the thread count (both
 *      checkpoints);
 *   4. GQA: which KV head each query head reads, by formula and by behaviour;
 *   5. a softmax that stays finite when the scores are huge, and the fast path's
 *      softmax on its own, row lengths around its lanes;
 *   6. bad input: a checkpoint whose q_proj or head split contradicts config.json,
 *      and hand-built weights of the wrong shape.
 */
#include <check.h>
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/activations.h"
#include "qwen/attention.h"
#include "qwen/model.h"
#include "qwen/rope.h"
#include "qwen/safetensors.h"
#include "tests/compare.h"
#include "tests/golden_fixture.h"
#include "workbook/synthetic.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* A float32 tensor as if it came from a checkpoint: [d0] or [d0, d1]. */
static Tensor f32_tensor(const char *name, const float *values, int64_t d0, int64_t d1) {
    Tensor t = {
        .name = name, .dtype = DTYPE_F32, .ndim = d1 > 0 ? 2 : 1, .data = values, .file = "hand-built"};
    t.shape[0] = d0;
    t.shape[1] = d1;
    t.numel = d0 * (d1 > 0 ? d1 : 1);
    return t;
}

/* The sizes attn_from_weights reads from config.json. */
static Config hand_config(int hidden, int heads, int kv_heads, int head_dim) {
    Config c = {0};
    c.hidden_size = hidden;
    c.num_attention_heads = heads;
    c.num_key_value_heads = kv_heads;
    c.head_dim = head_dim;
    c.rms_norm_eps = 1e-6;
    return c;
}

/* A synthetic checkpoint (make test writes tiny to $TINY, mid to $MID), its golden
 * and its layer 3. */
typedef struct {
    GoldenFixture f;
    const Config *c;
    const Attention *at;
    int T, layer;
    const float *x; /* [T, hidden]: golden layer.3.input_norm */
} Tiny;

static void tiny_open(Tiny *tn, GoldenSize size) {
    golden_fixture_open_size(&tn->f, size);
    tn->c = &tn->f.model.ck.config;
    tn->layer = 3;
    ck_assert(tn->c->layer_types[tn->layer] == LAYER_FULL_ATTENTION);
    tn->at = &tn->f.model.layers[tn->layer].self_attn;
    tn->T = tn->f.T;
    tn->x = golden_f32(&tn->f.golden, "layer.3.input_norm", (int64_t)tn->T * tn->c->hidden_size);
}

static void tiny_close(Tiny *tn) { golden_fixture_close(&tn->f); }

/* ---- 1. two tokens by hand ------------------------------------------------------ */

/* hidden 2, Hq = 2 query heads sharing Hkv = 1 KV head, head_dim d = 2, RoPE on both
 * dims (rotary_dim 2: the one pair turns by inv_freq[0] = theta^0 = 1 radian per
 * position). Tokens x0 = (1, 0) at position 0 and x1 = (0, 1) at position 1, so each
 * projection simply picks a column of its weight.
 *
 * q_proj [2 heads × (2 query + 2 gate), 2]:
 *   head 0: query rows (1, 1), (1, −1) → q(x0) = (1, 1),  q(x1) = (1, −1)
 *           gate rows  (0, 0), (0, 0)  → gate 0, sigmoid 0.5 everywhere
 *   head 1: query rows (−1, 1), (1, 1) → q(x0) = (−1, 1), q(x1) = (1, 1)
 *           gate rows  (2, 0), (0, −2) → gate(x0) = (2, 0), gate(x1) = (0, −2)
 * k_proj rows (1, −1), (1, 1): k(x0) = (1, 1), k(x1) = (−1, 1)
 * v_proj rows (3, 1), (−1, 2): v(x0) = (3, −1), v(x1) = (1, 2)
 * o_proj [2, 4] = (1 0 1 0; 0 1 0 1): out = head 0 + head 1 (after the gate).
 *
 * q/k norm: every q and k vector above has mean(x²) = 1, so x / rms = x (eps = 1e−6
 * moves the 7th digit). q_norm w = (0, 0): scale 1. k_norm w = (1, 0): scale
 * 1 + w = (2, 1), so k0 = (2, 1), k1 = (−2, 1).
 *
 * RoPE, c = cos 1 = 0.5403023, s = sin 1 = 0.8414710; position 0 does not turn,
 * position 1 turns (a, b) into (a·c − b·s, b·c + a·s):
 *   head 0 q1 = (1, −1)  → (c + s, s − c)   = (1.3817733, 0.3011687)
 *   head 1 q1 = (1, 1)   → (c − s, c + s)   = (−0.3011687, 1.3817733)
 *   k1 = (−2, 1)         → (−2c − s, c − 2s) = (−1.9220756, −1.1426397)
 *
 * Scores, scale 1/sqrt(2):
 *   token 0 sees only itself: p = (1), o = v0 = (3, −1) in both heads.
 *   token 1, head 0: q1·k0 = 2(c + s) + (s − c) = c + 3s = 3.0647153 → 2.1670809
 *                    q1·k1 = (1, −1)·(−2, 1) = −3 (both turned by the same angle:
 *                    the dot product does not change)       → −2.1213203
 *     softmax: p1 = 1 / (1 + e^(2.1670809 + 2.1213203)) = 0.0135410, p0 = 0.9864590
 *     o = 0.9864590·(3, −1) + 0.0135410·(1, 2) = (2.9729180, −0.9593771)
 *   token 1, head 1: q1·k0 = 2(c − s) + (c + s) = 3c − s = 0.7794359 → 0.5511444
 *                    q1·k1 = (1, 1)·(−2, 1) = −1               → −0.7071068
 *     p1 = 1 / (1 + e^(0.5511444 + 0.7071068)) = 0.2212751, p0 = 0.7787249
 *     o = 0.7787249·(3, −1) + 0.2212751·(1, 2) = (2.5574498, −0.3361748)
 * Gates: sigmoid(2) = 0.8807971, sigmoid(0) = 0.5, sigmoid(−2) = 0.1192029
 *   token 0: head 0 (3, −1)·0.5 = (1.5, −0.5); head 1 (3·0.8807971, −1·0.5) = (2.6423912, −0.5)
 *   token 1: head 0 (1.4864590, −0.4796885); head 1 (2.5574498·0.5, −0.3361748·0.1192029)
 *                                                   = (1.2787249, −0.0400730)
 * out = head 0 + head 1: token 0 (4.1423912, −1), token 1 (2.7651839, −0.5197615). */
START_TEST(test_two_tokens_by_hand) {
    const float q_proj[8 * 2] = {1,  1, 1, -1, 0, 0, 0, 0,   /* head 0: query rows, gate rows */
                                 -1, 1, 1, 1,  2, 0, 0, -2}; /* head 1 */
    const float k_proj[2 * 2] = {1, -1, 1, 1};
    const float v_proj[2 * 2] = {3, 1, -1, 2};
    const float o_proj[2 * 4] = {1, 0, 1, 0, 0, 1, 0, 1};
    const float q_norm[2] = {0, 0}, k_norm[2] = {1, 0};
    Tensor tq = f32_tensor("q_proj", q_proj, 8, 2), tk = f32_tensor("k_proj", k_proj, 2, 2),
           tv = f32_tensor("v_proj", v_proj, 2, 2), to = f32_tensor("o_proj", o_proj, 2, 4),
           tqn = f32_tensor("q_norm", q_norm, 2, 0), tkn = f32_tensor("k_norm", k_norm, 2, 0);
    AttnWeights w = {&tq, &tk, &tv, &to, &tqn, &tkn};
    Config c = hand_config(2, 2, 1, 2);
    Attention at;
    attn_from_weights(&at, &c, &w);
    RopeTable rope;
    rope_init(&rope, 2, 2, 1e7, 0);
    KVCache kv;
    kv_init(&kv, &at.d, 0);

    const float x[2 * 2] = {1, 0, 0, 1}; /* [T = 2, hidden 2] */
    float out[4], probs[2 * 2 * 2];
    AttnActs a;
    attn_acts_init(&a, &at.d, 2);
    a.probs = probs;
    attn_forward(&at, &a, x, 2, &kv, &rope, out, PATH_FAST);
    const float *q = a.q, *k = a.k, *attn = a.attn, *gated = a.gated;

    /* hand values to 7–8 digits; eps and float32 rounding move the 7th digit at most */
    const double atol = 2e-6, rtol = 2e-6;
    const float want_q[8] = {1, 1, -1, 1, 1.3817733f, 0.3011687f, -0.3011687f, 1.3817733f}; /* [T, Hq, d] */
    const float want_k[4] = {2, 1, -1.9220756f, -1.1426397f};                               /* [T, Hkv, d] */
    const float want_probs[8] = {1, 0, 0.9864590f, 0.0135410f, 1, 0, 0.7787249f, 0.2212751f}; /* [Hq, T, T] */
    const float want_attn[8] = {3, -1, 3, -1, 2.9729180f, -0.9593771f, 2.5574498f, -0.3361748f};
    const float want_gated[8] = {1.5f,       -0.5f,       2.6423912f, -0.5f,
                                 1.4864590f, -0.4796885f, 1.2787249f, -0.0400730f};
    const float want_out[4] = {4.1423912f, -1, 2.7651839f, -0.5197615f};
    bool ok = compare_f32("hand q (after norm + RoPE)", "2 x 2 x 2", q, want_q, 8, atol, rtol, NULL);
    ok &= compare_f32("hand k (after norm + RoPE)", "2 x 1 x 2", k, want_k, 4, atol, rtol, NULL);
    ok &= compare_f32("hand probs", "2 x 2 x 2", probs, want_probs, 8, atol, rtol, NULL);
    ok &= compare_f32("hand attn", "2 x 4", attn, want_attn, 8, atol, rtol, NULL);
    ok &= compare_f32("hand gated", "2 x 4", gated, want_gated, 8, atol, rtol, NULL);
    ok &= compare_f32("hand out", "2 x 2", out, want_out, 4, atol, rtol, NULL);
    ck_assert(ok);
    ck_assert_int_eq(kv.len, 2);
    attn_acts_free(&a);
    kv_free(&kv);
    rope_free(&rope);
}
END_TEST

/* ---- 2. layer 3 against PyTorch (tiny and mid) --------------------------------- */

/* Tolerances. The reference computes in float64 from the same BF16 weights and
 * stores float32; the C code computes in float32. Every value here is O(1) (RMS-normed
 * inputs, weights of variance 1/in), and each step adds a few float32 roundings
 * (2^−24 ≈ 6e−8 relative) per term of a sum of at most 128 terms (2048 in mid), so
 * the expected differences are around 1e−6 (the largest seen: 8e−7 in both). We
 * allow 2e−5 absolute + 1e−4 relative: ~10× that, and still 1000× below what a real
 * mistake does (a forgotten 1 + in q_norm changes q by ~10%, a [queries | gates]
 * split or a wrong GQA head changes values by O(1)). */
#define GOLDEN_ATOL 2e-5
#define GOLDEN_RTOL 1e-4

START_TEST(test_layer3_vs_golden) {
    Tiny tn;
    tiny_open(&tn, _i);
    const Attention *at = tn.at;
    int T = tn.T, Hq = at->d.n_heads, Hkv = at->d.n_kv_heads, d = at->d.head_dim, H = at->d.hidden;
    size_t nq = (size_t)T * Hq * d, nk = (size_t)T * Hkv * d;
    float *probs = xmalloc((size_t)Hq * T * T * sizeof(float));
    float *out = xmalloc((size_t)T * H * sizeof(float));
    AttnActs a;
    attn_acts_init(&a, &at->d, T);
    a.probs = probs;
    RopeTable rope;
    rope_init_config(&rope, tn.c, 0);
    KVCache kv;
    kv_init(&kv, &at->d, 0);
    attn_forward(at, &a, tn.x, T, &kv, &rope, out, PATH_FAST);
    const float *q_raw = a.q_raw, *gate = a.gate, *q = a.q, *k = a.k, *v = a.v, *attn = a.attn,
                *gated = a.gated;

    char qs[64], ks[64], ps[64], os[64], hs[64];
    snprintf(qs, sizeof qs, "%d x %d x %d", T, Hq, d);
    snprintf(ks, sizeof ks, "%d x %d x %d", T, Hkv, d);
    snprintf(ps, sizeof ps, "%d x %d x %d", Hq, T, T);
    snprintf(os, sizeof os, "%d x %d", T, Hq * d);
    snprintf(hs, sizeof hs, "%d x %d", T, H);
    bool ok = true;
#define CMP(name, buf, shape, n)                                                                             \
    ok &= compare_f32("layer.3.self_attn." name, shape, buf,                                                 \
                      golden_f32(&tn.f.golden, "layer.3.self_attn." name, (int64_t)(n)), (int64_t)(n),       \
                      GOLDEN_ATOL, GOLDEN_RTOL, NULL)
    CMP("q_raw", q_raw, qs, nq);
    CMP("gate", gate, qs, nq);
    CMP("q", q, qs, nq);
    CMP("k", k, ks, nk);
    CMP("v", v, ks, nk);
    CMP("probs", probs, ps, (size_t)Hq * T * T);
    CMP("attn", attn, os, nq);
    CMP("gated", gated, os, nq);
    CMP("out", out, hs, (size_t)T * H);
#undef CMP
    ck_assert(ok);

    /* The cache holds exactly the keys and values of the pass. */
    ck_assert_int_eq(kv.len, T);
    float *rows = xmalloc(nk * sizeof(float));
    kv_rows(&kv, false, 0, (int64_t)nk, rows);
    ck_assert(memcmp(rows, k, nk * sizeof(float)) == 0);
    kv_rows(&kv, true, 0, (int64_t)nk, rows);
    ck_assert(memcmp(rows, v, nk * sizeof(float)) == 0);
    free(rows);

    /* Every row of weights is a distribution over positions 0..t: sums to 1, zero after t. */
    for (int h = 0; h < Hq; h++)
        for (int t = 0; t < T; t++) {
            double sum = 0;
            for (int j = 0; j < T; j++) {
                float p = probs[((size_t)h * T + t) * T + j];
                if (j > t) ck_assert_msg(p == 0.0f, "head %d token %d sees the future position %d", h, t, j);
                sum += p;
            }
            ck_assert_msg(fabs(sum - 1) < 1e-6, "head %d token %d: weights sum to %.9f", h, t, sum);
        }

    kv_free(&kv);
    rope_free(&rope);
    attn_acts_free(&a);
    free(probs), free(out);
    tiny_close(&tn);
}
END_TEST

/* ---- 3. the KV cache ------------------------------------------------------------ */

/* Runs the golden input through the layer in pieces of the given sizes (summing to
 * T), each piece appended to the same cache; out [T, hidden] gets every token's
 * output; probs_last [Hq, T] the weights of the last token (from its own call). */
static void run_in_pieces(const Tiny *tn, const int *sizes, int n_sizes, float *out, float *probs_last) {
    const Attention *at = tn->at;
    int H = at->d.hidden, T = tn->T, done = 0;
    RopeTable rope;
    rope_init_config(&rope, tn->c, 0);
    KVCache kv;
    kv_init(&kv, &at->d, 0);
    AttnActs a;
    attn_acts_init(&a, &at->d, T);
    for (int i = 0; i < n_sizes; i++) {
        int n = sizes[i];
        float *probs =
            xmalloc((size_t)at->d.n_heads * n * (done + n) * sizeof(float)); /* [Hq, n, done + n] */
        a.probs = probs;
        attn_forward(at, &a, tn->x + (size_t)done * H, n, &kv, &rope, out + (size_t)done * H, PATH_FAST);
        done += n;
        ck_assert_int_eq(kv.len, done);
        if (done == T)
            for (int h = 0; h < at->d.n_heads; h++) /* the last token's row of head h */
                memcpy(probs_last + (size_t)h * T, probs + ((size_t)h * n + n - 1) * T,
                       (size_t)T * sizeof(float));
        free(probs);
    }
    ck_assert_int_eq(done, T);
    attn_acts_free(&a);
    kv_free(&kv);
    rope_free(&rope);
}

/* The cache keeps each KV head's keys as one block of rows [cap, d], and its values
 * as another, while kv_append takes them as the projections make them ([n, Hkv, d])
 * and kv_rows gives them back so. Pieces of 1, 2, 13, 1, 20 and 40 tokens make every
 * block grow from 16 rows to 32, 64 and 128; every number says which token, head and
 * dim it belongs to, so a row lost or put in the wrong place by a growth, a head's rows
 * in another head's block, or keys and values swapped show. kv_rows is read whole and
 * in windows that start and end inside a head's row. */
static float kv_number(int t, int h, int i, bool value) {
    return (value ? -1.0f : 1.0f) * (t * 1000 + h * 100 + i);
}

START_TEST(test_kv_cache_grows) {
    const AttnDims dims = {.n_kv_heads = 3, .head_dim = 8};
    const int pieces[] = {1, 2, 13, 1, 20, 40}, Hkv = 3, d = 8;
    KVCache kv;
    kv_init(&kv, &dims, 0);
    for (int round = 0; round < 2; round++) { /* the second after kv_reset, in the memory kept */
        int len = 0;
        for (size_t p = 0; p < ARRAY_LEN(pieces); p++) {
            int n = pieces[p];
            float *k = xmalloc(sizeof(float) * (size_t)n * Hkv * d),
                  *v = xmalloc(sizeof(float) * (size_t)n * Hkv * d);
            for (int t = 0; t < n; t++)
                for (int h = 0; h < Hkv; h++)
                    for (int i = 0; i < d; i++) {
                        k[(t * Hkv + h) * d + i] = kv_number(len + t, h, i, false);
                        v[(t * Hkv + h) * d + i] = kv_number(len + t, h, i, true);
                    }
            kv_append(&kv, k, v, n);
            len += n;
            free(k), free(v);
            ck_assert_int_eq(kv.len, len);
            for (int h = 0; h < Hkv; h++)
                for (int t = 0; t < len; t++)
                    for (int i = 0; i < d; i++) {
                        ck_assert_float_eq(kv_keys(&kv, h)[t * d + i], kv_number(t, h, i, false));
                        ck_assert_float_eq(kv_values(&kv, h)[t * d + i], kv_number(t, h, i, true));
                    }
        }
        ck_assert_int_eq(kv.cap, 128);
        int64_t all = (int64_t)len * Hkv * d;
        float *rows = xmalloc(sizeof(float) * (size_t)all);
        const int64_t windows[][2] = {{0, all}, {3, 5}, {5, 30}, {all - 11, 11}, {all / 2 + 1, 0}};
        for (size_t w = 0; w < ARRAY_LEN(windows); w++)
            for (int value = 0; value < 2; value++) {
                int64_t first = windows[w][0], count = windows[w][1];
                kv_rows(&kv, value, first, count, rows);
                for (int64_t e = first; e < first + count; e++) {
                    int t = (int)(e / (Hkv * d)), h = (int)(e / d % Hkv), i = (int)(e % d);
                    ck_assert_float_eq(rows[e - first], kv_number(t, h, i, value));
                }
            }
        free(rows);
        kv_reset(&kv);
        ck_assert_int_eq(kv.len, 0);
    }
    kv_free(&kv);
}
END_TEST

START_TEST(test_kv_cache_decode_equals_full) {
    Tiny tn;
    tiny_open(&tn, _i);
    int T = tn.T, H = tn.at->d.hidden, Hq = tn.at->d.n_heads;
    ck_assert_int_eq(T, 7);
    char hs[32], ps[32];
    snprintf(hs, sizeof hs, "%d x %d", T, H);
    snprintf(ps, sizeof ps, "%d x %d", Hq, T);
    float *full = xmalloc((size_t)T * H * sizeof(float)), *got = xmalloc((size_t)T * H * sizeof(float));
    float *pfull = xmalloc((size_t)Hq * T * sizeof(float)), *pgot = xmalloc((size_t)Hq * T * sizeof(float));
    const int all[] = {7};
    run_in_pieces(&tn, all, 1, full, pfull);

    /* Each token's row is computed by the same code in the same order whether it
     * arrives with the prompt or alone, and linear_batch's rows equal linear()'s bit
     * for bit: so the outputs must be identical, not merely close (tolerance 0). */
    const int one_by_one[] = {1, 1, 1, 1, 1, 1, 1}, prefill3[] = {3, 1, 1, 1, 1}, two_five[] = {2, 5};
    const struct {
        const char *name;
        const int *sizes;
        int n;
    } splits[] = {{"decode 7 × 1 token", one_by_one, 7},
                  {"prefill 3 + decode 4", prefill3, 5},
                  {"prefill 2 + prefill 5", two_five, 2}};
    for (size_t s = 0; s < ARRAY_LEN(splits); s++) {
        run_in_pieces(&tn, splits[s].sizes, splits[s].n, got, pgot);
        char name[96];
        snprintf(name, sizeof name, "%s vs full pass: out", splits[s].name);
        ck_assert(compare_f32(name, hs, got, full, (int64_t)T * H, 0, 0, NULL));
        snprintf(name, sizeof name, "%s vs full pass: last token's weights", splits[s].name);
        ck_assert(compare_f32(name, ps, pgot, pfull, (int64_t)Hq * T, 0, 0, NULL));
    }

    /* The output is the golden's too (not just self-consistent). */
    ck_assert(compare_f32("decoded out vs golden", hs, got,
                          golden_f32(&tn.f.golden, "layer.3.self_attn.out", T * H), (int64_t)T * H,
                          GOLDEN_ATOL, GOLDEN_RTOL, NULL));

    /* No attention weights kept and one thread: the same bits (keeping them only
     * copies; rows never depend on which thread computed them). */
    int threads = pool_threads();
    pool_set_threads(1);
    RopeTable rope;
    rope_init_config(&rope, tn.c, 0);
    KVCache kv;
    kv_init(&kv, &tn.at->d, 0);
    AttnActs a;
    attn_acts_init(&a, &tn.at->d, T);
    attn_forward(tn.at, &a, tn.x, T, &kv, &rope, got, PATH_FAST);
    pool_set_threads(threads);
    ck_assert(
        compare_f32("no weights kept, 1 thread vs full pass", hs, got, full, (int64_t)T * H, 0, 0, NULL));

    /* kv_reset starts a new prompt in the same memory: the same answer again. */
    kv_reset(&kv);
    ck_assert_int_eq(kv.len, 0);
    attn_forward(tn.at, &a, tn.x, T, &kv, &rope, got, PATH_FAST);
    ck_assert(compare_f32("after kv_reset", hs, got, full, (int64_t)T * H, 0, 0, NULL));

    /* The readable path (linear_ref for the projections): the same numbers up to the
     * order of the float32 sums (one after another there, in 16 lanes in the kernels:
     * over mid's rows of 1024 and 2048 they differ by up to 2.5e-6). */
    kv_reset(&kv);
    attn_forward(tn.at, &a, tn.x, T, &kv, &rope, got, PATH_READABLE);
    ck_assert(compare_f32("reference path vs kernels", hs, got, full, (int64_t)T * H,
                          tn.f.size == GOLDEN_MID ? 2e-5 : 1e-6, 1e-5, NULL));
    attn_acts_free(&a);

    /* 2 × Hkv × d × 4 bytes per token: 2 × 2 × 32 × 4 = 512 in tiny, 2 × 2 × 256 × 4 =
     * 4096 in mid (and in the 0.8B model). */
    size_t per_token = attn_kv_bytes_per_token(&tn.at->d);
    ck_assert_uint_eq(per_token, tn.f.size == GOLDEN_MID ? 4096 : 512);
    ck_assert_int_eq(kv_bytes_used(&kv), (int64_t)T * (int64_t)per_token); /* the T rows the pass stored */
    kv_free(&kv);
    rope_free(&rope);
    free(full), free(got), free(pfull), free(pgot);
    tiny_close(&tn);
}
END_TEST

/* ---- 4. GQA --------------------------------------------------------------------- */

START_TEST(test_gqa_mapping) {
    /* The 0.8B layout by formula: 8 query heads on 2 KV heads, consecutive groups of 4. */
    Config c8 = hand_config(1024, 8, 2, 256);
    AttnDims a8 = {.n_heads = 8, .n_kv_heads = 2, .group = 4};
    const int want8[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    for (int h = 0; h < 8; h++) ck_assert_int_eq(attn_kv_head(&a8, h), want8[h]);
    (void)c8;

    /* By behaviour: 4 query heads on 2 KV heads (d = 2, hidden 2). Every token is
     * x = (1, 0); KV head 0's value is (1, 1) and KV head 1's is (2, 2) for every
     * token. Whatever the weights, a query head's output is then exactly the value of
     * the KV head it reads (the weights sum to 1): heads 0, 1 → (1, 1), heads 2, 3 →
     * (2, 2). Reading KV head h % 2 instead would give 1, 2, 1, 2. */
    float q_proj[4 * 4 * 2]; /* [Hq × 2d, hidden]: varied queries and gates, so the heads differ */
    for (int i = 0; i < 32; i++) q_proj[i] = (float)((i * 7) % 5) - 2.0f;
    const float k_proj[4 * 2] = {1, 0, -1, 0, 0.5f, 0, 2, 0};
    const float v_proj[4 * 2] = {1, 0, 1, 0, 2, 0, 2, 0}; /* rows of KV head 0, then KV head 1 */
    float o_proj[2 * 8] = {0};
    const float norm[2] = {0, 0};
    Tensor tq = f32_tensor("q_proj", q_proj, 16, 2), tk = f32_tensor("k_proj", k_proj, 4, 2),
           tv = f32_tensor("v_proj", v_proj, 4, 2), to = f32_tensor("o_proj", o_proj, 2, 8),
           tn = f32_tensor("q_norm", norm, 2, 0);
    AttnWeights w = {&tq, &tk, &tv, &to, &tn, &tn};
    Config c = hand_config(2, 4, 2, 2);
    Attention at;
    attn_from_weights(&at, &c, &w);
    ck_assert_int_eq(at.d.group, 2);
    RopeTable rope;
    rope_init(&rope, 2, 2, 1e7, 0);
    KVCache kv;
    kv_init(&kv, &at.d, 0);
    const float x[3 * 2] = {1, 0, 1, 0, 1, 0};
    float out[3 * 2];
    AttnActs a;
    attn_acts_init(&a, &at.d, 3);
    attn_forward(&at, &a, x, 3, &kv, &rope, out, PATH_FAST);
    const float *attn = a.attn;
    const float want[3 * 8] = {1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2};
    /* a weighted mean of equal values: exact up to the rounding of Σ p_j (a few ulps) */
    ck_assert(compare_f32("GQA: each query head reads its group's KV head", "3 x 4 x 2", attn, want, 24, 1e-6,
                          1e-6, NULL));
    attn_acts_free(&a);
    kv_free(&kv);
    rope_free(&rope);
}
END_TEST

/* ---- 5. a softmax that does not overflow ---------------------------------------- */

/* One head, d = 2, both tokens x = (1, 0): q = (1, 1) and k = (1, 1) before the
 * norms; k_norm's weight 999 makes the scale 1 + w = 1000, so k = (1000, 1000).
 *   token 0: q·k0 / √2 = 2000 / √2 = 1414.2. e^1414 is inf in float32 (and in
 *            float64, whose limit is e^709), so exp(s) / Σ exp(s) would be inf / inf
 *            = NaN. Subtracting the largest score first gives e^0 / e^0 = 1.
 *   token 1: q1 and k1 turn together, q1·k1 = 2000 → 1414.2; k0 does not turn and
 *            q1 becomes (c − s, c + s), so q1·k0 = 1000·2c = 1080.6 → 764.1.
 *            e^(764.1 − 1414.2) = e^−650 is 0 in float32: the weights are exactly (0, 1).
 * Nothing may be infinite or NaN anywhere. */
START_TEST(test_softmax_large_scores) {
    const float q_proj[4 * 2] = {1, 0, 1, 0, 0, 0, 0, 0}; /* one head: query (1, 1) for x = (1, 0); gate 0 */
    const float k_proj[2 * 2] = {1, 0, 1, 0};
    const float v_proj[2 * 2] = {1, 0, -1, 0};
    const float o_proj[2 * 2] = {1, 0, 0, 1};
    const float q_norm[2] = {0, 0}, k_norm[2] = {999, 999};
    Tensor tq = f32_tensor("q_proj", q_proj, 4, 2), tk = f32_tensor("k_proj", k_proj, 2, 2),
           tv = f32_tensor("v_proj", v_proj, 2, 2), to = f32_tensor("o_proj", o_proj, 2, 2),
           tqn = f32_tensor("q_norm", q_norm, 2, 0), tkn = f32_tensor("k_norm", k_norm, 2, 0);
    AttnWeights w = {&tq, &tk, &tv, &to, &tqn, &tkn};
    Config c = hand_config(2, 1, 1, 2);
    Attention at;
    attn_from_weights(&at, &c, &w);
    RopeTable rope;
    rope_init(&rope, 2, 2, 1e7, 0);
    KVCache kv;
    kv_init(&kv, &at.d, 0);
    const float x[2 * 2] = {1, 0, 1, 0};
    for (Path path = PATH_FAST; path <= PATH_READABLE; path++) {
        float out[4], probs[4];
        AttnActs a;
        attn_acts_init(&a, &at.d, 2);
        a.probs = probs;
        kv_reset(&kv);
        attn_forward(&at, &a, x, 2, &kv, &rope, out, path);
        attn_acts_free(&a);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(isfinite(out[i]) && isfinite(probs[i]), "value %d not finite", i);
        /* token 0: weight 1 on itself; token 1: weights (0, 1), as worked out above */
        const float want_probs[4] = {1, 0, 0, 1};
        ck_assert(compare_f32(path == PATH_FAST ? "softmax with scores ~1400 (fast)"
                                                : "softmax with scores ~1400 (readable)",
                              "1 x 2 x 2", probs, want_probs, 4, 0, 0, NULL));
    }
    kv_free(&kv);
    rope_free(&rope);
}
END_TEST

/* softmax_vec on its own (the fast path's softmax): rows of the lengths around its
 * lanes (16 for the max, 8 for the sum, then the numbers left over), the largest score
 * first, in the middle and last.
 *   graded:   s_j = 10 sin(1.3 j), the largest 12: against the formula in double
 *             from the same float32 differences s_j − max, within 1e-6 relative (e^x
 *             within a float32 step, the sum in double; the rounding of s_j − max
 *             itself, up to 22 · 6e-8, would be more);
 *   dominant: s_j = −(j mod 5), the largest 200: e^(s_j − 200) is below e^−87, which
 *             softmax_vec's e^x makes exactly 0, so the row must be exactly 1 at the
 *             largest and 0 elsewhere. A max that missed it (in the numbers left over
 *             after the lanes, say) would give the others e^(s_j − max) > 0. */
START_TEST(test_softmax_vec_rows) {
    const int lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 33, 100, 2048, 2053};
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int n = lengths[li];
        float *got = xmalloc(sizeof(float) * 3 * (size_t)n), *want = xmalloc(sizeof(float) * 3 * (size_t)n);
        for (int dominant = 0; dominant <= 1; dominant++) {
            for (int r = 0; r < 3; r++) {
                int top = r == 0 ? 0 : r == 1 ? n / 2 : n - 1;
                float *row = got + (size_t)r * n, *ref = want + (size_t)r * n;
                for (int j = 0; j < n; j++)
                    row[j] = dominant ? -(float)(j % 5) : 10.0f * sinf(1.3f * (float)j);
                row[top] = dominant ? 200.0f : 12.0f;
                double sum = 0;
                for (int j = 0; j < n; j++) sum += exp((double)(row[j] - row[top]));
                for (int j = 0; j < n; j++)
                    ref[j] =
                        dominant ? (j == top ? 1.0f : 0.0f) : (float)(exp((double)(row[j] - row[top])) / sum);
                softmax_vec(row, n);
            }
            char name[64], shape[32];
            snprintf(name, sizeof name, "softmax_vec, %s", dominant ? "one score 200" : "graded scores");
            snprintf(shape, sizeof shape, "3 x %d", n);
            ck_assert(compare_f32(name, shape, got, want, 3 * (int64_t)n, 0, dominant ? 0 : 1e-6, NULL));
        }
        free(got);
        free(want);
    }
}
END_TEST

/* ---- 6. bad input --------------------------------------------------------------- */

/* A fresh copy of the tiny checkpoint under $BUILD, for breaking. */
static char *fresh_tiny(const char *name) {
    const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
    char path[512];
    snprintf(path, sizeof path, "%s/test_attention/%s", build, name);
    SynthOptions o = {.n_shards = 1};
    synth_config_tiny(&o.config);
    Error err;
    ck_assert_msg(synth_write(path, &o, &err), "%s", err.msg);
    return xstrdup(path);
}

/* Rewrites the shard with layers.3.self_attn.q_proj.weight cut to its first Hq·d
 * rows: the shape of a q_proj without the gate, as a Qwen3 (no gate) file has. */
static void cut_q_proj(const char *dir) {
    char *shard = path_join(dir, "model.safetensors-00001-of-00001.safetensors");
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, shard, &err), "%s", err.msg);
    StWriter w;
    stw_init(&w);
    float **values = xcalloc((size_t)st.count, sizeof *values);
    for (int i = 0; i < st.count; i++) {
        const Tensor *t = &st.tensors[i];
        int64_t shape[TENSOR_MAX_DIMS];
        memcpy(shape, t->shape, sizeof shape);
        if (strstr(t->name, "layers.3.self_attn.q_proj.weight")) shape[0] /= 2;
        int64_t n = 1;
        for (int d = 0; d < t->ndim; d++) n *= shape[d];
        values[i] = xmalloc((size_t)(n ? n : 1) * sizeof(float));
        tensor_read_f32(t, 0, n, values[i]);
        stw_add(&w, t->name, t->dtype, t->ndim, shape, values[i]);
    }
    int count = st.count;
    st_close(&st);
    ck_assert_msg(stw_write(&w, shard, NULL, &err), "%s", err.msg);
    stw_free(&w);
    for (int i = 0; i < count; i++) free(values[i]);
    free(values);
    free(shard);
}

/* Replaces text_config's head split in dir/config.json (the weights stay as they are). */
static void set_heads(const char *dir, int heads, int kv_heads, int head_dim) {
    char *path = path_join(dir, "config.json");
    Error err;
    char *text = read_file(path, NULL, &err);
    ck_assert_msg(text != NULL, "%s", err.msg);
    cJSON *root = cJSON_Parse(text);
    cJSON *tc = cJSON_GetObjectItem(root, "text_config");
    cJSON_SetNumberValue(cJSON_GetObjectItem(tc, "num_attention_heads"), heads);
    cJSON_SetNumberValue(cJSON_GetObjectItem(tc, "num_key_value_heads"), kv_heads);
    cJSON_SetNumberValue(cJSON_GetObjectItem(tc, "head_dim"), head_dim);
    /* M-RoPE sections must add up to the rotary pairs of the new head_dim; they do not
     * matter for text, so drop them rather than let config.json fail on them first */
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(tc, "rope_parameters"), "mrope_section");
    char *out = cJSON_Print(root);
    ck_assert_msg(write_file(path, out, strlen(out), &err), "%s", err.msg);
    free(out);
    cJSON_Delete(root);
    free(text);
    free(path);
}

/* The open must fail, with a message that contains every one of the fragments. */
static void expect_refused(const char *dir, const char *const *fragments, int n) {
    Model m;
    Error err = {{0}};
    bool ok = model_open(&m, dir, &err);
    if (ok) model_close(&m);
    ck_assert_msg(!ok, "%s was opened although its attention shapes contradict config.json", dir);
    printf("refused as expected: %s\n", err.msg);
    for (int i = 0; i < n; i++)
        ck_assert_msg(strstr(err.msg, fragments[i]), "message lacks \"%s\": %s", fragments[i], err.msg);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "the message is one line: %s", err.msg);
}

START_TEST(test_checkpoint_q_proj_without_gate) {
    /* tiny: 4 heads × (32 query + 32 gate) = 256 rows; without the gate, 128 */
    char *dir = fresh_tiny("q_proj_no_gate");
    cut_q_proj(dir);
    const char *frag[] = {"layers.3.self_attn.q_proj.weight", "[128, 64]", "[256, 64]", "config.json"};
    expect_refused(dir, frag, 4);
    free(dir);
}
END_TEST

START_TEST(test_checkpoint_head_split_mismatch) {
    /* head_dim 16 instead of 32 with 4 heads: q_proj should be 4 × 2 × 16 = 128 rows */
    char *dir = fresh_tiny("head_dim_16");
    set_heads(dir, 4, 2, 16);
    const char *frag1[] = {"layers.3.self_attn.q_proj.weight", "[256, 64]", "[128, 64]"};
    expect_refused(dir, frag1, 3);
    free(dir);

    /* 8 heads of 16 and 4 KV heads of 16: every projection has the same size as
     * 4 heads of 32 and 2 KV heads of 32 (8·2·16 = 4·2·32, 4·16 = 2·32), so only
     * the per-head norm weights can tell — and they do: q_norm has 32 values, not 16.
     * Without this check the layer would run with heads cut in the wrong places. */
    dir = fresh_tiny("heads_8x16");
    set_heads(dir, 8, 4, 16);
    const char *frag2[] = {"layers.3.self_attn.q_norm.weight", "[32]", "[16]"};
    expect_refused(dir, frag2, 3);
    free(dir);

    /* 4 query heads on 3 KV heads cannot be grouped: config.json itself is refused. */
    dir = fresh_tiny("kv_heads_3");
    set_heads(dir, 4, 3, 32);
    const char *frag3[] = {"config.json", "num_attention_heads 4", "num_key_value_heads 3"};
    expect_refused(dir, frag3, 3);
    free(dir);
}
END_TEST

/* A small, repeatable stream of numbers in [-0.5, 0.5). */
static float uniform(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* attend_group_fast (scores by the linear kernel's tiles, softmax with the
 * vectorized e^x, the mix in tiles of 4 heads × 96 dims) against the formula in
 * double, on shapes that reach every tile: G = 1 .. 8 heads (a last tile of 1 .. 4),
 * d = 16 .. 256 (a last vector of 8 dims at d = 40 and 100), 1 .. 1100 positions, the
 * keys a block from the cache (under 64 KB) or read from memory as 3 streams (from
 * 64 KB on: 300 and 200 positions of 256 dims, 700 of 128, 1100 of 64, with 1 .. 4
 * queries a tile and rows left over after the streams' parts). The weights p and the mix
 * agree to 5e-7 absolute (values of size 0.5: a few float32 steps of sums over 256
 * dims and 300 positions; measured: 1e-7 at most). A key read from the wrong row, a missing 1/sqrt(d),
 * or a head mixed with another head's weights would be off by far more. */
START_TEST(test_attend_fast_vs_double) {
    const int shapes[][3] = {{4, 256, 1}, {4, 256, 300}, {1, 32, 17},   {3, 40, 50},   {5, 100, 7},
                             {8, 16, 64}, {2, 32, 33},   {3, 256, 200}, {1, 128, 700}, {6, 64, 1100}};
    unsigned seed = 7;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int G = shapes[s][0], d = shapes[s][1], n = shapes[s][2], stride = d, P = n + 3;
        float *q = xmalloc(sizeof(float) * (size_t)G * d), *K = xmalloc(sizeof(float) * (size_t)n * stride),
              *V = xmalloc(sizeof(float) * (size_t)n * stride),
              *score = xmalloc(sizeof(float) * (size_t)G * P), *o = xmalloc(sizeof(float) * (size_t)G * d);
        for (int i = 0; i < G * d; i++) q[i] = 2.0f * uniform(&seed);
        for (int i = 0; i < n * stride; i++) {
            K[i] = 2.0f * uniform(&seed);
            V[i] = uniform(&seed);
        }
        float scale = 1.0f / sqrtf((float)d);
        attend_group_fast(q, G, K, V, n - 1, d, scale, score, P, o);
        double worst_p = 0, worst_o = 0;
        double *e = xmalloc(sizeof(double) * (size_t)n);
        for (int g = 0; g < G; g++) {
            double max = -INFINITY, sum = 0;
            for (int j = 0; j < n; j++) {
                double dot = 0;
                for (int i = 0; i < d; i++) dot += (double)q[g * d + i] * K[(size_t)j * stride + i];
                e[j] = dot * scale;
                max = e[j] > max ? e[j] : max;
            }
            for (int j = 0; j < n; j++) sum += e[j] = exp(e[j] - max);
            for (int j = 0; j < n; j++) worst_p = fmax(worst_p, fabs(score[g * P + j] - e[j] / sum));
            for (int i = 0; i < d; i++) {
                double want = 0;
                for (int j = 0; j < n; j++) want += e[j] / sum * V[(size_t)j * stride + i];
                worst_o = fmax(worst_o, fabs(o[g * d + i] - want));
            }
        }
        printf("OK   attend_group_fast, %d heads of %d, %d positions: p within %.2g, o within %.2g\n", G, d,
               n, worst_p, worst_o);
        ck_assert_msg(worst_p < 5e-7 && worst_o < 5e-7, "%d heads of %d, %d positions: p off by %g, o by %g",
                      G, d, n, worst_p, worst_o);
        free(q), free(K), free(V), free(score), free(o), free(e);
    }
}
END_TEST

/* attend_tokens_fast gives B consecutive tokens the bits of B calls of
 * attend_group_fast, scores and mix alike: blocks that start at position 0 and far from
 * it, with tokens that end inside, at the edge of and beyond a block of keys (30) and a
 * chunk of values (128), G = 4 (one tile of queries) and 5 (a tile of 1 more), d = 256
 * and 40 (a short last vector). Tolerance: none. A token that skipped a block of keys,
 * read one position too many or too few, or took an earlier chunk's sums from another
 * token would differ. */
START_TEST(test_attend_tokens_as_one_by_one) {
    const int cases[][4] = {/* G, d, pos0, B */ {4, 256, 0, 16},
                            {4, 256, 25, 9},
                            {4, 256, 120, 16},
                            {5, 40, 127, 3},
                            {4, 256, 240, 1},
                            {5, 40, 0, 31},
                            {4, 256, 290, 16}};
    unsigned seed = 11;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int G = cases[c][0], d = cases[c][1], pos0 = cases[c][2], B = cases[c][3];
        int n = pos0 + B, P = n + 5, stride = G * d + 8; /* a token's heads, then room */
        float *q = xmalloc(sizeof(float) * (size_t)B * stride), *K = xmalloc(sizeof(float) * (size_t)n * d),
              *V = xmalloc(sizeof(float) * (size_t)n * d);
        float *score = xcalloc((size_t)B * G * P, sizeof(float)),
              *o = xcalloc((size_t)B * stride, sizeof(float));
        float *score1 = xcalloc((size_t)G * P, sizeof(float)), *o1 = xcalloc((size_t)G * d, sizeof(float));
        for (int i = 0; i < B * stride; i++) q[i] = 2.0f * uniform(&seed);
        for (int i = 0; i < n * d; i++) K[i] = 2.0f * uniform(&seed), V[i] = uniform(&seed);
        float scale = 1.0f / sqrtf((float)d);
        attend_tokens_fast(q, stride, B, G, K, V, pos0, d, scale, score, P, o, stride);
        for (int b = 0; b < B; b++) {
            attend_group_fast(q + (size_t)b * stride, G, K, V, pos0 + b, d, scale, score1, P, o1);
            for (int g = 0; g < G; g++)
                ck_assert_msg(memcmp(score + ((size_t)b * G + g) * P, score1 + (size_t)g * P,
                                     sizeof(float) * (size_t)(pos0 + b + 1)) == 0,
                              "G %d d %d pos0 %d B %d: token %d head %d, weights differ", G, d, pos0, B, b,
                              g);
            ck_assert_msg(memcmp(o + (size_t)b * stride, o1, sizeof(float) * (size_t)G * d) == 0,
                          "G %d d %d pos0 %d B %d: token %d, mix differs", G, d, pos0, B, b);
        }
        printf(
            "OK   attend_tokens_fast, %d tokens from position %d, %d heads of %d: the bits of one by one\n",
            B, pos0, G, d);
        free(q), free(K), free(V), free(score), free(o), free(score1), free(o1);
    }
}
END_TEST

/* The output gate's fast form, x / (1 + e^−g) with the vectorized e^x, against
 * x · σ(g) in double for g over [-80, 100] (below −87 e^−g leaves float32's range):
 * within 2e-7 relative, a few float32 steps; far out it lets x through whole or (to
 * 1e-37) nothing, and a NaN gate gives NaN. A gate taken as 1 + w, a missing sign
 * (σ(−g)) or x · g would be off by far more. */
START_TEST(test_sigmoid_gate_vec) {
    enum { N = 180001 };
    float *g = xmalloc(sizeof(float) * N), *x = xmalloc(sizeof(float) * N), *y = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        g[i] = -80.0f + 180.0f * (float)i / (N - 1);
        x[i] = i % 2 ? 1.5f : -0.75f;
    }
    sigmoid_gate_vec(x, g, N, y);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double want = x[i] / (1.0 + exp(-(double)g[i])), rel = fabs(y[i] - want) / fabs(want);
        if (rel > worst) worst = rel;
    }
    printf("OK   sigmoid_gate_vec vs x · sigmoid(g) in double on [-80, 100]: max rel %.3g\n", worst);
    ck_assert_msg(worst < 2e-7, "sigmoid_gate_vec differs by %g relative", worst);
    const float far_g[4] = {1e30f, 200.0f, -200.0f, NAN}, far_x[4] = {3.0f, -2.0f, 5.0f, 1.0f};
    float out[4];
    sigmoid_gate_vec(far_x, far_g, 4, out);
    ck_assert_float_eq(out[0], 3.0f);
    ck_assert_float_eq(out[1], -2.0f);
    ck_assert(out[2] >= 0.0f && out[2] < 1e-37f);
    ck_assert(isnan(out[3]));
    free(g), free(x), free(y);
}
END_TEST

int main(void) {
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("attention");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_two_tokens_by_hand);
    tcase_add_loop_test(tc, test_layer3_vs_golden, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, test_kv_cache_decode_equals_full, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_test(tc, test_kv_cache_grows);
    tcase_add_test(tc, test_gqa_mapping);
    tcase_add_test(tc, test_softmax_large_scores);
    tcase_add_test(tc, test_softmax_vec_rows);
    tcase_add_test(tc, test_sigmoid_gate_vec);
    tcase_add_test(tc, test_attend_fast_vs_double);
    tcase_add_test(tc, test_attend_tokens_as_one_by_one);
    tcase_add_test(tc, test_checkpoint_q_proj_without_gate);
    tcase_add_test(tc, test_checkpoint_head_split_mismatch);
    suite_add_tcase(s, tc);
    /* Check runs each test in a child process that may end without flushing stdout:
     * line buffering keeps the comparison lines of a failing test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    return run_suite(s, CK_FORK_GETENV);
}
