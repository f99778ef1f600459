/* mlp.c — SwiGLU (see mlp.h). */
#include "mlp.h"

#include <stdlib.h>

#include "activations.h"
#include "linear.h"
#include "workbook/buffers.h"

bool mlp_load(Mlp *m, const Checkpoint *ck, int layer, Error *err) {
    const Config *c = &ck->config;
    m->d = (MlpDims){.hidden = c->hidden_size, .intermediate = c->intermediate_size};
    m->q8 = (MlpQ8){0}; /* the checkpoint's weights, until a model packs them */
    int64_t H = m->d.hidden, I = m->d.intermediate;
    MlpWeights *w = &m->w;
    return (w->gate_proj = ckpt_layer_tensor(ck, layer, "mlp.gate_proj.weight", 2, (int64_t[]){I, H}, err)) &&
           (w->up_proj = ckpt_layer_tensor(ck, layer, "mlp.up_proj.weight", 2, (int64_t[]){I, H}, err)) &&
           (w->down_proj = ckpt_layer_tensor(ck, layer, "mlp.down_proj.weight", 2, (int64_t[]){H, I}, err));
}

/* MlpActs's buffers for cap tokens: the one place their sizes are written. */
static int mlp_buffers(MlpActs *a, const MlpDims *d, int64_t cap, BufferSpec *b) {
    uint64_t n = size_mul((uint64_t)cap, (uint64_t)d->intermediate);
    b[0] = (BufferSpec){&a->gate, n}; /* [cap, intermediate] */
    b[1] = (BufferSpec){&a->up, n};   /* [cap, intermediate] */
    b[2] = (BufferSpec){&a->act, n};  /* [cap, intermediate] */
    return 3;
}

void mlp_acts_init(MlpActs *a, const MlpDims *d, int cap) {
    BufferSpec b[3];
    *a = (MlpActs){.cap = cap};
    a->memory = buffers_alloc(b, mlp_buffers(a, d, cap, b));
}

uint64_t mlp_acts_bytes(const MlpDims *d, int64_t cap) {
    MlpActs a;
    BufferSpec b[3];
    return buffers_bytes(b, mlp_buffers(&a, d, cap, b));
}

void mlp_acts_free(MlpActs *a) {
    free(a->memory);
    *a = (MlpActs){0};
}

void mlp_forward(const Mlp *m, MlpActs *a, const float *x, int T, float *y, Path path) {
    if (T > a->cap) die("mlp_forward: buffers for %d tokens, called with %d", a->cap, T);
    size_t n = (size_t)T * m->d.intermediate;

    /* widen: hidden → intermediate, twice (the two read the same x) */
    ProjInput in = proj_input(x, T, m->d.hidden, a->xq, path);
    proj_stack(&in, (const Tensor *[]){m->w.gate_proj, m->w.up_proj}, 2, &m->q8.gate_up,
               (float *[]){a->gate, a->up});
    if (path == PATH_READABLE)
        for (size_t i = 0; i < n; i++)
            a->act[i] = siluf(a->gate[i]) * a->up[i]; /* the gate lets up through, or not */
    else
        swiglu_vec(a->gate, a->up, (int64_t)n, a->act); /* the same, 16 at a time (kernels/activations.c) */
    in = proj_input(a->act, T, m->d.intermediate, a->xq, path);
    proj_apply(&in, m->w.down_proj, &m->q8.down_proj, y); /* back: intermediate → hidden */
}

int64_t mlp_param_count(const Mlp *m) {
    return m->w.gate_proj->numel + m->w.up_proj->numel + m->w.down_proj->numel;
}
