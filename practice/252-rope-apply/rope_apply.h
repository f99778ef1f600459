/* rope_apply.h — exercise 252: partial rotate-half RoPE (problem.md). */
#ifndef ROPE_APPLY_H
#define ROPE_APPLY_H

/* Rotates x [T, heads, head_dim] in place: in each head, pair (i, i + rotary_dim/2) of the
 * first rotary_dim dims by the angle of row t of cos_t / sin_t ([T, rotary_dim/2]);
 * dims rotary_dim .. head_dim − 1 are not touched. */
void rope_apply(float *x, const float *cos_t, const float *sin_t, int T, int heads, int head_dim,
                int rotary_dim);

#endif
