"""Ops the graph file cannot express are rejected with the op and the model's source line."""

from __future__ import annotations

import inspect

import pytest
import torch
from torch import nn

import tinyforge


class WithCumsum(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.fc(x)
        return torch.cumprod(x, dim=1)  # CUMSUM-LINE


class FloorDivByActivation(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.div(torch.relu(x), x.mean(dim=1, keepdim=True), rounding_mode="floor")  # DIV-LINE


class BiasOnlyLayerNorm(nn.Module):
    """(A one-sided clamp was the example here until it became a hardtanh, decision 78.)"""

    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.layer_norm(x, [3], None, self.bias)  # LN-LINE


def _line(cls: type, marker: str) -> int:
    lines, start = inspect.getsourcelines(cls)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def _never_iterated():
    raise AssertionError("calibration ran before the op check")
    yield  # pragma: no cover


@pytest.mark.parametrize("quantize", [False, True])
def test_unsupported_op_names_op_and_line(quantize: bool) -> None:
    calib = _never_iterated() if quantize else None
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(WithCumsum(), torch.randn(1, 8), calib)
    msg = str(e.value)
    assert "aten.cumprod.default" in msg
    assert f"test_unsupported.py:{_line(WithCumsum, 'CUMSUM-LINE')}" in msg
    assert e.value.op == "aten.cumprod.default"


@pytest.mark.parametrize(
    "cls, op, marker",
    [(FloorDivByActivation, "aten.div.Tensor_mode", "DIV-LINE"), (BiasOnlyLayerNorm, "aten.layer_norm.default", "LN-LINE")],
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


def test_inputs_that_are_not_float32_tensors_are_named() -> None:
    """A dict of inputs or a float64 tensor: one line saying what to pass instead (a dict
    raised AttributeError from inside the exporter before)."""
    with pytest.raises(ValueError, match=r"input 0 is a dict; pass a tensor or a tuple"):
        tinyforge.export(nn.Linear(4, 4), ({"a": torch.randn(1, 4)},))
    with pytest.raises(ValueError, match=r"example_inputs: a dict; pass a tensor"):
        tinyforge.export(nn.Linear(4, 4), {"a": torch.randn(1, 4)})
    with pytest.raises(ValueError, match=r"input 0 is float64.*model.float\(\)"):
        tinyforge.export(nn.Linear(4, 4).double(), torch.randn(1, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"calibration item: input 0 is a float"):
        tinyforge.export(nn.Linear(4, 4), torch.randn(1, 4), [(1.5,)])


class Several(nn.Module):
    """Three unsupported ops in three modules (and supported ops between them)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = Cumsum()
        self.conv = nn.Conv2d(4, 4, 1)
        self.second = nn.Sequential(nn.ReLU(), SignAndNorm())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(self.conv(self.first(x)))


class Cumsum(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumprod(x, dim=1)  # CUMSUM-LINE


class SignAndNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sign(x)  # SIGN-LINE
        return nn.functional.layer_norm(y, [3], None, self.bias)  # LN2-LINE


def test_every_unsupported_op_in_one_error() -> None:
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(Several(), torch.randn(1, 4, 3, 3), _never_iterated())
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("3 unsupported ops: ")
    want = [
        ("aten.cumprod.default", "first", _line(Cumsum, "CUMSUM-LINE")),
        ("aten.sign.default", "second.1", _line(SignAndNorm, "SIGN-LINE")),
        ("aten.layer_norm.default", "second.1", _line(SignAndNorm, "LN2-LINE")),
    ]
    assert [(err.op, err.module, err.source) for err in e.value.errors] == [
        (op, module, f"test_unsupported.py:{line}") for op, module, line in want
    ]
    positions = [msg.index(f"{op} at test_unsupported.py:{line} in module '{module}'")
                 for op, module, line in want]
    assert positions == sorted(positions)
    assert e.value.exit_code == 2 and e.value.op == "aten.cumprod.default"


class Conv3dBN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3)  # an op with no mapping
        self.bn = nn.BatchNorm3d(4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(self.conv(x))


def test_batchnorm_after_an_unsupported_op_is_not_blamed() -> None:
    """The conv is what to change; the BatchNorm after it would fold into a supported one."""
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(Conv3dBN(), torch.randn(1, 2, 5, 5, 5))
    assert [err.op for err in e.value.errors] == ["aten.conv3d.default"]
    assert "BatchNorm" not in str(e.value) and "module 'conv'" in str(e.value)


class ElmanRnn(nn.Module):  # nn.RNN is not unrolled (nn.GRU / nn.LSTM are: test_rnn.py)
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.RNN(4, 8, batch_first=True)
        self.fc = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


def test_rnn_is_named_not_its_initial_state() -> None:
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(ElmanRnn(), torch.randn(1, 5, 4))
    ops = [err.op for err in e.value.errors]
    assert "aten.rnn_tanh.input" in ops and "aten.zeros.default" not in ops
    assert "module 'rnn'" in str(e.value)
