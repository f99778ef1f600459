"""Expected values of exercise 242 (the SwiGLU MLP), in PyTorch.

    /usr/bin/python3 practice/242-swiglu/tests/make_expected.py > practice/242-swiglu/tests/expected.h

Inputs drawn as run.c draws them (pt_fill); y = down(silu(gate x) · up x) with
PyTorch's F.linear and F.silu, in float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def case(name, T, hidden, inter, seed):
    g = fill(inter * hidden, seed, 0.03).view(inter, hidden).double()
    u = fill(inter * hidden, seed + 1, 0.03).view(inter, hidden).double()
    d = fill(hidden * inter, seed + 2, 0.03).view(hidden, inter).double()
    x = fill(T * hidden, seed + 3, 1.0).view(T, hidden).double()
    return floats(name, F.linear(F.silu(F.linear(x, g)) * F.linear(x, u), d).float())


parts = [case("real_y", 2, 1024, 3584, 51), case("small_y", 3, 64, 96, 61)]
header("/usr/bin/python3 practice/242-swiglu/tests/make_expected.py > practice/242-swiglu/tests/expected.h",
       "real: T = 2, hidden 1024, inter 3584 (seeds 51..54); small: T = 3, 64 → 96 (seeds 61..64).", parts)
