/* 典型错误：BF16 放到了低 16 位。
 * fails: worked_example widen_all */
#include <stdint.h>
#include <string.h>

#include "bf16.h"

float bf16_to_f32(uint16_t h) {
    uint32_t bits = h;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t f32_to_bf16(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x0040u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}
