/* Exercise 213 (layer pattern), the checker: what each case's outputs should be.
 * Every expected value is worked out by hand from the rules; the real list is the
 * 0.8B's config.json. The configs are in run.c: call k of a case here is call k
 * there, with the same n_layers, list (given or NULL), count and interval. */
#include <stdio.h>
#include <string.h>

#include "ptest_check.h"

#define GIVEN true  /* layer_types is a list */
#define NONE  false /* layer_types is NULL */

static long long got_r(int k) {
    char name[32];
    snprintf(name, sizeof name, "%d.r", k);
    return pt_got_int(name);
}

static void expect_pattern(int k, int n, bool types, int n_types, int interval, const char *want_pattern,
                           int want) {
    char name[32];
    snprintf(name, sizeof name, "%d.pattern", k);
    const int *bytes = pt_got_ints(name, (size_t)n + 1);
    char *pattern = pt_bytes((size_t)n + 2);
    for (int i = 0; i <= n; i++) pattern[i] = (char)bytes[i];
    pattern[n + 1] = '\0';
    long long r = got_r(k);
    pt_note("n_layers = %d，layer_types %s（%d 个），interval = %d", n, types ? "给了" : "是 NULL", n_types,
            interval);
    pt_expect_int("返回值（全注意力的层数）", r, want);
    if (!memchr(pattern, '\0', (size_t)n + 1)) pt_fail("pattern 没有以 '\\0' 结尾");
    pt_expect_str("pattern", pattern, want_pattern);
}

static void expect_invalid(int k, int n, bool types, int n_types, int interval, const char *why) {
    long long r = got_r(k);
    if (r != -1) {
        pt_note("n_layers = %d，layer_types %s（%d 个），interval = %d", n, types ? "给了" : "是 NULL",
                n_types, interval);
        pt_fail("%s：应该返回 −1，得到 %lld", why, r);
    }
}

static void worked_example(void) { expect_pattern(0, 8, NONE, 0, 4, "LLLFLLLF", 2); }

static void real_list(void) {
    pt_note("0.8B 的 config.json：text_config.layer_types");
    expect_pattern(0, 24, GIVEN, 24, 4, "LLLFLLLFLLLFLLLFLLLFLLLF", 6);
}

static void fallback_24(void) { expect_pattern(0, 24, NONE, 0, 4, "LLLFLLLFLLLFLLLFLLLFLLLF", 6); }

static void list_wins(void) {
    pt_note("列表说第 0、4、5 层是全注意力，interval = 4 说是第 3 层：以列表为准");
    expect_pattern(0, 6, GIVEN, 6, 4, "FLLLFF", 3);
}

static void interval_edges(void) {
    expect_pattern(0, 5, NONE, 0, 1, "FFFFF", 5);
    expect_pattern(1, 24, NONE, 0, 24, "LLLLLLLLLLLLLLLLLLLLLLLF", 1);
    expect_pattern(2, 6, NONE, 0, 100, "LLLLLL", 0);
    expect_pattern(3, 1, NONE, 0, 1, "F", 1);
}

static void bad_configs(void) {
    expect_invalid(0, 24, GIVEN, 23, 4, "layer_types 只有 23 个，层数是 24");
    expect_invalid(1, 23, GIVEN, 24, 4, "layer_types 有 24 个，层数是 23");
    expect_invalid(2, 4, GIVEN, 4, 4, "\"full\" 不是合法的层类型");
    expect_invalid(3, 4, GIVEN, 4, 4, "\"full_attention_x\" 不是合法的层类型");
    expect_invalid(4, 4, GIVEN, 4, 4, "\"full_attention \"（多了空格）不是合法的层类型");
    expect_invalid(5, 4, GIVEN, 4, 4, "\"linear\" 不是合法的层类型");
    expect_invalid(6, 4, GIVEN, 4, 4, "空字符串不是合法的层类型");
    expect_invalid(7, 4, GIVEN, 4, 4, "列表里有 NULL");
    expect_invalid(8, 8, NONE, 0, 0, "interval = 0（而且不能拿 0 去做 %）");
    expect_invalid(9, 8, NONE, 0, -4, "interval 是负数");
    expect_invalid(10, 0, NONE, 0, 4, "0 层");
    expect_invalid(11, -3, NONE, 0, 4, "负数的层数");
}

PT_CHECKER({"worked_example", "题目里的例子：8 层，interval = 4", worked_example},
           {"real_list", "0.8B 的真实 layer_types", real_list},
           {"fallback_24", "没有 layer_types：24 层按 interval = 4", fallback_24},
           {"list_wins", "layer_types 和 interval 不一致：以列表为准", list_wins},
           {"interval_edges", "interval = 1、= 层数、比层数还大", interval_edges},
           {"bad_configs", "坏配置：个数、拼写、空格、NULL、interval ≤ 0", bad_configs})
