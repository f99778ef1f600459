/* embedding.h — token ids to vectors: one row of a table per id.
 *
 * The embedding matrix E has one row per id: [248320, 1024] for Qwen3.5-0.8B,
 * stored in BF16. Embedding a text is nothing but reading rows:
 *
 *     ids  [T]         100644, 104307, ...
 *     x    [T, 1024]   x[t] = E[ids[t]]          (widened to float32)
 *
 * No multiplication happens (it would be a one-hot vector times E, which picks
 * the same row). Only the T rows are read and converted: the table is 254 M
 * numbers, 508 MB in BF16 and twice that in float32, and converting it whole
 * to embed six tokens would be a waste of a second and of 1.0 GB of memory.
 *
 * The table has more rows than the tokenizer has ids (248,320 against
 * 248,077): the row count is padded up to a round multiple so that the matrix
 * splits evenly into the blocks GPUs and multi-GPU setups cut it into. The extra
 * rows belong to no token; no text ever produces their ids.
 *
 * Tied embeddings. The same matrix is also the output head: at the end of the
 * model the last hidden state h [1024] is compared with every row,
 *
 *     logits[v] = E[v] · h        for every id v (248,320 dot products)
 *
 * and the id whose row points most in h's direction scores highest. Reading a
 * row in (id -> vector) and scoring rows on the way out (vector -> id) are the
 * same dictionary used in both directions, so Qwen3.5-0.8B stores it once
 * (`tie_word_embeddings: true`, no lm_head.weight). At this size that saves 254 M
 * parameters, a third of the model; bigger models, where the table is a smaller
 * share, usually keep a separate head.
 */
#ifndef EMBEDDING_H
#define EMBEDDING_H

#include <stdbool.h>

#include "linear.h"
#include "tensor.h"
#include "workbook/util.h"

typedef struct {
    const Tensor *table; /* [vocab, hidden], BF16 in the checkpoint (F16 / F32 also read) */
    int vocab;           /* rows: 248320 */
    int hidden;          /* row width: 1024 */
} Embedding;

/* Wraps the checkpoint's embed_tokens tensor; it must be 2-D. */
bool emb_init(Embedding *e, const Tensor *table, Error *err);

/* out[t] = table[ids[t]] as float32 for t < n.          out: [n, hidden]
 * An id outside 0..vocab-1 is an error naming the id and the table size. */
bool emb_lookup(const Embedding *e, const int *ids, int n, float *out, Error *err);

/* The tied output head for T hidden states: logits[t][v] = table[v] · h[t] for every
 * row v.   h: [T, hidden]   logits: [T, vocab]
 * That is a linear layer whose weight matrix is the table (chapter 4, linear.h), so
 * it runs as one: the fast kernels, or linear_ref's plain loop on the readable path.
 * Rows are widened a few numbers at a time, so the table is never converted whole. */
void emb_logits(const Embedding *e, const float *h, int64_t T, float *logits, Path path);

/* Euclidean length of one row of width hidden. */
float emb_norm(const float *row, int hidden);

#endif
