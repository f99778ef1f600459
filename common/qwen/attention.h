/* attention.h — chapter 6: gated full attention, and the KV cache it reads from.
 *
 * 6 of the 24 layers (3, 7, 11, 15, 19, 23) are full attention: every token looks
 * back at every earlier token and takes a weighted mix of what they offer. Of the
 * three kinds of vector each token makes, the query asks ("what am I looking
 * for?"), the key answers ("what do I contain?") and the value is what is handed
 * over. Qwen3.5 adds four things to the textbook version; all four are here.
 *
 * For one layer with Hq = 8 query heads, Hkv = 2 key/value heads of d = 256 dims,
 * input x (already through input_layernorm), token by token:
 *
 *   1. Project.   q_proj gives 8 × 512 numbers. In each head's block of 512 the
 *                 first 256 are the query and the next 256 the gate (per head, not
 *                 all queries then all gates: the classic port bug).
 *                 k_proj and v_proj give 2 heads × 256 each.
 *   2. q/k norm.  Each head of q and of k is normalized on its own by a
 *                 zero-centred RMSNorm over its 256 numbers, with one 256-weight
 *                 vector shared by all heads (q_norm for the queries, k_norm for the
 *                 keys): the dot products below cannot blow up, whatever the
 *                 projection's scale.
 *   3. RoPE.      The first 64 dims of every q and k head turn by an angle that
 *                 grows with the position (chapter 5, rope.h); dims 64..255 do not.
 *   4. Scores.    Query head h compares itself with the keys of KV head h / 4
 *                 (GQA: 4 query heads share one key/value head, so the cache holds
 *                 2 heads instead of 8):
 *                     s_j = q · k_j / sqrt(256),    j = 0 .. t   (causal: no future)
 *   5. Softmax.   p_j = exp(s_j − max s) / Σ exp(s − max s). Subtracting the largest
 *                 score changes nothing mathematically and keeps exp() ≤ 1.
 *   6. Mix.       o = Σ_j p_j v_j                          (256 per query head)
 *   7. Gate.      o ← o · sigmoid(gate): the token itself decides, dim by dim, how
 *                 much of what it read gets through (0 = nothing, 1 = all).
 *   8. Output.    the 8 heads side by side (2048) → o_proj → 1024.
 *
 * The KV cache. A key and a value depend only on their own token, so once made
 * they never change: generation keeps them (after k_norm and RoPE) and a new token
 * only computes its own q, k, v and reads the stored ones. Per token per layer that
 * is 2 (K and V) × 2 heads × 256 dims × 4 bytes = 4 KB in fp32 — it grows with the
 * context, which is what chapter 7's fixed-size memory table avoids.
 *
 * One function serves both ways of running: attn_forward() takes T new tokens,
 * appends their keys and values to the cache, and lets each new token attend to
 * everything in the cache up to itself. An empty cache and T tokens is the full
 * pass over a prompt ("prefill"); T = 1 is one decoding step. Both give the same
 * numbers bit for bit (each token's row is computed by the same loop in the same
 * order either way; linear.h guarantees the same for the projections).
 *
 * Shapes are written [T, Hq, d] etc.: T new tokens, P = positions in the cache
 * after the call (P = T for a full pass).
 */
#ifndef ATTENTION_H
#define ATTENTION_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "linear.h"
#include "rope.h"
#include "tensor.h"
#include "weights.h"
#include "workbook/util.h"

/* The sizes, from config.json (values for Qwen3.5-0.8B). */
typedef struct {
    int hidden;     /* 1024: width of the residual stream */
    int n_heads;    /* Hq = 8 query heads */
    int n_kv_heads; /* Hkv = 2 key/value heads */
    int group;      /* Hq / Hkv = 4 query heads read one KV head */
    int head_dim;   /* d = 256 */
    float eps;      /* 1e-6, for q_norm and k_norm */
} AttnDims;

/* The sizes from config.json (config.h's checks hold: Hq is a multiple of Hkv). */
void attn_dims(AttnDims *d, const Config *c);

/* The weights, views of the checkpoint's tensors. */
typedef struct {
    const Tensor *q_proj; /* [Hq·2d, hidden] = [4096, 1024]: per head d query rows, then d gate rows */
    const Tensor *k_proj; /* [Hkv·d, hidden] = [512, 1024] */
    const Tensor *v_proj; /* [Hkv·d, hidden] = [512, 1024] */
    const Tensor *o_proj; /* [hidden, Hq·d] = [1024, 2048] */
    const Tensor *q_norm; /* [d] = [256]: zero-centred RMSNorm weight, shared by the query heads */
    const Tensor *k_norm; /* [d] = [256]: the same for the key heads */
} AttnWeights;

/* The four projections as 8-bit groups (quant.h), when the model runs on them
 * (model.h's model_quantize packs them); each data NULL otherwise. q_proj, k_proj and
 * v_proj read the same x: they are one stack. */
typedef struct {
    Q8Weights qkv; /* [q_proj | k_proj | v_proj] */
    Q8Weights o_proj;
} AttnQ8;

/* One full-attention layer: its sizes and its weights. */
typedef struct {
    AttnDims d;
    AttnWeights w;
    AttnQ8 q8;
} Attention;

/* Layer i's attention from the checkpoint ("layers.{i}.self_attn.*"), every shape
 * checked against config.json. False with one line in err naming the tensor. */
bool attn_load(Attention *a, const Checkpoint *ck, int layer, Error *err);

/* The same from weights gathered by hand (tests, benchmarks): the sizes from c, and
 * w as given — the caller vouches for their shapes (attn_load checks them). */
void attn_from_weights(Attention *a, const Config *c, const AttnWeights *w);

/* Steps 4–6 for the G query heads q [G, d] of the token at position pos that read
 * one KV head (its keys and values K, V: [pos + 1, d], one row after another): the
 * scores into score [G, P] (then the weights p), the mix into o [G, d]. Speed code, in
 * kernels/attention.c; attn_forward's fast path. */
void attend_group_fast(const float *q, int G, const float *K, const float *V, int pos, int d, float scale,
                       float *restrict score, int P, float *restrict o);

/* The same for B consecutive tokens at positions pos0 .. pos0 + B − 1 and one KV head:
 * token b's queries at q + b·q_stride, its scores at score + b·G·P, its output at
 * o + b·o_stride. The bits of B calls of attend_group_fast: only the order of the work
 * changes, so that a block of keys or values is read once for all the tokens. */
void attend_tokens_fast(const float *q, int64_t q_stride, int B, int G, const float *K, const float *V,
                        int pos0, int d, float scale, float *restrict score, int P, float *restrict o,
                        int64_t o_stride);

/* Query head h reads key/value head h / (Hq / Hkv): heads 0–3 share KV head 0,
 * heads 4–7 KV head 1 (consecutive groups, as PyTorch's repeat_interleave). */
static inline int attn_kv_head(const AttnDims *d, int h) { return h / d->group; }

/* The keys and values of every token seen so far, for one layer, a head at a time, as
 * transformers' cache keeps them ([batch, heads, positions, d]): head h's keys are one
 * block of rows [cap, d], its values another. A query head reads its KV head's rows
 * from first to last, one stream through memory; rows of the two heads side by side
 * ([cap, Hkv, d], as the projections make them) would be 1 KB pieces 2 KB apart,
 * which a core reads more slowly (one 2048-position head, on one core: 7 GB/s in
 * pieces against 10 in one block).
 *
 * Each block grows on its own (util.h's xblock_grow): on Linux more pages are added
 * and no row is copied. With all heads in one block [Hkv, cap, d], doubling it had
 * copied every head's rows to their new place: after a 2048-token prompt the first
 * token decoded took 47 ms against 23 for the tokens after it (48 MB copied into fresh
 * pages; the cores on two chips), and the old and new blocks were in memory together. */
typedef struct {
    int n_kv_heads; /* 2 */
    int head_dim;   /* 256 */
    int len;        /* tokens stored: positions 0 .. len − 1 */
    int cap;        /* tokens allocated */
    float **k;      /* [Hkv] blocks of [cap, d]: keys after k_norm and RoPE */
    float **v;      /* [Hkv] blocks of [cap, d]: values as projected */
} KVCache;

/* KV head h's keys and values: [len, d], rows 0 .. len − 1. */
static inline const float *kv_keys(const KVCache *kv, int h) { return kv->k[h]; }
static inline const float *kv_values(const KVCache *kv, int h) { return kv->v[h]; }

/* An empty cache for the layer's KV heads; room for `reserve` tokens to start with
 * (it grows by itself; 0 is fine). */
void kv_init(KVCache *kv, const AttnDims *d, int reserve);
void kv_free(KVCache *kv);
/* Forgets every token (a new prompt), keeping the memory. */
void kv_reset(KVCache *kv);
/* Adds n tokens' keys and values (k, v: [n, Hkv, d], as the projections make them)
 * after the ones stored, each head's rows to its block, growing the cache as needed. */
void kv_append(KVCache *kv, const float *k, const float *v, int n);
/* The keys (or, with values, the values) in kv_append's order, [len, Hkv, d]:
 * elements first .. first + count − 1 of it into out (a saved state keeps them so). */
void kv_rows(const KVCache *kv, bool values, int64_t first, int64_t count, float *out);
/* Bytes a cache grows by per token in fp32, for a layer of these sizes: 2 (K and V)
 * × Hkv × d × 4 = 4096 for 0.8B. */
size_t attn_kv_bytes_per_token(const AttnDims *d);
/* Bytes of the rows in use: len tokens. */
int64_t kv_bytes_used(const KVCache *kv);

/* What one call works in, for up to cap new tokens. After attn_forward the buffers
 * hold that call's intermediates, named as --dump and reference/qwen35_reference.py
 * name them (layer.3.self_attn.<name>). */
typedef struct {
    int cap;      /* new tokens the buffers hold */
    float *qg;    /* [cap, Hq, 2d]  q_proj's output: per head d query numbers, then d gate numbers */
    float *q_raw; /* [cap, Hq, d]   the query half, before q_norm */
    float *gate;  /* [cap, Hq, d]   the gate half, before the sigmoid */
    float *q;     /* [cap, Hq, d]   after q_norm and RoPE */
    float *k;     /* [cap, Hkv, d]  after k_norm and RoPE (what was appended to the cache) */
    float *v;     /* [cap, Hkv, d] */
    float *attn;  /* [cap, Hq·d]    the mixed values of all heads, before the gate */
    float *gated; /* [cap, Hq·d]    after · sigmoid(gate), the input of o_proj */
    /* The attention weights grow with the context, so they are kept only on request:
     * point probs at [Hq, T, P] floats (P = positions after the call) before calling.
     * Row t is zero beyond position len0 + t (the future is masked). */
    float *probs;
    void *memory;         /* the one allocation the buffers above (but probs) are carved from */
    float *scores;        /* [score_threads, score_floats]: each thread's scores of a GQA group */
    int64_t score_floats; /*   for a block of tokens, block × group × positions; grows with the context */
    int score_threads;
    Q8Act *xq; /* with 8-bit weights: where an input is quantized (the caller's, for cap tokens
                  of max(hidden, Hq·d) numbers; run_init points it at the run state's);
                  NULL with the checkpoint's weights */
} AttnActs;

void attn_acts_init(AttnActs *a, const AttnDims *d, int cap);
void attn_acts_free(AttnActs *a);

/* What a demo adds up before it allocates (util.h's memory rule), saturating:
 * attn_acts_bytes — AttnActs for cap tokens plus the scores of passes that read up
 * to `positions` positions (a GQA group's per thread, see attn_forward);
 * kv_cache_bytes — a KVCache grown to n tokens (as it grows by doubling). probs,
 * when asked for, is the caller's: Hq × T × P floats. */
uint64_t attn_acts_bytes(const AttnDims *d, int64_t cap, int64_t positions);
uint64_t kv_cache_bytes(const AttnDims *d, int64_t n);

/* Runs T ≤ a->cap new tokens through the layer. x: [T, hidden], y: [T, hidden].
 * The tokens sit at positions kv->len .. kv->len + T − 1; their keys and values are
 * appended to kv (which grows as needed) and rope is extended to cover them. */
void attn_forward(const Attention *at, AttnActs *a, const float *x, int T, KVCache *kv, RopeTable *rope,
                  float *y, Path path);

/* q, k, v and o projections and the two norm weights. */
int64_t attn_param_count(const Attention *at);

#endif
