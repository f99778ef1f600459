/* attention.c — gated full attention with GQA and a KV cache (see attention.h). */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "kernels/pool.h"
#include "linear.h"
#include "norm.h"
#include "workbook/buffers.h"
#include "workbook/util.h"

enum {
    KV_START = 16,     /* rows a KV cache starts with, then doubles */
    SCORES_START = 64, /* scores a thread's rows start with, then double */
    /* new tokens of one KV head per task of the fast path: each block of keys and values
     * is read once for all of them (kernels/attention.c) */
    ATTN_TOKEN_BLOCK = 16,
};

void attn_dims(AttnDims *d, const Config *c) {
    *d = (AttnDims){.hidden = c->hidden_size,
                    .n_heads = c->num_attention_heads,
                    .n_kv_heads = c->num_key_value_heads,
                    .group = c->num_attention_heads / c->num_key_value_heads,
                    .head_dim = c->head_dim,
                    .eps = (float)c->rms_norm_eps};
}

void attn_from_weights(Attention *at, const Config *c, const AttnWeights *w) {
    attn_dims(&at->d, c);
    at->w = *w;
    at->q8 = (AttnQ8){0}; /* the checkpoint's weights, until a model packs them */
}

bool attn_load(Attention *at, const Checkpoint *ck, int layer, Error *err) {
    const Config *c = &ck->config;
    int64_t H = c->hidden_size, Hq = c->num_attention_heads, Hkv = c->num_key_value_heads, d = c->head_dim;
    AttnWeights w;
    if (!(w.q_proj =
              ckpt_layer_tensor(ck, layer, "self_attn.q_proj.weight", 2, (int64_t[]){Hq * 2 * d, H}, err)) ||
        !(w.k_proj =
              ckpt_layer_tensor(ck, layer, "self_attn.k_proj.weight", 2, (int64_t[]){Hkv * d, H}, err)) ||
        !(w.v_proj =
              ckpt_layer_tensor(ck, layer, "self_attn.v_proj.weight", 2, (int64_t[]){Hkv * d, H}, err)) ||
        !(w.o_proj =
              ckpt_layer_tensor(ck, layer, "self_attn.o_proj.weight", 2, (int64_t[]){H, Hq * d}, err)) ||
        !(w.q_norm = ckpt_layer_tensor(ck, layer, "self_attn.q_norm.weight", 1, (int64_t[]){d}, err)) ||
        !(w.k_norm = ckpt_layer_tensor(ck, layer, "self_attn.k_norm.weight", 1, (int64_t[]){d}, err)))
        return false;
    attn_from_weights(at, c, &w);
    return true;
}

int64_t attn_param_count(const Attention *at) {
    const AttnWeights *w = &at->w;
    return w->q_proj->numel + w->k_proj->numel + w->v_proj->numel + w->o_proj->numel + w->q_norm->numel +
           w->k_norm->numel;
}

/* ---- the KV cache ------------------------------------------------------------ */

/* Bytes of one head's block of cap rows. */
static size_t kv_block_bytes(const KVCache *kv, int cap) {
    return (size_t)cap * (size_t)kv->head_dim * sizeof(float);
}

/* Room for n tokens in total, keeping what is stored (doubling, so appending one
 * token at a time costs O(1) on average). Each head's block grows on its own: no row
 * moves (util.h's xblock_grow). */
static void kv_reserve(KVCache *kv, int n) {
    if (n <= kv->cap) return;
    int cap = (int)grow_capacity(kv->cap ? kv->cap : KV_START, n);
    size_t old = kv->cap ? kv_block_bytes(kv, kv->cap) : 0, bytes = kv_block_bytes(kv, cap);
    for (int h = 0; h < kv->n_kv_heads; h++) {
        kv->k[h] = xblock_grow(kv->k[h], old, bytes);
        kv->v[h] = xblock_grow(kv->v[h], old, bytes);
    }
    kv->cap = cap;
}

void kv_init(KVCache *kv, const AttnDims *d, int reserve) {
    *kv = (KVCache){.n_kv_heads = d->n_kv_heads, .head_dim = d->head_dim};
    kv->k = xcalloc((size_t)d->n_kv_heads, sizeof *kv->k);
    kv->v = xcalloc((size_t)d->n_kv_heads, sizeof *kv->v);
    kv_reserve(kv, reserve);
}

void kv_free(KVCache *kv) {
    for (int h = 0; kv->k && h < kv->n_kv_heads; h++) {
        xblock_free(kv->k[h], kv_block_bytes(kv, kv->cap));
        xblock_free(kv->v[h], kv_block_bytes(kv, kv->cap));
    }
    free(kv->k);
    free(kv->v);
    *kv = (KVCache){0};
}

void kv_reset(KVCache *kv) { kv->len = 0; }

size_t attn_kv_bytes_per_token(const AttnDims *d) {
    return 2 * (size_t)d->n_kv_heads * d->head_dim * sizeof(float); /* K and V */
}

int64_t kv_bytes_used(const KVCache *kv) {
    return (int64_t)kv->len * 2 * kv->n_kv_heads * kv->head_dim * (int64_t)sizeof(float);
}

void kv_append(KVCache *kv, const float *k, const float *v, int n) {
    if (n == 0) return; /* nothing to copy, and the cache may have no memory yet */
    int Hkv = kv->n_kv_heads, d = kv->head_dim;
    kv_reserve(kv, kv->len + n);
    for (int h = 0; h < Hkv; h++) { /* token t's head h: row len + t of head h */
        float *kh = kv->k[h] + (size_t)kv->len * d, *vh = kv->v[h] + (size_t)kv->len * d;
        for (int t = 0; t < n; t++) {
            memcpy(kh + (size_t)t * d, k + ((size_t)t * Hkv + h) * d, (size_t)d * sizeof(float));
            memcpy(vh + (size_t)t * d, v + ((size_t)t * Hkv + h) * d, (size_t)d * sizeof(float));
        }
    }
    kv->len += n;
}

void kv_rows(const KVCache *kv, bool values, int64_t first, int64_t count, float *out) {
    float *const *m = values ? kv->v : kv->k;
    int64_t d = kv->head_dim, row = kv->n_kv_heads * d; /* floats per token in [len, Hkv, d] */
    for (int64_t e = first; e < first + count;) {       /* element e: token e / row, head (e % row) / d */
        int64_t t = e / row, h = e % row / d, i = e % d, left = first + count - e;
        int64_t run = d - i < left ? d - i : left; /* up to the end of the head's row */
        memcpy(out, m[h] + t * d + i, (size_t)run * sizeof(float));
        out += run;
        e += run;
    }
}

/* ---- the layer --------------------------------------------------------------- */

/* q · k over one head's d dims. The simd reduction lets the compiler add in
 * vector lanes; the order is fixed by the code, so every call with the same
 * numbers gives the same bits (prefill and decode agree). */
static float dot(const float *q, const float *k, int d) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < d; i++) s += q[i] * k[i];
    return s;
}

/* The query rows of one GQA group: the G query heads of one token that read the same
 * KV head, at position pos, read positions 0 .. pos. Each key and value row is
 * loaded once for all G heads (instead of once per head); every head's numbers go
 * through the same operations in the same order as if it were alone.
 *   q: [G, d]   K, V: [pos + 1, d]   score: [G, P], the weights p_j on return
 *   o: [G, d]
 * The fast path does the same in kernels/attention.c (attend_group_fast). */
static void attend_group(const float *q, int G, const float *K, const float *V, int pos, int d, float scale,
                         float *restrict score, int P, float *restrict o) {
    /* scores s_j = q · k_j / sqrt(d); only j <= pos exist for this token (causal) */
    for (int j = 0; j <= pos; j++) {
        const float *kj = K + (size_t)j * d;
        for (int g = 0; g < G; g++) score[(size_t)g * P + j] = dot(q + (size_t)g * d, kj, d) * scale;
    }
    for (int g = 0; g < G; g++) {
        float *sg = score + (size_t)g * P;
        float max = -INFINITY;
        for (int j = 0; j <= pos; j++) max = sg[j] > max ? sg[j] : max;
        /* softmax, stable form: exp(s − max) ≤ 1 never overflows, and the largest term
         * is exactly 1, so the sum is ≥ 1 and never underflows to 0 */
        double sum = 0.0;
        for (int j = 0; j <= pos; j++) {
            sg[j] = expf(sg[j] - max);
            sum += sg[j];
        }
        float inv = (float)(1.0 / sum);
        for (int j = 0; j <= pos; j++) sg[j] *= inv; /* now the weights p_j, summing to 1 */
        for (int i = 0; i < d; i++) o[(size_t)g * d + i] = 0.0f;
    }
    /* o = Σ_j p_j v_j */
    for (int j = 0; j <= pos; j++) {
        const float *restrict vj = V + (size_t)j * d;
        for (int g = 0; g < G; g++) {
            const float p = score[(size_t)g * P + j];
            float *restrict og = o + (size_t)g * d;
#pragma omp simd
            for (int i = 0; i < d; i++) og[i] += p * vj[i];
        }
    }
}

/* AttnActs's buffers for cap tokens: the one place their sizes are written. (The
 * scores grow with the context instead: reserve_scores.) */
static int attn_buffers(AttnActs *a, const AttnDims *d, int64_t cap, BufferSpec *b) {
    uint64_t qd = size_mul((uint64_t)cap, (uint64_t)d->n_heads * d->head_dim);     /* [cap, Hq, d] */
    uint64_t kvd = size_mul((uint64_t)cap, (uint64_t)d->n_kv_heads * d->head_dim); /* [cap, Hkv, d] */
    int n = 0;
    b[n++] = (BufferSpec){&a->qg, size_mul(2, qd)}; /* [cap, Hq, 2d] */
    b[n++] = (BufferSpec){&a->q_raw, qd};
    b[n++] = (BufferSpec){&a->gate, qd};
    b[n++] = (BufferSpec){&a->q, qd};
    b[n++] = (BufferSpec){&a->k, kvd};
    b[n++] = (BufferSpec){&a->v, kvd};
    b[n++] = (BufferSpec){&a->attn, qd};
    b[n++] = (BufferSpec){&a->gated, qd};
    return n;
}
enum { ATTN_BUFFERS = 8 };

void attn_acts_init(AttnActs *a, const AttnDims *d, int cap) {
    BufferSpec b[ATTN_BUFFERS];
    *a = (AttnActs){.cap = cap};
    a->memory = buffers_alloc(b, attn_buffers(a, d, cap, b));
}

/* The floats of every thread's rows of scores, for passes that read up to `positions`
 * positions: a GQA group's rows for a block of tokens per thread (reserve_scores). */
static uint64_t score_floats(const AttnDims *d, int threads, int64_t positions) {
    return size_mul((uint64_t)threads,
                    (uint64_t)grow_capacity(SCORES_START, positions * d->group * ATTN_TOKEN_BLOCK));
}

uint64_t attn_acts_bytes(const AttnDims *d, int64_t cap, int64_t positions) {
    AttnActs a;
    BufferSpec b[ATTN_BUFFERS];
    uint64_t bytes = buffers_bytes(b, attn_buffers(&a, d, cap, b));
    return size_add(bytes, size_mul(score_floats(d, pool_threads(), positions), sizeof(float)));
}

uint64_t kv_cache_bytes(const AttnDims *d, int64_t n) {
    uint64_t row = (uint64_t)d->n_kv_heads * (uint64_t)d->head_dim;
    return size_mul(size_mul(2, size_mul((uint64_t)grow_capacity(KV_START, n), row)),
                    sizeof(float)); /* K, V */
}

void attn_acts_free(AttnActs *a) {
    free(a->memory);
    free(a->scores);
    *a = (AttnActs){0};
}

/* Room for every thread's rows of scores, a GQA group's for `tokens` tokens each (grows with the
 * context, kept between calls). */
static void reserve_scores(AttnActs *a, const AttnDims *d, int P, int tokens) {
    int threads = pool_threads();
    int64_t need = (int64_t)P * d->group * tokens;
    if (need <= a->score_floats && threads <= a->score_threads) return;
    free(a->scores);
    a->score_floats = grow_capacity(a->score_floats ? a->score_floats : SCORES_START, need);
    a->score_threads = threads;
    a->scores = xaligned_alloc((size_t)threads * (size_t)a->score_floats * sizeof(float));
}

/* One KV head and a block of up to ATTN_TOKEN_BLOCK new tokens: attn_forward's steps
 * 4–6, as a pool task. */
typedef struct {
    const AttnDims *dm;
    AttnActs *a;
    const KVCache *kv;
    int T, len0, P;
    float scale;
    Path path;
} AttendJob;

/* The weights of new token t's heads in KV group g (score: [group, P]), for a caller
 * that asked (probs: [Hq, T, P]); the future masked out. */
static void keep_probs(const AttendJob *j, int g, int t, const float *score) {
    if (!j->a->probs) return;
    int G = j->dm->group, P = j->P, pos = j->len0 + t;
    for (int h = 0; h < G; h++) {
        float *row = j->a->probs + ((size_t)(g * G + h) * j->T + t) * P;
        memcpy(row, score + (size_t)h * P, (size_t)(pos + 1) * sizeof(float));
        for (int k = pos + 1; k < P; k++) row[k] = 0.0f;
    }
}

static void attend_task(void *ctx, int64_t task, int worker) {
    const AttendJob *j = ctx;
    const AttnDims *dm = j->dm;
    int d = dm->head_dim, Hq = dm->n_heads, T = j->T, P = j->P, G = dm->group;
    int blocks = (T + ATTN_TOKEN_BLOCK - 1) / ATTN_TOKEN_BLOCK;
    int g = (int)(task / blocks), t0 = (int)(task % blocks) * ATTN_TOKEN_BLOCK;
    int B = T - t0 < ATTN_TOKEN_BLOCK ? T - t0 : ATTN_TOKEN_BLOCK;
    float *score =
        j->a->scores + (size_t)worker * j->a->score_floats; /* [B, group, P]; readable: [group, P] */
    size_t first = (size_t)t0 * Hq + (size_t)g * G; /* token t0's first query head of the group */
    const float *q = j->a->q + first * d, *K = kv_keys(j->kv, g), *V = kv_values(j->kv, g);
    float *o = j->a->attn + first * d;
    size_t stride = (size_t)Hq * d; /* from one token's heads to the next's */
    if (j->path == PATH_READABLE)   /* token after token, each in the same rows of scores */
        for (int b = 0; b < B; b++) {
            attend_group(q + b * stride, G, K, V, j->len0 + t0 + b, d, j->scale, score, P, o + b * stride);
            keep_probs(j, g, t0 + b, score);
        }
    else {
        attend_tokens_fast(q, (int64_t)stride, B, G, K, V, j->len0 + t0, d, j->scale, score, P, o,
                           (int64_t)stride);
        for (int b = 0; b < B; b++) keep_probs(j, g, t0 + b, score + (size_t)b * G * P);
    }
}

void attn_forward(const Attention *at, AttnActs *a, const float *x, int T, KVCache *kv, RopeTable *rope,
                  float *y, Path path) {
    const AttnDims *dm = &at->d;
    const AttnWeights *w = &at->w;
    int Hq = dm->n_heads, Hkv = dm->n_kv_heads, d = dm->head_dim;
    if (T <= 0) return;
    if (T > a->cap) die("attn_forward: buffers for %d tokens, called with %d", a->cap, T);
    if (rope->head_dim != d)
        die("attention: the RoPE table is for head_dim %d, the layer has %d", rope->head_dim, d);
    if (kv->n_kv_heads != Hkv || kv->head_dim != d)
        die("attention: the KV cache holds %d heads of %d, the layer has %d of %d", kv->n_kv_heads,
            kv->head_dim, Hkv, d);
    int len0 = kv->len; /* tokens already in the cache */
    int P = len0 + T;   /* positions after this call */
    size_t qd = (size_t)Hq * d;

    /* 1. project: q_proj gives per head [d query | d gate]; k_proj and v_proj give
     *    [T, Hkv, d] each. The three read the same x */
    ProjInput in = proj_input(x, T, dm->hidden, a->xq, path);
    proj_stack(&in, (const Tensor *[]){w->q_proj, w->k_proj, w->v_proj}, 3, &at->q8.qkv,
               (float *[]){a->qg, a->k, a->v});
    for (int t = 0; t < T; t++)
        for (int h = 0; h < Hq; h++) {
            const float *block = a->qg + ((size_t)t * Hq + h) * 2 * d; /* head h's 2d numbers (512) */
            size_t at_th = ((size_t)t * Hq + h) * d;
            memcpy(a->q_raw + at_th, block, (size_t)d * sizeof(float));    /* first half: query */
            memcpy(a->gate + at_th, block + d, (size_t)d * sizeof(float)); /* second half: gate */
        }

    /* 2. q/k norm: every head's 256 numbers on their own, one shared weight per kind */
    void (*norm)(const float *, const Tensor *, int64_t, int, float, float *) =
        path == PATH_READABLE ? rmsnorm : rmsnorm_fast;
    norm(a->q_raw, w->q_norm, (int64_t)T * Hq, d, dm->eps, a->q);
    norm(a->k, w->k_norm, (int64_t)T * Hkv, d, dm->eps, a->k);

    /* 3. RoPE on the first rotary_dim dims, at the tokens' own positions */
    rope_reserve(rope, P);
    rope_apply_tokens(rope, a->q, T, Hq, len0);
    rope_apply_tokens(rope, a->k, T, Hkv, len0);

    /* the new keys and values join the cache, at rows len0 .. P − 1 */
    kv_append(kv, a->k, a->v, T);

    /* 4–6. scores, softmax and the mix, for every (KV head, new token): the group of
     * query heads that read the KV head go together (GQA: heads g·group .. g·group +
     * group − 1 are consecutive). The pairs are independent, so they are shared out
     * over the cores as tasks, a KV head and a block of tokens each; each pair is always
     * computed whole by one worker, so the number of workers never changes a result */
    int at_once = T < ATTN_TOKEN_BLOCK ? T : ATTN_TOKEN_BLOCK;     /* tokens of a task */
    reserve_scores(a, dm, P, path == PATH_READABLE ? 1 : at_once); /* the readable path: one at a time */
    AttendJob job = {.dm = dm,
                     .a = a,
                     .kv = kv,
                     .T = T,
                     .len0 = len0,
                     .P = P,
                     .scale = 1.0f / sqrtf((float)d),
                     .path = path};
    pool_run((int64_t)Hkv * ((T + ATTN_TOKEN_BLOCK - 1) / ATTN_TOKEN_BLOCK), attend_task, &job);

    /* 7. the output gate: each of the 2048 numbers is let through by its own sigmoid */
    if (path == PATH_READABLE)
        for (size_t i = 0; i < (size_t)T * qd; i++) a->gated[i] = a->attn[i] * sigmoidf(a->gate[i]);
    else
        sigmoid_gate_vec(a->attn, a->gate, (int64_t)T * (int64_t)qd, a->gated);

    /* 8. back to the residual stream's width */
    in = proj_input(a->gated, T, (int64_t)qd, a->xq, path);
    proj_apply(&in, w->o_proj, &at->q8.o_proj, y);
}
