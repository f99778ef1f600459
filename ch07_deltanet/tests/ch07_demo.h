/* ch07_demo.h — what the tests that run ch07_model as a reader does share.
 *
 *   demo_setup(name)       the demo's and make_synthetic's paths ($BINDIR prefix), the
 *                          tiny checkpoint, and a scratch folder /tmp/name.PID (tmp);
 *   run(args)              the demo on `tiny` with args (a shell command line), stdout
 *                          and stderr to tmp/out and tmp/err: the exit status;
 *   generated(args)        a run that must succeed: the first line of its stdout;
 *   expect_refused(args, fragment)
 *                          exit 1, nothing on stdout, exactly one line on stderr, which
 *                          holds fragment;
 *   slurp(name)            a file of tmp, whole;
 *   at(name)               the path tmp/name, in a buffer of its own that lives until
 *                          the program ends;
 *
 * The suites run in this process (run_suite(s, CK_NOFORK)): their tests share the
 * scratch folder and the demo's paths.
 */
#ifndef CH07_DEMO_H
#define CH07_DEMO_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check_main.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"

static char demo[512], synth[512], tmp[256];
static const char *tiny; /* the checkpoint run() runs on */

static void demo_setup(const char *name) {
    const char *bindir = getenv("BINDIR") ? getenv("BINDIR") : "";
    snprintf(demo, sizeof demo, "%s/%sch07_deltanet/ch07_model", REPO_ROOT, bindir);
    snprintf(synth, sizeof synth, "%s/%sch01_weights/make_synthetic", REPO_ROOT, bindir);
    tiny = golden_tiny_dir();
    snprintf(tmp, sizeof tmp, "/tmp/%s.%d", name, (int)getpid());
    Error err;
    if (!make_dirs(tmp, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
}

static void demo_teardown(void) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
}

/* Runs the demo with args; stdout to tmp/out, stderr to tmp/err; the exit status. */
static int run(const char *args) {
    size_t size = strlen(args) + 2048;
    char *cmd = xmalloc(size);
    snprintf(cmd, size, "%s --model '%s' %s > %s/out 2> %s/err", demo, tiny, args, tmp, tmp);
    int rc = system(cmd);
    free(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static inline const char *at(const char *name) {
    static char paths[256][512];
    static int next;
    ck_assert_msg(next < 256, "at(): out of buffers");
    char *p = paths[next++];
    snprintf(p, 512, "%s/%s", tmp, name);
    return p;
}

static char *slurp(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    Error err;
    char *s = read_file(path, NULL, &err);
    ck_assert_msg(s, "%s", err.msg);
    return s;
}

/* The generated ids the demo printed (no tokenizer: " id id id"), as one string. */
static char *generated(const char *args) {
    int rc = run(args);
    char *err = slurp("err");
    ck_assert_msg(rc == 0, "ch07_model %s: exit %d: %s", args, rc, err);
    ck_assert_msg(!strstr(err, "runtime error") && !strstr(err, "Sanitizer"), "%s", err);
    free(err);
    char *out = slurp("out");
    out[strcspn(out, "\n")] = '\0';
    return out;
}

/* Exit 1 and exactly one line on stderr containing fragment. */
static void expect_refused(const char *args, const char *fragment) {
    int rc = run(args);
    char *err = slurp("err"), *out = slurp("out");
    char what[80]; /* the command line, cut for the report */
    snprintf(what, sizeof what, "%s", args);
    ck_assert_msg(rc == 1, "%s: exit %d (%s)", what, rc, err);
    ck_assert_msg(strstr(err, fragment), "%s: stderr lacks '%s': %s", what, fragment, err);
    ck_assert_msg(strchr(err, '\n') == strrchr(err, '\n'), "%s: more than one line: %s", what, err);
    ck_assert_msg(out[0] == '\0', "%s: printed on stdout: %s", what, out);
    printf("ok   refused: %s", err);
    free(err), free(out);
}

#endif
