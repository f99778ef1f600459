/* embedding.h — exercise 223: embedding rows and the tied output head (problem.md). */
#ifndef EMBEDDING_H
#define EMBEDDING_H

#include <stdint.h>

/* out[t] = row ids[t] of table (BF16 [vocab, hidden]) as float32. Returns 0, or −1
 * without writing anything when an id is outside [0, vocab). ids: [n], out: [n, hidden]. */
int embed_lookup(const int *ids, const uint16_t *table, int n, int vocab, int hidden, float *out);

/* logits[v] = Σ_i table[v][i] · h[i] for every row v.  h: [hidden], logits: [vocab]. */
void tied_logits(const float *h, const uint16_t *table, int vocab, int hidden, float *logits);

#endif
