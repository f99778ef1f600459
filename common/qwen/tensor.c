/* tensor.c — dtype names and conversions (see tensor.h). */
#include "tensor.h"

#include <math.h>
#include <stdio.h>

const char *dtype_name(DType t) {
    switch (t) {
    case DTYPE_F32:
        return "F32";
    case DTYPE_F16:
        return "F16";
    case DTYPE_BF16:
        return "BF16";
    }
    return "?";
}

bool dtype_parse(const char *name, DType *out) {
    static const DType all[] = {DTYPE_F32, DTYPE_F16, DTYPE_BF16};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, dtype_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    int exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ffu;
    float f;
    if (exp == 0) { /* zero or subnormal: mant * 2^-24 */
        f = ldexpf((float)mant, -24);
        return sign ? -f : f;
    }
    uint32_t bits;
    if (exp == 31)
        bits = sign | 0x7f800000u | (mant << 13); /* inf / NaN */
    else
        bits = sign | ((uint32_t)(exp - 15 + 127) << 23) | (mant << 13);
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t f32_to_f16(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    float a = fabsf(f);
    if (isnan(f)) return sign | 0x7e00u;
    if (a >= 65520.0f) return sign | 0x7c00u; /* rounds to inf */
    if (a < 0x1p-14f) {                       /* subnormal half: a multiple of 2^-24 */
        float q = nearbyintf(a * 0x1p24f);    /* ties to even under the default mode */
        return sign | (uint16_t)q;
    }
    uint32_t m = bits & 0x7fffffffu;
    uint32_t exp = (m >> 23) - 127 + 15;
    uint32_t mant = m & 0x7fffffu;
    uint32_t half = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu; /* the 13 dropped bits */
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;
    return sign | (uint16_t)half;
}

void tensor_read_f32(const Tensor *t, int64_t first, int64_t count, float *out) {
    const uint16_t *h = (const uint16_t *)t->data + first;
    switch (t->dtype) {
    case DTYPE_F32:
        memcpy(out, (const float *)t->data + first, (size_t)count * sizeof(float));
        break;
    case DTYPE_F16:
        for (int64_t i = 0; i < count; i++) out[i] = f16_to_f32(h[i]);
        break;
    case DTYPE_BF16:
        for (int64_t i = 0; i < count; i++) out[i] = bf16_to_f32(h[i]);
        break;
    }
}

const char *shape_str(const Tensor *t, char *buf, int len) {
    int n = snprintf(buf, (size_t)len, "[");
    for (int d = 0; d < t->ndim && n < len; d++)
        n += snprintf(buf + n, (size_t)(len - n), "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    if (n < len) snprintf(buf + n, (size_t)(len - n), "]");
    return buf;
}
