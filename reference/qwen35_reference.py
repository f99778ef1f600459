#!/usr/bin/python3
"""Independent PyTorch reference for every part of a Qwen3.5 text layer.

Written from the model's published math (zero-centred RMSNorm, gated DeltaNet with
its short convolution, gated attention with partial RoPE, SwiGLU; not from the C
code), in float64 so the golden values are the "true" answer for the stored BF16/F32
weights; the C code computes in float32 and the tests allow for that difference.

It reads a checkpoint folder in the real layout (config.json with text_config,
model.safetensors.index.json, shards with the model.language_model. prefix) with a
small safetensors reader of its own, runs fixed token ids through the whole model,
and writes the named intermediates as float32 into one safetensors file:

    ids                           [T]         the token ids (as float32), IDS below
    embed                         [T, H]      embedding rows
    layer.{i}.input_norm          [T, H]      RMSNorm(x; input_layernorm)
    layer.{i}.linear_attn.*       DeltaNet layers: qkv, conv, q, k, v, beta, g,
                                  core, state, z, normed, out
    layer.{i}.self_attn.*         attention layers: q_raw, gate, k_raw (k before
                                  k_norm), q, k, v, probs, attn, gated, out
    layer.{i}.mixer_residual      [T, H]      x + mixer(...)
    layer.{i}.post_norm           [T, H]
    layer.{i}.mlp.{gate,up,act,out}
    layer.{i}                     [T, H]      the residual stream after layer i
    rope.cos, rope.sin            [T, rotary_dim / 2]
    final_norm                    [T, H]
    logits                        [T, V]
    long.*                        layer 0's DeltaNet on a longer sequence (LONG_IDS)
    ch04.*, ch05.*, ch06.*        what the chapter 4-6 demos compute (chapter_runs)
    greedy.{k}.prompt             [n]         GREEDY_PROMPTS[k]
    greedy.{k}.tokens             [16]        the next 16 tokens by argmax (greedy)
    greedy.{k}.margin             [16]        best minus second-best logit at each step
    greedy.{k}.logits             [16, V]     the logits each token was chosen from

With --compact (the mid checkpoint) it keeps fewer intermediates: see compact_keep.

Run (Debian's python3 with python3-torch; the checkpoints come from the C tool):
    ch01_weights/make_synthetic --size tiny --out build/tiny
    /usr/bin/python3 reference/qwen35_reference.py --model build/tiny \
        --out reference/golden/tiny_forward.safetensors
    ch01_weights/make_synthetic --size mid --out build/mid
    /usr/bin/python3 reference/qwen35_reference.py --model build/mid --compact \
        --out reference/golden/mid_forward.safetensors
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

# ---------------------------------------------------------------- the math


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
    k_raw = (x @ w[p + "k_proj.weight"].T).reshape(T, Hkv, d)
    v = (x @ w[p + "v_proj.weight"].T).reshape(T, Hkv, d)
    q = rms_norm(q_raw, w[p + "q_norm.weight"], eps)
    k = rms_norm(k_raw, w[p + "k_norm.weight"], eps)
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
    trace.update({name + ".q_raw": q_raw, name + ".gate": gate, name + ".k_raw": k_raw, name + ".q": q,
                  name + ".k": k, name + ".v": v,
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

# Greedy continuations: three prompts (1, 7 and 40 tokens, every id < 1024 so that
# they fit both synthetic vocabularies), GREEDY_STEPS new tokens each. (On the tiny
# checkpoint IDS would only repeat its last token; 1..7 wanders through the vocabulary.)
GREEDY_PROMPTS = [[42], [1, 2, 3, 4, 5, 6, 7], [(31 * i * i + 7 * i + 5) % 1000 for i in range(40)]]
GREEDY_STEPS = 16
# float32 logits differ from these by ~1e-5 (tiny) to ~1e-4 (mid): a step whose
# best two logits are closer than this could go either way in the C code.
GREEDY_MIN_MARGIN = 0.01


def greedy(cfg, w, prompt, steps):
    """The next `steps` tokens by argmax, the plainest way: the whole forward pass on
    prompt + what was generated so far, once per new token. Also returns, per step,
    the best logit minus the second best (how far the choice is from a tie) and the
    last position's logits that the choice was made from, [steps, vocab]."""
    ids, margins, rows = list(prompt), [], []
    for _ in range(steps):
        logits = forward(cfg, w, ids, {})["logits"][-1]
        best, second = torch.topk(logits, 2).values.tolist()
        ids.append(int(torch.argmax(logits)))
        margins.append(best - second)
        rows.append(logits)
    return ids[len(prompt):], margins, torch.stack(rows)


def chapter_runs(cfg, w, ids):
    """What the chapter 3-6 demos compute. Each runs one part of a layer on its own, so
    its input is the embedding rows through that layer's input_layernorm (the real
    layer input needs the layers before it). Named as the demos name them in --dump,
    with the chapter in front:
        ch04.mlp.{x,gate,up,act,out}       layer 0's MLP on layer 0's input_norm
        ch06.layer.{L}.input_norm           the first full-attention layer L, on
        ch06.layer.{L}.self_attn.*            RMSNorm(embed; layers.L.input_layernorm)
        ch05.rope_check.q, .k [head_dim]   head 0's query of token 1 and KV head 0's key
                                            of token 0 from that run, after q_norm /
                                            k_norm, before RoPE
    (chapter 3's layer.0.input_norm is the model's own: layer 0 reads the embedding.)"""
    eps, out = cfg["rms_norm_eps"], {}
    x = w["embed_tokens.weight"][torch.tensor(ids)]
    x0 = rms_norm(x, w["layers.0.input_layernorm.weight"], eps)
    out["ch04.mlp.x"] = x0
    mlp(x0, w, "layers.0.", out, "ch04")
    L = layer_types(cfg).index("full_attention")
    p = f"layers.{L}."
    xl = rms_norm(x, w[p + "input_layernorm.weight"], eps)
    run = {}
    attention(xl, w, p + "self_attn.", cfg, run, f"layer.{L}.self_attn")
    run[f"layer.{L}.input_norm"] = xl
    out.update({"ch06." + k: v for k, v in run.items() if k.startswith("layer.")})
    a = f"layer.{L}.self_attn."
    tq = 1 if len(ids) > 1 else 0
    out["ch05.rope_check.q"] = rms_norm(run[a + "q_raw"][tq, 0], w[p + "self_attn.q_norm.weight"], eps)
    out["ch05.rope_check.k"] = rms_norm(run[a + "k_raw"][0, 0], w[p + "self_attn.k_norm.weight"], eps)
    return out


# --compact (for the checkpoint with the real widths, where every intermediate of
# every layer would take ~8 MB): the residual stream and every norm, the mixers' and
# MLPs' outputs, every intermediate of layer 0 (DeltaNet and MLP) and of the first
# attention layer's attention, the final norm and the logits; no long run, no
# chapter runs.
def compact_keep(name, first_full):
    parts = name.split(".")
    if parts[0] != "layer" or len(parts) == 2:
        return True                                   # embed, rope.*, final_norm, logits, ids, layer.{i}
    if parts[1] == "0" or (parts[1] == str(first_full) and parts[2] == "self_attn"):
        return True
    return name.endswith((".input_norm", ".mixer_residual", ".post_norm", "attn.out", ".mlp.out"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="checkpoint folder (e.g. build/tiny)")
    ap.add_argument("--out", required=True, help="golden safetensors file to write")
    ap.add_argument("--compact", action="store_true",
                    help="keep fewer intermediates (for the mid checkpoint; see compact_keep)")
    args = ap.parse_args()
    cfg, w = load_checkpoint(args.model)
    trace = forward(cfg, w, IDS, {})
    trace["ids"] = torch.tensor(IDS, dtype=torch.float64)

    if args.compact:
        first_full = layer_types(cfg).index("full_attention")
        trace = {k: v for k, v in trace.items() if compact_keep(k, first_full)}
    else:
        long = {}
        x = rms_norm(w["embed_tokens.weight"][torch.tensor(LONG_IDS)], w["layers.0.input_layernorm.weight"],
                     cfg["rms_norm_eps"])
        deltanet(x, w, "layers.0.linear_attn.", cfg, long, "long.layer.0.linear_attn")
        trace.update({k: v for k, v in long.items() if k.endswith((".out", ".state", ".core"))})
        trace["long.ids"] = torch.tensor(LONG_IDS, dtype=torch.float64)
        trace["long.layer.0.input_norm"] = x
        trace.update(chapter_runs(cfg, w, IDS))

    for k, prompt in enumerate(GREEDY_PROMPTS):
        tokens, margins, logits = greedy(cfg, w, prompt, GREEDY_STEPS)
        print(f"greedy.{k}: {len(prompt)} prompt tokens -> {tokens}, smallest margin {min(margins):.4f}",
              file=sys.stderr)
        if min(margins) < GREEDY_MIN_MARGIN:
            sys.exit(f"greedy.{k}: a step's best two logits are {min(margins):.2e} apart, closer than "
                     f"{GREEDY_MIN_MARGIN}: float32 could pick the other one; choose another prompt")
        trace[f"greedy.{k}.prompt"] = torch.tensor(prompt, dtype=torch.float64)
        trace[f"greedy.{k}.tokens"] = torch.tensor(tokens, dtype=torch.float64)
        trace[f"greedy.{k}.margin"] = torch.tensor(margins, dtype=torch.float64)
        trace[f"greedy.{k}.logits"] = logits

    write_safetensors(args.out, trace, {"made_by": "reference/qwen35_reference.py",
                                        "torch": torch.__version__, "precision": "float64, stored as float32"})
    print(f"wrote {len(trace)} tensors to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
