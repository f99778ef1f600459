/* Hostile: a constructor that prints without end, before any case can start. */
#include <stdio.h>
#include <string.h>

#include "rmsnorm.h"

__attribute__((constructor)) static void flood(void) {
    static char line[1 << 16];
    memset(line, 'x', sizeof line - 1);
    for (;;) fputs(line, stdout);
}

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
}
