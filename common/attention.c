/* attention.c — gated full attention with GQA and a KV cache (see attention.h). */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "linear.h"
#include "norm.h"

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

bool attn_init(Attention *a, const Config *c, const AttentionWeights *w, Error *err) {
    memset(a, 0, sizeof *a);
    if (c->num_attention_heads <= 0 || c->num_key_value_heads <= 0 || c->head_dim <= 0 || c->hidden_size <= 0)
        return error_set(err,
                         "attention: heads (%d query, %d key/value), head_dim %d and hidden_size %d must be "
                         "positive",
                         c->num_attention_heads, c->num_key_value_heads, c->head_dim, c->hidden_size);
    if (c->num_attention_heads % c->num_key_value_heads != 0)
        return error_set(err, "attention: %d query heads cannot share %d key/value heads evenly",
                         c->num_attention_heads, c->num_key_value_heads);
    int64_t H = c->hidden_size, Hq = c->num_attention_heads, Hkv = c->num_key_value_heads, d = c->head_dim;
    if (!check_shape(w->q_proj, "q_proj", Hq * 2 * d, H, err) || /* per head d query + d gate rows */
        !check_shape(w->k_proj, "k_proj", Hkv * d, H, err) ||
        !check_shape(w->v_proj, "v_proj", Hkv * d, H, err) ||
        !check_shape(w->o_proj, "o_proj", H, Hq * d, err) || !check_shape(w->q_norm, "q_norm", d, -1, err) ||
        !check_shape(w->k_norm, "k_norm", d, -1, err))
        return false;
    *a = (Attention){.hidden = c->hidden_size,
                     .n_heads = c->num_attention_heads,
                     .n_kv_heads = c->num_key_value_heads,
                     .group = c->num_attention_heads / c->num_key_value_heads,
                     .head_dim = c->head_dim,
                     .eps = (float)c->rms_norm_eps,
                     .w = w};
    return true;
}

/* ---- the KV cache ------------------------------------------------------------ */

void kv_init(KVCache *kv, const Attention *a, int reserve) {
    *kv = (KVCache){.n_kv_heads = a->n_kv_heads, .head_dim = a->head_dim};
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

size_t kv_bytes_per_token(const KVCache *kv) {
    return 2 * (size_t)kv->n_kv_heads * kv->head_dim * sizeof(float); /* K and V */
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

/* One query row: query head h of the token at position pos reads positions
 * 0 .. pos of its KV head. score: scratch [pos + 1]; o: [d]; probs_row: [P] or NULL. */
static void attend_one(const float *q, const float *K, const float *V, int kv_stride, int pos, int d,
                       float scale, float *restrict score, float *restrict o, float *probs_row, int P) {
    /* scores s_j = q · k_j / sqrt(d); only j <= pos exist for this token (causal) */
    float max = -INFINITY;
    for (int j = 0; j <= pos; j++) {
        score[j] = dot(q, K + (size_t)j * kv_stride, d) * scale;
        if (score[j] > max) max = score[j];
    }
    /* softmax, stable form: exp(s − max) ≤ 1 never overflows, and the largest term is
     * exactly 1, so the sum is ≥ 1 and never underflows to 0 */
    double sum = 0.0;
    for (int j = 0; j <= pos; j++) {
        score[j] = expf(score[j] - max);
        sum += score[j];
    }
    float inv = (float)(1.0 / sum);
    for (int j = 0; j <= pos; j++) score[j] *= inv; /* now the weights p_j, summing to 1 */
    /* o = Σ_j p_j v_j */
    for (int i = 0; i < d; i++) o[i] = 0.0f;
    for (int j = 0; j <= pos; j++) {
        const float p = score[j], *restrict vj = V + (size_t)j * kv_stride;
#pragma omp simd
        for (int i = 0; i < d; i++) o[i] += p * vj[i];
    }
    if (probs_row) {
        memcpy(probs_row, score, (size_t)(pos + 1) * sizeof(float));
        for (int j = pos + 1; j < P; j++) probs_row[j] = 0.0f; /* the future: masked out */
    }
}

void attn_forward(const Attention *a, RopeTable *rope, KVCache *kv, const float *x, int T, float *out,
                  AttnTrace *trace) {
    const AttentionWeights *w = a->w;
    int Hq = a->n_heads, Hkv = a->n_kv_heads, d = a->head_dim;
    if (T <= 0) return;
    if (rope->head_dim != d)
        die("attention: the RoPE table is for head_dim %d, the layer has %d", rope->head_dim, d);
    if (kv->n_kv_heads != Hkv || kv->head_dim != d)
        die("attention: the KV cache holds %d heads of %d, the layer has %d of %d", kv->n_kv_heads,
            kv->head_dim, Hkv, d);
    int len0 = kv->len; /* tokens already in the cache */
    int P = len0 + T;   /* positions after this call */
    size_t qd = (size_t)Hq * d, kvd = (size_t)Hkv * d;

    /* 1. project: q_proj gives per head [d query | d gate] */
    float *qg = xmalloc((size_t)T * 2 * qd * sizeof(float)); /* [T, Hq, 2d] */
    float *q = xmalloc((size_t)T * qd * sizeof(float));      /* [T, Hq, d] */
    float *gate = xmalloc((size_t)T * qd * sizeof(float));   /* [T, Hq, d] */
    linear_batch(w->q_proj, x, T, qg);
    for (int t = 0; t < T; t++)
        for (int h = 0; h < Hq; h++) {
            const float *block = qg + ((size_t)t * Hq + h) * 2 * d; /* head h's 2d numbers (512) */
            memcpy(q + ((size_t)t * Hq + h) * d, block, (size_t)d * sizeof(float)); /* first half: query */
            memcpy(gate + ((size_t)t * Hq + h) * d, block + d,
                   (size_t)d * sizeof(float)); /* second half: gate */
        }
    free(qg);
    if (trace && trace->q_raw) memcpy(trace->q_raw, q, (size_t)T * qd * sizeof(float));
    if (trace && trace->gate) memcpy(trace->gate, gate, (size_t)T * qd * sizeof(float));

    /* the new keys and values go straight into the cache, at rows len0 .. P − 1 */
    kv_reserve(kv, P);
    float *k = kv->k + (size_t)len0 * kvd; /* [T, Hkv, d] */
    float *v = kv->v + (size_t)len0 * kvd; /* [T, Hkv, d] */
    linear_batch(w->k_proj, x, T, k);
    linear_batch(w->v_proj, x, T, v);

    /* 2. q/k norm: every head's 256 numbers on their own, one shared weight per kind */
    rmsnorm(q, q, T * Hq, d, w->q_norm, a->eps);
    rmsnorm(k, k, T * Hkv, d, w->k_norm, a->eps);

    /* 3. RoPE on the first rotary_dim dims, at the tokens' own positions */
    rope_reserve(rope, P);
    rope_apply_tokens(rope, q, T, Hq, len0);
    rope_apply_tokens(rope, k, T, Hkv, len0);
    kv->len = P;
    if (trace && trace->q) memcpy(trace->q, q, (size_t)T * qd * sizeof(float));
    if (trace && trace->k) memcpy(trace->k, k, (size_t)T * kvd * sizeof(float));
    if (trace && trace->v) memcpy(trace->v, v, (size_t)T * kvd * sizeof(float));

    /* 4–6. scores, softmax and the mix, for every (query head, new token): rows are
     * independent, so they are spread over the cores; each row is always computed
     * whole by one thread, so the thread count never changes a result */
    float *o = xmalloc((size_t)T * qd * sizeof(float)); /* [T, Hq·d] */
    float *probs = trace ? trace->probs : NULL;         /* [Hq, T, P] or NULL */
    float scale = 1.0f / sqrtf((float)d);
#pragma omp parallel
    {
        float *score = xmalloc((size_t)P * sizeof(float)); /* [P]: one row of scores */
#pragma omp for collapse(2) schedule(dynamic, 1)
        for (int h = 0; h < Hq; h++)
            for (int t = 0; t < T; t++) {
                int g = attn_kv_head(a, h); /* GQA: the KV head this query head reads */
                attend_one(q + ((size_t)t * Hq + h) * d, kv->k + (size_t)g * d, kv->v + (size_t)g * d,
                           (int)kvd, len0 + t, d, scale, score, o + ((size_t)t * Hq + h) * d,
                           probs ? probs + ((size_t)h * T + t) * P : NULL, P);
            }
        free(score);
    }
    if (trace && trace->attn) memcpy(trace->attn, o, (size_t)T * qd * sizeof(float));

    /* 7. the output gate: each of the 2048 numbers is let through by its own sigmoid */
    for (size_t i = 0; i < (size_t)T * qd; i++) o[i] *= sigmoidf(gate[i]);
    if (trace && trace->gated) memcpy(trace->gated, o, (size_t)T * qd * sizeof(float));

    /* 8. back to the residual stream's width */
    linear_batch(w->o_proj, o, T, out);
    free(q);
    free(gate);
    free(o);
}
