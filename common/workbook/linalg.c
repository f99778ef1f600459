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
#pragma omp simd
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
#pragma omp simd
        for (int j = 0; j < n; j++) y[j] += w * row[j];
    }
}

/* H x for the reflection H = I - 2 v vᵀ / (vᵀ v), on entries from..m-1 of x. */
static void reflect(double *x, const double *v, double vnorm2, int from, int m) {
    double s = 0.0;
    for (int i = from; i < m; i++) s += v[i] * x[i];
    double f = 2.0 * s / vnorm2;
#pragma omp simd
    for (int i = from; i < m; i++) x[i] -= f * v[i];
}

void la_qr(float *Q, float *R, const float *A, int m, int n) {
    /* Householder works on columns, so the work arrays hold columns: W[j] is
     * column j of A turning into column j of R, V[k] is reflector k. */
    double *W = xmalloc((size_t)n * m * sizeof *W);      /* [n][m] */
    double *V = xcalloc((size_t)n * m, sizeof *V);       /* [n][m] */
    double *vnorm2 = xcalloc((size_t)n, sizeof *vnorm2); /* [n] ‖v_k‖² (0 = no reflection) */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) W[(size_t)j * m + i] = A[(size_t)i * n + j];

    for (int k = 0; k < n; k++) {
        /* Reflect x = column k below the diagonal onto the axis: H x = alpha e_1
         * with |alpha| = ‖x‖. v = x - alpha e_1, alpha with the sign opposite to
         * x_0 so that x_0 - alpha does not cancel. */
        double *x = W + (size_t)k * m, *v = V + (size_t)k * m;
        double len2 = 0.0;
        for (int i = k; i < m; i++) len2 += x[i] * x[i];
        double alpha = x[k] >= 0 ? -sqrt(len2) : sqrt(len2);
        for (int i = k; i < m; i++) v[i] = x[i];
        v[k] -= alpha;
        for (int i = k; i < m; i++) vnorm2[k] += v[i] * v[i];
        if (vnorm2[k] == 0.0) continue; /* the column is already zero: nothing to reflect */
        for (int j = k; j < n; j++) reflect(W + (size_t)j * m, v, vnorm2[k], k, m);
    }

    /* R: the upper triangle of W */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) R[(size_t)i * n + j] = j >= i ? (float)W[(size_t)j * m + i] : 0.0f;

    /* Q = H_0 H_1 … H_{n-1} applied to the first n columns of the identity, the
     * last reflection first. W is reused for Q's columns. */
    memset(W, 0, (size_t)n * m * sizeof *W);
    for (int j = 0; j < n; j++) W[(size_t)j * m + j] = 1.0;
    for (int k = n - 1; k >= 0; k--)
        if (vnorm2[k] != 0.0)
            for (int j = 0; j < n; j++) reflect(W + (size_t)j * m, V + (size_t)k * m, vnorm2[k], k, m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) Q[(size_t)i * n + j] = (float)W[(size_t)j * m + i];
    free(W);
    free(V);
    free(vnorm2);
}
