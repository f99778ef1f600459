/* compare.c — tensor comparison with a readable report (see compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>

bool compare_f32(const char *name, const char *shape, const float *got, const float *want, int64_t n,
                 double atol, double rtol, CompareResult *result) {
    CompareResult r = {0, 0, -1, -1, 0};
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i], d = fabs(g - w);
        double rel = d / (fabs(w) > 0 ? fabs(w) : 1e-30);
        bool ok = d <= atol + rtol * fabs(w); /* false for NaN */
        if (isnan(d)) d = rel = INFINITY;
        if (d > r.max_abs || r.worst_abs_at < 0) r.max_abs = d, r.worst_abs_at = i;
        if (rel > r.max_rel || r.worst_rel_at < 0) r.max_rel = rel, r.worst_rel_at = i;
        if (!ok) r.mismatches++;
    }
    printf("%s %s [%s]: %lld values, max abs %.3g (at %lld), max rel %.3g (at %lld)",
           r.mismatches ? "FAIL" : "OK  ", name, shape ? shape : "?", (long long)n, r.max_abs,
           (long long)r.worst_abs_at, r.max_rel, (long long)r.worst_rel_at);
    if (r.mismatches) printf(", %lld outside atol %.3g + rtol %.3g", (long long)r.mismatches, atol, rtol);
    printf("\n");
    int shown = 0;
    for (int64_t i = 0; i < n && r.mismatches && shown < 5; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= atol + rtol * fabs((double)want[i]))) {
            printf("     [%lld] got %.8g want %.8g\n", (long long)i, got[i], want[i]);
            shown++;
        }
    }
    if (result) *result = r;
    return r.mismatches == 0;
}
