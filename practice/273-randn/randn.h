/* randn.h — exercise 273: torch.randn on PyTorch's engine (problem.md).
 *
 * The engine (MT19937 and the uniforms, exercise 272) is given in tests/engine.c;
 * randn() is the exercise. */
#ifndef RANDN_H
#define RANDN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t mt[624]; /* MT19937 state (given code) */
    int next;         /* (given code) */
    bool has_cached;  /* the n < 16 path keeps the second normal of a pair here ... */
    double cached;    /* ... for the next element, even in a later call */
} TorchRng;

/* Given (tests/engine.c): */
void rng_seed(TorchRng *g, uint32_t seed); /* torch.manual_seed(seed): restarts the engine, drops the cache */
float rng_uniform_f32(TorchRng *g);        /* torch.rand, float32: (draw & 0xFFFFFF) · 2^−24 */
double rng_uniform_f64(TorchRng *g);       /* torch.rand, float64: 53 bits of two draws */

/* The exercise: torch.randn with n elements (any shape), float32, into out. */
void randn(TorchRng *g, int n, float *out);

#endif
