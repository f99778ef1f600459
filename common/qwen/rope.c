/* rope.c — partial rotary position embedding (see rope.h). */
#include "rope.h"

#include <math.h>
#include <stdlib.h>

#include "workbook/buffers.h"
#include "workbook/util.h"

enum { ROPE_START = 16 }; /* positions a table starts with, then doubles */

void rope_init(RopeTable *rt, int head_dim, int rotary_dim, double theta, int n_positions) {
    if (rotary_dim <= 0 || rotary_dim % 2 != 0 || rotary_dim > head_dim)
        die("RoPE: rotary_dim %d must be even, positive and at most head_dim %d", rotary_dim, head_dim);
    if (!(theta > 1)) die("RoPE: theta must be greater than 1, got %g", theta);
    if (n_positions < 0) die("RoPE: a table for %d positions", n_positions);
    *rt = (RopeTable){.head_dim = head_dim, .rotary_dim = rotary_dim, .half = rotary_dim / 2, .theta = theta};
    rt->inv_freq = xmalloc((size_t)rt->half * sizeof(double));
    /* Pair i turns theta^(2i/rotary_dim) times slower than pair 0. */
    for (int i = 0; i < rt->half; i++) rt->inv_freq[i] = pow(theta, -2.0 * i / rotary_dim);
    rope_reserve(rt, n_positions);
}

void rope_init_config(RopeTable *rt, const Config *c, int n_positions) {
    rope_init(rt, c->head_dim, c->rotary_dim, c->rope_theta, n_positions);
}

uint64_t rope_table_bytes(int rotary_dim, int64_t n_positions) {
    int64_t cap = grow_capacity(ROPE_START, n_positions); /* as rope_reserve grows it */
    uint64_t half = (uint64_t)(rotary_dim / 2);
    return size_add(size_mul(size_mul(2, size_mul((uint64_t)cap, half)), sizeof(float)),
                    half * sizeof(double));
}

void rope_free(RopeTable *rt) {
    free(rt->inv_freq);
    free(rt->cos);
    free(rt->sin);
    *rt = (RopeTable){0};
}

void rope_reserve(RopeTable *rt, int n_positions) {
    if (n_positions <= rt->n_pos) return;
    if (n_positions > rt->cap) {
        int cap = (int)grow_capacity(rt->cap ? rt->cap : ROPE_START, n_positions);
        rt->cos = xrealloc(rt->cos, (size_t)cap * rt->half * sizeof(float)); /* [cap, half] */
        rt->sin = xrealloc(rt->sin, (size_t)cap * rt->half * sizeof(float)); /* [cap, half] */
        rt->cap = cap;
    }
    for (int p = rt->n_pos; p < n_positions; p++) {
        float *c = rt->cos + (size_t)p * rt->half, *s = rt->sin + (size_t)p * rt->half;
        for (int i = 0; i < rt->half; i++) {
            double angle = (double)p * rt->inv_freq[i]; /* radians pair i has turned by position p */
            c[i] = (float)cos(angle);
            s[i] = (float)sin(angle);
        }
    }
    rt->n_pos = n_positions;
}

static void check_pos(const RopeTable *rt, int pos) {
    if (pos < 0 || pos >= rt->n_pos)
        die("RoPE: position %d is outside the table (0 .. %d); call rope_reserve first", pos, rt->n_pos - 1);
}

const float *rope_cos(const RopeTable *rt, int pos) {
    check_pos(rt, pos);
    return rt->cos + (size_t)pos * rt->half;
}

const float *rope_sin(const RopeTable *rt, int pos) {
    check_pos(rt, pos);
    return rt->sin + (size_t)pos * rt->half;
}

void rope_apply(const RopeTable *rt, float *x, int heads, int pos) {
    const float *c = rope_cos(rt, pos), *s = rope_sin(rt, pos); /* [half] each, shared by all heads */
    int half = rt->half;
    for (int h = 0; h < heads; h++) {
        float *a = x + (size_t)h * rt->head_dim; /* first of each pair: dims 0 .. half − 1 */
        float *b = a + half;                     /* its partner: dims half .. rotary_dim − 1 */
        for (int i = 0; i < half; i++) {
            float ai = a[i], bi = b[i];
            a[i] = ai * c[i] - bi * s[i]; /* turn the point (a, b) by the angle p · inv_freq[i] */
            b[i] = bi * c[i] + ai * s[i];
        }
        /* dims rotary_dim .. head_dim − 1 carry no position: untouched */
    }
}

void rope_apply_tokens(const RopeTable *rt, float *x, int T, int heads, int pos0) {
    for (int t = 0; t < T; t++) rope_apply(rt, x + (size_t)t * heads * rt->head_dim, heads, pos0 + t);
}
