/* int8_groups.h — exercise 243: weights as int8 groups of 32, one scale per group (problem.md). */
#ifndef INT8_GROUPS_H
#define INT8_GROUPS_H

#include <stdint.h>

#define GROUP 32 /* numbers per group */

/* scale[g] = max|w| / 127 over group g, q[i] = round(w[i] / scale) (ties to even; 0 when
 * the scale is 0).  w: [n] -> q: [n], scale: [n / 32]; n is a multiple of 32. */
void quantize_q8(const float *w, int n, int8_t *q, float *scale);

/* Σ_g scale[g] · Σ_{i in group g} q[i] · x[i].  x: [n]; q: [n], scale: [n / 32]. */
float dot_q8(const float *x, const int8_t *q, const float *scale, int n);

#endif
