"""Chapter 3's interface: the zero-centred RMSNorm, the gated RMSNorm, l2norm."""
import qwen35_reference as ref
import torch
import torch.nn as nn

from qwen.weights import DTYPE

l2norm = ref.l2norm


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim, dtype=DTYPE))  # stored centred on 0

    def forward(self, x):
        return ref.rms_norm(x, self.weight, self.eps)


class GatedRMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, dtype=DTYPE))  # used as is

    def forward(self, x, z):
        return ref.gated_rms_norm(x, z, self.weight, self.eps)
