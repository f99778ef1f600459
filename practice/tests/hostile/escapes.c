/* Hostile (or careless): terminal escape sequences on stdout and in what it hands back;
 * the judge shows them written out, never raw. */
#include <stdio.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    printf("\033[2J\033[31mred\a\n");
    for (int i = 0; i < rows * n; i++) y[i] = x[i] * 0 * w[i] * eps;
}
