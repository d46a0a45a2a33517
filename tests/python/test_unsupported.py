"""Ops the graph file cannot express are rejected with the op and the model's source line."""

from __future__ import annotations

import inspect

import pytest
import torch
from torch import nn

import tinyforge


class WithGelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.fc(x)
        return self.act(x)  # GELU-LINE


class DivByActivation(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) / x.mean(dim=1, keepdim=True)  # DIV-LINE


class OneSidedClamp(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, max=2.0)  # CLAMP-LINE


def _line(cls: type, marker: str) -> int:
    lines, start = inspect.getsourcelines(cls)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def _never_iterated():
    raise AssertionError("calibration ran before the op check")
    yield  # pragma: no cover


@pytest.mark.parametrize("quantize", [False, True])
def test_gelu_names_op_and_line(quantize: bool) -> None:
    calib = _never_iterated() if quantize else None
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(WithGelu(), torch.randn(1, 8), calib)
    msg = str(e.value)
    assert "aten.gelu.default" in msg
    assert f"test_unsupported.py:{_line(WithGelu, 'GELU-LINE')}" in msg
    assert e.value.op == "aten.gelu.default"


@pytest.mark.parametrize(
    "cls, op, marker",
    [(DivByActivation, "aten.div.Tensor", "DIV-LINE"), (OneSidedClamp, "aten.clamp.default", "CLAMP-LINE")],
)
def test_unsupported_variants_of_supported_ops(cls: type, op: str, marker: str) -> None:
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(cls(), torch.randn(1, 4, 3, 3))
    assert op in str(e.value) and f"test_unsupported.py:{_line(cls, marker)}" in str(e.value)


def test_quantize_without_calibration_is_an_error() -> None:
    with pytest.raises(ValueError, match="calibration"):
        tinyforge.export(nn.Linear(4, 4), torch.randn(1, 4), quantize=True)
    with pytest.raises(ValueError, match="no batches"):
        tinyforge.export(nn.Linear(4, 4), torch.randn(1, 4), [])
