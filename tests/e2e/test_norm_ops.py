"""layer_norm and rms_norm (nn.LayerNorm with / without affine or bias, nn.RMSNorm with /
without weight) over rows of 8 .. 4,096 elements, exported with PT2E and compiled to
qlayernorm: every op within 1 LSB of PyTorch's int8 reference (dequantize -> float norm ->
quantize, tinyforge.interp), including rows that are constant (variance 0: eps decides);
one short an547 (Cortex-M55, s8_layernorm__mve) run equal to the host bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import board_op, compare_with_pytorch, random_inputs, run_cli, save_npy

ROWS = 3


def _norm(kind: str, d: int) -> nn.Module:
    return {
        "ln": lambda: nn.LayerNorm(d),
        "ln_plain": lambda: nn.LayerNorm(d, elementwise_affine=False),
        "ln_nobias": lambda: nn.LayerNorm(d, bias=False),
        "rms": lambda: nn.RMSNorm(d),
        "rms_eps": lambda: nn.RMSNorm(d, eps=1e-5),
        "rms_plain": lambda: nn.RMSNorm(d, elementwise_affine=False),
    }[kind]()


class Model(nn.Module):
    """x -> norm -> linear: the norm's input is the graph input (so a test input can hold
    constant rows) and its output a real activation."""

    def __init__(self, kind: str, d: int) -> None:
        super().__init__()
        self.norm = _norm(kind, d)
        self.head = nn.Linear(d, 4)
        g = torch.Generator().manual_seed(d)
        with torch.no_grad():
            if getattr(self.norm, "weight", None) is not None:
                self.norm.weight.copy_(torch.rand(d, generator=g) + 0.5)
            if getattr(self.norm, "bias", None) is not None:
                self.norm.bias.copy_(torch.randn(d, generator=g) * 0.3)

    def forward(self, x):
        return self.head(self.norm(x))


CASES = [("ln", 8), ("ln", 768), ("ln_plain", 64), ("ln_nobias", 100), ("rms", 64),
         ("rms_eps", 17), ("rms_plain", 8), ("ln", 4096), ("rms", 4096)]


def _inputs(d: int) -> torch.Tensor:
    """Random rows, then a constant row and a row of zeros (the input's zero point region)."""
    x = random_inputs((1, ROWS, d), 1, seed=d)[0]
    x[0, 1, :] = 0.7
    x[0, 2, :] = 0.0
    return x


@pytest.mark.parametrize("kind,d", CASES, ids=[f"{k}{d}" for k, d in CASES])
def test_norm_within_1_lsb_of_pytorch(kind, d, cli, tmp_path):
    model = Model(kind, d).eval()
    calib = [(x,) for x in random_inputs((1, ROWS, d), 8, seed=99)]
    res = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "m.tfg")
    assert "layer_norm" in {op["type"] for op in res.graph["ops"]}
    report = compare_with_pytorch(cli, res.path, save_npy(tmp_path / "x.npy", _inputs(d)),
                                  tmp_path)
    assert report["first_divergence"] is None, report
    for row in report["ops"]:
        alone = row["alone_max_diff_lsb"]
        diff = alone if alone is not None else row["max_diff_lsb"]
        assert diff <= 1.0 + 1e-6, row
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert "qlayernorm(" in text, text


def test_float_graph_matches_the_module(cli, tmp_path):
    for kind, d in [("ln", 16), ("rms", 16), ("ln_plain", 16)]:
        model = Model(kind, d).eval()
        x = random_inputs((1, ROWS, d), 1, seed=5)[0]
        res = tinyforge.export(model, (x,), path=tmp_path / f"{kind}.tfg")
        run_cli(cli, "run", res.path, "--input", save_npy(tmp_path / "x.npy", x),
                "--output", tmp_path / "y.npy")
        with torch.no_grad():
            ref = model(x).numpy()
        np.testing.assert_allclose(np.load(tmp_path / "y.npy"), ref, rtol=1e-4, atol=1e-5)


def test_layer_norm_over_two_dims_is_flattened():
    """normalized_shape [3, 8]: one layer_norm over the 24 values between two reshapes
    (decision 78; it was refused)."""
    class Two(nn.Module):
        def forward(self, x):
            return nn.functional.layer_norm(x, [3, 8])

    x = torch.randn(2, 3, 8)
    res = tinyforge.export(Two(), (x,))
    assert [op["type"] for op in res.graph["ops"]] == ["reshape", "layer_norm", "reshape"]
    torch.testing.assert_close(res.reference(x), nn.functional.layer_norm(x, [3, 8]))


def test_layer_norm_on_an547_board_equals_host(board_env, tmp_path):
    """One short QEMU run (an547, s8_layernorm__mve): outputs equal the host's bit for bit."""
    model = Model("ln", 256).eval()
    calib = [(x,) for x in random_inputs((1, 8, 256), 8, seed=99)]
    res = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "ln.tfg")
    _, ln = board_op(res.path, "an547", "s8_layernorm")  # board == host, bit for bit
    print(f"layer_norm 8x256 on an547: {ln['kernel']} {ln['insns']} instructions "
          f"({ln['insns'] / ln['macs']:.2f} per element)")
    assert ln["kernel"] == "s8_layernorm__mve"
    assert ln["insns"] <= 4 * ln["macs"]
