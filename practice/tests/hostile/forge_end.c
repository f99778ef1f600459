/* Hostile: a constructor writes the harness's end mark on descriptor 3 and leaves before
 * main, so no case runs (the case list no longer comes from this process). */
#include <unistd.h>

#include "rmsnorm.h"

__attribute__((constructor)) static void take_over(void) {
    write(3, "E", 1);
    _exit(0);
}

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
}
