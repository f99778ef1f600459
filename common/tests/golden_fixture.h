/* golden_fixture.h — for the Check tests only: the PyTorch goldens and the synthetic
 * checkpoints they were computed from.
 *
 * reference/qwen35_reference.py ran each synthetic checkpoint in float64 and stored
 * its intermediates:
 *
 *   tiny  reference/golden/tiny_forward.safetensors from $TINY (default build/tiny):
 *         hidden size 64; every intermediate of every layer, a 33-token run of layer
 *         0's DeltaNet (long.*), what the chapter 3–6 demos compute (chNN.*)
 *   mid   reference/golden/mid_forward.safetensors from $MID (default build/mid):
 *         the real layer widths, four layers; every layer's norms, mixer and MLP
 *         outputs and residual stream, every intermediate of layer 0 (DeltaNet and
 *         MLP) and of layer 3's attention
 *
 * and, for both, the logits and greedy continuations (reference/README.md lists the
 * names). `make test` writes both checkpoints. A numerical test opens one, feeds a C
 * part the golden input and compares its output with the golden output:
 *
 *     GoldenFixture f;
 *     golden_fixture_open(&f);                    (or golden_fixture_open_size(&f, GOLDEN_MID))
 *     const float *x = golden_f32(&f.golden, "layer.0.input_norm", (int64_t)f.T * H);
 *     ...
 *     ck_assert(golden_check(&f.golden, "layer.0.mlp.out", y, (int64_t)f.T * H, 1e-5, 1e-4));
 *     golden_fixture_close(&f);
 *
 * The helpers below take any SafeTensors, so a test can hold a demo's --dump file
 * against the golden the same way. This is the one way the tests read goldens.
 *
 * Header-only (static inline) because it uses Check's assertions, which the library
 * itself does not link.
 */
#ifndef GOLDEN_FIXTURE_H
#define GOLDEN_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qwen/model.h"
#include "qwen/safetensors.h"
#include "tests/compare.h"
#include "tests/demo_output.h"
#include "workbook/util.h"

#ifndef REPO_ROOT
#define REPO_ROOT "."
#endif
#define GOLDEN_PATH     REPO_ROOT "/reference/golden/tiny_forward.safetensors"
#define GOLDEN_MID_PATH REPO_ROOT "/reference/golden/mid_forward.safetensors"

/* Which checkpoint: a loop test's _i can be one (tcase_add_loop_test(tc, t, 0, GOLDEN_SIZES)). */
typedef enum { GOLDEN_TINY, GOLDEN_MID, GOLDEN_SIZES } GoldenSize;

typedef struct {
    SafeTensors golden; /* every intermediate of the reference run */
    Model model;        /* the weights it ran on */
    int T;              /* tokens of the reference run (golden "ids") */
    GoldenSize size;
    const char *name; /* "tiny" or "mid", for report lines */
} GoldenFixture;

/* The tiny checkpoint's folder: $TINY, else build/tiny. */
static inline const char *golden_tiny_dir(void) {
    const char *tiny = getenv("TINY");
    return tiny && *tiny ? tiny : "build/tiny";
}

/* The mid checkpoint's folder: $MID, else build/mid. */
static inline const char *golden_mid_dir(void) {
    const char *mid = getenv("MID");
    return mid && *mid ? mid : "build/mid";
}

/* The tiny golden file alone (tests that write a checkpoint of their own). */
static inline void golden_open(SafeTensors *g) {
    Error err;
    ck_assert_msg(st_open(g, GOLDEN_PATH, &err), "%s", err.msg);
}

static inline void golden_fixture_open_size(GoldenFixture *f, GoldenSize size) {
    Error err;
    bool mid = size == GOLDEN_MID;
    f->size = size;
    f->name = mid ? "mid" : "tiny";
    ck_assert_msg(st_open(&f->golden, mid ? GOLDEN_MID_PATH : GOLDEN_PATH, &err), "%s", err.msg);
    ck_assert_msg(model_open(&f->model, mid ? golden_mid_dir() : golden_tiny_dir(), &err),
                  "%s (the %s checkpoint is written by `make test`)", err.msg, f->name);
    const Tensor *ids = st_find(&f->golden, "ids");
    ck_assert_msg(ids, "%s: no tensor ids", f->golden.path);
    f->T = (int)ids->numel;
    printf("-- the %s checkpoint (%s) and %s\n", f->name, f->model.ck.dir, f->golden.path);
}

static inline void golden_fixture_open(GoldenFixture *f) { golden_fixture_open_size(f, GOLDEN_TINY); }

static inline void golden_fixture_close(GoldenFixture *f) {
    st_close(&f->golden);
    model_close(&f->model);
}

/* Whether the golden of st has a tensor `name` (the mid golden keeps fewer). */
static inline bool golden_has(const SafeTensors *st, const char *name) { return st_find(st, name) != NULL; }

/* The float32 tensor `name` of st, its values in place; numel (when ≥ 0) is checked. */
static inline const float *golden_f32(const SafeTensors *st, const char *name, int64_t numel) {
    const Tensor *t = st_find(st, name);
    ck_assert_msg(t != NULL, "%s: no tensor %s", st->path, name);
    ck_assert_msg(t->dtype == DTYPE_F32, "%s: %s is %s, not F32", st->path, name, dtype_name(t->dtype));
    ck_assert_msg(numel < 0 || t->numel == numel, "%s: %s has %lld values, expected %lld", st->path, name,
                  (long long)t->numel, (long long)numel);
    return t->data;
}

/* A copy of the golden tensor `name` (for a test that works on it in place); free() it. */
static inline float *golden_values(const GoldenFixture *f, const char *name, int64_t numel) {
    const float *v = golden_f32(&f->golden, name, numel);
    float *copy = xmalloc((size_t)numel * sizeof(float));
    memcpy(copy, v, (size_t)numel * sizeof(float));
    return copy;
}

/* Rows (first dimension) of the tensor `name` of st. */
static inline int64_t golden_rows(const SafeTensors *st, const char *name) {
    const Tensor *t = st_find(st, name);
    ck_assert_msg(t != NULL, "%s: no tensor %s", st->path, name);
    return t->shape[0];
}

/* "7 x 4 x 16": the shape of `name` in st, for report lines. */
static inline const char *golden_dims(const SafeTensors *st, const char *name, char *buf, size_t len) {
    const Tensor *t = st_find(st, name);
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; t && i < t->ndim && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? " x " : "", (long long)t->shape[i]);
    return buf;
}

/* compare_f32 of got against the tensor `name` of st (its report line printed). */
static inline bool golden_check(const SafeTensors *st, const char *name, const float *got, int64_t numel,
                                double atol, double rtol) {
    char shape[64];
    return compare_f32(name, golden_dims(st, name, shape, sizeof shape), got, golden_f32(st, name, numel),
                       numel, atol, rtol, NULL);
}

/* A demo's --dump against the golden: every tensor of dump that the golden has, looked
 * up first as "<chapter>.<name>" (what that chapter's demo computes on its own input:
 * ch04.*, ch05.*, ch06.* in reference/README.md) and else as "<name>", must have the
 * golden's shape and values. The names found in neither are printed (the test checks
 * those its own way); *compared (if not NULL) receives how many were compared. */
static inline bool golden_check_dump(const SafeTensors *dump, const SafeTensors *golden, const char *chapter,
                                     double atol, double rtol, int *compared) {
    bool ok = true;
    int n = 0;
    for (int i = 0; i < dump->count; i++) {
        const Tensor *t = &dump->tensors[i];
        char name[256];
        snprintf(name, sizeof name, "%s.%s", chapter, t->name);
        const Tensor *want = st_find(golden, name);
        if (!want) want = st_find(golden, t->name);
        if (!want) {
            printf("--   %s: not in the golden\n", t->name);
            continue;
        }
        char got_shape[64], want_shape[64];
        golden_dims(dump, t->name, got_shape, sizeof got_shape);
        golden_dims(golden, want->name, want_shape, sizeof want_shape);
        if (strcmp(got_shape, want_shape) != 0 || t->dtype != DTYPE_F32) {
            printf("FAIL %s: shape %s (%s), golden %s has %s\n", t->name, got_shape, dtype_name(t->dtype),
                   want->name, want_shape);
            ok = false;
            continue;
        }
        snprintf(name, sizeof name, "%s (golden %s)", t->name, want->name);
        ok &= compare_f32(name, got_shape, t->data, want->data, t->numel, atol, rtol, NULL);
        n++;
    }
    if (compared) *compared = n;
    return ok;
}

/* A demo run on the tiny checkpoint with its stdout and its --dump file: what the
 * tests of the chapter 3–6 demos start from (demo and extra_args as demo_run_tiny,
 * tests/demo_output.h; the dump goes to a file of its own under /tmp). */
typedef struct {
    char dump_path[256];
    char *out;          /* the demo's stdout */
    SafeTensors dumped; /* its --dump file */
} DemoRun;

static inline void demo_run_open(DemoRun *r, const char *demo, const char *extra_args) {
    const char *name = strrchr(demo, '/');
    snprintf(r->dump_path, sizeof r->dump_path, "/tmp/test_%s.%d.safetensors", name ? name + 1 : demo,
             (int)getpid());
    r->out = demo_run_tiny(demo, extra_args, r->dump_path);
    ck_assert_msg(r->out != NULL, "the demo failed");
    Error err;
    ck_assert_msg(st_open(&r->dumped, r->dump_path, &err), "%s", err.msg);
}

static inline void demo_run_close(DemoRun *r) {
    st_close(&r->dumped);
    unlink(r->dump_path);
    free(r->out);
    r->out = NULL;
}

#endif
