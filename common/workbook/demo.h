/* demo.h — what the chapter demos share: their command line, the checkpoint they
 * were pointed at, and the tensors they --dump.
 *
 * A demo's main() reads like this:
 *
 *     DemoArgs args = demo_parse_args(argc, argv, true, usage, NULL, NULL);
 *     Model m;
 *     demo_open_model(&m, args.model);
 *     DumpSet dump;
 *     dump_init(&dump);
 *     float *x = dump_buffer(&dump, "embed", 2, (int64_t[]){T, H});   // [T, H]
 *     ...
 *     dump_write(&dump, args.dump);   // nothing without --dump
 *     dump_free(&dump);
 *
 * Every failure is one line on stderr and exit status 1 (die()).
 *
 * Languages, the same in every program: what the book prints is Chinese, like the
 * book — stdout, the figures' titles, axis labels and keys, and the notices beside
 * them on stderr (a figure written or skipped, progress, which ids a demo runs on,
 * a --dump file written, a run's summary). --help and error messages are English:
 * they name files, tensors, config keys and flags, which are English words anyway.
 */
#ifndef DEMO_H
#define DEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "plot.h"
#include "qwen/model.h"
#include "qwen/tokenizer.h"
#include "qwen/safetensors.h"

/* ---- the command line ----------------------------------------------------- */

/* The flags every demo that runs on weights takes. */
typedef struct {
    const char *model; /* --model DIR (NULL: $QWEN35_MODEL, models/, the HF cache) */
    const char *ids;   /* --ids 1,2,3 (NULL: the book's sentence; sentence.h) */
    const char *dump;  /* --dump FILE (NULL: no dump); checked to be writable when parsed */
    PlotMode plot;     /* --plot=png|ascii|none (PLOT_PNG unless given) */
} DemoArgs;

/* The --model line of every demo's --help (option names in a 19-character column). */
#define DEMO_HELP_MODEL                                                                                      \
    "  --model DIR        the model folder (else $QWEN35_MODEL, models/Qwen3.5-0.8B,\n"                      \
    "                     or the Hugging Face cache)\n"

/* The --max-memory lines of every demo's --help. */
#define DEMO_HELP_MAX_MEMORY                                                                                 \
    "  --max-memory SIZE  the most memory the run may take, e.g. 8G (default: half of\n"                     \
    "                     this machine's); a request that needs more is refused first\n"

/* A demo's own flags: true when argv[*i] is one of them (take a value with demo_value). */
typedef bool (*DemoFlag)(void *ctx, int argc, char **argv, int *i);

/* Reads --help (usage on stdout, exit 0), --model, --ids, --dump, --max-memory and,
 * when with_plot, --plot; hands every other argument to extra (may be NULL); anything
 * left is an error. A --dump FILE that cannot be written is an error here, before
 * the run (demo_check_dump); --max-memory sets the memory limit (mem_set_limit). */
DemoArgs demo_parse_args(int argc, char **argv, bool with_plot, void (*usage)(FILE *), DemoFlag extra,
                         void *ctx);

/* --help or -h. */
bool demo_is_help(const char *arg);

/* "--name=value" or "--name value": the value (advancing *i past it), or NULL when
 * argv[*i] is not --name. A --name without its value is an error. */
const char *demo_value(const char *name, int argc, char **argv, int *i);

/* "png", "ascii" or "none" (the --plot flag of every demo with a figure). */
PlotMode demo_plot_mode(const char *value);

/* The error for an argument no rule took. */
void demo_unknown(const char *arg) __attribute__((noreturn));

/* --max-memory SIZE: sets the memory limit (dies on a size that is not one). */
void demo_max_memory(const char *value);

/* Dies with one line unless path can be written (check_writable): every demo calls
 * it for --dump FILE while it reads its flags, so a typo in the path costs nothing. */
void demo_check_dump(const char *path);

/* Dies with one line ("WHAT would need about 5.2 GB of memory (...), more than the
 * limit of ...") unless bytes fit the memory limit. A demo calls it with its
 * estimate of everything a request (T tokens, a tensor) will allocate, before it
 * allocates any of it. */
void demo_require_memory(uint64_t bytes, const char *what);

/* The units the book prints a state's memory in: KB = 1024 bytes, MB = 1024 KB. */
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* Bytes of n float32 numbers, saturating (util.h's size_mul). */
static inline uint64_t floats(uint64_t n) { return size_mul(n, sizeof(float)); }

/* ---- the checkpoint ----------------------------------------------------------- */

/* Finds the model (--model value or NULL; see model_find) and opens it, every
 * weight checked against config.json (model_open), and notes whether make_synthetic
 * wrote it (demo_note_checkpoint). */
void demo_open_model(Model *m, const char *model_flag);

/* A checkpoint that make_synthetic wrote (weights.h's SYNTHETIC_MARK) holds random
 * weights (or zeros): every number the weights decide, and every generated word, means
 * nothing, and a reader must be told so, once. demo_note_checkpoint remembers the mark
 * and has the notice said on stderr when the run ends well (never after an error line,
 * which stays the one line of a failed run); a demo whose output goes on and on (a
 * chat) says it at the start instead, with demo_synthetic_notice. */
void demo_note_checkpoint(const Model *m);
void demo_synthetic_notice(void);

/* What the chapter 3–5 demos start from: their flags, the model, and the token ids
 * they run on with the words their first line names them by (sentence_ids: --ids,
 * else the book's sentence, else the reference ids). */
typedef struct {
    DemoArgs args;
    Model m;
    TokenIds ids;
    char label[256];
} SentenceDemo;

/* Parses the flags (as demo_parse_args), opens the model and finds the ids; one line
 * and an exit on any error. demo_end_sentence releases what it opened. */
void demo_start_sentence(SentenceDemo *d, int argc, char **argv, bool with_plot, void (*usage)(FILE *));
void demo_end_sentence(SentenceDemo *d);

/* ---- --dump ------------------------------------------------------------------- */

/* Named float32 buffers that the demo fills and --dump writes as safetensors, so
 * anyone can compare them with PyTorch (names follow reference/qwen35_reference.py
 * where they mean the same thing). */
typedef struct {
    StWriter writer;
    float **buffers;
    int count;
} DumpSet;

void dump_init(DumpSet *d);
/* A zeroed buffer of shape [shape[0], ..., shape[ndim-1]], registered under name. */
float *dump_buffer(DumpSet *d, const char *name, int ndim, const int64_t *shape);
/* Registers a buffer the demo owns (it must stay valid until dump_write). */
void dump_add(DumpSet *d, const char *name, int ndim, const int64_t *shape, const float *values);
/* Writes every registered buffer to path (nothing when path is NULL) and says so on
 * stderr; first checks that the file system has room for it. */
void dump_write(const DumpSet *d, const char *path);
/* Frees the buffers dump_buffer made. */
void dump_free(DumpSet *d);

#endif
