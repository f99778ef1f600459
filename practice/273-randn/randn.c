/* 273. torch.randn —— 题目见 problem.md，评测：./practice/judge test 273
 * 引擎（rng_seed、rng_uniform_f32、rng_uniform_f64）在 tests/engine.c 里，已经写好。 */
#include <math.h>

#include "randn.h"

void randn(TorchRng *g, int n, float *out) {
    /* TODO:
     *   n >= 16：抽 n 个 float 均匀数；每个完整的 16 个一组做 Box–Muller（j 和 j + 8 配对）；
     *            n 不是 16 的倍数时，最后 16 个位置重新抽、再变换一次
     *   n < 16： 每个元素一个 double 的正态数（两个一组，第二个存进 g->cached，跨调用保留） */
}
