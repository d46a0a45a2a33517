"""Two torchvision patterns found by trying the originals (issue 14 part 1):
adaptive average pooling to sizes other than 1x1 (AlexNet's 6x6, VGG's 7x7 heads at small
inputs: the feature map is smaller than the output, or not a multiple of it) and a
BatchNorm that no conv feeds (DenseNet's, after a concat). Each exported int8 with PT2E,
compiled, and compared with PyTorch's int8 reference (tinyforge.interp): every op within
1 LSB; the float export equals the module.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from e2e_util import compare_with_pytorch, export_quantized, random_inputs, save_npy

import tinyforge


class Head(nn.Module):
    """conv -> ReLU -> adaptive average pool to `out` -> flatten -> linear."""

    def __init__(self, out, one_d: bool = False) -> None:
        super().__init__()
        self.one_d = one_d
        self.conv = nn.Conv1d(3, 8, 3, padding=1) if one_d else nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool1d(out) if one_d else nn.AdaptiveAvgPool2d(out)
        n = out if one_d else (out[0] * out[1] if isinstance(out, tuple) else out * out)
        self.fc = nn.Linear(8 * n, 5)

    def forward(self, x):
        return self.fc(self.pool(torch.relu(self.conv(x))).flatten(1))


class DenseLayer(nn.Module):
    """DenseNet's layer: BatchNorm -> ReLU -> conv over the concatenation of the features."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 6, 3, padding=1)
        self.grow = nn.Conv2d(6, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(10)
        self.out = nn.Conv2d(10, 4, 1)

    def forward(self, x):
        y = torch.relu(self.stem(x))
        y = torch.cat([y, torch.relu(self.grow(y))], 1)
        return self.out(torch.relu(self.bn(y)))


# (name, model, input shape, what the pool becomes)
CASES = [
    ("same_6x6", lambda: Head((6, 6)), (1, 3, 6, 6), None),
    ("down_6to3", lambda: Head((3, 3)), (1, 3, 6, 6), "avg_pool2d"),
    ("up_2to4", lambda: Head((4, 4)), (1, 3, 2, 2), "resize"),
    ("mixed_down_up", lambda: Head((2, 6)), (1, 3, 4, 3), "resize"),
    ("bins_2to7", lambda: Head((7, 7)), (1, 3, 2, 2), "cat"),
    ("bins_7x9to3x5", lambda: Head((3, 5)), (1, 3, 7, 9), "cat"),
    ("bins_1d_12to5", lambda: Head(5, one_d=True), (1, 3, 12), "cat"),
    ("densenet_bn", DenseLayer, (1, 3, 8, 8), "conv2d"),
]


@pytest.mark.parametrize("name,make,shape,becomes", CASES, ids=[c[0] for c in CASES])
def test_within_1_lsb_of_pytorch(name, make, shape, becomes, cli, tmp_path):
    model = make().eval()
    x = random_inputs(shape, 1, seed=3)[0]
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
        float_res = tinyforge.export(model, (x,))
        torch.testing.assert_close(float_res.reference(x), model(x), rtol=1e-4, atol=1e-5)
    types = [op["type"] for op in float_res.graph["ops"]]
    assert "adaptive_avg_pool2d" not in types and "batch_norm" not in types, types
    if becomes:
        assert becomes in types, types
    res = export_quantized(model, shape, tmp_path / "m.tfg")
    report = compare_with_pytorch(cli, res.path, save_npy(tmp_path / "x.npy", x), tmp_path)
    alone = [row for row in report["ops"] if row["alone_max_diff_lsb"] is not None]
    assert alone, report
    for row in alone:
        assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row
    out = report["ops"][-1]
    assert out["max_diff_lsb"] <= 2.0, out
