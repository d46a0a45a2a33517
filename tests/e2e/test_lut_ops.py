"""The table-lookup activations from PyTorch (hardswish, hardsigmoid, silu, gelu erf/tanh,
elu, leaky_relu, sigmoid, tanh, mish, softplus, log_sigmoid, selu, celu, rrelu, the shrinks,
threshold, square; glu's sigmoid): conv -> act -> conv exported with PT2E, compiled, and the
compiled program compared with PyTorch's converted int8 model (`compare --against pytorch`,
whose reference reproduces it bit for bit). docs/numerics.md "Table lookups": every table
entry is quantize(f(dequantize(q))) with PyTorch's arithmetic, so the activation alone is
within 1 LSB (equal except float ties) and nothing diverges downstream.
"""
from __future__ import annotations


import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import compare_with_pytorch, random_inputs, run_cli, save_npy

ACTS = {
    "hardswish": nn.Hardswish(),
    "hardsigmoid": nn.Hardsigmoid(),
    "silu": nn.SiLU(),
    "gelu": nn.GELU(),
    "gelu_tanh": nn.GELU(approximate="tanh"),
    "elu": nn.ELU(alpha=0.7),
    "leaky_relu": nn.LeakyReLU(0.1),
    "sigmoid": nn.Sigmoid(),
    "tanh": nn.Tanh(),
    "mish": nn.Mish(),
    "softplus": nn.Softplus(),
    "softplus_beta": nn.Softplus(beta=2.0, threshold=3.0),
    "log_sigmoid": nn.LogSigmoid(),
    "selu": nn.SELU(),
    "celu": nn.CELU(alpha=0.5),
    "rrelu": nn.RReLU(0.1, 0.3),
    "hardshrink": nn.Hardshrink(0.4),
    "softshrink": nn.Softshrink(0.4),
    "threshold": nn.Threshold(0.2, -1.0),
    "square": torch.square,
    "glu": nn.GLU(dim=1),
}
# The graph op each becomes (the ATen op's own name where missing): SELU and CELU are ELU
# with other constants, RReLU in eval() a leaky_relu of the mean slope, GLU a slice pair
# with a sigmoid and a mul.
GRAPH_OP = {"gelu_tanh": "gelu", "softplus_beta": "softplus", "selu": "elu", "celu": "elu",
            "rrelu": "leaky_relu", "glu": "sigmoid"}


class ConvActConv(nn.Module):
    def __init__(self, act) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.act = act
        self.conv2 = nn.Conv2d(4 if isinstance(act, nn.GLU) else 8, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(self.act(self.conv1(x)))


SHAPE = (1, 3, 10, 10)


def _export(act, seed: int, tmp_path, name: str, **kwargs):
    """conv -> act -> conv with seeded weights, PT2E on 4 seeded inputs (x2)."""
    torch.manual_seed(seed)
    calib = [(x * 2,) for x in random_inputs(SHAPE, 4, seed=1)]
    return tinyforge.export(ConvActConv(act).eval(), calib[0], calibration=calib,
                            path=tmp_path / f"{name}.tfg", **kwargs)


def _assert_within_1_lsb(cli, res, tmp_path) -> None:
    x = save_npy(tmp_path / "x.npy", random_inputs(SHAPE, 1, seed=2)[0] * 2)
    report = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert report["first_divergence"] is None, report
    for row in report["ops"]:
        assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row


@pytest.mark.parametrize("name", list(ACTS))
def test_activation_compiles_to_a_table_within_1_lsb(name, cli, tmp_path):
    res = _export(ACTS[name], 3, tmp_path, name)
    assert any(op["type"] == GRAPH_OP.get(name, name) for op in res.graph["ops"])
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert text.count("= qlut(") == 1, text
    _assert_within_1_lsb(cli, res, tmp_path)


class EfficientNetBlock(nn.Module):
    """Stem conv, SiLU, 1x1 expand, SiLU, depthwise 3x3, SiLU, 1x1 project (MBConv without
    SE): before `qlut`, SiLU did not export, and x * sigmoid(x) ran s8_logistic__ref at ~300
    instructions per element on the M55."""

    def __init__(self) -> None:
        super().__init__()
        self.stem, self.a1 = nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.SiLU()
        self.expand, self.a2 = nn.Conv2d(16, 64, 1), nn.SiLU()
        self.dw, self.a3 = nn.Conv2d(64, 64, 3, padding=1, groups=64), nn.SiLU()
        self.project = nn.Conv2d(64, 24, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.a1(self.stem(x))
        return self.project(self.a3(self.dw(self.a2(self.expand(x)))))


def test_efficientnet_block_on_an547(board_env, tmp_path):
    """One QEMU run (tinyforge profile): board == host, and every table lookup within the
    issue's target of 2 instructions per element on the M55 (measured 0.26)."""

    from tinyforge import board as tfboard  # noqa: PLC0415

    torch.manual_seed(0)
    shape = (1, 3, 32, 32)
    calib = [(x,) for x in random_inputs(shape, 4, seed=1)]
    res = tinyforge.export(EfficientNetBlock().eval(), calib[0], calibration=calib,
                           path=tmp_path / "effnet_block.tfg")
    assert tfboard.run_model(res.path, "an547", seed=1).bit_exact
    p = tfboard.profile(res.path, "an547")
    luts = [o for o in p["ops"] if o["type"] == "qlut"]
    assert len(luts) == 3 and all(o["kernel"] == "s8_lut__mve" for o in luts)
    for o in luts:
        assert o["insns"] <= 2 * o["macs"], o  # macs = elements
    print(f"effnet block on an547: {p['insns_per_inference']} instructions; SiLU tables "
          + ", ".join(f"{o['insns'] / o['macs']:.2f}" for o in luts) + " per element")


# Functions with no int8 lowering (the float fallback, decision 47) between a conv and a conv:
# each chain dequantize -> unary ... -> quantize is one table of the float kernels' values
# (decision 101), so the program runs no float op; within 1 LSB of PyTorch alone.
FLOAT_CHAINS = {
    "exp": torch.exp,
    "log1p": lambda t: torch.log1p(torch.relu(t)),
    "expm1": torch.expm1,
    "sqrt_abs": lambda t: torch.sqrt(torch.abs(t)),  # two functions in one table
    "erf": torch.erf,
    "cos": torch.cos,
    "exp_neg": lambda t: torch.exp(-t),
}


@pytest.mark.parametrize("name", list(FLOAT_CHAINS))
def test_float_function_chain_compiles_to_a_table(name, cli, tmp_path):
    res = _export(FLOAT_CHAINS[name], 5, tmp_path, name,
                  allow_float=False)  # a table chain is not float
    assert any(op["type"] == "unary" for op in res.graph["ops"])
    text = run_cli(cli, "compile", res.path, "--no-float", "--print-after=dce").stdout
    assert "= unary(" not in text and "= qlut(" in text, text
    _assert_within_1_lsb(cli, res, tmp_path)
