/* attention.c — gated full attention with GQA and a KV cache (see attention.h). */
#include "attention.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "linear.h"
#include "norm.h"
#include "workbook/util.h"

/* ---- checking the weights against the config -------------------------------- */

static bool check_shape(const Tensor *t, const char *what, int64_t d0, int64_t d1, Error *err) {
    if (!t) return error_set(err, "attention: weight %s is missing", what);
    int ndim = d1 < 0 ? 1 : 2;
    bool ok = t->ndim == ndim && t->shape[0] == d0 && (ndim == 1 || t->shape[1] == d1);
    if (!ok) {
        char got[96];
        if (ndim == 1)
            return error_set(err, "%s: attention weight %s has shape %s, but the config implies [%lld]",
                             t->file, t->name, shape_str(t, got, sizeof got), (long long)d0);
        return error_set(err, "%s: attention weight %s has shape %s, but the config implies [%lld, %lld]",
                         t->file, t->name, shape_str(t, got, sizeof got), (long long)d0, (long long)d1);
    }
    return true;
}

bool attn_init(Attention *at, const Config *c, const AttentionWeights *w, Error *err) {
    memset(at, 0, sizeof *at);
    if (c->num_attention_heads <= 0 || c->num_key_value_heads <= 0 || c->head_dim <= 0 || c->hidden_size <= 0)
        return error_set(err,
                         "attention: heads (%d query, %d key/value), head_dim %d and hidden_size %d must be "
                         "positive",
                         c->num_attention_heads, c->num_key_value_heads, c->head_dim, c->hidden_size);
    if (c->num_attention_heads % c->num_key_value_heads != 0)
        return error_set(err, "attention: %d query heads cannot share %d key/value heads evenly",
                         c->num_attention_heads, c->num_key_value_heads);
    int64_t H = c->hidden_size, Hq = c->num_attention_heads, Hkv = c->num_key_value_heads, d = c->head_dim;
    if (Hq * 2 * d > CONFIG_MAX_WIDTH ||
        H > CONFIG_MAX_WIDTH) /* cfg_parse refuses these; a config made by hand */
        return error_set(err, "attention: %lld heads of %lld dims (hidden %lld) are wider than %d",
                         (long long)Hq, (long long)d, (long long)H, CONFIG_MAX_WIDTH);
    if (!check_shape(w->q_proj, "q_proj", Hq * 2 * d, H, err) || /* per head d query + d gate rows */
        !check_shape(w->k_proj, "k_proj", Hkv * d, H, err) ||
        !check_shape(w->v_proj, "v_proj", Hkv * d, H, err) ||
        !check_shape(w->o_proj, "o_proj", H, Hq * d, err) || !check_shape(w->q_norm, "q_norm", d, -1, err) ||
        !check_shape(w->k_norm, "k_norm", d, -1, err))
        return false;
    attn_dims(&at->d, c);
    at->w = *w;
    return true;
}

void attn_dims(AttnDims *d, const Config *c) {
    *d = (AttnDims){.hidden = c->hidden_size,
                    .n_heads = c->num_attention_heads,
                    .n_kv_heads = c->num_key_value_heads,
                    .group = c->num_attention_heads / c->num_key_value_heads,
                    .head_dim = c->head_dim,
                    .eps = (float)c->rms_norm_eps};
}

bool attn_load(Attention *at, const Checkpoint *ck, int layer, Error *err) {
    const Config *c = &ck->config;
    int64_t H = c->hidden_size, Hq = c->num_attention_heads, Hkv = c->num_key_value_heads, d = c->head_dim;
    AttentionWeights w;
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
    return attn_init(at, c, &w, err);
}

int64_t attn_param_count(const Attention *at) {
    const AttentionWeights *w = &at->w;
    return w->q_proj->numel + w->k_proj->numel + w->v_proj->numel + w->o_proj->numel + w->q_norm->numel +
           w->k_norm->numel;
}

/* ---- the KV cache ------------------------------------------------------------ */

void kv_init(KVCache *kv, const AttnDims *d, int reserve) {
    *kv = (KVCache){.n_kv_heads = d->n_kv_heads, .head_dim = d->head_dim};
    if (reserve > 0) {
        size_t row = (size_t)kv->n_kv_heads * kv->head_dim;     /* floats per token: Hkv · d */
        kv->k = xmalloc((size_t)reserve * row * sizeof(float)); /* [reserve, Hkv, d] */
        kv->v = xmalloc((size_t)reserve * row * sizeof(float)); /* [reserve, Hkv, d] */
        kv->cap = reserve;
    }
}

void kv_free(KVCache *kv) {
    free(kv->k);
    free(kv->v);
    *kv = (KVCache){0};
}

void kv_reset(KVCache *kv) { kv->len = 0; }

size_t attn_kv_bytes_per_token(const AttnDims *d) {
    return 2 * (size_t)d->n_kv_heads * d->head_dim * sizeof(float); /* K and V */
}

size_t kv_bytes_per_token(const KVCache *kv) {
    return 2 * (size_t)kv->n_kv_heads * kv->head_dim * sizeof(float);
}

/* Room for n tokens in total, keeping what is stored (doubling, so appending one
 * token at a time costs O(1) on average). */
static void kv_reserve(KVCache *kv, int n) {
    if (n <= kv->cap) return;
    int cap = kv->cap ? kv->cap : 16;
    while (cap < n) cap = cap > (1 << 29) ? n : cap * 2;
    size_t row = (size_t)kv->n_kv_heads * kv->head_dim;
    kv->k = xrealloc(kv->k, (size_t)cap * row * sizeof(float)); /* [cap, Hkv, d] */
    kv->v = xrealloc(kv->v, (size_t)cap * row * sizeof(float)); /* [cap, Hkv, d] */
    kv->cap = cap;
}

void kv_append(KVCache *kv, const float *k, const float *v, int n) {
    if (n == 0) return; /* nothing to copy, and the cache may have no memory yet */
    size_t row = (size_t)kv->n_kv_heads * kv->head_dim;
    kv_reserve(kv, kv->len + n);
    memcpy(kv->k + (size_t)kv->len * row, k, (size_t)n * row * sizeof(float));
    memcpy(kv->v + (size_t)kv->len * row, v, (size_t)n * row * sizeof(float));
    kv->len += n;
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
 *   q: [G, d]   K, V: rows of kv_stride floats   score: scratch [G, P]
 *   o: [G, d]   probs_rows: G rows P apart, or NULL */
static void attend_group(const float *q, int G, const float *K, const float *V, int kv_stride, int pos, int d,
                         float scale, float *restrict score, int P, float *restrict o, float *probs_rows,
                         size_t probs_stride) {
    /* scores s_j = q · k_j / sqrt(d); only j <= pos exist for this token (causal) */
    for (int j = 0; j <= pos; j++) {
        const float *kj = K + (size_t)j * kv_stride;
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
        const float *restrict vj = V + (size_t)j * kv_stride;
        for (int g = 0; g < G; g++) {
            const float p = score[(size_t)g * P + j];
            float *restrict og = o + (size_t)g * d;
#pragma omp simd
            for (int i = 0; i < d; i++) og[i] += p * vj[i];
        }
    }
    for (int g = 0; probs_rows && g < G; g++) {
        float *row = probs_rows + g * probs_stride;
        memcpy(row, score + (size_t)g * P, (size_t)(pos + 1) * sizeof(float));
        for (int j = pos + 1; j < P; j++) row[j] = 0.0f; /* the future: masked out */
    }
}

void attn_acts_init(AttnActs *a, const AttnDims *d, int cap) {
    size_t T = (size_t)cap, qd = (size_t)d->n_heads * d->head_dim, kvd = (size_t)d->n_kv_heads * d->head_dim;
    *a = (AttnActs){.cap = cap,
                    .qg = xaligned_alloc(T * 2 * qd * sizeof(float)),
                    .q_raw = xaligned_alloc(T * qd * sizeof(float)),
                    .gate = xaligned_alloc(T * qd * sizeof(float)),
                    .q = xaligned_alloc(T * qd * sizeof(float)),
                    .k = xaligned_alloc(T * kvd * sizeof(float)),
                    .v = xaligned_alloc(T * kvd * sizeof(float)),
                    .attn = xaligned_alloc(T * qd * sizeof(float)),
                    .gated = xaligned_alloc(T * qd * sizeof(float))};
}

/* The capacity a buffer that starts at start and doubles reaches for n (kv_reserve,
 * reserve_scores). */
static int64_t grown(int64_t start, int64_t n) {
    int64_t cap = start;
    while (cap < n) cap = cap > (1 << 29) ? n : cap * 2;
    return cap;
}

uint64_t attn_acts_bytes(const AttnDims *d, int64_t cap, int64_t positions) {
    uint64_t qd = (uint64_t)d->n_heads * (uint64_t)d->head_dim, kvd = (uint64_t)d->n_kv_heads * d->head_dim;
    /* qg 2·qd; q_raw, gate, q, attn, gated qd each; k, v kvd each */
    uint64_t per_token = size_add(size_mul(7, qd), size_mul(2, kvd));
    uint64_t scores = size_mul((uint64_t)omp_get_max_threads(), (uint64_t)grown(64, positions * d->group));
    return size_mul(size_add(size_mul((uint64_t)cap, per_token), scores), sizeof(float));
}

uint64_t kv_cache_bytes(const AttnDims *d, int64_t n) {
    uint64_t row = (uint64_t)d->n_kv_heads * (uint64_t)d->head_dim;
    return size_mul(size_mul(2, size_mul((uint64_t)grown(16, n), row)), sizeof(float)); /* K and V */
}

void attn_acts_free(AttnActs *a) {
    float *bufs[] = {a->qg, a->q_raw, a->gate, a->q, a->k, a->v, a->attn, a->gated, a->scores};
    for (size_t i = 0; i < ARRAY_LEN(bufs); i++) free(bufs[i]);
    *a = (AttnActs){0};
}

/* Room for every thread's row of P scores (grows with the context, kept between calls). */
static void reserve_scores(AttnActs *a, int P) {
    int threads = omp_get_max_threads();
    if (P <= a->score_cap && threads <= a->score_threads) return;
    int cap = a->score_cap ? a->score_cap : 64;
    while (cap < P) cap = cap > (1 << 29) ? P : cap * 2;
    free(a->scores);
    a->scores = xaligned_alloc((size_t)threads * cap * sizeof(float));
    a->score_cap = cap;
    a->score_threads = threads;
}

void attn_forward(const Attention *at, AttnActs *a, KVCache *kv, RopeTable *rope, const float *x, int T,
                  float *y) {
    const AttnDims *dm = &at->d;
    const AttentionWeights *w = &at->w;
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
    size_t qd = (size_t)Hq * d, kvd = (size_t)Hkv * d;

    /* 1. project: q_proj gives per head [d query | d gate] */
    project(w->q_proj, x, T, a->qg, a->reference); /* [T, Hq, 2d] */
    for (int t = 0; t < T; t++)
        for (int h = 0; h < Hq; h++) {
            const float *block = a->qg + ((size_t)t * Hq + h) * 2 * d; /* head h's 2d numbers (512) */
            size_t at_th = ((size_t)t * Hq + h) * d;
            memcpy(a->q_raw + at_th, block, (size_t)d * sizeof(float));    /* first half: query */
            memcpy(a->gate + at_th, block + d, (size_t)d * sizeof(float)); /* second half: gate */
        }
    project(w->k_proj, x, T, a->k, a->reference); /* [T, Hkv, d] */
    project(w->v_proj, x, T, a->v, a->reference); /* [T, Hkv, d] */

    /* 2. q/k norm: every head's 256 numbers on their own, one shared weight per kind */
    rmsnorm(a->q, a->q_raw, (int64_t)T * Hq, d, w->q_norm, dm->eps);
    rmsnorm(a->k, a->k, (int64_t)T * Hkv, d, w->k_norm, dm->eps);

    /* 3. RoPE on the first rotary_dim dims, at the tokens' own positions */
    rope_reserve(rope, P);
    rope_apply_tokens(rope, a->q, T, Hq, len0);
    rope_apply_tokens(rope, a->k, T, Hkv, len0);

    /* the new keys and values join the cache, at rows len0 .. P − 1 */
    kv_append(kv, a->k, a->v, T);

    /* 4–6. scores, softmax and the mix, for every (KV head, new token): the group of
     * query heads that read the KV head go together (GQA: heads g·group .. g·group +
     * group − 1 are consecutive). The pairs are independent, so they are spread over
     * the cores; each is always computed whole by one thread, so the thread count
     * never changes a result */
    reserve_scores(a, P * dm->group);
    float scale = 1.0f / sqrtf((float)d);
#pragma omp parallel
    {
        float *score = a->scores + (size_t)omp_get_thread_num() * a->score_cap; /* [group, P] */
#pragma omp for collapse(2) schedule(dynamic, 1)
        for (int g = 0; g < Hkv; g++)
            for (int t = 0; t < T; t++) {
                size_t first = (size_t)t * Hq + (size_t)g * dm->group; /* the group's first query head */
                attend_group(a->q + first * d, dm->group, kv->k + (size_t)g * d, kv->v + (size_t)g * d,
                             (int)kvd, len0 + t, d, scale, score, P, a->attn + first * d,
                             a->probs ? a->probs + ((size_t)g * dm->group * T + t) * P : NULL, (size_t)T * P);
            }
    }

    /* 7. the output gate: each of the 2048 numbers is let through by its own sigmoid */
    for (size_t i = 0; i < (size_t)T * qd; i++) a->gated[i] = a->attn[i] * sigmoidf(a->gate[i]);

    /* 8. back to the residual stream's width */
    project(w->o_proj, a->gated, T, y, a->reference);
}
