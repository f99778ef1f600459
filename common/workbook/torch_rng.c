/* torch_rng.c — PyTorch's random stream (see torch_rng.h).
 *
 * Compiled with -ffp-contract=off: every multiply-add that PyTorch's build fuses
 * is an explicit fmaf below, and no other one is fused.
 */
#include "torch_rng.h"

#include <math.h>
#include <string.h>

/* ---- 1. The engine: MT19937 ------------------------------------------------ */

#define MT_M      397
#define MT_MATRIX 0x9908b0dfu
#define MT_UPPER  0x80000000u
#define MT_LOWER  0x7fffffffu

void rng_seed(TorchRng *g, uint64_t seed) {
    g->mt[0] = (uint32_t)seed; /* PyTorch keeps only the low 32 bits */
    for (uint32_t j = 1; j < RNG_MT_N; j++)
        g->mt[j] = 1812433253u * (g->mt[j - 1] ^ (g->mt[j - 1] >> 30)) + j;
    g->next = RNG_MT_N; /* the first draw regenerates the whole state */
    g->has_cached_normal = false;
    g->cached_normal = 0.0;
}

void rng_init(TorchRng *g, uint64_t seed) {
    g->variant = RNG_X86;
    rng_seed(g, seed);
}

const char *rng_variant_name(RngVariant v) { return v == RNG_LIBM ? "libm" : "x86"; }

bool rng_variant_parse(const char *name, RngVariant *out) {
    if (strcmp(name, "x86") == 0)
        *out = RNG_X86;
    else if (strcmp(name, "libm") == 0)
        *out = RNG_LIBM;
    else
        return false;
    return true;
}

/* Regenerates all 624 words at once (the "twist"). Updating in place, in order,
 * is part of the definition: word i uses the already-updated word i + 397 - 624. */
static void mt_twist(TorchRng *g) {
    for (int i = 0; i < RNG_MT_N; i++) {
        uint32_t y = (g->mt[i] & MT_UPPER) | (g->mt[(i + 1) % RNG_MT_N] & MT_LOWER);
        uint32_t next = g->mt[(i + MT_M) % RNG_MT_N] ^ (y >> 1);
        if (y & 1u) next ^= MT_MATRIX;
        g->mt[i] = next;
    }
    g->next = 0;
}

uint32_t rng_u32(TorchRng *g) {
    if (g->next >= RNG_MT_N) mt_twist(g);
    uint32_t y = g->mt[g->next++];
    /* tempering: spreads the state bits over the output word */
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint64_t rng_u64(TorchRng *g) {
    uint64_t hi = rng_u32(g);
    uint64_t lo = rng_u32(g);
    return (hi << 32) | lo;
}

/* ---- 2. Uniforms ----------------------------------------------------------- */

/* float has a 24-bit significand: the low 24 bits of a draw, scaled by 2^-24. */
float rng_uniform_f32(TorchRng *g) { return (float)(rng_u32(g) & 0xffffffu) * 0x1p-24f; }

/* double has 53: the low 53 bits of a 64-bit draw, scaled by 2^-53. */
double rng_uniform_f64(TorchRng *g) { return (double)(rng_u64(g) & ((UINT64_C(1) << 53) - 1)) * 0x1p-53; }

/* ---- 3a. The double path (n < 16) ------------------------------------------ */

double rng_normal_f64(TorchRng *g) {
    if (g->has_cached_normal) { /* the second half of the previous pair */
        g->has_cached_normal = false;
        return g->cached_normal;
    }
    double u1 = rng_uniform_f64(g);
    double u2 = rng_uniform_f64(g);
    double r = sqrt(-2.0 * log(1.0 - u2)); /* 1 - u2 is in (0, 1]: the log is finite */
    double theta = 2.0 * M_PI * u1;
    g->cached_normal = r * sin(theta);
    g->has_cached_normal = true;
    return r * cos(theta);
}

/* ---- 3b. The 16-block path, x86 variant: PyTorch's float polynomials -------- */

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Natural log for x in (0, ∞), the Cephes way: split x = m · 2^e with m in
 * [√½, √2), then log x = e·log 2 + log m, where log m = log(1 + t) is a degree-9
 * polynomial in t = m - 1. log 2 is split into 0.693359375 (exact in a few bits)
 * minus 2.12194440e-4, so that e·log 2 loses nothing. */
static float cephes_logf(float x) {
    if (!(x > 0.0f)) return NAN;      /* PyTorch's mask sets every bit: a NaN */
    if (x < 0x1p-126f) x = 0x1p-126f; /* denormals are cut off at the smallest normal */
    uint32_t bits = f32_bits(x);
    float e = (float)((int32_t)(bits >> 23) - 127);         /* the binary exponent */
    x = f32_from_bits((bits & ~0x7f800000u) | 0x3f000000u); /* m in [0.5, 1): exponent of 0.5 */
    e = e + 1.0f;                                           /* x = m · 2^e with m in [0.5, 1) */

    /* Move m into [√½, √2): if m < √½, use 2m and one less in the exponent. */
    bool small = x < 0.707106781186547524f;
    float doubled = small ? x : 0.0f;
    x = x - 1.0f;
    e = e - (small ? 1.0f : 0.0f);
    x = x + doubled; /* t = m - 1, or 2m - 1 */

    float z = x * x;
    float y = 7.0376836292E-2f; /* the polynomial, by Horner's rule */
    y = fmaf(y, x, -1.1514610310E-1f);
    y = fmaf(y, x, 1.1676998740E-1f);
    y = fmaf(y, x, -1.2420140846E-1f);
    y = fmaf(y, x, 1.4249322787E-1f);
    y = fmaf(y, x, -1.6668057665E-1f);
    y = fmaf(y, x, 2.0000714765E-1f);
    y = fmaf(y, x, -2.4999993993E-1f);
    y = fmaf(y, x, 3.3333331174E-1f);
    y = y * x;
    y = fmaf(y, z, e * -2.12194440e-4f); /* t³·P(t) + e·(small part of log 2) */
    y = fmaf(-z, 0.5f, y);               /* - t²/2 */
    x = x + y;
    return fmaf(e, 0.693359375f, x); /* + e·(large part of log 2) */
}

/* sin x and cos x for x >= 0 (here θ in [0, 2π)), the Cephes way: j = the nearest
 * even multiple of π/4 at or above x·4/π, reduced argument x - j·π/4 (π/4 in three
 * parts for precision), then one of two small polynomials depending on the octant,
 * and the sign from the octant. */
static void cephes_sincosf(float x, float *sin_out, float *cos_out) {
    uint32_t sign_sin = f32_bits(x) & 0x80000000u;
    x = fabsf(x);

    int32_t j = (int32_t)(x * 1.27323954473516f); /* x · 4/π, truncated */
    j = (j + 1) & ~1;                             /* to the even octant boundary */
    float y = (float)j;

    uint32_t swap_sin = (uint32_t)(j & 4) << 29; /* octants 4..7: sin changes sign */
    bool sin_uses_sin_poly = (j & 2) == 0;       /* octants 0, 1, 4, 5 */
    uint32_t sign_cos = (uint32_t)(~(j - 2) & 4) << 29;
    sign_sin ^= swap_sin;

    /* x - j·π/4, with π/4 = 0.78515625 + 2.4187564849853515625e-4 + 3.77489497744594108e-8 */
    x = fmaf(y, -0.78515625f, x);
    x = fmaf(y, -2.4187564849853515625e-4f, x);
    x = fmaf(y, -3.77489497744594108e-8f, x);

    float z = x * x;
    /* cos of the reduced argument: 1 - z/2 + z²·(…) */
    float c = fmaf(2.443315711809948E-005f, z, -1.388731625493765E-003f);
    c = fmaf(c, z, 4.166664568298827E-002f);
    c = c * z;
    c = fmaf(c, z, -(z * 0.5f));
    c = c + 1.0f;
    /* sin of the reduced argument: x + x·z·(…) */
    float s = fmaf(-1.9515295891E-4f, z, 8.3321608736E-3f);
    s = fmaf(s, z, -1.6666654611E-1f);
    s = s * z;
    s = fmaf(s, x, x);

    /* PyTorch picks the polynomials with bit masks and adds the unused one as +0,
     * which only turns a -0 into +0; the "+ 0.0f" keeps that. */
    float sin_r = (sin_uses_sin_poly ? s : c) + 0.0f;
    float cos_r = (sin_uses_sin_poly ? c : s) + 0.0f;
    *sin_out = f32_from_bits(f32_bits(sin_r) ^ sign_sin);
    *cos_out = f32_from_bits(f32_bits(cos_r) ^ sign_cos);
}

/* Mean 0 and standard deviation 1, applied as PyTorch does (n·std + mean); this
 * changes nothing but a -0 into +0. */
#define RANDN_MEAN 0.0f
#define RANDN_STD  1.0f

/* Box–Muller on one block of 16 uniforms, x86 variant. */
static void box_muller_16_x86(float *d) {
    const float two_pi = 6.28318530717958647692f; /* 2π rounded to float */
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j]; /* [0, 1) -> (0, 1], so the log is finite */
        float u2 = d[j + 8];
        float radius = sqrtf(-2.0f * cephes_logf(u1));
        float theta = two_pi * u2;
        float s, c;
        cephes_sincosf(theta, &s, &c);
        d[j] = fmaf(radius * c, RANDN_STD, RANDN_MEAN);
        d[j + 8] = fmaf(radius * s, RANDN_STD, RANDN_MEAN);
    }
}

/* ---- 3c. The 16-block path, libm variant ------------------------------------ */

static void box_muller_16_libm(float *d) {
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j];
        float u2 = d[j + 8];
        float radius = sqrtf(-2.0f * logf(u1));
        float theta = (float)(2.0 * M_PI * (double)u2); /* θ in double, then rounded */
        d[j] = radius * cosf(theta) * RANDN_STD + RANDN_MEAN;
        d[j + 8] = radius * sinf(theta) * RANDN_STD + RANDN_MEAN;
    }
}

/* ---- randn ----------------------------------------------------------------- */

void rng_randn(TorchRng *g, int64_t n, float *out) {
    if (n < 16) { /* the double path, with its cache */
        for (int64_t i = 0; i < n; i++) out[i] = (float)rng_normal_f64(g);
        return;
    }
    void (*box_muller_16)(float *) = g->variant == RNG_LIBM ? box_muller_16_libm : box_muller_16_x86;
    for (int64_t i = 0; i < n; i++) out[i] = rng_uniform_f32(g);
    for (int64_t i = 0; i + 16 <= n; i += 16) box_muller_16(out + i);
    if (n % 16 != 0) { /* tail redo: 16 fresh uniforms over the last 16 slots */
        for (int64_t i = n - 16; i < n; i++) out[i] = rng_uniform_f32(g);
        box_muller_16(out + n - 16);
    }
}
