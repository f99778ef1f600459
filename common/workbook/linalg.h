/* linalg.h — the small linear algebra of chapter 7's memory table.
 *
 * The memory table S is a [dk, dv] matrix (row-major float32: row i belongs to
 * key direction i). Everything the toy does with it is one of these:
 *
 *   write    S ← S + β k vᵀ          la_add_outer   (store v in the slot of k)
 *   read     o = Sᵀ q                la_matvec_t    (mix the rows by how much q
 *                                                    looks like each key direction)
 *   S x      y = S x                 la_matvec      (the other orientation)
 *   k vᵀ     a fresh outer product   la_outer
 *   ‖x‖, x / max(‖x‖, 1e-12)         la_norm, la_normalize (PyTorch's F.normalize)
 *   Q, R = qr(A)                     la_qr          (Householder; the capacity
 *                                                    experiment's orthogonal keys)
 *
 * Shapes are given as [rows, cols]; every matrix is row-major, contiguous.
 * Outputs come first in the argument list.
 */
#ifndef LINALG_H
#define LINALG_H

/* a · b, summed in double. */
float la_dot(const float *a, const float *b, int n);

/* ‖x‖ (Euclidean length), summed in double. */
float la_norm(const float *x, int n);

/* x ← x / max(‖x‖, 1e-12): unit length, and a zero vector stays zero
 * (torch.nn.functional.normalize with its default eps). */
void la_normalize(float *x, int n);

/* out[m, n] = k vᵀ: row i is k[i] · v. */
void la_outer(float *out, const float *k, int m, const float *v, int n);

/* S[m, n] += beta · k vᵀ. */
void la_add_outer(float *S, float beta, const float *k, int m, const float *v, int n);

/* y[m] = S x, with S [m, n] and x [n]. */
void la_matvec(float *y, const float *S, int m, int n, const float *x);

/* y[n] = Sᵀ x, with S [m, n] and x [m]: the sum of the rows of S weighted by x. */
void la_matvec_t(float *y, const float *S, int m, int n, const float *x);

/* Reduced QR of A [m, n], m >= n, by Householder reflections:
 * A = Q R with Q [m, n] having orthonormal columns and R [n, n] upper triangular.
 * Signs follow the Householder choice (R's diagonal may be negative), as LAPACK's
 * do; any orthonormal Q serves the toy. Works in double internally. */
void la_qr(float *Q, float *R, const float *A, int m, int n);

#endif
