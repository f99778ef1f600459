/* mlp.c — SwiGLU (see mlp.h). */
#include "mlp.h"

#include <stdlib.h>

#include "activations.h"
#include "linear.h"
#include "workbook/buffers.h"

bool mlp_load(Mlp *m, const Checkpoint *ck, int layer, Error *err) {
    const Config *c = &ck->config;
    m->d = (MlpDims){.hidden = c->hidden_size, .intermediate = c->intermediate_size};
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

    project(x, m->w.gate_proj, T, a->gate, path); /* widen: hidden → intermediate, twice */
    project(x, m->w.up_proj, T, a->up, path);
    if (path == PATH_READABLE)
        for (size_t i = 0; i < n; i++)
            a->act[i] = siluf(a->gate[i]) * a->up[i]; /* the gate lets up through, or not */
    else
        swiglu_vec(a->gate, a->up, (int64_t)n, a->act); /* the same, 16 at a time (kernels/activations.c) */
    project(a->act, m->w.down_proj, T, y, path);        /* back: intermediate → hidden */
}

int64_t mlp_param_count(const Mlp *m) {
    return m->w.gate_proj->numel + m->w.up_proj->numel + m->w.down_proj->numel;
}
