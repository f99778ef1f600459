/* layer_pattern.h — exercise 213: which layers are full attention (problem.md). */
#ifndef LAYER_PATTERN_H
#define LAYER_PATTERN_H

/* layer_types: text_config.layer_types (n_types strings), or NULL when the key is absent;
 * then full_attention_interval decides. Writes n_layers chars 'L' / 'F' and a '\0' to
 * pattern. Returns the number of 'F' layers, or −1 when the config is not valid. */
int layer_pattern(const char *const *layer_types, int n_types, int n_layers, int full_attention_interval,
                  char *pattern);

#endif
