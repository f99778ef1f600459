#!/usr/bin/python3
"""Layer 0's Gated DeltaNet in PyTorch, timed: the side the C benchmark compares with.

The computation is the book's chapter 7 layer as PyTorch code of the same shape:
float32 weights in nn.Linear / nn.Conv1d form, the projections and the convolution
over the whole text at once, then the delta rule token by token (decay, look up with
k, write the difference × β, read with q), gated RMSNorm, out_proj. It is written
from the math in docs/math.md §6. The weights are read from the same
safetensors files the C code maps (BF16, A_log and the norm weight F32), widened to
float32 once, as the book's loader does. torch.set_num_threads(2) by default
(--threads N sets another): the book's scripts take half the cores,
os.cpu_count() // 2, which is 2 on four cores.

Run by ch07_deltanet/bench/bench_deltanet.c (make bench); on its own:
    /usr/bin/python3 reference/bench_deltanet.py --model models/Qwen3.5-0.8B-synthetic --counts 6,7,139,159
Prints which BLAS library PyTorch runs its matrix products in, then one line per
token count: "torch T=<count> median_ms=<ms> min_ms=<ms> reps=<n> sum_abs=<Σ|y|>"
(the sum lets the C side check that both computed the same layer).

Debian's python3-torch does its matrix products through libblas.so.3, which is the
reference BLAS (plain loops, far slower than an optimized BLAS) unless an optimized
one is installed (libopenblas0-pthread). The C benchmark
runs this script as installed and, when OpenBLAS is there, with LD_LIBRARY_PATH
pointing at it, with and without OMP_WAIT_POLICY=PASSIVE (torch's OpenMP threads
otherwise spin while OpenBLAS's threads work, on the same cores), and compares with
the fastest.
The token ids are the Qwen3 tokenizer's for the book's sentence (docs/tokenizer.md §6)
joined with 。 (id 1773); the time depends on the count, not on the ids.
"""
import argparse
import json
import math
import mmap
import os
import statistics
import struct
import subprocess
import sys
import time

try:
    import torch
except ImportError:  # install Debian's package once, then carry on
    subprocess.run(["apt-get", "install", "-y", "python3-torch"], check=True)
    import torch

import torch.nn.functional as F

SENTENCE = [100644, 104307, 100832, 3837, 97639, 85336, 102077]  # 今天天气不错，我们去公园 (Qwen3 tokenizer)
FULL_STOP = 1773                                                  # 。
DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}


def ids_for(count):
    """6/7 tokens: the sentence; 139/159: the sentence joined 20 times with 。."""
    for n in (6, 7):
        if count == n:
            return SENTENCE[:n]
        if count == 20 * n + 19:
            return sum(([FULL_STOP] + SENTENCE[:n] for _ in range(19)), SENTENCE[:n])
    raise SystemExit(f"bench_deltanet.py: no text with {count} tokens (6, 7, 139 or 159)")


def read_tensors(folder, wanted):
    """The named text tensors (without the model.language_model. prefix) as float32."""
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    cfg = cfg.get("text_config", cfg)
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        weight_map = json.load(f)["weight_map"]
    out = {}
    for name in wanted:
        stored = "model.language_model." + name
        with open(os.path.join(folder, weight_map[stored]), "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            (n,) = struct.unpack("<Q", mm[:8])
            meta = json.loads(mm[8:8 + n])[stored]
            begin, end = meta["data_offsets"]
            raw = bytearray(mm[8 + n + begin:8 + n + end])
            mm.close()
        dtype = DTYPES[meta["dtype"]]
        int_type = torch.int32 if dtype == torch.float32 else torch.int16
        out[name] = torch.frombuffer(raw, dtype=int_type).view(dtype).reshape(meta["shape"]).float()
    return cfg, out


class GatedDeltaNet(torch.nn.Module):
    def __init__(self, cfg, w, p):
        super().__init__()
        self.n_k, self.n_v = cfg["linear_num_key_heads"], cfg["linear_num_value_heads"]
        self.dk, self.dv = cfg["linear_key_head_dim"], cfg["linear_value_head_dim"]
        self.kernel, self.eps = cfg["linear_conv_kernel_dim"], cfg["rms_norm_eps"]
        H, conv_dim = cfg["hidden_size"], 2 * self.n_k * self.dk + self.n_v * self.dv
        lin = lambda name: torch.nn.Parameter(w[p + name + ".weight"], requires_grad=False)
        self.in_proj_qkv, self.in_proj_z = torch.nn.Linear(H, conv_dim, bias=False), torch.nn.Linear(H, self.n_v * self.dv, bias=False)
        self.in_proj_b, self.in_proj_a = torch.nn.Linear(H, self.n_v, bias=False), torch.nn.Linear(H, self.n_v, bias=False)
        self.out_proj = torch.nn.Linear(self.n_v * self.dv, H, bias=False)
        for name in ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj"):
            getattr(self, name).weight = lin(name)
        self.conv1d = torch.nn.Conv1d(conv_dim, conv_dim, self.kernel, groups=conv_dim, padding=self.kernel - 1, bias=False)
        self.conv1d.weight = lin("conv1d")
        self.A_log, self.dt_bias, self.norm_w = w[p + "A_log"], w[p + "dt_bias"], w[p + "norm.weight"]

    def forward(self, x):  # x: [1, T, H], already normed
        T = x.shape[1]
        qkv = F.silu(self.conv1d(self.in_proj_qkv(x).transpose(1, 2))[..., :T]).transpose(1, 2)  # causal: cut the future
        kd = self.n_k * self.dk
        q = qkv[..., :kd].reshape(1, T, self.n_k, self.dk)
        k = qkv[..., kd:2 * kd].reshape(1, T, self.n_k, self.dk)
        v = qkv[..., 2 * kd:].reshape(1, T, self.n_v, self.dv)
        if self.n_v > self.n_k:  # value head h reads key head h // (n_v / n_k)
            q, k = (t.repeat_interleave(self.n_v // self.n_k, 2) for t in (q, k))
        q = q * torch.rsqrt(q.pow(2).sum(-1, keepdim=True) + 1e-6) / math.sqrt(self.dk)
        k = k * torch.rsqrt(k.pow(2).sum(-1, keepdim=True) + 1e-6)
        beta = torch.sigmoid(self.in_proj_b(x))                                   # [1, T, n_v]
        g = -self.A_log.exp() * F.softplus(self.in_proj_a(x) + self.dt_bias)    # [1, T, n_v]
        S = x.new_zeros(1, self.n_v, self.dk, self.dv)
        out = torch.empty_like(v)
        for t in range(T):
            S = S * g[:, t].exp()[:, :, None, None]                               # decay
            pred = torch.einsum("bhk,bhkv->bhv", k[:, t], S)                      # look up with k
            S = S + torch.einsum("bhk,bhv->bhkv", k[:, t], (v[:, t] - pred) * beta[:, t, :, None])  # write the difference
            out[:, t] = torch.einsum("bhk,bhkv->bhv", q[:, t], S)                 # read with q
        z = self.in_proj_z(x).reshape(1, T, self.n_v, self.dv)
        normed = self.norm_w * (out * torch.rsqrt(out.pow(2).mean(-1, keepdim=True) + self.eps)) * F.silu(z)
        return self.out_proj(normed.reshape(1, T, -1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--counts", default="6,7,139,159")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    p = "layers.0.linear_attn."
    names = [p + n for n in ("in_proj_qkv.weight", "in_proj_z.weight", "in_proj_b.weight", "in_proj_a.weight",
                             "conv1d.weight", "A_log", "dt_bias", "norm.weight", "out_proj.weight")]
    cfg, w = read_tensors(args.model, names + ["embed_tokens.weight", "layers.0.input_layernorm.weight"])
    dn = GatedDeltaNet(cfg, w, p)
    emb, norm_w = w["embed_tokens.weight"], w["layers.0.input_layernorm.weight"]
    print(f"torch version={torch.__version__} threads={torch.get_num_threads()} blas={blas_in_use()}", flush=True)
    with torch.no_grad():
        for count in (int(c) for c in args.counts.split(",")):
            e = emb[torch.tensor(ids_for(count))][None]                          # [1, T, H]
            h = e * torch.rsqrt(e.pow(2).mean(-1, keepdim=True) + cfg["rms_norm_eps"]) * (1 + norm_w)
            # warm-up, then as many runs as fit in about 3 s (at least 3, at most 200)
            t0 = time.perf_counter()
            y = dn(h)
            first = time.perf_counter() - t0
            for _ in range(2 if first < 0.2 else 0):
                dn(h)
            reps = max(3, min(200, int(3.0 / max(first, 1e-4))))
            ms = []
            for _ in range(reps):
                t0 = time.perf_counter()
                y = dn(h)
                ms.append((time.perf_counter() - t0) * 1e3)
            assert tuple(y.shape) == (1, count, cfg["hidden_size"])
            l1 = y.double().abs().sum().item()  # so the C side can check it computed the same layer
            print(f"torch T={count} median_ms={statistics.median(ms):.3f} min_ms={min(ms):.3f} reps={reps} "
                  f"sum_abs={l1:.9e}", flush=True)


def blas_in_use():
    """Which BLAS library this process loaded (PyTorch's matrix products run there)."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() and ".so" in line}
    except OSError:
        return "unknown"
    names = sorted(os.path.relpath(p, "/usr/lib/x86_64-linux-gnu") if p.startswith("/usr/lib/x86_64-linux-gnu")
                   else p for p in libs)
    return ",".join(names) if names else "none-found"


if __name__ == "__main__":
    main()
