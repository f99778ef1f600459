#!/usr/bin/python3
"""PyTorch's speed on the linear layers of Qwen3.5-0.8B, to set beside
ch04_mlp/bench/bench_linear (the C kernels, `make bench`).

The same shapes, the same token counts (1, 6 and 139), BF16-valued random weights
held as float32 (the book's code computes in float32), torch.set_num_threads(2),
medians of repeated calls. For 1 and 6 tokens each call uses a different copy of W,
so W comes from memory as in a real forward pass. Two ways of calling it:
  F.linear   what the book's code does: a float32 matrix product through the BLAS
             PyTorch was built with (Debian's python3-torch: the reference BLAS);
  oneDNN     torch.utils.mkldnn.to_mkldnn(nn.Linear): the same product through the
             oneDNN (MKL-DNN) kernels that ship inside PyTorch, its fastest CPU path.

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
POOL_BYTES = 256 << 20  # copies of W for the 1-token and 6-token runs: far beyond the caches


def median_time(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


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
          f"medians of {rounds}")

    ways = ("F.linear", "oneDNN")
    results = {}  # (way, name, T) -> seconds
    with torch.inference_mode():
        for name, out, inp in SHAPES:
            w = (torch.randn(out, inp) * 0.02).bfloat16().float()  # BF16 values, float32 storage
            copies = max(1, POOL_BYTES // (out * inp * 4))
            for way in ways:
                if way == "F.linear":
                    pool = [w.clone() for _ in range(copies)]
                    call = lambda x, i: F.linear(x, pool[i % copies])  # noqa: E731
                else:
                    pool = [onednn_linear(w) for _ in range(copies)]
                    call = lambda x, i: pool[i % copies](x)  # noqa: E731
                for T in (1, 6, 139):
                    x = torch.randn(T, inp)
                    if T == 139:  # compute-bound: the same W every call
                        results[way, name, T] = median_time(lambda: call(x, 0), rounds)
                    else:  # memory-bound: a different copy of W every call
                        it = iter(range(1 << 30))
                        results[way, name, T] = median_time(lambda: call(x, next(it)), rounds * 5)
                del pool

    for way in ways:
        print(f"\n{way}")
        print(f"{'shape':18} {'[out, in]':>12} {'1 tok ms':>9} {'GB/s f32':>9} {'6 tok ms':>9} "
              f"{'139 tok ms':>11} {'GFLOP/s':>8}")
        for name, out, inp in SHAPES:
            r = {T: results[way, name, T] for T in (1, 6, 139)}
            gflop = 2 * out * inp * 139 / 1e9
            print(f"{name:18} {f'[{out}, {inp}]':>12} {r[1] * 1e3:9.3f} {out * inp * 4 / 1e9 / r[1]:9.1f} "
                  f"{r[6] * 1e3:9.3f} {r[139] * 1e3:11.2f} {gflop / r[139]:8.1f}")

    layer = [SHAPES[i] for i in DELTANET_LAYER]
    gflop = sum(2 * o * i * 139 for _, o, i in layer) / 1e9
    print("\none DeltaNet layer's projections (in_proj_qkv, in_proj_z, in_proj_a, in_proj_b, out_proj):")
    for way in ways:
        t = {T: sum(results[way, n, T] for n, _, _ in layer) for T in (1, 6, 139)}
        print(f"  {way:9} 1 token {t[1] * 1e3:.3f} ms, 6 tokens {t[6] * 1e3:.3f} ms, "
              f"139 tokens {t[139] * 1e3:.2f} ms = {gflop / t[139]:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
