/* 213. 从 config 读出每层的类型 —— 题目见 problem.md，评测：./practice/judge test 213 */
#include <string.h>

#include "layer_pattern.h"

int layer_pattern(const char *const *layer_types, int n_types, int n_layers, int full_attention_interval,
                  char *pattern) {
    /* TODO:
     *   - 先检查 n_layers；
     *   - 有 layer_types：个数对不对、每个字符串是不是恰好那两种之一，写 'L' / 'F'；
     *   - 没有：按 (i + 1) % interval == 0 决定，interval 要先检查；
     *   - 最后写 '\0'，返回 'F' 的个数。 */
    return -1;
}
