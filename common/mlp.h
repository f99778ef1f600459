/* mlp.h — chapter 4: the MLP of every Qwen3.5 layer, SwiGLU.
 *
 * After the mixer has moved information between tokens, the MLP works on each
 * token on its own: it widens the 1024 numbers to 3584, lets a gate decide which of
 * those 3584 features pass, and projects back to 1024:
 *
 *     gate = W_gate x                 [3584]      gate_proj [3584, 1024]
 *     up   = W_up x                   [3584]      up_proj   [3584, 1024]
 *     act  = silu(gate) · up          [3584]      element by element
 *     out  = W_down act               [1024]      down_proj [1024, 3584]
 *
 * silu(g) = g · sigmoid(g) is about g for large g and about 0 for very negative g:
 * each of the 3584 features is switched on or (nearly) off by its gate value, and
 * up carries what passes. This gated form ("GLU" with SiLU, hence SwiGLU) replaced
 * the plain two-matrix MLP in Llama-style models; it has three matrices instead of
 * two, so the width is 3.5 × hidden instead of 4 × to keep a similar size:
 * 3 × 1024 × 3584 = 11.0 M parameters per layer, no biases.
 *
 * Every token goes through the same matrices independently, so T tokens are one
 * batched product per matrix (linear_batch: each weight row is read once for all
 * T tokens).
 */
#ifndef MLP_H
#define MLP_H

#include <stdint.h>

#include "checkpoint.h"

/* Optional views of the intermediates (the demo prints them, the tests compare
 * them): each [T, intermediate], allocated by the caller. */
typedef struct {
    float *gate; /* W_gate x, before the SiLU */
    float *up;   /* W_up x */
    float *act;  /* silu(gate) · up, the input of down_proj */
} MlpTrace;

/* y = down(silu(gate(x)) · up(x)) for T tokens.  x: [T, hidden], y: [T, hidden]
 * (y must not overlap x). trace may be NULL. The widths come from the weights'
 * shapes (checked against config.json when the checkpoint was opened). */
void mlp_forward(const MlpWeights *w, const float *x, int64_t T, float *y, const MlpTrace *trace);

/* gate_proj + up_proj + down_proj: 3 × hidden × intermediate. */
int64_t mlp_param_count(const MlpWeights *w);

#endif
