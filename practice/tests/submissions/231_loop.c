/* Never returns. */
#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    volatile unsigned long spin = 0;
    for (;;) spin++;
}
