/* 274. 拼出一层：pre-norm 的解码器块 —— 题目见 problem.md，评测：./practice/judge test 274 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_block.h"

void decoder_block(const DecoderBlock *b, const float *x, int T, float *out) {
    /* TODO:
     *   1. n1 = RMSNorm(x; input_norm)，全部 T 个 token
     *   2. 一次调用 mixer(ctx, n1, T, hidden, y)，h = x + y
     *   3. n2 = RMSNorm(h; post_norm)
     *   4. out = h + SwiGLU(n2) */
}
