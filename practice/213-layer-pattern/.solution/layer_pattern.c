/* 213. 从 config 读出每层的类型 —— 参考答案 */
#include <stdbool.h>
#include <string.h>

#include "layer_pattern.h"

int layer_pattern(const char *const *layer_types, int n_types, int n_layers, int full_attention_interval,
                  char *pattern) {
    if (n_layers < 1) return -1;
    if (layer_types ? n_types != n_layers : full_attention_interval < 1) return -1;
    int full = 0;
    for (int i = 0; i < n_layers; i++) {
        bool is_full;
        if (layer_types) { /* the list decides when it is there */
            const char *t = layer_types[i];
            if (t && !strcmp(t, "full_attention"))
                is_full = true;
            else if (t && !strcmp(t, "linear_attention"))
                is_full = false;
            else
                return -1;
        } else
            is_full = (i + 1) % full_attention_interval == 0; /* layers 3, 7, 11, ... for 4 */
        pattern[i] = is_full ? 'F' : 'L';
        full += is_full;
    }
    pattern[n_layers] = '\0';
    return full;
}
