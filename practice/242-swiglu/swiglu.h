/* swiglu.h — exercise 242: the SwiGLU MLP (problem.md). */
#ifndef SWIGLU_H
#define SWIGLU_H

/* y = W_down (silu(W_gate x) ⊙ W_up x) for each of T tokens. Weights float32, [out, in]:
 * w_gate, w_up: [inter, hidden]; w_down: [hidden, inter]. x, y: [T, hidden]. */
void swiglu_mlp(const float *x, const float *w_gate, const float *w_up, const float *w_down, int T,
                int hidden, int inter, float *y);

#endif
