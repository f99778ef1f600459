/* Exercise 213 (layer pattern), the runner: each case's configs, the calls, the
 * outputs handed back. The checker (check.c) holds what they should be. */
#include <stdio.h>

#include "ptest_run.h"
#include "layer_pattern.h"

#define LIN  "linear_attention"
#define FULL "full_attention"

/* Call k of a case: the returned value as K.r, and the whole pattern buffer (n + 1
 * bytes, or 1 when n < 1), byte by byte, as K.pattern. */
static void call(int k, int n, const char *const *types, int n_types, int interval) {
    size_t size = n > 0 ? (size_t)n + 1 : 1;
    char *pattern = pt_bytes(size), name[32];
    int r = layer_pattern(types, n_types, n, interval, pattern);
    int *bytes = pt_ints(size);
    for (size_t i = 0; i < size; i++) bytes[i] = (unsigned char)pattern[i];
    snprintf(name, sizeof name, "%d.r", k);
    pt_out_int(name, r);
    snprintf(name, sizeof name, "%d.pattern", k);
    pt_out_ints(name, bytes, size);
}

static const char *const real_types[24] = {LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL,
                                           LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL, LIN, LIN, LIN, FULL};

static void worked_example(void) { call(0, 8, NULL, 0, 4); }

static void real_list(void) { call(0, 24, real_types, 24, 4); }

static void fallback_24(void) { call(0, 24, NULL, 0, 4); }

static void list_wins(void) {
    static const char *const odd[6] = {FULL, LIN, LIN, LIN, FULL, FULL};
    call(0, 6, odd, 6, 4);
}

static void interval_edges(void) {
    call(0, 5, NULL, 0, 1);
    call(1, 24, NULL, 0, 24);
    call(2, 6, NULL, 0, 100);
    call(3, 1, NULL, 0, 1);
}

static void bad_configs(void) {
    static const char *const typo[4] = {LIN, LIN, LIN, "full"};
    static const char *const longer[4] = {LIN, LIN, LIN, "full_attention_x"};
    static const char *const space[4] = {LIN, LIN, LIN, "full_attention "};
    static const char *const shorter[4] = {LIN, LIN, "linear", FULL};
    static const char *const empty[4] = {LIN, "", LIN, FULL};
    static const char *const with_null[4] = {LIN, NULL, LIN, FULL};
    call(0, 24, real_types, 23, 4);
    call(1, 23, real_types, 24, 4);
    call(2, 4, typo, 4, 4);
    call(3, 4, longer, 4, 4);
    call(4, 4, space, 4, 4);
    call(5, 4, shorter, 4, 4);
    call(6, 4, empty, 4, 4);
    call(7, 4, with_null, 4, 4);
    call(8, 8, NULL, 0, 0);
    call(9, 8, NULL, 0, -4);
    call(10, 0, NULL, 0, 4);
    call(11, -3, NULL, 0, 4);
}

PT_RUNNER({"worked_example", worked_example}, {"real_list", real_list}, {"fallback_24", fallback_24},
          {"list_wins", list_wins}, {"interval_edges", interval_edges}, {"bad_configs", bad_configs})
