/* fuzz_state_load — a state file from anywhere: state_load (workbook/statefile.h)
 * into the run state of a small model, then one more token through the model.
 *
 * The model is written once per process into a folder of its own: the tiny
 * architecture (LLLF, 4 layers) with a vocabulary of 64 and a context of 48, so a
 * state is a few kilobytes. A valid state B of it (5 tokens read, a sampled
 * generator) is saved there too. The first byte of an input says what file it
 * stands for:
 *
 *   'P'   B with patches: records of [offset: 2 bytes LE, taken modulo B's size]
 *         [count: 1 byte][count bytes written there]; a count of 0 cuts the file
 *         at the offset. "P" alone is B itself.
 *   'J'   the rest is the header (JSON): its 8-byte length, it, then B's data area.
 *   other the whole input is the file.
 *
 * So the seeds are text ("P", B's header), and the fuzzer starts from a valid
 * state rather than having to find safetensors by itself.
 *
 * A refusal must be one line naming the file, and leave the state empty. A state
 * that loads must keep statefile.h's promises: the tokens read are s->pos, each an
 * id of the vocabulary; the KV caches hold that many rows; every number of the
 * state is finite; the generator is not 0. Then one more token is read and a next
 * one sampled, which must give an id or -1 (non-finite logits), never anything
 * undefined (the sanitizers watch the layers on whatever finite numbers the file
 * held).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "qwen/model.h"
#include "qwen/sample.h"
#include "tests/fuzz.h"
#include "workbook/statefile.h"
#include "workbook/synthetic.h"

static const char *const FILES[] = {"config.json",
                                    "generation_config.json",
                                    "model.safetensors.index.json",
                                    "model.safetensors-00001-of-00001.safetensors",
                                    "base.state",
                                    NULL};

static Model model;
static RunState run;
static unsigned char *base; /* B: a valid state of the model */
static size_t base_size;

static void setup(void) {
    if (base) return;
    const char *dir = fuzz_scratch_dir("fuzz_state_load", FILES);
    SynthOptions o = {.n_shards = 1};
    synth_config_tiny(&o.config);
    o.config.vocab_size = 64;
    o.config.max_position_embeddings = 48;
    Error err;
    FUZZ_CHECK(synth_write(dir, &o, &err), "%s", err.msg);
    FUZZ_CHECK(model_open(&model, dir, &err), "%s", err.msg);
    run_init(&run, &model, 8);
    const int ids[5] = {3, 14, 15, 9, 26};
    FUZZ_CHECK(model_forward(&model, &run, ids, 5, NULL, &err), "%s", err.msg);
    TokenIds seen = {0};
    for (int i = 0; i < 5; i++) tok_ids_push(&seen, ids[i]);
    char *path = path_join(dir, "base.state");
    FUZZ_CHECK(state_save(path, &model, &run, &seen, 0x123456789ABCDEFull, &err), "%s", err.msg);
    base = (unsigned char *)read_file(path, &base_size, &err);
    FUZZ_CHECK(base, "%s", err.msg);
    free(path);
    tok_ids_free(&seen);
    mem_set_limit(256u << 20); /* a token count the context allows is still held to a limit */
}

/* The file an input stands for (see the top), newly allocated. */
static unsigned char *file_of(const uint8_t *data, size_t size, size_t *len) {
    unsigned char *f;
    if (size >= 1 && data[0] == 'P') {
        f = xmalloc(base_size);
        memcpy(f, base, base_size);
        *len = base_size;
        for (size_t i = 1; i + 3 <= size;) {
            size_t at = (data[i] | (size_t)data[i + 1] << 8) % base_size, n = data[i + 2];
            i += 3;
            if (n == 0) {
                if (at < *len) *len = at;
                continue;
            }
            for (size_t k = 0; k < n && i < size; k++, i++)
                if (at + k < *len) f[at + k] = data[i];
        }
        return f;
    }
    if (size >= 1 && data[0] == 'J') {
        uint64_t header = 0;
        for (int i = 7; i >= 0; i--) header = header << 8 | base[i];
        size_t json = size - 1, rest = base_size - 8 - (size_t)header;
        *len = 8 + json + rest;
        f = xmalloc(*len);
        for (int i = 0; i < 8; i++) f[i] = (unsigned char)((uint64_t)json >> (8 * i));
        memcpy(f + 8, data + 1, json);
        memcpy(f + 8 + json, base + 8 + header, rest);
        return f;
    }
    f = xmalloc(size ? size : 1);
    if (size) memcpy(f, data, size);
    *len = size;
    return f;
}

static void check_finite(const float *v, int64_t n, const char *what) {
    for (int64_t i = 0; i < n; i++)
        FUZZ_CHECK(isfinite(v[i]), "%s[%lld] = %g was loaded", what, (long long)i, v[i]);
}

/* statefile.h's promises for a state that loaded. */
static void check_loaded(const TokenIds *seen, uint64_t rng) {
    const Config *c = &model.ck.config;
    FUZZ_CHECK(run.pos == seen->n, "pos %lld, %lld tokens", (long long)run.pos, (long long)seen->n);
    FUZZ_CHECK(run.pos <= run.max_pos, "%lld tokens in a context of %lld", (long long)run.pos,
               (long long)run.max_pos);
    for (int64_t i = 0; i < seen->n; i++)
        FUZZ_CHECK(seen->ids[i] >= 0 && seen->ids[i] < c->vocab_size, "token %lld is %d", (long long)i,
                   seen->ids[i]);
    FUZZ_CHECK(rng != 0, "a generator of 0");
    check_finite(run.logits, c->vocab_size, "logits");
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const LayerState *l = &run.layers[i];
        if (model.layers[i].type == LAYER_FULL_ATTENTION) {
            FUZZ_CHECK(l->kv.len == run.pos, "layer %d: %d KV rows for %lld tokens", i, l->kv.len,
                       (long long)run.pos);
            for (int h = 0; h < l->kv.n_kv_heads; h++) {
                check_finite(kv_keys(&l->kv, h), (int64_t)l->kv.len * l->kv.head_dim, "kv.k");
                check_finite(kv_values(&l->kv, h), (int64_t)l->kv.len * l->kv.head_dim, "kv.v");
            }
        } else {
            const DeltaNetDims *d = &model.layers[i].linear_attn.d;
            FUZZ_CHECK(l->dn.n_tokens == run.pos, "layer %d: the tables have seen %lld tokens", i,
                       (long long)l->dn.n_tokens);
            check_finite(l->dn.conv, (int64_t)(d->kernel - 1) * d->conv_dim, "conv");
            check_finite(l->dn.S, (int64_t)d->n_v * d->dk * d->dv, "tables");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    size_t len;
    unsigned char *file = file_of(data, size, &len);
    const char *path = fuzz_memfile("fuzz_state_load", file, len);
    free(file);
    TokenIds seen = {0};
    uint64_t rng = 0;
    Error err = {{0}};
    if (!state_load(path, &model, &run, &seen, &rng, &err)) {
        fuzz_check_error(&err, path);
        FUZZ_CHECK(run.pos == 0 && seen.n == 0, "a refused state left %lld tokens", (long long)run.pos);
        tok_ids_free(&seen);
        return 0;
    }
    check_loaded(&seen, rng);
    if (run.pos < run.max_pos) { /* one more token, and the next one drawn from what it gives */
        int id = seen.n ? seen.ids[0] : 0;
        FUZZ_CHECK(model_forward(&model, &run, &id, 1, NULL, &err), "%s", err.msg);
        Sampler smp;
        sampler_init(&smp, model.ck.config.vocab_size, 0.8f, 0, 0.9f, 1);
        smp.rng = rng;
        int next = sample_next(&smp, run.logits);
        FUZZ_CHECK(next >= -1 && next < model.ck.config.vocab_size, "sampled %d", next);
        FUZZ_CHECK((next == -1) == (first_nonfinite(run.logits, smp.vocab) >= 0), "-1 for finite logits");
        sampler_free(&smp);
    }
    tok_ids_free(&seen);
    return 0;
}
