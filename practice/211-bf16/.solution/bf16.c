/* 211. bf16 和 float32 互转 —— 参考答案 */
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
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((bits >> 16) | 0x0040u); /* NaN: keep it one, quiet */
    /* round to nearest even: more than half always carries; exactly half carries
     * only when the kept part is odd (the extra 1) */
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}
