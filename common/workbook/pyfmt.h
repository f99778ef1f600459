/* pyfmt.h — numbers written exactly the way Python writes them.
 *
 * The book prints its results with Python: `print(x)`, `round(x, 3)`, f-strings
 * such as f"{p:.0%}" or f"{a ** 50:.3g}". A demo that prints the book's lines must
 * format every number the same way, to the last character. The rules:
 *
 *   repr / str of a float      the SHORTEST decimal that reads back as the same
 *                              double: 2.2, 0.1, 1e-05, 8.881784197001252e-16.
 *                              Always a '.0' on whole numbers in fixed notation
 *                              (3.0, -0.5, 1e+16); scientific when the exponent is
 *                              < -4 or >= 16. 'nan', 'inf', '-inf', '-0.0'.
 *   round(x, n)                rounds the EXACT binary value of x (2.675 is really
 *                              2.67499999…, so round(2.675, 2) is 2.67); a true tie
 *                              (0.125 → 2 digits) goes to the even digit: 0.12.
 *   format specs               [[fill]align][sign][z][#][0][width][,|_][.precision][type]
 *                              with type f F e E g G % or none, as in Python's
 *                              format mini-language: '.3f' → 0.349, '.3g' → 1,
 *                              0.00515, 8.88e-16; '.0%' → 143%; '6.3f' → ' 4.673'.
 *
 * The book's values are mostly float32 tensors turned into Python floats
 * (.tolist(), .item()), i.e. widened to double before printing: pass
 * (double)value, never a value rounded to float again.
 *
 * All functions write into a caller's buffer and return the length of the full
 * text like snprintf (so a too-small buffer is detectable), or -1 for a format
 * spec Python would reject or this module does not support (the buffer then
 * holds "?").
 */
#ifndef PYFMT_H
#define PYFMT_H

#include <stddef.h>

/* Enough for any repr of a double ("-2.2250738585072014e-308" is 24). */
#define PY_REPR_MAX 32

/* repr(x) (str(x) is the same for floats). */
int py_repr(char *buf, size_t size, double x);

/* round(x, ndigits), with Python's semantics (also for ndigits < 0:
 * round(1234.5, -2) is 1200.0). */
double py_round(double x, int ndigits);

/* format(x, spec) for a float, e.g. spec ".3f", ".0%", "6.3f", ".3g", ">8.2e", "". */
int py_format(char *buf, size_t size, double x, const char *spec);

/* format(v, spec) for an int: [[fill]align][sign][0][width][,|_][d], e.g. "3d", ",". */
int py_format_int(char *buf, size_t size, long long v, const char *spec);

/* repr of a list of floats: "[3.0, 1.0]" (n may be 0: "[]"). */
int py_repr_list(char *buf, size_t size, const double *values, int n);

/* The book's r(t, nd) = [round(x, nd) for x in t.tolist()], printed: float32 values
 * widened to Python floats, each rounded, shown as a list ("[1.0, 2.2]"). */
int py_repr_rounded(char *buf, size_t size, const float *values, int n, int ndigits);

/* The same two for use inside printf's arguments, giving back buf: f"{n:,}"
 * (752393024 -> "752,393,024") and the book's r(t, nd). */
static inline const char *py_grouped(long long n, char *buf, size_t size) {
    py_format_int(buf, size, n, ",");
    return buf;
}
static inline const char *py_rounded(const float *values, int n, int ndigits, char *buf, size_t size) {
    py_repr_rounded(buf, size, values, n, ndigits);
    return buf;
}

#endif
