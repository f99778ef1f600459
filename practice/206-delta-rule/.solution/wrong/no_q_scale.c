/* 典型错误：q 没有除以 sqrt(dk)。
 * fails: worked_example book_six_writes */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "delta_rule.h"

/* y = x / sqrt(Σx² + eps) · extra   (x, y: n numbers) */
static void l2norm(const float *x, int n, float extra, float *y) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += (double)x[i] * x[i];
    float scale = (float)(1.0 / sqrt(sum + 1e-6)) * extra;
    for (int i = 0; i < n; i++) y[i] = x[i] * scale;
}

void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_heads, int dk, int dv, float *S, float *out) {
    float *qn = malloc((size_t)dk * sizeof *qn), *kn = malloc((size_t)dk * sizeof *kn);
    float *u = malloc((size_t)dv * sizeof *u);
    if (!qn || !kn || !u) goto done;
    for (int t = 0; t < T; t++)
        for (int h = 0; h < n_heads; h++) {
            size_t th = (size_t)t * n_heads + h;
            float *s = S + (size_t)h * dk * dv; /* this head's table: row i = the slot of key dim i */
            const float *vt = v + th * dv;
            float *o = out + th * dv;
            l2norm(k + th * dk, dk, 1.0f, kn);
            l2norm(q + th * dk, dk, 1.0f, qn);
            float alpha = expf(g[th]), b = beta[th];
            /* 1. decay: the whole table times e^g */
            for (size_t i = 0; i < (size_t)dk * dv; i++) s[i] *= alpha;
            /* 2. look up with k: pred = Sᵀk; u = β (v − pred) is what step 3 writes */
            for (int j = 0; j < dv; j++) u[j] = 0;
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) u[j] += s[(size_t)i * dv + j] * kn[i];
            for (int j = 0; j < dv; j++) u[j] = b * (vt[j] - u[j]);
            /* 3. write the difference: S += k uᵀ */
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) s[(size_t)i * dv + j] += kn[i] * u[j];
            /* 4. read with q, after the write: o = Sᵀq */
            for (int j = 0; j < dv; j++) o[j] = 0;
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) o[j] += s[(size_t)i * dv + j] * qn[i];
        }
done:
    free(qn);
    free(kn);
    free(u);
}
