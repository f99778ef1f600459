"""Expected values of exercise 251 (the RoPE cos/sin table), in PyTorch float64.

    /usr/bin/python3 practice/251-rope-table/tests/make_expected.py > practice/251-rope-table/tests/expected.h

inv_freq[i] = theta^(-2i/rotary_dim) and the angles position · inv_freq in float64,
then cos and sin, stored as float32.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import floats, header  # noqa: E402


def table(rotary_dim, theta, positions):
    inv = theta ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    ang = torch.outer(torch.tensor(positions, dtype=torch.float64), inv)
    return ang.cos(), ang.sin()


parts = []
c, s = table(64, 1e7, list(range(64)))
parts += [floats("first64_cos", c), floats("first64_sin", s)]
c, s = table(64, 1e7, [200000, 262140, 262141, 262142, 262143])
parts += [floats("far_cos", c), floats("far_sin", s)]
header("/usr/bin/python3 practice/251-rope-table/tests/make_expected.py > practice/251-rope-table/tests/expected.h",
       "rotary_dim 64, theta 1e7: positions 0..63, and 200000, 262140..262143.", parts)
