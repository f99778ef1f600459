"""Expected values of exercise 261 (the stable causal softmax), in PyTorch.

    /usr/bin/python3 practice/261-causal-softmax/tests/make_expected.py > practice/261-causal-softmax/tests/expected.h

Scores drawn as run.c draws them (pt_fill); the causal mask as PyTorch code
writes it (masked_fill with -inf above the diagonal, shifted by S - T), then
torch.softmax in float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def causal_softmax(scores, T, S):
    s = scores.view(T, S).double()
    mask = torch.ones(T, S, dtype=torch.bool).triu(S - T + 1)
    return torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1).float()


parts = [floats("real_want", causal_softmax(fill(64 * 64, 81, 8.0), 64, 64)),
         floats("prefill_want", causal_softmax(fill(5 * 12, 82, 4.0), 5, 12)),
         floats("big_want", torch.softmax(torch.tensor([1000.0, 1001.0, 999.0], dtype=torch.float64), 0).float())]
header("/usr/bin/python3 practice/261-causal-softmax/tests/make_expected.py > practice/261-causal-softmax/tests/expected.h",
       "T = S = 64 (scores pt_fill(81) × 8); T = 5 queries over S = 12 keys (pt_fill(82) × 4); softmax(1000, 1001, 999).",
       parts)
