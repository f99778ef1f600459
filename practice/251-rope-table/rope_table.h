/* rope_table.h — exercise 251: RoPE's inverse frequencies and the cos/sin table (problem.md). */
#ifndef ROPE_TABLE_H
#define ROPE_TABLE_H

/* Row p of cos_out / sin_out ([n_pos, rotary_dim / 2]) is position pos0 + p:
 * cos((pos0 + p) · theta^(−2i / rotary_dim)), computed in double, stored as float. */
void rope_table(int rotary_dim, double theta, long pos0, int n_pos, float *cos_out, float *sin_out);

#endif
