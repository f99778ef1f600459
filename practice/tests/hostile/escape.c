/* Hostile: processes that leave the case's process group (setsid) and wait, to
 * rewrite the progress file once the judge has moved on: 400 by fork(), and one by
 * clone() with shared memory (the way threads are made), which the filter lets by. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "rmsnorm.h"

static void lie_in_wait(void) {
    setsid();
    prctl(PR_SET_NAME, "ptx-escapee");
    sleep(2);
    int fd = open("@WORKSPACE@/progress.txt", O_WRONLY | O_TRUNC | O_CREAT, 0666);
    if (fd >= 0) write(fd, "231 passed 0\n206 passed 0\n", 26);
    for (;;) pause();
}

static int cloned(void *arg) {
    (void)arg;
    lie_in_wait();
    return 0;
}

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    (void)x, (void)w, (void)rows, (void)n, (void)eps, (void)y;
    if (access("escaped", F_OK) == 0) return; /* once per test run (the cases share a folder) */
    close(open("escaped", O_WRONLY | O_CREAT, 0666));
    for (int i = 0; i < 400; i++)
        if (fork() == 0) lie_in_wait();
    static char stack[1 << 16];
    clone(cloned, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
    sleep(1);
}
