/* safetensors.h — reading and writing the .safetensors files the weights come in.
 *
 * The format is deliberately simple:
 *
 *   [8 bytes]  N, the header length, unsigned little-endian
 *   [N bytes]  a JSON object: for every tensor
 *                "name": {"dtype": "BF16", "shape": [6144, 1024],
 *                         "data_offsets": [begin, end]}
 *              plus an optional "__metadata__": {"key": "string", ...}
 *   [rest]     the data area; a tensor's bytes are data[begin, end), row-major
 *
 * The reader maps the whole file into memory (mmap) and only parses the header:
 * opening the 1.7 GB shard of Qwen3.5-0.8B reads a few hundred kilobytes, and the
 * weights are paged in when a layer first touches them.
 *
 * Before anything is used, every entry is checked: a known dtype (BF16, F16,
 * F32), end − begin == prod(shape) × dtype size, the range inside the file, no
 * two tensors overlapping, a sane header length. Offsets are read as 64-bit
 * numbers (a 1.7 GB shard has offsets beyond INT_MAX). The format does not
 * promise that a tensor's bytes are aligned for its dtype; the reader checks and,
 * for the rare tensor that is not, keeps an aligned copy, so Tensor.data can
 * always be read as uint16_t / float directly (copies beyond the memory limit of
 * util.h are an error, not an allocation). The parsed header takes memory too,
 * far more than its bytes (a JSON value and a tensor entry of its own for every
 * few bytes: a 10^8-byte header of empty tensors would take ~2 GB), so it is
 * estimated and held to the same limit before it is parsed.
 */
#ifndef SAFETENSORS_H
#define SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensor.h"
#include "workbook/strmap.h"
#include "workbook/util.h"

/* The safetensors format caps the header at 100,000,000 bytes (the reference
 * implementation's MAX_HEADER_SIZE); a real shard's is ~100 KB. */
#define ST_MAX_HEADER_BYTES 100000000u

typedef struct {
    char *path;
    void *map;       /* the whole file, read-only */
    size_t size;     /* file size in bytes */
    Tensor *tensors; /* [count], in header order; names owned here */
    int count;
    StrMap index;  /* name → position in tensors */
    void **copies; /* aligned copies of misaligned tensors (usually none) */
    int n_copies;
    char **meta;   /* "__metadata__": key, value, key, value, ... (string values only) */
    int n_meta;    /* pairs */
    unsigned char *held; /* per 2 MB of the mapping: 1 where st_hold put it in memory of its own */
} SafeTensors;

/* Maps path and validates its header. On failure st is left empty. */
bool st_open(SafeTensors *st, const char *path, Error *err);
void st_close(SafeTensors *st);
/* The tensor stored under exactly this name, or NULL. */
const Tensor *st_find(const SafeTensors *st, const char *name);
/* The "__metadata__" string stored under key, or NULL. */
const char *st_metadata(const SafeTensors *st, const char *key);

/* Gives t's memory back to the system, for a tensor whose numbers now live elsewhere
 * (a model on 8-bit weights packs them, model.h): the pages that lie wholly inside
 * t's bytes leave the process (madvise MADV_DONTNEED; the one or two pages it shares
 * with its neighbours stay). Its numbers are not lost: the mapping is the file's, so a
 * later read brings a page back from the file (or the system's page cache); pages that
 * st_hold moved into memory of the process's own stay, since they are the only copy. False,
 * and nothing done, when t does not live in st's mapping (another shard's tensor, or
 * an aligned copy, whose memory is the only place its numbers are). */
bool st_release_pages(const SafeTensors *st, const Tensor *t);

/* Moves bytes [begin, end) of st's mapping into memory of the process's own, in pages
 * of 2 MB where Linux gives them (transparent huge pages), at the same addresses and
 * read-only as before, so every Tensor.data stays valid. Only whole 2 MB pieces move
 * (the ends of the range stay mapped from the file). Why: a mapped file comes in 4 KB
 * pages, and reading a tensor of many megabytes then asks the processor's address
 * translation for a new page every 4 KB; a multiply that widens a few rows of weights
 * at a time waits on those look-ups (a 139-token prompt of Qwen3.5-0.8B took 10-30%
 * longer in 4 KB pages). The copy is made a piece at a time, each piece's file pages
 * let go once copied, so the process's resident memory does not grow; pieces held
 * already stay as they are. The bytes moved (a multiple of 2 MB), or 0 — nothing moved,
 * nothing lost — when the range is not in the mapping, holds no whole 2 MB piece not
 * held yet, or the system gives no huge pages (then the file's mapping serves as well
 * as a copy). Held bytes are the only copy in the process: st_release_pages leaves
 * them where they are. */
#define ST_HOLD_CHUNK ((uintptr_t)2 << 20) /* a huge page of x86-64 Linux */
int64_t st_hold(SafeTensors *st, const void *begin, const void *end);

/* ---- writing ---------------------------------------------------------------
 * Tensors are described first (name, stored dtype, shape, where the float32
 * values come from) and written in one go: the header needs every offset before
 * the first byte of data. Values are converted to the stored dtype on the way
 * out (BF16/F16 round to nearest even). A generator lets a 254 M-value tensor be
 * produced chunk by chunk instead of being held in memory. */

/* Fills out[0..count) with the values of elements first..first+count-1. */
typedef void (*StGenerate)(void *ctx, int64_t first, int64_t count, float *out);

typedef struct {
    char *name;
    DType dtype;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    const float *values; /* either values ... */
    StGenerate generate; /* ... or a generator */
    void *ctx;
} StWriterEntry;

typedef struct {
    StWriterEntry *entries;
    int count, cap;
    Text metadata; /* more "__metadata__" pairs after "format": "pt", as JSON */
} StWriter;

void stw_init(StWriter *w);
void stw_free(StWriter *w);
/* values must stay valid until stw_write. values == NULL writes zeros, as a hole
 * in the file (a sparse file: a full-size checkpoint for shape-only tests costs
 * no disk space). */
void stw_add(StWriter *w, const char *name, DType dtype, int ndim, const int64_t *shape, const float *values);
void stw_add_generated(StWriter *w, const char *name, DType dtype, int ndim, const int64_t *shape,
                       StGenerate generate, void *ctx);
/* Adds key: value to the file's "__metadata__" (both plain strings). */
void stw_set_metadata(StWriter *w, const char *key, const char *value);
/* The bytes stw_write will put in the data area (saturating at UINT64_MAX). */
uint64_t stw_data_bytes(const StWriter *w);
/* Writes the file; the header is padded with spaces to a multiple of 8 bytes so
 * the data area starts aligned. Returns the number of data bytes in *data_bytes.
 * The file is written whole or not at all: into a new file beside path, flushed to
 * the disk, then renamed over path (util.h's file_replace), so a write that fails
 * half-way (a full disk) leaves whatever path held before as it was. */
bool stw_write(const StWriter *w, const char *path, uint64_t *data_bytes, Error *err);

#endif
