/* Exercise 223 (embedding), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, the bounds) and from PyTorch
 * (expected.h, see make_expected.py). The inputs are in run.c. */
#include <stdio.h>

#include "ptest_check.h"

#include "expected.h"

#define V 4096
#define H 1024

static void worked_example(void) {
    const float want[6] = {3, 1, 1, 0, 3, 1};
    pt_note("3 × 2 的表 (1, 0) / (0.5, −2) / (3, 1)，ids = {2, 0, 2}");
    pt_expect_int("embed_lookup 的返回值", pt_got_int("ret"), 0);
    pt_expect_close("out", pt_got_floats("out", 6), want, 6, 0, 0, PT_SHAPE("t,i", 3, 2));
    const float *untouched = pt_got_floats("out_bad", 4);
    pt_note("ids = {1, 3}：3 越界");
    pt_expect_int("embed_lookup 的返回值", pt_got_int("ret_bad"), -1);
    for (int i = 0; i < 4; i++)
        if (untouched[i] == untouched[i])
            pt_fail("返回 −1 时 out 不应该被写，out[%d] 却被写成了 %g", i, untouched[i]);
    const float want_logits[3] = {2, -1, 7};
    pt_note("h = (2, 1)");
    pt_expect_close("logits", pt_got_floats("logits", 3), want_logits, 3, 0, 0, PT_SHAPE("v", 3));
}

static void rows_1024(void) {
    pt_note("4096 × 1024 的 BF16 表，ids = {0, 4095, 17, 17, 1000, 2048}，期望值是 PyTorch 的 F.embedding");
    pt_expect_int("embed_lookup 的返回值", pt_got_int("ret"), 0);
    pt_expect_close("out", pt_got_floats("out", 6 * H), rows_want, 6 * H, 0, 0, PT_SHAPE("t,i", 6, H));
}

static void bad_ids(void) {
    /* the ids of each call are in run.c, in this order */
    static const char *const why[4] = {"id = vocab（最后一个合法的是 vocab − 1）", "负数的 id", "很大的 id",
                                       "id = vocab + 1"};
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "ret%d", k);
        long long r = pt_got_int(name);
        if (r != -1) pt_fail("%s：应该返回 −1，得到 %lld", why[k], r);
        snprintf(name, sizeof name, "out%d", k);
        const float *out = pt_got_floats(name, 3 * H);
        for (int i = 0; i < 3 * H; i++)
            if (out[i] == out[i]) pt_fail("%s：返回 −1 时一个数都不该写，out[%d] 却被写了", why[k], i);
    }
}

static void logits_4096(void) {
    pt_note("4096 个 logits，期望值是 PyTorch 的 table @ h（float64）");
    pt_expect_close("logits", pt_got_floats("logits", V), logits_want, V, 2e-5, 1e-4, PT_SHAPE("v", V));
}

static void no_tokens(void) { pt_expect_int("n = 0 时 embed_lookup 的返回值", pt_got_int("ret"), 0); }

PT_CHECKER({"worked_example", "题目里的例子：3 × 2 的表", worked_example},
           {"rows_1024", "4096 × 1024 的表：首行、末行、重复的 id", rows_1024},
           {"bad_ids", "越界的 id：返回 −1，什么都不写", bad_ids},
           {"logits_4096", "输出头：4096 个 logits（PyTorch）", logits_4096},
           {"no_tokens", "n = 0", no_tokens})
