/* Exercise 241 (linear layer), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, zeros) and from PyTorch's F.linear
 * (expected.h, see make_expected.py). The inputs are in run.c. */
#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[4] = {3, -0.5f, 2, -1};
    const float *y = pt_got_floats("y", 4);
    pt_note("W = [[1, 2, 0], [0, −1, 0.5]]（out = 2，in = 3），x = (1, 1, 1) 和 (2, 0, −2)");
    pt_expect_close("y", y, want, 4, 0, 0, PT_SHAPE("t,o", 2, 2));
}

static void real_shape(int T, int in, int out, const float *want, const char *what) {
    const float *y = pt_got_floats("y", (size_t)T * out);
    pt_note("%s：%d 个 token，in = %d，out = %d，期望值是 PyTorch 的 F.linear（float64）", what, T, in, out);
    pt_expect_close("y", y, want, (size_t)T * out, 1e-5, 1e-4, PT_SHAPE("t,o", T, out));
}

static void down_proj(void) { real_shape(2, 3584, 1024, down_proj_y, "mlp.down_proj"); }
static void k_proj(void) { real_shape(3, 1024, 512, k_proj_y, "self_attn.k_proj"); }

static void zero_input(void) {
    const float *y = pt_got_floats("y", 512), *want = pt_zeros(512);
    pt_note("x 全是 0");
    pt_expect_close("y", y, want, 512, 0, 0, PT_SHAPE("o", 512));
}

PT_CHECKER({"worked_example", "题目里的例子：2 × 3 的 W，两个 token", worked_example},
           {"down_proj", "down_proj：3584 → 1024，2 个 token（PyTorch）", down_proj},
           {"k_proj", "k_proj：1024 → 512，3 个 token（PyTorch）", k_proj},
           {"zero_input", "全 0 的输入", zero_input})
