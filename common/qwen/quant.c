/* quant.c — 8-bit groups, the formula as loops (see quant.h).
 *
 * This file is the readable version. The fast versions, q8_quantize_act() and
 * q8_linear(), are speed code in kernels/quant.c; the tests hold them to the functions
 * below bit for bit.
 */
#include "quant.h"

#include <math.h>

/* The largest |v| of a group; false when the group holds a NaN or an infinity. */
static bool group_max(const float *v, int n, float *max) {
    float m = 0.0f;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return false;
        m = fmaxf(m, fabsf(v[i]));
    }
    *max = m;
    return true;
}

/* round(v / scale), ties to even; 0 for a zero scale (a group of zeros). */
static int32_t round_q(float v, float scale) { return scale == 0.0f ? 0 : (int32_t)rintf(v / scale); }

float q8_act_scale(const float *x, int n, Q8ActRange range) {
    float max;
    if (!group_max(x, n, &max)) return NAN;
    float s = max / (float)range;
    /* Only when max / range lands among float32's denormals can the rounded scale be
     * too small for the largest |a| to stay at `range` (quant.h). */
    if ((double)max > ((double)range + 0.5) * (double)s) s = nextafterf(s, INFINITY);
    return s;
}

uint16_t q8_weight_scale_of_max(float max) {
    uint16_t s = f32_to_f16(max / Q8_QMAX);
    if ((double)max > 127.5 * (double)f16_to_f32(s)) s++; /* the next fp16 up (s >= 0) */
    return s;
}

uint16_t q8_weight_scale(const float *w, int n) {
    float max;
    if (!group_max(w, n, &max)) return 0x7e00; /* fp16 NaN; q8_quantize_row refuses first */
    return q8_weight_scale_of_max(max);
}

bool q8_quantize_row(const float *w, int64_t n, int8_t *q, uint16_t *scale) {
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(w[i]) || fabsf(w[i]) > Q8_MAX_ABS) return false;
    for (int64_t g = 0; g * Q8_GROUP < n; g++) {
        const float *v = w + g * Q8_GROUP;
        int len = n - g * Q8_GROUP < Q8_GROUP ? (int)(n - g * Q8_GROUP) : Q8_GROUP;
        scale[g] = q8_weight_scale(v, len);
        float s = f16_to_f32(scale[g]); /* q from the scale as stored */
        for (int i = 0; i < len; i++) q[g * Q8_GROUP + i] = (int8_t)round_q(v[i], s);
    }
    return true;
}

void q8_dequantize_row(const int8_t *q, const uint16_t *scale, int64_t n, float *w) {
    for (int64_t i = 0; i < n; i++) w[i] = f16_to_f32(scale[i / Q8_GROUP]) * q[i];
}

void q8_quantize_act_row(const float *x, int64_t n, Q8ActRange range, int16_t *a, float *scale) {
    for (int64_t g = 0; g * Q8_GROUP < n; g++) {
        const float *v = x + g * Q8_GROUP;
        int len = n - g * Q8_GROUP < Q8_GROUP ? (int)(n - g * Q8_GROUP) : Q8_GROUP;
        scale[g] = q8_act_scale(v, len, range);
        /* NaN scale (a NaN or an infinity in the group): a = 0, the scale carries it */
        float s = isnan(scale[g]) ? 0.0f : scale[g];
        for (int i = 0; i < len; i++) a[g * Q8_GROUP + i] = (int16_t)round_q(v[i], s);
    }
}

float q8_dot_ref(const float *x, const int8_t *q, const uint16_t *scale, int64_t n, Q8ActRange range) {
    float acc = 0.0f;
    for (int64_t g = 0; g * Q8_GROUP < n; g++) {
        const float *xg = x + g * Q8_GROUP;
        int len = n - g * Q8_GROUP < Q8_GROUP ? (int)(n - g * Q8_GROUP) : Q8_GROUP;
        int16_t a[Q8_GROUP];
        float sx;
        q8_quantize_act_row(xg, len, range, a, &sx); /* this group of the token */
        int32_t d = 0;                               /* Σ qw · a: exact, |d| ≤ 32·127·32385 */
        for (int i = 0; i < len; i++) d += (int32_t)q[g * Q8_GROUP + i] * a[i];
        float s = f16_to_f32(scale[g]) * sx;
        acc = fmaf((float)d, s, acc);
    }
    return acc;
}

void q8_linear_ref(const float *x, const int8_t *q, const uint16_t *scale, int64_t T, int64_t in, int64_t out,
                   Q8ActRange range, float *y) {
    int64_t groups = q8_groups(in);
    for (int64_t t = 0; t < T; t++)
        for (int64_t o = 0; o < out; o++)
            y[t * out + o] = q8_dot_ref(x + t * in, q + o * in, scale + o * groups, in, range);
}

void q8_linear_tensor_ref(const float *x, const Tensor *w, int64_t T, Q8ActRange range, float *y) {
    int64_t out = w->shape[0], in = w->shape[1];
    for (int64_t t = 0; t < T; t++)
        for (int64_t o = 0; o < out; o++) {
            float acc = 0.0f;
            for (int64_t g = 0; g * Q8_GROUP < in; g++) {
                int len = in - g * Q8_GROUP < Q8_GROUP ? (int)(in - g * Q8_GROUP) : Q8_GROUP;
                float wg[Q8_GROUP];
                int8_t q[Q8_GROUP];
                uint16_t sw;
                tensor_read_f32(w, o * in + g * Q8_GROUP, len, wg); /* row o's group g, widened */
                if (!q8_quantize_row(wg, len, q, &sw)) {
                    acc = NAN; /* not a number 8-bit groups can hold */
                    break;
                }
                int16_t a[Q8_GROUP];
                float sx;
                q8_quantize_act_row(x + t * in + g * Q8_GROUP, len, range, a, &sx); /* token t's group g */
                int32_t d = 0;
                for (int i = 0; i < len; i++) d += (int32_t)q[i] * a[i];
                acc = fmaf((float)d, f16_to_f32(sw) * sx, acc);
            }
            y[t * out + o] = acc;
        }
}
