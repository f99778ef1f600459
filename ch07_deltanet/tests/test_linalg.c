/* test_linalg.c — common/workbook/linalg.c on values worked out by hand (the book's 2×2
 * table) and on the properties QR must have.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/compare.h"
#include "workbook/linalg.h"
#include "workbook/torch_rng.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* The book's table: k1 = (1, 0) → v1 = (3, 1), k2 = (0, 1) → v2 = (-1, 2), written
 * as two outer products. Every expected number here is worked out by hand in the
 * chapter text. Small integers and their sums are exact in float, so most checks
 * are exact; reading with q = (0.6, 0.8) is not (0.6 and 0.8 are not binary
 * fractions), hence 1e-6 there. */
START_TEST(books_two_by_two_table) {
    const float k1[2] = {1, 0}, k2[2] = {0, 1}, v1[2] = {3, 1}, v2[2] = {-1, 2};
    float S[4], T[4], o[2];
    la_outer(S, k1, 2, v1, 2);
    const float first[4] = {3, 1, 0, 0};
    ck_assert(compare_f32("k1 v1ᵀ", "2 x 2", S, first, 4, 0, 0, NULL));
    la_add_outer(S, 1.0f, k2, 2, v2, 2);
    const float table[4] = {3, 1, -1, 2}; /* [[3, 1], [-1, 2]] */
    ck_assert(compare_f32("S", "2 x 2", S, table, 4, 0, 0, NULL));

    la_matvec_t(o, S, 2, 2, k1); /* reading with k1 gives back v1 */
    ck_assert(compare_f32("Sᵀk1", "2", o, v1, 2, 0, 0, NULL));
    la_matvec_t(o, S, 2, 2, k2);
    ck_assert(compare_f32("Sᵀk2", "2", o, v2, 2, 0, 0, NULL));
    const float q[2] = {0.6f, 0.8f}, mixed[2] = {1.0f, 2.2f}; /* 0.6·(3, 1) + 0.8·(-1, 2) */
    la_matvec_t(o, S, 2, 2, q);
    ck_assert(compare_f32("Sᵀq", "2", o, mixed, 2, 1e-6, 0, NULL));
    const float ones[2] = {1, 1}, rowsums[2] = {4, 1}; /* S x: the row sums */
    la_matvec(o, S, 2, 2, ones);
    ck_assert(compare_f32("S·1", "2", o, rowsums, 2, 0, 0, NULL));

    /* DeltaNet overwriting k1 with (5, 0): S + k1 (v - Sᵀk1)ᵀ */
    const float v_new[2] = {5, 0};
    float diff[2];
    la_matvec_t(o, S, 2, 2, k1);
    for (int j = 0; j < 2; j++) diff[j] = v_new[j] - o[j]; /* (2, -1) */
    for (int i = 0; i < 4; i++) T[i] = S[i];
    la_add_outer(T, 1.0f, k1, 2, diff, 2);
    const float delta[4] = {5, 0, -1, 2};
    ck_assert(compare_f32("DeltaNet", "2 x 2", T, delta, 4, 0, 0, NULL));
    /* β = 0.5 goes half way: k1 reads (4, 0.5) */
    for (int i = 0; i < 4; i++) T[i] = S[i];
    la_add_outer(T, 0.5f, k1, 2, diff, 2);
    la_matvec_t(o, T, 2, 2, k1);
    const float half[2] = {4, 0.5f};
    ck_assert(compare_f32("β = 0.5", "2", o, half, 2, 0, 0, NULL));
}
END_TEST

START_TEST(norms) {
    float x[2] = {3, 4}, zero[3] = {0, 0, 0};
    ck_assert_float_eq(la_norm(x, 2), 5.0f);
    ck_assert_float_eq(la_dot(x, x, 2), 25.0f);
    la_normalize(x, 2);
    const float unit[2] = {0.6f, 0.8f};
    ck_assert(compare_f32("normalize (3, 4)", "2", x, unit, 2, 0, 1e-7, NULL));
    la_normalize(zero, 3); /* max(‖x‖, 1e-12) keeps a zero vector zero, no NaN */
    for (int i = 0; i < 3; i++) ck_assert_float_eq(zero[i], 0.0f);
}
END_TEST

/* By hand: A = [[3, 0], [4, 5]]. The first column has length 5, its direction
 * (0.6, 0.8); the second column's part along it is 0·0.6 + 5·0.8 = 4, the rest
 * (0, 5) - 4·(0.6, 0.8) = (-2.4, 1.8) has length 3. So |R| = [[5, 4], [0, 3]]. */
START_TEST(qr_by_hand) {
    const float A[4] = {3, 0, 4, 5};
    float Q[4], R[4];
    la_qr(Q, R, A, 2, 2);
    const float absR[4] = {5, 4, 0, 3}, absQ[4] = {0.6f, 0.8f, 0.8f, 0.6f};
    float got[4];
    for (int i = 0; i < 4; i++) got[i] = fabsf(R[i]);
    ck_assert(compare_f32("|R|", "2 x 2", got, absR, 4, 1e-6, 0, NULL));
    for (int i = 0; i < 4; i++) got[i] = fabsf(Q[i]);
    ck_assert(compare_f32("|Q|", "2 x 2", got, absQ, 4, 1e-6, 0, NULL));
    ck_assert_float_eq(R[2], 0.0f);
}
END_TEST

/* QR of random matrices: Q has orthonormal columns, R is upper triangular, and
 * Q R gives A back. Tolerances: float32 results of a double computation, so a
 * few float epsilons (1.2e-7) per entry, growing mildly with the size. */
static void check_qr(int m, int n) {
    TorchRng g;
    rng_init(&g, (uint64_t)(m * 1000 + n));
    float *A = xmalloc((size_t)m * n * sizeof *A);                                             /* [m, n] */
    float *Q = xmalloc((size_t)m * n * sizeof *Q);                                             /* [m, n] */
    float *R = xmalloc((size_t)n * n * sizeof *R);                                             /* [n, n] */
    float *QtQ = xmalloc((size_t)n * n * sizeof *QtQ), *I = xcalloc((size_t)n * n, sizeof *I); /* [n, n] */
    float *QR = xmalloc((size_t)m * n * sizeof *QR);                                           /* [m, n] */
    rng_randn(&g, (int64_t)m * n, A);
    la_qr(Q, R, A, m, n);
    for (int i = 0; i < n; i++) {
        I[(size_t)i * n + i] = 1.0f;
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int r = 0; r < m; r++) s += (double)Q[(size_t)r * n + i] * Q[(size_t)r * n + j];
            QtQ[(size_t)i * n + j] = (float)s;
        }
        for (int j = 0; j < i; j++) ck_assert_float_eq(R[(size_t)i * n + j], 0.0f);
    }
    for (int r = 0; r < m; r++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int i = 0; i <= j; i++) s += (double)Q[(size_t)r * n + i] * R[(size_t)i * n + j];
            QR[(size_t)r * n + j] = (float)s;
        }
    char shape[32], name[32];
    snprintf(shape, sizeof shape, "%d x %d", n, n);
    snprintf(name, sizeof name, "QᵀQ = I (A %dx%d)", m, n);
    ck_assert(compare_f32(name, shape, QtQ, I, (int64_t)n * n, 2e-6, 0, NULL));
    snprintf(shape, sizeof shape, "%d x %d", m, n);
    snprintf(name, sizeof name, "QR = A (A %dx%d)", m, n);
    ck_assert(compare_f32(name, shape, QR, A, (int64_t)m * n, 5e-6, 1e-5, NULL));
    free(A), free(Q), free(R), free(QtQ), free(I), free(QR);
}

START_TEST(qr_random) {
    check_qr(128, 128); /* the toy's size */
    check_qr(7, 3);     /* tall: reduced Q */
    check_qr(1, 1);
}
END_TEST

/* A column that is already zero needs no reflection (and must not divide by
 * zero). A = [[0, 1], [0, 2], [0, 3]]: Q's first column stays e_1, so R's first
 * row is (0, 1), and what is left of column 2, (2, 3), has length √13. */
START_TEST(qr_zero_column) {
    const float A[6] = {0, 1, 0, 2, 0, 3}; /* [3, 2] */
    float Q[6], R[4], QR[6];
    la_qr(Q, R, A, 3, 2);
    ck_assert_float_eq(R[0], 0.0f);
    ck_assert_float_eq_tol(fabsf(R[1]), 1.0f, 1e-6f);
    ck_assert_float_eq_tol(fabsf(R[3]), sqrtf(13.0f), 1e-6f);
    for (int r = 0; r < 3; r++)
        for (int j = 0; j < 2; j++) QR[r * 2 + j] = Q[r * 2] * R[j] + Q[r * 2 + 1] * R[2 + j];
    ck_assert(compare_f32("QR = A (zero column)", "3 x 2", QR, A, 6, 1e-6, 0, NULL));
}
END_TEST

int main(void) {
    Suite *s = suite_create("linalg");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, books_two_by_two_table);
    tcase_add_test(tc, norms);
    tcase_add_test(tc, qr_by_hand);
    tcase_add_test(tc, qr_random);
    tcase_add_test(tc, qr_zero_column);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
