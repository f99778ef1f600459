/* Exercise 272 (MT19937), the checker: what each case's numbers should be. Expected
 * values: the C++ standard's required value, numpy's RandomState (seeded as
 * std::mt19937) and PyTorch's torch.rand (expected.h, see make_expected.py). */
#include <string.h>

#include "ptest_check.h"

#include "expected.h"

static double double_of(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static void draws(const char *name, uint32_t seed, const uint32_t *want, size_t n) {
    const uint32_t *got = pt_got_u32s(name, n);
    pt_note("种子 %u，前 %zu 个数", seed, n);
    pt_expect_u32s("mt_next", got, want, n);
}

static void worked_example(void) {
    const uint32_t want[2] = {2357136044u, 2546248239u};
    draws("mt_next", 0, want, 2);
    const float *u = pt_got_floats("mt_uniform_f32", 1), want_u = 0.496256590f;
    pt_note("种子 0 的第一个 float32：8325548 / 2^24");
    pt_expect_same_bits("mt_uniform_f32", u, &want_u, 1, PT_FLAT);
    double d = double_of(pt_got_u64("mt_uniform_f64_bits"));
    pt_expect(d == 0.97005300180655312, "重新播种 0 之后第一个 float64 应该是 0.9700530018065531，得到 %.16g",
              d);
}

static void thousand_draws(void) { draws("mt_next", 0, seed0_draws, 1300); }

static void other_seeds(void) {
    draws("seed_1", 1, seed1_draws, 5);
    draws("seed_42", 42, seed42_draws, 5);
    draws("seed_4294967295", 4294967295u, seed4294967295_draws, 5);
}

static void cpp_standard(void) {
    unsigned long long x = pt_got_u64("draw_10000");
    pt_expect(x == 4123659995u, "种子 5489 的第 10000 个数应该是 4123659995（C++ 标准的要求），得到 %llu", x);
}

static void uniform_f32(void) {
    const float *got = pt_got_floats("mt_uniform_f32", 700);
    pt_note("torch.manual_seed(0); torch.rand(700)");
    pt_expect_same_bits("mt_uniform_f32", got, uniform_f32_want, 700, PT_SHAPE("i", 700));
}

static void uniform_f64(void) {
    const uint32_t *halves = pt_got_u32s("mt_uniform_f64_halves", 800);
    for (int i = 0; i < 400; i++) {
        uint64_t bits = (uint64_t)halves[2 * i + 1] << 32 | halves[2 * i];
        if (bits != uniform_f64_bits[i])
            pt_fail("torch.rand(400, dtype=torch.float64) 的第 %d 个：期望 expected %.17g，得到 got %.17g", i,
                    double_of(uniform_f64_bits[i]), double_of(bits));
    }
}

static void reseed(void) {
    unsigned long long first = pt_got_u64("first");
    pt_expect(first == 2357136044u, "取过几个数之后重新播种 0，第一个数应该又是 2357136044，得到 %llu",
              first);
}

PT_CHECKER({"worked_example", "题目里的例子：种子 0 的头两个数", worked_example},
           {"thousand_draws", "种子 0 的前 1300 个数（两次旋转）", thousand_draws},
           {"other_seeds", "种子 1、42、2^32 − 1", other_seeds},
           {"cpp_standard", "种子 5489 的第 10000 个数是 4123659995", cpp_standard},
           {"uniform_f32", "torch.rand 的 700 个 float32，逐位对比", uniform_f32},
           {"uniform_f64", "torch.rand 的 400 个 float64，逐位对比", uniform_f64},
           {"reseed", "重新播种从头开始", reseed})
