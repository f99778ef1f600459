/* mt19937.h — exercise 272: the Mersenne Twister behind torch.manual_seed, and torch.rand (problem.md). */
#ifndef MT19937_H
#define MT19937_H

#include <stdint.h>

typedef struct {
    uint32_t mt[624]; /* the state */
    int next;         /* index of the next word to hand out; 624: twist first */
} Mt19937;

void mt_seed(Mt19937 *g, uint32_t seed); /* seeded like std::mt19937(seed) / torch.manual_seed */
uint32_t mt_next(Mt19937 *g);            /* the next tempered 32-bit number */
float mt_uniform_f32(Mt19937 *g);        /* (draw & 0xFFFFFF) · 2^−24 */
double mt_uniform_f64(Mt19937 *g);       /* ((hi << 32 | lo) & (2^53 − 1)) · 2^−53, hi drawn first */

#endif
