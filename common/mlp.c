/* mlp.c — SwiGLU (see mlp.h). */
#include "mlp.h"

#include <stdlib.h>

#include "activations.h"
#include "linear.h"
#include "util.h"

void mlp_forward(const MlpWeights *w, const float *x, int64_t T, float *y, const MlpTrace *trace) {
    int64_t I = w->gate_proj->shape[0]; /* 3584: the MLP's inner width */
    size_t n = (size_t)T * (size_t)I;
    float *gate = trace ? trace->gate : xmalloc(n * sizeof(float)); /* [T, I] */
    float *up = trace ? trace->up : xmalloc(n * sizeof(float));     /* [T, I] */
    float *act = trace ? trace->act : gate;                         /* [T, I]; in place when nobody looks */

    linear_batch(w->gate_proj, x, T, gate); /* widen: hidden → I, twice */
    linear_batch(w->up_proj, x, T, up);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++) act[i] = siluf(gate[i]) * up[i]; /* the gate lets up through, or not */
    linear_batch(w->down_proj, act, T, y);                          /* back: I → hidden */

    if (!trace) {
        free(gate);
        free(up);
    }
}

int64_t mlp_param_count(const MlpWeights *w) {
    return w->gate_proj->numel + w->up_proj->numel + w->down_proj->numel;
}
