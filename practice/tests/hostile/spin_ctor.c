/* Hostile: a constructor that never returns. */
#include "rmsnorm.h"

__attribute__((constructor)) static void spin(void) {
    for (volatile unsigned long i = 0;; i++) {
    }
}

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
}
