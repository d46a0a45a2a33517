"""Binary elementwise ops from PyTorch (add / sub / mul / div by a constant / maximum /
minimum, NumPy broadcasting, scalar and constant operands) and a squeeze-and-excitation
block: exported, compiled and run by the C++ `tinyforge run`, compared with PyTorch.

Oracles: the float module for float graphs (relative error <= 1e-4); PyTorch's PT2E
converted module for QDQ graphs, within 1 LSB of the output scale on every element
(docs/numerics.md: one requantization rounding apart).
"""
from __future__ import annotations


import numpy as np
import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import random_inputs, run_cli, save_npy

N_INPUTS = 4


class Binary(nn.Module):
    """conv -> (op with a second operand) so every op sees a real activation."""

    def __init__(self, fn, channels: int = 8) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(3, channels, 1)
        self.scale = nn.Parameter(torch.linspace(-1.5, 2.0, channels).reshape(channels, 1, 1))
        self.register_buffer("divisor", torch.linspace(0.5, 2.0, channels).reshape(channels, 1, 1))
        self.fn = fn

    def forward(self, x):
        return self.fn(self, self.conv(x), self.conv2(x))


def _se_gate(m, a, b):
    return a * torch.sigmoid(b.mean(dim=(2, 3), keepdim=True))


CASES = {
    "add_same": lambda m, a, b: a + b,
    "add_bcast_channel": lambda m, a, b: a + b.mean(dim=(2, 3), keepdim=True),
    "add_scalar": lambda m, a, b: a + 0.75,
    "add_alpha_const": lambda m, a, b: torch.add(a, 2.0, alpha=0.5),
    "sub_same": lambda m, a, b: a - b,
    "sub_bcast_row": lambda m, a, b: a - b.mean(dim=2, keepdim=True),
    "sub_scalar": lambda m, a, b: a - 1.25,
    "rsub_scalar": lambda m, a, b: 1.0 - a,
    "mul_same": lambda m, a, b: a * b,
    "mul_scalar": lambda m, a, b: a * 0.3,
    "mul_per_channel_const": lambda m, a, b: a * m.scale,
    "mul_se_gate": _se_gate,
    "mul_relu": lambda m, a, b: torch.relu(a * b),
    "div_scalar": lambda m, a, b: a / 3.0,
    "div_const_tensor": lambda m, a, b: a / m.divisor,
    "maximum": lambda m, a, b: torch.maximum(a, b),
    "minimum_bcast": lambda m, a, b: torch.minimum(a, b.mean(dim=1, keepdim=True)),
}


class SEBlock(nn.Module):
    """MobileNetV3's squeeze-and-excitation: mean -> conv -> relu -> conv -> sigmoid -> mul
    broadcast over H, W (sigmoid in place of hardsigmoid)."""

    def __init__(self, c: int = 16, r: int = 4) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        s = y.mean(dim=(2, 3), keepdim=True)
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(s))))
        return y * s


def _check(cli, model, shape, tmp_path, name):
    torch.manual_seed(3)
    calib = [(x,) for x in random_inputs(shape, 8, seed=99)]
    inputs = random_inputs(shape, N_INPUTS, seed=7)
    # Float graph vs the module.
    res = tinyforge.export(model, (inputs[0],), path=tmp_path / f"{name}.tfg")
    for i, x in enumerate(inputs):
        run_cli(cli, "run", res.path, "--input", save_npy(tmp_path / f"x{i}.npy", x),
                "--output", tmp_path / "y.npy")
        y = np.load(tmp_path / "y.npy")
        with torch.no_grad():
            ref = model(x).numpy()
        err = float(np.max(np.abs(y - ref)) / max(np.max(np.abs(ref)), 1e-12))
        assert err <= 1e-4, f"{name} float input {i}: relative error {err:.2e}"
    # QDQ graph vs PyTorch's converted module.
    res = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / f"{name}_q.tfg")
    out_t = res.graph["outputs"][0]
    producer = next(op for op in res.graph["ops"] if out_t in op["outputs"])
    lsb = res.graph["tensors"][producer["inputs"][0]]["quant"]["scale"][0]
    worst = 0.0
    for i, x in enumerate(inputs):
        run_cli(cli, "run", res.path, "--input", save_npy(tmp_path / f"x{i}.npy", x),
                "--output", tmp_path / "y.npy")
        y = np.load(tmp_path / "y.npy")
        with torch.no_grad():
            ref = res.reference(x).numpy()
        worst = max(worst, float(np.max(np.abs(y.astype(np.float64) - ref)) / lsb))
    assert worst <= 1.0 + 1e-3, f"{name}: {worst:.2f} LSB off PyTorch's converted model"
    return res


@pytest.mark.parametrize("name", sorted(CASES))
def test_binary_op_matches_pytorch(name, cli, tmp_path):
    res = _check(cli, Binary(CASES[name]).eval(), (1, 3, 6, 5), tmp_path, name)
    types = {op["type"] for op in res.graph["ops"]}
    want = name.split("_")[0]
    want = {"div": "mul", "rsub": "sub"}.get(want, want)
    assert want in types, f"{name}: graph ops {sorted(types)}"


def test_se_block_matches_pytorch(cli, tmp_path):
    res = _check(cli, SEBlock().eval(), (1, 3, 8, 8), tmp_path, "se")
    assert "mul" in {op["type"] for op in res.graph["ops"]}


def test_se_block_on_an547_board_equals_host_and_mul_is_fast(board_env, tmp_path):
    """One short QEMU run: the SE block's outputs on the an547 (M55) equal the host's bit for
    bit, and the profile shows the broadcast mul (s8_mul__mve, per-channel tables) at
    <= 3 instructions per element (s8_mul__ref: ~47 on this block)."""
    from tinyforge import board as tfboard

    torch.manual_seed(3)
    shape = (1, 3, 28, 28)
    model = SEBlock(c=64).eval()
    calib = [(x,) for x in random_inputs(shape, 8, seed=99)]
    res = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "se28.tfg")
    tfboard.run(res.path, "an547", seed=1)  # raises on any board != host difference
    prof = tfboard.profile(res.path, "an547", seed=1)
    mul = next(o for o in prof["ops"] if o["kernel"].startswith("s8_mul"))
    print(f"SE block 28x28x64 on an547: {prof['insns_per_inference']} instructions, "
          f"mul {mul['kernel']} {mul['insns']} ({mul['insns'] / mul['macs']:.2f} per element)")
    assert mul["kernel"] == "s8_mul__mve"
    assert mul["insns"] <= 3 * mul["macs"]


def test_division_by_activation_runs_in_float_or_is_refused():
    """No int8 division: it becomes the float op binary(div) (docs/decisions.md 47), and
    allow_float=False refuses it naming the ATen op."""
    class Div(nn.Module):
        def forward(self, x):
            return x / torch.sigmoid(x)

    calib = [(torch.randn(1, 4),) for _ in range(2)]
    q = tinyforge.export(Div(), calib[0], calibration=calib)
    assert [op["attrs"]["fn"] for op in q.graph["ops"] if op["type"] == "binary"] == ["div"]
    with pytest.raises(tinyforge.UnsupportedOpError, match=r"aten\.div\.Tensor"):
        tinyforge.export(Div(), calib[0], calibration=calib, allow_float=False)
