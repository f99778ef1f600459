/* check.c — `judge check`, for maintainers: is every exercise what a learner needs?
 *
 * For each exercise:
 *   - problem.md: front matter complete and consistent (number = folder, chapter
 *     1–7, difficulty 简单/中等/困难, tags, file), a Chinese part, the separator
 *     line "---", an English part, a C code block in each;
 *   - hints.md: two or three tiers; .solution/FILE and .solution/explain.md exist;
 *   - tests: a runner (tests/run.c) and a checker (tests/check.c); at least four
 *     cases, the first one "worked_example"; every generated header (expected.h,
 *     inputs.h) says which command wrote it, and that script is there;
 *   - the reference solution passes every case, without a compiler warning;
 *   - the untouched starter compiles without a warning, says TODO, and fails its
 *     worked example (the one case it is run on);
 *   - every typical wrong answer in .solution/wrong/ fails each case its "fails:"
 *     line names (only those cases are run) — the proof that the tests catch it. A
 *     wrong answer is kept as what it changes: NAME.diff is a line or two saying the
 *     mistake, the "fails:" line, then a unified diff (diff -u) of the reference
 *     solution; the checker applies it and tests the result.
 * And over all: numbers unique, every chapter 1–7 with at least two exercises,
 * the book's 206 in chapter 7.
 *
 * Exercises are checked two at a time (CHECK_JOBS, default 2), each in a child
 * process whose report is printed in order.
 */
#include "judge.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    char text[8192];
    size_t used;
    int problems;
} Findings;

static void problem(Findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(Findings *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (f->used < sizeof f->text - 8) {
        f->used += (size_t)snprintf(f->text + f->used, sizeof f->text - f->used, "      - ");
        if (f->used < sizeof f->text) {
            int w = vsnprintf(f->text + f->used, sizeof f->text - f->used, fmt, ap);
            if (w > 0) f->used += (size_t)w;
        }
        if (f->used < sizeof f->text - 1) f->text[f->used++] = '\n';
        f->text[f->used < sizeof f->text ? f->used : sizeof f->text - 1] = '\0';
    }
    f->problems++;
    va_end(ap);
}

static bool has_cjk(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == 0xE4 || *p == 0xE5 || *p == 0xE6 || *p == 0xE7 || *p == 0xE8 || *p == 0xE9) return true;
    return false;
}

static const CaseResult *case_by_id(const TestRun *run, const char *id) {
    for (int i = 0; i < run->total; i++)
        if (!strcmp(run->cases[i].id, id)) return &run->cases[i];
    return NULL;
}

/* The line "fails: a b c" before a wrong answer's diff: the cases it must fail. -1
 * when there is none (or it names more than max). */
static int expected_failures(const char *path, char ids[][64], int max) {
    char *text = fs_read(path, NULL), **lines = NULL;
    int n_lines = text ? split_lines(text, &lines) : 0, n = -1;
    for (int i = 0; i < n_lines && strncmp(lines[i], "--- ", 4) != 0; i++) {
        if (strncmp(lines[i], "fails:", 6) != 0) continue;
        n = 0;
        for (char *tok = strtok(lines[i] + 6, " ,\t"); tok; tok = strtok(NULL, " ,\t")) {
            if (n == max) {
                n = -1;
                break;
            }
            strf(ids[n++], 64, "%s", tok);
        }
        break;
    }
    free(lines);
    free(text);
    return n;
}

/* Writes to out_path the reference solution sol_path with the unified diff in
 * diff_path applied. A hunk "@@ -a,b +c,d @@" replaces the b lines from line a (after
 * line a when b is 0) with its d new ones: its ' ' and '-' lines must be the
 * solution's own, in order, and it must hold exactly b of them and d of ' ' and '+'
 * (an empty line counts as ' ', as editors that strip trailing spaces leave it). A
 * diff that no longer fits says where, into why. Lines before the first hunk (the
 * description, "fails:", the --- and +++ lines) are not read here. */
static bool apply_diff(const char *sol_path, const char *diff_path, const char *out_path, char *why,
                       size_t why_size) {
    char *sol_text = fs_read(sol_path, NULL), *diff_text = fs_read(diff_path, NULL);
    char **sol = NULL, **diff = NULL;
    int n_sol = sol_text ? split_lines(sol_text, &sol) : 0,
        n_diff = diff_text ? split_lines(diff_text, &diff) : 0;
    FILE *out = fopen(out_path, "w");
    bool ok = sol && diff && out;
    if (!ok) strf(why, why_size, "读不了或写不了");
    int at = 0; /* solution lines copied so far */
    for (int i = 0; ok && i < n_diff; i++) {
        long a, b = 1, d = 1;
        char *p = diff[i];
        if (strncmp(p, "@@ -", 4) != 0) continue;
        a = strtol(p + 4, &p, 10);
        if (*p == ',') b = strtol(p + 1, &p, 10);
        if (strncmp(p, " +", 2) == 0) {
            strtol(p + 2, &p, 10); /* where the new lines land: follows from the hunks before */
            if (*p == ',') d = strtol(p + 1, &p, 10);
        }
        long start = b == 0 ? a : a - 1; /* 0-based: the first line replaced */
        if (strncmp(p, " @@", 3) != 0 || start < at || start + b > n_sol || b < 0 || d < 0) {
            strf(why, why_size, "第 %d 行的 @@ 读不懂，或者指到了参考答案外面", i + 1);
            ok = false;
            break;
        }
        for (; at < start; at++) fprintf(out, "%s\n", sol[at]);
        const int header = i;
        for (long old_left = b, new_left = d; ok && (old_left > 0 || new_left > 0);) {
            if (++i >= n_diff) {
                strf(why, why_size, "第 %d 行的 @@ 之后少了几行", header + 1);
                ok = false;
                break;
            }
            char kind = diff[i][0] ? diff[i][0] : ' ';
            const char *text = diff[i][0] ? diff[i] + 1 : "";
            if (kind == '\\') continue; /* "\ No newline at end of file": nothing to do here */
            if (kind == '+' && new_left > 0) {
                fprintf(out, "%s\n", text);
                new_left--;
            } else if ((kind == ' ' || kind == '-') && old_left > 0 && (kind == '-' || new_left > 0) &&
                       strcmp(sol[at], text) == 0) {
                if (kind == ' ') fprintf(out, "%s\n", text), new_left--;
                old_left--, at++;
            } else {
                if (kind != ' ' && kind != '-' && kind != '+')
                    strf(why, why_size, "第 %d 行不是 diff 的一行", i + 1);
                else if (kind == '+' || (kind == ' ' && new_left == 0) || old_left == 0)
                    strf(why, why_size, "第 %d 行超出了它的 @@ 算的行数", i + 1);
                else
                    strf(why, why_size, "第 %d 行和参考答案的第 %d 行不一样", i + 1, at + 1);
                ok = false;
            }
        }
        /* after the counted lines: nothing of this hunk may be left over */
        for (int k = i + 1; ok && k < n_diff && strncmp(diff[k], "@@ -", 4) != 0; k++)
            if (strchr(" +-", diff[k][0]) && diff[k][0]) {
                strf(why, why_size, "第 %d 行超出了它的 @@ 算的行数", k + 1);
                ok = false;
            }
    }
    for (; ok && at < n_sol; at++) fprintf(out, "%s\n", sol[at]);
    if (out && fclose(out) != 0 && ok) strf(why, why_size, "写不了"), ok = false;
    free(sol);
    free(diff);
    free(sol_text);
    free(diff_text);
    return ok;
}

static void check_files(const Exercise *e, Findings *f) {
    char path[PATH_LEN];
    bool separated = false;
    char *zh = problem_text(e, false, &separated), *en = problem_text(e, true, NULL);
    if (!zh || !en)
        problem(f, "problem.md 读不了");
    else {
        if (!separated) problem(f, "problem.md 里没有分开中文和英文的 --- 行");
        if (!has_cjk(zh)) problem(f, "problem.md 的中文部分里没有中文");
        if (strlen(en) < 200) problem(f, "problem.md 的英文部分太短");
        if (!strstr(zh, "```c")) problem(f, "problem.md 的中文部分没有 C 代码块（函数签名）");
        if (!strstr(en, "```c")) problem(f, "problem.md 的英文部分没有 C 代码块（函数签名）");
    }
    free(zh);
    free(en);

    char **tiers;
    int n = read_hints(e, &tiers);
    if (n < 2 || n > 3) problem(f, "hints.md 要有两到三条提示（## 开头），现在是 %d 条", n);
    for (int i = 0; i < n; i++)
        if (strlen(tiers[i]) < 20) problem(f, "hints.md 第 %d 条提示是空的", i + 1);
    free_strings(tiers, n);

    solution_file(e, path, sizeof path);
    if (!fs_exists(path)) problem(f, "没有参考答案 .solution/%s", e->file);
    fs_join(path, sizeof path, e->dir, ".solution/explain.md");
    if (!fs_exists(path)) problem(f, "没有讲解 .solution/explain.md");

    starter_file(e, path, sizeof path);
    char *starter = fs_read(path, NULL);
    if (!starter)
        problem(f, "没有起始代码 %s", e->file);
    else if (!strstr(starter, "TODO"))
        problem(f, "起始代码 %s 里没有 TODO", e->file);
    free(starter);

    static const char *const halves[] = {"tests/run.c", "tests/check.c"};
    for (int i = 0; i < 2; i++) {
        fs_join(path, sizeof path, e->dir, halves[i]);
        if (!fs_exists(path)) problem(f, "没有 %s（测试分成运行部分 run.c 和检查部分 check.c）", halves[i]);
    }
    static const char *const generated[] = {"tests/expected.h", "tests/inputs.h"};
    for (int i = 0; i < 2; i++) {
        fs_join(path, sizeof path, e->dir, generated[i]);
        char *text = fs_read(path, NULL);
        if (text) {
            char script[PATH_LEN];
            fs_join(script, sizeof script, e->dir, "tests/make_expected.py");
            if (!strstr(text, "written once by")) problem(f, "%s 没有写明是哪条命令生成的", generated[i]);
            if (!fs_exists(script)) problem(f, "%s 旁边没有生成它的 tests/make_expected.py", generated[i]);
        }
        free(text);
    }
}

static void check_runs(const Judge *j, const Exercise *e, Findings *f, char *summary, size_t size) {
    char path[PATH_LEN];
    TestRun ref, st;
    solution_file(e, path, sizeof path);
    if (!fs_exists(path)) return;
    run_tests(j, e, path, NULL, &ref);
    if (ref.setup_error[0]) {
        problem(f, "%s", ref.setup_error);
        for (int i = 0; i < ref.n_compile_lines; i++) problem(f, "  %s", ref.compile_lines[i]);
        free_run(&ref);
        return;
    }
    if (ref.verdict != V_PASS) {
        problem(f, "参考答案没有通过：%s，%d / %d", verdict_name(ref.verdict), ref.passed, ref.total);
        for (int i = 0; i < ref.n_compile_lines; i++) problem(f, "  %s", ref.compile_lines[i]);
        for (int i = 0; i < ref.total; i++)
            if (ref.cases[i].v != V_PASS) problem(f, "  %s：%s", ref.cases[i].id, ref.cases[i].message);
    } else if (ref.n_warnings)
        problem(f, "参考答案有 %d 个编译警告", ref.n_warnings);
    if (ref.total > 0 && strcmp(ref.cases[0].id, "worked_example") != 0)
        problem(f, "第一个用例应该是 worked_example（题目里的例子），现在是 %s", ref.cases[0].id);
    for (int i = 0; i < ref.total; i++)
        if (text_width(ref.cases[i].title) > 50)
            problem(f, "用例 %s 的标题太长（超过 50 列）", ref.cases[i].id);
    if (ref.total > 0 && ref.total < 4)
        problem(f, "只有 %d 个用例：例子、独立的期望值、边界情况、典型错误至少各一个", ref.total);

    /* the untouched starter, on its worked example only (without one, the check of the
     * reference above has said so already) */
    starter_file(e, path, sizeof path);
    run_tests(j, e, path, "worked_example", &st);
    const CaseResult *we = case_by_id(&st, "worked_example");
    const char *starter = "起始代码没通过例子";
    if (st.verdict == V_COMPILE) {
        problem(f, "起始代码编译不过");
        for (int i = 0; i < st.n_compile_lines; i++) problem(f, "  %s", st.compile_lines[i]);
        starter = "起始代码编译不过";
    } else if (!we)
        starter = "起始代码没有例子可跑";
    else if (we->v == V_PASS) {
        problem(f, "没动过的起始代码居然通过了 worked_example");
        starter = "起始代码通过了例子";
    }
    if (st.verdict != V_COMPILE && st.n_warnings) problem(f, "起始代码有 %d 个编译警告", st.n_warnings);

    /* the typical wrong answers */
    char wrong_dir[PATH_LEN], sol_path[PATH_LEN];
    fs_join(wrong_dir, sizeof wrong_dir, e->dir, ".solution/wrong");
    solution_file(e, sol_path, sizeof sol_path);
    DIR *d = opendir(wrong_dir);
    int n_wrong = 0, caught = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".diff") || de->d_name[0] == '.') continue;
        n_wrong++;
        char diff[PATH_LEN], file[PATH_LEN], tag[160], ids[16][64], why[256];
        fs_join(diff, sizeof diff, wrong_dir, de->d_name);
        strf(tag, sizeof tag, "wrong-%.*s", (int)len - 5, de->d_name);
        int n_ids = expected_failures(diff, ids, 16);
        if (n_ids <= 0) {
            problem(f, "典型错误 %s 没有写明应该没过的用例（fails: id ...）", de->d_name);
            continue;
        }
        /* the wrong answer as a file, named like the starter so that messages read alike */
        strf(file, sizeof file, "%s/%s", j->build, e->slug);
        fs_mkdirs(file);
        strf(file, sizeof file, "%s/%s/%s.%s", j->build, e->slug, tag, e->file);
        if (!apply_diff(sol_path, diff, file, why, sizeof why)) {
            problem(f, "典型错误 %s 对不上参考答案：%s", de->d_name, why);
            continue;
        }
        char only[16 * 65] = "";
        for (int k = 0; k < n_ids; k++) strcat(strcat(only, k ? " " : ""), ids[k]);
        TestRun w;
        run_tests(j, e, file, only, &w);
        bool ok = true;
        if (w.verdict == V_COMPILE) {
            problem(f, "典型错误 %s 编译不过（它应该能编译、只是算错）", de->d_name);
            ok = false;
        } else {
            for (int k = 0; k < n_ids; k++) {
                const CaseResult *c = case_by_id(&w, ids[k]);
                if (!c)
                    problem(f, "典型错误 %s 写的用例 %s 不存在", de->d_name, ids[k]), ok = false;
                else if (c->v == V_PASS)
                    problem(f, "典型错误 %s 通过了本该抓住它的用例 %s", de->d_name, ids[k]), ok = false;
            }
        }
        caught += ok;
        free_run(&w);
    }
    if (d) closedir(d);
    if (n_wrong == 0) problem(f, "没有典型错误（.solution/wrong/ 里的 .diff）来证明测试能抓住它们");
    strf(summary, size, "参考答案 %d/%d · %s · 典型错误 %d/%d 被抓到", ref.passed, ref.total, starter, caught,
         n_wrong);
    free_run(&ref);
    free_run(&st);
}

/* One exercise, its report into out; returns the number of problems. */
static int check_one(const Judge *j, const Exercise *e, char *out, size_t size) {
    Findings f;
    memset(&f, 0, sizeof f);
    char summary[512] = "";
    if (e->error[0])
        problem(&f, "%s", e->error);
    else {
        check_files(e, &f);
        check_runs(j, e, &f, summary, sizeof summary);
    }
    strf(out, size, "%s %03d %s%s%s\n%s", f.problems ? "✗" : "✓", atoi(e->slug), e->title,
         summary[0] ? "  · " : "", summary, f.text);
    return f.problems;
}

int cmd_check(Judge *j, int argc, char **argv) {
    bool *chosen = calloc((size_t)j->n_ex, sizeof *chosen);
    if (!chosen) return EXIT_USAGE;
    for (int i = 0; i < argc; i++) {
        Exercise *e = find_exercise(j, argv[i]);
        if (!e) {
            errorf("没有第 %s 题", argv[i]);
            free(chosen);
            return EXIT_USAGE;
        }
        chosen[e - j->ex] = true;
    }
    for (int i = 0; i < j->n_ex && argc == 0; i++) chosen[i] = true;

    int problems = 0;
    printf("%scheck%s：%s\n", c_bold(j), c_off(j), j->practice);
    /* the overall rules */
    if (argc == 0) {
        int per_chapter[8] = {0};
        bool have_206 = false;
        for (int i = 0; i < j->n_ex; i++) {
            const Exercise *e = &j->ex[i];
            if (e->chapter >= 1 && e->chapter <= 7) per_chapter[e->chapter]++;
            if (e->number == 206) have_206 = e->chapter == 7;
            for (int k = 0; k < i; k++)
                if (j->ex[k].number == e->number) {
                    printf("  ✗ 编号 %03d 用了两次：%s 和 %s\n", e->number, j->ex[k].slug, e->slug);
                    problems++;
                }
        }
        for (int ch = 1; ch <= 7; ch++)
            if (per_chapter[ch] < 2) {
                printf("  ✗ 第 %d 章只有 %d 道练习（至少两道）\n", ch, per_chapter[ch]);
                problems++;
            }
        if (!have_206) {
            printf("  ✗ 没有第 7 章的 206（书里的 Gated DeltaNet 逐 token 递推）\n");
            problems++;
        }
    }
    TestRun prep;
    memset(&prep, 0, sizeof prep);
    if (!prepare_build(j, &prep)) {
        errorf("%s", prep.setup_error);
        free_run(&prep);
        free(chosen);
        return EXIT_USAGE;
    }
    free_run(&prep);

    const char *env = getenv("CHECK_JOBS");
    int jobs = env && atoi(env) > 0 ? atoi(env) : 2;
    if (jobs > 8) jobs = 8;
    int n = j->n_ex, next = 0, printed = 0, running = 0, checked = 0;
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    int *status = calloc((size_t)n, sizeof *status);
    bool *done = calloc((size_t)n, sizeof *done);
    if (!pids || !status || !done) return EXIT_USAGE;
    double t0 = now_s();
    while (printed < n) {
        while (running < jobs && next < n) {
            if (!chosen[next]) {
                done[next++] = true;
                continue;
            }
            fflush(NULL);
            pid_t pid = fork();
            if (pid == 0) {
                static char report[16384];
                int bad = check_one(j, &j->ex[next], report, sizeof report);
                char path[PATH_LEN];
                strf(path, sizeof path, "%s/check-%s.txt", j->build, j->ex[next].slug);
                fs_write(path, report, strlen(report));
                _exit(bad ? 1 : 0);
            }
            if (pid < 0) {
                errorf("fork: %s", strerror(errno));
                return EXIT_USAGE;
            }
            pids[next++] = pid;
            running++;
        }
        /* print, in order, everything that has finished */
        while (printed < n && done[printed]) {
            if (chosen[printed]) {
                char path[PATH_LEN];
                strf(path, sizeof path, "%s/check-%s.txt", j->build, j->ex[printed].slug);
                char *report = fs_read(path, NULL);
                if (!report) {
                    printf("  ✗ %s：检查过程本身崩溃了（退出状态 %d）\n", j->ex[printed].slug,
                           status[printed]);
                    problems++;
                } else {
                    printf("  %s", report);
                    problems += status[printed] != 0;
                    free(report);
                    unlink(path);
                }
                fflush(stdout);
                checked++;
            }
            printed++;
        }
        if (printed >= n) break;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < n; i++)
            if (pids[i] == pid) {
                done[i] = true;
                status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
                running--;
            }
    }
    printf("%s%s%s：%d 道练习，%s（%.0f s）\n", c_bold(j), problems ? c_red(j) : c_green(j),
           problems ? "check 没通过" : "check 通过", checked, problems ? "上面标 ✗ 的要修" : "都没有问题",
           now_s() - t0);
    printf("%s", c_off(j));
    free(pids);
    free(status);
    free(done);
    free(chosen);
    return problems ? EXIT_REJECTED : EXIT_ACCEPTED;
}
