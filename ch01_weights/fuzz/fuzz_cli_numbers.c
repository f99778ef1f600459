/* fuzz_cli_numbers.c — the numbers of the command line: parse_count, parse_size and
 * parse_real (workbook/util.h; --sep, --shards, --vocab, --seed, --max-memory, --temp).
 *
 * The first byte picks the parser and its range, the rest is the argument (up to a
 * NUL). Each parser is held to a second, independent reading of its rule:
 *   parse_count: accepted exactly when the text is one or more decimal digits whose
 *     value, computed here in 128 bits, lies in min .. max; and then it is that value;
 *   parse_size: accepted only when the text is digits with an optional fraction and
 *     one of the units, and then within a byte of number × unit computed here in
 *     long double; refused when that reading says it cannot be a size;
 *   parse_real: accepted exactly when the text is digits with an optional fraction
 *     and exponent (one digit at least before the exponent, one in it) whose value,
 *     read here with strtold, is below DBL_MAX; and then it is that value to the
 *     double's precision.
 * Every refusal is one line naming the flag.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <strings.h>

#include "tests/fuzz.h"

typedef unsigned __int128 u128;

static void check_count(const char *text, uint64_t min, uint64_t max) {
    u128 v = 0;
    bool digits = *text != '\0', big = false;
    for (const char *p = text; *p; p++) {
        if (!isdigit((unsigned char)*p)) digits = false;
        if (digits && !big) v = v * 10 + (unsigned)(*p - '0'), big = v > UINT64_MAX;
    }
    bool want = digits && !big && v >= min && v <= max;
    uint64_t got = 0;
    Error err = {{0}};
    bool ok = parse_count("--n", text, min, max, &got, &err);
    FUZZ_CHECK(ok == want, "parse_count('%s', %llu, %llu) %s", text, (unsigned long long)min,
               (unsigned long long)max, ok ? "accepted" : err.msg);
    if (ok) FUZZ_CHECK(got == (uint64_t)v, "parse_count('%s') = %llu", text, (unsigned long long)got);
    if (!ok) fuzz_check_error(&err, "--n");
}

static void check_size(const char *text) {
    static const struct {
        const char *name;
        long double scale;
    } units[] = {{"", 1},
                 {"b", 1},
                 {"k", 1e3},
                 {"kb", 1e3},
                 {"m", 1e6},
                 {"mb", 1e6},
                 {"g", 1e9},
                 {"gb", 1e9},
                 {"t", 1e12},
                 {"tb", 1e12},
                 {"kib", 1024.0L},
                 {"mib", 1048576.0L},
                 {"gib", 1073741824.0L},
                 {"tib", 1099511627776.0L}};
    const char *p = text;
    size_t n_digits = 0;
    while (isdigit((unsigned char)*p)) p++, n_digits++;
    const char *number_end = p;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, n_digits++;
        number_end = p;
    }
    long double scale = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0] && !scale; i++)
        if (strcasecmp(p, units[i].name) == 0) scale = units[i].scale;
    bool grammar = n_digits > 0 && scale > 0;
    long double ref = 0;
    if (grammar) {
        char number[4096];
        size_t len = (size_t)(number_end - text);
        if (len >= sizeof number) len = sizeof number - 1;
        memcpy(number, text, len);
        number[len] = '\0';
        ref = strtold(number, NULL) * scale;
    }
    uint64_t got = 0;
    Error err = {{0}};
    bool ok = parse_size("--max-memory", text, &got, &err);
    if (ok) {
        FUZZ_CHECK(grammar, "parse_size accepted '%s'", text);
        long double diff = (long double)got - ref;
        FUZZ_CHECK(diff <= 1 + ref * 1e-17L && diff >= -1 - ref * 1e-17L,
                   "parse_size('%s') = %llu, about %Lg", text, (unsigned long long)got, ref);
        FUZZ_CHECK(got >= 1, "a size of 0 bytes accepted: '%s'", text);
    } else {
        fuzz_check_error(&err, "--max-memory");
        /* refused although it reads as a size well inside 1 .. 2^64 − 1 */
        FUZZ_CHECK(!grammar || ref < 1.5L || ref > 18446744073709551615.0L * (1 - 1e-15L),
                   "refused '%s' (%Lg)", text, ref);
    }
}

static void check_real(const char *text) {
    const char *p = text;
    size_t mantissa = 0, exponent = 0;
    while (isdigit((unsigned char)*p)) p++, mantissa++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, mantissa++;
    }
    bool grammar = mantissa > 0;
    if (grammar && (*p == 'e' || *p == 'E')) {
        p++;
        if (*p == '+' || *p == '-') p++;
        while (isdigit((unsigned char)*p)) p++, exponent++;
        grammar = exponent > 0;
    }
    grammar = grammar && *p == '\0';
    long double ref = grammar ? strtold(text, NULL) : 0;
    bool want = grammar && ref <= (long double)DBL_MAX * (1 + 1e-17L);
    double got = 0;
    Error err = {{0}};
    bool ok = parse_real("--temp", text, &got, &err);
    if (grammar && ref > (long double)DBL_MAX && ref < (long double)DBL_MAX * (1 + 1e-16L))
        return; /* within rounding of the largest double: either answer is right */
    FUZZ_CHECK(ok == want, "parse_real('%s') %s", text, ok ? "accepted" : err.msg);
    if (ok) {
        long double diff = fabsl((long double)got - ref);
        FUZZ_CHECK(isfinite(got) && got >= 0 && (diff <= ref * 1.2e-16L || ref < (long double)DBL_MIN),
                   "parse_real('%s') = %.17g, about %Lg", text, got, ref);
    } else {
        fuzz_check_error(&err, "--temp");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    switch (data[0] % 5) {
    case 0:
        check_count(text, 0, UINT64_MAX);
        break;
    case 1:
        check_count(text, 1, 1 << 30);
        break; /* --shards, --vocab */
    case 2:
        check_count(text, 0, 100000000);
        break; /* --sep */
    case 3:
        check_size(text);
        break;
    default:
        check_real(text); /* --temp, --top-p */
        break;
    }
    free(text);
    return 0;
}
