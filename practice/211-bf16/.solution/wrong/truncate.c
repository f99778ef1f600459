/* 典型错误：直接截断，没有舍入。
 * fails: worked_example round_torch ties_to_even */
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
    return (uint16_t)(bits >> 16);
}
