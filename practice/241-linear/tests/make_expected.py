"""Expected values of exercise 241 (the linear layer with BF16 weights), in PyTorch.

    /usr/bin/python3 practice/241-linear/tests/make_expected.py > practice/241-linear/tests/expected.h

Weights drawn as run.c draws them (pt_fill, rounded to bfloat16 by PyTorch) in the
checkpoint's [out, in] layout; y = F.linear(x, W) computed in float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def case(name, T, n_in, n_out, seed):
    w = fill(n_out * n_in, seed, 0.03).to(torch.bfloat16).view(n_out, n_in)
    x = fill(T * n_in, seed + 1, 1.0).view(T, n_in)
    return floats(name, F.linear(x.double(), w.double()).float())


parts = [case("down_proj_y", 2, 3584, 1024, 41), case("k_proj_y", 3, 1024, 512, 43)]
header("/usr/bin/python3 practice/241-linear/tests/make_expected.py > practice/241-linear/tests/expected.h",
       "down_proj: T = 2, [1024, 3584] (seeds 41, 42); k_proj: T = 3, [512, 1024] (seeds 43, 44).", parts)
