"""Chapter 1's interface: find the model, read config.json, read the weights, load a module."""
import json
import os
from pathlib import Path

import qwen35_reference as ref
import torch

DTYPE = torch.float64  # the reference's precision; every module of this package uses it


def find_model():
    """$QWEN35_MODEL, else models/Qwen3.5-0.8B under the repository root."""
    env = os.environ.get("QWEN35_MODEL")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "models" / "Qwen3.5-0.8B"


class Config:
    """text_config's keys as attributes (hidden_size, rms_norm_eps, layer_types, ...);
    rope_theta and partial_rotary_factor also when the file keeps them in rope_parameters."""

    def __init__(self, values):
        self.__dict__.update(values)
        rope = values.get("rope_parameters") or {}
        for key in ("rope_theta", "partial_rotary_factor"):
            if key in rope and key not in values:
                setattr(self, key, rope[key])
        if "layer_types" not in values:
            self.layer_types = ref.layer_types(values)

    @classmethod
    def load(cls, path):
        with open(Path(path) / "config.json") as f:
            raw = json.load(f)
        return cls(raw.get("text_config", raw))


def load_weights(path):
    """{name without model.language_model.: tensor} for every text tensor (float64)."""
    return ref.load_checkpoint(str(path))[1]


def load(module, W, prefix):
    """Copies W[prefix + name] into each of the module's parameters; returns the module."""
    for name, p in module.named_parameters():
        key = prefix + name
        if key not in W:
            raise KeyError(f"{key} is not in the checkpoint")
        if tuple(W[key].shape) != tuple(p.shape):
            raise ValueError(f"{key}: checkpoint shape {list(W[key].shape)}, module expects {list(p.shape)}")
        with torch.no_grad():
            p.copy_(W[key].to(p.dtype))
    return module
