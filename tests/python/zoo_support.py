"""Test support: seeded zoo models with non-trivial BatchNorm statistics, and exports.

Exports are cached per session (each takes well under a second) so that the structural,
numerical and oracle tests share them. (Not named conftest: tests/e2e has a conftest.py
of its own and both directories end up on sys.path.)
"""

from __future__ import annotations

import torch

import tinyforge  # conftest.py makes the package importable from a plain checkout
from tinyforge import models

SEED = 1234
CALIBRATION_BATCHES = 3


def randomize_batchnorm(model: torch.nn.Module, seed: int = SEED) -> None:
    """Give every BatchNorm random affine parameters and running statistics, so folding
    has something to fold (fresh BNs are the identity)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                m.bias.copy_(torch.randn(n, generator=g) * 0.1)
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) + 0.5)


def zoo_model(name: str, softmax: bool = False) -> tuple[torch.nn.Module, tuple[int, ...]]:
    torch.manual_seed(SEED)
    model, shape = models.get(name, softmax=softmax)
    randomize_batchnorm(model)
    return model, shape


def batches(shape: tuple[int, ...], n: int, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=g) for _ in range(n)]


_CACHE: dict[tuple[str, str, bool], tinyforge.ExportResult] = {}


def zoo_export(name: str, kind: str, softmax: bool = False) -> tinyforge.ExportResult:
    """Export (cached) a seeded zoo model as "float" or "qdq"."""
    key = (name, kind, softmax)
    if key not in _CACHE:
        model, shape = zoo_model(name, softmax)
        example = batches(shape, 1, SEED + 1)[0]
        calib = batches(shape, CALIBRATION_BATCHES, SEED + 2) if kind == "qdq" else None
        _CACHE[key] = tinyforge.export(model, example, calib, name=name)
    return _CACHE[key]
