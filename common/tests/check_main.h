/* check_main.h — how every Check test program ends: run the suite, print what
 * failed, and exit 1 if anything did.
 *
 *     return run_suite(s, CK_NOFORK);
 *
 * fork: CK_FORK_GETENV (each test in a child process, Check's default, unless the
 * environment says CK_FORK=no) or CK_NOFORK (suites whose fixtures open a checkpoint
 * once for all their tests). How much is printed follows CK_VERBOSITY
 * (mk/run-tests.sh sets "normal"). */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <check.h>

static inline int run_suite(Suite *s, enum fork_status fork) {
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, fork);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
