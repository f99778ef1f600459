#!/usr/bin/python3
"""PyTorch's speed on the linear layers of Qwen3.5-0.8B, to set beside
ch04_mlp/bench/bench_linear (the C kernels, `make bench`).

The same shapes, the same token counts (1, 6 and 139), BF16-valued random weights
held as float32 (the book's code computes in float32), torch.set_num_threads(2).
As in the C benchmark, W for 1 and 6 tokens is a different window of a 256 MB pool
at every call, so it comes from memory as in a real forward pass, and every figure
is a median over rounds that each time every shape once. Two ways of calling it:
  F.linear   what the book's code does: a float32 matrix product through the BLAS
             PyTorch was built with (Debian's python3-torch: the reference BLAS);
  oneDNN     torch.utils.mkldnn.to_mkldnn(nn.Linear): the same product through the
             oneDNN (MKL-DNN) kernels that ship inside PyTorch, its fastest CPU path
             (139 tokens only: it is there to show the best matrix product at hand).

    /usr/bin/python3 reference/bench_linear.py [--quick]

Needs Debian's python3-torch; installs it when missing.
"""
import os
import re
import statistics
import subprocess
import sys
import time


def ensure_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch missing: installing python3-torch", file=sys.stderr)
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "python3-torch"], check=True)
        os.execv(sys.executable, [sys.executable] + sys.argv)


ensure_torch()
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.utils.mkldnn  # noqa: E402

SHAPES = [  # (name, out, in): every projection shape of the model
    ("attn q_proj", 4096, 1024),
    ("attn k/v_proj", 512, 1024),
    ("mlp gate/up_proj", 3584, 1024),
    ("mlp down_proj", 1024, 3584),
    ("dn in_proj_qkv", 6144, 1024),
    ("dn in_proj_z", 2048, 1024),
    ("dn in_proj_a/b", 16, 1024),
    ("out_proj/o_proj", 1024, 2048),
]
DELTANET_LAYER = [4, 5, 6, 6, 7]  # in_proj_qkv, in_proj_z, in_proj_a, in_proj_b, out_proj
POOL_FLOATS = 64 << 20  # 256 MB of weights to take windows from: far beyond the caches


def median_time(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class Pool:
    """Windows of one big tensor: W of any shape, a different one at every call."""

    def __init__(self):
        self.data = (torch.randn(POOL_FLOATS) * 0.02).bfloat16().float()  # BF16 values, float32 storage
        self.next = 0

    def window(self, out, inp):
        n = out * inp
        if self.next + n > POOL_FLOATS:
            self.next = 0
        w = self.data[self.next:self.next + n].view(out, inp)
        self.next += n
        return w


def onednn_linear(w):
    """A bias-free nn.Linear holding w, converted to PyTorch's oneDNN module."""
    lin = nn.Linear(w.shape[1], w.shape[0], bias=False)
    lin.weight.data.copy_(w)
    return torch.utils.mkldnn.to_mkldnn(lin)


def main():
    quick = "--quick" in sys.argv[1:]
    rounds = 5 if quick else 15
    torch.set_num_threads(2)
    torch.manual_seed(0)
    blas = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    print(f"PyTorch {torch.__version__} (BLAS: {blas.group(1) if blas else 'unknown'}; oneDNN available: "
          f"{torch.backends.mkldnn.is_available()}), {torch.get_num_threads()} threads, float32, "
          f"medians of {rounds} rounds")

    pool = Pool()
    xs = {T: torch.randn(T, 3584) for T in (1, 6, 139)}
    fixed = {name: pool.window(out, inp).clone() for name, out, inp in SHAPES}  # W for 139 tokens
    onednn = {name: onednn_linear(fixed[name]) for name, _, _ in SHAPES}
    times = {}  # (way, name, T) -> list of per-round seconds
    with torch.inference_mode():
        for _ in range(rounds):
            for name, out, inp in SHAPES:
                for T, reps in ((1, 5), (6, 3)):  # memory-bound: a new window every call
                    x = xs[T][:, :inp].contiguous()
                    t = median_time(lambda: F.linear(x, pool.window(out, inp)), reps)
                    times.setdefault(("F.linear", name, T), []).append(t)
                x = xs[139][:, :inp].contiguous()  # compute-bound: the same W every call
                times.setdefault(("F.linear", name, 139), []).append(median_time(lambda: F.linear(x, fixed[name]), 1))
                times.setdefault(("oneDNN", name, 139), []).append(median_time(lambda: onednn[name](x), 1))
    med = {key: statistics.median(v) for key, v in times.items()}

    print("\nF.linear (what the book's code runs)")
    print(f"{'shape':18} {'[out, in]':>12} {'1 tok ms':>9} {'GB/s f32':>9} {'6 tok ms':>9} "
          f"{'139 tok ms':>11} {'GFLOP/s':>8}")
    for name, out, inp in SHAPES:
        r = {T: med["F.linear", name, T] for T in (1, 6, 139)}
        gflop = 2 * out * inp * 139 / 1e9
        print(f"{name:18} {f'[{out}, {inp}]':>12} {r[1] * 1e3:9.3f} {out * inp * 4 / 1e9 / r[1]:9.1f} "
              f"{r[6] * 1e3:9.3f} {r[139] * 1e3:11.2f} {gflop / r[139]:8.1f}")
    print("\noneDNN (PyTorch's fastest CPU matrix product), 139 tokens")
    print(f"{'shape':18} {'[out, in]':>12} {'ms':>9} {'GFLOP/s':>8}")
    for name, out, inp in SHAPES:
        t = med["oneDNN", name, 139]
        print(f"{name:18} {f'[{out}, {inp}]':>12} {t * 1e3:9.3f} {2 * out * inp * 139 / 1e9 / t:8.1f}")

    layer = [SHAPES[i] for i in DELTANET_LAYER]
    gflop = sum(2 * o * i * 139 for _, o, i in layer) / 1e9
    t = {T: sum(med["F.linear", n, T] for n, _, _ in layer) for T in (1, 6, 139)}
    t_onednn = sum(med["oneDNN", n, 139] for n, _, _ in layer)
    print("\none DeltaNet layer's projections (in_proj_qkv, in_proj_z, in_proj_a, in_proj_b, out_proj):")
    print(f"  F.linear: 1 token {t[1] * 1e3:.3f} ms, 6 tokens {t[6] * 1e3:.3f} ms, "
          f"139 tokens {t[139] * 1e3:.2f} ms = {gflop / t[139]:.1f} GFLOP/s")
    print(f"  oneDNN:   139 tokens {t_onednn * 1e3:.2f} ms = {gflop / t_onednn:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
