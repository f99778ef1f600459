"""Expected values of exercise 211 (float32 → bfloat16), from PyTorch itself.

    /usr/bin/python3 practice/211-bf16/tests/make_expected.py

writes inputs.h (the float32 bit patterns, which the runner feeds to the learner's
code) and expected.h (the same patterns, for the checker's messages, and what they
should become) beside this script.

Bit patterns: a 32-bit LCG (the one pt_fill uses, but every bit kept), plus values
right at, just below and just above a halfway point, both signs, and the edges of
the exponent range. NaN inputs are left out (PyTorch returns one fixed NaN; the
tests only ask for a NaN). Expected = x.to(torch.bfloat16), bit for bit.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import header, ints  # noqa: E402


def to_bf16_bits(patterns):
    b = torch.tensor([p - (1 << 32) if p >= 1 << 31 else p for p in patterns], dtype=torch.int32)
    h = b.view(torch.float32).to(torch.bfloat16).view(torch.int16).to(torch.int64) & 0xFFFF
    return h.tolist()


def is_nan(p):
    return (p & 0x7FFFFFFF) > 0x7F800000


s, lcg = 12345, []
while len(lcg) < 3000:
    s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
    if not is_nan(s):
        lcg.append(s)
ties = []
for hi in (0x3F80, 0x3F81, 0x4049, 0x404A, 0x0000, 0x0001, 0x7F7E, 0x7F7F, 0x0080, 0x007F):
    for sign in (0, 0x80000000):
        for low in (0x7FFF, 0x8000, 0x8001):
            ties.append(sign | (hi << 16) | low)
edges = [0x00000000, 0x80000000, 0x00000001, 0x00008000, 0x00018000, 0x007FFFFF, 0x807FFFFF, 0x00800000,
         0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F7FFF, 0x7F7F8000, 0x7F800000, 0xFF800000, 0x3F7FFFFF, 0x477FE000]
runner_inputs = [ints("round_in", lcg, "uint32_t"), ints("ties_in", ties, "uint32_t"),
                 ints("edges_in", edges, "uint32_t")]
parts = [ints("round_in", lcg, "uint32_t"), ints("round_want", to_bf16_bits(lcg), "uint16_t"),
         ints("ties_in", ties, "uint32_t"), ints("ties_want", to_bf16_bits(ties), "uint16_t"),
         ints("edges_in", edges, "uint32_t"), ints("edges_want", to_bf16_bits(edges), "uint16_t")]
here = os.path.dirname(os.path.abspath(__file__))
command = "/usr/bin/python3 practice/211-bf16/tests/make_expected.py"
header(command, "float32 bit patterns, the inputs of round_torch, ties_to_even and edges.", runner_inputs,
       os.path.join(here, "inputs.h"))
header(command,
       "float32 bit patterns (the inputs, for the messages) and what torch's .to(torch.bfloat16) makes of them.",
       parts, os.path.join(here, "expected.h"))
