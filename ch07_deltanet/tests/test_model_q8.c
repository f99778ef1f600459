/* test_model_q8 — the whole model on 8-bit weights (model.h's model_quantize, --quant q8_0).
 *
 * What is held, on the tiny checkpoint and on the mid one (the real layer widths):
 *
 *   1. the 8-bit model is the model of its 8-bit weights. A copy of the checkpoint is
 *      written whose every projection and output head holds, in float32, exactly the
 *      numbers its 8-bit groups stand for (scale · q, made by the readable quantizer of
 *      quant.c, not by the packing the model uses), and the model on that copy runs
 *      the float32 path. The two differ only in what the 8-bit product does to the
 *      activations: each is rounded to its group's grid of max|x| / 32385 (Q8_ACT16),
 *      off by at most half a step, 1/64770 of the group's largest number, where float32
 *      rounds to 2^-24 ≈ 1/16.8 M of the number itself. The float32 path itself stays
 *      within 3e-6 relative RMS of the float64 reference on these models (test_model's
 *      bound for it is 1e-4); activations rounded about 250 times more coarsely than
 *      float32 make that about 250 times larger: the bound is 1e-3 relative RMS per
 *      position (measured: 1.6e-4 on tiny, 1.4e-4 on mid). A kernel that puts one row
 *      in the wrong lane, a stack whose parts are shifted, a wrong scale, activations
 *      as int8 (1/254 of the group's largest number), weights not rounded at all (then
 *      the copy is the whole 8-bit error away, 2e-2): all of these move the logits by
 *      far more;
 *
 *   2. the format's error, stated and bounded. Rounding a weight to its group's grid
 *      moves it by at most half a step, and by nearly uniform amounts in between:
 *      statistically the same as adding to every weight a random number drawn
 *      uniformly from half a step either side ("dither"). A second copy holds the
 *      weights with such dither (float32, the float32 path): how far that moves the
 *      logits measures how much this model amplifies weight noise of exactly the 8-bit
 *      size, for any weights, random or trained. The 8-bit logits may then differ from
 *      the checkpoint's float32 ones by at most twice what the dither does (a sum of
 *      thousands of small independent errors: two draws differ by a few percent, not
 *      by 2x; measured, the 8-bit weights' mean over the positions is within 10% of the
 *      dither's). The figures are printed beside the worst position, top-1 and top-5;
 *
 *   3. the promises of the model hold for the 8-bit weights too, bit for bit: prefill in
 *      one pass or token by token, in pieces, with 1, 2 or 3 workers. The readable path
 *      (--reference) computes the same projections to the bit (quant.c's
 *      q8_linear_tensor_ref), but its other loops round differently, by a float32 step
 *      or two, and the quantization of an activation that lands near the middle between
 *      two steps turns such a difference into a whole step: the bound is that of 1,
 *      1e-3 relative RMS (measured: 1.8e-4);
 *
 *   4. sizes and refusals: the bytes the packing allocated are model_quant_bytes's
 *      estimate, the model reads fewer bytes than the checkpoint's, every BF16 page is
 *      still readable after its release; a memory limit below the packed bytes is
 *      refused before anything is packed, a NaN in a projection names the tensor and
 *      the row, and either way the model goes on with the checkpoint's weights.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/model.h"
#include "qwen/safetensors.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"
#include "tests/check_main.h"

static const int IDS[] = {3, 141, 592, 7, 1000, 59, 288, 17, 2, 940}; /* the golden's 7, then 3 more */
enum { T_IDS = 10 };

static const char *dir_of(int size) { return size == GOLDEN_MID ? golden_mid_dir() : golden_tiny_dir(); }
static const char *name_of(int size) { return size == GOLDEN_MID ? "mid" : "tiny"; }

static void open_model(Model *m, const char *dir, Quant q) {
    Error err;
    ck_assert_msg(model_open(m, dir, &err), "%s", err.msg);
    ck_assert_msg(model_quantize(m, q, &err), "%s", err.msg);
}

/* Every position's logits [T, V] of ids in one pass from an empty state. */
static float *all_logits(const Model *m, const int *ids, int T, Path path) {
    float *logits = xmalloc(sizeof(float) * (size_t)T * m->ck.config.vocab_size);
    RunState s;
    run_init(&s, m, 256);
    s.path = path;
    ModelTrace tr = {.logits = logits};
    Error err;
    ck_assert_msg(model_forward(m, &s, ids, T, &tr, &err), "%s", err.msg);
    run_free(&s);
    return logits;
}

/* ---- how far two sets of logits are apart ------------------------------------------- */

typedef struct {
    double worst, mean; /* relative RMS difference per position: |a − b| / |b| over the vocabulary */
    int top1, top5, T;  /* positions with the same top token; top-5 tokens in common */
} Apart;

static void top5_of(const float *v, int n, int top[5]) {
    for (int j = 0; j < 5; j++) top[j] = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 5; j++)
            if (top[j] < 0 || v[i] > v[top[j]]) {
                for (int k = 4; k > j; k--) top[k] = top[k - 1];
                top[j] = i;
                break;
            }
}

static Apart apart(const float *a, const float *b, int T, int V) {
    Apart r = {.T = T};
    for (int t = 0; t < T; t++) {
        const float *at = a + (size_t)t * V, *bt = b + (size_t)t * V;
        double d = 0, n = 0;
        for (int v = 0; v < V; v++)
            d += ((double)at[v] - bt[v]) * ((double)at[v] - bt[v]), n += (double)bt[v] * bt[v];
        double rel = sqrt(d / n);
        r.worst = fmax(r.worst, rel);
        r.mean += rel / T;
        int ta[5], tb[5];
        top5_of(at, V, ta), top5_of(bt, V, tb);
        r.top1 += ta[0] == tb[0];
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) r.top5 += ta[i] == tb[j];
    }
    return r;
}

/* ---- a copy of a checkpoint with its projections replaced ------------------------------ */

typedef enum { AS_STORED, DEQUANTIZED, DITHERED } Variant;

typedef struct {
    const Tensor *t;
    Variant v;
    uint64_t seed;
    int64_t row; /* the row in `values`, or −1 */
    float *values;
} Gen;

/* Uniform in [0, 1) from (seed, i): the same number whatever chunk asks for element i. */
static double hash_uniform(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull, z = (z ^ (z >> 27)) * 0x94D049BB133111EBull, z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* Row r of the tensor as the variant has it: the readable quantizer's numbers (scale ·
 * q), or the stored ones plus dither of half a step of the row's groups either side. */
static void variant_row(Gen *g, int64_t r) {
    int64_t in = g->t->shape[1], G = q8_groups(in);
    tensor_read_f32(g->t, r * in, in, g->values);
    int8_t *q = xmalloc((size_t)in);
    uint16_t *s = xmalloc((size_t)G * sizeof *s);
    ck_assert(q8_quantize_row(g->values, in, q, s));
    if (g->v == DEQUANTIZED)
        q8_dequantize_row(q, s, in, g->values);
    else
        for (int64_t i = 0; i < in; i++)
            g->values[i] +=
                f16_to_f32(s[i / Q8_GROUP]) * (float)(hash_uniform(g->seed, (uint64_t)(r * in + i)) - 0.5);
    free(q), free(s);
    g->row = r;
}

static void generate(void *ctx, int64_t first, int64_t count, float *out) {
    Gen *g = ctx;
    if (g->v == AS_STORED) {
        tensor_read_f32(g->t, first, count, out);
        return;
    }
    int64_t in = g->t->shape[1];
    for (int64_t i = 0; i < count; i++) {
        int64_t r = (first + i) / in;
        if (r != g->row) variant_row(g, r);
        out[i] = g->values[(first + i) % in];
    }
}

/* dir/model.safetensors (and config.json) holding m's checkpoint, every tensor that the
 * 8-bit model packs replaced by its variant, in float32. A tied embedding stays as
 * stored, and the variant of it goes in as lm_head.weight: the 8-bit model looks up the
 * checkpoint's exact rows and multiplies by the 8-bit ones, and so does the copy. */
static void write_variant(const Model *m8, const char *dir, Variant v) {
    Error err;
    ck_assert_msg(make_dirs(dir, &err), "%s", err.msg);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s/config.json' '%s/'", m8->ck.dir, dir);
    ck_assert(system(cmd) == 0);
    StWriter w;
    stw_init(&w);
    int n = 0;
    for (int s = 0; s < m8->ck.n_shards; s++) n += m8->ck.shards[s].count;
    Gen *gens = xcalloc((size_t)n + 1, sizeof *gens);
    for (int s = 0, k = 0; s < m8->ck.n_shards; s++)
        for (int i = 0; i < m8->ck.shards[s].count; i++, k++) {
            const Tensor *t = &m8->ck.shards[s].tensors[i];
            bool packed = false;
            for (int p = 0; p < m8->n_packed; p++)
                for (int j = 0; j < m8->packed[p].n; j++) packed |= m8->packed[p].w[j] == t;
            if (m8->tied && t == m8->embed_tokens) packed = false; /* the look-up's table */
            gens[k] = (Gen){.t = t, .v = packed ? v : AS_STORED, .seed = (uint64_t)k + 1, .row = -1};
            if (packed) gens[k].values = xmalloc((size_t)t->shape[1] * sizeof(float));
            stw_add_generated(&w, t->name, packed ? DTYPE_F32 : t->dtype, t->ndim, t->shape, generate,
                              &gens[k]);
        }
    if (m8->tied) {
        const Tensor *t = m8->embed_tokens;
        gens[n] = (Gen){.t = t, .v = v, .seed = (uint64_t)n + 1, .row = -1};
        gens[n].values = xmalloc((size_t)t->shape[1] * sizeof(float));
        stw_add_generated(&w, "lm_head.weight", DTYPE_F32, t->ndim, t->shape, generate, &gens[n]);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    ck_assert_msg(stw_write(&w, path, NULL, &err), "%s", err.msg);
    stw_free(&w);
    for (int k = 0; k <= n; k++) free(gens[k].values);
    free(gens);
}

static char scratch[256];
static void setup(void) {
    snprintf(scratch, sizeof scratch, "/tmp/test_model_q8.%d", (int)getpid());
    Error err;
    ck_assert_msg(make_dirs(scratch, &err), "%s", err.msg);
}
static void teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", scratch);
}

/* 1 and 2 (see the top of the file), on tiny and mid. */
START_TEST(the_model_of_its_8bit_weights) {
    Model f32, q8, deq, dith;
    open_model(&f32, dir_of(_i), QUANT_BF16);
    open_model(&q8, dir_of(_i), QUANT_Q8_0);
    char d1[300], d2[300];
    snprintf(d1, sizeof d1, "%s/%s_dequantized", scratch, name_of(_i));
    snprintf(d2, sizeof d2, "%s/%s_dithered", scratch, name_of(_i));
    write_variant(&q8, d1, DEQUANTIZED);
    write_variant(&q8, d2, DITHERED);
    open_model(&deq, d1, QUANT_BF16);
    open_model(&dith, d2, QUANT_BF16);
    int V = f32.ck.config.vocab_size;
    float *a = all_logits(&f32, IDS, T_IDS, PATH_FAST), *b = all_logits(&q8, IDS, T_IDS, PATH_FAST),
          *c = all_logits(&deq, IDS, T_IDS, PATH_FAST), *d = all_logits(&dith, IDS, T_IDS, PATH_FAST);

    Apart same = apart(b, c, T_IDS, V);
    printf("%-4s 8-bit model vs float32 on its dequantized weights: worst relative RMS %.2e (bound 1e-3)\n",
           name_of(_i), same.worst);
    ck_assert_msg(same.worst <= 1e-3, "%s: the 8-bit model is not the model of its 8-bit weights: %.3e",
                  name_of(_i), same.worst);

    Apart q = apart(b, a, T_IDS, V), n = apart(d, a, T_IDS, V);
    printf("%-4s 8-bit vs the checkpoint's weights: worst relative RMS %.4f (mean %.4f), top-1 %d of %d, "
           "top-5 %d of %d\n",
           name_of(_i), q.worst, q.mean, q.top1, q.T, q.top5, 5 * q.T);
    printf("%-4s dither of the same size:           worst relative RMS %.4f (mean %.4f); bound 2x: %.4f\n",
           name_of(_i), n.worst, n.mean, 2 * n.worst);
    ck_assert_msg(q.worst <= 2 * n.worst,
                  "%s: 8-bit logits %.4f from the checkpoint's, more than twice the dither's %.4f",
                  name_of(_i), q.worst, n.worst);
    ck_assert_msg(q.worst > 0, "%s: 8-bit logits identical to the checkpoint's: not 8-bit at all",
                  name_of(_i));
    free(a), free(b), free(c), free(d);
    model_close(&f32), model_close(&q8), model_close(&deq), model_close(&dith);
}
END_TEST

/* 3: one pass = pieces = token by token = any worker count, bit for bit; the readable path. */
START_TEST(promises_bit_for_bit) {
    Model m;
    open_model(&m, dir_of(_i), QUANT_Q8_0);
    int V = m.ck.config.vocab_size;
    float *whole = all_logits(&m, IDS, T_IDS, PATH_FAST);
    /* the first 4 in one pass, then one token at a time, in passes of at most 3 */
    float *pieces = xmalloc(sizeof(float) * (size_t)T_IDS * V);
    RunState s;
    run_init(&s, &m, 3);
    Error err;
    const int lens[] = {4, 1, 1, 1, 1, 1, 1};
    for (int p = 0, t = 0; t < T_IDS; t += lens[p++]) {
        ModelTrace tr = {.logits = pieces + (size_t)t * V};
        ck_assert_msg(model_forward(&m, &s, IDS + t, lens[p], &tr, &err), "%s", err.msg);
    }
    run_free(&s);
    ck_assert_msg(memcmp(whole, pieces, sizeof(float) * (size_t)T_IDS * V) == 0,
                  "%s: prefill and decode disagree", name_of(_i));
    int saved = pool_threads();
    for (int n = 1; n <= 3; n++) {
        pool_set_threads(n);
        float *again = all_logits(&m, IDS, T_IDS, PATH_FAST);
        ck_assert_msg(memcmp(whole, again, sizeof(float) * (size_t)T_IDS * V) == 0, "%s: %d workers differ",
                      name_of(_i), n);
        free(again);
    }
    pool_set_threads(saved);
    printf("%-4s 8-bit logits: one pass = prefill + decode in passes of 3 = 1, 2, 3 workers, bit for bit\n",
           name_of(_i));
    if (_i == GOLDEN_TINY) { /* the readable path: slow, tiny only */
        float *slow = all_logits(&m, IDS, T_IDS, PATH_READABLE);
        Apart r = apart(slow, whole, T_IDS, V);
        printf("tiny 8-bit readable path vs kernels: worst relative RMS %.2e (bound 1e-3)\n", r.worst);
        ck_assert_msg(r.worst <= 1e-3, "the readable 8-bit path is %.3e from the kernels", r.worst);
        free(slow);
    }
    free(whole), free(pieces);
    model_close(&m);
}
END_TEST

/* 4: sizes, pages, refusals. */
START_TEST(sizes_and_refusals) {
    Model m;
    Error err;
    ck_assert_msg(model_open(&m, dir_of(_i), &err), "%s", err.msg);
    int64_t bf16_bytes = model_weight_bytes(&m);
    uint64_t need = model_quant_bytes(&m, QUANT_Q8_0);
    ck_assert(model_quant_bytes(&m, QUANT_BF16) == 0);

    /* a limit below the packed bytes: refused before anything is packed */
    uint64_t limit = mem_limit();
    mem_set_limit(need - 1);
    ck_assert(!model_quantize(&m, QUANT_Q8_0, &err));
    mem_set_limit(limit);
    ck_assert_msg(strstr(err.msg, "8-bit weights") && strstr(err.msg, "memory"), "%s", err.msg);
    ck_assert(m.quant == QUANT_BF16 && m.n_packed == 0);
    printf("OK   refused: %s\n", err.msg);

    ck_assert_msg(model_quantize(&m, QUANT_Q8_0, &err), "%s", err.msg);
    uint64_t got = 0;
    for (int i = 0; i < m.n_packed; i++)
        got += (uint64_t)(m.packed[i].q8->blocks * q8_block_bytes(m.packed[i].q8));
    ck_assert_msg(got == need, "packed %llu bytes, estimated %llu", (unsigned long long)got,
                  (unsigned long long)need);
    ck_assert(model_weight_bytes(&m) < bf16_bytes);
    /* 1 head + per layer 2 (attention: q|k|v, o; DeltaNet: the four in_proj, out_proj) + 2 (gate|up, down) */
    ck_assert_int_eq(m.n_packed, 1 + 4 * m.ck.config.num_hidden_layers);
    /* the released pages are still the checkpoint's numbers: every packed row reads back
     * within half a step of its stored one */
    const Tensor *t = m.lm_head;
    int64_t in = t->shape[1];
    float *stored = xmalloc(sizeof(float) * (size_t)in), *packed = xmalloc(sizeof(float) * (size_t)in);
    for (int64_t r = 0; r < t->shape[0]; r += 97) {
        tensor_read_f32(t, r * in, in, stored);
        q8_packed_row(&m.head_q8, r, packed);
        for (int64_t i = 0; i < in; i++) {
            float max = 0;
            for (int64_t k = i / Q8_GROUP * Q8_GROUP; k < in && k < (i / Q8_GROUP + 1) * Q8_GROUP; k++)
                max = fmaxf(max, fabsf(stored[k]));
            ck_assert_msg(fabsf(packed[i] - stored[i]) <= max / 127 * 0.5f * 1.001f, "head row %lld [%lld]",
                          (long long)r, (long long)i);
        }
    }
    free(stored), free(packed);
    ck_assert(model_quantize(&m, QUANT_Q8_0, &err)); /* again: nothing to do */
    ck_assert(!model_quantize(&m, QUANT_BF16, &err));
    model_close(&m);
}
END_TEST

/* A NaN in one projection: model_quantize names it and the row, and the model is left
 * with the checkpoint's weights (which a forward pass still reads). */
START_TEST(nan_refused) {
    Model m;
    Error err;
    ck_assert_msg(model_open(&m, golden_tiny_dir(), &err), "%s", err.msg);
    char d[300];
    snprintf(d, sizeof d, "%s/nan", scratch);
    /* a copy of tiny with a NaN in layer 2's in_proj_z, row 5 */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", golden_tiny_dir(), d);
    ck_assert(system(cmd) == 0);
    const Tensor *z = m.layers[2].linear_attn.w.in_proj_z;
    long offset =
        (long)((const char *)z->data - (const char *)m.ck.shards[0].map) + 2 * (5 * z->shape[1] + 7);
    model_close(&m);
    char shard[600];
    snprintf(shard, sizeof shard, "%s/model.safetensors-00001-of-00001.safetensors", d);
    FILE *f = fopen(shard, "r+b");
    ck_assert(f && fseek(f, offset, SEEK_SET) == 0);
    uint16_t nan = 0x7FC0;
    ck_assert(fwrite(&nan, 2, 1, f) == 1 && fclose(f) == 0);
    ck_assert_msg(model_open(&m, d, &err), "%s", err.msg);
    ck_assert(!model_quantize(&m, QUANT_Q8_0, &err));
    ck_assert_msg(strstr(err.msg, "layers.2.linear_attn.in_proj_z.weight") && strstr(err.msg, "row 5"), "%s",
                  err.msg);
    ck_assert(m.quant == QUANT_BF16 && m.n_packed == 0 && m.head_q8.data == NULL);
    printf("OK   refused: %s\n", err.msg);
    model_close(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("model_q8");
    TCase *tc = tcase_create("model_q8");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, the_model_of_its_8bit_weights, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, promises_bit_for_bit, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, sizes_and_refusals, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_test(tc, nan_refused);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
