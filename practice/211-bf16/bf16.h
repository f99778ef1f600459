/* bf16.h — exercise 211: bfloat16 ↔ float32 (problem.md). */
#ifndef BF16_H
#define BF16_H

#include <stdint.h>

/* bfloat16 bits → float32: the 16 bits become the high half. */
float bf16_to_f32(uint16_t h);
/* float32 → bfloat16 bits, rounding to nearest, ties to even; NaN stays NaN. */
uint16_t f32_to_bf16(float f);

#endif
