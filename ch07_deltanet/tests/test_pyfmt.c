/* test_pyfmt.c — common/workbook/pyfmt.c writes numbers exactly as Python does.
 *
 * Two sources of expected text: the book's own printed numbers (written here by
 * hand), and tests/data/pyfmt_cases.txt, what Python 3 itself prints for ~2500
 * tricky cases (ties, negative zero, exponents, inf/nan, powers of two, random
 * bit patterns), made by reference/pyfmt_cases.py.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/pyfmt.h"
#include "workbook/util.h"
#include "tests/check_main.h"

static double from_bits(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t to_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static char *repr(double x) {
    static char buf[PY_REPR_MAX];
    py_repr(buf, sizeof buf, x);
    return buf;
}

static char *fmt(double x, const char *spec) {
    static char buf[256];
    py_format(buf, sizeof buf, x, spec);
    return buf;
}

/* Every number the book's ch07_toy.py prints, formatted as it prints them. */
START_TEST(the_books_numbers) {
    ck_assert_str_eq(repr(3.0), "3.0");
    ck_assert_str_eq(repr(-1.0), "-1.0");
    ck_assert_str_eq(repr(2.2), "2.2");
    ck_assert_str_eq(repr(-0.5), "-0.5");
    ck_assert_str_eq(repr(0.9), "0.9"); /* f"{a}" for α = 0.9 */
    ck_assert_str_eq(repr(1.0), "1.0");
    /* 0.6·(-1) + 0.8·2 in float32 is 1.0000001; round(·, 3) brings it back to 1.0,
     * and 0.8·2 + … gives 2.2000000476837158 → 2.2 */
    ck_assert_str_eq(repr(py_round((double)1.0000001f, 3)), "1.0");
    ck_assert_str_eq(repr(py_round((double)2.2f, 3)), "2.2");
    ck_assert_str_eq(repr(py_round((double)-0.5f, 3)), "-0.5");
    ck_assert_str_eq(fmt(pow(1.0, 10), ".3f"), "1.000");
    ck_assert_str_eq(fmt(pow(0.9, 10), ".3f"), "0.349");
    ck_assert_str_eq(fmt(pow(0.5, 10), ".3f"), "0.001");
    ck_assert_str_eq(fmt(pow(1.0, 50), ".3g"), "1");
    ck_assert_str_eq(fmt(pow(0.9, 50), ".3g"), "0.00515");
    ck_assert_str_eq(fmt(pow(0.5, 50), ".3g"), "8.88e-16");
    ck_assert_str_eq(repr(pow(0.5, 50)), "8.881784197001252e-16");
    /* the raw values behind part 4 (docs/torch_rng.md §6) */
    ck_assert_str_eq(fmt(1.4344056, ".0%"), "143%");
    ck_assert_str_eq(fmt(0.99674886, ".0%"), "100%");
    ck_assert_str_eq(fmt(0.31286868, ".0%"), "31%");
    ck_assert_str_eq(fmt(1.3057969, ".0%"), "131%");
    ck_assert_str_eq(fmt(2.8296275, ".0%"), "283%");
    ck_assert_str_eq(fmt(5.78e-07, ".0%"), "0%");
    /* ch07_deltanet.py's distances: width 6, 3 decimals */
    ck_assert_str_eq(fmt(4.673, "6.3f"), " 4.673");
    ck_assert_str_eq(fmt(18.691, "6.3f"), "18.691");
    char b[32];
    py_format_int(b, sizeof b, 6, "3d");
    ck_assert_str_eq(b, "  6");
}
END_TEST

/* Hand-checked corner cases, independent of the data file. */
START_TEST(corner_cases) {
    ck_assert_str_eq(repr(0.0), "0.0");
    ck_assert_str_eq(repr(-0.0), "-0.0");
    ck_assert_str_eq(repr(1e-05), "1e-05");
    ck_assert_str_eq(repr(0.0001), "0.0001");
    ck_assert_str_eq(repr(1e16), "1e+16");
    ck_assert_str_eq(repr(1e15), "1000000000000000.0");
    ck_assert_str_eq(repr(0.1 + 0.2), "0.30000000000000004");
    ck_assert_str_eq(repr(INFINITY), "inf");
    ck_assert_str_eq(repr(-INFINITY), "-inf");
    ck_assert_str_eq(repr(NAN), "nan");
    ck_assert_str_eq(repr(-NAN), "nan");
    ck_assert_str_eq(repr(5e-324), "5e-324");
    /* ties go to the even digit, but only true ties: 2.675 is below 2.675 in binary */
    ck_assert_str_eq(repr(py_round(0.125, 2)), "0.12");
    ck_assert_str_eq(repr(py_round(0.375, 2)), "0.38");
    ck_assert_str_eq(repr(py_round(2.5, 0)), "2.0");
    ck_assert_str_eq(repr(py_round(3.5, 0)), "4.0");
    ck_assert_str_eq(repr(py_round(2.675, 2)), "2.67");
    ck_assert_str_eq(repr(py_round(-0.0001, 3)), "-0.0");
    ck_assert_str_eq(repr(py_round(1235.0, -1)), "1240.0");
    ck_assert_str_eq(repr(py_round(1245.0, -1)), "1240.0");
    ck_assert_str_eq(repr(py_round(-4.0, -1)), "-0.0");
    ck_assert_str_eq(fmt(-0.0, ".3f"), "-0.000");
    ck_assert_str_eq(fmt(-0.0004, "z.3f"), "0.000");
    ck_assert_str_eq(fmt(0.125, ".2f"), "0.12");
    ck_assert_str_eq(fmt(NAN, ".0%"), "nan%");
    ck_assert_str_eq(fmt(1234567.891, ",.2f"), "1,234,567.89");
    ck_assert_str_eq(fmt(3.14159, "·^9.2f"), "··3.14···");
    /* lists, as print() shows them */
    double row[2] = {-1.0, 2.0};
    char b[64];
    py_repr_list(b, sizeof b, row, 2);
    ck_assert_str_eq(b, "[-1.0, 2.0]");
    py_repr_list(b, sizeof b, row, 0);
    ck_assert_str_eq(b, "[]");
}
END_TEST

/* Like snprintf: the full length comes back even when the buffer is short, and
 * specs Python rejects (or that are not supported) give -1. */
START_TEST(buffers_and_bad_specs) {
    char small[4];
    ck_assert_int_eq(py_repr(small, sizeof small, 0.30000000000000004), 19);
    ck_assert_str_eq(small, "0.3");
    ck_assert_int_eq(py_format(small, sizeof small, 1.0, ".3x"), -1);
    ck_assert_int_eq(py_format(small, sizeof small, 1.0, ".f"), -1);
    ck_assert_int_eq(py_format(small, sizeof small, 1.0, ".3ff"), -1);
    ck_assert_int_eq(py_format(small, sizeof small, 1.0, "d"), -1);
    ck_assert_int_eq(py_format_int(small, sizeof small, 1, ".2"), -1);
    ck_assert_int_eq(py_format_int(small, sizeof small, 1, "f"), -1);
    ck_assert_str_eq(small, "?");
}
END_TEST

/* Every line of the data file: repr, round, format, int. */
/* The book's r(t) = [round(x, n) for x in t.tolist()]: float32 values widened first.
 * float32(-0.0005) = -0.000500000024 rounds away to -0.001; float32(1.0005) =
 * 1.000499964 rounds down to 1.0; float32(0.35) = 0.349999994 rounds to 0.3, not 0.4
 * (checked in Python with struct round trips). */
START_TEST(rounded_lists) {
    char buf[96];
    const float a[] = {3.0f, 2.2f, -0.0005f, 1.0005f}, b[] = {0.25f, 0.35f};
    py_repr_rounded(buf, sizeof buf, a, 4, 3);
    ck_assert_str_eq(buf, "[3.0, 2.2, -0.001, 1.0]");
    py_repr_rounded(buf, sizeof buf, b, 2, 1);
    ck_assert_str_eq(buf, "[0.2, 0.3]");
    py_repr_rounded(buf, sizeof buf, a, 0, 3);
    ck_assert_str_eq(buf, "[]");
}
END_TEST

START_TEST(python_reference_cases) {
    Error err;
    char *text = read_file("ch07_deltanet/tests/data/pyfmt_cases.txt", NULL, &err);
    ck_assert_msg(text, "%s", err.msg);
    int counts[4] = {0}, failures = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') continue;
        char *field[6] = {0};
        int nf = 0;
        for (char *p = line; nf < 6;) { /* tab-separated; the last field keeps its spaces */
            field[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab) break;
            *tab = '\0';
            p = tab + 1;
        }
        char got[256];
        const char *want = NULL;
        if (strcmp(field[0], "repr") == 0 && nf == 3) {
            py_repr(got, sizeof got, from_bits(strtoull(field[1], NULL, 16)));
            want = field[2];
            counts[0]++;
        } else if (strcmp(field[0], "round") == 0 && nf == 5) {
            double x = from_bits(strtoull(field[1], NULL, 16));
            double y = py_round(x, atoi(field[2]));
            uint64_t want_bits = strtoull(field[3], NULL, 16);
            bool same = to_bits(y) == want_bits || (isnan(y) && isnan(from_bits(want_bits)));
            py_repr(got, sizeof got, y);
            if (!same) {
                printf("FAIL round(%s, %s) = %s, Python: %s\n", repr(x), field[2], got, field[4]);
                failures++;
            }
            counts[1]++;
            continue;
        } else if (strcmp(field[0], "format") == 0 && nf == 4) {
            py_format(got, sizeof got, from_bits(strtoull(field[1], NULL, 16)), field[2]);
            want = field[3];
            counts[2]++;
        } else if (strcmp(field[0], "int") == 0 && nf == 4) {
            py_format_int(got, sizeof got, strtoll(field[1], NULL, 10), field[2]);
            want = field[3];
            counts[3]++;
        } else {
            ck_abort_msg("bad line in pyfmt_cases.txt: %s", line);
        }
        if (strcmp(got, want) != 0) {
            printf("FAIL %s %s '%s': got '%s', Python '%s'\n", field[0], field[1], nf > 3 ? field[2] : "",
                   got, want);
            failures++;
        }
    }
    printf("%s pyfmt vs Python: %d repr, %d round, %d format, %d int cases, %d failures\n",
           failures ? "FAIL" : "OK  ", counts[0], counts[1], counts[2], counts[3], failures);
    fflush(stdout);
    free(text);
    ck_assert_int_eq(failures, 0);
    ck_assert_msg(counts[0] > 500 && counts[1] > 300 && counts[2] > 1000 && counts[3] > 50,
                  "data file too short");
}
END_TEST

int main(void) {
    Suite *s = suite_create("pyfmt");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, the_books_numbers);
    tcase_add_test(tc, corner_cases);
    tcase_add_test(tc, buffers_and_bad_specs);
    tcase_add_test(tc, rounded_lists);
    tcase_add_test(tc, python_reference_cases);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
