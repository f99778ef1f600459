/* st_header.h — exercise 212: one entry of a safetensors header (problem.md). */
#ifndef ST_HEADER_H
#define ST_HEADER_H

#include <stddef.h>
#include <stdint.h>

#define ST_MAX_DIMS 8

typedef struct {
    char dtype[16];             /* "BF16", "F32", ... as written in the header */
    int ndim;                   /* 0 .. ST_MAX_DIMS */
    int64_t shape[ST_MAX_DIMS]; /* shape[0 .. ndim − 1] */
    uint64_t begin, end;        /* data_offsets: bytes from the start of the data, after the header */
} StEntry;

/* head: the first head_len bytes of a safetensors file (the 8-byte length, the JSON
 * header, maybe more); file_size: the size of the whole file.
 * Returns 0 and fills *out when tensor `name` is in the header, 1 when the file is
 * well formed but has no such tensor, −1 when the file is malformed. */
int st_find(const uint8_t *head, size_t head_len, uint64_t file_size, const char *name, StEntry *out);

#endif
