/* torch_rng.h — PyTorch's random numbers, drawn exactly as `torch.manual_seed` +
 * `torch.randn` draw them.
 *
 * The book's experiments start with `torch.manual_seed(0)` and then fill keys and
 * values with `torch.randn(...)`. The numbers they print (the capacity experiment of
 * chapter 7, the distances in ch07_deltanet.py) depend on exactly which random
 * numbers were drawn: with another stream most of them change. This module draws
 * the very same float32 values as PyTorch, bit for bit. It is three layers:
 *
 *   1. The engine: a 32-bit Mersenne Twister (MT19937), seeded like C++'s
 *      std::mt19937(seed). `manual_seed(s)` uses the low 32 bits of s.
 *   2. Uniforms: a float in [0, 1) from the LOW 24 bits of one 32-bit draw,
 *      a double in [0, 1) from the low 53 bits of two draws (first draw = high half).
 *   3. Normals, in two ways depending only on how many numbers one call asks for:
 *
 *      n >= 16 ("16-block path", float32): draw n float uniforms, then turn each
 *        block of 16 into 16 normals with Box–Muller: for j = 0..7,
 *            u1 = 1 - d[j], u2 = d[j + 8]
 *            r = sqrt(-2 log u1), θ = 2π u2
 *            d[j] = r cos θ,  d[j + 8] = r sin θ
 *        If n is not a multiple of 16, draw 16 MORE uniforms into the last 16 slots
 *        (overwriting them) and transform that block again ("tail redo").
 *
 *      n < 16 ("double path"): every element is one double-precision Box–Muller
 *        normal rounded to float. Box–Muller makes two normals at a time; the
 *        second (r sin θ) is cached in the generator and returned by the next
 *        element, even if that element belongs to a later call. manual_seed clears it.
 *
 *      So randn(8) twice is not randn(16), and randn(1, 1, 1, 128) equals randn(128).
 *
 * Two variants of the 16-block transform, because PyTorch itself has two:
 *
 *   RNG_X86   what PyTorch runs on every x86 machine with AVX2 or AVX-512: log, sin
 *             and cos are the float polynomials of PyTorch's avx_mathfun.h (the
 *             Cephes library's coefficients) and θ = (float)2π · u2 in float. We
 *             evaluate the same polynomials one value at a time, with the same
 *             operation order and the same fused multiply-adds the compiler made
 *             in PyTorch's build (written out with fmaf), so the bits are PyTorch's.
 *   RNG_LIBM  what PyTorch runs without AVX2 (ARM, or ATEN_CPU_CAPABILITY=default):
 *             the C library's logf, sinf, cosf, with θ computed in double.
 *
 * About 39% of the values differ between the two in the last bit; every line the
 * book prints comes out the same with either.
 *
 * RNG_X86 is the default, for two reasons: it is what PyTorch gives on the x86
 * machines most readers run the book on, and it is built only from +, −, ×, fma
 * and sqrt, which IEEE 754 rounds exactly, so it gives the same bits on every
 * machine and compiler (ARM included). RNG_LIBM depends on the C library's logf,
 * sinf and cosf. The double path (n < 16) uses the C library's log, sin and cos
 * in both variants, as PyTorch does.
 *
 * This file must never be compiled with -ffast-math, and is compiled with
 * -ffp-contract=off so that the compiler fuses no multiply-add on its own: the
 * fused ones are the explicit fmaf calls (the Makefile sets this).
 */
#ifndef TORCH_RNG_H
#define TORCH_RNG_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    RNG_X86,  /* PyTorch on AVX2/AVX-512 (the default) */
    RNG_LIBM, /* PyTorch with ATEN_CPU_CAPABILITY=default, or on ARM */
} RngVariant;

#define RNG_MT_N 624 /* words of Mersenne Twister state */

typedef struct {
    uint32_t mt[RNG_MT_N]; /* MT19937 state */
    int next;              /* index of the next word to hand out; RNG_MT_N = regenerate */
    bool has_cached_normal;
    double cached_normal; /* the r·sin θ half of the last double Box–Muller pair */
    RngVariant variant;
} TorchRng;

/* torch.manual_seed(seed) on a fresh generator; variant RNG_X86. */
void rng_init(TorchRng *g, uint64_t seed);
/* torch.manual_seed(seed): restart the stream (low 32 bits of seed) and drop the
 * cached normal. Keeps the variant. */
void rng_seed(TorchRng *g, uint64_t seed);

/* "x86" / "libm", and the reverse (false for anything else). */
const char *rng_variant_name(RngVariant v);
bool rng_variant_parse(const char *name, RngVariant *out);

/* One 32-bit draw of the engine; two draws as one 64-bit number (first = high). */
uint32_t rng_u32(TorchRng *g);
uint64_t rng_u64(TorchRng *g);

/* torch.rand for float32 / float64: uniform in [0, 1). */
float rng_uniform_f32(TorchRng *g);
double rng_uniform_f64(TorchRng *g);

/* One standard normal in double (Box–Muller with the cache): one element of the
 * n < 16 path before it is rounded to float. */
double rng_normal_f64(TorchRng *g);

/* torch.randn with n elements in total (any shape), float32. */
void rng_randn(TorchRng *g, int64_t n, float *out);

#endif
