/* Exercise 273 (torch.randn), the checker: what each case's numbers should be.
 * Expected values: PyTorch's own torch.randn after torch.manual_seed (expected.h, see
 * make_expected.py); the tolerance allows the last-bit differences between PyTorch's
 * vectorized log/sin/cos and the C library's. */
#include <math.h>

#include "ptest_check.h"

#include "expected.h"

#define ATOL 2e-6
#define RTOL 2e-6

/* The numbers of one sequence of calls (run.c's sequence), handed back under name. */
static void sequence(const char *name, size_t total, const float *want, const char *what) {
    const float *out = pt_got_floats(name, total);
    pt_note("%s", what);
    pt_expect_close("randn", out, want, total, ATOL, RTOL, PT_SHAPE("i", (int)total));
}

static void worked_example(void) {
    sequence("randn", 4, small4, "torch.manual_seed(0); torch.randn(4)：double 的路");
}

static void block_16(void) {
    sequence("randn", 16, block16, "torch.manual_seed(0); torch.randn(16)：一组 16 个");
}

static void tail_20_33(void) {
    sequence("randn_20", 20, tail20, "torch.manual_seed(0); torch.randn(20)：尾巴重新抽 16 个");
    sequence("randn_33", 33, tail33, "torch.manual_seed(0); torch.randn(33)");
}

static void cache_across_calls(void) {
    sequence("randn", 7, cache_3_3_1,
             "torch.manual_seed(0); randn(3); randn(3); randn(1)：缓存的那个数跨调用");
}

static void eights_not_sixteen(void) {
    sequence("randn", 32, eights, "torch.manual_seed(0); randn(8); randn(8); randn(16)");
}

static void book_k_v(void) {
    const float *k = pt_got_floats("k", 128), *v = pt_got_floats("v", 128);
    pt_note("第 7 章 ch07_deltanet.py：manual_seed(0); k = randn(1, 1, 1, 128); v = randn(1, 1, 1, 128)");
    pt_expect_close("k", k, book_k, 128, ATOL, RTOL, PT_SHAPE("i", 128));
    pt_expect_close("v", v, book_v, 128, ATOL, RTOL, PT_SHAPE("i", 128));
    double norm = 0;
    for (int i = 0; i < 128; i++) norm += (double)v[i] * v[i];
    norm = sqrt(norm);
    pt_expect(fabs(norm - 9.3454218) < 1e-5,
              "‖v‖ 应该是 9.3454218（书里距离的起点 4.673 = ‖v‖ / 2），得到 %.7f", norm);
}

static void big_table(void) {
    const float *x = pt_got_floats("randn", 128 * 128);
    size_t m = sizeof big_every97 / sizeof big_every97[0];
    float *every = pt_floats(m);
    for (size_t i = 0; i < m; i++) every[i] = x[i * 97];
    pt_note("torch.manual_seed(0); torch.randn(128, 128)：每隔 97 个取一个");
    pt_expect_close("randn[::97]", every, big_every97, m, ATOL, RTOL, PT_SHAPE("i", (int)m));
    double sum = 0, sq = 0;
    for (int i = 0; i < 128 * 128; i++) sum += x[i], sq += (double)x[i] * x[i];
    pt_expect(fabs(sum - big_moments[0]) < 1e-3 && fabs(sq - big_moments[1]) < 1e-2,
              "16384 个数的和与平方和应该是 %.4f、%.4f，得到 %.4f、%.4f", big_moments[0], big_moments[1], sum,
              sq);
}

static void other_seed(void) {
    sequence("randn", 105, seed1234, "torch.manual_seed(1234); randn(5); randn(100)");
}

PT_CHECKER({"worked_example", "题目里的例子：manual_seed(0); randn(4)", worked_example},
           {"block_16", "randn(16)：16 个一组的 float 路", block_16},
           {"tail_20_33", "randn(20)、randn(33)：尾巴重新抽", tail_20_33},
           {"cache_across_calls", "randn(3)、randn(3)、randn(1)：缓存跨调用", cache_across_calls},
           {"eights_not_sixteen", "randn(8) 两次不等于 randn(16)", eights_not_sixteen},
           {"book_k_v", "书里第 7 章的 k、v：‖v‖ = 9.3454", book_k_v},
           {"big_table", "randn(128, 128)", big_table}, {"other_seed", "种子 1234", other_seed})
