/* Hostile: writes the old harness's verdict line on descriptor 3 and leaves before any
 * check can run. The verdict is no longer read from the process under test. */
#include <unistd.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
    write(3, "PASS\n", 5);
    _exit(0);
}
