"""Chapter 2's interface: ids to rows of the embedding table."""
import torch
import torch.nn as nn

from qwen.weights import DTYPE


class Embedding(nn.Module):
    def __init__(self, vocab_size, hidden_size):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(vocab_size, hidden_size, dtype=DTYPE))

    def forward(self, ids):  # [B, T] -> [B, T, hidden]
        return self.weight[ids]
