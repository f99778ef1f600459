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

#include "quant.h"
#include "tensor.h"
#include "workbook/util.h"

/* Y[T, out] = X[T, in] Wᵀ, the formula loop by loop (float32 sums in index order).
 * x: [T, in], y: [T, out]. Slow; for tests and for reading. */
void linear_ref(const float *x, const Tensor *w, int64_t T, float *y);

/* y[out] = W x for one token. x: [in], y: [out]. */
void linear(const float *x, const Tensor *w, float *y);

/* Y[T, out] = X[T, in] Wᵀ for T tokens. x: [T, in], y: [T, out]. T >= 1. */
void linear_batch(const float *x, const Tensor *w, int64_t T, float *y);

/* Y_i = X W_iᵀ for n ≤ LINEAR_MAX_STACK matrices of one input (q, k and v; gate and up;
 * the DeltaNet's four in_proj), T ≥ 1 tokens, in one job for the workers: each Y_i [T,
 * rows of W_i] is exactly what linear()/linear_batch() give for W_i alone, and the
 * workers wait for the slowest of them once per stack instead of once per matrix.
 * The matrices share their width (in). */
#define LINEAR_MAX_STACK 4
void linear_stack(const float *x, const Tensor *const *w, int n, int64_t T, float *const *y);

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

/* ---- 8-bit weights ------------------------------------------------------------------
 *
 * A model can also run on 8-bit copies of its matrices (quant.h: groups of 32 int8
 * numbers with one fp16 scale, packed for the kernels when the model is opened), which
 * halves the bytes a token must read. The product then takes x quantized too, group
 * by group. Projections that read the same x (q, k and v; gate and up; the DeltaNet's
 * four in_proj) share one quantization of it, and are packed as one stack (quant.h),
 * so that one call of the kernels computes them all. A layer says so in two steps:
 *
 *     ProjInput in = proj_input(x, T, hidden, xq, path);      // x, quantized once into xq
 *     proj_stack(&in, (const Tensor *[]){w->gate_proj, w->up_proj}, 2, &q8->gate_up,
 *                (float *[]){gate, up});                       // Y_i = X W_iᵀ, each into its array
 *     proj_apply(&in, w->down_proj, &q8->down_proj, y);        // one matrix
 *
 * With the checkpoint's weights (xq NULL, q8's data NULL) they are project(), matrix
 * after matrix: the same calls and the same bits. */

/* The input of one or more projections: x [T, in], and the buffer it is quantized in,
 * or NULL when the weights are the checkpoint's. */
typedef struct {
    const float *x;
    int64_t T, in;
    Q8Act *xq;
    Path path;
} ProjInput;

/* x [T, in] as the input of the projections that follow: on the fast path with a
 * buffer xq, quantized into it now (q8_quantize_act); the readable path quantizes
 * as it multiplies. */
static inline ProjInput proj_input(const float *x, int64_t T, int64_t in, Q8Act *xq, Path path) {
    if (xq && path == PATH_FAST) q8_quantize_act(x, T, in, xq);
    return (ProjInput){x, T, in, xq, path};
}

/* Y_i = X W_iᵀ for the n matrices w[i] of one input: with their 8-bit stack q8 when it
 * is there (q8->data, packed from exactly these n), else with each W_i as the
 * checkpoint stores it — project() matrix by matrix, or on the fast path linear_stack,
 * one job for all n (the same bits). The 8-bit product is q8_linear_parts on the
 * input's quantization, or, on the readable path, q8_linear_tensor_ref matrix by
 * matrix, the formula from their stored numbers (the same bits). y[i]: [T, rows of
 * W_i]. */
static inline void proj_stack(const ProjInput *in, const Tensor *const *w, int n, const Q8Weights *q8,
                              float *const *y) {
    if (!q8 || !q8->data) { /* the checkpoint's weights */
        if (in->path == PATH_READABLE)
            for (int i = 0; i < n; i++) project(in->x, w[i], in->T, y[i], in->path);
        else
            linear_stack(in->x, w, n, in->T, y);
        return;
    }
    if (!in->xq) die("%s: 8-bit weights, but no buffer to quantize their input in", w[0]->name);
    if (q8->parts != n) die("%s: a stack of %d matrices used as %d", w[0]->name, q8->parts, n);
    if (in->path == PATH_READABLE)
        for (int i = 0; i < n; i++) q8_linear_tensor_ref(in->x, w[i], in->T, in->xq->range, y[i]);
    else
        q8_linear_parts(in->xq, q8, y);
}

/* The same for one matrix: y = X Wᵀ, [T, out]. */
static inline void proj_apply(const ProjInput *in, const Tensor *w, const Q8Weights *q8, float *y) {
    proj_stack(in, &w, 1, q8, &y);
}

/* "AVX-512" or "portable C": which kernels linear()/linear_batch() were built with. */
const char *linear_kernel_name(void);

/* Whether one token's tiles ask for their weights ahead with prefetch instructions:
 * 1 or 0, the way the last trial of the one-token calls found faster on this machine
 * (kernels/ahead.h: a trial every ~128 tokens, sooner when the memory's speed moves),
 * −1 until the first trial has ended.
 * Speed only: the results are the same either way. */
int linear_asks_ahead(void);

/* The kernel's tiles for other float32 matrices, on the calling thread: rows of `in`
 * numbers w_stride floats apart (a head's keys in the KV cache), C ≤ 4 vectors x of
 * `in` numbers each (x + c·in), and
 *     y[c·y_stride + r] = Σ_i w[r·w_stride + i] · x[c·in + i],   r < rows
 * every sum in linear()'s order, so a row gives the same bits whatever C and rows are.
 * Speed code for the attention's scores (kernels/attention.c). */
void dot_rows(const float *x, int C, const float *w, int64_t w_stride, int64_t rows, int64_t in, float *y,
              int64_t y_stride);

#endif
