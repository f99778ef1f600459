/* golden_fixture.h — for the Check tests only: the PyTorch goldens and the tiny
 * checkpoint they were computed from.
 *
 * reference/qwen35_reference.py ran the tiny synthetic checkpoint (which `make test`
 * writes to $TINY, default build/tiny) in float64 and stored every intermediate in
 * reference/golden/tiny_forward.safetensors. A numerical test opens both, feeds a
 * C part the golden input and compares its output with the golden output:
 *
 *     GoldenFixture f;
 *     golden_fixture_open(&f);
 *     float *x = golden_values(&f, "layer.0.input_norm", (int64_t)f.T * H);
 *     ...
 *     ck_assert(golden_compare(&f, "layer.0.mlp.out", y, "7 x 64", n, 1e-5, 1e-4));
 *     free(x);
 *     golden_fixture_close(&f);
 *
 * Header-only (static inline) because it uses Check's assertions, which the library
 * itself does not link.
 */
#ifndef GOLDEN_FIXTURE_H
#define GOLDEN_FIXTURE_H

#include <check.h>
#include <stdlib.h>

#include "checkpoint.h"
#include "compare.h"
#include "safetensors.h"
#include "util.h"

#define GOLDEN_PATH "reference/golden/tiny_forward.safetensors"

typedef struct {
    SafeTensors golden; /* every intermediate of the reference run */
    Checkpoint ck;      /* the weights it ran on */
    int T;              /* tokens of the reference run (golden "ids") */
} GoldenFixture;

static inline const char *golden_tiny_dir(void) {
    const char *tiny = getenv("TINY");
    return tiny && *tiny ? tiny : "build/tiny";
}

static inline void golden_fixture_open(GoldenFixture *f) {
    Error err;
    ck_assert_msg(st_open(&f->golden, GOLDEN_PATH, &err), "%s", err.msg);
    ck_assert_msg(ckpt_open(&f->ck, golden_tiny_dir(), &err),
                  "%s (the tiny checkpoint is written by `make test`)", err.msg);
    const Tensor *ids = st_find(&f->golden, "ids");
    ck_assert_msg(ids, "%s: no tensor ids", GOLDEN_PATH);
    f->T = (int)ids->numel;
}

static inline void golden_fixture_close(GoldenFixture *f) {
    st_close(&f->golden);
    ckpt_close(&f->ck);
}

/* The golden tensor `name` (its element count checked) as a float32 copy; free() it. */
static inline float *golden_values(const GoldenFixture *f, const char *name, int64_t numel) {
    const Tensor *t = st_find(&f->golden, name);
    ck_assert_msg(t, "%s: no tensor %s", GOLDEN_PATH, name);
    ck_assert_msg(t->numel == numel, "%s: %s has %lld values, expected %lld", GOLDEN_PATH, name,
                  (long long)t->numel, (long long)numel);
    float *v = xmalloc((size_t)numel * sizeof(float));
    tensor_read_f32(t, 0, numel, v);
    return v;
}

/* compare_f32 of got against the golden tensor `name` (report printed). */
static inline bool golden_compare(const GoldenFixture *f, const char *name, const float *got,
                                  const char *shape, int64_t numel, double atol, double rtol) {
    float *want = golden_values(f, name, numel);
    bool ok = compare_f32(name, shape, got, want, numel, atol, rtol, NULL);
    free(want);
    return ok;
}

#endif
