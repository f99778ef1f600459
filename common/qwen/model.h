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
 * Model holds the configuration and the weights (views into the memory-mapped
 * checkpoint: nothing is copied, the BF16 weights stay BF16).
 */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "attention.h"
#include "config.h"
#include "deltanet.h"
#include "mlp.h"
#include "tensor.h"
#include "weights.h"
#include "workbook/util.h"

/* One decoder layer's weights: two norms, a mixer of the layer's type, the MLP. */
typedef struct {
    LayerType type;
    const Tensor *input_layernorm;          /* [hidden]: zero-centred RMSNorm before the mixer */
    const Tensor *post_attention_layernorm; /* [hidden]: before the MLP */
    DeltaNet linear_attn;                   /* the mixer when type == LAYER_LINEAR_ATTENTION */
    Attention self_attn;                    /* the mixer when type == LAYER_FULL_ATTENTION */
    Mlp mlp;
} Layer;

typedef struct {
    Checkpoint ck;              /* the opened folder; ck.config is config.json */
    const Tensor *embed_tokens; /* [vocab, hidden] = [248320, 1024] */
    const Tensor *norm;         /* [hidden]: the final RMSNorm */
    const Tensor *lm_head;      /* [vocab, hidden]: == embed_tokens when tied */
    bool tied;                  /* no lm_head.weight in the file: the output head is the embedding */
    Layer *layers;              /* [num_hidden_layers] */
} Model;

/* Opens the checkpoint in dir and finds every tensor of every layer, each checked
 * against config.json: a checkpoint that contradicts its config is refused here,
 * naming the tensor, its shape and the shape the config implies. */
bool model_open(Model *m, const char *dir, Error *err);
void model_close(Model *m);

#endif
