/* test_quant.c — 8-bit groups (quant.h): the quantizer against hand-worked groups and
 * its error bound, the reference product against hand sums and against float64, and
 * every fast kernel against the reference, bit for bit.
 *
 * Why bit for bit. The product is integers per group (exact) and then one float
 * multiply-add per group in the order quant.h fixes, one row per vector lane. Any
 * difference from the reference is therefore a bug, not rounding: there is no
 * tolerance to hide behind, and none is used.
 *
 * The one tolerance in this file is for the reference against float64 (what the
 * format costs), and it is a proof, not a guess: with w̃ = sw·qw and x̃ = sx·qx,
 *     |w̃x̃ − wx| ≤ |w̃ − w|·|x̃| + |w|·|x̃ − x| ≤ (sw/2)·|x̃| + |w|·(sx/2)
 * per product, summed over the row, plus the float rounding of the G group terms and
 * their sum: γ(G + 2) · Σ_g |sw·sx·d_g| (Higham §3.1; G multiply-adds, one product).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/quant.h"
#include "qwen/tensor.h"
#include "tests/ahead_trial.h"
#include "tests/check_main.h"
#include "tests/compare.h"
#include "workbook/util.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* Deterministic numbers (xorshift64*): uniform in [-1, 1). */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t next_u64(void) {
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static float uniform(void) { return (float)((double)(next_u64() >> 40) / (double)(1 << 23) - 1.0); }

static float *random_floats(int64_t n, float scale) {
    float *v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = scale * uniform();
    return v;
}

/* The nearest fp16 to f, ties to even, by the compiler's own _Float16 conversion: a
 * second opinion on f32_to_f16, which the module uses. */
static uint16_t fp16_bits(float f) {
    _Float16 h = (_Float16)f;
    uint16_t b;
    memcpy(&b, &h, sizeof b);
    return b;
}

/* A readable q8 matrix made from random numbers: q [out, in], scale [out, groups]. */
typedef struct {
    int64_t out, in, groups;
    int8_t *q;
    uint16_t *scale;
} Q8Rows;

static Q8Rows random_rows(int64_t out, int64_t in) {
    Q8Rows m = {out, in, q8_groups(in), xmalloc((size_t)(out * in) + 1), NULL};
    m.scale = xmalloc((size_t)(out * m.groups + 1) * sizeof *m.scale);
    float *w = random_floats(in, 1.0f);
    for (int64_t o = 0; o < out; o++) {
        float mag = 0.01f + 0.1f * (float)(o % 7); /* rows of different sizes */
        for (int64_t i = 0; i < in; i++) w[i] = mag * uniform();
        ck_assert(q8_quantize_row(w, in, m.q + o * in, m.scale + o * m.groups));
    }
    free(w);
    return m;
}

static void rows_free(Q8Rows *m) { free(m->q), free(m->scale); }

/* ---- the quantizer, by hand ------------------------------------------------------------ */

/* A group whose largest |w| is 127: scale = 127/127 = 1 exactly (fp16 0x3C00), and q is
 * w rounded to the nearest integer, ties to even:
 *   2.5 -> 2, 3.5 -> 4, −2.5 -> −2, 0.5 -> 0, 1.5 -> 2, −0.5 -> 0, 64.4 -> 64, −64.6 -> −65
 * (rounding half away from zero would give 3 and −3 for ±2.5; truncation 3 for 3.5). */
START_TEST(test_hand_ties) {
    float w[Q8_GROUP] = {127, 2.5f, 3.5f, -2.5f, 0.5f, 1.5f, -0.5f, 64.4f, -64.6f, -127, 126.5f, 0.49f};
    const int8_t want[Q8_GROUP] = {127, 2, 4, -2, 0, 2, 0, 64, -65, -127, 126, 0};
    int8_t q[Q8_GROUP];
    uint16_t s;
    ck_assert(q8_quantize_row(w, Q8_GROUP, q, &s));
    ck_assert_msg(s == 0x3C00, "scale 0x%04x, want 0x3C00 (1.0)", s);
    for (int i = 0; i < Q8_GROUP; i++)
        ck_assert_msg(q[i] == want[i], "q[%d] = %d, want %d", i, q[i], want[i]);
}
END_TEST

/* Scales that fp16 cannot hold exactly, worked out by hand:
 *   max 0.5:  0.5/127 = 0.0039370 = 2^-8 · 1.007874; 0.007874 · 1024 = 8.06 -> 8:
 *             fp16 2^-8 · (1 + 8/1024) = 0.00393677, bits 0 00111 0000001000 = 0x1C08;
 *             q(0.5) = 0.5 / 0.00393677 = 127.008 -> 127.
 *   [−3, 1, 2] (a short group of 3, its largest |w| negative):
 *             3/127 = 0.0236220 = 2^-6 · 1.511811; 0.511811 · 1024 = 524.09 -> 524:
 *             fp16 2^-6 · (1 + 524/1024) = 0.0236206, bits 0 01001 1000001100 = 0x260C;
 *             q = (−3, 1, 2) / 0.0236206 = (−127.008, 42.34, 84.67) -> (−127, 42, 85). */
START_TEST(test_hand_fp16_scale) {
    float w1[2] = {0.5f, -0.25f};
    int8_t q[3];
    uint16_t s;
    ck_assert(q8_quantize_row(w1, 2, q, &s));
    ck_assert_msg(s == 0x1C08, "scale 0x%04x, want 0x1C08", s);
    ck_assert_int_eq(q[0], 127);
    ck_assert_int_eq(q[1], -64); /* −0.25 / 0.00393677 = −63.504 -> −64 */
    float w2[3] = {-3, 1, 2};
    ck_assert(q8_quantize_row(w2, 3, q, &s));
    ck_assert_msg(s == 0x260C, "scale 0x%04x, want 0x260C", s);
    ck_assert_int_eq(q[0], -127);
    ck_assert_int_eq(q[1], 42);
    ck_assert_int_eq(q[2], 85);
}
END_TEST

/* Zeros, a huge value among small ones, and the tiny groups where fp16 runs out of
 * digits:
 *   zeros:           scale 0, q 0, and back to exact zeros;
 *   1000 and 0.001s: scale fp16(1000/127) = 7.875 (0x47E0), the small ones all q = 0;
 *   max 177.75·2^-24 (1.06e-5): max/127 = 1.3996·2^-24 rounds to the fp16 2^-24 (0x0001),
 *                    under which the max would be q = 178, past 127: the next fp16 up,
 *                    2^-23 (0x0002), is taken and q = 88.875 -> 89;
 *   max 1e-9:        max/127 rounds to fp16 0; the smallest fp16, 2^-24 (0x0001), is
 *                    taken and q = 0 (off by 1e-9, under half the step). */
START_TEST(test_hand_edges) {
    float zeros[40] = {0};
    int8_t q[40];
    uint16_t s[2];
    float back[40];
    memset(q, 1, sizeof q);
    ck_assert(q8_quantize_row(zeros, 40, q, s));
    ck_assert(s[0] == 0 && s[1] == 0);
    for (int i = 0; i < 40; i++) ck_assert_int_eq(q[i], 0);
    q8_dequantize_row(q, s, 40, back);
    for (int i = 0; i < 40; i++) ck_assert(back[i] == 0.0f && !signbit(back[i]));

    float huge[4] = {0.001f, 1000, -0.002f, 0.003f};
    ck_assert(q8_quantize_row(huge, 4, q, s));
    ck_assert_msg(s[0] == 0x47E0, "scale 0x%04x, want 0x47E0 (7.875)", s[0]);
    ck_assert(q[0] == 0 && q[1] == 127 && q[2] == 0 && q[3] == 0);

    float tiny[2] = {177.75f * 0x1p-24f, -50.0f * 0x1p-24f};
    ck_assert(q8_quantize_row(tiny, 2, q, s));
    ck_assert_msg(s[0] == 0x0002, "scale 0x%04x, want 0x0002 (the next fp16 up)", s[0]);
    ck_assert_int_eq(q[0], 89);
    ck_assert_int_eq(q[1], -25); /* −50 / 2 = −25 */

    float tinier[1] = {1e-9f};
    ck_assert(q8_quantize_row(tinier, 1, q, s));
    ck_assert_msg(s[0] == 0x0001, "scale 0x%04x, want 0x0001", s[0]);
    ck_assert_int_eq(q[0], 0);
}
END_TEST

/* What a weight row may not hold: NaN, ±infinity, or |w| above 127 · 65504 (its scale
 * would be an fp16 infinity). Refused, and nothing written. Exactly 127 · 65504 is
 * fine: scale 65504 (0x7BFF), q 127. */
START_TEST(test_refused) {
    const float bad[] = {NAN, INFINITY, -INFINITY, 8.4e6f, -1e30f};
    for (unsigned b = 0; b < ARRAY_LEN(bad); b++) {
        float w[35];
        for (int i = 0; i < 35; i++) w[i] = 0.01f * (float)i;
        w[33] = bad[b]; /* in the second, short group */
        int8_t q[35];
        uint16_t s[2] = {0x1234, 0x1234};
        memset(q, 77, sizeof q);
        ck_assert_msg(!q8_quantize_row(w, 35, q, s), "%g accepted", (double)bad[b]);
        ck_assert_msg(q[0] == 77 && s[0] == 0x1234, "%g: refused, yet written", (double)bad[b]);
    }
    float top[2] = {Q8_MAX_ABS, 1};
    int8_t q[2];
    uint16_t s;
    ck_assert(q8_quantize_row(top, 2, q, &s));
    ck_assert_msg(s == 0x7BFF && q[0] == 127, "scale 0x%04x q %d", s, q[0]);
}
END_TEST

/* ---- the quantizer, its promises over many rows ----------------------------------- */

/* A random row of n numbers of magnitude 10^e: uniform, or mostly small with an outlier
 * 1000 times larger, or all of one sign, or landing on exact half-steps. */
static void random_row(float *w, int64_t n, int kind, int e) {
    float mag = powf(10.0f, (float)e);
    for (int64_t i = 0; i < n; i++) w[i] = mag * uniform();
    if (kind == 1 && n > 0) w[next_u64() % (uint64_t)n] = 1000 * mag * (uniform() < 0 ? -1 : 1);
    if (kind == 2)
        for (int64_t i = 0; i < n; i++) w[i] = -fabsf(w[i]);
    if (kind == 3) /* multiples of 0.5 with max 127: every other value a tie */
        for (int64_t i = 0; i < n; i++) w[i] = (float)((int64_t)(next_u64() % 509) - 254) * 0.5f;
}

/* For every row: |w − scale·q| ≤ scale/2 (in exact float64 arithmetic), |q| ≤ 127, each
 * group's scale is the rule's (fp16 of its own max / 127, checked with an independent
 * fp16 conversion), each group with a clear max reaches |q| = 127 exactly (a scale taken
 * from the whole row, or from the mean of |w|, would not), and dequantize gives
 * scale · q exactly. Lengths 1 .. 200 (short last groups), magnitudes 1e-6 .. 1e4. */
START_TEST(test_bound_many_rows) {
    int64_t rows = 0, values = 0;
    double worst = 0; /* largest |w − scale·q| / scale seen */
    float w[200], back[200];
    int8_t q[200];
    uint16_t s[7];
    for (int kind = 0; kind < 4; kind++)
        for (int e = -6; e <= 3; e++)
            for (int rep = 0; rep < 60; rep++) {
                int64_t n = 1 + (int64_t)(next_u64() % 200);
                random_row(w, n, kind, kind == 3 ? 0 : e);
                ck_assert(q8_quantize_row(w, n, q, s));
                q8_dequantize_row(q, s, n, back);
                for (int64_t g = 0; g * Q8_GROUP < n; g++) {
                    int len = n - g * Q8_GROUP < Q8_GROUP ? (int)(n - g * Q8_GROUP) : Q8_GROUP;
                    float max = 0;
                    for (int i = 0; i < len; i++) max = fmaxf(max, fabsf(w[g * Q8_GROUP + i]));
                    uint16_t want = fp16_bits(max / 127.0f);
                    if ((double)max > 127.5 * (double)f16_to_f32(want)) want++; /* the tiny-scale rule */
                    ck_assert_msg(s[g] == want, "row of %lld, group %lld: scale 0x%04x, want 0x%04x (max %g)",
                                  (long long)n, (long long)g, s[g], want, (double)max);
                    double sc = f16_to_f32(s[g]);
                    int qmax = 0;
                    for (int i = 0; i < len; i++) {
                        int64_t k = g * Q8_GROUP + i;
                        double err = fabs((double)w[k] - sc * q[k]);
                        ck_assert_msg(q[k] >= -127 && q[k] <= 127, "q = %d", q[k]);
                        ck_assert_msg(err <= sc / 2, "w %.9g, scale %.9g, q %d: off by %.3g > scale/2",
                                      (double)w[k], sc, q[k], err);
                        ck_assert_msg(back[k] == (float)(sc * q[k]), "dequantized %.9g, want scale·q %.9g",
                                      (double)back[k], sc * q[k]);
                        if (sc > 0) worst = fmax(worst, err / sc);
                        qmax = abs(q[k]) > qmax ? abs(q[k]) : qmax;
                    }
                    if (max >= 0x1p-14f * 127) /* the scale is a normal fp16: max -> ±127 */
                        ck_assert_msg(qmax == 127, "group with max %g: largest |q| %d, want 127", (double)max,
                                      qmax);
                    values += len;
                }
                rows++;
            }
    printf("OK   %lld rows, %lld values: |w − scale·q| ≤ %.4f · scale (bound 0.5)\n", (long long)rows,
           (long long)values, worst);
}
END_TEST

/* The dequantized numbers are already on the grid: quantizing them again gives the same
 * scale and the same integers — for every group whose largest |q| is 127, so that its
 * largest number comes back as 127 · scale (a tiny group under fp16's normal range may
 * top out lower, and then its second scale is smaller: that is the rule, not a loss). */
START_TEST(test_round_trip) {
    float w[300], back[300];
    int8_t q[300], q2[300];
    uint16_t s[10], s2[10];
    int64_t groups = 0;
    for (int rep = 0; rep < 300; rep++) {
        int64_t n = 1 + (int64_t)(next_u64() % 300);
        random_row(w, n, rep % 4, (rep % 9) - 5);
        ck_assert(q8_quantize_row(w, n, q, s));
        q8_dequantize_row(q, s, n, back);
        ck_assert(q8_quantize_row(back, n, q2, s2));
        for (int64_t g = 0; g * Q8_GROUP < n; g++) {
            int len = n - g * Q8_GROUP < Q8_GROUP ? (int)(n - g * Q8_GROUP) : Q8_GROUP, qmax = 0;
            for (int i = 0; i < len; i++)
                qmax = abs(q[g * Q8_GROUP + i]) > qmax ? abs(q[g * Q8_GROUP + i]) : qmax;
            if (qmax != 127) continue;
            ck_assert_msg(s2[g] == s[g], "scale 0x%04x, again 0x%04x", s[g], s2[g]);
            ck_assert(memcmp(q + g * Q8_GROUP, q2 + g * Q8_GROUP, (size_t)len) == 0);
            groups++;
        }
    }
    ck_assert(groups > 1000);
}
END_TEST

/* Activations: the same rule with a float32 scale. By hand, Q8_ACT8: [254, 2, −1, 3] has
 * max 254, scale 2 exactly, a = (127, 1, 0 (−0.5, a tie, to even), 2 (1.5 to even)); a
 * group with max 177.75·2^-149 (a float32 denormal), where max/127 rounds to 2^-149 and
 * the next float up, 2^-148, is taken: a = 88.875 -> 89. Q8_ACT16: [32385, 2.5, −3.5,
 * 769.25] has scale 32385/32385 = 1 and a = (32385, 2, −4, 769). A NaN or an infinity
 * makes its group's scale NaN and its integers zeros, and leaves the other groups alone. */
START_TEST(test_act_hand) {
    float x[4] = {254, 2, -1, 3};
    int16_t q[40];
    float s[2];
    q8_quantize_act_row(x, 4, Q8_ACT8, q, s);
    ck_assert(s[0] == 2.0f);
    ck_assert(q[0] == 127 && q[1] == 1 && q[2] == 0 && q[3] == 2);

    float d[2] = {177.75f * 0x1p-149f, 0};
    q8_quantize_act_row(d, 2, Q8_ACT8, q, s);
    ck_assert_msg(s[0] == 0x1p-148f, "scale %a, want 0x1p-148", (double)s[0]);
    ck_assert_int_eq(q[0], 89);

    float x16[4] = {32385, 2.5f, -3.5f, 769.25f};
    q8_quantize_act_row(x16, 4, Q8_ACT16, q, s);
    ck_assert(s[0] == 1.0f);
    ck_assert(q[0] == 32385 && q[1] == 2 && q[2] == -4 && q[3] == 769);

    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (unsigned b = 0; b < ARRAY_LEN(bad); b++)
        for (int r = 0; r < 2; r++) {
            Q8ActRange range = r ? Q8_ACT16 : Q8_ACT8;
            float v[40];
            for (int i = 0; i < 40; i++) v[i] = (float)(i - 20);
            v[5] = bad[b];
            memset(q, 9, sizeof q);
            q8_quantize_act_row(v, 40, range, q, s);
            ck_assert_msg(isnan(s[0]), "%g: scale %g, want NaN", (double)bad[b], (double)s[0]);
            for (int i = 0; i < 32; i++) ck_assert_int_eq(q[i], 0);
            ck_assert(s[1] == 19.0f / (float)range); /* the second group: 32 .. 39 − 20 = 12 .. 19 */
            ck_assert_int_eq(q[39], range);
        }
}
END_TEST

/* ---- the reference product ------------------------------------------------------------ */

/* in = 40: a full group and a short one of 8. Every scale is exact:
 *   W group 0: (127, 1, 2, ..., 31)       scale 1,   q = W
 *   W group 1: (63.5, 1, −1, 0.5, 0 ...)   scale 0.5, q = (127, 2, −2, 1, 0 ...)
 *   x group 0: (127, 1, 1, ..., 1)          scale 1,   q = x
 *   x group 1: (254, 2, 2, 2, 0 ...)        scale 2,   q = (127, 1, 1, 1, 0 ...)
 *   d0 = 127·127 + (1 + 2 + ... + 31) = 16129 + 496 = 16625
 *   d1 = 127·127 + 2 − 2 + 1 = 16130
 *   y  = 1·1·16625 + 0.5·2·16130 = 32755 */
START_TEST(test_dot_hand) {
    float w[40] = {127}, x[40] = {127};
    for (int i = 1; i < 32; i++) w[i] = (float)i, x[i] = 1;
    w[32] = 63.5f, w[33] = 1, w[34] = -1, w[35] = 0.5f;
    x[32] = 254, x[33] = 2, x[34] = 2, x[35] = 2;
    int8_t q[40];
    uint16_t s[2];
    ck_assert(q8_quantize_row(w, 40, q, s));
    ck_assert(s[0] == 0x3C00 && s[1] == 0x3800); /* 1 and 0.5 */
    float y = q8_dot_ref(x, q, s, 40, Q8_ACT8);
    ck_assert_msg(y == 32755.0f, "q8_dot_ref = %.9g, want 32755", (double)y);
    float y2[2];
    float x2[80];
    memcpy(x2, x, sizeof x);
    for (int i = 0; i < 40; i++) x2[40 + i] = -x[i]; /* the second token: −x, so −32755 */
    q8_linear_ref(x2, q, s, 2, 40, 1, Q8_ACT8, y2);
    ck_assert(y2[0] == 32755.0f && y2[1] == -32755.0f);
}
END_TEST

/* Q8_ACT16, in = 32: W = (127, 1, 2, ..., 31), scale 1; x = (32385, 1, 1, ..., 1) · 2^-8,
 * scale 2^-8, a = (32385, 1, ..., 1):
 *   d = 127·32385 + (1 + ... + 31) = 4112895 + 496 = 4113391,  y = 2^-8 · d = 16067.93359375
 * (with Q8_ACT8 the scale is 32385 · 2^-8 / 127 = 255/256 and the ones are 1/255 of a
 * step: a = (127, 0, ..., 0) and y = 127·127 · 255/256 = 16129 − 63.00390625 =
 * 16065.99609375). */
START_TEST(test_dot_hand16) {
    float w[32], x[32];
    for (int i = 0; i < 32; i++) w[i] = (float)i, x[i] = 0x1p-8f;
    w[0] = 127, x[0] = 32385 * 0x1p-8f;
    int8_t q[32];
    uint16_t s;
    ck_assert(q8_quantize_row(w, 32, q, &s));
    float y16 = q8_dot_ref(x, q, &s, 32, Q8_ACT16), y8 = q8_dot_ref(x, q, &s, 32, Q8_ACT8);
    ck_assert_msg(y16 == 16067.93359375f, "Q8_ACT16: %.9g", (double)y16);
    ck_assert_msg(y8 == 16065.99609375f, "Q8_ACT8: %.9g", (double)y8);
}
END_TEST

/* The reference against the exact float64 product of the unquantized numbers, within
 * the bound of the header comment, element by element; and the error is reported. */
START_TEST(test_ref_vs_float64) {
    const int64_t shapes[][2] = {{64, 1024}, {16, 3584}, {33, 100}};
    for (int r = 0; r < 2; r++)
        for (unsigned c = 0; c < ARRAY_LEN(shapes); c++) {
            Q8ActRange range = r ? Q8_ACT16 : Q8_ACT8;
            int64_t out = shapes[c][0], in = shapes[c][1], T = 3, G = q8_groups(in);
            float *w = random_floats(out * in, 0.05f), *x = random_floats(T * in, 2.0f);
            int8_t *q = xmalloc((size_t)(out * in));
            uint16_t *s = xmalloc((size_t)(out * G) * sizeof *s);
            for (int64_t o = 0; o < out; o++)
                ck_assert(q8_quantize_row(w + o * in, in, q + o * in, s + o * G));
            float *y = xmalloc((size_t)(T * out) * sizeof *y);
            q8_linear_ref(x, q, s, T, in, out, range, y);
            int16_t *qx = xmalloc((size_t)in * sizeof *qx);
            float *sx = xmalloc((size_t)G * sizeof *sx);
            double worst_ratio = 0, rel = 0, norm = 0, u = ldexp(1.0, -24);
            for (int64_t t = 0; t < T; t++) {
                q8_quantize_act_row(x + t * in, in, range, qx, sx);
                for (int64_t o = 0; o < out; o++) {
                    double exact = 0, bound = 0, terms = 0;
                    for (int64_t i = 0; i < in; i++) {
                        double wi = w[o * in + i], xi = x[t * in + i];
                        double sw = f16_to_f32(s[o * G + i / 32]), sxi = sx[i / 32];
                        exact += wi * xi;
                        bound += sw / 2 * fabs(sxi * qx[i]) + fabs(wi) * sxi / 2;
                    }
                    for (int64_t g = 0; g < G; g++) {
                        double d = 0;
                        for (int64_t i = g * 32; i < in && i < g * 32 + 32; i++) d += q[o * in + i] * qx[i];
                        terms += fabs(f16_to_f32(s[o * G + g]) * sx[g] * d);
                    }
                    /* G multiply-adds, one product per group, one rounding of d to float */
                    bound += (double)(G + 3) * u / (1 - (double)(G + 3) * u) * terms;
                    double err = fabs(y[t * out + o] - exact);
                    ck_assert_msg(err <= bound, "[%lld, %lld] t %lld o %lld: off by %.3g, bound %.3g",
                                  (long long)out, (long long)in, (long long)t, (long long)o, err, bound);
                    worst_ratio = fmax(worst_ratio, err / bound);
                    rel += err * err, norm += exact * exact;
                }
            }
            printf("OK   q8_linear_ref %s [%lld, %lld] vs float64: relative error %.2e, at most %.2f of its "
                   "bound\n",
                   r ? "Q8_ACT16" : "Q8_ACT8", (long long)out, (long long)in, sqrt(rel / norm), worst_ratio);
            free(w), free(x), free(q), free(s), free(y), free(qx), free(sx);
        }
}
END_TEST

/* ---- the kernels against the reference, bit for bit ---------------------------------- */

static const Q8Kernel all_kernels[] = {Q8_PORTABLE, Q8_AVX2, Q8_AVX512};

/* y = the fast path with kernel k for both steps (quantizing x, then the product). */
static void fast(Q8Kernel k, const Q8Weights *p, const float *x, int64_t T, Q8ActRange range, float *y) {
    Q8Act a;
    q8_act_init(&a, T, p->in, range);
    q8_quantize_act_with(x, T, p->in, &a, k);
    q8_linear_with(&a, p, y, k);
    q8_act_free(&a);
}

static const Q8ActRange all_ranges[] = {Q8_ACT8, Q8_ACT16};
static const char *range_name(Q8ActRange r) { return r == Q8_ACT8 ? "Q8_ACT8" : "Q8_ACT16"; }

/* Sizes around the kernels' edges. out: below, at and past one block of 16 rows, and
 * 100, 112, 144, 161 (6 to 10 blocks: whole 3-block tiles, blocks left over and a short
 * last block; with so few blocks, a call of several tokens also shares the tokens out
 * among its tasks); in: below, at and past one group, not a multiple of 32 (the short
 * last group is padded); T = 1 .. 17 (every count of whole 4-token tiles and what is
 * left) and 139. */
static const int64_t case_out[] = {1, 15, 16, 17, 49, 100, 112, 144, 161};
static const int64_t case_in[] = {1, 31, 32, 33, 64, 100, 257};

START_TEST(test_kernels_vs_reference) {
    int64_t T_list[18];
    for (int t = 0; t < 17; t++) T_list[t] = t + 1;
    T_list[17] = 139;
    int64_t cases[ARRAY_LEN(all_kernels)] = {0}, values = 0;
    for (unsigned a = 0; a < ARRAY_LEN(case_out); a++)
        for (unsigned b = 0; b < ARRAY_LEN(case_in); b++) {
            int64_t out = case_out[a], in = case_in[b];
            Q8Rows m = random_rows(out, in);
            Q8Weights p;
            q8_pack_quantized(m.q, m.scale, out, in, &p);
            for (unsigned c = 0; c < ARRAY_LEN(T_list); c++)
                for (unsigned r = 0; r < ARRAY_LEN(all_ranges); r++) {
                    int64_t T = T_list[c];
                    if (T == 139 && out * in > 4000) continue; /* the slow reference: small shapes only */
                    float *x = random_floats(T * in, 3.0f);
                    float *want = xmalloc((size_t)(T * out) * sizeof *want);
                    float *got = xmalloc((size_t)(T * out) * sizeof *got); /* exactly [T, out] */
                    q8_linear_ref(x, m.q, m.scale, T, in, out, all_ranges[r], want);
                    for (unsigned kk = 0; kk < ARRAY_LEN(all_kernels); kk++) {
                        Q8Kernel k = all_kernels[kk];
                        if (!q8_kernel_built(k)) continue;
                        for (int64_t i = 0; i < T * out; i++) got[i] = NAN;
                        fast(k, &p, x, T, all_ranges[r], got);
                        ck_assert_msg(memcmp(got, want, (size_t)(T * out) * sizeof *got) == 0,
                                      "%s %s out %lld in %lld T %lld: differs from q8_linear_ref",
                                      q8_kernel_name(k), range_name(all_ranges[r]), (long long)out,
                                      (long long)in, (long long)T);
                        cases[kk]++;
                    }
                    values += T * out;
                    free(x), free(want), free(got);
                }
            q8_free(&p);
            rows_free(&m);
        }
    for (unsigned kk = 0; kk < ARRAY_LEN(all_kernels); kk++)
        if (q8_kernel_built(all_kernels[kk]))
            printf("OK   %s: %lld cases (both ranges), %lld outputs, bit for bit equal to q8_linear_ref\n",
                   q8_kernel_name(all_kernels[kk]), (long long)cases[kk], (long long)values);
        else
            printf("--   %s: not built for this machine\n", q8_kernel_name(all_kernels[kk]));
}
END_TEST

/* Each kernel's activation quantizer against q8_quantize_act_row, bit for bit, on
 * tokens that hold zeros, NaN, infinities, denormals, exact ties and the extremes
 * ±range: every plane byte within ±127, the planes adding up to a (a itself for
 * Q8_ACT8, 255·hi + lo for Q8_ACT16), zeros after a short last group, and each plane's
 * correction −128 · Σ of its bytes; then every token again on its own. */
START_TEST(test_act_kernels) {
    const int64_t in_list[] = {1, 16, 17, 32, 45, 100};
    for (unsigned kk = 0; kk < ARRAY_LEN(all_kernels); kk++)
        for (unsigned r = 0; r < ARRAY_LEN(all_ranges); r++) {
            Q8Kernel k = all_kernels[kk];
            Q8ActRange range = all_ranges[r];
            if (!q8_kernel_built(k)) continue;
            for (unsigned n = 0; n < ARRAY_LEN(in_list); n++) {
                int64_t in = in_list[n], T = 10, G = q8_groups(in);
                float *x = random_floats(T * in, 5.0f);
                for (int64_t i = 0; i < in; i++) x[1 * in + i] = 0; /* token 1: zeros */
                x[2 * in + in / 2] = NAN;                           /* token 2 */
                x[3 * in] = INFINITY;                               /* token 3 */
                x[4 * in + in - 1] = -INFINITY;                     /* token 4 */
                for (int64_t i = 0; i < in; i++) x[5 * in + i] = (float)(i % 7) * 0x1p-140f; /* denormals */
                for (int64_t i = 0; i < in; i++)
                    x[6 * in + i] = (float)((int)(i % 9) - 4) * 63.5f / 2; /* ties */
                for (int64_t i = 0; i < in; i++) /* every a from −range to range, in steps */
                    x[7 * in + i] = (float)range * (2.0f * (float)i / (float)(in > 1 ? in - 1 : 1) - 1);
                Q8Act a;
                q8_act_init(&a, T, in, range);
                memset(a.q, 0x55, (size_t)(T * a.planes * G * Q8_GROUP)); /* the padding must be written */
                q8_quantize_act_with(x, T, in, &a, k);
                int16_t *q = xmalloc((size_t)in * sizeof *q);
                float *s = xmalloc((size_t)G * sizeof *s);
                for (int64_t t = 0; t < T; t++) {
                    q8_quantize_act_row(x + t * in, in, range, q, s);
                    for (int64_t g = 0; g < G; g++) {
                        float got = a.scale[t * G + g];
                        ck_assert_msg(memcmp(&got, &s[g], sizeof got) == 0 || (isnan(got) && isnan(s[g])),
                                      "%s %s in %lld token %lld group %lld: scale %a, want %a",
                                      q8_kernel_name(k), range_name(range), (long long)in, (long long)t,
                                      (long long)g, (double)got, (double)s[g]);
                        int32_t sum[2] = {0, 0};
                        for (int i = 0; i < Q8_GROUP; i++) {
                            int64_t at = g * Q8_GROUP + i;
                            int hi = a.q[(t * a.planes * G + g) * Q8_GROUP + i];
                            int lo = a.planes == 2 ? a.q[((t * a.planes + 1) * G + g) * Q8_GROUP + i] : 0;
                            int want = at < in ? q[at] : 0;
                            int got_a = a.planes == 2 ? 255 * hi + lo : hi;
                            ck_assert_msg(got_a == want && hi >= -127 && hi <= 127 && lo >= -127 && lo <= 127,
                                          "%s %s in %lld token %lld [%lld]: bytes %d, %d for a = %d",
                                          q8_kernel_name(k), range_name(range), (long long)in, (long long)t,
                                          (long long)at, hi, lo, want);
                            sum[0] += hi, sum[1] += lo;
                        }
                        for (int p = 0; p < a.planes; p++)
                            ck_assert_int_eq(a.correction[(t * a.planes + p) * G + g], -128 * sum[p]);
                    }
                }
                /* each token alone, as a decode step quantizes it (the AVX-512 kernel
                 * then writes around the cache): the same bytes, scales and corrections */
                for (int64_t t = 0; t < T; t++) {
                    Q8Act one;
                    q8_act_init(&one, 1, in, range);
                    memset(one.q, 0x55, (size_t)(a.planes * G * Q8_GROUP));
                    q8_quantize_act_with(x + t * in, 1, in, &one, k);
                    ck_assert_msg(memcmp(one.q, a.q + t * a.planes * G * Q8_GROUP,
                                         (size_t)(a.planes * G * Q8_GROUP)) == 0 &&
                                      memcmp(one.scale, a.scale + t * G, (size_t)G * sizeof(float)) == 0 &&
                                      memcmp(one.correction, a.correction + t * a.planes * G,
                                             (size_t)(a.planes * G) * sizeof(int32_t)) == 0,
                                  "%s %s in %lld: token %lld alone differs from token %lld of %lld",
                                  q8_kernel_name(k), range_name(range), (long long)in, (long long)t,
                                  (long long)t, (long long)T);
                    q8_act_free(&one);
                }
                free(q), free(s), free(x);
                q8_act_free(&a);
            }
        }
}
END_TEST

/* A NaN in one token makes that token's outputs NaN, every one, and no other token's. */
START_TEST(test_nan_token) {
    int64_t out = 35, in = 70, T = 6;
    Q8Rows m = random_rows(out, in);
    for (int64_t i = 0; i < in; i++) m.q[i] = 0, m.scale[i / 32] = 0; /* row 0: all zeros */
    Q8Weights p;
    q8_pack_quantized(m.q, m.scale, out, in, &p);
    float *x = random_floats(T * in, 1.0f);
    x[4 * in + 50] = NAN;
    float *want = xmalloc((size_t)(T * out) * sizeof *want), *got = xmalloc((size_t)(T * out) * sizeof *got);
    for (unsigned r = 0; r < ARRAY_LEN(all_ranges); r++) {
        q8_linear_ref(x, m.q, m.scale, T, in, out, all_ranges[r], want);
        for (unsigned kk = 0; kk < ARRAY_LEN(all_kernels); kk++) {
            if (!q8_kernel_built(all_kernels[kk])) continue;
            fast(all_kernels[kk], &p, x, T, all_ranges[r], got);
            for (int64_t t = 0; t < T; t++)
                for (int64_t o = 0; o < out; o++) {
                    float g = got[t * out + o], w = want[t * out + o];
                    ck_assert_msg(t == 4 ? isnan(g) && isnan(w) : !isnan(g) && g == w,
                                  "%s %s t %lld o %lld: %g (ref %g)", q8_kernel_name(all_kernels[kk]),
                                  range_name(all_ranges[r]), (long long)t, (long long)o, (double)g,
                                  (double)w);
                }
        }
    }
    free(x), free(want), free(got);
    q8_free(&p);
    rows_free(&m);
}
END_TEST

/* Real layer shapes: in_proj_b [16, 1024] for the 6 tokens of the book's sentence,
 * a slice of down_proj (in = 3584) for 5 tokens, of out_proj (in = 2048) for 3 and of the
 * output head for 1; and [3205, 96], 437 KB, which one token's call cuts into tasks of
 * a worker's share (kernels/quant.c) and the short last block on its own — all through
 * one activation buffer, sized once for the widest input and the most tokens, as a
 * model reuses it for every projection. */
START_TEST(test_real_shapes) {
    const int64_t shapes[][3] = {{16, 1024, 6},  {48, 3584, 5}, {32, 2048, 3},
                                 {160, 1024, 1}, {3205, 96, 1}, {3205, 96, 5}};
    Q8Act a[2];
    q8_act_init(&a[0], 6, 3584, Q8_ACT8);
    q8_act_init(&a[1], 6, 3584, Q8_ACT16);
    for (unsigned c = 0; c < ARRAY_LEN(shapes); c++) {
        int64_t out = shapes[c][0], in = shapes[c][1], T = shapes[c][2];
        Q8Rows m = random_rows(out, in);
        Q8Weights p;
        q8_pack_quantized(m.q, m.scale, out, in, &p);
        float *x = random_floats(T * in, 1.0f);
        float *want = xmalloc((size_t)(T * out) * sizeof *want),
              *got = xmalloc((size_t)(T * out) * sizeof *got);
        for (int r = 0; r < 2; r++) {
            q8_linear_ref(x, m.q, m.scale, T, in, out, a[r].range, want);
            q8_project(x, &p, T, &a[r], got); /* the best kernel, as a layer calls it */
            ck_assert_msg(memcmp(got, want, (size_t)(T * out) * sizeof *got) == 0, "%s [%lld, %lld] T %lld",
                          range_name(a[r].range), (long long)out, (long long)in, (long long)T);
        }
        free(x), free(want), free(got);
        q8_free(&p);
        rows_free(&m);
    }
    q8_act_free(&a[0]), q8_act_free(&a[1]);
}
END_TEST

/* The one-token call whose trials of asking ahead test_asking_ahead follows. */
typedef struct {
    const float *x;
    const Q8Weights *p;
    Q8Act *a;
} OneToken;

static void one_token(void *ctx, float *y) {
    const OneToken *c = ctx;
    q8_project(c->x, c->p, 1, c->a, y);
}

/* Through the trials of asking ahead (kernels/quant.c), every one-token call gives the
 * same bits (tests/ahead_trial.h). Tolerance: none. */
START_TEST(test_asking_ahead) {
    int64_t out = 64, in = 1024;
    Q8Rows m = random_rows(out, in);
    Q8Weights p;
    q8_pack_quantized(m.q, m.scale, out, in, &p);
    float *x = random_floats(in, 1.0f);
    Q8Act a;
    q8_act_init(&a, 1, in, Q8_ACT8);
    check_asking_ahead("q8_linear()", one_token, &(OneToken){x, &p, &a}, out, q8_asks_ahead);
    q8_act_free(&a);
    free(x);
    q8_free(&p);
    rows_free(&m);
}
END_TEST

/* ---- packing ------------------------------------------------------------------------- */

/* q8_pack from a BF16 tensor equals quantizing each widened row and packing; the packed
 * rows read back as dequantize_row gives them; a NaN is refused with its row named. */
START_TEST(test_pack) {
    int64_t out = 21, in = 70, G = q8_groups(in);
    uint16_t *bf = xmalloc((size_t)(out * in) * sizeof *bf);
    float *f = xmalloc((size_t)(out * in) * sizeof *f);
    for (int64_t i = 0; i < out * in; i++) {
        bf[i] = f32_to_bf16(0.1f * uniform());
        f[i] = bf16_to_f32(bf[i]);
    }
    Tensor t = {.name = "w",
                .dtype = DTYPE_BF16,
                .ndim = 2,
                .shape = {out, in},
                .numel = out * in,
                .data = bf,
                .file = "test"};
    Q8Weights p, want;
    Error err;
    ck_assert(q8_pack(&t, &p, &err));
    int8_t *q = xmalloc((size_t)(out * in));
    uint16_t *s = xmalloc((size_t)(out * G) * sizeof *s);
    for (int64_t o = 0; o < out; o++) ck_assert(q8_quantize_row(f + o * in, in, q + o * in, s + o * G));
    q8_pack_quantized(q, s, out, in, &want);
    ck_assert(p.blocks == 2 && p.groups == 3);
    ck_assert(q8_block_bytes(&p) == 2 * 1088); /* 3 groups: 2 pairs, the second half empty */
    ck_assert(memcmp(p.data, want.data, (size_t)(p.blocks * q8_block_bytes(&p))) == 0);
    ck_assert((uintptr_t)p.data % 64 == 0);
    float row[70], deq[70];
    for (int64_t o = 0; o < out; o++) {
        q8_packed_row(&p, o, row);
        q8_dequantize_row(q + o * in, s + o * G, in, deq);
        ck_assert_msg(memcmp(row, deq, sizeof row) == 0, "packed row %lld reads back differently",
                      (long long)o);
    }
    /* Where each number went, by hand: row 17 = block 1, lane 1; number 37 = group 1
     * (the second half of pair 0), step (37 − 32) / 4 = 1, byte 1 of the lane:
     *   block 1 + the pair's 64 bytes of scales + group 1 + step 1 + lane 1 + byte 1
     *   = 2176 + 64 + 512 + 64 + 4 + 1,
     * stored as q + 128; its scale is the 2nd of group 1's 16, which follow group 0's
     * 16 at the start of the pair: 2176 + 32 + 2 · 1. */
    ck_assert_int_eq(p.data[2176 + 64 + 512 + 64 + 4 + 1], q[17 * in + 37] + 128);
    uint16_t s17;
    memcpy(&s17, p.data + 2176 + 32 + 2, sizeof s17);
    ck_assert_int_eq(s17, s[17 * G + 1]);
    /* the padding rows of the short last block (rows 21 .. 31) are zeros, stored as 128,
     * with scale 0 */
    for (int64_t g = 0; g < p.groups; g++)
        for (int i = 0; i < 512; i++)
            if ((i % 64) / 4 >= out % 16)
                ck_assert_int_eq(p.data[2176 + (g / 2) * 1088 + 64 + (g % 2) * 512 + i], 128);
    for (int r = out % 16; r < 16; r++) ck_assert(p.data[2176 + 2 * r] == 0 && p.data[2176 + 1 + 2 * r] == 0);
    q8_free(&p), q8_free(&want);

    bf[13 * in + 40] = 0x7FC0; /* a BF16 NaN in row 13 */
    ck_assert(!q8_pack(&t, &p, &err));
    ck_assert_msg(strstr(err.msg, "row 13") != NULL, "message: %s", err.msg);
    printf("OK   refused: %s\n", err.msg);
    free(bf), free(f), free(q), free(s);
}
END_TEST

/* q8_pack's fast quantizer (AVX-512 where built) gives the reference's bytes on the
 * numbers where a quantizer goes wrong: groups from 1e-7 to 1e5 in size (scales among
 * fp16's subnormals, where the "next fp16 up" rule acts, and near Q8_MAX_ABS), exact
 * ties k + 1/2 of the scale, zeros, a short last group, a row that is all zeros, and
 * numbers of every dtype a checkpoint may hold (F32, F16, BF16). Which wrong code would
 * pass test_pack alone: a quantizer that rounds ties away from zero, or takes the
 * unrounded scale, agrees with the reference on random BF16 rows nearly always. */
START_TEST(test_pack_hard_numbers) {
    int64_t out = 37, in = 75, G = q8_groups(in); /* 3 blocks, the last short; 3 groups, the last of 11 */
    float *f = xmalloc((size_t)(out * in) * sizeof *f);
    for (int64_t o = 0; o < out; o++) {
        float mag = o == 5 ? 0.0f : (float)pow(10.0, -7.0 + 12.0 * (double)o / (double)(out - 1));
        for (int64_t i = 0; i < in; i++) f[o * in + i] = mag * uniform();
        if (o % 3 == 0) { /* ties: max 127 · 2^-e gives scale 2^-e, so (k + 1/2) · scale is a tie */
            float sc = ldexpf(1.0f, -(int)(o % 20));
            for (int64_t i = 0; i < in; i++)
                f[o * in + i] = sc * ((float)(i % 5) - 2.0f + 0.5f) * (i % 2 ? 1 : -1);
            for (int64_t g = 0; g < G; g++) f[o * in + g * Q8_GROUP] = 127.0f * sc;
        }
    }
    f[36 * in + 3] = Q8_MAX_ABS; /* the largest number a row may hold */
    for (DType dt = DTYPE_F32; dt <= DTYPE_BF16; dt++) {
        void *data = xmalloc((size_t)(out * in) * 4);
        for (int64_t i = 0; i < out * in; i++) {
            if (dt == DTYPE_F32) ((float *)data)[i] = f[i];
            if (dt == DTYPE_F16) ((uint16_t *)data)[i] = fp16_bits(fminf(fmaxf(f[i], -65504.0f), 65504.0f));
            if (dt == DTYPE_BF16) { /* Q8_MAX_ABS rounds up in BF16: the BF16 below it instead */
                uint16_t h = f32_to_bf16(f[i]);
                ((uint16_t *)data)[i] = fabsf(bf16_to_f32(h)) > Q8_MAX_ABS ? h - 1 : h;
            }
        }
        Tensor t = {.name = "w", .dtype = dt, .ndim = 2, .shape = {out, in}, .numel = out * in, .data = data};
        float *row = xmalloc((size_t)in * sizeof *row);
        int8_t *q = xmalloc((size_t)(out * in));
        uint16_t *sc = xmalloc((size_t)(out * G) * sizeof *sc);
        for (int64_t o = 0; o < out; o++) {
            tensor_read_f32(&t, o * in, in, row);
            ck_assert(q8_quantize_row(row, in, q + o * in, sc + o * G));
        }
        Q8Weights got, want;
        Error err;
        ck_assert_msg(q8_pack(&t, &got, &err), "%s", err.msg);
        q8_pack_quantized(q, sc, out, in, &want);
        ck_assert_msg(memcmp(got.data, want.data, (size_t)q8_packed_bytes(out, in)) == 0,
                      "%s: q8_pack differs from q8_quantize_row + q8_pack_quantized", dtype_name(dt));
        q8_free(&got), q8_free(&want);
        free(data), free(row), free(q), free(sc);
    }
    printf("OK   q8_pack on subnormal scales, ties, zeros, Q8_MAX_ABS, a short group; F32, F16, BF16\n");
    free(f);
}
END_TEST

/* q8_linear_tensor_ref, the formula from the checkpoint's numbers, gives the bits of the
 * fast path on q8_pack(W), and of q8_linear_ref on the quantized rows; a row it cannot
 * quantize comes out NaN. Sizes as promised: q8_packed_bytes is what q8_pack lays out. */
START_TEST(test_tensor_ref) {
    int64_t out = 21, in = 70, T = 3, G = q8_groups(in);
    uint16_t *bf = xmalloc((size_t)(out * in) * sizeof *bf);
    float *f = xmalloc((size_t)(out * in) * sizeof *f);
    for (int64_t i = 0; i < out * in; i++) f[i] = bf16_to_f32(bf[i] = f32_to_bf16(0.05f * uniform()));
    Tensor t = {
        .name = "w", .dtype = DTYPE_BF16, .ndim = 2, .shape = {out, in}, .numel = out * in, .data = bf};
    int8_t *q = xmalloc((size_t)(out * in));
    uint16_t *sc = xmalloc((size_t)(out * G) * sizeof *sc);
    for (int64_t o = 0; o < out; o++) ck_assert(q8_quantize_row(f + o * in, in, q + o * in, sc + o * G));
    Q8Weights p;
    Error err;
    ck_assert(q8_pack(&t, &p, &err));
    ck_assert(q8_packed_bytes(out, in) == (uint64_t)(p.blocks * q8_block_bytes(&p)));
    ck_assert(q8_packed_bytes(out, in) == 2 * 2 * 1088);
    float *x = random_floats(T * in, 1.0f), *y = xmalloc((size_t)(T * out) * sizeof *y),
          *want = xmalloc((size_t)(T * out) * sizeof *want),
          *fast_y = xmalloc((size_t)(T * out) * sizeof *fast_y);
    for (int r = 0; r < 2; r++) {
        q8_linear_tensor_ref(x, &t, T, all_ranges[r], y);
        q8_linear_ref(x, q, sc, T, in, out, all_ranges[r], want);
        fast(q8_best_kernel, &p, x, T, all_ranges[r], fast_y);
        ck_assert_msg(memcmp(y, want, (size_t)(T * out) * sizeof *y) == 0, "%s: differs from q8_linear_ref",
                      range_name(all_ranges[r]));
        ck_assert_msg(memcmp(y, fast_y, (size_t)(T * out) * sizeof *y) == 0, "%s: differs from q8_linear",
                      range_name(all_ranges[r]));
    }
    bf[4 * in + 66] = 0x7F80; /* +inf in row 4's last group; want holds the Q8_ACT16 product */
    q8_linear_tensor_ref(x, &t, T, Q8_ACT16, y);
    for (int64_t tt = 0; tt < T; tt++)
        for (int64_t o = 0; o < out; o++)
            ck_assert(o == 4 ? isnan(y[tt * out + o]) : y[tt * out + o] == want[tt * out + o]);
    q8_free(&p);
    free(bf), free(f), free(q), free(sc), free(x), free(y), free(want), free(fast_y);
}
END_TEST

/* A stack (quant.h): three matrices of 21, 16 and 5 rows packed as one W give, through
 * q8_linear_parts, each matrix's outputs in its own array, bit for bit those of the
 * matrix packed alone, with every kernel, both ranges, one token and 7, 1 and 3
 * workers, and the parts' rows read back through q8_packed_row in stack order. What a
 * wrong stack would do and these catch: a part's outputs shifted by the padding rows
 * of the part before (21 is not a multiple of 16), a short block's padding lanes
 * stored over the next part's outputs (the arrays are exact-sized and poisoned around),
 * a part of 16 rows taken for a short one. */
START_TEST(test_stack) {
    const int64_t outs[3] = {21, 16, 5}, in = 70;
    Tensor t[3];
    uint16_t *bf[3];
    for (int i = 0; i < 3; i++) {
        bf[i] = xmalloc((size_t)(outs[i] * in) * sizeof *bf[i]);
        for (int64_t k = 0; k < outs[i] * in; k++)
            bf[i][k] = f32_to_bf16((0.02f + 0.03f * (float)i) * uniform());
        t[i] = (Tensor){.name = "w",
                        .dtype = DTYPE_BF16,
                        .ndim = 2,
                        .shape = {outs[i], in},
                        .numel = outs[i] * in,
                        .data = bf[i]};
    }
    const Tensor *ts[3] = {&t[0], &t[1], &t[2]};
    Q8Weights stack, alone[3];
    Error err;
    ck_assert(q8_pack_stack(ts, 3, &stack, &err));
    ck_assert(stack.parts == 3 && stack.out == 42 && stack.blocks == 2 + 1 + 1);
    ck_assert(q8_stack_bytes(outs, 3, in) == (uint64_t)(stack.blocks * q8_block_bytes(&stack)));
    for (int i = 0; i < 3; i++) ck_assert(q8_pack(&t[i], &alone[i], &err));
    float row_s[70], row_a[70];
    for (int i = 0, o = 0; i < 3; i++)
        for (int64_t r = 0; r < outs[i]; r++, o++) {
            q8_packed_row(&stack, o, row_s);
            q8_packed_row(&alone[i], r, row_a);
            ck_assert_msg(memcmp(row_s, row_a, sizeof row_s) == 0, "stack row %d is not part %d's row %lld",
                          o, i, (long long)r);
        }
    const float poison = -12345.0f;
    int saved = pool_threads();
    const int64_t Ts[] = {1, 7};
    for (unsigned c = 0; c < ARRAY_LEN(Ts); c++) {
        int64_t T = Ts[c];
        float *x = random_floats(T * in, 1.0f);
        for (unsigned kk = 0; kk < ARRAY_LEN(all_kernels) * ARRAY_LEN(all_ranges); kk++) {
            Q8Kernel k = all_kernels[kk / 2];
            Q8ActRange range = all_ranges[kk % 2];
            if (!q8_kernel_built(k)) continue;
            Q8Act a;
            q8_act_init(&a, T, in, range);
            q8_quantize_act_with(x, T, in, &a, k);
            for (int n = 1; n <= 3; n += 2) {
                pool_set_threads(n);
                float *want[3], *got[3], *arena[3];
                for (int i = 0; i < 3; i++) {
                    size_t len = (size_t)(T * outs[i]);
                    want[i] = xmalloc(len * sizeof(float));
                    arena[i] = xmalloc((len + 32) * sizeof(float)); /* 16 poisoned floats either side */
                    for (size_t e = 0; e < len + 32; e++) arena[i][e] = poison;
                    got[i] = arena[i] + 16;
                    q8_linear_with(&a, &alone[i], want[i], k);
                }
                q8_linear_parts_with(&a, &stack, got, k);
                for (int i = 0; i < 3; i++) {
                    size_t len = (size_t)(T * outs[i]);
                    ck_assert_msg(memcmp(got[i], want[i], len * sizeof(float)) == 0,
                                  "%s %s T=%lld %d workers: part %d differs from the matrix alone",
                                  q8_kernel_name(k), range_name(range), (long long)T, n, i);
                    for (int e = 0; e < 16; e++)
                        ck_assert_msg(arena[i][e] == poison && arena[i][16 + len + (size_t)e] == poison,
                                      "%s T=%lld: part %d written outside its array", q8_kernel_name(k),
                                      (long long)T, i);
                    free(want[i]), free(arena[i]);
                }
            }
            pool_set_threads(saved);
            q8_act_free(&a);
        }
        free(x);
    }
    printf("OK   a stack of [21|16|5, 70]: each part bit for bit as the matrix alone, nothing written "
           "outside its array\n");
    q8_free(&stack);
    for (int i = 0; i < 3; i++) q8_free(&alone[i]), free(bf[i]);
}
END_TEST

/* ---- the promises of quant.h -------------------------------------------------------- */

/* 1, 2 and 3 workers give identical bits, for one token and for 139, with every kernel
 * and both ranges; and row t of the 139-token call equals the call with token t alone.
 * Two shapes: 201 blocks (437 KB, the last block short), which one token's call cuts
 * into tasks of a worker's share, in whole parts of 4 — with 1 worker 200 and 1, with
 * 2 100, 100 and 1, with 3 three of 64 and one of 9 (a tile of 4 blocks twice, then the
 * block left over, kernels/quant.c: decode_task); and 3 blocks, too few to go
 * round, where the tasks share the tokens instead — into a number of tasks that itself
 * depends on the worker count. Tolerance: none. */
START_TEST(test_thread_count) {
    const int64_t outs[] = {16 * 200 + 5, 40};
    int64_t in = 96;
    int saved = pool_threads();
    const int64_t T_list[] = {1, 139};
    for (unsigned o = 0; o < ARRAY_LEN(outs); o++) {
        int64_t out = outs[o];
        Q8Rows m = random_rows(out, in);
        Q8Weights p;
        q8_pack_quantized(m.q, m.scale, out, in, &p);
        for (unsigned kk = 0; kk < ARRAY_LEN(all_kernels) * ARRAY_LEN(all_ranges); kk++) {
            Q8Kernel k = all_kernels[kk / 2];
            Q8ActRange range = all_ranges[kk % 2];
            if (!q8_kernel_built(k)) continue;
            for (unsigned c = 0; c < ARRAY_LEN(T_list); c++) {
                int64_t T = T_list[c];
                float *x = random_floats(T * in, 1.0f), *y[3];
                for (int n = 1; n <= 3; n++) {
                    pool_set_threads(n);
                    y[n - 1] = xmalloc((size_t)(T * out) * sizeof(float));
                    fast(k, &p, x, T, range, y[n - 1]);
                }
                pool_set_threads(saved);
                for (int n = 2; n <= 3; n++)
                    ck_assert_msg(memcmp(y[0], y[n - 1], (size_t)(T * out) * sizeof(float)) == 0,
                                  "%s %s out %lld T=%lld: %d workers differ from 1", q8_kernel_name(k),
                                  range_name(range), (long long)out, (long long)T, n);
                float *one = xmalloc((size_t)out * sizeof *one);
                for (int64_t t = 0; t < T; t++) {
                    fast(k, &p, x + t * in, 1, range, one);
                    ck_assert_msg(memcmp(one, y[1] + t * out, (size_t)out * sizeof *one) == 0,
                                  "%s out %lld: row %lld of T=%lld differs from the token alone",
                                  q8_kernel_name(k), (long long)out, (long long)t, (long long)T);
                }
                printf("OK   %s %s out %lld T=%lld: 1, 2 and 3 workers agree bit for bit, and each row with "
                       "its token alone\n",
                       q8_kernel_name(k), range_name(range), (long long)out, (long long)T);
                for (int n = 0; n < 3; n++) free(y[n]);
                free(one), free(x);
            }
        }
        q8_free(&p);
        rows_free(&m);
    }
}
END_TEST

/* Called from inside a task of the pool (e.g. a loop over heads), each call runs on its
 * own worker and gives the same bits as a call from outside. */
typedef struct {
    const Q8Weights *p;
    const float *x;
    int64_t T;
    float *y; /* [tasks, T, out] */
} Inside;
static void inside_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const Inside *in = ctx;
    fast(q8_best_kernel, in->p, in->x, in->T, Q8_ACT16, in->y + task * in->T * in->p->out);
}

START_TEST(test_inside_parallel_region) {
    int64_t out = 70, in = 64, T = 5;
    Q8Rows m = random_rows(out, in);
    Q8Weights p;
    q8_pack_quantized(m.q, m.scale, out, in, &p);
    float *x = random_floats(T * in, 1.0f);
    float *outside = xmalloc((size_t)(T * out) * sizeof(float));
    float *inside = xmalloc((size_t)(2 * T * out) * sizeof(float));
    fast(q8_best_kernel, &p, x, T, Q8_ACT16, outside);
    Inside job = {&p, x, T, inside};
    pool_run(2, inside_task, &job);
    for (int n = 0; n < 2; n++)
        ck_assert_msg(memcmp(outside, inside + n * T * out, (size_t)(T * out) * sizeof(float)) == 0,
                      "call from task %d of the pool differs", n);
    free(x), free(outside), free(inside);
    q8_free(&p);
    rows_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("quant");
    TCase *quantizer = tcase_create("quantizer");
    tcase_set_timeout(quantizer, 60);
    tcase_add_test(quantizer, test_hand_ties);
    tcase_add_test(quantizer, test_hand_fp16_scale);
    tcase_add_test(quantizer, test_hand_edges);
    tcase_add_test(quantizer, test_refused);
    tcase_add_test(quantizer, test_bound_many_rows);
    tcase_add_test(quantizer, test_round_trip);
    tcase_add_test(quantizer, test_act_hand);
    suite_add_tcase(s, quantizer);
    TCase *ref = tcase_create("reference product");
    tcase_set_timeout(ref, 60);
    tcase_add_test(ref, test_dot_hand);
    tcase_add_test(ref, test_dot_hand16);
    tcase_add_test(ref, test_ref_vs_float64);
    suite_add_tcase(s, ref);
    TCase *kernels = tcase_create("kernels vs reference");
    tcase_set_timeout(kernels, 120); /* the sanitizer build is slow */
    tcase_add_test(kernels, test_kernels_vs_reference);
    tcase_add_test(kernels, test_act_kernels);
    tcase_add_test(kernels, test_nan_token);
    tcase_add_test(kernels, test_real_shapes);
    tcase_add_test(kernels, test_pack);
    tcase_add_test(kernels, test_pack_hard_numbers);
    tcase_add_test(kernels, test_tensor_ref);
    tcase_add_test(kernels, test_stack);
    suite_add_tcase(s, kernels);
    TCase *promise = tcase_create("promises");
    tcase_set_timeout(promise, 60);
    tcase_add_test(promise, test_thread_count);
    tcase_add_test(promise, test_inside_parallel_region);
    tcase_add_test(promise, test_asking_ahead);
    suite_add_tcase(s, promise);

    /* Check runs each test in a child process that may end without flushing stdout:
     * line buffering keeps the comparison lines of a failing test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("8-bit kernels built: portable C%s%s; q8_linear uses %s\n",
           q8_kernel_built(Q8_AVX2) ? ", AVX2" : "", q8_kernel_built(Q8_AVX512) ? ", AVX-512 VNNI" : "",
           q8_kernel_name(q8_best_kernel));
    return run_suite(s, CK_FORK_GETENV);
}
