"""Expected values of exercise 223 (embedding rows and the tied output head), in PyTorch.

    /usr/bin/python3 practice/223-embedding/tests/make_expected.py > practice/223-embedding/tests/expected.h

The table is drawn as run.c draws it (pt_fill, then rounded to bfloat16 by
PyTorch); the expected rows are torch's embedding of those bf16 values, the logits
torch's (table @ h) in float64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import torch  # noqa: E402

from ptgen import fill, floats, header  # noqa: E402

V, H = 4096, 1024
table = fill(V * H, 31, 0.05).to(torch.bfloat16).view(V, H)
ids = torch.tensor([0, 4095, 17, 17, 1000, 2048])
parts = []
parts.append(floats("rows_want", torch.nn.functional.embedding(ids, table.float())))
h = fill(H, 32, 1.0)
parts.append(floats("logits_want", (table.double() @ h.double()).float()))
header("/usr/bin/python3 practice/223-embedding/tests/make_expected.py > practice/223-embedding/tests/expected.h",
       "A [4096, 1024] bf16 table (pt_fill seed 31 × 0.05, rounded by torch): rows 0, 4095, 17, 17, 1000, 2048,\n"
       "and the tied head's logits for h = pt_fill(1024, 32, 1.0).", parts)
