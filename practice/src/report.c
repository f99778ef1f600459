/* report.c — printing a run the way the book's judge does: a line per case (✓ / ✗,
 * name, time), under a failing case its message and the values involved, and a
 * verdict line at the end ("通过：5 / 5 个用例通过"). */
#include "judge.h"

#include <string.h>

#define TITLE_WIDTH 52

static void print_case(const Judge *j, const CaseResult *c, bool full, const CaseResult *first_bad) {
    const char *mark = c->v == V_PASS ? "✓" : c->v == V_SKIPPED ? "·" : "✗";
    const char *colour = c->v == V_PASS ? c_green(j) : c->v == V_SKIPPED ? c_dim(j) : c_red(j);
    printf("  %s%s%s ", colour, mark, c_off(j));
    print_padded(c->title, TITLE_WIDTH);
    if (c->v == V_SKIPPED)
        printf(" %s没有运行%s\n", c_dim(j), c_off(j));
    else
        printf(" %s%5.0f ms%s\n", c_dim(j), c->ms, c_off(j));
    if (c->v != V_PASS && c->v != V_SKIPPED && !full && first_bad && first_bad->v == c->v &&
        !strcmp(first_bad->message, c->message) && c->v != V_WRONG)
        printf("      %s（%s，和上面一样）%s\n", c_dim(j), verdict_name(c->v), c_off(j));
    else if (c->v != V_PASS && c->v != V_SKIPPED) {
        printf("      %s%s%s：%s\n", c_red(j), verdict_name(c->v), c_off(j), c->message);
        int shown = full ? c->n_lines : (c->n_lines < 1 ? c->n_lines : 1);
        for (int i = 0; i < shown; i++) printf("      %s\n", c->lines[i]);
    }
    if (c->out_bytes > 0)
        printf("      %sⓘ 你的代码往 stdout 打印了 %lld 字节（评测只看结果，不看打印）：第一行「%s」%s\n",
               c_dim(j), c->out_bytes, c->first_out, c_off(j));
    if (c->err_bytes > 0)
        printf("      %sⓘ 你的代码往 stderr 打印了 %lld 字节（评测只看结果，不看打印）%s\n", c_dim(j),
               c->err_bytes, c_off(j));
}

void print_run(const Judge *j, const Exercise *e, const char *file, const TestRun *run) {
    char rel[PATH_LEN];
    rel_path(j, file, rel, sizeof rel);
    printf("%s%03d. %s%s  %s%s%s\n", c_bold(j), e->number, exercise_title(j, e), c_off(j), c_dim(j), rel,
           c_off(j));
    if (run->setup_error[0]) {
        printf("%s评测没法开始%s：%s\n", c_red(j), c_off(j), run->setup_error);
        for (int i = 0; i < run->n_compile_lines; i++) printf("    %s\n", run->compile_lines[i]);
        return;
    }
    if (run->verdict == V_COMPILE) {
        printf("%s编译错误%s：%s 没有编译通过，用例都还没有运行（编译 %.2f s）\n", c_red(j), c_off(j), rel,
               run->compile_s);
        for (int i = 0; i < run->n_compile_lines; i++) printf("    %s\n", run->compile_lines[i]);
        return;
    }
    printf("  %s编译 compile %.2f s%s\n", c_dim(j), run->compile_s, c_off(j));
    if (run->n_warnings > 0) {
        printf("  %s⚠ 编译警告 %d 个 warning（不影响评测，可常常就是 bug）：%s\n", c_yellow(j),
               run->n_warnings, c_off(j));
        for (int i = 0; i < run->n_compile_lines; i++) printf("    %s\n", run->compile_lines[i]);
    }
    const CaseResult *first_bad = NULL;
    for (int i = 0; i < run->total; i++) {
        const CaseResult *c = &run->cases[i];
        bool full = false;
        if (c->v != V_PASS && c->v != V_SKIPPED && !first_bad) {
            first_bad = c;
            full = true;
        }
        print_case(j, c, full, first_bad);
    }
    int skipped = 0;
    for (int i = 0; i < run->total; i++) skipped += run->cases[i].v == V_SKIPPED;
    if (skipped) printf("  %s（前面的用例超时了，剩下 %d 个没有运行）%s\n", c_dim(j), skipped, c_off(j));
    const char *colour = run->verdict == V_PASS ? c_green(j) : c_red(j);
    printf("%s%s%s：%d / %d 个用例通过%s\n", c_bold(j), colour, verdict_name(run->verdict), run->passed,
           run->total, c_off(j));
    if (first_bad) {
        printf("    第一个没通过的：%s —— %s\n", first_bad->title, first_bad->message);
        if (first_bad->n_lines && first_bad->v != V_WRONG) printf("    %s\n", first_bad->lines[0]);
    }
}
