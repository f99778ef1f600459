/* linear.h — the linear layer: y = W x.
 *
 * Every projection in the model is one of these: q/k/v/o in attention, gate/up/down
 * in the MLP, in_proj_qkv/z/a/b and out_proj in the DeltaNet. There are no biases
 * in Qwen3.5, so a linear layer is nothing but a matrix times a vector:
 *
 *     y[o] = Σ_i W[o][i] · x[i]          W: [out, in], x: [in], y: [out]
 *
 * W is stored the way PyTorch stores nn.Linear.weight: out rows of in numbers each,
 * row-major, so row o holds everything output o needs. The weights stay in the
 * checkpoint's dtype (BF16 in the real model; F16 and F32 work too) and are widened
 * to float32 a few numbers at a time, right where they are multiplied: the layer
 * never makes a float32 copy of a weight matrix. All sums are float32.
 *
 * For T tokens at once (a whole prompt) the same formula holds for every token:
 *
 *     Y[t][o] = Σ_i X[t][i] · W[o][i]     X: [T, in], Y: [T, out]   (Y = X Wᵀ)
 *
 * which is what PyTorch's F.linear(X, W) computes.
 *
 * Why there are three functions for one formula:
 *   linear_ref    the formula as written, one output at a time (linear.c). Easy to
 *                 check by eye; the tests hold the fast versions against it.
 *   linear        one token (generating text). Each weight is used exactly once, so the
 *                 time is the time to read W from memory: each core reads its share of
 *                 the rows as a few long contiguous streams.
 *   linear_batch  T tokens (reading a prompt). Each weight row, once loaded, is used for
 *                 several tokens and each token for several rows, so the time goes
 *                 into multiply-adds instead of memory traffic.
 * The two fast ones are speed code and live apart, in kernels/linear.c. The layers
 * call project(), which picks the right one.
 *
 * Guarantees the later chapters rely on:
 *   - linear_batch's row t equals linear() on token t bit for bit, for every T, so a
 *     token-by-token decode sees exactly the projections of the full pass;
 *   - neither depends on the number of worker threads (bit for bit): each output is
 *     always summed by the same code in the same order, whichever core runs it.
 *
 * The caller checks the shapes when it loads W (w->ndim == 2, w->shape[1] == in);
 * these functions trust them. W's data needs only the alignment of its element type,
 * as in a memory-mapped safetensors file. y is overwritten and must not overlap x.
 * The work is spread over the pool's workers (kernels/pool.h); called from inside a
 * pool task it runs on the calling thread alone, with the same results.
 */
#ifndef LINEAR_H
#define LINEAR_H

#include <stdbool.h>
#include <stdint.h>

#include "tensor.h"

/* Y[T, out] = X[T, in] Wᵀ, the formula loop by loop (float32 sums in index order).
 * x: [T, in], y: [T, out]. Slow; for tests and for reading. */
void linear_ref(const float *x, const Tensor *w, int64_t T, float *y);

/* y[out] = W x for one token. x: [in], y: [out]. */
void linear(const float *x, const Tensor *w, float *y);

/* Y[T, out] = X[T, in] Wᵀ for T tokens. x: [T, in], y: [T, out]. T >= 1. */
void linear_batch(const float *x, const Tensor *w, int64_t T, float *y);

/* The plain-C kernels, whatever the machine. linear()/linear_batch() use them where the
 * compiler targets no AVX-512; they are always built so that the tests can check them
 * here too and the benchmark can show what the compiler alone makes of them. */
void linear_batch_portable(const float *x, const Tensor *w, int64_t T, float *y);

/* Which code a layer runs: the fast kernels, or the readable loops they are held to
 * (slow; the same numbers up to the order of float32 sums). The layers' forward
 * functions take it last, and pass it on to every piece they call. */
typedef enum { PATH_FAST, PATH_READABLE } Path;

/* Y = X Wᵀ for T tokens, as every layer computes its projections: linear() for one
 * token, linear_batch() for several — or linear_ref() on the readable path (what a
 * demo's --reference flag and the tests run). */
static inline void project(const float *x, const Tensor *w, int64_t T, float *y, Path path) {
    if (path == PATH_READABLE)
        linear_ref(x, w, T, y);
    else if (T == 1)
        linear(x, w, y);
    else
        linear_batch(x, w, T, y);
}

/* "AVX-512" or "portable C": which kernels linear()/linear_batch() were built with. */
const char *linear_kernel_name(void);

/* The kernel's tiles for other float32 matrices, on the calling thread: rows of `in`
 * numbers w_stride floats apart (a head's keys in the KV cache), C ≤ 4 vectors x of
 * `in` numbers each (x + c·in), and
 *     y[c·y_stride + r] = Σ_i w[r·w_stride + i] · x[c·in + i],   r < rows
 * every sum in linear()'s order, so a row gives the same bits whatever C and rows are.
 * Speed code for the attention's scores (kernels/attention.c). */
void dot_rows(const float *x, int C, const float *w, int64_t w_stride, int64_t rows, int64_t in, float *y,
              int64_t y_stride);

#endif
