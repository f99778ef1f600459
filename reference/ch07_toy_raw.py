#!/usr/bin/python3
"""The unrounded numbers behind part 4 of ch07_toy (the capacity experiment), from PyTorch.

    /usr/bin/python3 reference/ch07_toy_raw.py > ch07_deltanet/tests/data/ch07_toy_raw.txt

For each seed: torch.manual_seed(seed); 128 orthogonal keys (Q of a QR of randn(128, 128))
with randn(128, 128) values; then 256 and 1024 random unit keys (normalized randn rows)
with randn values. Each experiment writes its pairs in order into an empty 128 x 128 table
the plain way (S += k v^T) and with the delta rule (S += k (v - S^T k)^T), then reads every
pair back. One line per experiment:

    SEED N PLAIN DELTA LAST16 FIRST16

the mean relative read-back errors |S^T k - v| / |v| (all pairs plain, all pairs delta
rule, the delta rule's last 16 and first 16 pairs) as Python floats.
Read by ch07_deltanet/tests/test_ch07_capacity.c. Needs Debian's python3-torch
(the script installs it with apt-get when it is missing).
"""
import os
import subprocess
import sys

SEEDS = (0, 1, 42)
DK = 128

try:
    import torch
except ImportError:
    subprocess.run(([] if os.geteuid() == 0 else ["sudo"]) + ["apt-get", "install", "-y", "python3-torch"],
                   check=True)
    import torch


def read_back_error(table, keys, values):
    """Mean over the rows of |table^T k - v| / |v|."""
    got = keys @ table
    return ((got - values).norm(dim=1) / values.norm(dim=1)).mean().item()


def experiment(keys, values):
    plain = torch.zeros(DK, DK)
    delta = torch.zeros(DK, DK)
    for k, v in zip(keys, values):
        plain += torch.outer(k, v)
        delta += torch.outer(k, v - delta.T @ k)
    return (read_back_error(plain, keys, values), read_back_error(delta, keys, values),
            read_back_error(delta, keys[-16:], values[-16:]), read_back_error(delta, keys[:16], values[:16]))


lines = ["# made by: /usr/bin/python3 reference/ch07_toy_raw.py > ch07_deltanet/tests/data/ch07_toy_raw.txt",
         f"# PyTorch {torch.__version__}; seed n plain delta last16 first16"]
for seed in SEEDS:
    torch.manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(DK, DK))
    runs = [(DK, experiment(q, torch.randn(DK, DK)))]
    for n in (256, 1024):
        keys = torch.nn.functional.normalize(torch.randn(n, DK), dim=-1)
        runs.append((n, experiment(keys, torch.randn(n, DK))))
    for n, errors in runs:
        lines.append(f"{seed} {n} " + " ".join(repr(e) for e in errors))
sys.stdout.write("\n".join(lines) + "\n")
