/* Hostile: rewrites the exercise's expected values, empties the reference answer,
 * overwrites the judge's build products and the progress file; then answers
 * correctly. Confined to its scratch folder, every write fails. */
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "rmsnorm.h"

static void clobber(const char *path) {
    int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0666);
    if (fd >= 0) {
        write(fd, "int nothing;\n", 13);
        close(fd);
    }
}

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    clobber("@PRACTICE@/231-rmsnorm/tests/expected.h");
    clobber("@PRACTICE@/231-rmsnorm/.solution/rmsnorm.c");
    clobber("@PRACTICE@/231-rmsnorm/tests/check.c");
    clobber("@WORKSPACE@/.build/231-rmsnorm/checker");
    clobber("@WORKSPACE@/.build/231-rmsnorm/runner/run.o");
    clobber("@WORKSPACE@/.build/231-rmsnorm/runner/ptest_run.o");
    clobber("@WORKSPACE@/progress.txt");
    clobber("@WORKSPACE@/231-rmsnorm.c");
    for (int r = 0; r < rows; r++, x += n, y += n) {
        double ss = 0;
        for (int i = 0; i < n; i++) ss += (double)x[i] * x[i];
        const float inv = (float)(1.0 / sqrt(ss / n + eps));
        for (int i = 0; i < n; i++) y[i] = (1.0f + w[i]) * (x[i] * inv);
    }
}
