/* Tests of exercise 241 (linear layer). Expected values: by hand (the worked
 * example, zeros) and from PyTorch's F.linear (expected.h, see make_expected.py). */
#include <string.h>

#include "ptest.h"
#include "linear.h"

#include "expected.h"

static uint16_t to_bf16(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}

/* W [out, in] drawn with pt_fill and rounded to BF16, as make_expected.py does. */
static uint16_t *weights(int out, int in, uint32_t seed) {
    size_t n = (size_t)out * in;
    float *f = pt_floats(n);
    pt_fill(f, n, seed, 0.03f);
    uint16_t *w = pt_bytes(n * sizeof *w);
    for (size_t i = 0; i < n; i++) w[i] = to_bf16(f[i]);
    return w;
}

static void worked_example(void) {
    const uint16_t w0[6] = {0x3F80, 0x4000, 0x0000, 0x0000, 0xBF80, 0x3F00};
    const float x0[6] = {1, 1, 1, 2, 0, -2}, want[4] = {3, -0.5f, 2, -1};
    uint16_t *w = pt_dup(w0, sizeof w0);
    float *x = pt_copy(x0, 6), *y = pt_floats(4);
    linear_bf16(x, w, 2, 3, 2, y);
    pt_note("W = [[1, 2, 0], [0, −1, 0.5]]（out = 2，in = 3），x = (1, 1, 1) 和 (2, 0, −2)");
    pt_expect_close("y", y, want, 4, 0, 0, PT_SHAPE("t,o", 2, 2));
}

static void real_shape(int T, int in, int out, uint32_t seed, const float *want, const char *what) {
    uint16_t *w = weights(out, in, seed);
    float *x = pt_floats((size_t)T * in), *y = pt_floats((size_t)T * out);
    pt_fill(x, (size_t)T * in, seed + 1, 1.0f);
    linear_bf16(x, w, T, in, out, y);
    pt_note("%s：%d 个 token，in = %d，out = %d，期望值是 PyTorch 的 F.linear（float64）", what, T, in, out);
    pt_expect_close("y", y, want, (size_t)T * out, 1e-5, 1e-4, PT_SHAPE("t,o", T, out));
}

static void down_proj(void) { real_shape(2, 3584, 1024, 41, down_proj_y, "mlp.down_proj"); }
static void k_proj(void) { real_shape(3, 1024, 512, 43, k_proj_y, "self_attn.k_proj"); }

static void zero_input(void) {
    uint16_t *w = weights(512, 1024, 43);
    float *x = pt_zeros(1024), *y = pt_floats(512), *want = pt_zeros(512);
    linear_bf16(x, w, 1, 1024, 512, y);
    pt_note("x 全是 0");
    pt_expect_close("y", y, want, 512, 0, 0, PT_SHAPE("o", 512));
}

PT_MAIN({"worked_example", "题目里的例子：2 × 3 的 W，两个 token", worked_example},
        {"down_proj", "down_proj：3584 → 1024，2 个 token（PyTorch）", down_proj},
        {"k_proj", "k_proj：1024 → 512，3 个 token（PyTorch）", k_proj},
        {"zero_input", "全 0 的输入", zero_input})
