/* demo.c — the chapter demos' shared command line, checkpoint and --dump (see demo.h). */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sentence.h"
#include "util.h"

bool demo_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

const char *demo_value(const char *name, int argc, char **argv, int *i) {
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0) return NULL;
    if (arg[len] == '=') return arg + len + 1;
    if (arg[len] != '\0') return NULL;
    if (*i + 1 >= argc) die("%s needs a value (see --help)", name);
    return argv[++*i];
}

PlotMode demo_plot_mode(const char *value) {
    if (strcmp(value, "png") == 0) return PLOT_PNG;
    if (strcmp(value, "ascii") == 0) return PLOT_ASCII;
    if (strcmp(value, "none") == 0) return PLOT_NONE;
    die("--plot is png, ascii or none, got '%s'", value);
}

void demo_unknown(const char *arg) { die("unknown option '%s' (see --help)", arg); }

void demo_max_memory(const char *value) {
    Error err;
    uint64_t bytes;
    if (!parse_size("--max-memory", value, &bytes, &err)) die("%s", err.msg);
    mem_set_limit(bytes);
}

void demo_check_dump(const char *path) {
    Error err;
    if (!check_writable(path, &err)) die("--dump: %s", err.msg);
}

void demo_require_memory(uint64_t bytes, const char *what) {
    Error err;
    if (!mem_check(bytes, what, &err)) die("%s", err.msg);
}

DemoArgs demo_parse_args(int argc, char **argv, bool with_plot, void (*usage)(FILE *), DemoFlag extra,
                         void *ctx) {
    DemoArgs a = {.plot = PLOT_PNG};
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (demo_is_help(argv[i])) {
            usage(stdout);
            exit(0);
        } else if ((v = demo_value("--model", argc, argv, &i))) {
            a.model = v;
        } else if ((v = demo_value("--ids", argc, argv, &i))) {
            a.ids = v;
        } else if ((v = demo_value("--dump", argc, argv, &i))) {
            a.dump = v;
        } else if ((v = demo_value("--max-memory", argc, argv, &i))) {
            demo_max_memory(v);
        } else if (with_plot && (v = demo_value("--plot", argc, argv, &i))) {
            a.plot = demo_plot_mode(v);
        } else if (!extra || !extra(ctx, argc, argv, &i)) {
            demo_unknown(argv[i]);
        }
    }
    if (a.dump) demo_check_dump(a.dump); /* before the run, not after it */
    return a;
}

void demo_open_model(Model *m, const char *model_flag) {
    Error err;
    char *dir = model_find(model_flag, NULL, &err);
    if (!dir) die("%s", err.msg);
    if (!model_open(m, dir, &err)) die("%s", err.msg);
    free(dir);
    demo_note_checkpoint(m);
}

/* The mark of the checkpoint opened: NULL, or what its weights are, in words. */
static const char *g_synthetic;

void demo_synthetic_notice(void) {
    static bool said;
    if (!g_synthetic || said) return;
    said = true;
    fprintf(stderr,
            "%s: 这个检查点是 make_synthetic 写的，%s：由权重决定的数和生成的文字都没有意义"
            "（只由形状决定的行和真实的模型一样）\n",
            program_name(), g_synthetic);
}

static void notice_at_exit(void) {
    if (!dying()) demo_synthetic_notice();
}

void demo_note_checkpoint(const Model *m) {
    const char *mark = m->ck.synthetic;
    if (!mark || g_synthetic) return;
    /* the file's own words are not printed: a known mark, or a plain statement */
    g_synthetic = strcmp(mark, "all zeros") == 0 ? "权重全是 0" : "权重是随机数";
    atexit(notice_at_exit);
}

void demo_start_sentence(SentenceDemo *d, int argc, char **argv, bool with_plot, void (*usage)(FILE *)) {
    Error err;
    d->args = demo_parse_args(argc, argv, with_plot, usage, NULL, NULL);
    demo_open_model(&d->m, d->args.model);
    if (!sentence_ids(&d->m.ck, d->args.ids, &d->ids, d->label, sizeof d->label, &err)) die("%s", err.msg);
}

void demo_end_sentence(SentenceDemo *d) {
    tok_ids_free(&d->ids);
    model_close(&d->m);
}

void dump_init(DumpSet *d) {
    memset(d, 0, sizeof *d);
    stw_init(&d->writer);
}

float *dump_buffer(DumpSet *d, const char *name, int ndim, const int64_t *shape) {
    uint64_t n = 1;
    for (int i = 0; i < ndim; i++) n = size_mul(n, (uint64_t)shape[i]);
    float *values = xcalloc((size_t)n, sizeof(float)); /* refused above the memory limit */
    stw_add(&d->writer, name, DTYPE_F32, ndim, shape, values);
    d->buffers = xrealloc(d->buffers, (size_t)(d->count + 1) * sizeof *d->buffers);
    return d->buffers[d->count++] = values;
}

void dump_add(DumpSet *d, const char *name, int ndim, const int64_t *shape, const float *values) {
    stw_add(&d->writer, name, DTYPE_F32, ndim, shape, values);
}

void dump_write(const DumpSet *d, const char *path) {
    if (!path) return;
    Error err;
    if (!check_disk_space(path, stw_data_bytes(&d->writer), &err) || !stw_write(&d->writer, path, NULL, &err))
        die("%s", err.msg);
    fprintf(stderr, "%s: %d 个张量（float32）已写到 %s\n", program_name(), d->writer.count, path);
}

void dump_free(DumpSet *d) {
    for (int i = 0; i < d->count; i++) free(d->buffers[i]);
    free(d->buffers);
    stw_free(&d->writer);
    memset(d, 0, sizeof *d);
}
