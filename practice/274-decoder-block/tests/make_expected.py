"""Expected values of exercise 274 (one pre-norm decoder block), in PyTorch.

    /usr/bin/python3 practice/274-decoder-block/tests/make_expected.py > practice/274-decoder-block/tests/expected.h

Inputs drawn as run.c draws them (pt_fill). The block as the Qwen3.5 decoder layer
computes it: h = x + mixer(RMSNorm(x)), out = h + MLP(RMSNorm(h)), with the
zero-centred RMSNorm (1 + w) and the SwiGLU MLP. The mixer stands in for attention:
the same causal running mean followed by a matrix M that run.c uses. In float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def rmsnorm(x, w, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1 + w)


def block(T, H, I, seed):
    x = fill(T * H, seed, 1.0).view(T, H).double()
    w_in = fill(H, seed + 1, 0.3).double()
    w_post = fill(H, seed + 2, 0.3).double()
    gate = fill(I * H, seed + 3, 0.05).view(I, H).double()
    up = fill(I * H, seed + 4, 0.05).view(I, H).double()
    down = fill(H * I, seed + 5, 0.05).view(H, I).double()
    m = fill(H * H, seed + 6, 0.05).view(H, H).double()
    n1 = rmsnorm(x, w_in)
    mean = n1.cumsum(0) / torch.arange(1, T + 1, dtype=torch.float64)[:, None]  # causal running mean
    h = x + F.linear(mean, m)
    n2 = rmsnorm(h, w_post)
    return (h + F.linear(F.silu(F.linear(n2, gate)) * F.linear(n2, up), down)).float()


parts = [floats("small_want", block(4, 64, 96, 301)), floats("real_want", block(2, 1024, 3584, 311))]
header("/usr/bin/python3 practice/274-decoder-block/tests/make_expected.py > practice/274-decoder-block/tests/expected.h",
       "small: T 4, hidden 64, inter 96 (seeds 301..307); real: T 2, hidden 1024, inter 3584 (seeds 311..317).",
       parts)
