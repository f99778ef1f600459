/* engine.c — the given part of exercise 273: MT19937 and PyTorch's uniforms, as
 * exercise 272 builds them (the learner writes randn on top). */
#include "randn.h"

enum { N = 624, M = 397 };

void rng_seed(TorchRng *g, uint32_t seed) {
    g->mt[0] = seed;
    for (int i = 1; i < N; i++) g->mt[i] = 1812433253u * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) + (uint32_t)i;
    g->next = N;
    g->has_cached = false; /* manual_seed forgets the cached normal */
    g->cached = 0;
}

static uint32_t draw(TorchRng *g) {
    if (g->next >= N) {
        for (int i = 0; i < N; i++) {
            uint32_t y = (g->mt[i] & 0x80000000u) | (g->mt[(i + 1) % N] & 0x7fffffffu);
            g->mt[i] = g->mt[(i + M) % N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        g->next = 0;
    }
    uint32_t y = g->mt[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

float rng_uniform_f32(TorchRng *g) { return (float)(draw(g) & 0xffffffu) * (1.0f / 16777216.0f); }

double rng_uniform_f64(TorchRng *g) {
    uint64_t hi = draw(g), lo = draw(g);
    return (double)(((hi << 32) | lo) & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}
