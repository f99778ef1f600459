"""Expected values of exercise 232 (gated RMSNorm), computed in PyTorch.

    /usr/bin/python3 practice/232-gated-rmsnorm/tests/make_expected.py > practice/232-gated-rmsnorm/tests/expected.h

Inputs drawn as run.c draws them (pt_fill); the norm in float64 from the formula
in problem.md, with PyTorch's own silu; stored as float32.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def gated(x, z, w, eps=1e-6):
    x, z, w = x.double(), z.double(), w.double()
    return (w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)) * F.silu(z)).float()


parts = []
x = fill(48 * 128, 11, 0.5).view(48, 128)
z = fill(48 * 128, 12, 4.0).view(48, 128)
w = fill(128, 13, 0.2) + 1.0
parts.append(floats("real_shape_y", gated(x, z, w)))
x = fill(2 * 8, 14, 1.0).view(2, 8)
z = torch.tensor([1000.0, -1000.0, 100.0, -100.0, 88.0, -88.0, 30.0, -30.0] * 2).view(2, 8)
w = torch.ones(8)
parts.append(floats("extreme_y", gated(x, z, w)))

header("/usr/bin/python3 practice/232-gated-rmsnorm/tests/make_expected.py > practice/232-gated-rmsnorm/tests/expected.h",
       "y = w · x · rsqrt(mean(x²) + 1e-6) · silu(z) in float64, stored as float32.", parts)
