"""Chapter 6's interface: gated full attention (GQA, q/k norm, partial RoPE, output gate)."""
import math

import torch
import torch.nn as nn

from qwen.norm import RMSNorm
from qwen.rope import apply_rope, rope_tables
from qwen.weights import DTYPE


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        H, d = cfg.hidden_size, cfg.head_dim
        self.cfg, self.n_heads, self.n_kv, self.d = cfg, cfg.num_attention_heads, cfg.num_key_value_heads, d
        self.q_proj = nn.Linear(H, self.n_heads * 2 * d, bias=False, dtype=DTYPE)  # per head: query, then gate
        self.k_proj = nn.Linear(H, self.n_kv * d, bias=False, dtype=DTYPE)
        self.v_proj = nn.Linear(H, self.n_kv * d, bias=False, dtype=DTYPE)
        self.o_proj = nn.Linear(self.n_heads * d, H, bias=False, dtype=DTYPE)
        self.q_norm = RMSNorm(d, cfg.rms_norm_eps)
        self.k_norm = RMSNorm(d, cfg.rms_norm_eps)

    def forward(self, x):  # [B, T, hidden], positions 0 .. T - 1
        B, T, _ = x.shape
        d = self.d
        qg = self.q_proj(x).view(B, T, self.n_heads, 2 * d)
        q, gate = self.q_norm(qg[..., :d]), qg[..., d:]
        k = self.k_norm(self.k_proj(x).view(B, T, self.n_kv, d))
        v = self.v_proj(x).view(B, T, self.n_kv, d)
        cos, sin = rope_tables(self.cfg, T)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        group = self.n_heads // self.n_kv                      # query head h reads KV head h // group
        k, v = k.repeat_interleave(group, dim=2), v.repeat_interleave(group, dim=2)
        scores = torch.einsum("bthd,bshd->bhts", q, k) / math.sqrt(d)
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        probs = scores.masked_fill(future, float("-inf")).softmax(dim=-1)
        attn = torch.einsum("bhts,bshd->bthd", probs, v)
        gated = attn * torch.sigmoid(gate)
        return self.o_proj(gated.reshape(B, T, self.n_heads * d))
