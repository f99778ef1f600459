/* 典型错误：角度在 float32 里算。
 * fails: far_positions */
#include <math.h>

#include "rope_table.h"

void rope_table(int rotary_dim, double theta, long pos0, int n_pos, float *cos_out, float *sin_out) {
    int half = rotary_dim / 2;
    for (int i = 0; i < half; i++) {
        double inv_freq = pow(theta, -2.0 * i / rotary_dim); /* radians per token of pair i */
        for (int p = 0; p < n_pos; p++) {
            float angle =
                (float)(pos0 + p) * (float)inv_freq; /* ~1e5 at position 2e5: float32 would lose it */
            cos_out[(long)p * half + i] = (float)cos(angle);
            sin_out[(long)p * half + i] = (float)sin(angle);
        }
    }
}
