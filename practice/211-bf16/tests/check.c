/* Exercise 211 (bf16 ↔ float32), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, the definition of widening) and
 * PyTorch's own conversion (expected.h). The inputs are in run.c and inputs.h. */
#include <string.h>

#include "ptest_check.h"

#include "expected.h"

static float from_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* f32_to_bf16 of every pattern of in (handed back as h), compared with want. */
static void round_all(const char *what, const uint32_t *in, const uint16_t *want, size_t n) {
    const uint16_t *got = pt_got_u16s("h", n);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            pt_note("输入 float32 的位是 0x%08x（%.9g）", in[i], from_bits(in[i]));
            break;
        }
    pt_expect_u16s(what, got, want, n);
}

static void worked_example(void) {
    const uint32_t in[4] = {0x3F800000u, 0x40490FDBu, 0x3F808000u, 0x3F818000u};
    const uint16_t want[4] = {0x3F80, 0x4049, 0x3F80, 0x3F82};
    round_all("f32_to_bf16", in, want, 4);
    const float *back = pt_got_floats("back", 2); /* bf16_to_f32 of 0x4049, 0x3F80 */
    pt_expect(back[0] == 3.140625f, "bf16_to_f32(0x4049) 应该是 3.140625，得到 %.9g", back[0]);
    pt_expect(back[1] == 1.0f, "bf16_to_f32(0x3F80) 应该是 1，得到 %.9g", back[1]);
}

static void widen_all(void) {
    const uint32_t *bits = pt_got_u32s("bits", 65536);
    for (uint32_t h = 0; h < 65536; h++)
        if (bits[h] != h << 16)
            pt_fail("bf16_to_f32(0x%04x) 的位应该是 0x%08x，得到 0x%08x", h, h << 16, bits[h]);
}

static void round_torch(void) {
    pt_note("3000 个随机的 float32 位模式，期望值是 PyTorch 的 .to(torch.bfloat16)");
    round_all("f32_to_bf16", round_in, round_want, sizeof round_in / sizeof round_in[0]);
}

static void ties_to_even(void) {
    pt_note("低 16 位是 0x7FFF、0x8000、0x8001，正负都有，期望值来自 PyTorch");
    round_all("f32_to_bf16", ties_in, ties_want, sizeof ties_in / sizeof ties_in[0]);
}

static void edges(void) {
    pt_note("±0、非规格化数、最小规格化数、最大有限数（舍入成 inf）、±inf，期望值来自 PyTorch");
    round_all("f32_to_bf16", edges_in, edges_want, sizeof edges_in / sizeof edges_in[0]);
}

static void nan_stays_nan(void) {
    const uint32_t nans[] = {0x7F800001u, 0x7FC00000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFF800001u, 0x7F80FFFFu};
    const size_t n = sizeof nans / sizeof nans[0];
    const uint16_t *h = pt_got_u16s("h", n);
    for (size_t i = 0; i < n; i++)
        if ((h[i] & 0x7F80) != 0x7F80 || (h[i] & 0x007F) == 0)
            pt_fail("NaN（位 0x%08x）变成了 0x%04x，不是 NaN（NaN 的 BF16：指数全 1，尾数不为 0）", nans[i],
                    h[i]);
}

static void roundtrip(void) {
    const uint16_t *back = pt_got_u16s("back", 65536);
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7F80) == 0x7F80 && (h & 0x7F)) continue; /* NaN: run.c leaves them out */
        if (back[h] != h)
            pt_fail("0x%04x → float32 → 0x%04x：每个 BF16 都能精确表示成 float32，转回来应该不变", h,
                    back[h]);
    }
}

PT_CHECKER({"worked_example", "题目里的例子：1、π 和两个正好一半", worked_example},
           {"widen_all", "全部 65536 个 BF16 变成 float32", widen_all},
           {"round_torch", "3000 个 float32 和 PyTorch 逐位对比", round_torch},
           {"ties_to_even", "正好一半：取偶数（正负都有）", ties_to_even},
           {"edges", "±0、非规格化数、最大有限数、±inf", edges},
           {"nan_stays_nan", "NaN 还是 NaN", nan_stays_nan},
           {"roundtrip", "BF16 → float32 → BF16 不变", roundtrip})
