/* test_tensor.c — the stored number formats (common/qwen/tensor.h) on their edge values.
 *
 * Every expected value is written as bits worked out by hand from the formats:
 *   float32  1 sign | 8 exponent (bias 127) | 23 mantissa
 *   bfloat16 1 sign | 8 exponent (bias 127) |  7 mantissa  = the top half of a float32
 *   float16  1 sign | 5 exponent (bias 15)  | 10 mantissa
 * Narrowing rounds to nearest, ties to even (what PyTorch's .to() does), so the
 * cases sit exactly on, just above and just below the half-way points.
 */
#include <math.h>

#include "helpers.h"
#include "qwen/tensor.h"

static uint32_t bits_of(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float float_of(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* ---- bfloat16 -> float32 ------------------------------------------------------ */

START_TEST(bf16_widening_edge_values) {
    static const struct {
        uint16_t h;
        float want; /* compared bit for bit, so -0.0f is not +0.0f */
    } cases[] = {
        {0x0000, 0.0f},         /* +0 */
        {0x8000, -0.0f},        /* -0 */
        {0x0001, 0x1p-133f},    /* smallest subnormal: mantissa 1 × 2^(-126-7) */
        {0x007F, 0x1.fcp-127f}, /* largest subnormal: 127 × 2^-133 */
        {0x8001, -0x1p-133f},   /* smallest negative subnormal */
        {0x0080, 0x1p-126f},    /* smallest normal */
        {0x3F80, 1.0f},         /* exponent 127, mantissa 0 */
        {0xC020, -2.5f},        /* sign, exponent 128, mantissa 32/128: -1.25 × 2 */
        {0x4049, 3.140625f},    /* exponent 128, mantissa 73/128: 1.5703125 × 2 */
        {0x7F7F, 0x1.fep127f},  /* largest finite: (2 - 2^-7) × 2^127 ≈ 3.3895e38 */
        {0xFF7F, -0x1.fep127f}, /* most negative finite */
        {0x7F80, INFINITY},     /* all-ones exponent, mantissa 0 */
        {0xFF80, -INFINITY},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        float got = bf16_to_f32(cases[i].h);
        ck_assert_msg(bits_of(got) == bits_of(cases[i].want),
                      "bf16 0x%04x: got 0x%08x (%g), want 0x%08x (%g)", cases[i].h, bits_of(got), got,
                      bits_of(cases[i].want), cases[i].want);
    }
    /* NaN stays NaN, whatever its payload, and keeps its sign */
    ck_assert(isnan(bf16_to_f32(0x7FC0)));
    ck_assert(isnan(bf16_to_f32(0x7F81)));
    ck_assert(isnan(bf16_to_f32(0xFFC0)) && signbit(bf16_to_f32(0xFFC0)));
}
END_TEST

/* ---- float32 -> bfloat16 ------------------------------------------------------- */

START_TEST(bf16_narrowing_rounds_to_nearest_even) {
    static const struct {
        uint32_t f;
        uint16_t want;
    } cases[] = {
        {0x00000000, 0x0000}, /* +0 */
        {0x80000000, 0x8000}, /* -0 keeps its sign */
        {0x3F800000, 0x3F80}, /* 1 */
        {0x3F808000, 0x3F80}, /* 1 + 2^-8: exactly half-way, 0x3F80 is even: down */
        {0x3F818000, 0x3F82}, /* 1 + 3·2^-8: half-way, 0x3F81 is odd: up */
        {0x3F808001, 0x3F81}, /* just above half-way: up */
        {0x3F807FFF, 0x3F80}, /* just below: down */
        {0xBF808000, 0xBF80}, /* ties to even on the negative side too */
        {0x7F7F7FFF, 0x7F7F}, /* just below half-way under the largest bf16: stays finite */
        {0x7F7F8000, 0x7F80}, /* half-way, 0x7F7F odd: rounds up into +inf */
        {0x7F7FFFFF, 0x7F80}, /* FLT_MAX is beyond the largest bf16: +inf */
        {0xFF7FFFFF, 0xFF80}, /* -FLT_MAX: -inf */
        {0x7F800000, 0x7F80}, /* +inf */
        {0xFF800000, 0xFF80}, /* -inf */
        {0x00000001, 0x0000}, /* 2^-149 is far below the smallest bf16 subnormal 2^-133 */
        {0x00008000, 0x0000}, /* 2^-134: half of 2^-133, ties to the even 0 */
        {0x00008001, 0x0001}, /* just above: the smallest subnormal */
        {0x00018000, 0x0002}, /* 1.5 × 2^-133: half-way, ties to the even 2 */
        {0x00010000, 0x0001}, /* exactly 2^-133 */
        {0x807F0000, 0x807F}, /* largest negative subnormal */
        {0x007FFFFF, 0x0080}, /* largest float32 subnormal rounds up to the smallest normal */
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint16_t got = f32_to_bf16(float_of(cases[i].f));
        ck_assert_msg(got == cases[i].want, "float 0x%08x: got bf16 0x%04x, want 0x%04x", cases[i].f, got,
                      cases[i].want);
    }
    /* NaN must stay NaN: the payload may sit only in the low 16 bits, which a plain
     * truncation would turn into infinity (0x7F800001 -> 0x7F80). */
    static const uint32_t nans[] = {0x7FC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0x7FA00000};
    for (size_t i = 0; i < ARRAY_LEN(nans); i++) {
        uint16_t got = f32_to_bf16(float_of(nans[i]));
        ck_assert_msg((got & 0x7F80) == 0x7F80 && (got & 0x007F) != 0, "NaN 0x%08x became 0x%04x", nans[i],
                      got);
        ck_assert_msg((got & 0x8000) == ((nans[i] >> 16) & 0x8000), "NaN 0x%08x lost its sign: 0x%04x",
                      nans[i], got);
    }
}
END_TEST

/* ---- float16 <-> float32 ------------------------------------------------------- */

START_TEST(f16_widening_edge_values) {
    static const struct {
        uint16_t h;
        float want;
    } cases[] = {
        {0x0000, 0.0f},         /* +0 */
        {0x8000, -0.0f},        /* -0 */
        {0x0001, 0x1p-24f},     /* smallest subnormal: 1 × 2^(-14-10) */
        {0x03FF, 0x1.ff8p-15f}, /* largest subnormal: 1023 × 2^-24 */
        {0x8001, -0x1p-24f},    /* smallest negative subnormal */
        {0x0400, 0x1p-14f},     /* smallest normal */
        {0x3C00, 1.0f},         /* exponent 15, mantissa 0 */
        {0xC000, -2.0f},        /* sign, exponent 16 */
        {0x3555, 0x1.554p-2f},  /* exponent -2, mantissa 341/1024: 0.333251953125 */
        {0x7BFF, 65504.0f},     /* largest finite: (2 - 2^-10) × 2^15 */
        {0xFBFF, -65504.0f},    /* most negative finite */
        {0x7C00, INFINITY},     /* all-ones exponent, mantissa 0 */
        {0xFC00, -INFINITY},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        float got = f16_to_f32(cases[i].h);
        ck_assert_msg(bits_of(got) == bits_of(cases[i].want), "f16 0x%04x: got %a, want %a", cases[i].h, got,
                      cases[i].want);
    }
    ck_assert(isnan(f16_to_f32(0x7E00)));
    ck_assert(isnan(f16_to_f32(0x7C01)));
    ck_assert(isnan(f16_to_f32(0xFE00)) && signbit(f16_to_f32(0xFE00)));
}
END_TEST

START_TEST(f16_narrowing_rounds_to_nearest_even) {
    static const struct {
        float f;
        uint16_t want;
    } cases[] = {
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {1.0f, 0x3C00},
        {-2.0f, 0xC000},
        {0x1.554p-2f, 0x3555},
        {0x1.002p0f, 0x3C00},    /* 1 + 2^-11: half-way between 1 and 1 + 2^-10, even: down */
        {0x1.006p0f, 0x3C02},    /* 1 + 3·2^-11: half-way, 0x3C01 odd: up */
        {0x1.002002p0f, 0x3C01}, /* just above half-way: up */
        {0x1.ffep0f, 0x4000},    /* 2 - 2^-11: half-way, rounding up carries into the exponent */
        {65504.0f, 0x7BFF},      /* largest finite */
        {65519.0f, 0x7BFF},      /* below the half-way point 65520: stays finite */
        {65520.0f, 0x7C00},      /* half-way, 0x7BFF odd: up, into +inf */
        {-65520.0f, 0xFC00},
        {1e5f, 0x7C00},
        {0x1.fffffep127f, 0x7C00}, /* FLT_MAX */
        {INFINITY, 0x7C00},
        {-INFINITY, 0xFC00},
        {0x1p-24f, 0x0001}, /* smallest subnormal, exact */
        {-0x1p-24f, 0x8001},
        {0x1p-25f, 0x0000},        /* half of it: ties to the even 0 */
        {0x1.000002p-25f, 0x0001}, /* just above half: up */
        {0x1.8p-24f, 0x0002},      /* 1.5 × 2^-24: half-way, ties to the even 2 */
        {0x1p-26f, 0x0000},
        {1e-8f, 0x0000},
        {0x1p-149f, 0x0000},
        {-0x1p-149f, 0x8000},   /* float32 subnormals: signed zero */
        {0x1.ff8p-15f, 0x03FF}, /* largest subnormal, exact */
        {0x1.ffcp-15f, 0x0400}, /* 1023.5 × 2^-24: half-way, 0x03FF odd: up to the smallest normal */
        {0x1p-14f, 0x0400},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint16_t got = f32_to_f16(cases[i].f);
        ck_assert_msg(got == cases[i].want, "float %a: got f16 0x%04x, want 0x%04x", cases[i].f, got,
                      cases[i].want);
    }
    uint16_t nan = f32_to_f16(NAN), neg_nan = f32_to_f16(-NAN);
    ck_assert_msg((nan & 0x7C00) == 0x7C00 && (nan & 0x03FF) != 0, "NaN became 0x%04x", nan);
    ck_assert_msg((neg_nan & 0x8000) && (neg_nan & 0x03FF) != 0, "-NaN became 0x%04x", neg_nan);
    ck_assert_msg((f32_to_f16(float_of(0x7F800001)) & 0x03FF) != 0, "a NaN with a tiny payload became inf");
}
END_TEST

/* Widening then narrowing gives back every one of the 65536 bit patterns (NaNs stay NaN). */
START_TEST(every_half_pattern_survives_a_round_trip) {
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        float b = bf16_to_f32((uint16_t)h), f = f16_to_f32((uint16_t)h);
        if (isnan(b))
            ck_assert(isnan(bf16_to_f32(f32_to_bf16(b))));
        else
            ck_assert_msg(f32_to_bf16(b) == h, "bf16 0x%04x came back as 0x%04x", h, f32_to_bf16(b));
        if (isnan(f))
            ck_assert(isnan(f16_to_f32(f32_to_f16(f))));
        else
            ck_assert_msg(f32_to_f16(f) == h, "f16 0x%04x came back as 0x%04x", h, f32_to_f16(f));
    }
}
END_TEST

/* ---- names, sizes, reading ------------------------------------------------------ */

START_TEST(dtype_names_and_sizes) {
    DType t;
    ck_assert(dtype_parse("BF16", &t) && t == DTYPE_BF16);
    ck_assert(dtype_parse("F16", &t) && t == DTYPE_F16);
    ck_assert(dtype_parse("F32", &t) && t == DTYPE_F32);
    static const char *const unknown[] = {"F64", "I64", "bf16", "U8", "F8_E4M3", ""};
    for (size_t i = 0; i < ARRAY_LEN(unknown); i++)
        ck_assert_msg(!dtype_parse(unknown[i], &t), "%s", unknown[i]);
    ck_assert_str_eq(dtype_name(DTYPE_BF16), "BF16");
    ck_assert_str_eq(dtype_name(DTYPE_F16), "F16");
    ck_assert_str_eq(dtype_name(DTYPE_F32), "F32");
    ck_assert_int_eq(dtype_size(DTYPE_BF16), 2);
    ck_assert_int_eq(dtype_size(DTYPE_F16), 2);
    ck_assert_int_eq(dtype_size(DTYPE_F32), 4);

    char buf[64];
    Tensor embed = {.ndim = 2, .shape = {248320, 1024}}, scalar = {.ndim = 0};
    ck_assert_str_eq(shape_str(&embed, buf, sizeof buf), "[248320, 1024]");
    ck_assert_str_eq(shape_str(&scalar, buf, sizeof buf), "[]");
}
END_TEST

START_TEST(reading_a_slice_widens_each_dtype) {
    static const uint16_t bf16[] = {0x3F80, 0xC020, 0x4049, 0x0000}; /* 1, -2.5, 3.140625, 0 */
    static const uint16_t f16[] = {0x3C00, 0xC000, 0x3555, 0x7BFF};  /* 1, -2, 0.333251953125, 65504 */
    static const float f32[] = {1.0f, -2.5f, 0.15625f, 42.0f};
    Tensor tb = {.dtype = DTYPE_BF16, .ndim = 1, .shape = {4}, .numel = 4, .data = bf16};
    Tensor th = {.dtype = DTYPE_F16, .ndim = 1, .shape = {4}, .numel = 4, .data = f16};
    Tensor tf = {.dtype = DTYPE_F32, .ndim = 1, .shape = {4}, .numel = 4, .data = f32};
    float out[2];
    tensor_read_f32(&tb, 1, 2, out); /* elements 1 and 2 */
    ck_assert(out[0] == -2.5f && out[1] == 3.140625f);
    tensor_read_f32(&th, 2, 2, out);
    ck_assert(out[0] == 0.333251953125f && out[1] == 65504.0f);
    tensor_read_f32(&tf, 1, 2, out);
    ck_assert(out[0] == -2.5f && out[1] == 0.15625f);
    ck_assert(tensor_get_f32(&tb, 0) == 1.0f && tensor_get_f32(&th, 1) == -2.0f &&
              tensor_get_f32(&tf, 3) == 42.0f);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tensor");
    TCase *c = tcase_create("conversions");
    tcase_add_test(c, bf16_widening_edge_values);
    tcase_add_test(c, bf16_narrowing_rounds_to_nearest_even);
    tcase_add_test(c, f16_widening_edge_values);
    tcase_add_test(c, f16_narrowing_rounds_to_nearest_even);
    tcase_add_test(c, every_half_pattern_survives_a_round_trip);
    tcase_add_test(c, dtype_names_and_sizes);
    tcase_add_test(c, reading_a_slice_widens_each_dtype);
    suite_add_tcase(s, c);
    return run_suite(s);
}
