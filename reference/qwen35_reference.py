#!/usr/bin/python3
"""Independent PyTorch reference for every part of a Qwen3.5 text layer.

Written from the math in spec/qwen35.md §3 (not from the C code), in float64 so the
golden values are the "true" answer for the stored BF16/F32 weights; the C code
computes in float32 and the tests allow for that difference.

It reads a checkpoint folder in the real layout (config.json with text_config,
model.safetensors.index.json, shards with the model.language_model. prefix) with a
small safetensors reader of its own, runs fixed token ids through the whole model,
and writes every named intermediate as float32 into one safetensors file:

    embed                         [T, H]      embedding rows
    layer.{i}.input_norm          [T, H]      RMSNorm(x; input_layernorm)
    layer.{i}.linear_attn.*       DeltaNet layers: qkv, conv, q, k, v, beta, g,
                                  core, state, z, normed, out
    layer.{i}.self_attn.*         attention layers: q_raw, gate, q, k, v, probs,
                                  attn, gated, out
    layer.{i}.mixer_residual      [T, H]      x + mixer(...)
    layer.{i}.post_norm           [T, H]
    layer.{i}.mlp.{gate,up,act,out}
    layer.{i}                     [T, H]      the residual stream after layer i
    rope.cos, rope.sin            [T, rotary_dim / 2]
    final_norm                    [T, H]
    logits                        [T, V]
    ids                           [T]         the token ids (as float32)
    long.*                        layer 0's DeltaNet on a longer sequence

Run (Debian's python3 with python3-torch; the tiny checkpoint comes from the C tool):
    ch01_weights/make_synthetic --size tiny --out build/tiny
    /usr/bin/python3 reference/qwen35_reference.py --model build/tiny \
        --out reference/golden/tiny_forward.safetensors
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys

try:
    import torch
except ImportError:  # install Debian's package once, then carry on
    subprocess.run(["apt-get", "install", "-y", "python3-torch"], check=True)
    import torch

import torch.nn.functional as F

# ---------------------------------------------------------------- reading weights

DTYPES = {"BF16": (torch.bfloat16, 2), "F16": (torch.float16, 2), "F32": (torch.float32, 4)}


def read_safetensors(path):
    """name -> float64 tensor, for every tensor of one file."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype, size = DTYPES[meta["dtype"]]
        begin, end = meta["data_offsets"]
        raw = bytearray(data[begin:end])
        t = torch.frombuffer(raw, dtype=torch.int16 if size == 2 else torch.int32) if raw else torch.empty(0)
        t = t.view(dtype) if raw else t.to(dtype)
        out[name] = t.reshape(meta["shape"]).double()
    return out


def load_checkpoint(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    cfg = cfg.get("text_config", cfg)
    index = os.path.join(folder, "model.safetensors.index.json")
    files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) \
        else ["model.safetensors"]
    weights = {}
    for name in files:
        for key, t in read_safetensors(os.path.join(folder, name)).items():
            if key.startswith("model.language_model."):
                weights[key[len("model.language_model."):]] = t
            elif key == "lm_head.weight":
                weights[key] = t
    return cfg, weights

# ---------------------------------------------------------------- the math (spec §3)


def rms_norm(x, w, eps):
    """Zero-centred RMSNorm: x / rms(x) * (1 + w)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + w)


def gated_rms_norm(x, z, w, eps):
    """DeltaNet's output norm: w * (x / rms(x)) * silu(z), weight used as is."""
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)) * F.silu(z)


def l2norm(x, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


def mlp(x, w, p, trace, name):
    gate = x @ w[p + "mlp.gate_proj.weight"].T
    up = x @ w[p + "mlp.up_proj.weight"].T
    act = F.silu(gate) * up
    out = act @ w[p + "mlp.down_proj.weight"].T
    trace.update({name + ".mlp.gate": gate, name + ".mlp.up": up, name + ".mlp.act": act, name + ".mlp.out": out})
    return out


def deltanet(x, w, p, cfg, trace, name):
    """Gated DeltaNet, token by token. x: [T, H] (already normed)."""
    T = x.shape[0]
    Hk, Hv = cfg["linear_num_key_heads"], cfg["linear_num_value_heads"]
    dk, dv, K = cfg["linear_key_head_dim"], cfg["linear_value_head_dim"], cfg["linear_conv_kernel_dim"]
    key_dim = Hk * dk
    qkv = x @ w[p + "in_proj_qkv.weight"].T                      # [T, 2*key_dim + value_dim]
    conv_w = w[p + "conv1d.weight"][:, 0, :]                      # [C, K]
    padded = torch.cat([torch.zeros(K - 1, qkv.shape[1], dtype=qkv.dtype), qkv])  # zeros before t = 0
    conv = torch.stack([(padded[t:t + K] * conv_w.T).sum(0) for t in range(T)])   # out[t] uses t-K+1 .. t
    conv = F.silu(conv)
    q = conv[:, :key_dim].reshape(T, Hk, dk)
    k = conv[:, key_dim:2 * key_dim].reshape(T, Hk, dk)
    v = conv[:, 2 * key_dim:].reshape(T, Hv, dv)
    rep = Hv // Hk                                               # value head h reads key head h // rep
    q, k = q.repeat_interleave(rep, dim=1), k.repeat_interleave(rep, dim=1)
    q, k = l2norm(q), l2norm(k)
    q = q / math.sqrt(dk)
    beta = torch.sigmoid(x @ w[p + "in_proj_b.weight"].T)        # [T, Hv]
    g = -torch.exp(w[p + "A_log"]) * F.softplus(x @ w[p + "in_proj_a.weight"].T + w[p + "dt_bias"])
    S = torch.zeros(Hv, dk, dv, dtype=x.dtype)
    core = torch.zeros(T, Hv, dv, dtype=x.dtype)
    for t in range(T):
        S = S * torch.exp(g[t])[:, None, None]                     # decay
        pred = torch.einsum("hk,hkv->hv", k[t], S)                 # what the table holds for k
        S = S + k[t][:, :, None] * ((v[t] - pred) * beta[t][:, None])[:, None, :]   # write the difference
        core[t] = torch.einsum("hk,hkv->hv", q[t], S)              # read with q
    z = x @ w[p + "in_proj_z.weight"].T                           # [T, value_dim]
    normed = gated_rms_norm(core, z.reshape(T, Hv, dv), w[p + "norm.weight"], cfg["rms_norm_eps"]).reshape(T, -1)
    out = normed @ w[p + "out_proj.weight"].T
    trace.update({name + ".qkv": qkv, name + ".conv": conv, name + ".q": q, name + ".k": k, name + ".v": v,
                  name + ".beta": beta, name + ".g": g, name + ".core": core, name + ".state": S,
                  name + ".z": z, name + ".normed": normed, name + ".out": out})
    return out


def rope_tables(cfg, T):
    rp = cfg.get("rope_parameters", cfg)
    rot = int(cfg["head_dim"] * rp["partial_rotary_factor"])
    inv_freq = torch.tensor([rp["rope_theta"] ** (-2.0 * i / rot) for i in range(rot // 2)], dtype=torch.float64)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * inv_freq[None, :]      # [T, rot/2]
    return rot, torch.cos(angle), torch.sin(angle)


def apply_rope(x, rot, cos, sin):
    """x: [T, heads, d]; rotate-half on the first rot dims, the rest pass through."""
    half = rot // 2
    a, b, rest = x[..., :half], x[..., half:rot], x[..., rot:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([a * c - b * s, b * c + a * s, rest], dim=-1)


def attention(x, w, p, cfg, trace, name):
    """Gated full attention with GQA, causal. x: [T, H] (already normed)."""
    T = x.shape[0]
    Hq, Hkv, d, eps = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["rms_norm_eps"]
    qg = (x @ w[p + "q_proj.weight"].T).reshape(T, Hq, 2 * d)    # per head: d query values, then d gate values
    q_raw, gate = qg[..., :d], qg[..., d:]
    k = (x @ w[p + "k_proj.weight"].T).reshape(T, Hkv, d)
    v = (x @ w[p + "v_proj.weight"].T).reshape(T, Hkv, d)
    q = rms_norm(q_raw, w[p + "q_norm.weight"], eps)
    k = rms_norm(k, w[p + "k_norm.weight"], eps)
    rot, cos, sin = rope_tables(cfg, T)
    q, k = apply_rope(q, rot, cos, sin), apply_rope(k, rot, cos, sin)
    group = Hq // Hkv                                             # query head h uses kv head h // group
    kk, vv = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = torch.einsum("thd,shd->hts", q, kk) / math.sqrt(d)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)   # [Hq, T, T]
    attn = torch.einsum("hts,shd->thd", probs, vv).reshape(T, Hq * d)
    gated = attn * torch.sigmoid(gate.reshape(T, Hq * d))
    out = gated @ w[p + "o_proj.weight"].T
    trace.update({name + ".q_raw": q_raw, name + ".gate": gate, name + ".q": q, name + ".k": k, name + ".v": v,
                  name + ".probs": probs, name + ".attn": attn, name + ".gated": gated, name + ".out": out})
    trace.update({"rope.cos": cos, "rope.sin": sin})
    return out


def layer_types(cfg):
    if "layer_types" in cfg:
        return cfg["layer_types"]
    n = cfg.get("full_attention_interval", 4)
    return ["full_attention" if (i + 1) % n == 0 else "linear_attention" for i in range(cfg["num_hidden_layers"])]


def forward(cfg, w, ids, trace):
    eps = cfg["rms_norm_eps"]
    x = w["embed_tokens.weight"][torch.tensor(ids)]
    trace["embed"] = x
    for i, kind in enumerate(layer_types(cfg)):
        p, name = f"layers.{i}.", f"layer.{i}"
        normed = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        trace[name + ".input_norm"] = normed
        if kind == "linear_attention":
            mixed = deltanet(normed, w, p + "linear_attn.", cfg, trace, name + ".linear_attn")
        else:
            mixed = attention(normed, w, p + "self_attn.", cfg, trace, name + ".self_attn")
        x = x + mixed
        trace[name + ".mixer_residual"] = x
        normed = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        trace[name + ".post_norm"] = normed
        x = x + mlp(normed, w, p, trace, name)
        trace[name] = x
    final = rms_norm(x, w["norm.weight"], eps)
    trace["final_norm"] = final
    trace["logits"] = final @ w.get("lm_head.weight", w["embed_tokens.weight"]).T
    return trace

# ---------------------------------------------------------------- writing goldens


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().to(torch.float32).contiguous()
        raw = t.numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


# Fixed inputs: 7 tokens for the whole model, 33 for a longer run of layer 0's DeltaNet.
IDS = [3, 141, 592, 7, 1000, 59, 288]
LONG_IDS = [(17 * i * i + 5 * i + 11) % 1000 for i in range(33)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="checkpoint folder (e.g. build/tiny)")
    ap.add_argument("--out", required=True, help="golden safetensors file to write")
    args = ap.parse_args()
    cfg, w = load_checkpoint(args.model)
    trace = forward(cfg, w, IDS, {})
    trace["ids"] = torch.tensor(IDS, dtype=torch.float64)

    long = {}
    x = rms_norm(w["embed_tokens.weight"][torch.tensor(LONG_IDS)], w["layers.0.input_layernorm.weight"],
                 cfg["rms_norm_eps"])
    deltanet(x, w, "layers.0.linear_attn.", cfg, long, "long.layer.0.linear_attn")
    trace.update({k: v for k, v in long.items() if k.endswith((".out", ".state", ".core"))})
    trace["long.ids"] = torch.tensor(LONG_IDS, dtype=torch.float64)
    trace["long.layer.0.input_norm"] = x

    write_safetensors(args.out, trace, {"made_by": "reference/qwen35_reference.py",
                                        "torch": torch.__version__, "precision": "float64, stored as float32"})
    print(f"wrote {len(trace)} tensors to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
