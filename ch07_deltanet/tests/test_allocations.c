/* test_allocations — a forward pass allocates nothing.
 *
 * Every block works in buffers allocated once, before the first pass (the block's
 * *_acts_init, the run state's run_init); the KV cache, the attention scores and the
 * RoPE table grow by doubling, so only a call that takes them past their room
 * allocates. This test holds the library to it: it is linked with
 * -Wl,--wrap=malloc,... (the Makefile), so every call the library makes to malloc,
 * calloc, realloc, posix_memalign, aligned_alloc or strdup goes through the
 * counters below, and each forward pass — the MLP, attention, the Gated DeltaNet,
 * the output head and the whole model; one token and 16 (the batched kernels'
 * widened panels start at 12); the fast path on the tiny and the mid checkpoints, the
 * readable one (slow) on tiny — must leave them at 0. The same on 8-bit weights
 * (model_quantize): the blocks in the run state's buffers, whose quantized input
 * (RunState.xq) is allocated once with them, and the whole model.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/model.h"
#include "tests/golden_fixture.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* ---- the counters --------------------------------------------------------------- */

static long allocations;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
char *__real_strdup(const char *s);

void *__wrap_malloc(size_t n) {
    allocations++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size) {
    allocations++;
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n) {
    allocations++;
    return __real_realloc(p, n);
}
int __wrap_posix_memalign(void **p, size_t align, size_t n) {
    allocations++;
    return __real_posix_memalign(p, align, n);
}
void *__wrap_aligned_alloc(size_t align, size_t n) {
    allocations++;
    return __real_aligned_alloc(align, n);
}
char *__wrap_strdup(const char *s) {
    allocations++;
    return __real_strdup(s);
}

/* ---- the passes ------------------------------------------------------------------- */

static GoldenFixture fx[GOLDEN_SIZES];
static void open_all(void) {
    for (int i = 0; i < GOLDEN_SIZES; i++) golden_fixture_open_size(&fx[i], (GoldenSize)i);
}
static void close_all(void) {
    for (int i = 0; i < GOLDEN_SIZES; i++) golden_fixture_close(&fx[i]);
}

enum { T_MAX = 16 };
static const int lengths[] = {1, T_MAX};

/* Input for T_MAX tokens: numbers of the size a normed residual stream has. */
static float *input(int hidden) {
    float *x = xmalloc(sizeof(float) * T_MAX * (size_t)hidden);
    for (int i = 0; i < T_MAX * hidden; i++) x[i] = (float)((i * 7919) % 201 - 100) / 100.0f;
    return x;
}

#define NO_ALLOCATION(what, call)                                                                            \
    do {                                                                                                     \
        allocations = 0;                                                                                     \
        call;                                                                                                \
        ck_assert_msg(allocations == 0, "%s: %ld allocation(s) during the pass", what, allocations);         \
    } while (0)

START_TEST(blocks_allocate_nothing) {
    const Model *m = &fx[_i].model;
    const Config *c = &m->ck.config;
    int H = c->hidden_size;
    float *x = input(H), *y = xmalloc(sizeof(float) * T_MAX * (size_t)H);
    float *logits = xmalloc(sizeof(float) * T_MAX * (size_t)c->vocab_size);
    const Layer *dn_layer = NULL, *attn_layer = NULL;
    for (int i = 0; i < c->num_hidden_layers; i++)
        *(m->layers[i].type == LAYER_FULL_ATTENTION ? &attn_layer : &dn_layer) = &m->layers[i];
    ck_assert(dn_layer && attn_layer);

    MlpActs ma;
    mlp_acts_init(&ma, &dn_layer->mlp.d, T_MAX);
    DeltaNetActs da;
    DeltaNetState ds;
    dn_acts_init(&da, &dn_layer->linear_attn.d, T_MAX);
    dn_state_init(&ds, &dn_layer->linear_attn.d);
    AttnActs aa;
    KVCache kv;
    RopeTable rope;
    attn_acts_init(&aa, &attn_layer->self_attn.d, T_MAX);
    kv_init(&kv, &attn_layer->self_attn.d, 2 * T_MAX);
    rope_init_config(&rope, c, 2 * T_MAX);
    /* the scores grow with the positions read: one pass over T_MAX positions makes the room */
    attn_forward(&attn_layer->self_attn, &aa, x, T_MAX, &kv, &rope, y, PATH_FAST);

    Path last = _i == GOLDEN_TINY ? PATH_READABLE : PATH_FAST;
    for (int path = PATH_FAST; path <= (int)last; path++)
        for (size_t l = 0; l < ARRAY_LEN(lengths); l++) {
            int T = lengths[l];
            char what[64];
            snprintf(what, sizeof what, "mlp_forward T=%d %s", T, path ? "readable" : "fast");
            NO_ALLOCATION(what, mlp_forward(&dn_layer->mlp, &ma, x, T, y, (Path)path));
            snprintf(what, sizeof what, "dn_forward T=%d %s", T, path ? "readable" : "fast");
            NO_ALLOCATION(what, dn_forward(&dn_layer->linear_attn, &da, x, T, &ds, y, (Path)path));
            kv_reset(&kv); /* T_MAX positions at most: the room is there */
            snprintf(what, sizeof what, "attn_forward T=%d %s", T, path ? "readable" : "fast");
            NO_ALLOCATION(what, attn_forward(&attn_layer->self_attn, &aa, x, T, &kv, &rope, y, (Path)path));
            snprintf(what, sizeof what, "emb_logits T=%d %s", T, path ? "readable" : "fast");
            NO_ALLOCATION(what, emb_logits(&m->head, x, T, logits, (Path)path));
        }
    mlp_acts_free(&ma);
    dn_acts_free(&da);
    dn_state_free(&ds);
    attn_acts_free(&aa);
    kv_free(&kv);
    rope_free(&rope);
    free(x), free(y), free(logits);
}
END_TEST

/* The whole model: once a text has been read far enough for the caches to have room
 * (prefill T_MAX, then decode up to 2·T_MAX − 1 positions: the KV cache holds 2·T_MAX
 * rows after its first doubling), reading it again from the start and decoding on
 * allocate nothing. */
START_TEST(model_allocates_nothing) {
    const Model *m = &fx[_i].model;
    int ids[2 * T_MAX];
    for (int t = 0; t < 2 * T_MAX; t++) ids[t] = (t * 37) % m->ck.config.vocab_size;
    Path last = _i == GOLDEN_TINY ? PATH_READABLE : PATH_FAST;
    for (int path = PATH_FAST; path <= (int)last; path++) {
        RunState s;
        run_init(&s, m, T_MAX);
        s.path = (Path)path;
        Error err;
        ck_assert(model_forward(m, &s, ids, 2 * T_MAX - 1, NULL, &err)); /* the caches' room */
        run_reset(&s);
        bool ok; /* asked after the count: Check's own assertions allocate */
        NO_ALLOCATION(path ? "model prefill, readable" : "model prefill, fast",
                      ok = model_forward(m, &s, ids, T_MAX, NULL, &err));
        ck_assert(ok);
        for (int t = T_MAX; t < 2 * T_MAX - 1; t++) {
            NO_ALLOCATION(path ? "model decode, readable" : "model decode, fast",
                          ok = model_forward(m, &s, ids + t, 1, NULL, &err));
            ck_assert(ok);
        }
        run_free(&s);
    }
}
END_TEST

/* The same on 8-bit weights: each block, in the buffers the run state made for them
 * (which point the blocks at its quantized input), and the whole model, prefill and
 * decode. The model is opened and packed here (packing allocates: that is not a pass). */
START_TEST(q8_allocates_nothing) {
    Model m;
    Error err;
    ck_assert_msg(model_open(&m, fx[_i].model.ck.dir, &err), "%s", err.msg);
    ck_assert_msg(model_quantize(&m, QUANT_Q8_0, &err), "%s", err.msg);
    const Config *c = &m.ck.config;
    int H = c->hidden_size;
    float *x = input(H), *y = xmalloc(sizeof(float) * T_MAX * (size_t)H);
    const Layer *dn_layer = NULL, *attn_layer = NULL;
    int dn_i = 0, attn_i = 0;
    for (int i = 0; i < c->num_hidden_layers; i++)
        if (m.layers[i].type == LAYER_FULL_ATTENTION)
            attn_layer = &m.layers[i], attn_i = i;
        else
            dn_layer = &m.layers[i], dn_i = i;
    int ids[2 * T_MAX];
    for (int t = 0; t < 2 * T_MAX; t++) ids[t] = (t * 37) % c->vocab_size;
    Path last = _i == GOLDEN_TINY ? PATH_READABLE : PATH_FAST;
    for (int path = PATH_FAST; path <= (int)last; path++) {
        RunState s;
        run_init(&s, &m, T_MAX);
        s.path = (Path)path;
        ck_assert(model_forward(&m, &s, ids, 2 * T_MAX - 1, NULL, &err)); /* the caches' room */
        for (size_t l = 0; l < ARRAY_LEN(lengths); l++) {
            int T = lengths[l];
            char what[80];
            const char *p = path ? "readable" : "fast";
            snprintf(what, sizeof what, "8-bit mlp_forward T=%d %s", T, p);
            NO_ALLOCATION(what, mlp_forward(&dn_layer->mlp, &s.mlp, x, T, y, (Path)path));
            snprintf(what, sizeof what, "8-bit dn_forward T=%d %s", T, p);
            NO_ALLOCATION(what,
                          dn_forward(&dn_layer->linear_attn, &s.dn, x, T, &s.layers[dn_i].dn, y, (Path)path));
            kv_reset(&s.layers[attn_i].kv);
            snprintf(what, sizeof what, "8-bit attn_forward T=%d %s", T, p);
            NO_ALLOCATION(what, attn_forward(&attn_layer->self_attn, &s.attn, x, T, &s.layers[attn_i].kv,
                                             &s.rope, y, (Path)path));
        }
        run_reset(&s);
        bool ok; /* asked after the count: Check's own assertions allocate */
        NO_ALLOCATION(path ? "8-bit model prefill, readable" : "8-bit model prefill, fast",
                      ok = model_forward(&m, &s, ids, T_MAX, NULL, &err));
        ck_assert(ok);
        for (int t = T_MAX; t < 2 * T_MAX - 1; t++) {
            NO_ALLOCATION(path ? "8-bit model decode, readable" : "8-bit model decode, fast",
                          ok = model_forward(&m, &s, ids + t, 1, NULL, &err));
            ck_assert(ok);
        }
        run_free(&s);
    }
    free(x), free(y);
    model_close(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("allocations");
    TCase *tc = tcase_create("allocations");
    tcase_add_unchecked_fixture(tc, open_all, close_all);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, blocks_allocate_nothing, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, model_allocates_nothing, GOLDEN_TINY, GOLDEN_SIZES);
    tcase_add_loop_test(tc, q8_allocates_nothing, GOLDEN_TINY, GOLDEN_SIZES);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
