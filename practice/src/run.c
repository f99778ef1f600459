/* run.c — testing a learner's file against an exercise's tests.
 *
 * A test run has a scratch folder of its own, .build/NNN-slug/run.XXXXXX/, removed
 * when the run ends (so two judges at once never share a file):
 *   1. the case list comes from the checker (`checker --list`): the exercise's files,
 *      never a process that holds learner code;
 *   2. the learner's file and the exercise's public headers are copied in, and
 *      compiled and linked with copies of the runner's objects (build.c) into
 *      `runner` — the compiler confined to the scratch folder (sandbox.c), so an
 *      #include can reach only the system's headers and those copies;
 *   3. each case runs as `runner --run ID`, confined, in a process of its own, with
 *      its stdout and stderr in files and the outputs on descriptor 3 in ID.out;
 *   4. if it ended cleanly, the checker (`checker --check ID ID.out`) reads those
 *      outputs as data and decides PASS or FAIL.
 * (PRACTICE_KEEP=1 keeps the scratch folder, for a look inside.)
 * Everything under test is compiled with warnings, AddressSanitizer and UBSan, so a
 * write past the end of an array or a signed overflow is reported where it happens.
 *
 * Limits of a case: RLIMIT_CPU (CPU_LIMIT_S) and a wall-clock limit (WALL_LIMIT_S);
 * AddressSanitizer's hard_rss_limit_mb and max_allocation_size_mb for memory
 * (RLIMIT_AS cannot be used: the sanitizer reserves terabytes of address space for its
 * shadow memory); RLIMIT_FSIZE for output; no core files. The compiler runs under its
 * own limits (COMPILE_*), RLIMIT_AS included.
 */
#include "judge.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *verdict_name(Verdict v) {
    switch (v) {
    case V_PASS:
        return "通过";
    case V_WRONG:
        return "答案错误";
    case V_RUNTIME:
        return "运行错误";
    case V_TIMEOUT:
        return "超时";
    case V_COMPILE:
        return "编译错误";
    case V_SKIPPED:
        return "没有运行";
    }
    return "?";
}

/* ---- a case's lines ------------------------------------------------------------------------- */

void case_clear_lines(CaseResult *c) {
    for (int i = 0; i < c->n_lines; i++) free(c->lines[i]);
    free(c->lines);
    c->lines = NULL;
    c->n_lines = 0;
}

void case_add_line(CaseResult *c, const char *text) {
    if (c->n_lines >= 24) return;
    char **grown = realloc(c->lines, (size_t)(c->n_lines + 1) * sizeof *grown);
    if (!grown) return;
    c->lines = grown;
    char buf[2048];
    escape_text(buf, sizeof buf, text);
    c->lines[c->n_lines++] = strdup(buf);
}

static void case_message(CaseResult *c, const char *text) { escape_text(c->message, sizeof c->message, text); }

/* ---- the compiler's messages ---------------------------------------------------------------- */

/* line with "from:" at its start (or after "from ") written "to:" — the scratch
 * folder's copy named as the learner knows it. */
static void rename_in_line(char *line, size_t size, const char *from, const char *to) {
    char key[PATH_LEN], with[PATH_LEN];
    strf(key, sizeof key, "%s:", from);
    strf(with, sizeof with, "%s:", to);
    size_t kl = strlen(key), wl = strlen(with);
    for (char *p = line; (p = strstr(p, key));) {
        bool at_start = p == line || p[-1] == ' ';
        size_t tail = strlen(p + kl);
        if (!at_start || (size_t)(p - line) + wl + tail + 1 > size) {
            p += kl;
            continue;
        }
        memmove(p + wl, p + kl, tail + 1);
        memcpy(p, with, wl);
        p += wl;
    }
}

void keep_compiler_lines(const Judge *j, const char *log_path, bool want_error, const char *const *names,
                         TestRun *run) {
    char *log = fs_read_max(log_path, (size_t)1 << 20, NULL);
    if (!log) return;
    char **lines;
    int n = split_lines(log, &lines);
    int first = -1;
    for (int i = 0; i < n; i++) {
        if (strstr(lines[i], "warning: ")) run->n_warnings++;
        if (first >= 0) continue;
        bool is_error = strstr(lines[i], "error: ") || strstr(lines[i], "undefined reference to") ||
                        strstr(lines[i], "multiple definition of") || strstr(lines[i], "fatal error");
        if (want_error ? is_error : strstr(lines[i], "warning: ") != NULL) first = i;
    }
    if (want_error && first < 0 && n > 0) first = 0; /* no "error:" line: show the start */
    if (first >= 0) {
        /* the "In function" line before the error, then the error and its context */
        int from = first > 0 && strstr(lines[first - 1], "In function") ? first - 1 : first;
        for (int i = from; i < n && run->n_compile_lines < 7; i++) {
            bool context = i == from || i == first || strncmp(lines[i], "  ", 2) == 0 || lines[i][0] == ' ' ||
                           (lines[i][0] >= '0' && lines[i][0] <= '9');
            if (i > first && !context) break;
            if (i > first && (strstr(lines[i], "error: ") || strstr(lines[i], "warning: "))) break;
            char buf[2048];
            strf(buf, sizeof buf, "%s", lines[i]);
            if (names) rename_in_line(buf, sizeof buf, names[0], names[1]);
            relativize(j, buf, sizeof buf);
            add_compile_line(run, buf);
        }
    }
    free(lines);
    free(log);
}

void add_compile_line(TestRun *run, const char *text) {
    if (run->n_compile_lines >= 8) return;
    char **grown = realloc(run->compile_lines, (size_t)(run->n_compile_lines + 1) * sizeof *grown);
    if (!grown) return;
    run->compile_lines = grown;
    char buf[2048];
    escape_text(buf, sizeof buf, text);
    run->compile_lines[run->n_compile_lines++] = strdup(buf);
}

/* ---- the learner's file ---------------------------------------------------------------------- */

/* The name of the learner's file in the scratch folder: its own (so that messages read
 * as the learner knows it), unless that is not a plain "name.c" or is taken by a file
 * the run needs; then the starter's name. */
static void scratch_name(const Exercise *e, const char *file, char *out, size_t size) {
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t len = strlen(base);
    bool plain = len > 2 && len < 100 && !strcmp(base + len - 2, ".c") && base[0] != '.';
    for (size_t i = 0; plain && i < len; i++)
        plain = (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= 'A' && base[i] <= 'Z') ||
                (base[i] >= '0' && base[i] <= '9') || base[i] == '_' || base[i] == '-' || base[i] == '.';
    if (plain && (!strncmp(base, "ptest", 5) || !strcmp(base, "run.c") || !strcmp(base, "check.c")))
        plain = false; /* the runner's own sources are in the scratch folder as objects */
    strf(out, size, "%s", plain ? base : e->file);
}

/* Copies the public headers (*.h of the exercise folder) into dir. */
static bool copy_headers(const Exercise *e, const char *dir) {
    char names[16][128];
    int n = fs_list(e->dir, ".h", NULL, names, 16);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        char from[PATH_LEN], to[PATH_LEN];
        fs_join(from, sizeof from, e->dir, names[i]);
        fs_join(to, sizeof to, dir, names[i]);
        ok = fs_copy(from, to) && ok;
    }
    return ok;
}

/* A program stopped at the wall-clock limit either waited (for a sleep, a read that never
 * ends: it used almost no CPU) or computed on a machine too busy to let it reach its CPU
 * limit in time. It counts as computing when it had the CPU for a tenth of the wall time. */
static bool computed_until_wall(const Outcome *o, int wall_s) {
    return o->wall_timeout && o->cpu_ms >= wall_s * 1000.0 / 10;
}

/* Why a compile stopped at a limit (written into why), or false when it did not. */
static bool compile_limit(const Outcome *o, const char *log_path, char *why, size_t size) {
    if (computed_until_wall(o, COMPILE_WALL_S))
        return strf(why, size,
                    "编译了 " STR(COMPILE_WALL_S) " 秒还没结束（wall-clock limit），其中编译器在算的时间有 "
                    "%.1f 秒（机器很忙，CPU 时间还没到 " STR(COMPILE_CPU_S) " 秒的上限）：宏展开得太多？",
                    o->cpu_ms / 1e3);
    if (o->wall_timeout)
        return strf(why, size, "%s",
                    "编译了 " STR(COMPILE_WALL_S) " 秒还没结束（wall-clock limit），编译器几乎一直在等："
                    "#include 了一个读不完的文件（比如 FIFO）？");
    int sig = WIFSIGNALED(o->status) ? WTERMSIG(o->status) : 0;
    char *log = fs_read_max(log_path, (size_t)1 << 20, NULL);
    const char *limit = NULL;
    if (sig == SIGXCPU || (log && strstr(log, "CPU time limit exceeded")))
        limit = "编译器的 CPU 时间超过 " STR(COMPILE_CPU_S) " 秒（time limit）：宏展开得太多？";
    else if (log && (strstr(log, "out of memory") || strstr(log, "memory exhausted") ||
                     strstr(log, "Cannot allocate memory") || strstr(log, "std::bad_alloc")))
        limit = "编译器用了超过 " STR(COMPILE_MEMORY_MB) " MB 内存（memory limit）：#include 了很大的文件，"
                "或者宏展开得太多？";
    else if (sig == SIGXFSZ || (log && strstr(log, "File size limit exceeded")))
        limit = "编译器写出的东西超过 " STR(COMPILE_OUTPUT_MB) " MB（output limit）";
    free(log);
    return limit && strf(why, size, "%s", limit);
}

/* Compiles and links file with the runner's objects into scratch/runner, confined to
 * the scratch folder. False with run's verdict and lines set. */
static bool compile_learner(const Judge *j, const Exercise *e, const char *file, const char *scratch,
                            char objs[][128], int n_objs, TestRun *run) {
    char name[128], copy[PATH_LEN], dir[PATH_LEN], rel[PATH_LEN], map[2 * PATH_LEN + 32], log[PATH_LEN];
    scratch_name(e, file, name, sizeof name);
    fs_join(copy, sizeof copy, scratch, name);
    strf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    rel_path(j, file, rel, sizeof rel);
    /* debug information names the learner's own folder, so that a sanitizer report
     * points at the learner's file */
    strf(map, sizeof map, "-ffile-prefix-map=%s=%s", scratch, dir);
    fs_join(log, sizeof log, scratch, "compile.log");

    char *argv[96], ccbuf[256];
    int n = compiler_argv(argv, 8, ccbuf, sizeof ccbuf);
    for (int i = 0; COMPILE_FLAGS[i]; i++) argv[n++] = (char *)COMPILE_FLAGS[i];
    argv[n++] = map;
    argv[n++] = "-x";
    argv[n++] = "c";
    argv[n++] = name;
    argv[n++] = "-x";
    argv[n++] = "none";
    for (int i = 0; i < n_objs && n < 88; i++) argv[n++] = objs[i];
    argv[n++] = "-lm";
    argv[n++] = "-o";
    argv[n++] = "runner";
    argv[n] = NULL;

    char home[PATH_LEN], tmpdir[PATH_LEN + 8];
    compiler_home(home, sizeof home);
    strf(tmpdir, sizeof tmpdir, "TMPDIR=%s", scratch);
    Limits lim = {.cpu_s = COMPILE_CPU_S,
                  .wall_s = COMPILE_WALL_S,
                  .memory_mb = COMPILE_MEMORY_MB,
                  .output_mb = COMPILE_OUTPUT_MB,
                  .confine = true,
                  .scratch = scratch,
                  .read_extra = {home[0] ? home : NULL},
                  .cwd = scratch,
                  .out_path = log,
                  .env = {tmpdir}};
    Outcome o;
    double t0 = now_s();
    bool started = fs_copy(file, copy) && run_limited(argv, &lim, &o);
    run->compile_s = now_s() - t0;
    const char *names[2] = {name, rel};
    if (!started) {
        strf(run->setup_error, sizeof run->setup_error, "评测机运行不了编译器（%s）", o.error[0] ? o.error : "复制失败");
        return false;
    }
    if (!o.wall_timeout && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) {
        keep_compiler_lines(j, log, false, names, run);
        return true;
    }
    char limit[512];
    if (compile_limit(&o, log, limit, sizeof limit)) add_compile_line(run, limit);
    keep_compiler_lines(j, log, true, names, run);
    for (int i = 0; i < run->n_compile_lines; i++)
        if (strstr(run->compile_lines[i], "Permission denied")) {
            add_compile_line(run, "（评测时，编译器只读得到系统的头文件和这道题公开的头文件）");
            break;
        }
    return false;
}

/* ---- one case ---------------------------------------------------------------------------- */

/* The verdict lines of the checker (ptest_check.h) into c; false when there were none. */
static bool read_verdict(const char *path, CaseResult *c) {
    char *text = fs_read_max(path, (size_t)1 << 20, NULL);
    if (!text) return false;
    char **lines;
    int n = split_lines(text, &lines);
    bool decided = false;
    for (int i = 0; i < n && !decided; i++) {
        if (!strcmp(lines[i], "PASS")) {
            c->v = V_PASS;
            decided = true;
        } else if (!strncmp(lines[i], "FAIL ", 5)) {
            c->v = V_WRONG;
            case_message(c, lines[i] + 5);
            for (int k = i + 1; k < n && !strncmp(lines[k], "NOTE ", 5); k++) case_add_line(c, lines[k] + 5);
            decided = true;
        } else if (!strncmp(lines[i], "BROKEN ", 7)) {
            c->v = V_RUNTIME;
            char msg[1024];
            strf(msg, sizeof msg, "测试程序交回结果的通道（文件描述符 3）被改动了：%s", lines[i] + 7);
            case_message(c, msg);
            decided = true;
        }
    }
    free(lines);
    free(text);
    return decided;
}

/* The first line of what the case printed on stdout. */
static void first_line_of(const char *path, CaseResult *c) {
    char *text = fs_read_max(path, 255, NULL);
    if (!text) return;
    text[strcspn(text, "\r\n")] = '\0';
    escape_text(c->first_out, sizeof c->first_out, text);
    free(text);
}

/* Whether the outputs end with the harness's end mark: the case's function returned. */
static bool ends_with_end_mark(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    bool ended = fseek(f, -1, SEEK_END) == 0 && fgetc(f) == 'E'; /* PT_END in practice/lib/ptest.h */
    fclose(f);
    return ended;
}

/* A file of a case in the scratch folder: ID.stdout, ID.stderr, ID.out, ID.verdict. */
static void case_paths(const char *scratch, const char *id, const char *ext, char *out, size_t size) {
    strf(out, size, "%s/%s.%s", scratch, id, ext);
}

static void run_case(const Judge *j, const char *scratch, const char *checker, const char *learner_file,
                     CaseResult *c) {
    char out_path[PATH_LEN], err_path[PATH_LEN], res_path[PATH_LEN], ver_path[PATH_LEN], runner[PATH_LEN];
    case_paths(scratch, c->id, "stdout", out_path, sizeof out_path);
    case_paths(scratch, c->id, "stderr", err_path, sizeof err_path);
    case_paths(scratch, c->id, "out", res_path, sizeof res_path);
    case_paths(scratch, c->id, "verdict", ver_path, sizeof ver_path);
    fs_join(runner, sizeof runner, scratch, "runner");

    static char asan[320], tmpdir[PATH_LEN + 8];
    strf(asan, sizeof asan,
         "ASAN_OPTIONS=hard_rss_limit_mb=%d:max_allocation_size_mb=%d:allocator_may_return_null=0:"
         "detect_leaks=1:quarantine_size_mb=64:color=never:abort_on_error=0:handle_abort=1:"
         "disable_coredump=1:exitcode=%d",
         MEMORY_LIMIT_MB, MEMORY_LIMIT_MB, SANITIZER_EXIT);
    strf(tmpdir, sizeof tmpdir, "TMPDIR=%s", scratch);
    Limits lim = {.cpu_s = CPU_LIMIT_S,
                  .wall_s = WALL_LIMIT_S,
                  .output_mb = OUTPUT_LIMIT_MB,
                  .confine = true,
                  .proc = true,
                  .scratch = scratch,
                  .cwd = scratch,
                  .out_path = out_path,
                  .err_path = err_path,
                  .fd3_path = res_path,
                  .env = {asan,
                          "UBSAN_OPTIONS=print_stacktrace=1:color=never:halt_on_error=1:exitcode=" STR(
                              SANITIZER_EXIT),
                          "LSAN_OPTIONS=color=never:exitcode=" STR(SANITIZER_EXIT), tmpdir}};
    char *argv[] = {runner, "--run", c->id, NULL};
    Outcome o;
    if (!run_limited(argv, &lim, &o)) {
        c->v = V_RUNTIME;
        char msg[512];
        strf(msg, sizeof msg, "评测机开不了用例的进程（%s）", o.error);
        case_message(c, msg);
        return;
    }
    c->ms = o.cpu_ms;
    c->out_bytes = fs_size(out_path);
    if (c->out_bytes > 0) first_line_of(out_path, c);

    int sig = WIFSIGNALED(o.status) ? WTERMSIG(o.status) : 0;
    if (o.wall_timeout || sig == SIGXCPU || (sig == SIGKILL && c->ms >= CPU_LIMIT_S * 1000.0)) {
        c->v = V_TIMEOUT;
        if (!o.wall_timeout || c->ms >= CPU_LIMIT_S * 1000.0)
            case_message(c, "CPU 时间超过 " STR(CPU_LIMIT_S) " 秒（time limit）——是不是有死循环？");
        else if (computed_until_wall(&o, WALL_LIMIT_S)) {
            char msg[256];
            strf(msg, sizeof msg,
                 "运行了 " STR(WALL_LIMIT_S) " 秒还没结束，其中在算的时间有 %.1f 秒（机器很忙，CPU 时间"
                 "还没到 " STR(CPU_LIMIT_S) " 秒的上限）——是不是有死循环？",
                 c->ms / 1e3);
            case_message(c, msg);
        } else
            case_message(c, "运行了 " STR(WALL_LIMIT_S) " 秒还没结束，几乎一直在等（sleep、读 stdin？）");
        return;
    }
    /* a sanitizer report decides first: a crash may also have left wrong values */
    size_t err_len = 0;
    char *err = fs_read_max(err_path, (size_t)OUTPUT_LIMIT_MB << 20, &err_len);
    int code = WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1;
    if (err) {
        c->err_bytes = (long long)err_len;
        CaseResult probe;
        memset(&probe, 0, sizeof probe);
        if (parse_sanitizer(j, err, learner_file, &probe)) {
            case_clear_lines(c);
            c->lines = probe.lines;
            c->n_lines = probe.n_lines;
            case_message(c, probe.message);
            c->v = V_RUNTIME;
            c->err_bytes = 0;
            free(err);
            return;
        }
    }
    if (sig) {
        const char *desc = describe_signal(sig);
        char msg[256];
        strf(msg, sizeof msg, "被信号 %d（%s）结束", sig, strsignal(sig));
        c->v = V_RUNTIME;
        case_message(c, desc ? desc : msg);
    } else if (code != 0) {
        char msg[512];
        const char *harness = err ? strstr(err, "ptest: ") : NULL;
        if (code == SANITIZER_EXIT)
            strf(msg, sizeof msg, "sanitizer 发现了错误，可是它的报告没有写出来（stderr 被关掉了？）");
        else if (code == HARNESS_EXIT && harness)
            strf(msg, sizeof msg, "测试程序出错了：%.*s", (int)strcspn(harness + 7, "\n"), harness + 7);
        else if (code == 126 || code == 127)
            strf(msg, sizeof msg, "评测机运行不了测试程序（exit %d）", code);
        else
            strf(msg, sizeof msg, "程序提前退出了（exit %d），用例没有跑完——你的代码调用了 exit()？", code);
        c->v = V_RUNTIME;
        case_message(c, msg);
    } else if (!ends_with_end_mark(res_path)) {
        c->v = V_RUNTIME;
        case_message(c, "程序提前退出了（exit 0），用例没有跑完——你的代码调用了 exit()？");
    } else {
        /* it ended cleanly: the checker decides */
        char *check_argv[] = {(char *)checker, "--check", c->id, res_path, NULL};
        Limits clim = {.cpu_s = CHECK_CPU_S,
                       .wall_s = CHECK_WALL_S,
                       .memory_mb = CHECK_MEMORY_MB,
                       .output_mb = 4,
                       .confine = true,
                       .read_extra = {checker, res_path},
                       .out_path = ver_path};
        Outcome co;
        if (!run_limited(check_argv, &clim, &co) || !read_verdict(ver_path, c)) {
            c->v = V_RUNTIME;
            case_message(c, "检查结果的程序没有给出结论（不是你的代码的问题：请报告这道题的测试）");
        }
    }
    free(err);
}

/* ---- a whole run --------------------------------------------------------------------------- */

/* id is one of the words of list. */
static bool in_list(const char *list, const char *id) {
    size_t len = strlen(id);
    for (const char *p = list; (p = strstr(p, id)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return true;
    return false;
}

/* The cases, from the checker's --list. False with run->setup_error set. */
static bool list_cases(const Exercise *e, const char *checker, const char *scratch, TestRun *run) {
    char list_path[PATH_LEN];
    fs_join(list_path, sizeof list_path, scratch, "cases.txt");
    char *argv[] = {(char *)checker, "--list", NULL};
    Limits lim = {.cpu_s = CHECK_CPU_S,
                  .wall_s = CHECK_WALL_S,
                  .memory_mb = CHECK_MEMORY_MB,
                  .output_mb = 1,
                  .confine = true,
                  .read_extra = {checker},
                  .out_path = list_path};
    Outcome o;
    if (!run_limited(argv, &lim, &o) || o.wall_timeout || !WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0) {
        strf(run->setup_error, sizeof run->setup_error, "%s 的测试列不出用例（checker --list 失败）", e->slug);
        return false;
    }
    char *list = fs_read_max(list_path, (size_t)1 << 20, NULL);
    char **lines = NULL;
    int n = list ? split_lines(list, &lines) : 0;
    if (n > MAX_CASES) n = MAX_CASES;
    run->cases = calloc(n ? (size_t)n : 1, sizeof *run->cases);
    for (int i = 0; i < n && run->cases; i++) {
        CaseResult *c = &run->cases[run->total];
        char *tab = strchr(lines[i], '\t');
        if (!tab || tab == lines[i] || (size_t)(tab - lines[i]) >= sizeof c->id) continue;
        *tab = '\0';
        strf(c->id, sizeof c->id, "%s", lines[i]);
        strf(c->title, sizeof c->title, "%s", tab + 1);
        run->total++;
    }
    free(lines);
    free(list);
    if (run->total == 0) {
        strf(run->setup_error, sizeof run->setup_error, "%s 的测试里没有用例", e->slug);
        return false;
    }
    return true;
}

void run_tests(const Judge *j, const Exercise *e, const char *file, const char *only, TestRun *run) {
    memset(run, 0, sizeof *run);
    run->verdict = V_COMPILE;
    char objs[32][128], checker[PATH_LEN], scratch[PATH_LEN];
    int n_objs = build_tests(j, e, objs, 32, checker, sizeof checker, run);
    if (n_objs < 0) return;

    strf(scratch, sizeof scratch, "%s/%s/run.XXXXXX", j->build, e->slug);
    if (!mkdtemp(scratch)) {
        strf(run->setup_error, sizeof run->setup_error,
             "工作区 %s 写不进去（只读？没有权限？）：评测要在里面编译和运行", j->workspace);
        return;
    }
    /* the runner's objects and the public headers, beside the learner's file */
    bool ok = copy_headers(e, scratch);
    for (int i = 0; i < n_objs; i++) {
        char from[PATH_LEN], to[PATH_LEN];
        strf(from, sizeof from, "%s/%s/runner/%s", j->build, e->slug, objs[i]);
        fs_join(to, sizeof to, scratch, objs[i]);
        ok = fs_copy(from, to) && ok;
    }
    if (!ok) {
        strf(run->setup_error, sizeof run->setup_error, "复制不了测试文件到 %s", scratch);
    } else if (list_cases(e, checker, scratch, run) &&
               compile_learner(j, e, file, scratch, objs, n_objs, run)) {
        run->verdict = V_PASS;
        bool timed_out = false;
        for (int i = 0; i < run->total; i++) {
            CaseResult *c = &run->cases[i];
            if (timed_out || (only && !in_list(only, c->id))) {
                c->v = V_SKIPPED;
                continue;
            }
            run_case(j, scratch, checker, file, c);
            if (c->v == V_PASS)
                run->passed++;
            else if (run->verdict == V_PASS)
                run->verdict = c->v;
            /* one endless loop is enough: the others would each wait out the limit too */
            if (c->v == V_TIMEOUT) timed_out = true;
        }
    }
    if (!getenv("PRACTICE_KEEP")) fs_remove_tree(scratch);
}

void free_run(TestRun *run) {
    for (int i = 0; i < run->n_compile_lines; i++) free(run->compile_lines[i]);
    free(run->compile_lines);
    for (int i = 0; run->cases && i < run->total; i++) case_clear_lines(&run->cases[i]);
    free(run->cases);
    memset(run, 0, sizeof *run);
}
