/* main.c — ./practice/judge: the exercises' local judge.
 *
 * The learner's route: `list` shows every exercise and suggests the next one;
 * `start N` copies the starter to the workspace and prints the statement; `test N`
 * (or `watch N`, which re-tests on every save) compiles the learner's file against
 * the exercise's tests and prints a line per case and a verdict; `hint N` gives the
 * next tier of hints; `solution N` the reference answer, after asking.
 */
#include "judge.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "./practice/judge";

static void usage(FILE *f) {
    fprintf(f,
            "用法 usage: %s [--color=auto|always|never] [--lang=zh|en] [--yes] COMMAND\n"
            "  list              全部练习和进度，外加建议的下一题\n"
            "  start N           开始第 N 题：复制起始代码到 practice/workspace/，打印题目\n"
            "  test N [FILE]     评测你的代码（默认 workspace 里的文件）\n"
            "  watch N [FILE]    每次保存就重新评测；q 或 Ctrl-C 退出\n"
            "  hint N            下一条提示（每次多给一点）\n"
            "  solution N        参考答案和讲解（先问一句）\n"
            "  reset N           把你的文件换回起始代码（先问一句，旧的存成 .bak）\n"
            "  check [N...]      维护者用：每道题的参考答案通过、起始代码不通过、格式齐全\n"
            "退出码 exit status: 0 通过 / 完成，1 没通过（或回答了 no），2 用法或输入有错\n",
            prog);
}

/* ---- setting up ------------------------------------------------------------------------ */

static bool has_lib(const char *dir) {
    char path[PATH_LEN];
    strf(path, sizeof path, "%s/lib/ptest.h", dir);
    return fs_exists(path);
}

static bool find_practice(Judge *j) {
    const char *env = getenv("PRACTICE_DIR");
    if (env && *env) {
        if (!realpath(env, j->practice) || !has_lib(j->practice)) return false;
        return true;
    }
    char exe[PATH_LEN];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        if (has_lib(exe)) {
            strf(j->practice, sizeof j->practice, "%s", exe);
            return true;
        }
    }
#ifdef REPO_ROOT
    char root[PATH_LEN];
    strf(root, sizeof root, "%s/practice", REPO_ROOT);
    if (has_lib(root) && realpath(root, j->practice)) return true;
#endif
    return realpath("practice", j->practice) && has_lib(j->practice);
}

static int setup(Judge *j) {
    if (!getcwd(j->cwd, sizeof j->cwd)) strf(j->cwd, sizeof j->cwd, "/");
    if (!find_practice(j)) {
        errorf("找不到 practice/ 文件夹（它在 judge 程序旁边；也可以用环境变量 PRACTICE_DIR 指定）");
        return EXIT_USAGE;
    }
    const char *ws = getenv("PRACTICE_WORKSPACE");
    if (ws && *ws)
        fs_join(j->workspace, sizeof j->workspace, j->cwd, ws); /* ws itself when absolute */
    else
        fs_join(j->workspace, sizeof j->workspace, j->practice, "workspace");
    fs_join(j->build, sizeof j->build, j->workspace, ".build");
    load_exercises(j);
    if (j->n_ex == 0) {
        errorf("%s 里没有练习", j->practice);
        return EXIT_USAGE;
    }
    return 0;
}

static Exercise *need_exercise(Judge *j, const char *arg) {
    if (!arg) {
        errorf("少了题号：比如 %s start 231", prog);
        return NULL;
    }
    Exercise *e = find_exercise(j, arg);
    if (!e)
        errorf("没有第 %s 题（%s list 列出全部）", arg, prog);
    else if (e->error[0]) {
        errorf("第 %s 题的 problem.md 有问题：%s", arg, e->error);
        return NULL;
    }
    return e;
}

static bool load_progress(const Judge *j, Progress *p) {
    char err[PATH_LEN + 256];
    if (progress_load(j, p, err, sizeof err)) return true;
    errorf("%s", err);
    return false;
}

/* Records a change (under the workspace's lock); p, when not NULL, gets the progress
 * as it is now, with the changes of other judges running at the same time. */
static void update_progress(const Judge *j, int number, ProgressChange change, Progress *p) {
    char err[PATH_LEN + 256];
    if (!progress_update(j, number, change, p, err, sizeof err)) errorf("%s", err);
}

/* The first exercise, in list order, not passed yet (NULL when all are). */
static const Exercise *next_exercise(const Judge *j, const Progress *p) {
    for (int i = 0; i < j->n_ex; i++)
        if (!j->ex[i].error[0] && progress_status(p, j->ex[i].number) != ST_PASSED) return &j->ex[i];
    return NULL;
}

/* The line that says what to do next: the command for the next exercise, or that
 * all are passed (after list, and after an accepted test). */
static void print_next(const Judge *j, const Progress *p) {
    const Exercise *next = next_exercise(j, p);
    if (next)
        printf("下一题 next：%s%s start %03d%s   （%03d. %s）\n", c_bold(j), prog, next->number, c_off(j),
               next->number, exercise_title(j, next));
    else
        printf("%s全部 %d 道都通过了。%s\n", c_green(j), j->n_ex, c_off(j));
}

/* ---- list ------------------------------------------------------------------------------ */

static void bar(const Judge *j, int done, int total, int width) {
    int full = total ? done * width / total : 0; /* full only when everything is done */
    printf("[%s", c_green(j));
    for (int i = 0; i < full; i++) fputs("█", stdout);
    printf("%s%s", c_off(j), c_dim(j));
    for (int i = full; i < width; i++) fputs("░", stdout);
    printf("%s]", c_off(j));
}

static int cmd_list(Judge *j) {
    Progress p;
    if (!load_progress(j, &p)) return EXIT_USAGE;
    int passed_all = 0;
    for (int i = 0; i < j->n_ex; i++) passed_all += progress_status(&p, j->ex[i].number) == ST_PASSED;
    printf("%s手写 Transformer · C 练习 practice%s        %d / %d 通过  ", c_bold(j), c_off(j), passed_all,
           j->n_ex);
    bar(j, passed_all, j->n_ex, 20);
    printf(" %d%%\n", j->n_ex ? passed_all * 100 / j->n_ex : 0);
    for (int ch = 1; ch <= 7; ch++) {
        int total = 0, done = 0;
        for (int i = 0; i < j->n_ex; i++)
            if (j->ex[i].chapter == ch) total++, done += progress_status(&p, j->ex[i].number) == ST_PASSED;
        if (!total) continue;
        char head[128];
        if (j->english)
            strf(head, sizeof head, "Chapter %d · %s", ch, chapter_name(j, ch));
        else
            strf(head, sizeof head, "第 %d 章 %s", ch, chapter_name(j, ch));
        printf("\n%s", c_bold(j));
        print_padded(head, 52);
        printf("%s %d / %d  ", c_off(j), done, total);
        bar(j, done, total, 10);
        printf("\n");
        for (int i = 0; i < j->n_ex; i++) {
            const Exercise *e = &j->ex[i];
            if (e->chapter != ch) continue;
            int st = progress_status(&p, e->number);
            const char *mark = st == ST_PASSED ? "✓" : st == ST_FAILED ? "✗" : "·";
            const char *colour = st == ST_PASSED ? c_green(j) : st == ST_FAILED ? c_red(j) : c_dim(j);
            printf("  %s%s%s %03d  ", colour, mark, c_off(j), e->number);
            print_padded(exercise_title(j, e), 46);
            printf(" %s", difficulty_name(j, e->difficulty));
            for (int k = 0; k < p.n; k++)
                if (p.e[k].number == e->number && st == ST_PASSED && p.e[k].latest_failed)
                    printf("  %s%s%s", c_dim(j), j->english ? "(latest test: ✗)" : "（最近一次 ✗）", c_off(j));
            printf("\n");
        }
    }
    for (int i = 0; i < j->n_ex; i++)
        if (j->ex[i].error[0])
            printf("%s（%s 的 problem.md 有问题：%s）%s\n", c_red(j), j->ex[i].slug, j->ex[i].error,
                   c_off(j));
    printf("\n");
    print_next(j, &p);
    progress_free(&p);
    return EXIT_ACCEPTED;
}

/* ---- start ------------------------------------------------------------------------------ */

/* compile_flags.txt in the workspace, so that editors with clangd find the headers. */
static void write_editor_flags(const Judge *j) {
    size_t cap = 256 + (size_t)j->n_ex * (PATH_LEN / 8), used = 0;
    char *buf = malloc(cap);
    if (!buf) return;
    for (int i = 0; COMPILE_FLAGS[i] && used < cap; i++) /* the language and the warnings the judge uses */
        if (!strncmp(COMPILE_FLAGS[i], "-std", 4) || !strncmp(COMPILE_FLAGS[i], "-D", 2) ||
            !strncmp(COMPILE_FLAGS[i], "-W", 2))
            used += (size_t)snprintf(buf + used, cap - used, "%s\n", COMPILE_FLAGS[i]);
    if (used < cap) used += (size_t)snprintf(buf + used, cap - used, "-I%s/lib\n", j->practice);
    for (int i = 0; i < j->n_ex && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "-I%s\n", j->ex[i].dir);
    char path[PATH_LEN];
    fs_join(path, sizeof path, j->workspace, "compile_flags.txt");
    if (used < cap) fs_write(path, buf, used);
    free(buf);
}

static void print_statement(const Judge *j, const Exercise *e) {
    char *text = problem_text(e, j->english, NULL);
    if (!text) {
        errorf("读不了 %s/problem.md", e->slug);
        return;
    }
    printf("%s────────────────────────────────────────────────────────────%s\n", c_dim(j), c_off(j));
    fputs(text, stdout);
    if (text[0] && text[strlen(text) - 1] != '\n') putchar('\n');
    printf("%s────────────────────────────────────────────────────────────%s\n", c_dim(j), c_off(j));
    free(text);
}

static int cmd_start(Judge *j, const char *arg) {
    Exercise *e = need_exercise(j, arg);
    if (!e) return EXIT_USAGE;
    char ws[PATH_LEN], rel[PATH_LEN], starter[PATH_LEN];
    workspace_file(j, e, ws, sizeof ws);
    starter_file(e, starter, sizeof starter);
    rel_path(j, ws, rel, sizeof rel);
    bool existed = fs_exists(ws);
    if (!existed) {
        if (!fs_mkdirs(j->workspace) || !fs_copy(starter, ws)) {
            errorf("复制不了起始代码到 %s", rel);
            return EXIT_USAGE;
        }
    }
    write_editor_flags(j);
    /* compile the tests now, in the background, while the statement is being read */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        prebuild_tests(j, e);
        _exit(0);
    }
    if (j->english)
        printf("%s%03d. %s%s (chapter %d · %s)\n", c_bold(j), e->number, exercise_title(j, e), c_off(j),
               e->chapter, difficulty_name(j, e->difficulty));
    else
        printf("%s%03d. %s%s（第 %d 章 · %s）\n", c_bold(j), e->number, exercise_title(j, e), c_off(j),
               e->chapter, difficulty_name(j, e->difficulty));
    print_statement(j, e);
    if (existed)
        printf("你的文件已经在了，没有覆盖：%s%s%s（想从头来：%s reset %03d）\n", c_bold(j), rel, c_off(j),
               prog, e->number);
    else
        printf("起始代码已经复制到 %s%s%s\n", c_bold(j), rel, c_off(j));
    printf("打开它，把 TODO 换成你的代码，然后：\n"
           "  %s test %03d     评测一次\n"
           "  %s watch %03d    每次保存自动评测（q 退出）\n"
           "  %s hint %03d     卡住了，要一点提示\n",
           prog, e->number, prog, e->number, prog, e->number);
    return EXIT_ACCEPTED;
}

/* ---- test ---------------------------------------------------------------------------------- */

/* FILE given, or the workspace file; false (with the error printed) when there is none. */
static bool learner_file(const Judge *j, const Exercise *e, const char *given, char *out, size_t size) {
    if (given) {
        fs_join(out, size, j->cwd, given); /* given itself when absolute */
        if (!fs_exists(out)) {
            errorf("没有这个文件：%s", given);
            return false;
        }
        return true;
    }
    workspace_file(j, e, out, size);
    if (!fs_exists(out)) {
        errorf("还没有开始第 %03d 题：先运行 %s start %03d", e->number, prog, e->number);
        return false;
    }
    return true;
}

/* One test round: run, print, record. Returns the exit status. */
static int test_once(Judge *j, Exercise *e, const char *file, Progress *p) {
    TestRun run;
    run_tests(j, e, file, NULL, &run);
    print_run(j, e, file, &run);
    int rc = run.setup_error[0] ? EXIT_USAGE : run.verdict == V_PASS ? EXIT_ACCEPTED : EXIT_REJECTED;
    if (rc != EXIT_USAGE)
        update_progress(j, e->number, rc == EXIT_ACCEPTED ? PROGRESS_PASSED : PROGRESS_FAILED, p);
    if (rc == EXIT_ACCEPTED) {
        print_next(j, p);
    } else if (rc == EXIT_REJECTED) {
        char **tiers;
        int n = read_hints(e, &tiers);
        free_strings(tiers, n);
        ProgressEntry *pe = progress_get(p, e->number);
        int seen = pe ? pe->hints : 0;
        if (seen < n) printf("卡住了？%s hint %03d（第 %d / %d 条提示）\n", prog, e->number, seen + 1, n);
    }
    free_run(&run);
    return rc;
}

static int cmd_test(Judge *j, const char *arg, const char *given) {
    Exercise *e = need_exercise(j, arg);
    if (!e) return EXIT_USAGE;
    char file[PATH_LEN];
    if (!learner_file(j, e, given, file, sizeof file)) return EXIT_USAGE;
    Progress p;
    if (!load_progress(j, &p)) return EXIT_USAGE;
    int rc = test_once(j, e, file, &p);
    progress_free(&p);
    return rc;
}

/* ---- watch ---------------------------------------------------------------------------------- */

static volatile sig_atomic_t stop_watching;
static struct termios saved_termios;
static bool termios_saved;

static void on_signal(int sig) {
    (void)sig;
    stop_watching = 1;
}

static void restore_terminal(void) {
    if (termios_saved) tcsetattr(0, TCSANOW, &saved_termios);
    termios_saved = false;
}

static int cmd_watch(Judge *j, const char *arg, const char *given) {
    Exercise *e = need_exercise(j, arg);
    if (!e) return EXIT_USAGE;
    char file[PATH_LEN], dir[PATH_LEN], rel[PATH_LEN];
    if (!learner_file(j, e, given, file, sizeof file)) return EXIT_USAGE;
    Progress p;
    if (!load_progress(j, &p)) return EXIT_USAGE;
    rel_path(j, file, rel, sizeof rel);
    strf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : file;
    if (slash) *slash = '\0';

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    bool tty = isatty(0);
    if (tty && tcgetattr(0, &saved_termios) == 0) {
        struct termios raw = saved_termios;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        termios_saved = true;
        atexit(restore_terminal);
        tcsetattr(0, TCSANOW, &raw);
    }
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (in >= 0 && inotify_add_watch(in, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
        close(in);
        in = -1;
    }
    bool stdin_open = true;
    double last_mtime = fs_mtime(file);
    while (!stop_watching) {
        if (isatty(1)) printf("\033[2J\033[H");
        printf("%swatch 模式：每次保存 %s 就重新评测；按 q 退出（或 Ctrl-C）%s\n", c_dim(j), rel, c_off(j));
        if (fs_exists(file))
            test_once(j, e, file, &p);
        else
            printf("%s 不见了：等它回来……\n", rel);
        fflush(stdout);
        /* wait for a save or a q */
        bool changed = false;
        while (!changed && !stop_watching) {
            struct pollfd fds[2];
            int nf = 0;
            if (stdin_open) fds[nf++] = (struct pollfd){0, POLLIN, 0};
            if (in >= 0) fds[nf++] = (struct pollfd){in, POLLIN, 0};
            int r = poll(fds, (nfds_t)nf, in >= 0 ? 1000 : 300);
            if (r < 0 && errno != EINTR) break;
            for (int k = 0; k < nf && r > 0; k++) {
                if (!(fds[k].revents & (POLLIN | POLLHUP))) continue;
                if (fds[k].fd == 0) {
                    char buf[64];
                    ssize_t got = read(0, buf, sizeof buf);
                    if (got <= 0) stdin_open = false;
                    for (ssize_t b = 0; b < got; b++)
                        if (buf[b] == 'q' || buf[b] == 'Q' || buf[b] == 4) stop_watching = 1;
                } else {
                    char buf[4096] __attribute__((aligned(8)));
                    ssize_t got = read(in, buf, sizeof buf);
                    for (char *ev = buf; got > 0 && ev < buf + got;) {
                        struct inotify_event *ie = (struct inotify_event *)ev;
                        if (ie->len && strcmp(ie->name, base) == 0) changed = true;
                        ev += sizeof *ie + ie->len;
                    }
                }
            }
            if (in < 0) { /* no inotify: poll the modification time */
                double t = fs_mtime(file);
                if (t != last_mtime) changed = true;
            }
        }
        if (changed) {
            /* an editor may write in several steps: let it finish */
            struct timespec ts = {0, 80 * 1000 * 1000};
            nanosleep(&ts, NULL);
            if (in >= 0) {
                char buf[4096];
                while (read(in, buf, sizeof buf) > 0) {
                }
            }
            last_mtime = fs_mtime(file);
        }
    }
    restore_terminal();
    if (in >= 0) close(in);
    printf("\n退出 watch 模式。\n");
    progress_free(&p);
    return EXIT_ACCEPTED;
}

/* ---- hint, solution, reset ------------------------------------------------------------------ */

static int cmd_hint(Judge *j, const char *arg) {
    Exercise *e = need_exercise(j, arg);
    if (!e) return EXIT_USAGE;
    Progress p;
    if (!load_progress(j, &p)) return EXIT_USAGE;
    char **tiers;
    int n = read_hints(e, &tiers);
    if (n == 0) {
        errorf("第 %03d 题没有提示（%s/hints.md 读不了）", e->number, e->slug);
        progress_free(&p);
        return EXIT_USAGE;
    }
    ProgressEntry *pe = progress_get(&p, e->number);
    int k = pe ? pe->hints : 0;
    if (k >= n) {
        printf("%s提示已经全部给过了（%d / %d）；再看一遍最后一条：%s\n", c_dim(j), n, n, c_off(j));
        k = n - 1;
    } else
        update_progress(j, e->number, PROGRESS_HINT, NULL);
    char *nl = strchr(tiers[k], '\n');
    printf("%s提示 %d / %d · %.*s%s\n", c_bold(j), k + 1, n,
           nl ? (int)(nl - tiers[k]) : (int)strlen(tiers[k]), tiers[k], c_off(j));
    if (nl) printf("%s\n", nl + 1 + (nl[1] == '\n'));
    if (k + 1 < n)
        printf("%s还卡着？再运行一次 %s hint %03d%s\n", c_dim(j), prog, e->number, c_off(j));
    else
        printf("%s还卡着？%s solution %03d 看参考答案%s\n", c_dim(j), prog, e->number, c_off(j));
    free_strings(tiers, n);
    progress_free(&p);
    return EXIT_ACCEPTED;
}

static int cmd_solution(Judge *j, const char *arg) {
    Exercise *e = need_exercise(j, arg);
    if (!e) return EXIT_USAGE;
    char path[PATH_LEN], explain[PATH_LEN], question[512];
    solution_file(e, path, sizeof path);
    fs_join(explain, sizeof explain, e->dir, ".solution/explain.md");
    char *code = fs_read(path, NULL), *text = fs_read(explain, NULL);
    if (!code) {
        errorf("第 %03d 题没有参考答案（%s/.solution/%s）", e->number, e->slug, e->file);
        free(text);
        return EXIT_USAGE;
    }
    strf(question, sizeof question,
         "要看第 %03d 题的参考答案吗？自己做出来收获最大（还可以先 %s hint %03d）。", e->number, prog,
         e->number);
    if (!ask_yes(j, question)) {
        printf("好，不看。继续加油。\n");
        free(code);
        free(text);
        return EXIT_REJECTED;
    }
    printf("%s── 参考答案 %s ──%s\n%s", c_bold(j), e->file, c_off(j), code);
    if (text) printf("\n%s── 讲解 ──%s\n%s", c_bold(j), c_off(j), text);
    free(code);
    free(text);
    return EXIT_ACCEPTED;
}

static int cmd_reset(Judge *j, const char *arg) {
    Exercise *e = need_exercise(j, arg);
    if (!e) return EXIT_USAGE;
    Progress p;
    if (!load_progress(j, &p)) return EXIT_USAGE;
    char ws[PATH_LEN], starter[PATH_LEN], rel[PATH_LEN], backup[PATH_LEN + 8], question[PATH_LEN + 256];
    workspace_file(j, e, ws, sizeof ws);
    starter_file(e, starter, sizeof starter);
    rel_path(j, ws, rel, sizeof rel);
    strf(backup, sizeof backup, "%s.bak", ws);
    int rc = EXIT_ACCEPTED;
    char *now = fs_read(ws, NULL), *orig = fs_read(starter, NULL);
    if (!orig) {
        errorf("读不了起始代码 %s/%s", e->slug, e->file);
        rc = EXIT_USAGE;
    } else if (now && strcmp(now, orig) == 0) {
        printf("%s 已经是起始代码了。\n", rel);
    } else {
        bool go = true;
        if (now) {
            strf(question, sizeof question, "把 %s 换回起始代码吗？你现在的代码会存成 %s.bak。", rel, rel);
            go = ask_yes(j, question);
        }
        if (!go) {
            printf("好，没有动它。\n");
            rc = EXIT_REJECTED;
        } else if (!fs_mkdirs(j->workspace) || (now && !fs_copy(ws, backup)) || !fs_copy(starter, ws)) {
            errorf("写不了 %s", rel);
            rc = EXIT_USAGE;
        } else {
            printf("%s 换回了起始代码%s。\n", rel, now ? "（旧的在 .bak 里）" : "");
            if (progress_status(&p, e->number) != ST_NONE) update_progress(j, e->number, PROGRESS_RESET, NULL);
        }
    }
    free(now);
    free(orig);
    progress_free(&p);
    return rc;
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    Judge j;
    memset(&j, 0, sizeof j);
    if (argc > 0 && argv[0][0]) prog = argv[0];
    enum { AUTO, ALWAYS, NEVER } color = AUTO;
    char *pos[32];
    int n_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "help")) {
            usage(stdout);
            return EXIT_ACCEPTED;
        } else if (!strcmp(a, "--color=never") || !strcmp(a, "--no-color"))
            color = NEVER;
        else if (!strcmp(a, "--color=always"))
            color = ALWAYS;
        else if (!strcmp(a, "--color=auto"))
            color = AUTO;
        else if (!strcmp(a, "--lang=en"))
            j.english = true;
        else if (!strcmp(a, "--lang=zh"))
            j.english = false;
        else if (!strcmp(a, "--yes") || !strcmp(a, "-y"))
            j.yes = true;
        else if (a[0] == '-' && a[1]) {
            errorf("不认识的选项 %s（%s --help 看用法）", a, prog);
            return EXIT_USAGE;
        } else if (n_pos < 32)
            pos[n_pos++] = argv[i];
        else {
            errorf("参数太多（%s --help 看用法）", prog);
            return EXIT_USAGE;
        }
    }
    if (n_pos == 0) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *term = getenv("TERM");
    j.color = color == ALWAYS ||
              (color == AUTO && isatty(1) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb")));
    const char *cmd = pos[0];
    static const struct {
        const char *name;
        int min_args, max_args;
    } commands[] = {{"list", 0, 0}, {"start", 1, 1},    {"test", 1, 2},  {"watch", 1, 2},
                    {"hint", 1, 1}, {"solution", 1, 1}, {"reset", 1, 1}, {"check", 0, 31}};
    int which = -1;
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (!strcmp(cmd, commands[k].name)) which = (int)k;
    if (which < 0) {
        errorf("不认识的命令 %s（%s --help 看用法）", cmd, prog);
        return EXIT_USAGE;
    }
    if (n_pos - 1 < commands[which].min_args || n_pos - 1 > commands[which].max_args) {
        errorf("%s 的参数不对（%s --help 看用法）", cmd, prog);
        return EXIT_USAGE;
    }
    sandbox_init();
    int rc = setup(&j);
    if (rc) return rc;
    const char *missing = sandbox_missing();
    if (missing && (which == 2 || which == 3 || which == 7)) errorf("注意：%s", missing);
    const char *a1 = n_pos > 1 ? pos[1] : NULL, *a2 = n_pos > 2 ? pos[2] : NULL;
    switch (which) {
    case 0:
        rc = cmd_list(&j);
        break;
    case 1:
        rc = cmd_start(&j, a1);
        break;
    case 2:
        rc = cmd_test(&j, a1, a2);
        break;
    case 3:
        rc = cmd_watch(&j, a1, a2);
        break;
    case 4:
        rc = cmd_hint(&j, a1);
        break;
    case 5:
        rc = cmd_solution(&j, a1);
        break;
    case 6:
        rc = cmd_reset(&j, a1);
        break;
    default:
        rc = cmd_check(&j, n_pos - 1, pos + 1);
    }
    free(j.ex);
    return rc;
}
