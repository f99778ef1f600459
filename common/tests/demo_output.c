/* demo_output.c — running a demo and reading its lines (see demo_output.h). */
#include "demo_output.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "workbook/util.h"

char *demo_run_tiny(const char *demo, const char *extra_args, const char *dump_path) {
    const char *bindir = getenv("BINDIR"), *tiny = getenv("TINY");
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "./%s%s --model '%s' %s", bindir ? bindir : "", demo,
                     tiny && *tiny ? tiny : "build/tiny", extra_args ? extra_args : "");
    if (dump_path && *dump_path) snprintf(cmd + n, sizeof cmd - (size_t)n, " --dump '%s'", dump_path);
    printf("running: %s\n", cmd);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p) {
        printf("cannot run %s\n", cmd);
        return NULL;
    }
    size_t len = 0, cap = 1 << 14;
    char *text = xmalloc(cap);
    for (size_t got; (got = fread(text + len, 1, cap - len - 1, p)) > 0;) {
        len += got;
        if (cap - len - 1 == 0) text = xrealloc(text, cap *= 2);
    }
    text[len] = '\0';
    int status = pclose(p);
    if (status != 0) {
        printf("%s exited with status %d; its stdout:\n%s\n", demo,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
        free(text);
        return NULL;
    }
    return text;
}

const char *demo_line(const char *text, const char *start, int nth) {
    size_t n = strlen(start);
    for (const char *l = text; l && *l;) {
        if (strncmp(l, start, n) == 0 && nth-- == 0) return l;
        l = strchr(l, '\n');
        if (l) l++;
    }
    return NULL;
}

int demo_count_lines(const char *text, const char *start) {
    int count = 0;
    while (demo_line(text, start, count)) count++;
    return count;
}

/* A number at s: [-]digits[.digits][e[+-]digits]. Its value, its length in bytes and
 * the unit of its last printed digit (0.01 for "1.23", 1e-07 for "1.5e-06"). */
static bool scan_number(const char *s, double *value, int *len, double *unit) {
    const char *p = s;
    if (*p == '-') p++;
    if (!isdigit((unsigned char)*p)) return false;
    while (isdigit((unsigned char)*p)) p++;
    int decimals = 0, exponent = 0;
    if (*p == '.' && isdigit((unsigned char)p[1]))
        for (p++; isdigit((unsigned char)*p); p++) decimals++;
    if ((*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) || ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
        char *end;
        exponent = (int)strtol(p + 1, &end, 10);
        p = end;
    }
    char buf[64];
    int n = (int)(p - s);
    if (n >= (int)sizeof buf) return false;
    memcpy(buf, s, (size_t)n);
    buf[n] = '\0';
    *value = strtod(buf, NULL);
    *len = n;
    *unit = pow(10.0, exponent - decimals);
    return true;
}

static int line_length(const char *l) {
    const char *end = strchr(l, '\n');
    return end ? (int)(end - l) : (int)strlen(l);
}

bool demo_line_matches(const char *got, const char *want, double rel) {
    if (!got) {
        printf("FAIL line missing; expected:\n     %s\n", want);
        return false;
    }
    int got_len = line_length(got);
    const char *g = got, *w = want, *g_end = got + got_len;
    const char *why = NULL;
    char detail[256] = "";
    while (!why && g < g_end && *w) {
        double gv, wv, gu, wu;
        int gl, wl;
        if (strncmp(w, "<any>", 5) == 0) {
            if (!scan_number(g, &gv, &gl, &gu)) {
                why = "a number expected here";
                continue;
            }
            g += gl, w += 5;
        } else if (scan_number(w, &wv, &wl, &wu) && scan_number(g, &gv, &gl, &gu) && g + gl <= g_end) {
            double allowed = 0.5 * gu * (1 + 1e-9) + rel * fabs(wv);
            if (fabs(gv - wv) > allowed) {
                why = "numbers differ:";
                snprintf(detail, sizeof detail, "printed %.*s, expected %.9g (allowed ±%.3g)", gl, g, wv,
                         allowed);
                continue;
            }
            g += gl, w += wl;
        } else if (*g != *w) {
            why = "text differs";
        } else {
            g++, w++;
        }
    }
    if (!why && (g < g_end || *w)) why = g < g_end ? "the line goes on" : "the line ends early";
    if (!why) {
        printf("OK   line: %.*s\n", got_len, got);
        return true;
    }
    printf("FAIL line: %s %s\n     got  %.*s\n     want %s\n     from byte %d: %.*s\n", why, detail, got_len,
           got, want, (int)(g - got), (int)(g_end - g), g);
    return false;
}
