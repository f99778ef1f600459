/* checkpoint.h — a downloaded model folder: finding it, opening it, naming its weights.
 *
 * What `huggingface-cli download Qwen/Qwen3.5-0.8B` puts in the folder:
 *
 *   config.json                                   the hyper-parameters (config.h)
 *   model.safetensors.index.json                  {"weight_map": {tensor name: shard file}}
 *   model.safetensors-00001-of-00001.safetensors  the one shard (~1.7 GB; the odd name is real)
 *   tokenizer.json, ...                           chapter 2
 *
 * Opening follows the index's weight_map (never a file-name pattern); without an
 * index the folder must hold a single model.safetensors. All shards are mapped,
 * not read.
 *
 * Tensor names. The checkpoint is a vision-language model, so the language model's
 * tensors carry the prefix "model.language_model." and sit beside the vision tower
 * ("model.visual.*") and a multi-token-prediction head ("mtp.*"), which this
 * workbook does not use and skips. The prefix is removed in exactly one place
 * (here), so the rest of the code says "layers.0.mlp.up_proj.weight". A text-only
 * file with the plain "model." prefix works the same way.
 *
 * Tied embeddings: there is no "lm_head.weight"; the output head reuses the
 * embedding matrix (embedding.h explains why). When a file does have lm_head.weight,
 * it is used.
 *
 * After opening, `weights` holds a pointer to every tensor of every layer, each
 * checked against config.json for its shape: a checkpoint that contradicts its
 * config is refused here, with the tensor, its shape and the expected shape in the
 * message, instead of failing somewhere inside a layer.
 */
#ifndef CHECKPOINT_H
#define CHECKPOINT_H

#include <stdbool.h>

#include "config.h"
#include "safetensors.h"
#include "strmap.h"
#include "tensor.h"
#include "util.h"

/* Gated DeltaNet mixer of a linear-attention layer (Hk key heads of dk, Hv value heads of dv). */
typedef struct {
    const Tensor *in_proj_qkv; /* [2·Hk·dk + Hv·dv, hidden] = [6144, 1024]: rows q | k | v */
    const Tensor *in_proj_z;   /* [Hv·dv, hidden] = [2048, 1024]: the output gate */
    const Tensor *in_proj_b;   /* [Hv, hidden] = [16, 1024]: β, the write strength */
    const Tensor *in_proj_a;   /* [Hv, hidden] = [16, 1024]: the input part of the decay */
    const Tensor *conv1d;      /* [conv_dim, 1, kernel] = [6144, 1, 4]: depthwise, no bias */
    const Tensor *dt_bias;     /* [Hv] */
    const Tensor *A_log;       /* [Hv], F32 in the real checkpoint: each head's forgetting speed */
    const Tensor *norm;        /* [dv] = [128], F32: gated RMSNorm weight, shared by all heads */
    const Tensor *out_proj;    /* [hidden, Hv·dv] = [1024, 2048] */
} DeltaNetWeights;

/* Gated full attention (H query heads, Hkv key/value heads, head_dim d). */
typedef struct {
    const Tensor *q_proj; /* [H·2d, hidden] = [4096, 1024]: per head d query rows, then d gate rows */
    const Tensor *k_proj; /* [Hkv·d, hidden] = [512, 1024] */
    const Tensor *v_proj; /* [Hkv·d, hidden] = [512, 1024] */
    const Tensor *o_proj; /* [hidden, H·d] = [1024, 2048] */
    const Tensor *q_norm; /* [d] = [256]: zero-centred RMSNorm weight, per query head */
    const Tensor *k_norm; /* [d] = [256] */
} AttentionWeights;

/* SwiGLU MLP. */
typedef struct {
    const Tensor *gate_proj; /* [intermediate, hidden] = [3584, 1024] */
    const Tensor *up_proj;   /* [intermediate, hidden] = [3584, 1024] */
    const Tensor *down_proj; /* [hidden, intermediate] = [1024, 3584] */
} MlpWeights;

typedef struct {
    LayerType type;
    const Tensor *input_layernorm;          /* [hidden]: zero-centred RMSNorm before the mixer */
    const Tensor *post_attention_layernorm; /* [hidden]: before the MLP */
    DeltaNetWeights linear_attn;            /* set when type == LAYER_LINEAR_ATTENTION */
    AttentionWeights self_attn;             /* set when type == LAYER_FULL_ATTENTION */
    MlpWeights mlp;
} LayerWeights;

typedef struct {
    const Tensor *embed_tokens; /* [vocab, hidden] = [248320, 1024] */
    const Tensor *norm;         /* [hidden]: the final RMSNorm */
    const Tensor *lm_head;      /* [vocab, hidden]: == embed_tokens when tied */
    bool tied;
    LayerWeights *layers; /* [num_hidden_layers] */
} Weights;

typedef struct {
    char *dir;
    Config config;
    SafeTensors *shards; /* [n_shards], each mapped */
    int n_shards;
    StrMap names;        /* text tensor name without prefix → index into refs */
    const Tensor **refs; /* [n_refs] */
    int n_refs;
    int n_skipped; /* vision-tower and mtp tensors seen and ignored */
    Weights weights;
} Checkpoint;

/* Opens dir: config.json, the index (or model.safetensors), every shard, then
 * checks every text tensor against the config. */
bool ckpt_open(Checkpoint *ck, const char *dir, Error *err);
void ckpt_close(Checkpoint *ck);

/* A text tensor by its name without prefix ("layers.3.self_attn.q_proj.weight"), or NULL. */
const Tensor *ckpt_find(const Checkpoint *ck, const char *name);

/* The name a stored tensor is known by in this workbook: the language model's prefix
 * removed; NULL for tensors that are skipped (vision tower, mtp head). */
const char *ckpt_text_name(const char *stored_name);

/* ---- finding the model ------------------------------------------------------
 * In this order (the first that exists wins):
 *   1. the --model DIR flag (flag_value, may be NULL)
 *   2. $QWEN35_MODEL
 *   3. models/Qwen3.5-0.8B under the repository root
 *   4. the Hugging Face cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
 *      ~/.cache/huggingface/hub — models--Qwen--Qwen3.5-0.8B/snapshots/<rev>
 *      (the revision refs/main points to, else any snapshot with a config.json)
 * A folder counts when it holds config.json. When the flag or the variable is
 * given but wrong, that is an error (no silent fall-through). When nothing is
 * found, the error lists every place looked at and the download command.
 * The result is newly allocated; *source says which rule matched. */
char *model_find(const char *flag_value, const char **source, Error *err);

/* The command a reader runs once to get the weights. */
#define MODEL_DOWNLOAD_HINT                                                                                  \
    "huggingface-cli download Qwen/Qwen3.5-0.8B --local-dir models/Qwen3.5-0.8B\n"                           \
    "  (or: modelscope download --model Qwen/Qwen3.5-0.8B --local_dir models/Qwen3.5-0.8B;\n"                \
    "   without the download, `make synthetic` writes random weights of the same shape:\n"                   \
    "   --model models/Qwen3.5-0.8B-synthetic)"

#endif
