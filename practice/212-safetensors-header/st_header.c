/* 212. 读 safetensors 头里的一项 —— 题目见 problem.md，评测：./practice/judge test 212 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "st_header.h"

int st_find(const uint8_t *head, size_t head_len, uint64_t file_size, const char *name, StEntry *out) {
    /* TODO:
     *   1. 前 8 个字节是小端的 u64：JSON 头的长度 N；检查 N 不超出 head_len 和 file_size
     *   2. 逐个 token 扫描 head + 8 开始的 N 个字节（不是 C 字符串，没有 '\0'）
     *   3. 顶层是一个对象：__metadata__ 跳过，其余每一项都检查 dtype / shape / data_offsets
     *   4. 名字和 name 完全一样的那一项填进 *out */
    return -1;
}
