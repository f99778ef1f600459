/* deltanet.h — chapter 7: the Gated DeltaNet, 18 of the 24 layers.
 *
 * There is no T × T attention matrix here. Each head keeps a memory table S of
 * fixed size, dk × dv = 128 × 128, a key → value dictionary: writing adds an outer
 * product k vᵀ ("store v in the slot of k"), reading is Sᵀq. The delta rule
 * rewrites the table once per token, in four steps (the book's words):
 *
 *     1. decay:             S ← e^g · S                 (e^g ∈ (0, 1]: forget a little)
 *     2. look up with k:    pred = Sᵀ k                 (what the table thinks v is)
 *     3. write the difference:  S ← S + β · k (v − pred)ᵀ   (only what is new, × β)
 *     4. read with q:       o = Sᵀ q                    (this token's output)
 *
 * However many tokens arrive, the table never grows: 16 heads × 128 × 128 float32
 * = 1 MB per layer, against a full-attention layer's KV cache that grows by 4 KB
 * with every token.
 *
 * The layer around the delta rule (the "shell") turns the residual stream's 1024
 * numbers of a token into what the rule needs:
 *
 *     qkv  = in_proj_qkv x                          [6144] = q [2048] | k [2048] | v [2048]
 *     qkv  ← silu(causal depthwise conv of qkv)     each channel sees its own last 4 tokens
 *     q, k ← l2norm per head, q ← q / sqrt(dk)      unit-length keys: β = 1 overwrites a slot
 *     β    = sigmoid(in_proj_b x)                   [16] how strongly this token writes
 *     g    = −exp(A_log) · softplus(in_proj_a x + dt_bias)   [16] log of the decay, ≤ 0
 *     o    = delta rule (per head)                  [16 × 128]
 *     o    ← gated RMSNorm per head, gate silu(in_proj_z x)
 *     y    = out_proj o                             [1024]
 *
 * Value heads may outnumber key heads (larger Qwen3.5 models; the tiny test model):
 * value head h then reads key head h / (n_v / n_k) ("consecutive repeat", PyTorch's
 * repeat_interleave). 0.8B has 16 and 16.
 *
 * State for reading a text one token at a time (DeltaNetState): the memory tables,
 * and for the convolution the last kernel − 1 = 3 pre-conv qkv vectors. A forward
 * pass that starts from a state and leaves its final state in it gives, token by
 * token, exactly what one pass over the whole text gives (the tests check it).
 *
 * Layouts (row-major, float32):
 *   the memory tables S   [n_v, dk, dv]: row i of a head's table is the slot of key
 *                         dimension i, dv numbers in a row, so every step of the
 *                         delta rule is a loop over a contiguous row of dv numbers.
 *   per token vectors     [T, ...] one token after another.
 */
#ifndef DELTANET_H
#define DELTANET_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "linear.h"
#include "tensor.h"
#include "weights.h"
#include "workbook/util.h"

/* ---- the layer: sizes, weights, state, buffers ------------------------------- */

/* The sizes of one layer, from config.json (values for Qwen3.5-0.8B). */
typedef struct {
    int hidden;    /* 1024: the residual stream */
    int n_k, n_v;  /* 16 key heads, 16 value heads; n_v is a multiple of n_k */
    int dk, dv;    /* 128, 128: a key / value head's width */
    int kernel;    /* 4: the short convolution's window */
    int key_dim;   /* n_k · dk = 2048: the width of q, and of k */
    int value_dim; /* n_v · dv = 2048 */
    int conv_dim;  /* 2 · key_dim + value_dim = 6144: q | k | v, convolved together */
    float eps;     /* 1e-6: the gated RMSNorm's eps */
} DeltaNetDims;

void dn_dims(DeltaNetDims *d, const Config *c);

/* Value head h reads key head h / (n_v / n_k): consecutive value heads share a key
 * head (PyTorch's repeat_interleave). */
static inline int dn_key_head(const DeltaNetDims *d, int h) { return h / (d->n_v / d->n_k); }

/* The book's forward materializes the sharing (q, k = q.repeat_interleave(...)):
 * key-head vectors x [T, n_k, dk] repeated for every value head, y [T, n_v, dk].
 * The layer here reads key head dn_key_head(h) instead; --dump and the tests use
 * this to hold q and k against the PyTorch reference. */
void dn_repeat_key_heads(const DeltaNetDims *d, const float *x, int T, float *y);

/* The weights, views of the checkpoint's tensors (nothing is copied or converted). */
typedef struct {
    const Tensor *in_proj_qkv; /* [2·key_dim + value_dim, hidden] = [6144, 1024]: rows q | k | v */
    const Tensor *in_proj_z;   /* [value_dim, hidden] = [2048, 1024]: the output gate */
    const Tensor *in_proj_b;   /* [n_v, hidden] = [16, 1024]: β, the write strength */
    const Tensor *in_proj_a;   /* [n_v, hidden] = [16, 1024]: the input part of the decay */
    const Tensor *conv1d;      /* [conv_dim, 1, kernel] = [6144, 1, 4]: depthwise, no bias */
    const Tensor *dt_bias;     /* [n_v] */
    const Tensor *A_log;       /* [n_v], F32 in the real checkpoint: each head's forgetting speed */
    const Tensor *norm;        /* [dv] = [128], F32: gated RMSNorm weight, shared by all heads */
    const Tensor *out_proj;    /* [hidden, value_dim] = [1024, 2048] */
} DeltaNetWeights;

/* The five projections as 8-bit groups (quant.h), when the model runs on them
 * (model.h's model_quantize packs them); each data NULL otherwise. The four in_proj
 * read the same x: they are one stack. */
typedef struct {
    Q8Weights in_proj; /* [in_proj_qkv | in_proj_z | in_proj_b | in_proj_a] */
    Q8Weights out_proj;
} DeltaNetQ8;

/* One linear-attention layer: its sizes and its weights — the big ones as views of
 * the checkpoint, the small ones also in float32, converted once when it is loaded. */
typedef struct {
    DeltaNetDims d;
    DeltaNetWeights w;
    float *taps;    /* [kernel, conv_dim]: conv1d.weight, tap-major (tap j of every channel in a row) */
    float *norm_w;  /* [dv]: the gated RMSNorm's weight */
    float *neg_A;   /* [n_v]: −exp(A_log), each head's fixed forgetting speed */
    float *dt_bias; /* [n_v] */
    void *memory;   /* the allocation of the four above */
    DeltaNetQ8 q8;  /* the projections as 8-bit groups, when the model runs on them */
} DeltaNet;

/* Layer i's Gated DeltaNet from the checkpoint ("layers.{i}.linear_attn.*"), every
 * shape checked against config.json. False with one line in err naming the tensor.
 * dn_free releases the converted small weights. */
bool dn_load(DeltaNet *dn, const Checkpoint *ck, int layer, Error *err);
void dn_free(DeltaNet *dn);

/* Parameter count of one layer (every tensor, as the book's sum over parameters). */
int64_t dn_param_count(const DeltaNet *dn);

/* What the layer carries from one token to the next. */
typedef struct {
    float *conv;         /* [kernel − 1, conv_dim]: the last pre-conv qkv vectors, oldest first */
    float *S;            /* [n_v, dk, dv]: the memory tables */
    int64_t n_tokens;    /* tokens seen so far */
    size_t conv_floats;  /* (kernel − 1) · conv_dim */
    size_t table_floats; /* n_v · dk · dv */
    void *memory;        /* the allocation of conv and S */
} DeltaNetState;

/* Empty tables and a zero conv history: the state before the first token. */
void dn_state_init(DeltaNetState *s, const DeltaNetDims *d);
void dn_state_reset(DeltaNetState *s);
void dn_state_free(DeltaNetState *s);
/* Bytes of the state, fixed whatever the length: the n_v tables [dk, dv] (1 MB for
 * 0.8B), the conv history [kernel − 1, conv_dim] (72 KB), and the two together. */
size_t dn_table_bytes(const DeltaNetDims *d);
size_t dn_conv_bytes(const DeltaNetDims *d);
size_t dn_state_bytes(const DeltaNetDims *d);

/* What one call works in, for up to cap tokens. After dn_forward the buffers hold
 * that call's intermediates, named as in the PyTorch reference
 * (reference/qwen35_reference.py), so tests and --dump can read them. */
typedef struct {
    int cap;        /* tokens the buffers hold */
    float *qkv;     /* [cap, conv_dim]   in_proj_qkv x, before the convolution */
    float *conv;    /* [cap, conv_dim]   after the causal convolution and SiLU */
    float *q;       /* [cap, n_k, dk]    l2-normalized, / sqrt(dk) */
    float *k;       /* [cap, n_k, dk]    l2-normalized */
    float *v;       /* [cap, n_v, dv] */
    float *beta;    /* [cap, n_v]        sigmoid(in_proj_b x) */
    float *g;       /* [cap, n_v]        −exp(A_log) · softplus(in_proj_a x + dt_bias) */
    float *core;    /* [cap, n_v, dv]    the delta rule's output o_t = S_tᵀ q_t: what each head read */
    float *z;       /* [cap, value_dim]  in_proj_z x, the gate before silu */
    float *normed;  /* [cap, value_dim]  gated RMSNorm of core, per head */
    void *memory;   /* the one allocation the buffers are carved from */
    Q8Act *xq;      /* with 8-bit weights: where an input is quantized (the caller's, for
                       cap tokens of max(hidden, value_dim) numbers; run_init points it at
                       the run state's); NULL with the checkpoint's weights */
} DeltaNetActs;

void dn_acts_init(DeltaNetActs *a, const DeltaNetDims *d, int cap);
void dn_acts_free(DeltaNetActs *a);
/* Bytes dn_acts_init allocates for cap tokens (saturating; what a demo adds up
 * before it allocates, util.h's memory rule). */
uint64_t dn_acts_bytes(const DeltaNetDims *d, int64_t cap);

/* The layer on T ≤ a->cap tokens. x: [T, hidden] (already through input_layernorm),
 * y: [T, hidden]. Continues from *state and leaves the state after the last token
 * in it (a fresh state, dn_state_reset, is the book's forward from nothing). The
 * projections of all T tokens are computed together. PATH_READABLE runs the readable
 * loops (linear_ref, causal_conv_silu_ref, delta_rule_ref, gated_rmsnorm). */
void dn_forward(const DeltaNet *dn, DeltaNetActs *a, const float *x, int T, DeltaNetState *state, float *y,
                Path path);

/* ---- the pieces ----------------------------------------------------------------
 * Each comes as the formula written plainly (_ref, in deltanet.c) and, where it
 * matters for speed, as a kernel (kernels/deltanet.c) that the tests hold to it. */

/* The token-by-token recurrence for T tokens and every value head.
 *   q, k:  [T, n_k, dk]  already l2-normalized (q also divided by sqrt(dk))
 *   v:     [T, n_v, dv]
 *   g:     [T, n_v]      log of the decay (≤ 0); the table is multiplied by e^g
 *   beta:  [T, n_v]      write strength in (0, 1)
 *   S0:    [n_v, dk, dv] the tables at the start, or NULL for empty tables
 *   S:     [n_v, dk, dv] receives the tables after the last token (may be S0)
 *   out:   [T, n_v, dv]  o_t = S_tᵀ q_t, read after the write
 * delta_rule_ref: the four steps as four separate loops, the formula as the book
 * prints it, one head after another. */
void delta_rule_ref(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                    int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out);

/* The same, fast: the four steps in the book's order on every number of the table,
 * but in one sweep over a head's table per token instead of four (steps 3–4 of a
 * token share the sweep with steps 1–2 of the next), the heads in parallel. The
 * results are those of delta_rule_ref to the last bit, whatever the thread count. */
void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out);

/* Causal depthwise convolution over time, then SiLU, for T new tokens:
 *   out[t][c] = silu(Σ_j w[j][c] · x[t − (kernel−1) + j][c]),   j = 0 … kernel−1
 * where the vectors before the first new token come from state (zeros at the
 * very start of a text).
 *   x:     [T, C]           pre-conv vectors (in_proj_qkv x)
 *   w:     [kernel, C]      the taps, tap j of every channel in one row
 *   state: [kernel − 1, C]  the last kernel − 1 pre-conv vectors, oldest first;
 *                           updated to the last kernel − 1 of (state, x)
 *   out:   [T, C]
 * causal_conv_silu_ref: the formula, one output at a time. */
void causal_conv_silu_ref(const float *x, const float *w, int T, int C, int kernel, float *state, float *out);
/* The same, fast: the channels in blocks over the cores, SiLU 16 at a time
 * (silu_vec). Within 2e-7 relative of the reference (SiLU's rounding). */
void causal_conv_silu(const float *x, const float *w, int T, int C, int kernel, float *state, float *out);

/* norm.h's gated_rmsnorm for one token's n_heads heads of dv, the gate computed 16 at
 * a time (silu_vec) and the sums of squares in float:
 *   y[h] = w · (o[h] / rms(o[h])) · silu(z[h])     o, z, y: [n_heads, dv], w: [dv]
 * Within a few float32 steps of gated_rmsnorm (tested). y must not overlap o or z. */
void gated_norm_heads(const float *o, const float *z, const float *w, int n_heads, int dv, float eps, float *y);

#endif
