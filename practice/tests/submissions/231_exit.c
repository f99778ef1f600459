/* Leaves the process in the middle of the test. */
#include <stdlib.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) { exit(3); }
