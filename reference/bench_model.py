#!/usr/bin/python3
"""The whole Qwen3.5 text model in PyTorch, timed: the side the C benchmark compares with.

A plain float32 PyTorch implementation of the 24-layer model, written from the
model's math (not from the C code) the way the book's code computes it: the
weights read from the same safetensors files the C code maps and widened to
float32 once (as the book's loader does; BF16 in the file, A_log and the
gated-norm weight F32), F.linear for
every projection, the embedding matrix as the tied output head. One function reads
T more tokens after what a state has seen, so the same code does both jobs:
  prefill   the whole prompt at once (every projection one matrix product over the
            tokens, the convolution over the whole text, the delta rule token by
            token, causal attention over the prompt), logits for the last token only;
  decode    one token at a time, keeping every attention layer's K and V and every
            DeltaNet layer's conv history and memory tables between tokens.
torch.set_num_threads(2) by default (--threads N sets another): the book's scripts
take half the cores, os.cpu_count() // 2, which is 2 on four cores.

Run by ch07_deltanet/bench/bench_model.c (make bench); on its own:
    /usr/bin/python3 reference/bench_model.py --model models/Qwen3.5-0.8B-synthetic --counts 139 --decode 16
Prints one line per figure, each "torch <what> key=value ...":
    torch version=<v> threads=<n> blas=<libraries>        where the matrix products run
    torch load seconds=<s> float32_bytes=<n>              reading and widening the weights
    torch prefill T=<n> median_ms=<ms> min_ms=<ms> reps=<n> sum_abs=<Σ|logits|> argmax=<id>
    torch decode after=<n> tokens=<k> median_ms=<ms> min_ms=<ms> sum_abs=<Σ|logits|> argmax=<id>
    torch peak_rss_kb=<KiB>
The logits are those after the last prompt token (prefill) and after the last
decoded token (decode): the C side computes the same and compares, to show that
both ran the same model. A prefill is repeated while it fits in --budget seconds
(at least once, at most 5 times); a decode's figure is the median over its tokens,
of which there are --decode, or fewer (at least 4) when they overrun --budget.

The token ids are the Qwen3 tokenizer's for the book's sentence 今天天气不错，我们去公园
followed by 。 (1773), over and over, cut to the length wanted; a
decode reads on in the same stream. The time depends on the count, not on the ids.
Debian's python3-torch does its matrix products in the system's libblas.so.3 (the
reference BLAS unless an optimized one is installed); bench_model.c also runs this
script with OpenBLAS when it is there (see bench_deltanet.py).
"""
import argparse
import json
import math
import mmap
import os
import resource
import statistics
import struct
import subprocess
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
PREFIX = "model.language_model."


def ids_for(n):
    """The first n ids of the endless text: the sentence, 。, the sentence, 。, ..."""
    unit = SENTENCE + [FULL_STOP]
    return [unit[i % len(unit)] for i in range(n)]

# ---------------------------------------------------------------- reading the weights


def read_checkpoint(folder):
    """config (text_config) and every text tensor, without the prefix, as float32."""
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    cfg = cfg.get("text_config", cfg)
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        weight_map = json.load(f)["weight_map"]
    w = {}
    for shard in sorted(set(weight_map.values())):
        with open(os.path.join(folder, shard), "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        (n,) = struct.unpack("<Q", mm[:8])
        header = json.loads(mm[8:8 + n])
        view = memoryview(mm)
        for stored, meta in header.items():
            if not stored.startswith(PREFIX) and stored != "lm_head.weight":
                continue  # the vision tower and the mtp head
            begin, end = meta["data_offsets"]
            raw = bytearray(view[8 + n + begin:8 + n + end])  # one copy, freed once widened
            dtype = DTYPES[meta["dtype"]]
            as_int = torch.int32 if dtype == torch.float32 else torch.int16
            name = stored[len(PREFIX):] if stored.startswith(PREFIX) else stored
            w[name] = torch.frombuffer(raw, dtype=as_int).view(dtype).reshape(meta["shape"]).float()
            del raw
        view.release()
        mm.close()
    return cfg, w

# ---------------------------------------------------------------- the math


def rms_norm(x, w, eps):
    """Zero-centred RMSNorm: x / rms(x) · (1 + w)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + w)


def l2norm(x, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


class Qwen35:
    """The text model: weights as float32 tensors, the sizes from config.json."""

    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        self.eps = cfg["rms_norm_eps"]
        if "layer_types" in cfg:
            self.types = cfg["layer_types"]
        else:
            every = cfg.get("full_attention_interval", 4)
            self.types = ["full_attention" if (i + 1) % every == 0 else "linear_attention"
                          for i in range(cfg["num_hidden_layers"])]
        self.head = w.get("lm_head.weight", w["embed_tokens.weight"])  # tied: the embedding
        rp = cfg.get("rope_parameters", cfg)
        self.rot = int(cfg["head_dim"] * rp["partial_rotary_factor"])
        self.inv_freq = torch.tensor([rp["rope_theta"] ** (-2.0 * i / self.rot) for i in range(self.rot // 2)],
                                     dtype=torch.float64)

    def new_state(self):
        """What a text leaves behind: per layer its KV cache or its conv history and tables."""
        c, layers = self.cfg, []
        for kind in self.types:
            if kind == "linear_attention":
                conv_dim = 2 * c["linear_num_key_heads"] * c["linear_key_head_dim"] + \
                    c["linear_num_value_heads"] * c["linear_value_head_dim"]
                layers.append({"conv": torch.zeros(c["linear_conv_kernel_dim"] - 1, conv_dim),
                               "S": torch.zeros(c["linear_num_value_heads"], c["linear_key_head_dim"],
                                                c["linear_value_head_dim"])})
            else:
                empty = torch.zeros(0, c["num_key_value_heads"], c["head_dim"])
                layers.append({"k": empty, "v": empty.clone()})
        return {"pos": 0, "layers": layers}

    def mlp(self, x, p):
        w = self.w
        return F.linear(F.silu(F.linear(x, w[p + "gate_proj.weight"])) * F.linear(x, w[p + "up_proj.weight"]),
                        w[p + "down_proj.weight"])

    def deltanet(self, x, p, st):
        """Gated DeltaNet on x [T, H] (normed), continuing from st's conv history and tables."""
        c, w, T = self.cfg, self.w, x.shape[0]
        Hk, Hv = c["linear_num_key_heads"], c["linear_num_value_heads"]
        dk, dv = c["linear_key_head_dim"], c["linear_value_head_dim"]
        qkv = F.linear(x, w[p + "in_proj_qkv.weight"])                          # [T, conv_dim]
        window = torch.cat([st["conv"], qkv])                                   # the last K-1 rows before, then these
        st["conv"] = window[window.shape[0] - st["conv"].shape[0]:]
        conv_w = w[p + "conv1d.weight"]                                          # [conv_dim, 1, K]
        conv = F.silu(F.conv1d(window.T[None], conv_w, groups=conv_w.shape[0])[0].T)   # [T, conv_dim], causal
        q = conv[:, :Hk * dk].reshape(T, Hk, dk)
        k = conv[:, Hk * dk:2 * Hk * dk].reshape(T, Hk, dk)
        v = conv[:, 2 * Hk * dk:].reshape(T, Hv, dv)
        if Hv > Hk:  # value head h reads key head h // (Hv / Hk)
            q, k = q.repeat_interleave(Hv // Hk, 1), k.repeat_interleave(Hv // Hk, 1)
        q, k = l2norm(q) / math.sqrt(dk), l2norm(k)
        beta = torch.sigmoid(F.linear(x, w[p + "in_proj_b.weight"]))             # [T, Hv]
        g = -torch.exp(w[p + "A_log"]) * F.softplus(F.linear(x, w[p + "in_proj_a.weight"]) + w[p + "dt_bias"])
        S, out = st["S"], torch.empty(T, Hv, dv)
        for t in range(T):
            S = S * torch.exp(g[t])[:, None, None]                              # decay
            pred = torch.einsum("hk,hkv->hv", k[t], S)                          # look up with k
            S = S + k[t][:, :, None] * ((v[t] - pred) * beta[t][:, None])[:, None, :]   # write the difference
            out[t] = torch.einsum("hk,hkv->hv", q[t], S)                        # read with q
        st["S"] = S
        z = F.linear(x, w[p + "in_proj_z.weight"]).reshape(T, Hv, dv)
        normed = w[p + "norm.weight"] * (out * torch.rsqrt(out.pow(2).mean(-1, keepdim=True) + self.eps)) * F.silu(z)
        return F.linear(normed.reshape(T, Hv * dv), w[p + "out_proj.weight"])

    def rope(self, x, pos0):
        """Rotate-half RoPE on the first rot dims of x [T, heads, d], tokens at pos0, pos0 + 1, ..."""
        T, half = x.shape[0], self.rot // 2
        angle = torch.arange(pos0, pos0 + T, dtype=torch.float64)[:, None] * self.inv_freq[None, :]
        cos, sin = torch.cos(angle).float()[:, None, :], torch.sin(angle).float()[:, None, :]
        a, b, rest = x[..., :half], x[..., half:self.rot], x[..., self.rot:]
        return torch.cat([a * cos - b * sin, b * cos + a * sin, rest], dim=-1)

    def attention(self, x, p, st, pos0):
        """Gated full attention on x [T, H] (normed), the new tokens at pos0 .. pos0 + T − 1."""
        c, w, T = self.cfg, self.w, x.shape[0]
        Hq, Hkv, d = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        qg = F.linear(x, w[p + "q_proj.weight"]).reshape(T, Hq, 2 * d)          # per head: d query, d gate
        q, gate = qg[..., :d], qg[..., d:]
        k = F.linear(x, w[p + "k_proj.weight"]).reshape(T, Hkv, d)
        v = F.linear(x, w[p + "v_proj.weight"]).reshape(T, Hkv, d)
        q = self.rope(rms_norm(q, w[p + "q_norm.weight"], self.eps), pos0)
        k = self.rope(rms_norm(k, w[p + "k_norm.weight"], self.eps), pos0)
        st["k"], st["v"] = torch.cat([st["k"], k]), torch.cat([st["v"], v])      # [P, Hkv, d]
        P, group = st["k"].shape[0], Hq // Hkv
        qh = q.reshape(T, Hkv, group, d)                                         # query head h reads KV head h // group
        scores = torch.einsum("tkgd,pkd->kgtp", qh, st["k"]) / math.sqrt(d)      # [Hkv, group, T, P]
        future = torch.arange(P)[None, :] > torch.arange(pos0, pos0 + T)[:, None]  # [T, P]
        probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        attn = torch.einsum("kgtp,pkd->tkgd", probs, st["v"]).reshape(T, Hq * d)
        return F.linear(attn * torch.sigmoid(gate.reshape(T, Hq * d)), w[p + "o_proj.weight"])

    def forward(self, ids, state):
        """Reads the T tokens ids after what state has seen; the logits [V] after the last one."""
        x = self.w["embed_tokens.weight"][torch.tensor(ids)]                    # [T, H]
        pos0 = state["pos"]
        for i, kind in enumerate(self.types):
            p, st = f"layers.{i}.", state["layers"][i]
            h = rms_norm(x, self.w[p + "input_layernorm.weight"], self.eps)
            if kind == "linear_attention":
                x = x + self.deltanet(h, p + "linear_attn.", st)
            else:
                x = x + self.attention(h, p + "self_attn.", st, pos0)
            x = x + self.mlp(rms_norm(x, self.w[p + "post_attention_layernorm.weight"], self.eps), p + "mlp.")
        state["pos"] = pos0 + len(ids)
        last = rms_norm(x[-1:], self.w["norm.weight"], self.eps)                # logits only for the last token
        return F.linear(last, self.head)[0]

# ---------------------------------------------------------------- timing


def checksum(logits):
    return f"sum_abs={logits.double().abs().sum().item():.9e} argmax={int(logits.argmax())}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--counts", default="139", help="prompt lengths to time, e.g. 139,512,2048")
    ap.add_argument("--decode", type=int, default=16, help="tokens decoded after each prompt (0: none)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budget", type=float, default=20.0,
                    help="seconds: no further prefill run, nor decoded token past the 4th, once this much is spent")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch version={torch.__version__} threads={torch.get_num_threads()} blas={blas_in_use()}", flush=True)
    t0 = time.perf_counter()
    cfg, w = read_checkpoint(args.model)
    model = Qwen35(cfg, w)
    nbytes = sum(t.numel() * t.element_size() for t in w.values())
    print(f"torch load seconds={time.perf_counter() - t0:.2f} float32_bytes={nbytes}", flush=True)
    with torch.no_grad():
        for T in (int(c) for c in args.counts.split(",")):
            ids, ms, spent = ids_for(T + args.decode), [], 0.0
            while not ms or (len(ms) < 5 and spent + ms[-1] / 1e3 < args.budget):
                state = model.new_state()
                t0 = time.perf_counter()
                logits = model.forward(ids[:T], state)
                ms.append((time.perf_counter() - t0) * 1e3)
                spent += ms[-1] / 1e3
            print(f"torch prefill T={T} median_ms={statistics.median(ms):.3f} min_ms={min(ms):.3f} reps={len(ms)} "
                  f"{checksum(logits)}", flush=True)
            if args.decode > 0:
                ms = []  # up to --decode tokens; at least 4, fewer than all when they overrun the budget
                while len(ms) < args.decode and (len(ms) < 4 or sum(ms) / 1e3 < args.budget):
                    t = T + len(ms)
                    t0 = time.perf_counter()
                    logits = model.forward(ids[t:t + 1], state)
                    ms.append((time.perf_counter() - t0) * 1e3)
                print(f"torch decode after={T} tokens={len(ms)} median_ms={statistics.median(ms):.3f} "
                      f"min_ms={min(ms):.3f} {checksum(logits)}", flush=True)
    print(f"torch peak_rss_kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", flush=True)


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
