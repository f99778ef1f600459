/* pyfmt.c — Python's number formatting (see pyfmt.h).
 *
 * The exact work (correct rounding of the binary value to decimal) is left to
 * the C library: glibc's printf rounds the exact value, ties to even, and strtod
 * reads back correctly rounded. On top of that this file adds what Python does
 * differently: the shortest round-trip repr, the '.0' on whole numbers, the
 * format mini-language's fill, alignment, grouping and '%'.
 */
#include "pyfmt.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A precision above PRECISION_MAX is rejected, so that the longest number text
 * fits BODY_MAX: 309 integer digits of the largest double, 103 group separators,
 * the point, 1000 decimals and a '%'. */
#define PRECISION_MAX 1000
#define BODY_MAX      1500

/* Copies text into buf like snprintf would and returns its full length. */
static int put(char *buf, size_t size, const char *text) {
    size_t n = strlen(text);
    if (size > 0) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return (int)n;
}

static int reject(char *buf, size_t size) {
    put(buf, size, "?");
    return -1;
}

/* ---- repr: the shortest decimal that reads back as the same double --------- */

/* For a finite ax > 0, finds the shortest digit string D (an integer without
 * trailing zeros) and exponent E with D × 10^E == ax after rounding to double,
 * the closest to ax among the shortest. Returns the digits as text and sets
 * *decpt, Python's position of the decimal point: ax ≈ 0.D × 10^decpt. */
static void shortest_digits(double ax, char digits[20], int *decpt) {
    uint64_t mant = 0;
    int exp10 = 0;
    for (int p = 1; p <= 17; p++) { /* 17 significant digits always read back */
        char s[40];
        snprintf(s, sizeof s, "%.*e", p - 1, ax); /* the closest p-digit decimal */
        uint64_t m = 0;
        const char *c = s;
        for (; *c && *c != 'e'; c++)
            if (isdigit((unsigned char)*c)) m = m * 10 + (uint64_t)(*c - '0');
        int e = atoi(c + 1) - (p - 1);
        double back = strtod(s, NULL);
        if (back == ax) {
            mant = m, exp10 = e;
            break;
        }
        /* The round-trip interval is lopsided at powers of two, so the closest
         * p-digit decimal can miss it while its neighbour on the other side of
         * ax still hits it. */
        uint64_t other = back < ax ? m + 1 : m - 1;
        snprintf(s, sizeof s, "%llue%d", (unsigned long long)other, e);
        if (strtod(s, NULL) == ax) {
            mant = other, exp10 = e;
            break;
        }
    }
    while (mant % 10 == 0) mant /= 10, exp10++;
    int n = snprintf(digits, 20, "%llu", (unsigned long long)mant);
    *decpt = n + exp10;
}

int py_repr(char *buf, size_t size, double x) {
    if (isnan(x)) return put(buf, size, "nan"); /* Python never shows a NaN's sign */
    if (isinf(x)) return put(buf, size, x < 0 ? "-inf" : "inf");
    char out[64], *o = out;
    if (signbit(x)) *o++ = '-';
    if (x == 0.0) {
        strcpy(o, "0.0");
        return put(buf, size, out);
    }
    char digits[20];
    int decpt;
    shortest_digits(fabs(x), digits, &decpt);
    int n = (int)strlen(digits);
    if (decpt <= -4 || decpt > 16) { /* scientific: d[.ddd]e±XX */
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)n - 1);
            o += n - 1;
        }
        sprintf(o, "e%c%02d", decpt - 1 < 0 ? '-' : '+', abs(decpt - 1));
    } else if (decpt <= 0) { /* 0.000ddd */
        o += sprintf(o, "0.");
        for (int i = 0; i < -decpt; i++) *o++ = '0';
        strcpy(o, digits);
    } else if (decpt < n) { /* ddd.ddd */
        memcpy(o, digits, (size_t)decpt);
        o += decpt;
        *o++ = '.';
        strcpy(o, digits + decpt);
    } else { /* ddd000.0 */
        memcpy(o, digits, (size_t)n);
        o += n;
        for (int i = n; i < decpt; i++) *o++ = '0';
        strcpy(o, ".0");
    }
    return put(buf, size, out);
}

/* "[" repr(value(0)), ", " ... "]": the list repr shared by the two functions below. */
static int repr_list(char *buf, size_t size, int n, double (*value)(const void *, int), const void *values) {
    size_t cap = 3 + (size_t)n * (PY_REPR_MAX + 2); /* "[", n times "x, ", "]", NUL */
    char *text = malloc(cap), *o = text;
    if (!text) return reject(buf, size);
    *o++ = '[';
    for (int i = 0; i < n; i++) {
        if (i) o += sprintf(o, ", ");
        o += py_repr(o, PY_REPR_MAX, value(values, i));
    }
    strcpy(o, "]");
    int len = put(buf, size, text);
    free(text);
    return len;
}

static double double_at(const void *values, int i) { return ((const double *)values)[i]; }

int py_repr_list(char *buf, size_t size, const double *values, int n) {
    return repr_list(buf, size, n, double_at, values);
}

/* The rounding digits travel with the values, so repr_list needs no other argument. */
typedef struct {
    const float *values;
    int ndigits;
} Rounded;

static double rounded_at(const void *r, int i) {
    const Rounded *x = r;
    return py_round((double)x->values[i], x->ndigits);
}

int py_repr_rounded(char *buf, size_t size, const float *values, int n, int ndigits) {
    Rounded r = {values, ndigits};
    return repr_list(buf, size, n, rounded_at, &r);
}

/* ---- round(x, n) ----------------------------------------------------------- */

/* Adds one to a string of decimal digits, in place; returns true when it grew
 * a digit (999 -> 1000), which the caller must make room for. */
static bool increment_digits(char *d, int len) {
    for (int i = len - 1; i >= 0; i--) {
        if (d[i] != '9') {
            d[i]++;
            return false;
        }
        d[i] = '0';
    }
    memmove(d + 1, d, (size_t)len + 1);
    d[0] = '1';
    return true;
}

double py_round(double x, int ndigits) {
    if (!isfinite(x) || x == 0.0) return x;
    if (ndigits > 323) return x;        /* finer than any double's last digit */
    if (ndigits < -308) return 0.0 * x; /* coarser than the largest double: a signed 0 */
    char text[BODY_MAX];
    if (ndigits >= 0) {
        /* printf rounds the exact binary value, ties to even: just what Python does */
        snprintf(text, sizeof text, "%.*f", ndigits, x);
        return strtod(text, NULL);
    }
    /* Rounding to tens, hundreds, …: do it on the exact decimal expansion. A
     * double >= 1 has at most 52 digits after the point, so 60 shows all. */
    int k = -ndigits;
    double ax = fabs(x);
    if (ax < 1.0) return copysign(0.0, x);
    snprintf(text, sizeof text, "%.60f", ax);
    char *point = strchr(text, '.');
    int int_len = (int)(point - text);
    if (k > int_len) return copysign(0.0, x); /* below half of 10^k */
    int head_len = int_len - k;
    /* tail = the digits being dropped: integer digits after the head, then the fraction */
    char first = text[head_len];
    bool rest_nonzero = false;
    for (const char *c = text + head_len + 1; *c; c++)
        if (*c >= '1' && *c <= '9') rest_nonzero = true;
    bool up = first > '5' ||
              (first == '5' && (rest_nonzero || (head_len > 0 && (text[head_len - 1] - '0') % 2 == 1)));
    char digits[BODY_MAX];
    memcpy(digits, text, (size_t)head_len);
    digits[head_len] = '\0';
    if (head_len == 0) strcpy(digits, "0"), head_len = 1;
    if (up) head_len += increment_digits(digits, head_len);
    snprintf(digits + head_len, sizeof digits - (size_t)head_len, "e%d", k);
    return copysign(strtod(digits, NULL), x);
}

/* ---- format(x, spec) --------------------------------------------------------- */

typedef struct {
    char fill[5]; /* one character, UTF-8 */
    bool has_fill;
    char align;    /* 0 (default), '<', '>', '^', '=' */
    char sign;     /* '-', '+', ' ' */
    bool z;        /* negative zero after rounding prints as zero */
    bool alt;      /* '#' */
    bool zero;     /* '0' before the width */
    int width;     /* 0 = none */
    char group;    /* 0, ',', '_' */
    int precision; /* -1 = none */
    char type;     /* 0 = none */
} Spec;

/* Byte length of the UTF-8 character starting with c (1 for anything odd). */
static int utf8_len(unsigned char c) { return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1; }

static bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

static bool parse_spec(const char *s, Spec *p) {
    *p = (Spec){.fill = " ", .sign = '-', .precision = -1};
    size_t n = strlen(s);
    int fl = n ? utf8_len((unsigned char)s[0]) : 1;
    if (n > (size_t)fl && is_align(s[fl])) { /* fill then align */
        memcpy(p->fill, s, (size_t)fl);
        p->fill[fl] = '\0';
        p->has_fill = true;
        p->align = s[fl];
        s += fl + 1;
    } else if (n && is_align(s[0])) {
        p->align = *s++;
    }
    if (*s == '+' || *s == '-' || *s == ' ') p->sign = *s++;
    if (*s == 'z') p->z = true, s++;
    if (*s == '#') p->alt = true, s++;
    if (*s == '0') p->zero = true, s++;
    while (isdigit((unsigned char)*s)) {
        p->width = p->width * 10 + (*s++ - '0');
        if (p->width > BODY_MAX) return false;
    }
    if (*s == ',' || *s == '_') p->group = *s++;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s)) return false;
        p->precision = 0;
        while (isdigit((unsigned char)*s)) {
            p->precision = p->precision * 10 + (*s++ - '0');
            if (p->precision > PRECISION_MAX) return false;
        }
    }
    if (*s) p->type = *s++;
    if (*s) return false; /* anything after the type */
    if (p->zero) {        /* '0' means: pad with zeros after the sign, unless told otherwise */
        if (!p->has_fill) strcpy(p->fill, "0");
        if (!p->align) p->align = '=';
        if (p->group) return false; /* zero padding through the grouping: not supported */
    }
    return true;
}

/* Inserts the grouping character every 3 digits into the leading run of digits
 * of body (the integer part), in place (body has room for it). */
static void group_digits(char *body, char sep) {
    int lead = 0;
    while (isdigit((unsigned char)body[lead])) lead++;
    int seps = (lead - 1) / 3;
    if (seps <= 0) return;
    size_t len = strlen(body);
    memmove(body + lead + seps, body + lead, len - (size_t)lead + 1);
    for (int src = lead - 1, dst = lead + seps - 1, count = 0; src >= 0; src--) {
        body[dst--] = body[src];
        if (++count % 3 == 0 && src > 0) body[dst--] = sep;
    }
}

/* Puts sign and body together and pads them to the width. */
static int pad_and_put(char *buf, size_t size, const Spec *p, const char *sign, const char *body) {
    int len = (int)(strlen(sign) + strlen(body)); /* both ASCII: bytes = characters */
    int pad = p->width > len ? p->width - len : 0;
    char align = p->align ? p->align : '>';
    int left = align == '<' ? 0 : align == '^' ? pad / 2 : pad;
    int right = pad - left;
    size_t fl = strlen(p->fill);
    char *text = malloc((size_t)pad * fl + (size_t)len + 1), *o = text;
    if (!text) return reject(buf, size);
    if (align != '=') {
        for (int i = 0; i < left; i++) memcpy(o, p->fill, fl), o += fl;
        o += sprintf(o, "%s", sign);
    } else { /* sign first, then the padding */
        o += sprintf(o, "%s", sign);
        for (int i = 0; i < left; i++) memcpy(o, p->fill, fl), o += fl;
    }
    o += sprintf(o, "%s", body);
    for (int i = 0; i < right; i++) memcpy(o, p->fill, fl), o += fl;
    *o = '\0';
    int n = put(buf, size, text);
    free(text);
    return n;
}

/* Python's 'g' (and its type "none" with a precision): prec significant digits,
 * in scientific notation when the exponent is < -4 or >= prec, else fixed; then
 * trailing zeros go (not with '#'). The type "none" switches to scientific one
 * exponent earlier and keeps a '.0' on whole numbers: format(12.0, '.3') is
 * '12.0', format(123.0, '.3') is '1.23e+02'. (Written out rather than left to
 * printf's %g, whose '#' form drops zeros when rounding carries: 999.5 → "1.e+03".) */
static void format_general(char *body, size_t cap, double ax, int prec, bool alt, bool none_type) {
    if (prec == 0) prec = 1;
    snprintf(body, cap, alt ? "%#.*e" : "%.*e", prec - 1,
             ax); /* rounded to prec digits: fixes the exponent */
    int exp10 = atoi(strchr(body, 'e') + 1);
    bool scientific = exp10 < -4 || exp10 >= (none_type ? prec - 1 : prec);
    if (!scientific) snprintf(body, cap, alt ? "%#.*f" : "%.*f", prec - 1 - exp10, ax);
    if (alt || !strchr(body, '.')) return;
    char *end = scientific ? strchr(body, 'e') : body + strlen(body), *m = end;
    while (m[-1] == '0') m--;
    if (m[-1] == '.') {
        if (none_type && !scientific)
            m++; /* keep one zero: 12.0 */
        else
            m--; /* drop the point: 12 */
    }
    memmove(m, end, strlen(end) + 1);
}

int py_format(char *buf, size_t size, double x, const char *spec) {
    Spec p;
    if (!parse_spec(spec, &p)) return reject(buf, size);
    char type = p.type;
    bool percent = type == '%';
    if (percent) x *= 100.0, type = 'f'; /* Python scales first, then formats as 'f' */
    if (type && !strchr("fFeEgG", type)) return reject(buf, size);
    bool upper = type == 'F' || type == 'E' || type == 'G';
    int prec = p.precision;

    char body[BODY_MAX];
    double ax = fabs(x);
    if (isnan(x) || isinf(x)) {
        strcpy(body, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
    } else if (!type && prec < 0) {
        py_repr(body, sizeof body, ax);
    } else if (!type || type == 'g' || type == 'G') {
        format_general(body, sizeof body, ax, prec < 0 ? 6 : prec, p.alt, !type);
        if (upper)
            for (char *b = body; *b; b++) *b = (char)toupper((unsigned char)*b);
    } else {
        char cfmt[8], *c = cfmt;
        *c++ = '%';
        if (p.alt) *c++ = '#';
        *c++ = '.', *c++ = '*', *c++ = (char)tolower(type), *c = '\0';
        if (prec < 0) prec = 6;
        snprintf(body, sizeof body, cfmt, prec, ax);
        if (upper)
            for (char *b = body; *b; b++) *b = (char)toupper((unsigned char)*b);
    }
    bool negative = signbit(x) && !isnan(x);
    if (negative && p.z && isfinite(x)) { /* 'z': a value that rounded to zero loses its minus sign */
        bool all_zero = true;
        for (const char *b = body; *b && *b != 'e' && *b != 'E'; b++)
            if (isdigit((unsigned char)*b) && *b != '0') all_zero = false;
        if (all_zero) negative = false;
    }
    if (p.group) group_digits(body, p.group);
    if (percent) strcat(body, "%");
    const char *sign = negative ? "-" : p.sign == '+' ? "+" : p.sign == ' ' ? " " : "";
    return pad_and_put(buf, size, &p, sign, body);
}

int py_format_int(char *buf, size_t size, long long v, const char *spec) {
    Spec p;
    if (!parse_spec(spec, &p) || p.precision >= 0 || p.z || (p.type && p.type != 'd'))
        return reject(buf, size);
    char body[48];
    snprintf(body, sizeof body, "%llu", v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
    if (p.group) group_digits(body, p.group);
    const char *sign = v < 0 ? "-" : p.sign == '+' ? "+" : p.sign == ' ' ? " " : "";
    return pad_and_put(buf, size, &p, sign, body);
}
