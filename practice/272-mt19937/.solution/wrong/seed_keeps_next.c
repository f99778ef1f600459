/* 典型错误：重新播种时没有把 next 设回 624。
 * fails: reseed */
#include <stdint.h>

#include "mt19937.h"

enum { N = 624, M = 397 };

void mt_seed(Mt19937 *g, uint32_t seed) {
    g->mt[0] = seed;
    for (int i = 1; i < N; i++) g->mt[i] = 1812433253u * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) + (uint32_t)i;
    if (g->next < 0 || g->next > N) g->next = N;
}

/* The whole table at once, in place (later entries use the ones already rewritten). */
static void twist(Mt19937 *g) {
    for (int i = 0; i < N; i++) {
        uint32_t y = (g->mt[i] & 0x80000000u) | (g->mt[(i + 1) % N] & 0x7fffffffu);
        g->mt[i] = g->mt[(i + M) % N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    g->next = 0;
}

uint32_t mt_next(Mt19937 *g) {
    if (g->next >= N) twist(g);
    uint32_t y = g->mt[g->next++];
    y ^= y >> 11; /* tempering */
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

float mt_uniform_f32(Mt19937 *g) { return (float)(mt_next(g) & 0xffffffu) * (1.0f / 16777216.0f); }

double mt_uniform_f64(Mt19937 *g) {
    uint64_t hi = mt_next(g), lo = mt_next(g); /* the first draw is the high half */
    return (double)(((hi << 32) | lo) & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}
