/* linalg.c — outer products, matrix-vector products, norms, QR (see linalg.h). */
#include "linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

float la_dot(const float *a, const float *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (double)a[i] * b[i];
    return (float)s;
}

float la_norm(const float *x, int n) { return (float)sqrt((double)la_dot(x, x, n)); }

void la_normalize(float *x, int n) {
    float len = la_norm(x, n);
    float denom = len > 1e-12f ? len : 1e-12f; /* PyTorch's eps: a zero vector stays zero */
    for (int i = 0; i < n; i++) x[i] /= denom;
}

void la_outer(float *out, const float *k, int m, const float *v, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) out[(size_t)i * n + j] = k[i] * v[j];
}

void la_add_outer(float *S, float beta, const float *k, int m, const float *v, int n) {
    for (int i = 0; i < m; i++) {
        float w = beta * k[i]; /* how much of v goes into row i */
        float *row = S + (size_t)i * n;
        for (int j = 0; j < n; j++) row[j] += w * v[j];
    }
}

void la_matvec(float *y, const float *S, int m, int n, const float *x) {
    for (int i = 0; i < m; i++) y[i] = la_dot(S + (size_t)i * n, x, n);
}

void la_matvec_t(float *y, const float *S, int m, int n, const float *x) {
    /* row by row: y += x[i] · (row i). The inner loop runs along memory, which
     * the compiler turns into SIMD; it is the hot loop of the capacity experiment. */
    for (int j = 0; j < n; j++) y[j] = 0.0f;
    for (int i = 0; i < m; i++) {
        const float *row = S + (size_t)i * n;
        float w = x[i];
        for (int j = 0; j < n; j++) y[j] += w * row[j];
    }
}

void la_qr(float *Q, float *R, const float *A, int m, int n) {
    /* W [m, n]: A turning into R column by column; V [m, n]: reflector k in column k */
    double *W = xmalloc((size_t)m * n * sizeof *W);
    double *V = xcalloc((size_t)m * n, sizeof *V);
    double *vnorm2 = xcalloc((size_t)n, sizeof *vnorm2); /* [n] ‖v_k‖² (0 = no reflection) */
    for (size_t i = 0; i < (size_t)m * n; i++) W[i] = A[i];
#define W_(i, j) W[(size_t)(i) * n + (j)]
#define V_(i, j) V[(size_t)(i) * n + (j)]

    for (int k = 0; k < n; k++) {
        /* Reflect column k below the diagonal, x = W[k:, k], onto the axis:
         * H x = alpha e_1 with |alpha| = ‖x‖. v = x - alpha e_1, and alpha takes
         * the sign opposite to x_0 so that x_0 - alpha does not cancel. */
        double len2 = 0.0;
        for (int i = k; i < m; i++) len2 += W_(i, k) * W_(i, k);
        double alpha = W_(k, k) >= 0 ? -sqrt(len2) : sqrt(len2);
        for (int i = k; i < m; i++) V_(i, k) = W_(i, k);
        V_(k, k) -= alpha;
        for (int i = k; i < m; i++) vnorm2[k] += V_(i, k) * V_(i, k);
        if (vnorm2[k] == 0.0) continue; /* the column is already zero: nothing to reflect */
        /* W[k:, k:] ← H W[k:, k:] with H = I - 2 v vᵀ / (vᵀ v) */
        for (int j = k; j < n; j++) {
            double s = 0.0;
            for (int i = k; i < m; i++) s += V_(i, k) * W_(i, j);
            double f = 2.0 * s / vnorm2[k];
            for (int i = k; i < m; i++) W_(i, j) -= f * V_(i, k);
        }
    }

    /* R: the upper triangle of W */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) R[(size_t)i * n + j] = j >= i ? (float)W_(i, j) : 0.0f;

    /* Q = H_0 H_1 … H_{n-1} applied to the first n columns of the identity, the
     * last reflection first. W is reused as Q [m, n]. */
    for (size_t i = 0; i < (size_t)m * n; i++) W[i] = 0.0;
    for (int j = 0; j < n; j++) W_(j, j) = 1.0;
    for (int k = n - 1; k >= 0; k--) {
        if (vnorm2[k] == 0.0) continue;
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int i = k; i < m; i++) s += V_(i, k) * W_(i, j);
            double f = 2.0 * s / vnorm2[k];
            for (int i = k; i < m; i++) W_(i, j) -= f * V_(i, k);
        }
    }
    for (size_t i = 0; i < (size_t)m * n; i++) Q[i] = (float)W[i];
#undef W_
#undef V_
    free(W);
    free(V);
    free(vnorm2);
}
