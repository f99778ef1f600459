/* sentence.h — what the chapter demos feed the model: the book's example sentence.
 *
 * From chapter 3 on, the book runs each new part on the same short sentence,
 * 今天天气不错，我们去公园 ("nice weather today, let's go to the park"), which
 * the Qwen3.5 tokenizer cuts into 6 tokens by the book's count (Qwen3's file, which
 * the tests run on, gives 7). A demo gets its token ids in this order:
 *
 *   1. --ids 1,2,3 on the command line (also accepts "[1, 2, 3]", the JSON array
 *      the chapter-2 demo prints with --encode): no tokenizer needed;
 *   2. the sentence through the checkpoint's tokenizer.json (chapter 2's tokenizer),
 *      when the folder has one;
 *   3. otherwise (e.g. the tiny test checkpoint, which has no tokenizer.json) the 7 fixed ids the
 *      PyTorch reference uses (reference/qwen35_reference.py), with a notice on
 *      stderr — the numbers are then those of the golden files.
 *
 * Then the ids become vectors by looking up their rows of the embedding table
 * (chapter 2, embedding.h): x[t] = E[ids[t]], [T, hidden].
 */
#ifndef SENTENCE_H
#define SENTENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "qwen/model.h"
#include "qwen/tokenizer.h"
#include "util.h"

/* The book's example sentence. */
#define BOOK_SENTENCE "今天天气不错，我们去公园"

/* The token ids reference/qwen35_reference.py runs the tiny checkpoint on. */
#define REFERENCE_IDS                                                                                        \
    { 3, 141, 592, 7, 1000, 59, 288 }

#define SENTENCE_MAX_TOKENS 65536

/* Parses "1,2,3" or "[1, 2, 3]" into out (which starts empty): at least one id,
 * at most SENTENCE_MAX_TOKENS, each a run of decimal digits in 0 .. vocab − 1,
 * separated by commas, with spaces anywhere between. Nothing else: no empty
 * item ("1,,2", "1,"), no sign, no other separator. vocab 0 leaves the range
 * to the caller (ids up to INT_MAX − 1 pass). Messages start with flag
 * (ids_parse: "--ids"); every demo that reads ids from the command line uses
 * this one parser. */
bool ids_parse_as(const char *flag, const char *text, int vocab, TokenIds *out, Error *err);
bool ids_parse(const char *text, int vocab, TokenIds *out, Error *err);

/* The ids a demo runs on (rules 1–3 above); ids_flag is the --ids value or NULL.
 * label receives where they came from, in the words of the demo's first line
 * ("「今天天气不错，我们去公园」的 6 个 token"). */
bool sentence_ids(const Checkpoint *ck, const char *ids_flag, TokenIds *out, char *label, size_t label_size,
                  Error *err);

/* "[3, 141, 592]" into buf (Python's list repr), cut with "...]" if it does not fit. */
const char *ids_str(const int *ids, int n, char *buf, int size);

/* x[t] = the embedding row of ids[t], widened to float32 (embedding.h).  x: [n, hidden]. */
bool sentence_embed(const Model *m, const int *ids, int n, float *x, Error *err);

/* What the chapter demos feed one layer (chapters 3–7): the embedding rows
 * (embed: [n, hidden]) through that layer's input_layernorm (x: [n, hidden]). */
bool sentence_layer_input(const Model *m, const int *ids, int n, int layer, float *embed, float *x,
                          Error *err);

#endif
