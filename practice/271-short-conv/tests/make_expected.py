"""Expected values of exercise 271 (the causal depthwise convolution with state), in PyTorch.

    /usr/bin/python3 practice/271-short-conv/tests/make_expected.py > practice/271-short-conv/tests/expected.h

Inputs drawn as run.c draws them (pt_fill). From an empty state the output is what
the book's GatedDeltaNet computes: F.conv1d(x, w, groups=C, padding=K-1)[..., :T], then
SiLU. From a given state, the state's K-1 rows are put in front of x and the
convolution runs without padding. In float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def from_empty(x, w):  # x: [T, C], w: [C, K]
    T, C = x.shape
    K = w.shape[1]
    y = F.conv1d(x.t()[None].double(), w[:, None, :].double(), groups=C, padding=K - 1)[0, :, :T]
    return F.silu(y).t().float()


def from_state(state, x, w):  # state: [K-1, C]
    C, K = w.shape
    full = torch.cat((state, x), 0).t()[None].double()
    return F.silu(F.conv1d(full, w[:, None, :].double(), groups=C)[0]).t().float()


parts = []
C, K, T = 6, 4, 7
x = fill(T * C, 241, 1.0).view(T, C)
w = fill(C * K, 242, 1.0).view(C, K)
parts.append(floats("small_y", from_empty(x, w)))
state = fill((K - 1) * C, 243, 1.0).view(K - 1, C)
x2 = fill(2 * C, 244, 1.0).view(2, C)
parts.append(floats("from_state_y", from_state(state, x2, w)))
C, T = 6144, 2
x = fill(T * C, 251, 1.0).view(T, C)
w = fill(C * K, 252, 0.5).view(C, K)
state = fill((K - 1) * C, 253, 1.0).view(K - 1, C)
parts.append(floats("real_y", from_state(state, x, w)))
header("/usr/bin/python3 practice/271-short-conv/tests/make_expected.py > practice/271-short-conv/tests/expected.h",
       "small: C 6, K 4, T 7 from an empty state (seeds 241, 242); from_state: T 2 after a given state (243, 244);\n"
       "real: C 6144, K 4, T 2 after a given state (251..253).", parts)
