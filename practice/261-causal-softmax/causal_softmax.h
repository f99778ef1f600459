/* causal_softmax.h — exercise 261: the stable causal softmax (problem.md). */
#ifndef CAUSAL_SOFTMAX_H
#define CAUSAL_SOFTMAX_H

/* scores [T, S] in place: row t becomes the softmax of columns 0 .. S − T + t (the
 * keys query t may see), its other columns 0. S ≥ T ≥ 1. */
void causal_softmax(float *scores, int T, int S);

#endif
