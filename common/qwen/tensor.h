/* tensor.h — what a stored tensor is: a dtype, a shape and a pointer to its bytes.
 *
 * The checkpoint keeps almost every weight in bfloat16 (BF16) and a few in
 * float32 (F32); the workbook computes everything in float32. A Tensor points
 * straight into the memory-mapped file, so nothing is converted until it is used.
 *
 *   BF16 = the top 16 bits of a float32: 1 sign, 8 exponent, 7 mantissa bits.
 *          Same range as float32, ~3 significant digits. Widening is a shift.
 *   F16  = IEEE half: 1 sign, 5 exponent, 10 mantissa bits (range ±65504).
 *   F32  = IEEE single.
 */
#ifndef TENSOR_H
#define TENSOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef enum { DTYPE_F32, DTYPE_F16, DTYPE_BF16 } DType;

#define TENSOR_MAX_DIMS 8

typedef struct {
    const char *name; /* the name as stored in the file */
    DType dtype;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t numel;    /* product of shape (1 for a scalar) */
    const void *data; /* numel elements, aligned for dtype */
    const char *file; /* path of the file it lives in (for error messages) */
} Tensor;

/* "BF16", "F16", "F32" — the names safetensors uses. */
const char *dtype_name(DType t);
/* Bytes per element: 2 or 4 (inline: the linear kernel's tiles need it as a constant). */
static inline int dtype_size(DType t) { return t == DTYPE_F32 ? 4 : 2; }
/* Parses a safetensors dtype name; false for anything else. */
bool dtype_parse(const char *name, DType *out);

/* bfloat16 -> float32: the 16 stored bits become the high half of the float. */
static inline float bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* float32 -> bfloat16, rounding to nearest even (as PyTorch's .to(torch.bfloat16)).
 * NaN stays NaN (quiet), ±inf stays ±inf. */
static inline uint16_t f32_to_bf16(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x0040u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

/* IEEE half <-> float32 (round to nearest even on the way down). */
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);

/* Element i of t as float32 (any dtype). */
static inline float tensor_get_f32(const Tensor *t, int64_t i) {
    const uint16_t *half = t->data;
    switch (t->dtype) {
    case DTYPE_F32:
        return ((const float *)t->data)[i];
    case DTYPE_F16:
        return f16_to_f32(half[i]);
    case DTYPE_BF16:
        return bf16_to_f32(half[i]);
    }
    return 0.0f / 0.0f; /* NaN: not a dtype */
}
/* Copies count elements starting at element first into out, widening to float32.
 * Used for single rows (an embedding look-up) so that the whole table is never
 * converted. */
void tensor_read_f32(const Tensor *t, int64_t first, int64_t count, float *out);

/* "[248320, 1024]" into buf. */
const char *shape_str(const Tensor *t, char *buf, int len);

#endif
