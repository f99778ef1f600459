"""Expected values of exercise 231 (zero-centred RMSNorm), computed in PyTorch.

    /usr/bin/python3 practice/231-rmsnorm/tests/make_expected.py > practice/231-rmsnorm/tests/expected.h

The inputs are drawn exactly as tests.c draws them (pt_fill); the norm is written
from the formula in problem.md, in float64, then rounded to float32.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def rmsnorm(x, w, eps=1e-6):
    x, w = x.double(), w.double()
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1 + w)).float()


parts = []
# the hidden state: 3 tokens of 1024, weights centred on 0
x = fill(3 * 1024, 1, 3.0).view(3, 1024)
w = fill(1024, 2, 0.5)
parts.append(floats("hidden_1024_y", rmsnorm(x, w)))
# q_norm: 2 tokens × 8 heads of 256
x = fill(16 * 256, 3, 2.0).view(16, 256)
w = fill(256, 4, 0.3)
parts.append(floats("q_norm_256_y", rmsnorm(x, w)))
# a nearly silent vector: eps dominates mean(x²)
x = torch.full((1, 4), 1e-4)
w = torch.zeros(4)
parts.append(floats("nearly_zero_y", rmsnorm(x, w)))
# rows far apart in scale
x = fill(3 * 64, 5, 1.0).view(3, 64) * torch.tensor([[1e-3], [1.0], [1e3]])
w = fill(64, 6, 0.5)
parts.append(floats("rows_apart_y", rmsnorm(x, w)))

header("/usr/bin/python3 practice/231-rmsnorm/tests/make_expected.py > practice/231-rmsnorm/tests/expected.h",
       "y = x · rsqrt(mean(x²) + 1e-6) · (1 + w) in float64, stored as float32.", parts)
