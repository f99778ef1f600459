/* sample.c — greedy, temperature, top-k and top-p (see sample.h). */
#include "sample.h"

#include <math.h>
#include <stdlib.h>

#include "workbook/util.h"

void sampler_init(Sampler *s, int vocab, float temperature, int top_k, float top_p, uint64_t seed) {
    *s = (Sampler){.temperature = temperature,
                   .top_k = top_k,
                   .top_p = top_p,
                   .rng = seed ^ 0x9E3779B97F4A7C15ull, /* seed 0 does not give state 0 ... */
                   .vocab = vocab,
                   .order = xmalloc((size_t)vocab * sizeof(int)),
                   .prob = xmalloc((size_t)vocab * sizeof(float))};
    if (s->rng == 0) s->rng = 1; /* ... and the one seed that does gets 1 */
}

void sampler_free(Sampler *s) {
    free(s->order);
    free(s->prob);
    *s = (Sampler){0};
}

bool sampler_is_greedy(const Sampler *s) { return s->temperature <= 0.0f || s->top_k == 1; }

int argmax(const float *v, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best]) best = i;
    return best;
}

/* xorshift64* (Marsaglia; Vigna's multiplier): a uniform number in [0, 1) from the
 * top 53 bits. */
static double uniform(Sampler *s) {
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return (double)((s->rng * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

/* Candidates best first: the higher logit first, the lower id on a tie (so the
 * order, and the draw, never depend on how the sort is implemented). */
static int by_logit(const void *a, const void *b, void *ctx) {
    const float *logits = ctx;
    int i = *(const int *)a, j = *(const int *)b;
    if (logits[i] != logits[j]) return logits[i] > logits[j] ? -1 : 1;
    return (i > j) - (i < j);
}

/* The k best ids into order[0..k), best first: one pass keeping a sorted list of
 * the k best so far (k is small: tens of tokens). */
static int top_k_ids(const float *logits, int n, int k, int *order) {
    int have = 0;
    for (int id = 0; id < n; id++) {
        float l = logits[id];
        if (have == k && !(l > logits[order[k - 1]])) continue; /* not better than the k-th */
        int at = have < k ? have++ : k - 1;                     /* the slot it may take */
        while (at > 0 && l > logits[order[at - 1]]) {           /* shift worse ones down */
            order[at] = order[at - 1];
            at--;
        }
        order[at] = id;
    }
    return have;
}

int first_nonfinite(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return i;
    return -1;
}

int sample_next(Sampler *s, const float *logits) {
    int n = s->vocab;
    if (first_nonfinite(logits, n) >= 0) return -1;
    if (sampler_is_greedy(s)) return argmax(logits, n);

    /* The candidates, best first: the top k; or, for top-p alone, every token that
     * could be in the nucleus. A token other than the best whose probability is below
     * (1 − top_p) / (n − 1) never is: those are at most n − 1 tokens, together lighter
     * than 1 − top_p, so the best and the others reach top_p first. The best itself
     * is always a candidate (at a high temperature every probability can be below
     * that bound, and the nucleus is then the best alone). */
    int m = 0;
    double whole = -1; /* the weight of the whole distribution, when only part of it is kept */
    if (s->top_k > 0 && s->top_k < n) {
        m = top_k_ids(logits, n, s->top_k, s->order);
    } else if (s->top_p < 1.0f) {
        int top = argmax(logits, n);
        float best = logits[top];
        double total = 0;
        for (int i = 0; i < n; i++) total += exp(((double)logits[i] - best) / s->temperature);
        double cut = n > 1 ? (1.0 - s->top_p) / (n - 1) * total : 0;
        whole = total;
        for (int i = 0; i < n; i++)
            if (i == top || exp(((double)logits[i] - best) / s->temperature) >= cut) s->order[m++] = i;
        qsort_r(s->order, (size_t)m, sizeof *s->order, by_logit, (void *)logits);
    } else {
        for (int i = 0; i < n; i++) s->order[i] = i; /* the whole distribution, in id order */
        m = n;
    }

    /* p ∝ exp((l − l_max) / temperature): the largest term is 1, so nothing overflows. */
    float best = logits[s->order[0]];
    for (int i = 1; i < m; i++) best = logits[s->order[i]] > best ? logits[s->order[i]] : best;
    double total = 0;
    for (int i = 0; i < m; i++) {
        s->prob[i] = (float)exp(((double)logits[s->order[i]] - best) / s->temperature);
        total += s->prob[i];
    }

    /* top-p: the fewest best candidates whose probability reaches top_p of the total. */
    if (s->top_p < 1.0f) {
        double kept = 0;
        int keep = 0;
        double target = s->top_p * (whole >= 0 ? whole : total);
        while (keep < m && kept < target) kept += s->prob[keep++];
        m = keep > 0 ? keep : 1;
        total = kept > 0 ? kept : s->prob[0];
    }

    /* Draw: walk the cumulative sum to a uniform point of it. */
    double r = uniform(s) * total, acc = 0;
    for (int i = 0; i < m; i++) {
        acc += s->prob[i];
        if (r < acc) return s->order[i];
    }
    return s->order[m - 1]; /* r at the very end, by rounding */
}
