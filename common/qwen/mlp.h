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
 * up carries what passes. Unlike chapter 6's sigmoid gate, which only scales by a
 * number in (0, 1), silu goes negative (down to −0.28, at g = −1.28), so a gate can
 * also flip the sign of what up carries. This gated form ("GLU" with SiLU, hence
 * SwiGLU) replaced the plain two-matrix MLP in Llama-style models. It has three
 * matrices instead of two: 3 × 1024 × 3584 = 11.0 M parameters per layer, no biases,
 * 31% more than the classic 4 × hidden, two-matrix MLP (2 × 1024 × 4096 = 8.4 M);
 * the width that would keep that size is 8/3 × hidden (2731), and models often
 * round up past it, as 3.5 × here.
 *
 * Every token goes through the same matrices independently, so T tokens are one
 * batched product per matrix (linear_batch: each weight row is read once for all
 * T tokens).
 */
#ifndef MLP_H
#define MLP_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "linear.h"
#include "tensor.h"
#include "weights.h"
#include "workbook/util.h"

/* The sizes, from config.json. */
typedef struct {
    int hidden;       /* 1024: the residual stream */
    int intermediate; /* 3584: the MLP's inner width */
} MlpDims;

/* The three matrices, views of the checkpoint's tensors (nothing is copied). */
typedef struct {
    const Tensor *gate_proj; /* [intermediate, hidden] = [3584, 1024] */
    const Tensor *up_proj;   /* [intermediate, hidden] = [3584, 1024] */
    const Tensor *down_proj; /* [hidden, intermediate] = [1024, 3584] */
} MlpWeights;

/* The same three as 8-bit groups (quant.h), when the model runs on them (model.h's
 * model_quantize packs them); each data NULL otherwise. gate_proj and up_proj read the
 * same x: they are one stack. */
typedef struct {
    Q8Weights gate_up;   /* [gate_proj | up_proj] */
    Q8Weights down_proj;
} MlpQ8;

/* One layer's MLP: its sizes and its weights. */
typedef struct {
    MlpDims d;
    MlpWeights w;
    MlpQ8 q8;
} Mlp;

/* Layer i's MLP from the checkpoint ("layers.{i}.mlp.*"), every shape checked
 * against config.json. False with one line in err naming the tensor. */
bool mlp_load(Mlp *m, const Checkpoint *ck, int layer, Error *err);

/* What one call works in, for up to cap tokens. After mlp_forward the buffers hold
 * that call's intermediates (the demo prints them, --dump writes them, the tests
 * compare them). */
typedef struct {
    int cap;        /* tokens the buffers hold */
    float *gate;    /* [cap, intermediate]  W_gate x, before the SiLU */
    float *up;      /* [cap, intermediate]  W_up x */
    float *act;     /* [cap, intermediate]  silu(gate) · up, the input of down_proj */
    void *memory;   /* the one allocation the buffers are carved from */
    Q8Act *xq;      /* with 8-bit weights: where an input is quantized (the caller's, for
                       cap tokens of intermediate numbers; run_init points it at the run
                       state's); NULL with the checkpoint's weights */
} MlpActs;

void mlp_acts_init(MlpActs *a, const MlpDims *d, int cap);
void mlp_acts_free(MlpActs *a);
/* Bytes mlp_acts_init allocates for cap tokens (saturating; what a demo adds up
 * before it allocates, util.h's memory rule). */
uint64_t mlp_acts_bytes(const MlpDims *d, int64_t cap);

/* y = down(silu(gate(x)) · up(x)) for T ≤ a->cap tokens.  x: [T, hidden],
 * y: [T, hidden] (y must not overlap x). */
void mlp_forward(const Mlp *m, MlpActs *a, const float *x, int T, float *y, Path path);

/* gate_proj + up_proj + down_proj: 3 × hidden × intermediate. */
int64_t mlp_param_count(const Mlp *m);

#endif
