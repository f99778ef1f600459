"""Expected values of exercise 262 (gated GQA attention), in PyTorch.

    /usr/bin/python3 practice/262-gated-attention/tests/make_expected.py > practice/262-gated-attention/tests/expected.h

Inputs drawn as run.c draws them (pt_fill). The computation follows the usual
PyTorch formulation of Qwen3.5's full attention after its projections: split the
q_proj output per head into query and gate (chunk(2) on [.., heads, 2·head_dim]),
repeat each kv head for its group (repeat_interleave), causal scaled dot-product
attention, times sigmoid(gate). In float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def attention(T, nh, nkv, hd, seed, scale):
    qg = fill(T * nh * 2 * hd, seed, scale).view(T, nh, 2 * hd).double()
    k = fill(T * nkv * hd, seed + 1, scale).view(T, nkv, hd).double()
    v = fill(T * nkv * hd, seed + 2, 1.0).view(T, nkv, hd).double()
    q, gate = qg.chunk(2, dim=-1)
    k = k.repeat_interleave(nh // nkv, dim=1)
    v = v.repeat_interleave(nh // nkv, dim=1)
    scores = torch.einsum("thd,shd->hts", q, k) / hd ** 0.5
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    o = torch.einsum("hts,shd->thd", torch.softmax(scores, -1), v)
    return (o * torch.sigmoid(gate)).reshape(T, nh * hd).float(), scores.max().item()


parts = []
out, _ = attention(6, 8, 2, 256, 91, 1.0)
parts.append(floats("real_want", out))
out, _ = attention(5, 4, 4, 32, 94, 1.0)
parts.append(floats("mha_want", out))
out, biggest = attention(4, 2, 1, 64, 97, 20.0)
assert biggest > 100, biggest
parts.append(floats("large_want", out))
header("/usr/bin/python3 practice/262-gated-attention/tests/make_expected.py > practice/262-gated-attention/tests/expected.h",
       "real: T = 6, 8 query heads, 2 kv heads, head_dim 256 (seeds 91..93); mha: T = 5, 4 and 4, 32 (94..96);\n"
       f"large: T = 4, 2 and 1, 64, q and k × 20 (97..99), largest score {biggest:.0f}.", parts)
