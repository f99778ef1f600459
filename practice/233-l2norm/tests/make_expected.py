"""Expected values of exercise 233 (l2norm), computed in PyTorch.

    /usr/bin/python3 practice/233-l2norm/tests/make_expected.py > practice/233-l2norm/tests/expected.h

Inputs drawn as run.c draws them (pt_fill); y = x · rsqrt(Σx² + 1e-6) in float64,
stored as float32.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def l2norm(x, eps=1e-6):
    x = x.double()
    return (x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)).float()


parts = [floats("real_shape_y", l2norm(fill(32 * 128, 21, 2.0).view(32, 128)))]
parts.append(floats("tiny_y", l2norm(torch.tensor([[1e-4, 1e-4], [-3e-4, 4e-4]]))))
header("/usr/bin/python3 practice/233-l2norm/tests/make_expected.py > practice/233-l2norm/tests/expected.h",
       "y = x · rsqrt(Σx² + 1e-6) in float64, stored as float32.", parts)
