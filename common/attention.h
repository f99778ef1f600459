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
 *   2. q/k norm.  Each head of q and of k goes through its own zero-centred RMSNorm
 *                 (q_norm / k_norm, 256 weights shared by the heads): the dot
 *                 products below cannot blow up, whatever the projection's scale.
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

#include "checkpoint.h"
#include "config.h"
#include "rope.h"
#include "util.h"

/* One full-attention layer: its sizes and its weights (pointers into the checkpoint). */
typedef struct {
    int hidden;     /* 1024: width of the residual stream */
    int n_heads;    /* Hq = 8 query heads */
    int n_kv_heads; /* Hkv = 2 key/value heads */
    int group;      /* Hq / Hkv = 4 query heads read one KV head */
    int head_dim;   /* d = 256 */
    float eps;      /* 1e-6, for q_norm and k_norm */
    const AttentionWeights *w;
} Attention;

/* The keys and values of every token seen so far, for one layer. */
typedef struct {
    int n_kv_heads; /* 2 */
    int head_dim;   /* 256 */
    int len;        /* tokens stored: positions 0 .. len − 1 */
    int cap;        /* tokens allocated */
    float *k;       /* [cap, Hkv, d]: keys after k_norm and RoPE */
    float *v;       /* [cap, Hkv, d]: values as projected */
} KVCache;

/* Intermediates a caller may ask for (a demo's heatmap, --dump, the tests). Each
 * pointer is optional: NULL means "not needed" and costs nothing. The names are the
 * ones --dump and reference/qwen35_reference.py use (layer.3.self_attn.<name>). */
typedef struct {
    float *q_raw; /* [T, Hq, d]    the query half of q_proj, before q_norm */
    float *gate;  /* [T, Hq, d]    the gate half of q_proj, before the sigmoid */
    float *q;     /* [T, Hq, d]    after q_norm and RoPE */
    float *k;     /* [T, Hkv, d]   after k_norm and RoPE (what goes into the cache) */
    float *v;     /* [T, Hkv, d] */
    float *probs; /* [Hq, T, P]    attention weights; row t is zero beyond position len0 + t */
    float *attn;  /* [T, Hq·d]     the mixed values of all heads, before the gate */
    float *gated; /* [T, Hq·d]     after · sigmoid(gate), the input of o_proj */
} AttnTrace;

/* Takes the sizes from config.json and checks w against them (the checkpoint loader
 * already does; this also covers weights built by hand). False with one line in err
 * naming the tensor when a shape does not fit. */
bool attn_init(Attention *a, const Config *c, const AttentionWeights *w, Error *err);

/* Query head h reads key/value head h / (Hq / Hkv): heads 0–3 share KV head 0,
 * heads 4–7 KV head 1 (consecutive groups, as PyTorch's repeat_interleave). */
static inline int attn_kv_head(const Attention *a, int h) { return h / a->group; }

/* Runs T new tokens through the layer. x: [T, hidden], out: [T, hidden].
 * The tokens sit at positions kv->len .. kv->len + T − 1; their keys and values are
 * appended to kv (which grows as needed) and rope is extended to cover them.
 * trace may be NULL. */
void attn_forward(const Attention *a, RopeTable *rope, KVCache *kv, const float *x, int T, float *out,
                  AttnTrace *trace);

/* An empty cache for the layer's KV heads; room for `reserve` tokens to start with
 * (it grows by itself; 0 is fine). */
void kv_init(KVCache *kv, const Attention *a, int reserve);
void kv_free(KVCache *kv);
/* Forgets every token (a new prompt), keeping the memory. */
void kv_reset(KVCache *kv);
/* Bytes the cache grows by per token in fp32: 2 × Hkv × d × 4 = 4096 for 0.8B. */
size_t kv_bytes_per_token(const KVCache *kv);

#endif
