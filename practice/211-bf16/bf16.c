/* 211. bf16 和 float32 互转 —— 题目见 problem.md，评测：./practice/judge test 211 */
#include <stdint.h>
#include <string.h>

#include "bf16.h"

float bf16_to_f32(uint16_t h) {
    /* TODO: 把 h 放到 32 位的高半，用 memcpy 变成 float */
    return 0.0f;
}

uint16_t f32_to_bf16(float f) {
    /* TODO: 用 memcpy 取出 f 的 32 位；NaN 单独处理；其余按 round to nearest even 扔掉低 16 位 */
    return 0;
}
