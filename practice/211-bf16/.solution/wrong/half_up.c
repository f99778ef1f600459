/* 典型错误：正好一半总是进一（加 0x8000），不是取偶数。
 * fails: worked_example ties_to_even */
#include <stdint.h>
#include <string.h>

#include "bf16.h"

float bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t f32_to_bf16(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x0040u);
    return (uint16_t)((bits + 0x8000u) >> 16);
}
