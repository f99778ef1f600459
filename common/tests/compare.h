/* compare.h — comparing two float arrays the way the tests report it.
 *
 * A comparison prints one line with the name, the count, the largest absolute
 * and relative differences, and on failure the first few mismatching positions
 * with both values, so a failing test says where and by how much:
 *
 *   OK   layer.3.attn_out [6 x 64]: max abs 2.4e-07, max rel 3.1e-06
 *   FAIL layer.3.attn_out [6 x 64]: max abs 0.031 (at 17), max rel 0.2 (at 17)
 *        [17] got 0.1530 want 0.1220 ...
 *
 * An element passes when |got - want| <= atol + rtol * |want| (numpy's allclose).
 * NaN never passes.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    double max_abs, max_rel;
    int64_t worst_abs_at, worst_rel_at;
    int64_t mismatches;
} CompareResult;

/* Compares n values, prints the report line(s) to stdout, returns true when all pass.
 * shape is only used in the message (e.g. "6 x 64"); it may be NULL. */
bool compare_f32(const char *name, const char *shape, const float *got, const float *want, int64_t n,
                 double atol, double rtol, CompareResult *result);

#endif
