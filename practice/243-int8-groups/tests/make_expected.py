"""Expected values of exercise 243 (int8 groups of 32), in PyTorch.

    /usr/bin/python3 practice/243-int8-groups/tests/make_expected.py > practice/243-int8-groups/tests/expected.h

Inputs drawn as run.c draws them (pt_fill); per group of 32, scale = amax|w| / 127 in
float32, q = torch.round(w / scale) (ties to even; 0 where the scale is 0), and
y = Σ_g scale_g · Σ q·x computed in float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header, ints  # noqa: E402


def case(name, w, x):
    g = w.view(-1, 32)
    scale = g.abs().amax(dim=1) / 127.0  # float32, as C's max / 127.0f
    q = torch.where(scale[:, None] > 0, torch.round(g / scale.clamp_min(1e-38)[:, None]), torch.zeros_like(g))
    y = (scale.double() * (q.double() * x.double().view(-1, 32)).sum(dim=1)).sum()
    return [ints(name + "_q", q.reshape(-1).to(torch.int64).tolist()), floats(name + "_scale", scale),
            floats(name + "_y", y.float().reshape(1))]


def random_row(name, n, seed):
    return case(name, fill(n, seed, 0.03), fill(n, seed + 1, 1.0))


def ties():
    w = torch.zeros(128)
    for g in range(4):
        w[g * 32] = -127.0 if g % 2 else 127.0
        for k in range(1, 32):
            w[g * 32 + k] = (k - 16) + 0.5
    return case("ties", w, fill(128, 47, 1.0))


def zero_groups():
    w = fill(128, 48, 0.03)
    w[32:64] = 0
    w[96:128] = 0
    return case("zero_groups", w, fill(128, 49, 1.0))


parts = random_row("real_row", 1024, 43) + random_row("down_proj_row", 3584, 45) + ties() + zero_groups()
header("/usr/bin/python3 practice/243-int8-groups/tests/make_expected.py > practice/243-int8-groups/tests/expected.h",
       "real_row: n = 1024 (seeds 43, 44); down_proj_row: n = 3584 (seeds 45, 46); ties: scale-1 groups of\n"
       "half-steps (x seed 47); zero_groups: groups 1 and 3 zero (seeds 48, 49).", parts)
