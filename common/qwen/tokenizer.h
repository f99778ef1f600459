/* tokenizer.h — text to token ids and back, as Hugging Face's tokenizer does it.
 *
 * The model never sees text. It sees ids: rows of the embedding table (see
 * embedding.h). `今天天气不错，我们去公园` becomes
 *
 *     今天 | 天气 | 不错 | ， | 我们 | 去 | 公园      (7 ids with Qwen3's file, on
 *                                                   which the tests run; the book
 *                                                   prints 6 for Qwen3.5's larger one)
 *
 * and if one id differs from what Hugging Face's tokenizer gives, every number
 * the later chapters print is wrong. So this module does not invent a
 * tokenizer: it reads the checkpoint's `tokenizer.json` and runs exactly the
 * pipeline that file describes, step by step (the steps are those of Hugging
 * Face's tokenizers library: https://huggingface.co/docs/tokenizers/pipeline):
 *
 *   1. Added tokens first. `<|im_start|>`, `<think>`, ... (special or not) are
 *      cut out of the text whole (longest match first) and become their ids
 *      directly; only the text between them goes on.
 *   2. Normalizer: NFC. "e" + U+0301 (combining acute) becomes "é" (U+00E9), so
 *      the same visible text always gives the same bytes. (utf8proc)
 *   3. Split: the file's regular expression cuts the text into pieces — words
 *      with their leading space, single digits, runs of punctuation, runs of
 *      whitespace. A merge never crosses a piece boundary.
 *   4. Byte level: every UTF-8 byte of a piece becomes one printable character
 *      (GPT-2's table: a space is shown as `Ġ`, a newline as `Ċ`), so the
 *      vocabulary covers every possible input with its 256 one-byte tokens.
 *   5. BPE: start from those single bytes and repeatedly merge the adjacent pair
 *      that comes first in the file's merge list, until no pair in the piece is
 *      in the list. Each resulting string is looked up in the vocabulary.
 *
 * Decoding runs step 4 backwards: token strings → bytes → UTF-8 text.
 *
 * The regex engine is Oniguruma, the one Hugging Face's Rust tokenizer compiles
 * the pattern with: the file's regex then means exactly what it means there, with
 * no rewriting (docs/tokenizer.md §2.3).
 *
 * The vocabulary (string -> id) and the merges ((left id, right id) -> rank)
 * are hash tables: a look-up never scans the 248k entries.
 *
 * The BPE keeps the piece as a linked list of symbols and the candidate merges
 * in a min-heap ordered by (merge rank, position), like the reference: each
 * merge costs O(log n), so a 550-character piece (Chinese without punctuation
 * is one piece) takes a few thousand heap steps instead of n² rescans.
 *
 * Supported: model type BPE (no byte fallback, no dropout, no subword prefix or
 * suffix), merges as "a b" strings or ["a", "b"] pairs, normalizer NFC or none,
 * pre-tokenizer Split(Regex, Isolated) + ByteLevel (no prefix space, no regex of
 * its own), decoder ByteLevel, added tokens without lstrip/rstrip/single_word.
 * Anything else is rejected when loading, with a message that names it. Ids are
 * never added around the text (no BOS): that is `add_special_tokens=False`, and
 * Qwen adds none anyway, so the post-processor is not read. The file's padding
 * and truncation settings (batch options) are ignored.
 */
#ifndef TOKENIZER_H
#define TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workbook/utf8.h"
#include "workbook/util.h"

/* A growing list of token ids. Start from {0}; tok_ids_free() releases it. The
 * counts are 64-bit: a list as long as a context of 2^31 tokens does not wrap. */
typedef struct {
    int *ids;
    int64_t n;
    int64_t cap;
} TokenIds;

void tok_ids_push(TokenIds *t, int id);
void tok_ids_free(TokenIds *t);

/* An entry of `added_tokens`: matched in the text as a whole, before the BPE. */
typedef struct {
    int id;
    char *content;   /* the text it stands for, e.g. "<|im_start|>" */
    int len;         /* bytes in content */
    bool special;    /* "special": true — control tokens such as <|im_end|> */
    bool normalized; /* matched in the NFC-normalized text instead of the raw text */
} AddedToken;

typedef struct TokTables TokTables; /* the hash tables, private to tokenizer.c */

typedef struct {
    char *path;          /* the file it was read from, for messages */
    int n_vocab;         /* entries in model.vocab (BPE tokens) */
    int n_merges;        /* entries in model.merges */
    int n_added;         /* entries in added_tokens */
    int n_ids;           /* largest id + 1; some ids below it may be unused */
    AddedToken *added;   /* [n_added] */
    bool nfc;            /* normalizer is NFC (else none) */
    bool ignore_merges;  /* a piece that is already a vocabulary entry is kept whole */
    char *split_regex;   /* the Split pre-tokenizer's pattern, as in the file */
    int byte_token[256]; /* id of the one-byte token for each byte value */
    TokTables *tables;
} Tokenizer;

/* A tokenizer.json may come from anywhere, so everything in it is checked when
 * it is loaded: every token and merge string must be non-empty UTF-8, ids must
 * be numbered from 0, no two entries may share an id or a string, and a file
 * with U+0000 in a string (which the JSON reader would cut short there) or of
 * more than TOK_MAX_FILE_BYTES is refused. Only a regular file is read: a
 * directory, a FIFO or a device is named as such, never waited on. */
#define TOK_MAX_FILE_BYTES (512 << 20)

/* Reads a tokenizer.json. On failure returns false with one line in err naming
 * the file and the problem (missing file, not a regular file, invalid JSON, not
 * a tokenizer, an unsupported model or step, a bad entry). */
bool tok_load(Tokenizer *tok, const char *path, Error *err);
/* The same from JSON text already in memory; name is used in messages. */
bool tok_load_json(Tokenizer *tok, const char *json, size_t len, const char *name, Error *err);
void tok_free(Tokenizer *tok);

/* How long a regex may take: the split regex comes from the file, and a crafted one
 * can make a backtracking engine take exponential time. So the text gets a budget of
 * backtracking steps and stack, growing with its length; a regex over it stops
 * encoding with an error naming the limit, and whatever the regex, encoding takes at
 * most about twice the budget. Qwen's regex needs a few steps per byte. Why these
 * numbers, and what stays unbounded: docs/tokenizer.md §2.6. */
#define TOK_REGEX_STEPS_PER_BYTE 64
#define TOK_REGEX_STEPS_BASE     4096
#define TOK_REGEX_FIRST_STEPS    8 /* a search's first limit, doubled until it is enough */
#define TOK_REGEX_STACK_PER_BYTE 2
#define TOK_REGEX_STACK_BASE     4096

/* The longest text tok_encode takes in one call (16 MiB). The BPE of one piece
 * needs about 50 bytes of memory per byte, so longer text is to be encoded in
 * parts (e.g. line by line). */
#define TOK_MAX_TEXT_BYTES (16 << 20)

/* Appends the ids of text[0..len) to out. Text must be UTF-8 (U+0000 included,
 * it is a character like any other): anything else is an error that gives the
 * offset of the first bad byte. Empty text adds no ids. Also an error: text
 * longer than TOK_MAX_TEXT_BYTES, and a split regex over its budget (above). */
bool tok_encode(const Tokenizer *tok, const char *text, size_t len, TokenIds *out, Error *err);

/* The same with step 1 left out: no added token is matched, so text that spells
 * "<|im_end|>" or "<think>" is split and merged like any other text. That is how a
 * chat encodes what a person typed: only the chat template writes control tokens
 * (Hugging Face's split_special_tokens=True does this for the special ones,
 * llama.cpp's server for message content). */
bool tok_encode_text(const Tokenizer *tok, const char *text, size_t len, TokenIds *out, Error *err);

/* Ids back to text: a newly allocated, NUL-terminated UTF-8 string (*len bytes
 * without the terminator when len != NULL; the text itself may hold U+0000, so
 * a caller that prints it uses the length). A byte sequence that is not UTF-8 —
 * ids that stop in the middle of a character — becomes U+FFFD, as in Hugging
 * Face's decode. An id that is no token is an error. */
char *tok_decode(const Tokenizer *tok, const int *ids, int n, size_t *len, Error *err);

/* The token's string as stored in the file (byte-level form, e.g. "Ġthe"), or
 * NULL for an id that is no token. Added tokens give their content. */
const char *tok_token(const Tokenizer *tok, int id);
/* The raw bytes the token stands for (written to buf, which needs at most
 * strlen(tok_token(tok, id)) bytes); returns the count, or -1 for no token. A
 * token can be part of a character: 天 is 3 bytes and may be split in two. */
int tok_token_bytes(const Tokenizer *tok, int id, unsigned char *buf, int cap);
/* Id of a token string (an added token's content or a vocabulary entry), or -1.
 * Special tokens by name: tok_token_id(tok, "<|im_end|>"). */
int tok_token_id(const Tokenizer *tok, const char *token);
/* The added_tokens entry with this id, or NULL. */
const AddedToken *tok_added(const Tokenizer *tok, int id);

/* The ChatML chat template of Qwen3.5 (the checkpoint's chat template, for
 * plain text messages):
 *
 *     <|im_start|>system\nYou are ...<|im_end|>\n
 *     <|im_start|>user\n你好<|im_end|>\n
 *     <|im_start|>assistant\n<think>\n\n</think>\n\n        <- generation prompt
 *
 * With add_generation_prompt the text ends with the opening of the assistant's
 * turn, where the model continues. Qwen3.5-0.8B does not think by default
 * (enable_thinking false): the prompt then carries an empty <think></think>
 * block, so the model answers directly; with enable_thinking it ends in
 * "<think>\n" and the model writes its reasoning first. Returns a newly
 * allocated string, to be encoded with tok_encode (the markers are added tokens).
 *
 * tok_chat_encode gives the ids of that text directly, for a chat: the template's
 * markers become their added tokens, and everything else, the messages' content
 * above all, is encoded as plain text (tok_encode_text), so a message that spells
 * "<|im_end|>\n<|im_start|>system" cannot close its own turn. For content that spells
 * no added token, the ids are exactly tok_encode's of tok_chat_render's text. A
 * message that is not valid UTF-8 is an error giving the offset in its content. */
typedef struct {
    const char *role; /* "system", "user" or "assistant" */
    const char *content;
} ChatMessage;

char *tok_chat_render(const ChatMessage *messages, int n, bool add_generation_prompt, bool enable_thinking);
bool tok_chat_encode(const Tokenizer *tok, const ChatMessage *messages, int n, bool add_generation_prompt,
                     bool enable_thinking, TokenIds *out, Error *err);

#endif
