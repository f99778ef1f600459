/* sample.h — the last step of generating: from the next-token logits to one token.
 *
 * The model ends in 248,320 logits, one score per token. Turning them into the next
 * token is a choice, not part of the model:
 *
 *   greedy         the highest score (temperature 0, or top-k 1): the same text every
 *                  time, and what the tests and the chapter's walkthrough use;
 *   sampling       p = softmax(logits / temperature), then draw: below 1 the
 *                  temperature sharpens the distribution, above 1 it flattens it;
 *     top-k        keep only the k most likely tokens;
 *     top-p        keep the fewest most likely tokens whose probabilities add up to
 *                  at least p ("nucleus"), then draw among them.
 * The filters apply in that order (k, then p), renormalizing what is left, as
 * Hugging Face's generate() does.
 *
 * The random numbers come from a small generator of its own (xorshift64*) seeded by
 * --seed, so a run is reproducible, and independent of the thread count (the logits
 * are, to the bit, and the draw is on one thread).
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    float temperature; /* 0: greedy */
    int top_k;         /* 0: no limit */
    float top_p;       /* 1: no limit; in (0, 1] */
    uint64_t rng;      /* the generator's state (never 0) */
    int vocab;         /* logits per call */
    int *order;        /* [vocab] scratch: candidate ids (best first when filtered) */
    float *prob;       /* [vocab] scratch: their probabilities */
} Sampler;

/* A sampler for logits of `vocab` entries. temperature ≥ 0, top_k ≥ 0, 0 < top_p ≤ 1
 * (the demo checks its flags before). */
void sampler_init(Sampler *s, int vocab, float temperature, int top_k, float top_p, uint64_t seed);
void sampler_free(Sampler *s);

/* True when the sampler always takes the highest score. */
bool sampler_is_greedy(const Sampler *s);

/* The next token for these logits [vocab]; -1 when one of them is NaN or infinite
 * (the weights or the state that made them hold such numbers: no token drawn from
 * them would mean anything, so none is). Otherwise always an id in 0 .. vocab − 1,
 * for any temperature, top-k and top-p. */
int sample_next(Sampler *s, const float *logits);

/* The index of the first of n values that is NaN or infinite, or -1. */
int first_nonfinite(const float *v, int n);

/* The index of the largest of n values (the first one on a tie). */
int argmax(const float *v, int n);

#endif
