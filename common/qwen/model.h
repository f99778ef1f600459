/* model.h — the whole Qwen3.5: every part of chapters 1–7 stacked into one model.
 *
 * A decoder layer is a pre-norm residual block, twice:
 *
 *     h   = x + Mixer(RMSNorm(x; input_layernorm))          Mixer: Gated DeltaNet or attention
 *     out = h + MLP(RMSNorm(h; post_attention_layernorm))
 *
 * and the model is
 *
 *     x      = E[ids]                                     [T, hidden]   embedding rows (ch. 2)
 *     x      = layer_i(x),  i = 0 .. num_hidden_layers−1   layer_types: L L L F, repeated
 *     logits = lm_head · RMSNorm(x; norm)                  [T, vocab]    the tied embedding (ch. 2)
 *
 * Everything comes from config.json; nothing here is tied to 0.8B's sizes.
 *
 * Three structs, kept apart:
 *   Model      the configuration and the weights (views into the memory-mapped
 *              checkpoint: nothing is copied, the BF16 weights stay BF16);
 *   RunState   one text being read: every layer's state (a full-attention layer's
 *              KV cache, which grows by one row per token; a DeltaNet layer's memory
 *              tables and conv history, which never grow), the position, and the
 *              buffers a pass works in (allocated once, shared by the layers);
 *   ModelTrace optional copies of the residual stream for --dump.
 *
 * Reading a text. model_forward(m, s, ids, T) reads T more tokens after the s->pos
 * already read: a whole prompt at once (prefill: every projection is one batched
 * product over the tokens, which is where a prompt's time goes) or one token at a
 * time (decoding: every weight is read once per token, so the time is that of
 * reading 1.5 GB of weights from memory). Both give the same numbers to the last
 * bit — the layers compute each token's row by the same code in the same order
 * either way, and the DeltaNet's state carries over exactly — so a prompt read in
 * pieces, or a text continued token by token, is the same as one pass over it all.
 * Long inputs go through the layers in pieces of s->chunk tokens, which bounds the
 * buffers without changing a bit.
 */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "attention.h"
#include "config.h"
#include "deltanet.h"
#include "embedding.h"
#include "mlp.h"
#include "tensor.h"
#include "weights.h"
#include "workbook/util.h"

/* Which weights the model multiplies by (ch07_model's --quant). */
typedef enum {
    QUANT_BF16, /* "bf16": the checkpoint's, as stored, read from the mapped file */
    QUANT_Q8_0, /* "q8_0": every projection and the output head as 8-bit groups of 32 with
                   an fp16 scale (quant.h), made from the checkpoint when it is opened */
} Quant;

/* "bf16" or "q8_0": the names --quant takes and a saved state records. */
const char *quant_name(Quant q);
/* The Quant named s; false for any other string. */
bool quant_parse(const char *s, Quant *q);
/* "bf16, q8_0": every name, for an error message. */
#define QUANT_NAMES "bf16, q8_0"

/* One decoder layer's weights: two norms, a mixer of the layer's type, the MLP. */
typedef struct {
    LayerType type;
    const Tensor *input_layernorm;          /* [hidden]: zero-centred RMSNorm before the mixer */
    const Tensor *post_attention_layernorm; /* [hidden]: before the MLP */
    DeltaNet linear_attn;                   /* the mixer when type == LAYER_LINEAR_ATTENTION */
    Attention self_attn;                    /* the mixer when type == LAYER_FULL_ATTENTION */
    Mlp mlp;
} Layer;

/* What the model multiplies by in 8 bits: the n tensors of the checkpoint that read
 * the same input (one, or a stack: quant.h), and their packed form (inside a layer's
 * MlpQ8 / AttnQ8 / DeltaNetQ8, or the model's head_q8). */
typedef struct {
    const Tensor *w[Q8_MAX_PARTS];
    int n;
    Q8Weights *q8;
} PackedMatrix;

typedef struct {
    Checkpoint ck;              /* the opened folder; ck.config is config.json */
    const Tensor *embed_tokens; /* [vocab, hidden] = [248320, 1024] */
    const Tensor *norm;         /* [hidden]: the final RMSNorm */
    const Tensor *lm_head;      /* [vocab, hidden]: == embed_tokens when tied */
    bool tied;                  /* no lm_head.weight in the file: the output head is the embedding */
    Embedding embed;            /* chapter 2's table over embed_tokens: ids → rows */
    Embedding head;             /* ... and over lm_head: rows → logits (the same table when tied) */
    Layer *layers;              /* [num_hidden_layers] */
    /* The 8-bit weights (model_quantize), when quant is QUANT_Q8_0: */
    Quant quant;
    Q8Weights head_q8;       /* the output head: lm_head (the tied embedding) as 8-bit rows */
    int n_packed;            /* the stacks packed: every projection of every layer and the head */
    PackedMatrix *packed;    /* [n_packed] */
} Model;

/* Opens the checkpoint in dir and finds every tensor of every layer, each checked
 * against config.json: a checkpoint that contradicts its config is refused here,
 * naming the tensor, its shape and the shape the config implies. */
bool model_open(Model *m, const char *dir, Error *err);
void model_close(Model *m);

/* Makes the model multiply by q's weights: for QUANT_Q8_0, every projection of every
 * layer and the output head are quantized from the checkpoint and packed for the
 * kernels (quant.h's q8_pack), and each matrix's pages of the mapped file are given
 * back as soon as it is packed (ckpt_release_pages), so the process holds the 8-bit
 * bytes instead of the BF16 ones. What stays float: the norms, the DeltaNet's small
 * tensors, the state, and the embedding look-up, which keeps reading the checkpoint's
 * exact rows (a few per token, brought back from the file as they are asked for).
 * QUANT_BF16 changes nothing. False with one line in err when the packed bytes would
 * pass the memory limit (util.h), checked before anything is packed, or when a matrix
 * holds a number 8-bit groups cannot (q8_pack names the tensor and the row); the
 * model is then as model_open left it. Call it once, after model_open. */
bool model_quantize(Model *m, Quant q, Error *err);

/* Bytes model_quantize allocates for q (0 for QUANT_BF16), from the shapes alone. */
uint64_t model_quant_bytes(const Model *m, Quant q);

/* Parameters of the text model (the embedding counted once when tied), and the bytes
 * of the weights it multiplies by: as the file stores them, or, with 8-bit weights,
 * the packed matrices and every tensor left as stored (the embedding table, when it
 * is the output head too, counted once, as the 8-bit head). */
int64_t model_param_count(const Model *m);
int64_t model_weight_bytes(const Model *m);

/* Brings the weights the model reads whole (with 8-bit weights: every tensor that was
 * not packed, but for the embedding table, whose rows come in as they are looked up)
 * in from the disk now rather than during the first token: into memory of the
 * process's own in 2 MB pages where Linux gives them (safetensors.h's st_hold says why:
 * a prompt is read 10-30% faster), every byte of them that lies in whole 2 MB pieces,
 * and by reading one byte of every 4 KB page of the mapped file for the rest. Resident
 * memory ends the same either way. progress (may be NULL) is called after each tensor
 * with the bytes done and the total. */
void model_touch(Model *m, void (*progress)(int64_t done, int64_t total, void *ctx), void *ctx);

/* Whether the model reads t whole from the mapped file: every tensor with the
 * checkpoint's weights; with 8-bit weights, those not packed, but for the embedding
 * table, whose rows are looked up one by one. What model_touch brings in, and what a
 * decoded token reads besides the packed weights. */
bool model_reads_whole(const Model *m, const Tensor *t);

/* ---- reading a text ------------------------------------------------------------ */

/* What one layer carries from one token to the next. */
typedef struct {
    LayerType type;   /* the layer's: which of the two it uses */
    KVCache kv;       /* full attention: K and V of every token so far (grows) */
    DeltaNetState dn; /* Gated DeltaNet: the memory tables and the conv history (fixed) */
} LayerState;

typedef struct {
    int chunk;          /* tokens per pass through the layers; longer inputs go in pieces */
    Path path;          /* PATH_READABLE: one token at a time, through the readable loops */
    int64_t pos;        /* tokens read so far: the next one sits at this position */
    int64_t max_pos;    /* positions the config allows (max_position_embeddings; 0: no limit) */
    int n_layers;       /* num_hidden_layers */
    LayerState *layers; /* [n_layers]: the state of the text */
    RopeTable rope;     /* cos/sin of the positions, shared by the attention layers */
    /* the buffers of one pass of up to chunk tokens */
    float *x;        /* [chunk, hidden]  the residual stream */
    float *normed;   /* [chunk, hidden]  RMSNorm(x): the input of a block */
    float *out;      /* [chunk, hidden]  a block's output, added to x */
    MlpActs mlp;     /* the MLP's buffers */
    AttnActs attn;   /* attention's buffers */
    DeltaNetActs dn; /* the Gated DeltaNet's buffers */
    float *logits;   /* [vocab]  after the last token read */
    void *memory;    /* the allocation of x, normed, out and logits */
    Q8Act xq;        /* with 8-bit weights: the input of a projection, quantized (quant.h);
                        the blocks' xq point here */
} RunState;

/* A run state for m: empty caches and tables at position 0, buffers for passes of
 * up to chunk tokens (chunk ≥ 1). Every pass reads all the weights once, so longer
 * passes make a long prompt faster; ch07_model uses 256, whose buffers take about
 * 55 MB for 0.8B (4% of the weights; run_bytes counts them). */
void run_init(RunState *s, const Model *m, int chunk);
void run_free(RunState *s);
/* A new text: empty caches and tables, position 0 (the memory is kept). */
void run_reset(RunState *s);

/* What a run with passes of chunk tokens takes once it has read n tokens: the
 * buffers, every layer's state, the RoPE table and the logits, and, with 8-bit
 * weights, the packed weights the model allocated (model_quant_bytes) — everything but
 * the mapped file (for estimating a request before allocating it). */
uint64_t run_bytes(const Model *m, int chunk, int64_t n);

/* Bytes of the state the text has built so far: the KV caches' rows in use and the
 * DeltaNet layers' fixed tables and conv history. */
int64_t run_state_bytes(const RunState *s);
/* The part of it that grows with the text: the KV caches' rows in use. */
int64_t run_kv_bytes(const RunState *s);

/* Optional copies of what a call computed, for the T tokens it read (what --dump
 * writes): each NULL, or [T, hidden] ([T, vocab] for logits). */
typedef struct {
    float *embed;      /* the embedding rows: the residual stream entering layer 0 */
    float **layer;     /* NULL, or [num_hidden_layers] pointers: the stream after layer i */
    float *final_norm; /* RMSNorm(x; norm) */
    float *logits;     /* every token's logits (otherwise only the last token's are computed) */
} ModelTrace;

/* Reads T more tokens. Afterwards s->logits holds the next-token logits after the
 * last of them. trace may be NULL. False, with nothing read, when an id is outside
 * the vocabulary or the text would pass the context the config allows. */
bool model_forward(const Model *m, RunState *s, const int *ids, int T, const ModelTrace *trace, Error *err);

#endif
