/* build.c — the compiler, and the parts of a test run the judge builds from trusted
 * files only.
 *
 * In the workspace's .build/ folder:
 *   flags.txt                the compiler and flags everything was built with (when
 *                            they change, everything is built again)
 *   NNN-slug/runner/NAME.o   the runner half of the exercise's tests: every tests/NAME.c
 *                            but check.c, and the harness (ptest_run.c, ptest.c),
 *                            compiled with the same flags as the learner's file, from a
 *                            copy that holds only them, the tests' headers but
 *                            expected.h and the exercise's public headers — so that no
 *                            expected value can reach the program the learner's code is
 *                            linked into
 *   NNN-slug/checker         the checker half: tests/check.c with its expected values
 *                            and the harness (ptest_check.c, ptest.c); never linked
 *                            with learner code
 * Each is rebuilt when one of its sources is newer, into a temporary name renamed into
 * place, so that two judges at once each see a whole file. The code under test can
 * write only its own scratch folder (sandbox.c), never these.
 */
#include "judge.h"

#include <dirent.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What every file under test is compiled with (judge.h). */
const char *const COMPILE_FLAGS[] = {"-std=c11",
                                     "-D_GNU_SOURCE",
                                     "-g",
                                     "-O1",
                                     "-Wall",
                                     "-Wextra",
                                     "-Wno-unused-parameter",
                                     "-fsanitize=address,undefined",
                                     "-fno-sanitize-recover=all",
                                     "-fno-omit-frame-pointer",
                                     "-fdiagnostics-color=never",
                                     "-fmessage-length=0",
                                     NULL};

/* The checker needs no sanitizer: it is the judge's own code. */
static const char *const CHECKER_FLAGS[] = {"-std=c11", "-D_GNU_SOURCE", "-g", "-O1", "-Wall", "-Wextra",
                                            "-fdiagnostics-color=never", "-fmessage-length=0", NULL};

/* ---- the compiler ---------------------------------------------------------------------- */

/* The compiler command: $CC split at spaces (so "ccache gcc" works), or cc. */
int compiler_argv(char **argv, int max, char *buf, size_t size) {
    const char *cc = getenv("CC");
    strf(buf, size, "%s", cc && *cc ? cc : "cc");
    int n = 0;
    for (char *tok = strtok(buf, " \t"); tok && n < max; tok = strtok(NULL, " \t")) argv[n++] = tok;
    if (n == 0) argv[n++] = "cc";
    return n;
}

/* Where the compiler lives when that is outside the system's folders (a compiler in
 * /opt or in your home): the folder above its bin/, which the confined compiler may
 * read. "" when it is in the system's folders or cannot be found. */
void compiler_home(char *out, size_t size) {
    char buf[256], *argv[8], path[PATH_LEN], real[PATH_LEN];
    compiler_argv(argv, 8, buf, sizeof buf);
    out[0] = '\0';
    const char *name = argv[0];
    if (strchr(name, '/'))
        strf(path, sizeof path, "%s", name);
    else {
        const char *dirs = getenv("PATH");
        bool found = false;
        for (const char *p = dirs ? dirs : ""; *p && !found;) {
            size_t len = strcspn(p, ":");
            strf(path, sizeof path, "%.*s/%s", (int)len, p, name);
            found = access(path, X_OK) == 0;
            p += len + (p[len] == ':');
        }
        if (!found) return;
    }
    if (!realpath(path, real)) return;
    if (!strncmp(real, "/usr/", 5) || !strncmp(real, "/bin/", 5) || !strncmp(real, "/sbin/", 6)) return;
    char *slash = strrchr(real, '/');
    if (slash) *slash = '\0'; /* its folder */
    slash = strrchr(real, '/');
    if (slash && slash != real && !strcmp(slash, "/bin")) *slash = '\0'; /* and the one above bin/ */
    strf(out, size, "%s", real);
}

/* The flags as one line, to notice when they change between judge versions. */
static void flags_line(char *buf, size_t size) {
    char ccbuf[256], *argv[8];
    int n = compiler_argv(argv, 8, ccbuf, sizeof ccbuf);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++) used += (size_t)snprintf(buf + used, size - used, "%s ", argv[i]);
    for (int i = 0; COMPILE_FLAGS[i] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s ", COMPILE_FLAGS[i]);
}

/* Runs the compiler with flags, then args (NULL-terminated), under the limits of a
 * trusted build; its messages go to log. True when it succeeded. */
static bool compile_trusted(const char *const *flags, const char *const *args, const char *cwd,
                            const char *log) {
    char *argv[64], ccbuf[256];
    int n = compiler_argv(argv, 8, ccbuf, sizeof ccbuf);
    for (int i = 0; flags[i] && n < 40; i++) argv[n++] = (char *)flags[i];
    for (int i = 0; args[i] && n < 63; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    Limits lim = {.cpu_s = 120, .wall_s = 300, .output_mb = 256, .cwd = cwd, .out_path = log};
    Outcome o;
    return run_limited(argv, &lim, &o) && !o.wall_timeout && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0;
}

/* ---- staleness ----------------------------------------------------------------------------- */

/* The newest modification time of the regular files of dir whose names end in
 * suffix, leaving out the name skip (NULL: none). */
static double newest_in(const char *dir, const char *suffix, const char *skip) {
    double newest = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    size_t sl = strlen(suffix);
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < sl || strcmp(de->d_name + len - sl, suffix)) continue;
        if (skip && !strcmp(de->d_name, skip)) continue;
        char path[PATH_LEN];
        fs_join(path, sizeof path, dir, de->d_name);
        if (!fs_exists(path)) continue;
        double t = fs_mtime(path);
        if (t > newest) newest = t;
    }
    closedir(d);
    return newest;
}

static double max3(double a, double b, double c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }

/* ---- the build folder ---------------------------------------------------------------------- */

bool prepare_build(const Judge *j, TestRun *run) {
    char flags[2048], flags_path[PATH_LEN];
    flags_line(flags, sizeof flags);
    fs_join(flags_path, sizeof flags_path, j->build, "flags.txt");
    char *old = fs_read(flags_path, NULL);
    bool flags_changed = !old || strcmp(old, flags) != 0;
    free(old);
    if (flags_changed) {
        /* a different compiler or judge: nothing built before can be trusted */
        fs_remove_tree(j->build);
        if (!fs_mkdirs(j->build) || !fs_write(flags_path, flags, strlen(flags))) {
            strf(run->setup_error, sizeof run->setup_error,
                 "工作区 %s 写不进去（只读？没有权限？）：评测要在里面编译和运行", j->workspace);
            return false;
        }
    }
    return true;
}

/* The compiler's first error lines from log into run (paths relative). */
static void setup_failed(const Judge *j, TestRun *run, const char *log, const char *what) {
    strf(run->setup_error, sizeof run->setup_error, "%s（不是你的代码的问题）", what);
    keep_compiler_lines(j, log, true, NULL, run);
}

/* The exercise's files the runner half is built from: lib's ptest.h, ptest_run.h,
 * ptest.c, ptest_run.c; the .c files of tests/ but check.c; its .h files but
 * expected.h; the public headers (the .h files of the exercise folder). Copied into stage (when not NULL); returns the
 * newest modification time among them. */
static double runner_sources(const Judge *j, const Exercise *e, const char *stage, bool *ok) {
    static const char *const lib[] = {"ptest.h", "ptest_run.h", "ptest.c", "ptest_run.c"};
    char lib_dir[PATH_LEN], tests[PATH_LEN], from[PATH_LEN], to[PATH_LEN], names[32][128];
    fs_join(lib_dir, sizeof lib_dir, j->practice, "lib");
    fs_join(tests, sizeof tests, e->dir, "tests");
    double newest = 0;
    for (int i = 0; i < 4; i++) {
        fs_join(from, sizeof from, lib_dir, lib[i]);
        if (fs_mtime(from) > newest) newest = fs_mtime(from);
        if (stage) {
            fs_join(to, sizeof to, stage, lib[i]);
            *ok = fs_copy(from, to) && *ok;
        }
    }
    const struct {
        const char *dir, *suffix, *skip;
    } groups[] = {{tests, ".c", "check.c"}, {tests, ".h", "expected.h"}, {e->dir, ".h", NULL}};
    for (int g = 0; g < 3; g++) {
        int n = fs_list(groups[g].dir, groups[g].suffix, groups[g].skip, names, 32);
        for (int i = 0; i < n; i++) {
            fs_join(from, sizeof from, groups[g].dir, names[i]);
            if (fs_mtime(from) > newest) newest = fs_mtime(from);
            if (stage) {
                fs_join(to, sizeof to, stage, names[i]);
                *ok = fs_copy(from, to) && *ok;
            }
        }
    }
    return newest;
}

/* The runner's objects, rebuilt when stale: names gets the object files (in
 * build/NNN-slug/runner/). Returns how many, or −1 with run->setup_error set. */
static int build_runner(const Judge *j, const Exercise *e, char names[][128], int max, TestRun *run) {
    char dir[PATH_LEN], tests[PATH_LEN], stage[PATH_LEN], log[PATH_LEN];
    strf(dir, sizeof dir, "%s/%s/runner", j->build, e->slug);
    fs_join(tests, sizeof tests, e->dir, "tests");
    if (!fs_mkdirs(dir)) {
        strf(run->setup_error, sizeof run->setup_error,
             "工作区 %s 写不进去（只读？没有权限？）：评测要在里面编译和运行", j->workspace);
        return -1;
    }
    /* the objects: one per runner source, and the harness's two */
    char sources[32][128];
    int n_src = fs_list(tests, ".c", "check.c", sources, 30);
    if (n_src == 0) {
        strf(run->setup_error, sizeof run->setup_error, "%s/tests/ 里没有测试的运行部分（run.c）", e->slug);
        return -1;
    }
    strf(sources[n_src++], 128, "ptest.c");
    strf(sources[n_src++], 128, "ptest_run.c");
    bool stale = false, ok = true;
    double newest = runner_sources(j, e, NULL, &ok);
    for (int i = 0; i < n_src && i < max; i++) {
        char obj[PATH_LEN];
        strf(names[i], 128, "%.*s.o", (int)strlen(sources[i]) - 2, sources[i]);
        fs_join(obj, sizeof obj, dir, names[i]);
        if (fs_mtime(obj) < newest) stale = true;
    }
    if (!stale) return n_src;

    strf(stage, sizeof stage, "%s/%s/stage.XXXXXX", j->build, e->slug);
    if (!mkdtemp(stage)) {
        strf(run->setup_error, sizeof run->setup_error,
             "工作区 %s 写不进去（只读？没有权限？）：评测要在里面编译和运行", j->workspace);
        return -1;
    }
    runner_sources(j, e, stage, &ok);
    /* debug information names the tests' own folder, so that a sanitizer report points
     * at practice/NNN-slug/tests/run.c, not at the copy */
    char map[2 * PATH_LEN + 32];
    strf(map, sizeof map, "-ffile-prefix-map=%s=%s", stage, tests);
    for (int i = 0; ok && i < n_src; i++) {
        char obj[PATH_LEN], tmp[PATH_LEN + 32];
        fs_join(obj, sizeof obj, dir, names[i]);
        strf(tmp, sizeof tmp, "%s.%ld", obj, (long)getpid());
        strf(log, sizeof log, "%s/%s.log", dir, names[i]);
        const char *args[] = {map, "-c", sources[i], "-o", tmp, NULL};
        if (!compile_trusted(COMPILE_FLAGS, args, stage, log) || rename(tmp, obj) != 0) {
            unlink(tmp);
            char what[512];
            strf(what, sizeof what, "这道题的测试 %s/tests/ 的运行部分（%s）编译失败", e->slug, sources[i]);
            setup_failed(j, run, log, what);
            ok = false;
        }
    }
    if (!ok && !run->setup_error[0])
        strf(run->setup_error, sizeof run->setup_error, "复制不了 %s 的测试文件", e->slug);
    fs_remove_tree(stage);
    return ok ? n_src : -1;
}

/* The checker, rebuilt when stale, at path. False with run->setup_error set. */
static bool build_checker(const Judge *j, const Exercise *e, char *path, size_t size, TestRun *run) {
    char tests[PATH_LEN], check_c[PATH_LEN], lib_dir[PATH_LEN], log[PATH_LEN], tmp[PATH_LEN + 32];
    fs_join(tests, sizeof tests, e->dir, "tests");
    fs_join(check_c, sizeof check_c, tests, "check.c");
    fs_join(lib_dir, sizeof lib_dir, j->practice, "lib");
    strf(path, size, "%s/%s/checker", j->build, e->slug);
    if (!fs_exists(check_c)) {
        strf(run->setup_error, sizeof run->setup_error, "%s/tests/ 里没有测试的检查部分（check.c）", e->slug);
        return false;
    }
    double newest = max3(newest_in(tests, ".c", NULL), newest_in(tests, ".h", NULL), newest_in(e->dir, ".h", NULL));
    newest = max3(newest, newest_in(lib_dir, ".c", NULL), newest_in(lib_dir, ".h", NULL));
    if (fs_mtime(path) >= newest) return true;

    char inc_lib[PATH_LEN + 8], inc_ex[PATH_LEN + 8], src_check[PATH_LEN], src_lib[PATH_LEN];
    strf(inc_lib, sizeof inc_lib, "-I%s", lib_dir);
    strf(inc_ex, sizeof inc_ex, "-I%s", e->dir);
    fs_join(src_check, sizeof src_check, lib_dir, "ptest_check.c");
    fs_join(src_lib, sizeof src_lib, lib_dir, "ptest.c");
    strf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    strf(log, sizeof log, "%s/%s/checker.log", j->build, e->slug);
    const char *args[] = {inc_lib, inc_ex, check_c, src_check, src_lib, "-lm", "-o", tmp, NULL};
    if (!compile_trusted(CHECKER_FLAGS, args, NULL, log) || rename(tmp, path) != 0) {
        unlink(tmp);
        char what[512];
        strf(what, sizeof what, "这道题的测试 %s/tests/check.c 编译失败", e->slug);
        setup_failed(j, run, log, what);
        return false;
    }
    return true;
}

int build_tests(const Judge *j, const Exercise *e, char runner_objs[][128], int max, char *checker,
                size_t checker_size, TestRun *run) {
    char dir[PATH_LEN];
    strf(dir, sizeof dir, "%s/%s", j->build, e->slug);
    if (!prepare_build(j, run)) return -1;
    if (!fs_mkdirs(dir)) {
        strf(run->setup_error, sizeof run->setup_error,
             "工作区 %s 写不进去（只读？没有权限？）：评测要在里面编译和运行", j->workspace);
        return -1;
    }
    if (!build_checker(j, e, checker, checker_size, run)) return -1;
    return build_runner(j, e, runner_objs, max, run);
}

void prebuild_tests(const Judge *j, const Exercise *e) {
    TestRun run;
    memset(&run, 0, sizeof run);
    char objs[32][128], checker[PATH_LEN];
    build_tests(j, e, objs, 32, checker, sizeof checker, &run);
    free_run(&run);
}
