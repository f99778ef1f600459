#!/usr/bin/python3
"""Hold a C demo's --dump against your own PyTorch modules, tensor by tensor.

You wrote the book's qwen/ package (weights.py, embedding.py, norm.py, ...). A demo
of this workbook, run with --dump FILE, writes what the C code computed. This script
reads that file, runs YOUR modules on the same token ids and the same checkpoint, and
prints for every tensor it can get from your code: the shape, the largest absolute
difference and where, the largest relative difference and where, and ok or DIFF.

    ./ch07_deltanet/ch07_deltanet --model M --dump /tmp/ch07.safetensors
    /usr/bin/python3 reference/compare_with_pytorch.py --book ~/my-book-code --model M /tmp/ch07.safetensors

The dump says which demo wrote it (by its tensor names): ch02_embedding (embed),
ch03_norm (layer.0.input_norm, the gated and l2norm examples), ch04_mlp (mlp.*),
ch06_attention (layer.{L}.self_attn.*), ch07_deltanet (layer.0.linear_attn.*, and the
long text's output) and ch07_model (embed, layer.{i}, final_norm, logits). Several
dumps can be given at once.

What your qwen/ package must provide (the names of the book's chapter 7 script, and
for chapters 4 to 6 the checkpoint's own tensor names):

    qwen/weights.py    Config.load(path): text_config's keys as attributes
                       (hidden_size, rms_norm_eps, layer_types, ...)
                       load_weights(path): {name without "model.language_model.": tensor}
                       load(module, W, prefix): W[prefix + name] into each parameter
    qwen/embedding.py  Embedding(vocab_size, hidden_size): ids [B, T] -> [B, T, H]; .weight
    qwen/norm.py       RMSNorm(dim, eps)(x);  GatedRMSNorm(dim, eps)(x, z);  l2norm(x)
    qwen/mlp.py        MLP(cfg) with gate_proj, up_proj, down_proj;  mlp(x)
    qwen/attention.py  Attention(cfg) with q_proj, k_proj, v_proj, o_proj, q_norm, k_norm;
                       attn(x) for the positions 0 .. T - 1
    qwen/deltanet.py   GatedDeltaNet(cfg);  delta_rule(q, k, v, g, beta, S=None) -> (out, S),
                       called by GatedDeltaNet.forward, with q and k before l2norm

Only the modules a dump needs are imported. The intermediates come from forward
hooks on the submodules named above (in_proj_qkv's output is qkv, down_proj's input
is mlp.act, q_norm's input is q_raw, ...), from the arguments and results of your
delta_rule, and from apply_rope(x, cos, sin) when your attention.py calls a function
of that name. A tensor your code does not expose (attention's probs, say) is listed
as not compared. If your names differ, edit the small run_* function of that demo
below: each is a few lines.

Every module runs in the dtype of its parameters, on the input your own previous
modules made (so a difference shows where it starts); --isolate feeds each block the
C code's input from the dump instead, so each block is judged on its own.

A tensor is ok when max |yours - C| <= atol + rtol * max |C|. The relative column is
|yours - C| / |C| over the elements with |C| >= 1e-3 * max |C| (below that any ratio
is noise). Exit status: 0 when everything compared is ok, 1 when something differs,
2 when the files or your package cannot be used.

The dump is read with a few lines of struct + json (no safetensors package needed).
"""
import argparse
import importlib
import inspect
import json
import math
import os
import struct
import sys
from pathlib import Path

try:
    import torch
except ImportError:
    sys.exit("compare_with_pytorch.py needs PyTorch: Debian's python3-torch (apt-get install python3-torch), "
             "run with /usr/bin/python3")


class Unusable(Exception):
    """The dump, the checkpoint or the reader's package cannot be used: exit 2."""


# ---------------------------------------------------------------- the dump


def read_dump(path):
    """name -> float64 tensor, for every tensor of a float32 safetensors file."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
        (n,) = struct.unpack("<Q", blob[:8])
        header = json.loads(blob[8:8 + n])
    except (OSError, struct.error, ValueError) as e:
        raise Unusable(f"{path}: not a safetensors file ({e})")
    data, out = blob[8 + n:], {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        if meta.get("dtype") != "F32":
            raise Unusable(f"{path}: tensor {name} is {meta.get('dtype')}; a demo's --dump is float32")
        begin, end = meta["data_offsets"]
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32) if end > begin \
            else torch.empty(0)
        out[name] = t.reshape(meta["shape"]).double()
    return out


def ids_of(dump, name="ids"):
    if name not in dump:
        raise Unusable(f"the dump has no '{name}' tensor: which token ids did the demo run on?")
    return [int(round(v)) for v in dump[name].tolist()]


# ---------------------------------------------------------------- comparing


class Report:
    """One line per tensor; remembers what differed and what could not be compared."""

    def __init__(self, atol, rtol):
        self.atol, self.rtol = atol, rtol
        self.ok, self.differ, self.missing = [], [], []

    def compare(self, name, yours, c, note=""):
        if yours is None:
            self.missing.append(name + (f" ({note})" if note else ""))
            return
        y = yours.detach().double().cpu()
        if y.shape != c.shape and y.numel() == c.numel():
            y = fit(y, c.shape)
        if y.shape != c.shape:
            print(f"  {name:<34} shape: yours {list(yours.shape)}, C {list(c.shape)}  DIFF")
            self.differ.append(name)
            return
        diff = (y - c).abs()
        scale = c.abs().max().item() if c.numel() else 0.0
        if diff.numel() == 0:
            worst, where = 0.0, ()
        else:
            flat = int(torch.nan_to_num(diff, nan=math.inf).argmax())
            worst, where = diff.reshape(-1)[flat].item(), index_of(flat, c.shape)
        big = c.abs() >= 1e-3 * scale
        rel = torch.where(big, diff / c.abs().clamp_min(1e-300), torch.zeros_like(diff))
        if rel.numel() and scale > 0:
            rflat = int(torch.nan_to_num(rel, nan=math.inf).argmax())
            rworst, rwhere = rel.reshape(-1)[rflat].item(), index_of(rflat, c.shape)
        else:
            rworst, rwhere = 0.0, ()
        good = math.isfinite(worst) and worst <= self.atol + self.rtol * scale
        (self.ok if good else self.differ).append(name)
        print(f"  {name:<34} {str(list(c.shape)):<14} max|C| {scale:<9.3g} "
              f"abs {worst:<9.3g} at {fmt_index(where):<13} rel {rworst:<9.3g} at {fmt_index(rwhere):<13} "
              f"{'ok' if good else 'DIFF'}{'  ' + note if note and not good else ''}")

    def summary(self):
        print(f"{len(self.ok) + len(self.differ)} tensors compared: {len(self.ok)} ok, {len(self.differ)} differ")
        if self.missing:
            print(f"not compared (your code does not expose them): {', '.join(self.missing)}")
        if self.differ:
            print(f"the first one that differs: {self.differ[0]} (start looking there)")
        return 1 if self.differ else 0


def index_of(flat, shape):
    idx = []
    for n in reversed(shape):
        idx.append(flat % n)
        flat //= n
    return tuple(reversed(idx))


def fmt_index(idx):
    return "[" + ", ".join(str(i) for i in idx) + "]"


def fit(y, shape):
    """Your tensor in the dump's layout when only the batch dimension of 1, a split or
    merged trailing dimension, or the order of the first two dimensions differ."""
    while y.dim() > 1 and y.shape[0] == 1 and (y.dim() > len(shape) or shape[0] != 1):
        y = y[0]
    if len(shape) >= 1 and y.dim() >= 1 and y.shape[0] == shape[0]:
        return y.reshape(shape)                        # [T, H, d] <-> [T, H * d]
    if y.dim() >= 2 and len(shape) >= 2 and y.shape[1] == shape[0] and y.shape[0] == shape[1]:
        return y.transpose(0, 1).reshape(shape)        # [heads, T, d] -> [T, heads, d]
    return y


# ---------------------------------------------------------------- the reader's package


class Book:
    """The reader's qwen/ package, imported from --book, and the checkpoint it loads."""

    def __init__(self, book_dir, model_dir):
        book_dir = Path(book_dir).resolve()
        if not (book_dir / "qwen" / "__init__.py").exists() and not (book_dir / "qwen").is_dir():
            raise Unusable(f"{book_dir}: no qwen/ package in it (the book's layout: qwen/weights.py, ...)")
        sys.path.insert(0, str(book_dir))
        self.model_dir = Path(model_dir)
        weights = self.module("weights", "Config.load, load_weights and load")
        for name in ("Config", "load_weights", "load"):
            if not hasattr(weights, name):
                raise Unusable(f"{weights.__file__}: no {name} (the book's chapter 1 interface)")
        self.load_fn = weights.load
        self.cfg = weights.Config.load(self.model_dir)
        self.W = weights.load_weights(self.model_dir)

    def module(self, name, what):
        try:
            return importlib.import_module("qwen." + name)
        except ImportError as e:
            raise Unusable(f"cannot import qwen/{name}.py ({e}); this dump needs {what}")

    def cls(self, module, names, what):
        mod = self.module(module, what)
        for n in names:
            if hasattr(mod, n):
                return getattr(mod, n)
        raise Unusable(f"{mod.__file__}: none of {', '.join(names)} ({what})")

    def load(self, module, prefix):
        loaded = self.load_fn(module, self.W, prefix)
        module = loaded if loaded is not None else module
        return module.eval()

    # the parts, built and loaded as the book's scripts do
    def embedding(self):
        Embedding = self.cls("embedding", ["Embedding"], "Embedding(vocab_size, hidden_size)")
        return self.load(Embedding(self.cfg.vocab_size, self.cfg.hidden_size), "embed_tokens.")

    def rmsnorm(self, prefix, dim=None):
        RMSNorm = self.cls("norm", ["RMSNorm"], "RMSNorm(dim, eps)")
        return self.load(RMSNorm(dim or self.cfg.hidden_size, self.cfg.rms_norm_eps), prefix)

    def mlp(self, prefix):
        MLP = self.cls("mlp", ["MLP", "SwiGLU", "SwiGLUMLP", "FeedForward"], "MLP(cfg)")
        return self.load(MLP(self.cfg), prefix)

    def attention(self, prefix):
        Attention = self.cls("attention", ["Attention", "GatedAttention", "FullAttention"], "Attention(cfg)")
        return self.load(Attention(self.cfg), prefix)

    def deltanet(self, prefix):
        GatedDeltaNet = self.cls("deltanet", ["GatedDeltaNet"], "GatedDeltaNet(cfg)")
        return self.load(GatedDeltaNet(self.cfg), prefix)

    def layer_types(self):
        types = getattr(self.cfg, "layer_types", None)
        if types:
            return list(types)
        n = getattr(self.cfg, "full_attention_interval", 4)
        return ["full_attention" if (i + 1) % n == 0 else "linear_attention"
                for i in range(self.cfg.num_hidden_layers)]


def dtype_of(module):
    for p in module.parameters():
        return p.dtype
    return torch.get_default_dtype()


def batch(x, module):
    """A dump tensor [T, ...] as your module's input [1, T, ...] in its dtype."""
    return x.to(dtype_of(module))[None]


class Taps:
    """Forward hooks and wrapped functions that catch what your modules compute."""

    def __init__(self):
        self.got, self.handles, self.patched = {}, [], []

    def output(self, parent, child, name):
        self._hook(parent, child, name, lambda args, out: out)

    def input(self, parent, child, name):
        self._hook(parent, child, name, lambda args, out: args[0] if args else None)

    def _hook(self, parent, child, name, pick):
        """Keeps what the first call of parent.child saw; returns None, so the output stays as it is."""
        sub = getattr(parent, child, None)
        if not isinstance(sub, torch.nn.Module):
            return

        def hook(module, args, out):
            if name not in self.got:
                self.got[name] = pick(args, out)

        self.handles.append(sub.register_forward_hook(hook))

    def wrap(self, module, fn_name, on_call):
        """Replaces module.fn_name (a function the forward calls by that name) while tapped."""
        fn = getattr(module, fn_name, None)
        if not callable(fn):
            return False

        def wrapper(*args, **kwargs):
            result = fn(*args, **kwargs)
            on_call(args, kwargs, result)
            return result

        setattr(module, fn_name, wrapper)
        self.patched.append((module, fn_name, fn))
        return True

    def close(self):
        for h in self.handles:
            h.remove()
        for module, name, fn in self.patched:
            setattr(module, name, fn)
        self.handles, self.patched = [], []

    def get(self, name):
        return self.got.get(name)


def home_module(obj):
    """The Python module a class was defined in (where its forward looks names up)."""
    return inspect.getmodule(type(obj))


def rms(x):
    return x.double().pow(2).mean(-1).sqrt()


# ---------------------------------------------------------------- one function per demo


def run_embed(book, dump, rep, opts):
    emb = book.embedding()
    with torch.no_grad():
        x = emb(torch.tensor([ids_of(dump)]))
    rep.compare("embed", x, dump["embed"])
    return emb, x


def run_ch03(book, dump, rep, opts):
    """ch03_norm: layer 0's input_layernorm on the embedding, and the two small examples."""
    emb, x = run_embed(book, dump, rep, opts)
    norm = book.rmsnorm("layers.0.input_layernorm.")
    xin = batch(dump["embed"], norm) if opts.isolate else x
    with torch.no_grad():
        y = norm(xin)
        plain = type(norm)(book.cfg.hidden_size, book.cfg.rms_norm_eps)
        for p in plain.parameters():
            p.data.zero_()                                  # w = 0: the scale 1 + w is 1
        unscaled = plain.to(dtype_of(norm))(xin)
    hint = ""
    if "layer.0.input_norm.without_one_plus" in dump:
        wrong = dump["layer.0.input_norm.without_one_plus"]
        if fit(y.double(), wrong.shape).shape == wrong.shape and \
                torch.allclose(fit(y.double(), wrong.shape), wrong, rtol=1e-3, atol=1e-5):
            hint = "matches the demo's layer.0.input_norm.without_one_plus: your RMSNorm scales by w, not 1 + w"
    rep.compare("layer.0.input_norm", y, dump["layer.0.input_norm"], hint)
    rep.compare("layer.0.input_norm.unscaled", unscaled, dump["layer.0.input_norm.unscaled"],
                "your RMSNorm with w = 0 should be x / rms(x)")
    rep.compare("layer.0.input_norm.rms_before", rms(xin), dump["layer.0.input_norm.rms_before"])
    rep.compare("layer.0.input_norm.rms_after", rms(y), dump["layer.0.input_norm.rms_after"])
    norm_mod = book.module("norm", "GatedRMSNorm and l2norm")
    if "gated_example.out" in dump:
        out = None
        if hasattr(norm_mod, "GatedRMSNorm"):
            g = norm_mod.GatedRMSNorm(4, book.cfg.rms_norm_eps)
            for p in g.parameters():
                p.data.fill_(1.0)                           # the demo's example uses w = 1
            dt = dtype_of(g)
            with torch.no_grad():
                out = g(dump["gated_example.x"].to(dt), dump["gated_example.z"].to(dt))
        rep.compare("gated_example.out", out, dump["gated_example.out"], "no GatedRMSNorm in qwen/norm.py")
    if "l2norm_example.out" in dump:
        l2 = getattr(norm_mod, "l2norm", None)
        out = l2(dump["l2norm_example.x"].to(dtype_of(norm))) if l2 else None
        rep.compare("l2norm_example.out", out, dump["l2norm_example.out"], "no l2norm in qwen/norm.py")


def run_ch04(book, dump, rep, opts):
    """ch04_mlp: layer 0's MLP on RMSNorm(embed; layers.0.input_layernorm)."""
    emb, x = run_embed(book, dump, rep, opts)
    norm = book.rmsnorm("layers.0.input_layernorm.")
    with torch.no_grad():
        h = norm(batch(dump["embed"], norm) if opts.isolate else x)
    rep.compare("mlp.x", h, dump["mlp.x"])
    mlp = book.mlp("layers.0.mlp.")
    taps = Taps()
    taps.output(mlp, "gate_proj", "gate")
    taps.output(mlp, "up_proj", "up")
    taps.input(mlp, "down_proj", "act")
    try:
        with torch.no_grad():
            out = mlp(batch(dump["mlp.x"], mlp) if opts.isolate else h.to(dtype_of(mlp)))
    finally:
        taps.close()
    for name in ("gate", "up", "act"):
        rep.compare("mlp." + name, taps.get(name), dump["mlp." + name])
    rep.compare("mlp.out", out, dump["mlp.out"])


def attention_taps(attn, taps):
    taps.input(attn, "q_norm", "q_raw")
    taps.input(attn, "k_norm", "k_raw")
    taps.output(attn, "v_proj", "v")
    taps.input(attn, "o_proj", "gated")
    calls = []

    def on_rope(args, kwargs, result):
        tensors = [a for a in args if torch.is_tensor(a)]
        if isinstance(result, tuple) and len(result) == 2:    # apply_rotary_pos_emb(q, k, cos, sin) style
            calls.extend(result)
        else:
            calls.append(result)
        if len(tensors) >= 3:
            taps.got.setdefault("cos", tensors[-2])
            taps.got.setdefault("sin", tensors[-1])

    home = home_module(attn)
    for fn in ("apply_rope", "apply_rotary_pos_emb"):
        if taps.wrap(home, fn, on_rope):
            break
    return calls


def half_table(t, c):
    """Your cos/sin table as [T, rotary_dim / 2] (a table repeated for both halves is cut)."""
    if t is None:
        return None
    t = t.detach().double()
    while t.dim() > 2 and t.shape[0] == 1:
        t = t[0]
    if t.dim() == 2 and t.shape[-1] == 2 * c.shape[-1] and torch.equal(t[..., :c.shape[-1]], t[..., c.shape[-1]:]):
        t = t[..., :c.shape[-1]]
    return t


def run_ch06(book, dump, rep, opts):
    """ch06_attention: the first full-attention layer L on RMSNorm(embed; layers.L.input_layernorm)."""
    layers = sorted({int(k.split(".")[1]) for k in dump if k.startswith("layer.") and ".self_attn." in k})
    L = layers[0]
    a = f"layer.{L}.self_attn."
    emb, x = run_embed(book, dump, rep, opts)
    norm = book.rmsnorm(f"layers.{L}.input_layernorm.")
    with torch.no_grad():
        h = norm(batch(dump["embed"], norm) if opts.isolate else x)
    rep.compare(f"layer.{L}.input_norm", h, dump[f"layer.{L}.input_norm"])
    attn = book.attention(f"layers.{L}.self_attn.")
    taps = Taps()
    calls = attention_taps(attn, taps)
    try:
        with torch.no_grad():
            out = attn(batch(dump[f"layer.{L}.input_norm"], attn) if opts.isolate else h.to(dtype_of(attn)))
    finally:
        taps.close()
    rotated = {"q": calls[0] if len(calls) >= 1 else None, "k": calls[1] if len(calls) >= 2 else None}
    for name in ("q_raw", "gate", "q", "k", "v", "probs", "attn", "gated", "out"):
        if a + name not in dump:
            continue
        if name == "out":
            yours = out
        elif name in rotated:
            yours = rotated[name]
        else:
            yours = taps.get(name)
        rep.compare(a + name, yours, dump[a + name])
    for name in ("cos", "sin"):
        if "rope." + name in dump:
            rep.compare("rope." + name, half_table(taps.get(name), dump["rope." + name]), dump["rope." + name])


def run_ch07(book, dump, rep, opts):
    """ch07_deltanet: layer 0's Gated DeltaNet on RMSNorm(embed; layers.0.input_layernorm)."""
    a = "layer.0.linear_attn."
    emb = book.embedding()
    norm = book.rmsnorm("layers.0.input_layernorm.")
    with torch.no_grad():
        h = norm(emb(torch.tensor([ids_of(dump)])))
    rep.compare("layer.0.input_norm", h, dump["layer.0.input_norm"])
    dn = book.deltanet("layers.0.linear_attn.")
    taps = Taps()
    taps.output(dn, "in_proj_qkv", "qkv")
    taps.output(dn, "in_proj_z", "z")
    taps.output(dn, "norm", "normed")
    rule = {}

    def on_rule(args, kwargs, result):
        if rule:
            return
        names = ["q", "k", "v", "g", "beta", "S"]
        rule.update({n: v for n, v in zip(names, args)})
        rule.update({n: v for n, v in kwargs.items() if n in names})
        if isinstance(result, tuple) and len(result) >= 2:
            rule["core"], rule["state"] = result[0], result[1]
        else:
            rule["core"] = result

    found = taps.wrap(home_module(dn), "delta_rule", on_rule)
    try:
        with torch.no_grad():
            out = dn(batch(dump["layer.0.input_norm"], dn) if opts.isolate else h.to(dtype_of(dn)))
    finally:
        taps.close()
    yours = {"qkv": taps.get("qkv"), "z": taps.get("z"), "normed": taps.get("normed"), "out": out}
    note = {}
    if rule.get("q") is not None and rule.get("k") is not None and rule.get("v") is not None:
        q, k, v = rule["q"], rule["k"], rule["v"]
        dk, rep_heads = q.shape[-1], max(1, v.shape[2] // book.cfg.linear_num_key_heads)
        B, T = v.shape[0], v.shape[1]
        l2 = getattr(book.module("norm", "l2norm"), "l2norm", None)
        # delta_rule's q and k are the convolution's output, with every key head repeated
        # for its value heads; one copy of each, side by side with v, is conv
        yours["conv"] = torch.cat([q[:, :, ::rep_heads].reshape(B, T, -1), k[:, :, ::rep_heads].reshape(B, T, -1),
                                   v.reshape(B, T, -1)], dim=-1)
        yours["v"] = v
        if l2 is not None:
            yours["q"], yours["k"] = l2(q) / math.sqrt(dk), l2(k)
        else:
            note["q"] = note["k"] = "no l2norm in qwen/norm.py"
    else:
        for n in ("conv", "q", "k", "v"):
            note[n] = "delta_rule not called by name" if not found else "delta_rule's q, k, v not found"
    for n in ("g", "beta", "core", "state"):
        yours[n] = rule.get(n)
        if n not in note and yours[n] is None:
            note[n] = "delta_rule not called by name" if not found else "not returned"
    for name in ("qkv", "conv", "q", "k", "v", "beta", "g", "core", "state", "z", "normed", "out"):
        if a + name in dump:
            rep.compare(a + name, yours.get(name), dump[a + name], note.get(name, ""))
    if "long.layer.0.linear_attn.out" in dump:                # the long text: input and output only
        with torch.no_grad():
            hl = norm(emb(torch.tensor([ids_of(dump, "long.ids")])))
            rep.compare("long.layer.0.input_norm", hl, dump["long.layer.0.input_norm"])
            xl = batch(dump["long.layer.0.input_norm"], dn) if opts.isolate else hl.to(dtype_of(dn))
            rep.compare("long.layer.0.linear_attn.out", dn(xl), dump["long.layer.0.linear_attn.out"])


def run_model(book, dump, rep, opts):
    """ch07_model: the whole stack of your parts, put together as the model does:
    h = x + mixer(RMSNorm(x)), out = h + MLP(RMSNorm(h)), then the final RMSNorm and
    the tied embedding (or lm_head.weight when the checkpoint has one)."""
    emb, x = run_embed(book, dump, rep, opts)
    types = book.layer_types()
    with torch.no_grad():
        for i, kind in enumerate(types):
            p = f"layers.{i}."
            if opts.isolate:
                x = dump["embed" if i == 0 else f"layer.{i - 1}"][None]
            mixer = book.deltanet(p + "linear_attn.") if kind == "linear_attention" else book.attention(p + "self_attn.")
            n1, n2, mlp = book.rmsnorm(p + "input_layernorm."), book.rmsnorm(p + "post_attention_layernorm."), book.mlp(p + "mlp.")
            x = x.to(dtype_of(mixer))
            h = x + mixer(n1(x))
            x = h + mlp(n2(h))
            if f"layer.{i}" in dump:
                rep.compare(f"layer.{i}", x, dump[f"layer.{i}"])
            del mixer, n1, n2, mlp
        final = book.rmsnorm("norm.")
        y = final(dump[f"layer.{len(types) - 1}"][None].to(dtype_of(final)) if opts.isolate else x)
        rep.compare("final_norm", y, dump["final_norm"])
        head = book.W["lm_head.weight"] if "lm_head.weight" in book.W else emb.weight
        if opts.isolate:
            y = dump["final_norm"][None]
        logits = y.to(head.dtype) @ head.T
        rep.compare("logits", logits, dump["logits"])


def which_demo(dump):
    if "logits" in dump:
        return "ch07_model", run_model
    if "layer.0.linear_attn.out" in dump:
        return "ch07_deltanet", run_ch07
    if any(".self_attn.out" in k for k in dump):
        return "ch06_attention", run_ch06
    if "mlp.out" in dump:
        return "ch04_mlp", run_ch04
    if "layer.0.input_norm" in dump and "embed" in dump:
        return "ch03_norm", run_ch03
    if "rope.cos" in dump:
        raise Unusable("a ch05_rope dump (RoPE tables only) is not supported; ch06_attention's dump "
                       "holds rope.cos and rope.sin as your attention uses them")
    if "embed" in dump:
        return "ch02_embedding", run_embed
    raise Unusable("these tensor names are not those of a workbook demo's --dump")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="What your qwen/ package must provide: see the top of this file.")
    ap.add_argument("dumps", nargs="+", metavar="DUMP", help="a demo's --dump file")
    ap.add_argument("--book", required=True, metavar="DIR", help="the folder holding your qwen/ package")
    ap.add_argument("--model", required=True, metavar="DIR", help="the checkpoint the demo ran on")
    ap.add_argument("--isolate", action="store_true", help="feed every block the C code's input from the dump")
    ap.add_argument("--rtol", type=float, default=1e-3, help="tolerance relative to max |C| (default 1e-3)")
    ap.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)")
    opts = ap.parse_args()
    if not (Path(opts.model) / "config.json").exists():
        print(f"compare_with_pytorch.py: {opts.model}: no config.json (the checkpoint the demo ran on)",
              file=sys.stderr)
        return 2
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    status = 0
    try:
        book = Book(opts.book, opts.model)
        for path in opts.dumps:
            dump = read_dump(path)
            demo, run = which_demo(dump)
            print(f"== {path}: {demo}'s dump, {len(dump)} tensors; your code from {Path(opts.book).resolve()}"
                  f"{' (each block on the C input)' if opts.isolate else ''}")
            rep = Report(opts.atol, opts.rtol)
            run(book, dump, rep, opts)
            status = max(status, rep.summary())
    except Unusable as e:
        print(f"compare_with_pytorch.py: {e}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
