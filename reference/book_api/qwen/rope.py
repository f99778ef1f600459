"""Chapter 5's interface: the cos/sin table and partial rotate-half RoPE."""
import qwen35_reference as ref
import torch


def rope_tables(cfg, T):
    """cos, sin: [T, rotary_dim / 2] for positions 0 .. T - 1."""
    _, cos, sin = ref.rope_tables(vars(cfg), T)
    return cos, sin


def apply_rope(x, cos, sin):
    """x: [B, T, heads, head_dim]; the first 2 * cos.shape[-1] dims of every head turn."""
    rot = 2 * cos.shape[-1]
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    return torch.stack([ref.apply_rope(xb, rot, cos, sin) for xb in x])
