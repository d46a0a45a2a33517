"""The test model of the float fallback (docs/decisions.md 47): int8 conv / linear around ops
with no int8 lowering, written in torch ops: a cumulative sum, atan2 and an erf-based custom
activation. Shared by test_float_fallback.py (host) and test_float_fallback_board.py."""
from __future__ import annotations

import torch
from torch import nn

SHAPE = (1, 2, 6, 6)


class ErfGate(nn.Module):
    """x * 0.5 * (1 + erf(x / sqrt(2))) in torch ops (GELU written out): erf runs in float."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 0.5 * (1.0 + torch.erf(x * 0.7071067811865476))


class Mixed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.gate = ErfGate()
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        c = torch.cumsum(y, dim=3)             # float: no int8 cumsum
        a = torch.atan2(c, y + 1.0)            # float, reads the float cumsum directly
        return self.fc(self.gate(a).flatten(1))


def export_mixed(path, **kwargs):
    """Mixed with seeded weights, exported int8 (8 seeded calibration inputs)."""
    import tinyforge  # noqa: PLC0415

    torch.manual_seed(11)
    model = Mixed().eval()
    g = torch.Generator().manual_seed(5)
    calib = [(torch.randn(SHAPE, generator=g),) for _ in range(8)]
    return model, tinyforge.export(model, calib[0], calibration=calib, path=path, **kwargs)
