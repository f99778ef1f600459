/* 223. 词嵌入 —— 题目见 problem.md，评测：./practice/judge test 223 */
#include <stdint.h>
#include <string.h>

#include "embedding.h"

int embed_lookup(const int *ids, const uint16_t *table, int n, int vocab, int hidden, float *out) {
    /* TODO: 先检查全部 id，有一个不在 [0, vocab) 就返回 −1；
     *       再逐个 token 把第 ids[t] 行的 hidden 个 BF16 变成 float 写进 out 的第 t 行。 */
    return -1;
}

void tied_logits(const float *h, const uint16_t *table, int vocab, int hidden, float *logits) {
    /* TODO: 每一行 v：把这一行（BF16 → float）和 h 做点积，写进 logits[v]。 */
}
