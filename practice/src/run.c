/* run.c — compiling a learner's file against an exercise's tests, and running each
 * test case in a process of its own.
 *
 * The build, in the workspace's .build/ folder:
 *   ptest.o                      the harness (practice/lib/ptest.c), built once
 *   NNN-slug/tests/NAME.o         the exercise's tests, rebuilt when they change
 *   NNN-slug/TAG                 the learner's file + the two above, linked; TAG is
 *                                "learner", or "reference", "starter", ... for check
 * Everything is compiled with warnings, AddressSanitizer and UBSan, so a write past
 * the end of an array or a signed overflow is reported where it happens instead of
 * silently changing the numbers.
 *
 * Each case runs as `TAG --run ID` in a fresh process with
 *   - RLIMIT_CPU (CPU_LIMIT_S) and a wall-clock limit (WALL_LIMIT_S): endless loops end;
 *   - AddressSanitizer's hard_rss_limit_mb and max_allocation_size_mb: runaway
 *     allocation ends (RLIMIT_AS cannot be used: the sanitizer reserves terabytes
 *     of address space for its shadow memory);
 *   - RLIMIT_FSIZE: endless printing ends; no core files;
 *   - stdout and stderr in files, and the harness's report on a file descriptor of
 *     its own, so nothing the learner prints can garble the report.
 */
#include "judge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What every file is compiled with (judge.h). */
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

/* ---- the compiler ---------------------------------------------------------------------- */

/* The compiler command: $CC split at spaces (so "ccache gcc" works), or cc. */
static int compiler_argv(char **argv, int max, char *buf, size_t size) {
    const char *cc = getenv("CC");
    strf(buf, size, "%s", cc && *cc ? cc : "cc");
    int n = 0;
    for (char *tok = strtok(buf, " \t"); tok && n < max; tok = strtok(NULL, " \t")) argv[n++] = tok;
    if (n == 0) argv[n++] = "cc";
    return n;
}

/* Runs the compiler on the given extra arguments; the log goes to log_path. */
static int compile(const Judge *j, const Exercise *e, const char *const *args, const char *log_path) {
    char *argv[96], ccbuf[256], inc_ex[PATH_LEN + 2], inc_lib[PATH_LEN + 8];
    int n = compiler_argv(argv, 8, ccbuf, sizeof ccbuf);
    for (int i = 0; COMPILE_FLAGS[i]; i++) argv[n++] = (char *)COMPILE_FLAGS[i];
    if (e) {
        strf(inc_ex, sizeof inc_ex, "-I%s", e->dir);
        argv[n++] = inc_ex;
    }
    strf(inc_lib, sizeof inc_lib, "-I%s/lib", j->practice);
    argv[n++] = inc_lib;
    for (int i = 0; args[i] && n < 94; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return run_command(argv, log_path);
}

/* The flags as one line, to notice when they change between judge versions. */
static void flags_line(char *buf, size_t size) {
    char ccbuf[256], *argv[8];
    int n = compiler_argv(argv, 8, ccbuf, sizeof ccbuf);
    size_t used = 0;
    for (int i = 0; i < n; i++) used += (size_t)snprintf(buf + used, size - used, "%s ", argv[i]);
    for (int i = 0; COMPILE_FLAGS[i] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s ", COMPILE_FLAGS[i]);
}

/* The newest modification time of the regular files of a folder (optionally only *.h). */
static double newest_in(const char *dir, bool headers_only) {
    double newest = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.') continue;
        if (headers_only && (len < 2 || strcmp(de->d_name + len - 2, ".h"))) continue;
        char path[PATH_LEN];
        path_join(path, sizeof path, dir, de->d_name);
        if (!file_exists(path)) continue;
        double t = mtime_of(path);
        if (t > newest) newest = t;
    }
    closedir(d);
    return newest;
}

/* Keeps the first relevant lines of a compiler log: the first error (or, without
 * want_error, the first warning) and the lines after it that belong to it (the
 * source line and the caret), paths made relative. Counts the warnings. */
static void keep_compiler_lines(const Judge *j, const char *log_path, bool want_error, TestRun *run) {
    char *log = read_file(log_path, NULL);
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
        run->compile_lines = calloc(8, sizeof(char *));
        for (int i = from; i < n && run->compile_lines && run->n_compile_lines < 7; i++) {
            bool context = i == from || i == first || strncmp(lines[i], "  ", 2) == 0 || lines[i][0] == ' ' ||
                           (lines[i][0] >= '0' && lines[i][0] <= '9');
            if (i > first && !context) break;
            if (i > first && (strstr(lines[i], "error: ") || strstr(lines[i], "warning: "))) break;
            char buf[2048];
            strf(buf, sizeof buf, "%s", lines[i]);
            relativize(j, buf, sizeof buf);
            run->compile_lines[run->n_compile_lines++] = strdup(buf);
        }
    }
    free(lines);
    free(log);
}

/* The build folder and ptest.o: wiped when the compiler flags changed, ptest.o rebuilt
 * when stale. False with run->setup_error set. */
bool prepare_build(const Judge *j, TestRun *run) {
    char flags[2048], flags_path[PATH_LEN], lib_c[PATH_LEN], lib_h[PATH_LEN], lib_o[PATH_LEN];
    flags_line(flags, sizeof flags);
    path_join(flags_path, sizeof flags_path, j->build, "flags.txt");
    char *old = read_file(flags_path, NULL);
    bool flags_changed = !old || strcmp(old, flags) != 0;
    free(old);
    if (flags_changed) {
        /* a different compiler or judge: nothing built before can be trusted */
        remove_tree(j->build);
        if (!mkdirs(j->build) || !write_file(flags_path, flags, strlen(flags))) {
            strf(run->setup_error, sizeof run->setup_error, "建不了编译目录 %s", j->build);
            return false;
        }
    }
    strf(lib_c, sizeof lib_c, "%s/lib/ptest.c", j->practice);
    strf(lib_h, sizeof lib_h, "%s/lib/ptest.h", j->practice);
    path_join(lib_o, sizeof lib_o, j->build, "ptest.o");
    double lib_time = mtime_of(lib_h) > mtime_of(lib_c) ? mtime_of(lib_h) : mtime_of(lib_c);
    char log[PATH_LEN];
    if (mtime_of(lib_o) < lib_time) {
        char tmp[PATH_LEN];
        strf(tmp, sizeof tmp, "%s.%ld", lib_o, (long)getpid());
        path_join(log, sizeof log, j->build, "ptest.log");
        const char *args[] = {"-c", lib_c, "-o", tmp, NULL};
        if (compile(j, NULL, args, log) != 0 || rename(tmp, lib_o) != 0) {
            unlink(tmp);
            strf(run->setup_error, sizeof run->setup_error,
                 "测试框架 practice/lib/ptest.c 编译失败（不是你的代码的问题）");
            keep_compiler_lines(j, log, true, run);
            return false;
        }
    }
    return true;
}

/* The exercise's test objects, rebuilt when stale; objs gets ptest.o and them.
 * Returns how many, or −1 with run->setup_error set. */
static int build_tests(const Judge *j, const Exercise *e, char objs[][PATH_LEN], int max, TestRun *run) {
    if (!prepare_build(j, run)) return -1;
    char lib_h[PATH_LEN], lib_o[PATH_LEN], log[PATH_LEN];
    strf(lib_h, sizeof lib_h, "%s/lib/ptest.h", j->practice);
    path_join(lib_o, sizeof lib_o, j->build, "ptest.o");
    int n = 0;
    strf(objs[n++], PATH_LEN, "%s", lib_o);

    char tests_dir[PATH_LEN], out_dir[PATH_LEN];
    path_join(tests_dir, sizeof tests_dir, e->dir, "tests");
    strf(out_dir, sizeof out_dir, "%s/%s/tests", j->build, e->slug);
    if (!mkdirs(out_dir)) {
        strf(run->setup_error, sizeof run->setup_error, "建不了编译目录 %s", out_dir);
        return -1;
    }
    double deps = newest_in(tests_dir, false);
    double headers = newest_in(e->dir, true);
    if (headers > deps) deps = headers;
    if (mtime_of(lib_h) > deps) deps = mtime_of(lib_h);
    DIR *d = opendir(tests_dir);
    if (!d) {
        strf(run->setup_error, sizeof run->setup_error, "%s 没有 tests/ 文件夹", e->slug);
        return -1;
    }
    struct dirent *de;
    char names[16][256];
    int n_names = 0;
    while ((de = readdir(d)) && n_names < 16) {
        size_t len = strlen(de->d_name);
        if (len > 2 && len < 200 && !strcmp(de->d_name + len - 2, ".c") && de->d_name[0] != '.')
            strf(names[n_names++], 256, "%s", de->d_name);
    }
    closedir(d);
    for (int i = 0; i < n_names && n < max; i++) {
        char src[PATH_LEN], obj[PATH_LEN], tmp[PATH_LEN];
        path_join(src, sizeof src, tests_dir, names[i]);
        strf(obj, sizeof obj, "%s/%.*s.o", out_dir, (int)strlen(names[i]) - 2, names[i]);
        if (mtime_of(obj) < deps) {
            strf(tmp, sizeof tmp, "%s.%ld", obj, (long)getpid());
            strf(log, sizeof log, "%s/%s.log", out_dir, names[i]);
            const char *args[] = {"-c", src, "-o", tmp, NULL};
            if (compile(j, e, args, log) != 0 || rename(tmp, obj) != 0) {
                unlink(tmp);
                strf(run->setup_error, sizeof run->setup_error,
                     "这道题的测试 %s/tests/%s 编译失败（不是你的代码的问题）", e->slug, names[i]);
                keep_compiler_lines(j, log, true, run);
                return -1;
            }
        }
        strf(objs[n++], PATH_LEN, "%s", obj);
    }
    if (n_names == 0) {
        strf(run->setup_error, sizeof run->setup_error, "%s/tests/ 里没有 .c 文件", e->slug);
        return -1;
    }
    return n;
}

void prebuild_tests(const Judge *j, const Exercise *e) {
    TestRun run;
    memset(&run, 0, sizeof run);
    char objs[18][PATH_LEN];
    build_tests(j, e, objs, 18, &run);
    free_run(&run);
}

/* ---- one case ---------------------------------------------------------------------------- */

/* Forgets a case's detail lines (a verdict that replaces what was read so far). */
static void clear_lines(CaseResult *c) {
    for (int i = 0; i < c->n_lines; i++) free(c->lines[i]);
    free(c->lines);
    c->lines = NULL;
    c->n_lines = 0;
}

static void add_line(CaseResult *c, const char *text) {
    if (c->n_lines >= 24) return;
    char **grown = realloc(c->lines, (size_t)(c->n_lines + 1) * sizeof *grown);
    if (!grown) return;
    c->lines = grown;
    c->lines[c->n_lines++] = strdup(text);
}

static bool runtime_frame(const char *line) {
    return strstr(line, "libsanitizer") || strstr(line, "/asan_") || strstr(line, "/ubsan_") ||
           strstr(line, "/lib/x86_64-linux-gnu/") || strstr(line, "(/lib") || strstr(line, "(/usr/lib") ||
           strstr(line, "libc_start") || strstr(line, "in _start") || strstr(line, "<null>");
}

/* "    #3 0x55d0c1 in rmsnorm /abs/ws/231-rmsnorm.c:12" → "rmsnorm (ws/231-rmsnorm.c:12)". */
static bool frame_text(const Judge *j, const char *line, char *out, size_t size) {
    const char *p = line;
    while (*p == ' ') p++;
    if (*p != '#') return false;
    const char *in = strstr(p, " in ");
    if (!in) return false;
    char buf[2048];
    strf(buf, sizeof buf, "%s", in + 4);
    relativize(j, buf, sizeof buf);
    char *space = strchr(buf, ' ');
    if (space) {
        *space = '\0';
        strf(out, size, "在 %s（%s）", buf, space + 1);
    } else
        strf(out, size, "在 %s", buf);
    return true;
}

/* The sanitizer's kind of error, in the book's words. */
static const char *describe_asan(const char *kind) {
    static const struct {
        const char *key, *text;
    } table[] = {
        {"heap-buffer-overflow", "越界访问 heap-buffer-overflow：读写超出了数组的末尾（或开头）"},
        {"stack-buffer-overflow", "越界访问 stack-buffer-overflow：读写超出了局部数组"},
        {"global-buffer-overflow", "越界访问 global-buffer-overflow：读写超出了全局数组"},
        {"heap-use-after-free", "释放后使用 use-after-free：用了已经 free 的内存"},
        {"double-free", "重复释放 double-free：同一块内存 free 了两次"},
        {"bad-free", "释放了不是 malloc 来的指针 bad-free"},
        {"SEGV", "段错误 SEGV：访问了不能访问的地址（空指针？没有分配的数组？）"},
        {"stack-overflow", "栈溢出 stack-overflow：递归太深，或者局部数组太大"},
        {"FPE", "算术异常 FPE：整数除以 0？"},
        {"stack-use-after-return", "用了已经返回的函数的局部变量 stack-use-after-return"},
        {"dynamic-stack-buffer-overflow", "越界访问 dynamic-stack-buffer-overflow：读写超出了变长数组"},
        {"alloc-dealloc-mismatch", "分配和释放不配对 alloc-dealloc-mismatch"},
        {"memcpy-param-overlap", "memcpy 的源和目标重叠 memcpy-param-overlap（用 memmove）"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strstr(kind, table[i].key)) return table[i].text;
    return NULL;
}

static const char *describe_signal(int sig) {
    switch (sig) {
    case SIGSEGV:
        return "段错误 SIGSEGV：访问了不能访问的地址";
    case SIGBUS:
        return "总线错误 SIGBUS：地址没有对齐，或者文件映射出错";
    case SIGFPE:
        return "算术异常 SIGFPE：整数除以 0？";
    case SIGABRT:
        return "程序中止 SIGABRT（abort 或 assert 失败）";
    case SIGILL:
        return "非法指令 SIGILL";
    case SIGXFSZ:
        return "输出太多：超过 " STR(OUTPUT_LIMIT_MB) " MB（output limit），是不是在循环里打印？";
    case SIGPIPE:
        return "SIGPIPE：往已经关闭的管道里写";
    }
    return NULL;
}

/* Reads the sanitizer report in err (if any) into c; true when there was one. */
static bool parse_sanitizer(const Judge *j, char *err, const char *learner_file, CaseResult *c) {
    char **lines;
    int n = split_lines(err, &lines);
    int at = -1;
    enum { NONE, MEMORY, ASAN, LEAK, UB } kind = NONE;
    for (int i = 0; i < n && kind == NONE; i++) {
        const char *l = lines[i];
        if (strstr(l, "hard rss limit exhausted") || strstr(l, "allocation-size-too-big") ||
            strstr(l, "requested allocation size") || strstr(l, "out-of-memory") ||
            strstr(l, "allocator is out of memory") || strstr(l, "rss-limit-exceeded") ||
            strstr(l, "calloc-overflow") || strstr(l, "malloc limit"))
            kind = MEMORY, at = i;
        else if (strstr(l, "ERROR: AddressSanitizer:"))
            kind = ASAN, at = i;
        else if (strstr(l, "ERROR: LeakSanitizer:"))
            kind = LEAK, at = i;
        else if (strstr(l, ": runtime error: "))
            kind = UB, at = i;
    }
    if (kind == NONE) {
        free(lines);
        return false;
    }
    char text[2048], frame[2048], first_frame[2048] = "", mine_frame[2048] = "";
    const char *base = strrchr(learner_file, '/');
    base = base ? base + 1 : learner_file;
    /* the stack right after the report line: the first frame outside the sanitizer
     * runtime, and the first one in the learner's file */
    for (int i = at + 1, frames = 0; i < n && frames < 16; i++) {
        const char *l = lines[i];
        while (*l == ' ') l++;
        if (*l != '#') {
            if (frames > 0) break;
            continue;
        }
        frames++;
        if (runtime_frame(l) || !frame_text(j, l, frame, sizeof frame)) continue;
        if (!first_frame[0]) strf(first_frame, sizeof first_frame, "%s", frame);
        if (strstr(l, base)) {
            strf(mine_frame, sizeof mine_frame, "%s", frame);
            break;
        }
    }
    if (first_frame[0]) add_line(c, first_frame);
    if (mine_frame[0] && strcmp(mine_frame, first_frame) != 0) add_line(c, mine_frame);

    if (kind == MEMORY) {
        strf(c->message, sizeof c->message,
             "内存超限：用了超过 %d MB（memory limit）——是不是在循环里 malloc，或者算错了大小？",
             MEMORY_LIMIT_MB);
    } else if (kind == ASAN) {
        const char *what = strstr(lines[at], "AddressSanitizer: ") + strlen("AddressSanitizer: ");
        const char *desc = describe_asan(what);
        char access[256] = "";
        for (int i = at + 1; i < n && i < at + 4; i++) {
            const char *l = lines[i];
            int size;
            if (sscanf(l, "READ of size %d", &size) == 1)
                strf(access, sizeof access, "（读 READ %d 字节）", size);
            if (sscanf(l, "WRITE of size %d", &size) == 1)
                strf(access, sizeof access, "（写 WRITE %d 字节）", size);
            if (strstr(l, "The signal is caused by a READ")) strf(access, sizeof access, "（读 READ）");
            if (strstr(l, "The signal is caused by a WRITE")) strf(access, sizeof access, "（写 WRITE）");
        }
        if (desc)
            strf(c->message, sizeof c->message, "%s%s", desc, access);
        else {
            strf(text, sizeof text, "%s", what);
            char *cut = strstr(text, " on ");
            if (cut) *cut = '\0';
            strf(c->message, sizeof c->message, "AddressSanitizer 报告 %s%s", text, access);
        }
        /* where the memory came from: "located N bytes after M-byte region", "allocated by" */
        for (int i = at + 1; i < n; i++) {
            const char *loc = strstr(lines[i], " is located ");
            int off, region;
            if (loc &&
                sscanf(loc, " is located %d bytes to the right of %d-byte region", &off, &region) == 2) {
                if (off == 0)
                    strf(text, sizeof text,
                         "越界的地址：紧挨在一块 %d 字节的内存末尾之后（下标多了一个：< 写成了 <=？）",
                         region);
                else
                    strf(text, sizeof text, "越界的地址：在一块 %d 字节的内存末尾之后 %d 个字节", region,
                         off);
                add_line(c, text);
            } else if (loc && sscanf(loc, " is located %d bytes to the left of %d-byte region", &off,
                                     &region) == 2) {
                strf(text, sizeof text, "越界的地址：在一块 %d 字节的内存开头之前 %d 个字节", region, off);
                add_line(c, text);
            } else if (loc &&
                       sscanf(loc, " is located %d bytes inside of %d-byte region", &off, &region) == 2) {
                strf(text, sizeof text, "出错的地址：在一块 %d 字节的内存里的第 %d 个字节", region, off);
                add_line(c, text);
            }
            if (strstr(lines[i], "allocated by thread")) {
                for (int k = i + 1; k < n && k < i + 12; k++) {
                    const char *l = lines[k];
                    while (*l == ' ') l++;
                    if (*l != '#') break;
                    if (runtime_frame(l) || strstr(l, "ptest.c") || !frame_text(j, l, frame, sizeof frame))
                        continue;
                    strf(text, sizeof text, "这块内存分配%s", frame);
                    add_line(c, text);
                    break;
                }
                break;
            }
            if (strstr(lines[i], "Hint: address points to the zero page"))
                add_line(c, "提示：地址在零页，多半是空指针 NULL");
        }
    } else if (kind == LEAK) {
        long long bytes = 0;
        for (int i = at; i < n; i++) {
            long long b;
            if (sscanf(lines[i], "Direct leak of %lld", &b) == 1 ||
                sscanf(lines[i], "Indirect leak of %lld", &b) == 1)
                bytes += b;
        }
        strf(c->message, sizeof c->message, "内存泄漏 memory leak：%lld 字节 malloc 了没有 free", bytes);
    } else {
        strf(text, sizeof text, "%s", lines[at]);
        relativize(j, text, sizeof text);
        const char *msg = strstr(text, "runtime error: ") + strlen("runtime error: ");
        strf(c->message, sizeof c->message, "未定义行为 undefined behavior：%s", msg);
        char *where = strstr(text, ": runtime error");
        if (where && !first_frame[0]) {
            *where = '\0';
            strf(frame, sizeof frame, "在 %s", text);
            add_line(c, frame);
        }
    }
    free(lines);
    return true;
}

static void read_report(const char *path, CaseResult *c, bool *passed, bool *failed) {
    *passed = *failed = false;
    char *text = read_file(path, NULL);
    if (!text) return;
    char **lines;
    int n = split_lines(text, &lines);
    for (int i = 0; i < n; i++) {
        if (!strcmp(lines[i], "PASS ") || !strcmp(lines[i], "PASS"))
            *passed = true;
        else if (!strncmp(lines[i], "FAIL ", 5) && !*failed) {
            *failed = true;
            strf(c->message, sizeof c->message, "%s", lines[i] + 5);
        } else if (!strncmp(lines[i], "NOTE ", 5) && *failed)
            add_line(c, lines[i] + 5);
    }
    free(lines);
    free(text);
}

static long long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static void run_case(const Judge *j, const char *bin, const char *dir, const char *learner_file,
                     CaseResult *c) {
    char out_path[PATH_LEN], err_path[PATH_LEN], rep_path[PATH_LEN];
    strf(out_path, sizeof out_path, "%s/%s.stdout", dir, c->id);
    strf(err_path, sizeof err_path, "%s/%s.stderr", dir, c->id);
    strf(rep_path, sizeof rep_path, "%s/%s.report", dir, c->id);
    /* SIGCHLD stays blocked while the case runs, so that the wait below can sleep
     * until the child ends (or the wall-clock limit) instead of polling */
    sigset_t chld, saved;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &saved);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        c->v = V_RUNTIME;
        strf(c->message, sizeof c->message, "评测机开不了新进程（fork: %s）", strerror(errno));
        return;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        setpgid(0, 0);
        int in = open("/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int rep = open(rep_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (in < 0 || out < 0 || err < 0 || rep < 0) _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        dup2(rep, 3);
        for (int fd = 4; fd < 256; fd++) close(fd);
        struct rlimit cpu = {CPU_LIMIT_S, CPU_LIMIT_S + 1}, core = {0, 0},
                      fsize = {(rlim_t)OUTPUT_LIMIT_MB << 20, (rlim_t)OUTPUT_LIMIT_MB << 20};
        setrlimit(RLIMIT_CPU, &cpu);
        setrlimit(RLIMIT_CORE, &core);
        setrlimit(RLIMIT_FSIZE, &fsize);
        char asan[256];
        strf(asan, sizeof asan,
             "hard_rss_limit_mb=%d:max_allocation_size_mb=%d:allocator_may_return_null=0:detect_leaks=1:"
             "quarantine_size_mb=64:color=never:abort_on_error=0:handle_abort=1:disable_coredump=1",
             MEMORY_LIMIT_MB, MEMORY_LIMIT_MB);
        setenv("ASAN_OPTIONS", asan, 1);
        setenv("UBSAN_OPTIONS", "print_stacktrace=1:color=never:halt_on_error=1", 1);
        setenv("LSAN_OPTIONS", "color=never", 1);
        setenv("PT_REPORT_FD", "3", 1);
        if (chdir(dir) != 0) _exit(126);
        execl(bin, bin, "--run", c->id, (char *)NULL);
        _exit(127);
    }
    double deadline = now_s() + WALL_LIMIT_S;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    bool wall_timeout = false;
    for (;;) {
        pid_t r = wait4(pid, &status, WNOHANG, &ru);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) break;
        double left = deadline - now_s();
        if (left <= 0) {
            wall_timeout = true;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
            }
            break;
        }
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        sigtimedwait(&chld, NULL, &ts); /* a child ended, or time is up: look again */
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);
    kill(-pid, SIGKILL); /* whatever the case may have started */
    c->ms =
        (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;

    bool passed, failed;
    read_report(rep_path, c, &passed, &failed);
    c->out_bytes = file_size(out_path);
    if (c->out_bytes > 0) {
        FILE *f = fopen(out_path, "rb");
        if (f) {
            if (fgets(c->first_out, sizeof c->first_out, f))
                c->first_out[strcspn(c->first_out, "\r\n")] = '\0';
            fclose(f);
        }
    }
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (wall_timeout || sig == SIGXCPU || (sig == SIGKILL && c->ms >= CPU_LIMIT_S * 1000.0)) {
        c->v = V_TIMEOUT;
        if (wall_timeout && c->ms < CPU_LIMIT_S * 1000.0)
            strf(c->message, sizeof c->message, "运行了 %d 秒还没结束（在等什么？sleep、读 stdin？）",
                 WALL_LIMIT_S);
        else
            strf(c->message, sizeof c->message, "CPU 时间超过 %d 秒（time limit）——是不是有死循环？",
                 CPU_LIMIT_S);
        clear_lines(c);
        return;
    }
    /* a sanitizer report decides first: a crash may also have left wrong values */
    size_t err_len = 0;
    char *err = read_file(err_path, &err_len);
    if (err) {
        c->err_bytes = (long long)err_len;
        CaseResult probe;
        memset(&probe, 0, sizeof probe);
        if (parse_sanitizer(j, err, learner_file, &probe)) {
            clear_lines(c);
            c->lines = probe.lines;
            c->n_lines = probe.n_lines;
            strf(c->message, sizeof c->message, "%s", probe.message);
            c->v = V_RUNTIME;
            c->err_bytes = 0;
            free(err);
            return;
        }
        free(err);
    }
    if (sig) {
        const char *desc = describe_signal(sig);
        c->v = V_RUNTIME;
        if (desc)
            strf(c->message, sizeof c->message, "%s", desc);
        else
            strf(c->message, sizeof c->message, "被信号 %d（%s）结束", sig, strsignal(sig));
        clear_lines(c);
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (failed)
        c->v = V_WRONG;
    else if (passed && code == 0)
        c->v = V_PASS;
    else {
        c->v = V_RUNTIME;
        if (code == 127 || code == 126)
            strf(c->message, sizeof c->message, "评测机运行不了测试程序（exit %d）", code);
        else
            strf(c->message, sizeof c->message,
                 "程序提前退出了（exit %d），用例没有跑完——你的代码调用了 exit()？", code);
    }
}

/* ---- a whole run --------------------------------------------------------------------------- */

/* id is one of the words of list. */
static bool in_list(const char *list, const char *id) {
    size_t len = strlen(id);
    for (const char *p = list; (p = strstr(p, id)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return true;
    return false;
}

void run_tests(const Judge *j, const Exercise *e, const char *file, const char *tag, const char *only,
               TestRun *run) {
    memset(run, 0, sizeof *run);
    run->verdict = V_COMPILE;
    char objs[18][PATH_LEN];
    int n_objs = build_tests(j, e, objs, 18, run);
    if (n_objs < 0) return;

    char dir[PATH_LEN], bin[PATH_LEN], tmp[PATH_LEN], log[PATH_LEN], list_path[PATH_LEN];
    strf(dir, sizeof dir, "%s/%s/%s.run", j->build, e->slug, tag);
    strf(bin, sizeof bin, "%s/%s/%s", j->build, e->slug, tag);
    strf(tmp, sizeof tmp, "%s.%ld", bin, (long)getpid());
    strf(log, sizeof log, "%s/%s/%s.log", j->build, e->slug, tag);
    strf(list_path, sizeof list_path, "%s/%s/%s.list", j->build, e->slug, tag);
    remove_tree(dir);
    mkdirs(dir);

    const char *args[24];
    int na = 0;
    args[na++] = file;
    for (int i = n_objs - 1; i >= 0; i--) args[na++] = objs[i]; /* tests first, then the harness */
    args[na++] = "-lm";
    args[na++] = "-o";
    args[na++] = tmp;
    args[na] = NULL;
    double t0 = now_s();
    int rc = compile(j, e, args, log);
    run->compile_s = now_s() - t0;
    if (rc != 0 || rename(tmp, bin) != 0) {
        unlink(tmp);
        keep_compiler_lines(j, log, true, run);
        return;
    }
    keep_compiler_lines(j, log, false, run);

    /* the cases, from the binary itself */
    char *argv[] = {bin, "--list", NULL};
    if (run_command(argv, list_path) != 0) {
        strf(run->setup_error, sizeof run->setup_error, "测试程序列不出用例（%s --list 失败）", tag);
        run->verdict = V_RUNTIME;
        return;
    }
    char *list = read_file(list_path, NULL);
    char **lines = NULL;
    int n = list ? split_lines(list, &lines) : 0;
    run->cases = calloc(n ? (size_t)n : 1, sizeof *run->cases);
    for (int i = 0; i < n && run->cases; i++) {
        CaseResult *c = &run->cases[run->total];
        char *tab = strchr(lines[i], '\t');
        if (!tab) continue;
        *tab = '\0';
        strf(c->id, sizeof c->id, "%s", lines[i]);
        strf(c->title, sizeof c->title, "%s", tab + 1);
        run->total++;
    }
    free(lines);
    free(list);
    if (run->total == 0) {
        strf(run->setup_error, sizeof run->setup_error, "测试程序里没有用例");
        run->verdict = V_RUNTIME;
        return;
    }

    run->verdict = V_PASS;
    bool timed_out = false;
    for (int i = 0; i < run->total; i++) {
        CaseResult *c = &run->cases[i];
        if (timed_out || (only && !in_list(only, c->id))) {
            c->v = V_SKIPPED;
            continue;
        }
        run_case(j, bin, dir, file, c);
        if (c->v == V_PASS)
            run->passed++;
        else if (run->verdict == V_PASS)
            run->verdict = c->v;
        /* one endless loop is enough: the others would each wait out the limit too */
        if (c->v == V_TIMEOUT) timed_out = true;
    }
}

void free_run(TestRun *run) {
    for (int i = 0; i < run->n_compile_lines; i++) free(run->compile_lines[i]);
    free(run->compile_lines);
    for (int i = 0; run->cases && i < run->total; i++) clear_lines(&run->cases[i]);
    free(run->cases);
    memset(run, 0, sizeof *run);
}
