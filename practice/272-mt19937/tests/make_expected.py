"""Expected values of exercise 272 (MT19937 and PyTorch's uniforms).

    /usr/bin/python3 practice/272-mt19937/tests/make_expected.py > practice/272-mt19937/tests/expected.h

Raw 32-bit draws: numpy's legacy RandomState(seed), which seeds MT19937 exactly like
C++'s std::mt19937(seed) and torch.manual_seed (read with random_raw). Uniforms:
torch.manual_seed(seed) then torch.rand(n) in float32 and in float64, PyTorch itself.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import numpy as np  # noqa: E402
import torch  # noqa: E402

from ptgen import floats, header, ints  # noqa: E402


def raw(seed, n):
    return np.random.RandomState(seed)._bit_generator.random_raw(n).tolist()


parts = [ints("seed0_draws", raw(0, 1300), "uint32_t")]
for s in (1, 42, 4294967295):
    parts.append(ints(f"seed{s}_draws", raw(s, 5), "uint32_t"))
tenth = raw(5489, 10000)[-1]
assert tenth == 4123659995  # what the C++ standard requires of std::mt19937
torch.manual_seed(0)
parts.append(floats("uniform_f32_want", torch.rand(700)))
torch.manual_seed(0)
f64 = torch.rand(400, dtype=torch.float64)
parts.append(ints("uniform_f64_bits", [int(b) & 0xFFFFFFFFFFFFFFFF for b in f64.view(torch.int64).tolist()],
                  "uint64_t"))
header("/usr/bin/python3 practice/272-mt19937/tests/make_expected.py > practice/272-mt19937/tests/expected.h",
       "seed 0: 1300 raw draws; seeds 1, 42, 2^32 - 1: 5 each; after torch.manual_seed(0): torch.rand(700)\n"
       "(float32) and the bits of torch.rand(400, dtype=torch.float64).", parts)
