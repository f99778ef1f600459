"""Chapter 7's interface: the token-by-token gated delta rule and the Gated DeltaNet around it."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from qwen.norm import GatedRMSNorm, l2norm
from qwen.weights import DTYPE


def delta_rule(q, k, v, g, beta, S=None):
    """q, k: [B, T, heads, dk] (before l2norm), v: [B, T, heads, dv], g, beta: [B, T, heads].
    Returns the output [B, T, heads, dv] and the tables after the last token [B, heads, dk, dv]."""
    B, T, n, dk = q.shape
    q, k = l2norm(q) / math.sqrt(dk), l2norm(k)
    if S is None:
        S = q.new_zeros(B, n, dk, v.shape[-1])
    out = torch.empty_like(v)
    for t in range(T):
        S = S * g[:, t].exp()[..., None, None]                                   # decay
        pred = torch.einsum("bhk,bhkv->bhv", k[:, t], S)                         # look up with k
        S = S + torch.einsum("bhk,bhv->bhkv", k[:, t], (v[:, t] - pred) * beta[:, t, :, None])  # write the difference
        out[:, t] = torch.einsum("bhk,bhkv->bhv", q[:, t], S)                    # read with q
    return out, S


class GatedDeltaNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        H = cfg.hidden_size
        self.n_k, self.n_v = cfg.linear_num_key_heads, cfg.linear_num_value_heads
        self.dk, self.dv = cfg.linear_key_head_dim, cfg.linear_value_head_dim
        self.key_dim, self.value_dim = self.n_k * self.dk, self.n_v * self.dv
        self.conv_dim, K = 2 * self.key_dim + self.value_dim, cfg.linear_conv_kernel_dim
        self.in_proj_qkv = nn.Linear(H, self.conv_dim, bias=False, dtype=DTYPE)
        self.in_proj_z = nn.Linear(H, self.value_dim, bias=False, dtype=DTYPE)
        self.in_proj_b = nn.Linear(H, self.n_v, bias=False, dtype=DTYPE)
        self.in_proj_a = nn.Linear(H, self.n_v, bias=False, dtype=DTYPE)
        self.conv1d = nn.Conv1d(self.conv_dim, self.conv_dim, K, groups=self.conv_dim, bias=False, dtype=DTYPE)
        self.dt_bias = nn.Parameter(torch.ones(self.n_v, dtype=DTYPE))
        self.A_log = nn.Parameter(torch.zeros(self.n_v, dtype=DTYPE))
        self.norm = GatedRMSNorm(self.dv, cfg.rms_norm_eps)
        self.out_proj = nn.Linear(self.value_dim, H, bias=False, dtype=DTYPE)

    def forward(self, x):  # [B, T, hidden] -> [B, T, hidden]
        B, T, _ = x.shape
        w = self.conv1d.weight[:, 0, :]                                         # [conv_dim, K]: the taps
        K = w.shape[-1]
        qkv = F.pad(self.in_proj_qkv(x).transpose(1, 2), (K - 1, 0))            # zeros before the first token
        c = sum(w[:, j, None] * qkv[..., j:j + T] for j in range(K))            # out[t] = sum_j w[j] in[t-K+1+j]
        c = F.silu(c).transpose(1, 2)
        q, k, v = c.split([self.key_dim, self.key_dim, self.value_dim], dim=-1)
        q, k = q.reshape(B, T, self.n_k, self.dk), k.reshape(B, T, self.n_k, self.dk)
        v = v.reshape(B, T, self.n_v, self.dv)
        if self.n_v > self.n_k:                                                 # value head h reads key head h // rep
            q, k = (t.repeat_interleave(self.n_v // self.n_k, dim=2) for t in (q, k))
        beta = torch.sigmoid(self.in_proj_b(x))
        g = -self.A_log.exp() * F.softplus(self.in_proj_a(x) + self.dt_bias)
        o, _ = delta_rule(q, k, v, g, beta)
        o = self.norm(o, self.in_proj_z(x).reshape(B, T, self.n_v, self.dv))
        return self.out_proj(o.reshape(B, T, self.value_dim))
