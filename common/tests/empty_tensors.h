/* empty_tensors.h — a safetensors header that is cheap to write and dear to read.
 *
 * A header of n empty tensors ("t0000000": {"dtype": "F32", "shape": [0],
 * "data_offsets": [0, 0]}, ...) is some 60 bytes a tensor, and its parse takes more
 * than a kilobyte a tensor: what the tests of the header's memory limit write
 * (safetensors.h). Newly allocated; the caller frees it.
 */
#ifndef EMPTY_TENSORS_H
#define EMPTY_TENSORS_H

#include "workbook/util.h"

static inline char *header_of_empty_tensors(int n) {
    Text h = {0};
    text_add(&h, "{");
    for (int i = 0; i < n; i++)
        text_add(&h, "%s\"t%07d\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}", i ? "," : "", i);
    text_add(&h, "}");
    return h.s;
}

#endif
