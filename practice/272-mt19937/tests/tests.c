/* Tests of exercise 272 (MT19937). Expected values: the C++ standard's required
 * value, numpy's RandomState (seeded as std::mt19937) and PyTorch's torch.rand
 * (expected.h, see make_expected.py). */
#include <string.h>

#include "ptest.h"
#include "mt19937.h"

#include "expected.h"

static Mt19937 *engine(void) { return pt_bytes(sizeof(Mt19937)); }

static void draws(uint32_t seed, const uint32_t *want, size_t n) {
    Mt19937 *g = engine();
    mt_seed(g, seed);
    uint32_t *got = pt_dup(want, n * sizeof *got);
    for (size_t i = 0; i < n; i++) got[i] = mt_next(g);
    pt_note("种子 %u，前 %zu 个数", seed, n);
    pt_expect_u32s("mt_next", got, want, n);
}

static void worked_example(void) {
    const uint32_t want[2] = {2357136044u, 2546248239u};
    draws(0, want, 2);
    Mt19937 *g = engine();
    mt_seed(g, 0);
    float u = mt_uniform_f32(g), want_u = 0.496256590f;
    pt_note("种子 0 的第一个 float32：8325548 / 2^24");
    pt_expect_same_bits("mt_uniform_f32", &u, &want_u, 1, PT_FLAT);
    mt_seed(g, 0);
    double d = mt_uniform_f64(g);
    pt_expect(d == 0.97005300180655312, "重新播种 0 之后第一个 float64 应该是 0.9700530018065531，得到 %.16g",
              d);
}

static void thousand_draws(void) { draws(0, seed0_draws, 1300); }

static void other_seeds(void) {
    draws(1, seed1_draws, 5);
    draws(42, seed42_draws, 5);
    draws(4294967295u, seed4294967295_draws, 5);
}

static void cpp_standard(void) {
    Mt19937 *g = engine();
    mt_seed(g, 5489);
    uint32_t x = 0;
    for (int i = 0; i < 10000; i++) x = mt_next(g);
    pt_expect(x == 4123659995u, "种子 5489 的第 10000 个数应该是 4123659995（C++ 标准的要求），得到 %u", x);
}

static void uniform_f32(void) {
    Mt19937 *g = engine();
    mt_seed(g, 0);
    float *got = pt_floats(700);
    for (int i = 0; i < 700; i++) got[i] = mt_uniform_f32(g);
    pt_note("torch.manual_seed(0); torch.rand(700)");
    pt_expect_same_bits("mt_uniform_f32", got, uniform_f32_want, 700, PT_SHAPE("i", 700));
}

static void uniform_f64(void) {
    Mt19937 *g = engine();
    mt_seed(g, 0);
    for (int i = 0; i < 400; i++) {
        double d = mt_uniform_f64(g);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        if (bits != uniform_f64_bits[i]) {
            double want;
            memcpy(&want, &uniform_f64_bits[i], sizeof want);
            pt_fail("torch.rand(400, dtype=torch.float64) 的第 %d 个：期望 expected %.17g，得到 got %.17g", i,
                    want, d);
        }
    }
}

static void reseed(void) {
    Mt19937 *g = engine();
    mt_seed(g, 0);
    for (int i = 0; i < 5; i++) mt_next(g);
    mt_seed(g, 0);
    uint32_t first = mt_next(g);
    pt_expect(first == 2357136044u, "取过几个数之后重新播种 0，第一个数应该又是 2357136044，得到 %u", first);
}

PT_MAIN({"worked_example", "题目里的例子：种子 0 的头两个数", worked_example},
        {"thousand_draws", "种子 0 的前 1300 个数（两次旋转）", thousand_draws},
        {"other_seeds", "种子 1、42、2^32 − 1", other_seeds},
        {"cpp_standard", "种子 5489 的第 10000 个数是 4123659995", cpp_standard},
        {"uniform_f32", "torch.rand 的 700 个 float32，逐位对比", uniform_f32},
        {"uniform_f64", "torch.rand 的 400 个 float64，逐位对比", uniform_f64},
        {"reseed", "重新播种从头开始", reseed})
