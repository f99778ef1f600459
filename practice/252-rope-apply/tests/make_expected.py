"""Expected values of exercise 252 (partial rotate-half RoPE), in PyTorch.

    /usr/bin/python3 practice/252-rope-apply/tests/make_expected.py

writes inputs.h (the cos/sin tables, which the runner feeds to the learner's code)
and expected.h (what the checker compares with) beside this script.

The cos/sin tables (float64 angles, stored as float32) for positions 0, 1, 7, 1000,
262143 are written out so the runner hands the learner exactly these numbers; the
expected output is the usual PyTorch formulation, x·cos + rotate_half(x)·sin on the
first 64 dims, with the rest concatenated unchanged, computed in float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402

POS = [0, 1, 7, 1000, 262143]
ROT, HD = 64, 256
inv = 1e7 ** (-torch.arange(0, ROT, 2, dtype=torch.float64) / ROT)
ang = torch.outer(torch.tensor(POS, dtype=torch.float64), inv)
cos, sin = ang.cos().float(), ang.sin().float()


def rotate_half(x):
    a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-b, a), dim=-1)


def rope(x):  # x: [T, heads, HD]
    c = torch.cat((cos, cos), -1).double()[:, None, :]
    s = torch.cat((sin, sin), -1).double()[:, None, :]
    r, rest = x[..., :ROT].double(), x[..., ROT:].double()
    return torch.cat((r * c + rotate_half(r) * s, rest), -1).float()


runner_inputs = [floats("table_cos", cos), floats("table_sin", sin)]
parts = [floats("q_want", rope(fill(5 * 8 * HD, 71, 1.0).view(5, 8, HD))),
         floats("k_want", rope(fill(5 * 2 * HD, 72, 1.0).view(5, 2, HD)))]
here = os.path.dirname(os.path.abspath(__file__))
command = "/usr/bin/python3 practice/252-rope-apply/tests/make_expected.py"
header(command, "The cos/sin tables of positions 0, 1, 7, 1000, 262143 (rotary_dim 64, theta 1e7), the inputs of\n"
       "real_q, real_k, pass_through and lengths_kept.", runner_inputs, os.path.join(here, "inputs.h"))
header(command,
       "Positions 0, 1, 7, 1000, 262143; head_dim 256, rotary_dim 64, theta 1e7; q: 8 heads, k: 2 heads.",
       parts, os.path.join(here, "expected.h"))
