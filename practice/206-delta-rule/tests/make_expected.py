"""Expected values of exercise 206 (the gated delta rule, token by token), in PyTorch.

    /usr/bin/python3 practice/206-delta-rule/tests/make_expected.py

writes inputs.h (the book's k and v, which the runner feeds to the learner's code)
and expected.h (what the checker compares with) beside this script.

Two sources:
  - the book's rewrite experiment (ch07_deltanet.py, part 3): after torch.manual_seed(0),
    k = F.normalize(torch.randn(1, 1, 1, 128), dim=-1) and v = torch.randn(1, 1, 1, 128);
    the tests write (k, v) six times with q = k, g = 0, beta = 0.5 and compare the six
    distances with the numbers the book prints;
  - random inputs drawn as tests.c draws them (pt_fill), run through the delta rule
    written here from its formula (l2norm with eps 1e-6, q / sqrt(dk), then per token:
    decay, look up with k, write the difference times beta, read with q), in float64.
For the real shapes the final tables are compared through what they read for a fixed
probe vector per head (S^T r), not entry by entry, to keep this file small.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402


def l2norm(x, eps=1e-6):
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + eps)


def delta_rule(q, k, v, g, beta, S):
    """q, k: [T, H, dk]; v: [T, H, dv]; g, beta: [T, H]; S: [H, dk, dv]. float64."""
    T, H, dk = q.shape
    q, k = l2norm(q) / dk ** 0.5, l2norm(k)
    out = torch.empty(T, H, v.shape[-1], dtype=torch.float64)
    for t in range(T):
        S = S * g[t].exp()[:, None, None]                                   # 1. decay
        pred = torch.einsum("hk,hkv->hv", k[t], S)                          # 2. look up with k
        S = S + torch.einsum("hk,hv->hkv", k[t], (v[t] - pred) * beta[t][:, None])   # 3. write the difference
        out[t] = torch.einsum("hk,hkv->hv", q[t], S)                        # 4. read with q
    return out, S


def inputs(T, H, dk, dv, seed):
    q = fill(T * H * dk, seed, 1.0).view(T, H, dk).double()
    k = fill(T * H * dk, seed + 1, 1.0).view(T, H, dk).double()
    v = fill(T * H * dv, seed + 2, 1.0).view(T, H, dv).double()
    g = -(fill(T * H, seed + 3, 1.0).view(T, H).double().abs() * 2.0)      # log decay in (-2, 0]
    beta = (fill(T * H, seed + 4, 0.5).view(T, H).double() + 0.5)          # in [0, 1)
    S = fill(H * dk * dv, seed + 5, 1.0).view(H, dk, dv).double()
    return q, k, v, g, beta, S


# the book's experiment
torch.manual_seed(0)
k_book = F.normalize(torch.randn(1, 1, 1, 128), dim=-1)
v_book = torch.randn(1, 1, 1, 128)
runner_inputs = [floats("book_k", k_book), floats("book_v", v_book)]
parts = [floats("book_v", v_book)]  # the checker measures the distance to v
# small: 2 heads, dk 4, dv 3 (dk != dv), 5 tokens, a table that is not empty at the start
q, k, v, g, beta, S = inputs(5, 2, 4, 3, 201)
out, S = delta_rule(q, k, v, g, beta, S)
parts += [floats("small_out", out), floats("small_S", S)]
# the real shapes: 16 heads of 128 x 128, 4 tokens, an empty table
q, k, v, g, beta, _ = inputs(4, 16, 128, 128, 211)
out, S = delta_rule(q, k, v, g, beta, torch.zeros(16, 128, 128, dtype=torch.float64))
probe = fill(128, 217, 1.0).double()
parts += [floats("real_out", out), floats("real_S_probe", torch.einsum("k,hkv->hv", probe, S))]
here = os.path.dirname(os.path.abspath(__file__))
command = "/usr/bin/python3 practice/206-delta-rule/tests/make_expected.py"
header(command, "book_k, book_v: the book's rewrite experiment (manual_seed(0)), the inputs of book_six_writes.",
       runner_inputs, os.path.join(here, "inputs.h"))
header(command,
       "book_v: the book's rewrite experiment (manual_seed(0)); small: 2 heads, dk 4, dv 3, T 5 (seeds\n"
       "201..206); real: 16 heads, 128 x 128, T 4 (seeds 211..215), the final tables read with r = pt_fill(128, 217).",
       parts, os.path.join(here, "expected.h"))
