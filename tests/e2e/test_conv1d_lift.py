"""Rank-3 activations between Conv1d layers are lifted to [N, C, 1, L] (the layout pass's
first step, compiler/passes/lift_1d.cc; docs/decisions.md 93): the pads, slices,
activations, GLU's mul, concats and means between Conv1d layers run on the NHWC data
instead of between transposes to PyTorch's [N, C, L] and back. GLU's two channel halves of
one pointwise conv are two convs (split-outputs, decision 94); the causal pads before the
Conv1d layers are their padding (fold-pad, decision 96).

Each model is exported with PT2E, compiled for the an547, counted for transposes in the
compile report, and compared with PyTorch's converted int8 model op by op (within 1 LSB);
one runs on the an547 and the an386, board == host."""
from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import tinyforge

from e2e_util import compare_with_pytorch, random_inputs, run_cli, save_npy


class CausalTcn(nn.Module):
    """Dilated causal Conv1d layers, each after a left pad, SELU between (a qlut the conv
    cannot absorb), the last step's features into a Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(3 if i == 0 else 16, 16, 3, dilation=2 ** i)
                                   for i in range(3))
        self.out = nn.Linear(16, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, c in enumerate(self.convs):
            x = F.selu(c(F.pad(x, (2 * 2 ** i, 0))))
        return self.out(x[:, :, -1])


class GluBlock(nn.Module):
    """A Conformer convolution module's core on [N, d, T]: pointwise Conv1d to 2d, GLU over
    channels (two slices, a sigmoid, a mul), depthwise Conv1d, SiLU, pointwise Conv1d;
    then a concat over time with a strided view and a mean over time."""

    def __init__(self, d: int = 16, k: int = 7) -> None:
        super().__init__()
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pw2(F.silu(self.dw(F.glu(self.pw1(x), dim=1))))
        y = torch.cat([y, y[:, :, ::2] * 0.5], dim=2)
        return torch.cat([y.mean(2), y.amax(2, keepdim=True).squeeze(2)], 1)


class MidOutput(nn.Module):
    """A Conv1d's output is both a graph output and, through SELU and a pad, the next
    Conv1d's input: the lifted group leaves through a reshape to the output's [N, C, L]."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv1d(4, 8, 3)
        self.c2 = nn.Conv1d(8, 8, 3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.c1(x)
        return y, self.c2(F.pad(F.selu(y), (2, 0)))


# name -> (model, input shape, transposes in the program: the input's to NHWC, and for
# MidOutput each output's back to [N, C, L]; without the lift also two per gap)
MODELS = {"causal_tcn": (CausalTcn, (1, 3, 48), 1), "glu_block": (GluBlock, (1, 16, 24), 1),
          "mid_output": (MidOutput, (1, 4, 20), 3)}


def _export(name: str, tmp_path):
    cls, shape, _ = MODELS[name]
    torch.manual_seed(0)
    calib = [(x,) for x in random_inputs(shape, 4, seed=1)]
    return tinyforge.export(cls().eval(), calib[0], calibration=calib,
                            path=tmp_path / f"{name}.tfg"), shape


@pytest.mark.parametrize("name", list(MODELS))
def test_between_conv1d_layers_no_transposes_within_1_lsb(name, cli, tmp_path):
    res, shape = _export(name, tmp_path)
    run_cli(cli, "compile", res.path, "--target", "an547", "-o", tmp_path / "c")
    report = json.loads((tmp_path / "c" / "report.json").read_text())
    transposes = [op["name"] for op in report["ops"] if op["type"] == "transpose"]
    assert len(transposes) == MODELS[name][2], transposes
    if name == "causal_tcn":
        # fold-pad (decision 96): the left pads before the 2nd and 3rd Conv1d are their
        # padding; the input's pad (before the input's transpose) stays.
        pads = [op["name"] for op in report["ops"] if op["type"] == "qpad"]
        assert len(pads) == 1, pads
    if name == "glu_block":
        # split-outputs (decision 94): GLU's halves are two pointwise convs, not two slices of
        # one; the strided slice over time stays.
        slices = [op["name"] for op in report["ops"] if op["type"] == "slice"]
        convs = [op for op in report["ops"] if op["type"] == "qconv2d"]
        assert len(slices) == 1 and len(convs) == 3, (slices, [c["name"] for c in convs])
    x = save_npy(tmp_path / "x.npy", random_inputs(shape, 1, seed=2)[0])
    cmp = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert cmp["first_divergence"] is None, cmp
    for row in cmp["ops"]:
        if row["alone_max_diff_lsb"] is not None:
            assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row


@pytest.mark.parametrize("board", ["an547", "an386"])
def test_glu_block_on_board(board, board_env, tmp_path):
    from tinyforge import board as tfboard  # noqa: PLC0415

    res, _ = _export("glu_block", tmp_path)
    assert tfboard.run_model(res.path, board, seed=1).bit_exact
