/* decoder_block.h — exercise 274: one pre-norm decoder layer around a mixer (problem.md). */
#ifndef DECODER_BLOCK_H
#define DECODER_BLOCK_H

/* The layer's mixer (attention or Gated DeltaNet): x [T, hidden] → y [T, hidden]. */
typedef void (*MixerFn)(void *ctx, const float *x, int T, int hidden, float *y);

typedef struct {
    int hidden, inter;
    float eps;
    const float *input_norm;    /* [hidden], zero-centred (1 + w) */
    const float *post_norm;     /* [hidden], zero-centred (1 + w) */
    const float *w_gate, *w_up; /* [inter, hidden] */
    const float *w_down;        /* [hidden, inter] */
    MixerFn mixer;
    void *mixer_ctx;
} DecoderBlock;

/* h = x + mixer(RMSNorm(x; input_norm)); out = h + SwiGLU(RMSNorm(h; post_norm)).
 * x, out: [T, hidden], different buffers. */
void decoder_block(const DecoderBlock *b, const float *x, int T, float *out);

#endif
