/* weights.h — chapter 1: the weights. A downloaded model folder: finding it, opening
 * it, looking its tensors up by name (the book's qwen/weights.py).
 *
 * What `hf download Qwen/Qwen3.5-0.8B` puts in the folder:
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
 * Shapes. Every part of the model finds its own tensors with ckpt_expect(), which
 * checks each one against the shape config.json implies; model_open() (model.h) does
 * that for every layer when a demo opens the model, so a checkpoint that contradicts
 * its config is refused at once, with the tensor, its shape and the expected shape
 * in the message, instead of failing somewhere inside a layer.
 */
#ifndef WEIGHTS_H
#define WEIGHTS_H

#include <stdbool.h>

#include "config.h"
#include "safetensors.h"
#include "tensor.h"
#include "workbook/strmap.h"
#include "workbook/util.h"

typedef struct {
    char *dir;
    Config config;
    SafeTensors *shards; /* [n_shards], each mapped */
    int n_shards;
    StrMap shard_index;  /* shard file name → index into shards */
    StrMap names;        /* text tensor name without prefix → index into refs */
    const Tensor **refs; /* [n_refs] */
    int n_refs;
    int n_skipped;         /* vision-tower and mtp tensors seen and ignored */
    const char *synthetic; /* make_synthetic's mark in a shard's metadata ("random weights",
                              "all zeros"), or NULL for any other checkpoint */
} Checkpoint;

/* The "__metadata__" key make_synthetic (workbook/synthetic.h) marks its shards with:
 * a demo on such a checkpoint says that the numbers its weights decide mean nothing. */
#define SYNTHETIC_MARK "workbook.synthetic"

/* Opens dir: config.json, the index (or model.safetensors), every shard. The
 * tensors' shapes are checked by the parts that use them (ckpt_expect); model.h's
 * model_open checks every one of them at once. */
bool ckpt_open(Checkpoint *ck, const char *dir, Error *err);
void ckpt_close(Checkpoint *ck);

/* A text tensor by its name without prefix ("layers.3.self_attn.q_proj.weight"), or NULL. */
const Tensor *ckpt_find(const Checkpoint *ck, const char *name);

/* The text tensor `name`, which must have the ndim dimensions in shape (what
 * config.json implies). NULL with one line in err otherwise: "tensor X is missing
 * from the checkpoint" or "FILE: tensor X has shape [a, b], but config.json
 * implies [c, d]". This is the book's load(module, W, prefix) in C: each part finds
 * its own weights with it (mlp_load, attn_load, dn_load, ...). */
const Tensor *ckpt_expect(const Checkpoint *ck, const char *name, int ndim, const int64_t *shape, Error *err);

/* The same for layer i's tensor "layers.{i}.{suffix}". */
const Tensor *ckpt_layer_tensor(const Checkpoint *ck, int layer, const char *suffix, int ndim,
                                const int64_t *shape, Error *err);

/* Gives the pages of t, a tensor of one of ck's shards, back to the system
 * (safetensors.h's st_release_pages); a later read brings them back from the file. */
void ckpt_release_pages(const Checkpoint *ck, const Tensor *t);

/* Moves bytes [begin, end) of one of ck's shards into memory of the process's own, in
 * 2 MB pages (safetensors.h's st_hold): the bytes moved, 0 when none were. */
int64_t ckpt_hold(Checkpoint *ck, const void *begin, const void *end);

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
 * given but wrong, that is an error (no silent fall-through) saying what is wrong:
 * no such folder, no config.json in it, a config.json that is a folder or cannot
 * be read. An empty --model is an error, not the current folder ($QWEN35_MODEL=""
 * counts as not set). refs/main must name a folder inside snapshots/ (a revision,
 * not a path). When nothing is found, the error lists every place looked at and
 * the download command.
 * The result is newly allocated; *source says which rule matched. */
char *model_find(const char *flag_value, const char **source, Error *err);

/* The commands a reader runs once, from the repository root, to get the weights:
 * Hugging Face's CLI (`hf`, from the huggingface_hub package; the older
 * `huggingface-cli` is retired in its current releases) or ModelScope's; and the
 * way to try everything without the download. */
#define MODEL_DOWNLOAD_HINT                                                                                  \
    "Download it once, from the repository root, with\n"                                                     \
    "  hf download Qwen/Qwen3.5-0.8B --local-dir models/Qwen3.5-0.8B\n"                                      \
    "or\n"                                                                                                   \
    "  modelscope download --model Qwen/Qwen3.5-0.8B --local_dir models/Qwen3.5-0.8B\n"                      \
    "Without the download, every demo runs on random weights of the same shapes\n"                           \
    "(their numbers and text mean nothing) after, from the repository root,\n"                               \
    "  make synthetic && export QWEN35_MODEL=$PWD/models/Qwen3.5-0.8B-synthetic"

#endif
