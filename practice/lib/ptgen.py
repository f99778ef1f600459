"""ptgen.py — what the exercises' expected-value scripts share.

Every script beside an exercise's tests (practice/NNN-*/tests/make_expected.py)
draws its inputs exactly as the C tests draw them (pt_fill in ptest.c), computes
the expected values in PyTorch, and writes them as C headers: expected.h for the
checker (check.c), and, when the runner needs inputs that C cannot draw itself,
inputs.h for the runner (run.c) — the expected values never reach the program the
learner's code is linked into. The headers are committed; the judge never runs Python.
"""
import os
import sys

import torch


def fill(n, seed, scale=1.0):
    """pt_fill: a 32-bit LCG, each value ((state >> 8) - 2**23) / 2**23 in float32, times scale."""
    s, vals = seed, []
    for _ in range(n):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        vals.append((s >> 8) - (1 << 23))
    u = (torch.tensor(vals, dtype=torch.float64) / 8388608.0).float()  # exact
    return u * torch.tensor(scale, dtype=torch.float32)


def _fmt(v):
    """A float32 value as a C literal that reads back exactly (9 significant digits)."""
    if v != v:
        return "NAN"
    if v in (float("inf"), float("-inf")):
        return "INFINITY" if v > 0 else "-INFINITY"
    s = f"{v:.9g}"
    if not any(c in s for c in ".e"):
        s += ".0"
    return s + "f"


def floats(name, t):
    """A static const float array holding t (flattened), each value printed exactly."""
    vals = [float(x) for x in t.detach().reshape(-1).float().tolist()]
    body = ",\n".join("    " + ", ".join(_fmt(v) for v in vals[i:i + 6]) for i in range(0, len(vals), 6))
    return f"static const float {name}[{len(vals)}] = {{\n{body}\n}};\n"


def ints(name, values, ctype="int"):
    vals = [int(v) for v in values]
    body = ",\n".join("    " + ", ".join(str(v) + ("u" if ctype.startswith("uint") else "") for v in vals[i:i + 10])
                      for i in range(0, len(vals), 10))
    return f"static const {ctype} {name}[{len(vals)}] = {{\n{body}\n}};\n"


def header(command, doc, parts, path=None):
    """The whole header: where it came from, then the arrays; written to path (its name
    is the header's name), or to stdout as expected.h."""
    name = os.path.basename(path) if path else "expected.h"
    out = ["/* " + name + " — written once by\n *     " + command + "\n * (Debian's python3-torch, torch "
           + torch.__version__ + "). Do not edit: run the command again.\n *\n"]
    out += [" * " + line + "\n" if line else " *\n" for line in doc.strip().splitlines()]
    out.append(" */\n#include <math.h>\n#include <stdint.h>\n\n/* clang-format off */\n")
    out += [p + "\n" for p in parts]
    text = "".join(out).rstrip("\n") + "\n/* clang-format on */\n"
    if path:
        with open(path, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
