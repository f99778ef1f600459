/* Tests of exercise 223 (embedding). Expected values: by hand (the worked example,
 * the bounds) and from PyTorch (expected.h, see make_expected.py). */
#include <string.h>

#include "ptest.h"
#include "embedding.h"

#include "expected.h"

#define V 4096
#define H 1024

/* float32 → bf16 bits, round to nearest even (the inputs here are never NaN). */
static uint16_t to_bf16(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}

/* The [V, H] table of make_expected.py. */
static uint16_t *big_table(void) {
    float *f = pt_floats((size_t)V * H);
    pt_fill(f, (size_t)V * H, 31, 0.05f);
    uint16_t *t = pt_bytes((size_t)V * H * sizeof *t);
    for (size_t i = 0; i < (size_t)V * H; i++) t[i] = to_bf16(f[i]);
    return t;
}

static const uint16_t small[6] = {0x3F80, 0x0000, 0x3F00, 0xC000, 0x4040, 0x3F80};

static void worked_example(void) {
    const int ids[3] = {2, 0, 2};
    const float want[6] = {3, 1, 1, 0, 3, 1};
    uint16_t *table = pt_dup(small, sizeof small);
    float *out = pt_floats(6);
    pt_note("3 × 2 的表 (1, 0) / (0.5, −2) / (3, 1)，ids = {2, 0, 2}");
    pt_expect_int("embed_lookup 的返回值", embed_lookup(table, 3, 2, ids, 3, out), 0);
    pt_expect_close("out", out, want, 6, 0, 0, PT_SHAPE("t,i", 3, 2));
    const int bad[2] = {1, 3};
    float *untouched = pt_floats(4);
    pt_note("ids = {1, 3}：3 越界");
    pt_expect_int("embed_lookup 的返回值", embed_lookup(table, 3, 2, bad, 2, untouched), -1);
    for (int i = 0; i < 4; i++)
        if (untouched[i] == untouched[i])
            pt_fail("返回 −1 时 out 不应该被写，out[%d] 却被写成了 %g", i, untouched[i]);
    const float h0[2] = {2, 1}, want_logits[3] = {2, -1, 7};
    float *h = pt_copy(h0, 2), *logits = pt_floats(3);
    tied_logits(table, 3, 2, h, logits);
    pt_note("h = (2, 1)");
    pt_expect_close("logits", logits, want_logits, 3, 0, 0, PT_SHAPE("v", 3));
}

static void rows_1024(void) {
    uint16_t *table = big_table();
    const int ids[6] = {0, V - 1, 17, 17, 1000, 2048};
    float *out = pt_floats(6 * H);
    pt_note("4096 × 1024 的 BF16 表，ids = {0, 4095, 17, 17, 1000, 2048}，期望值是 PyTorch 的 F.embedding");
    pt_expect_int("embed_lookup 的返回值", embed_lookup(table, V, H, ids, 6, out), 0);
    pt_expect_close("out", out, rows_want, 6 * H, 0, 0, PT_SHAPE("t,i", 6, H));
}

static void bad_ids(void) {
    uint16_t *table = big_table();
    static const struct {
        int ids[3];
        const char *why;
    } bad[] = {{{5, 6, V}, "id = vocab（最后一个合法的是 vocab − 1）"},
               {{5, -1, 6}, "负数的 id"},
               {{1 << 30, 0, 0}, "很大的 id"},
               {{0, 1, V + 1}, "id = vocab + 1"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        float *out = pt_floats(3 * H);
        int r = embed_lookup(table, V, H, bad[k].ids, 3, out);
        if (r != -1) pt_fail("%s：应该返回 −1，得到 %d", bad[k].why, r);
        for (int i = 0; i < 3 * H; i++)
            if (out[i] == out[i]) pt_fail("%s：返回 −1 时一个数都不该写，out[%d] 却被写了", bad[k].why, i);
    }
}

static void logits_4096(void) {
    uint16_t *table = big_table();
    float *h = pt_floats(H), *logits = pt_floats(V);
    pt_fill(h, H, 32, 1.0f);
    tied_logits(table, V, H, h, logits);
    pt_note("4096 个 logits，期望值是 PyTorch 的 table @ h（float64）");
    pt_expect_close("logits", logits, logits_want, V, 2e-5, 1e-4, PT_SHAPE("v", V));
}

static void no_tokens(void) {
    uint16_t *table = pt_dup(small, sizeof small);
    float *out = pt_floats(1);
    pt_expect_int("n = 0 时 embed_lookup 的返回值", embed_lookup(table, 3, 2, NULL, 0, out), 0);
}

PT_MAIN({"worked_example", "题目里的例子：3 × 2 的表", worked_example},
        {"rows_1024", "4096 × 1024 的表：首行、末行、重复的 id", rows_1024},
        {"bad_ids", "越界的 id：返回 −1，什么都不写", bad_ids},
        {"logits_4096", "输出头：4096 个 logits（PyTorch）", logits_4096}, {"no_tokens", "n = 0", no_tokens})
