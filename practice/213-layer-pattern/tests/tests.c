/* Tests of exercise 213 (layer pattern). Every expected value is worked out by hand
 * from the rules; the real list is the 0.8B's config.json. */
#include <string.h>

#include "ptest.h"
#include "layer_pattern.h"

#define LIN  "linear_attention"
#define FULL "full_attention"

static void expect_pattern(int n, const char *const *types, int n_types, int interval,
                           const char *want_pattern, int want) {
    char *pattern = pt_bytes((size_t)n + 1);
    int r = layer_pattern(n, types, n_types, interval, pattern);
    pt_note("n_layers = %d，layer_types %s（%d 个），interval = %d", n, types ? "给了" : "是 NULL", n_types,
            interval);
    pt_expect_int("返回值（全注意力的层数）", r, want);
    if (!memchr(pattern, '\0', (size_t)n + 1)) pt_fail("pattern 没有以 '\\0' 结尾");
    pt_expect_str("pattern", pattern, want_pattern);
}

static void expect_invalid(int n, const char *const *types, int n_types, int interval, const char *why) {
    char *pattern = pt_bytes(n > 0 ? (size_t)n + 1 : 1);
    int r = layer_pattern(n, types, n_types, interval, pattern);
    if (r != -1) {
        pt_note("n_layers = %d，layer_types %s（%d 个），interval = %d", n, types ? "给了" : "是 NULL",
                n_types, interval);
        pt_fail("%s：应该返回 −1，得到 %d", why, r);
    }
}

static const char *const real_types[24] = {LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL,
                                           LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL};

static void worked_example(void) { expect_pattern(8, NULL, 0, 4, "LLLFLLLF", 2); }

static void real_list(void) {
    pt_note("0.8B 的 config.json：text_config.layer_types");
    expect_pattern(24, real_types, 24, 4, "LLLFLLLFLLLFLLLFLLLFLLLF", 6);
}

static void fallback_24(void) { expect_pattern(24, NULL, 0, 4, "LLLFLLLFLLLFLLLFLLLFLLLF", 6); }

static void list_wins(void) {
    static const char *const odd[6] = {FULL, LIN, LIN, LIN, FULL, FULL};
    pt_note("列表说第 0、4、5 层是全注意力，interval = 4 说是第 3 层：以列表为准");
    expect_pattern(6, odd, 6, 4, "FLLLFF", 3);
}

static void interval_edges(void) {
    expect_pattern(5, NULL, 0, 1, "FFFFF", 5);
    expect_pattern(24, NULL, 0, 24, "LLLLLLLLLLLLLLLLLLLLLLLF", 1);
    expect_pattern(6, NULL, 0, 100, "LLLLLL", 0);
    expect_pattern(1, NULL, 0, 1, "F", 1);
}

static void bad_configs(void) {
    static const char *const typo[4] = {LIN, LIN, LIN, "full"};
    static const char *const longer[4] = {LIN, LIN, LIN, "full_attention_x"};
    static const char *const space[4] = {LIN, LIN, LIN, "full_attention "};
    static const char *const shorter[4] = {LIN, LIN, "linear", FULL};
    static const char *const empty[4] = {LIN, "", LIN, FULL};
    static const char *const with_null[4] = {LIN, NULL, LIN, FULL};
    expect_invalid(24, real_types, 23, 4, "layer_types 只有 23 个，层数是 24");
    expect_invalid(23, real_types, 24, 4, "layer_types 有 24 个，层数是 23");
    expect_invalid(4, typo, 4, 4, "\"full\" 不是合法的层类型");
    expect_invalid(4, longer, 4, 4, "\"full_attention_x\" 不是合法的层类型");
    expect_invalid(4, space, 4, 4, "\"full_attention \"（多了空格）不是合法的层类型");
    expect_invalid(4, shorter, 4, 4, "\"linear\" 不是合法的层类型");
    expect_invalid(4, empty, 4, 4, "空字符串不是合法的层类型");
    expect_invalid(4, with_null, 4, 4, "列表里有 NULL");
    expect_invalid(8, NULL, 0, 0, "interval = 0（而且不能拿 0 去做 %）");
    expect_invalid(8, NULL, 0, -4, "interval 是负数");
    expect_invalid(0, NULL, 0, 4, "0 层");
    expect_invalid(-3, NULL, 0, 4, "负数的层数");
}

PT_MAIN({"worked_example", "题目里的例子：8 层，interval = 4", worked_example},
        {"real_list", "0.8B 的真实 layer_types", real_list},
        {"fallback_24", "没有 layer_types：24 层按 interval = 4", fallback_24},
        {"list_wins", "layer_types 和 interval 不一致：以列表为准", list_wins},
        {"interval_edges", "interval = 1、= 层数、比层数还大", interval_edges},
        {"bad_configs", "坏配置：个数、拼写、空格、NULL、interval ≤ 0", bad_configs})
