/* synthetic.h — writing a random-weight checkpoint in the exact layout of the real one.
 *
 * The real Qwen3.5-0.8B download is not always at hand (and never in tests), so the
 * workbook can write its own: same folder layout, same file names (the index and the
 * odd shard name model.safetensors-00001-of-00001.safetensors), same tensor names
 * with the "model.language_model." prefix, a few vision-tower and mtp tensors that a
 * reader must skip, BF16 everywhere except A_log and linear_attn.norm.weight in F32,
 * and a config.json with "text_config" and "rope_parameters". Code that works on it
 * works on the download.
 *
 * The values are deterministic (a hash of the tensor name and the element index, no
 * libm), chosen so activations stay O(1) through all layers:
 *   projections [out, in]     uniform in ±sqrt(3 / in)  (variance 1/in: keeps scale)
 *   zero-centred norm weights uniform in ±0.1           (so 1 + w is near 1)
 *   gated-norm weight         1 ± 0.1                   (used directly, no 1 +)
 *   A_log                     log of 0.001 … 1.3, spread over the heads
 *   dt_bias                   uniform in 0 … 2
 *   conv1d                    uniform in ±sqrt(3 / kernel)
 *   embedding                 uniform in ±1
 *
 * Three sizes: "full" has the real 0.8B shapes (~1.5 GB, written tensor by tensor);
 * "tiny" keeps the architecture (LLLF, gated attention, more value heads than key
 * heads) at hidden size 64, for tests and goldens; "mid" has every per-layer width of
 * the real model but only four layers (LLLF) and a small vocabulary (~170 MB), so the
 * tests hold each layer to the reference at the real sizes, with real weights.
 */
#ifndef SYNTHETIC_H
#define SYNTHETIC_H

#include <stdbool.h>

#include "qwen/config.h"
#include "util.h"

typedef struct {
    Config config;         /* the architecture to write */
    int n_shards;          /* 1 = the real single-shard layout */
    bool zeros;            /* all weights zero, as holes in a sparse file (shape-only tests) */
    bool untied_lm_head;   /* also write lm_head.weight (the real 0.8B has none) */
    const char *tokenizer; /* a tokenizer.json to copy into the folder, or NULL */
} SynthOptions;

/* The real Qwen3.5-0.8B text config (docs/checkpoint.md §3). */
void synth_config_full(Config *c);
/* The same architecture, small: hidden 64, 4 layers LLLF, 4/2 attention heads of 32,
 * 2 key / 4 value DeltaNet heads of 16, vocab 1024. */
void synth_config_tiny(Config *c);
/* The real layer widths (hidden 1024, MLP 3584, 16 + 16 DeltaNet heads of 128 and a
 * 6144-channel convolution, 8/2 attention heads of 256 with 64 rotating dims), 4
 * layers LLLF, vocab 3001 (not a multiple of any row tile of the linear kernels). */
void synth_config_mid(Config *c);

/* Writes config.json, generation_config.json, the index and the shard(s) into dir
 * (created if needed). Every shard carries the mark "workbook.synthetic": "random
 * weights" (or "all zeros") in its metadata (weights.h's SYNTHETIC_MARK), so the demos
 * can tell a reader that the numbers these weights decide mean nothing. */
bool synth_write(const char *dir, const SynthOptions *o, Error *err);

#endif
