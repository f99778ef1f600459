/* How fast one full-attention layer is, at the real 0.8B shapes (8 query heads,
 * 2 KV heads of 256, hidden 1024; random BF16 weights made in memory, so no
 * checkpoint is needed):
 *
 *   - prefill: a prompt of 6 and of 139 tokens in one call, and how much of it is
 *     the four projections (linear_batch) versus the attention itself;
 *   - decode: one new token against a cache of 139 … 16384 tokens. The projections
 *     read the layer's 14.7 MB of weights once per token, the attention reads the
 *     whole cache (4 KB per token): somewhere past a few thousand tokens the cache
 *     costs more than the weights, which is the point chapter 7 starts from.
 *
 * Best of several runs each; OMP_NUM_THREADS decides the cores. On a busy machine
 * a parallel region can wait a whole scheduler slice for a descheduled thread, so
 * compare figures taken with OMP_NUM_THREADS=1 when the numbers jump around. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/attention.h"
#include "qwen/linear.h"
#include "qwen/rope.h"

/* Deterministic values in ±scale (a 64-bit LCG; the numbers only need to be plausible). */
static uint64_t lcg = 0x9e3779b97f4a7c15ull;
static float uniform(float scale) {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return scale * (2.0f * (float)(lcg >> 40) / (float)(1ull << 24) - 1.0f);
}

/* A BF16 weight [d0, d1] (d1 = 0: a vector) with values in ±sqrt(3 / d1). */
static Tensor bf16_weight(const char *name, int64_t d0, int64_t d1) {
    int64_t n = d0 * (d1 ? d1 : 1);
    uint16_t *data = xaligned_alloc((size_t)n * sizeof(uint16_t));
    float scale = d1 ? sqrtf(3.0f / (float)d1) : 0.1f;
    for (int64_t i = 0; i < n; i++) data[i] = f32_to_bf16(uniform(scale));
    Tensor t = {
        .name = name, .dtype = DTYPE_BF16, .ndim = d1 ? 2 : 1, .numel = n, .data = data, .file = "bench"};
    t.shape[0] = d0;
    t.shape[1] = d1;
    return t;
}

/* Best wall time of `rounds` runs of fn(ctx). */
typedef void (*Run)(void *ctx);
static double best_of(int rounds, Run fn, void *ctx) {
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_seconds();
        fn(ctx);
        double t = now_seconds() - t0;
        if (t < best) best = t;
    }
    return best;
}

typedef struct {
    const Attention *at;
    AttnActs *acts;
    RopeTable *rope;
    KVCache *kv;
    const float *x; /* [T, hidden] */
    float *y;       /* [T, hidden] */
    float *scratch; /* [T, 2·Hq·d] for the projections alone */
    int T, len0;
} Ctx;

/* The layer on T tokens after len0 cached ones (the cache is cut back to len0 first). */
static void run_layer(void *p) {
    Ctx *c = p;
    c->kv->len = c->len0;
    attn_forward(c->at, c->acts, c->x, c->T, c->kv, c->rope, c->y, PATH_FAST);
}

/* Only the four projections the layer makes for T tokens. */
static void run_projections(void *p) {
    Ctx *c = p;
    const AttnWeights *w = &c->at->w;
    linear_batch(c->x, w->q_proj, c->T, c->scratch);
    linear_batch(c->x, w->k_proj, c->T, c->scratch);
    linear_batch(c->x, w->v_proj, c->T, c->scratch);
    linear_batch(c->scratch, w->o_proj, c->T, c->y); /* input of the right width: [T, Hq·d] */
}

int main(int argc, char **argv) {
    (void)argc;
    set_program_name(argv[0]);
    Config c = {.hidden_size = 1024,
                .num_attention_heads = 8,
                .num_key_value_heads = 2,
                .head_dim = 256,
                .rms_norm_eps = 1e-6,
                .rope_theta = 1e7,
                .rotary_dim = 64};
    Tensor q = bf16_weight("q_proj", 4096, 1024), k = bf16_weight("k_proj", 512, 1024),
           v = bf16_weight("v_proj", 512, 1024), o = bf16_weight("o_proj", 1024, 2048),
           qn = bf16_weight("q_norm", 256, 0), kn = bf16_weight("k_norm", 256, 0);
    AttnWeights w = {&q, &k, &v, &o, &qn, &kn};
    Attention at;
    attn_from_weights(&at, &c, &w);
    double weight_bytes = (double)(q.numel + k.numel + v.numel + o.numel + qn.numel + kn.numel) * 2;
    RopeTable rope;
    rope_init_config(&rope, &c, 0);

    const int max_T = 139, contexts[] = {139, 1024, 4096, 16384};
    const int max_ctx = contexts[ARRAY_LEN(contexts) - 1];
    float *x = xmalloc((size_t)max_T * 1024 * sizeof(float));       /* [139, 1024] */
    float *y = xmalloc((size_t)max_T * 1024 * sizeof(float));       /* [139, 1024] */
    float *scratch = xmalloc((size_t)max_T * 4096 * sizeof(float)); /* [139, 4096] */
    for (int i = 0; i < max_T * 1024; i++) x[i] = uniform(1.7f);    /* RMS ~1, like a normed input */
    KVCache kv;
    kv_init(&kv, &at.d, max_ctx + 1);
    AttnActs acts;
    attn_acts_init(&acts, &at.d, max_T);

    printf("one full-attention layer, 0.8B shapes (weights %.1f MB in BF16), %s kernels\n",
           weight_bytes / 1e6, linear_kernel_name());
    printf("prefill (one call, empty cache):\n");
    const int prompts[] = {6, 139};
    for (size_t i = 0; i < ARRAY_LEN(prompts); i++) {
        Ctx cx = {&at, &acts, &rope, &kv, x, y, scratch, prompts[i], 0};
        double total = best_of(10, run_layer, &cx), proj = best_of(10, run_projections, &cx);
        printf("  %3d tokens: %7.2f ms (%.3f ms per token); projections %.2f ms = %.0f%%, attention itself "
               "%.0f%%\n",
               prompts[i], total * 1e3, total * 1e3 / prompts[i], proj * 1e3, 100 * proj / total,
               100 * fmax(0, total - proj) / total);
    }

    /* A cache of max_ctx tokens of plausible keys and values (unit-RMS, as after k_norm). */
    for (int h = 0; h < at.d.n_kv_heads; h++)
        for (size_t i = 0; i < (size_t)kv.cap * at.d.head_dim; i++)
            kv.k[h][i] = uniform(1.7f), kv.v[h][i] = uniform(1.0f);
    rope_reserve(&rope, max_ctx + 1);
    printf("decode (one new token after the cached ones):\n");
    Ctx one = {&at, &acts, &rope, &kv, x, y, scratch, 1, 0};
    double proj1 = best_of(20, run_projections, &one);
    printf("  projections alone: %.3f ms = %.1f GB/s of weights\n", proj1 * 1e3, weight_bytes / proj1 / 1e9);
    for (size_t i = 0; i < ARRAY_LEN(contexts); i++) {
        one.len0 = contexts[i];
        double total = best_of(20, run_layer, &one);
        double cache_bytes = (double)contexts[i] * attn_kv_bytes_per_token(&at.d);
        printf("  after %5d tokens: %.3f ms per token; cache %5.1f MB (%.2f× the weights), attention itself "
               "%.0f%%\n",
               contexts[i], total * 1e3, cache_bytes / 1e6, cache_bytes / weight_bytes,
               100 * fmax(0, total - proj1) / total);
    }

    attn_acts_free(&acts);
    kv_free(&kv);
    rope_free(&rope);
    free(x), free(y), free(scratch);
    free((void *)q.data), free((void *)k.data), free((void *)v.data), free((void *)o.data);
    free((void *)qn.data), free((void *)kn.data);
    return 0;
}
