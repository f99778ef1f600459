/* embedding.c — token ids to vectors (see embedding.h). */
#include "embedding.h"

#include <math.h>
#include <stdlib.h>

bool emb_init(Embedding *e, const Tensor *table, Error *err) {
    if (!table) return error_set(err, "no embedding table (embed_tokens.weight) in the checkpoint");
    if (table->ndim != 2 || table->shape[0] <= 0 || table->shape[1] <= 0)
        return error_set(err, "%s: %s must be a 2-D [vocab, hidden] matrix", table->file, table->name);
    e->table = table;
    e->vocab = (int)table->shape[0];
    e->hidden = (int)table->shape[1];
    return true;
}

bool emb_lookup(const Embedding *e, const int *ids, int n, float *out, Error *err) {
    for (int t = 0; t < n; t++)
        if (ids[t] < 0 || ids[t] >= e->vocab)
            return error_set(err, "id %d is outside the embedding table's %d rows (%s)", ids[t], e->vocab,
                             e->table->file);
    /* Row ids[t] starts at element ids[t] * hidden; only that row is widened. */
    for (int t = 0; t < n; t++)
        tensor_read_f32(e->table, (int64_t)ids[t] * e->hidden, e->hidden, out + (int64_t)t * e->hidden);
    return true;
}

void emb_logits(const Embedding *e, const float *h, int64_t T, float *logits, Path path) {
    project(h, e->table, T, logits, path); /* logits[t][v]: how strongly h[t] points along token v's row */
}

float emb_norm(const float *row, int hidden) {
    double sum = 0; /* in double: 1024 squares, summed without float32 rounding drift */
    for (int i = 0; i < hidden; i++) sum += (double)row[i] * row[i];
    return (float)sqrt(sum);
}
