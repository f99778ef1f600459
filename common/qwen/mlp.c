/* mlp.c — SwiGLU (see mlp.h). */
#include "mlp.h"

#include <stdlib.h>

#include "activations.h"
#include "linear.h"

bool mlp_load(Mlp *m, const Checkpoint *ck, int layer, Error *err) {
    const Config *c = &ck->config;
    m->d = (MlpDims){.hidden = c->hidden_size, .intermediate = c->intermediate_size};
    int64_t H = m->d.hidden, I = m->d.intermediate;
    MlpWeights *w = &m->w;
    return (w->gate_proj = ckpt_layer_tensor(ck, layer, "mlp.gate_proj.weight", 2, (int64_t[]){I, H}, err)) &&
           (w->up_proj = ckpt_layer_tensor(ck, layer, "mlp.up_proj.weight", 2, (int64_t[]){I, H}, err)) &&
           (w->down_proj = ckpt_layer_tensor(ck, layer, "mlp.down_proj.weight", 2, (int64_t[]){H, I}, err));
}

void mlp_acts_init(MlpActs *a, const MlpDims *d, int cap) {
    size_t n = (size_t)cap * d->intermediate;
    *a = (MlpActs){.cap = cap,
                   .gate = xaligned_alloc(n * sizeof(float)),
                   .up = xaligned_alloc(n * sizeof(float)),
                   .act = xaligned_alloc(n * sizeof(float))};
}

uint64_t mlp_acts_bytes(const MlpDims *d, int64_t cap) {
    return size_mul(size_mul(3, size_mul((uint64_t)cap, (uint64_t)d->intermediate)), sizeof(float));
}

void mlp_acts_free(MlpActs *a) {
    free(a->gate);
    free(a->up);
    free(a->act);
    *a = (MlpActs){0};
}

void mlp_forward(const Mlp *m, MlpActs *a, const float *x, int T, float *y) {
    if (T > a->cap) die("mlp_forward: buffers for %d tokens, called with %d", a->cap, T);
    size_t n = (size_t)T * m->d.intermediate;

    project(m->w.gate_proj, x, T, a->gate, a->reference); /* widen: hidden → intermediate, twice */
    project(m->w.up_proj, x, T, a->up, a->reference);
    if (a->reference) {
        for (size_t i = 0; i < n; i++)
            a->act[i] = siluf(a->gate[i]) * a->up[i]; /* the gate lets up through, or not */
    } else { /* the same, the SiLU 16 at a time (kernels/activations.c) */
#pragma omp parallel for schedule(static) if (n > 65536)
        for (size_t i0 = 0; i0 < n; i0 += 4096) {
            size_t len = n - i0 < 4096 ? n - i0 : 4096;
            silu_vec(a->act + i0, a->gate + i0, (int64_t)len);
            for (size_t i = i0; i < i0 + len; i++) a->act[i] *= a->up[i];
        }
    }
    project(m->w.down_proj, a->act, T, y, a->reference); /* back: intermediate → hidden */
}

int64_t mlp_param_count(const Mlp *m) {
    return m->w.gate_proj->numel + m->w.up_proj->numel + m->w.down_proj->numel;
}
