"""Expected values of exercise 273 (torch.randn), from PyTorch itself.

    /usr/bin/python3 practice/273-randn/tests/make_expected.py > practice/273-randn/tests/expected.h

Every sequence starts with torch.manual_seed(seed) and then calls torch.randn in the
order the tests call randn(); the values are what PyTorch returned (on an x86 CPU with
AVX2, PyTorch's vectorized log/sin/cos; a plain C version with the C library's logf,
sinf, cosf agrees to within a unit or two in the last place).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import floats, header  # noqa: E402


def seq(seed, sizes):
    torch.manual_seed(seed)
    return torch.cat([torch.randn(n) for n in sizes])


parts = [floats("small4", seq(0, [4])),
         floats("block16", seq(0, [16])),
         floats("tail20", seq(0, [20])),
         floats("tail33", seq(0, [33])),
         floats("cache_3_3_1", seq(0, [3, 3, 1])),
         floats("eights", seq(0, [8, 8, 16])),
         floats("seed1234", seq(1234, [5, 100]))]
torch.manual_seed(0)
k, v = torch.randn(1, 1, 1, 128), torch.randn(1, 1, 1, 128)
parts += [floats("book_k", k), floats("book_v", v)]
torch.manual_seed(0)
big = torch.randn(128, 128).reshape(-1)
parts += [floats("big_every97", big[::97]),
          floats("big_moments", torch.stack([big.double().sum(), big.double().pow(2).sum()]))]
header("/usr/bin/python3 practice/273-randn/tests/make_expected.py > practice/273-randn/tests/expected.h",
       "torch.manual_seed(s) then torch.randn(n) for each n of a sequence (seed 0 unless named).", parts)
