/* Waits instead of computing: it sleeps far past the wall-clock limit. */
#include <time.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    struct timespec minute = {60, 0};
    nanosleep(&minute, NULL);
}
