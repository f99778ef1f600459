"""Chapter 4's interface: the SwiGLU MLP."""
import torch.nn as nn
import torch.nn.functional as F

from qwen.weights import DTYPE


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        H, I = cfg.hidden_size, cfg.intermediate_size
        self.gate_proj = nn.Linear(H, I, bias=False, dtype=DTYPE)
        self.up_proj = nn.Linear(H, I, bias=False, dtype=DTYPE)
        self.down_proj = nn.Linear(I, H, bias=False, dtype=DTYPE)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
