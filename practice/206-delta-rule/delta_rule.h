/* delta_rule.h — exercise 206: the gated delta rule, token by token (problem.md). */
#ifndef DELTA_RULE_H
#define DELTA_RULE_H

/* The book's delta_rule for one sequence. q, k: [T, n_heads, dk] (l2-normalized inside,
 * q then divided by sqrt(dk)); v: [T, n_heads, dv]; g, beta: [T, n_heads];
 * S: [n_heads, dk, dv], the tables at the start and, on return, after the last token;
 * out: [T, n_heads, dv]. Per token and head: decay, look up with k, write the
 * difference times beta, read with q. */
void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_heads, int dk, int dv, float *S, float *out);

#endif
