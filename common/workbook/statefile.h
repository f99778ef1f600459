/* statefile.h — a generation's state as a file: what ch07_model's --save-state
 * writes and --load-state reads, so a conversation can stop and go on later,
 * token for token as if it had never stopped.
 *
 * The state is everything generating carries from one token to the next, as float32
 * safetensors (model.h's RunState, the tokens read, the sampler's generator):
 *
 *   model.dims                  [12]                 the sizes it belongs to (config.json's)
 *   tokens                      [n]                  the ids read so far
 *   logits                      [vocab]              the next-token logits after them
 *   sampler.rng                 [4]                  the sampler's generator, 16 bits each
 *   layers.{i}.kv.k, kv.v       [n, kv_heads, d]     a full-attention layer's KV cache
 *   layers.{i}.conv             [kernel − 1, conv]   a DeltaNet layer's conv history
 *   layers.{i}.tables           [heads, dk, dv]      ... and its memory tables
 *
 * Ids and sizes are whole numbers below 2^24, which float32 holds exactly. The file's
 * metadata records the weights that made the state ("workbook.weights": model.h's
 * quant_name, "bf16" or "q8_0"): its logits and every number of its tables came from
 * them, so a run on the other kind refuses it, naming the file and both kinds (a state
 * without the entry was written before there was a choice, by the checkpoint's).
 *
 * A state file may come from anywhere, so loading checks all of it before the run
 * uses any of it: a safetensors file at all ("not a state file" otherwise), the
 * sizes of this model, every tensor's dtype and shape, every id inside the
 * vocabulary, the generator's four 16-bit parts, a token count the context allows
 * and the memory limit (util.h) holds, the header's parse within that limit too
 * (safetensors.h), and every number finite: a NaN or an infinity is refused with
 * the tensor and the first bad index. (A finite number so large that the layers
 * overflow it is not a file problem a reader can see; its logits then come out
 * NaN, which sample_next refuses.)
 *
 * Saving replaces the file whole or not at all (stw_write): a save that fails
 * half-way leaves the state saved before as it was.
 */
#ifndef STATEFILE_H
#define STATEFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "qwen/model.h"
#include "qwen/tokenizer.h"
#include "util.h"

/* Writes the state of s after reading the tokens `seen` (which s->pos counts) and
 * the sampler's generator rng; false with one line in err. */
bool state_save(const char *path, const Model *m, const RunState *s, const TokenIds *seen, uint64_t rng,
                Error *err);

/* Reads a state into s (reset first) and seen (emptied first), its generator into
 * *rng; false with one line in err naming the file and the problem, and then s is
 * reset and seen empty. */
bool state_load(const char *path, const Model *m, RunState *s, TokenIds *seen, uint64_t *rng, Error *err);

/* Whether path may be --save-state's target on m, checked before any token is
 * generated: it can be replaced whole (util.h's check_writable: missing or a regular
 * file, in a folder that takes a new file) and it is none of the files the run reads
 * (the model's config.json, index, shards, tokenizer.json, generation_config.json),
 * which a save would destroy. The state loaded from load_path (may be NULL) may be
 * its own target: that is how a conversation is kept going. */
bool state_check_target(const char *path, const Model *m, const char *load_path, Error *err);

#endif
