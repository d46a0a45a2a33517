"""Reductions (mean / sum / amax over any dims, keepdim both), constant pad (F.pad, value 0
or not, spatial and channel) and PReLU from PyTorch: exported, compiled and run by the C++
`tinyforge run`, compared with the float module (float graphs) and with PyTorch's PT2E
converted module within 1 LSB (QDQ graphs), as tests/e2e/test_binary_ops.py does.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import tinyforge
from e2e_util import random_inputs, run_cli, save_npy
from test_binary_ops import _check


class Conv(nn.Module):
    """conv -> fn, so every op sees a real activation."""

    def __init__(self, fn, channels: int = 8) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, 4, 3)
        self.fn = fn

    def forward(self, x):
        return self.fn(self, self.conv(x))


CASES = {
    "mean_hw_keep": (lambda m, t: t.mean(dim=(2, 3), keepdim=True), "mean"),
    "mean_c": (lambda m, t: t.mean(dim=1), "mean"),
    "mean_ch_keep": (lambda m, t: t.mean(dim=(1, 2), keepdim=True), "mean"),  # C, H: NHWC {3, 1}
    "mean_cw": (lambda m, t: t.mean(dim=(1, 3)), "mean"),
    "mean_all": (lambda m, t: t.mean(dim=(1, 2, 3)), "mean"),
    "sum_hw": (lambda m, t: t.sum(dim=(2, 3)), "sum"),
    "sum_c_keep": (lambda m, t: t.sum(dim=1, keepdim=True), "sum"),
    "sum_ch_keep": (lambda m, t: torch.sum(t, dim=(1, 2), keepdim=True), "sum"),
    "amax_hw": (lambda m, t: t.amax(dim=(2, 3)), "amax"),
    "amax_c_keep": (lambda m, t: t.amax(dim=1, keepdim=True), "amax"),
    "amax_h_keep": (lambda m, t: torch.amax(t, dim=2, keepdim=True), "amax"),
    "pad_spatial": (lambda m, t: F.pad(t, (1, 2, 0, 1)), "pad"),
    "pad_value": (lambda m, t: F.pad(t, (2, 1, 1, 1), value=0.5), "pad"),
    "pad_channels": (lambda m, t: F.pad(t, (0, 0, 0, 0, 2, 3)), "pad"),
    "pad_then_conv": (lambda m, t: m.conv2(F.pad(t, (1, 1, 1, 1), value=-0.25)), "pad"),
}


class PRelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.act = nn.PReLU(init=0.2)

    def forward(self, x):
        return self.act(self.conv(x))


def test_prelu_one_slope_is_a_table(cli, tmp_path):
    res = _check(cli, PRelu().eval(), (1, 3, 6, 5), tmp_path, "prelu")
    assert "leaky_relu" in {op["type"] for op in res.graph["ops"]}


class PReluPerChannel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.act = nn.PReLU(num_parameters=8)
        with torch.no_grad():
            self.act.weight.copy_(torch.linspace(-0.5, 0.8, 8))
        self.fc = nn.Linear(8, 5)
        self.act2 = nn.PReLU(num_parameters=5)  # rank 2: [N, C]
        with torch.no_grad():
            self.act2.weight.copy_(torch.linspace(0.7, -0.3, 5))

    def forward(self, x):
        h = self.act(self.conv(x))
        return self.act2(self.fc(h.mean(dim=(2, 3))))


def test_prelu_per_channel(cli, tmp_path):
    res = _check(cli, PReluPerChannel().eval(), (1, 3, 6, 5), tmp_path, "prelu_pc")
    assert [op["type"] for op in res.graph["ops"]].count("prelu") == 2


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_pytorch(name, cli, tmp_path):
    fn, want = CASES[name]
    res = _check(cli, Conv(fn).eval(), (1, 3, 6, 5), tmp_path, name)
    types = {op["type"] for op in res.graph["ops"]}
    assert want in types, f"{name}: graph ops {sorted(types)}"


class ReduceBlock(nn.Module):
    """pad -> conv -> global mean (SE-style squeeze), a channel sum, an amax over H and a
    mean over C, H (a transpose first): every new lowering in one small model."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3)
        self.fc = nn.Conv2d(32, 32, 1)

    def forward(self, x):
        h = torch.relu(self.conv(F.pad(x, (1, 1, 1, 1), value=0.25)))
        s = torch.sigmoid(self.fc(h.mean(dim=(2, 3), keepdim=True)))
        g = h * s
        return (g.mean(dim=(2, 3)), g.sum(dim=1, keepdim=True), g.amax(dim=2, keepdim=True),
                g.mean(dim=(1, 2), keepdim=True))


@pytest.mark.parametrize("board", ["an547", "an386"])
def test_reduce_block_on_board_equals_host(board, board_env, tmp_path):
    """One short QEMU run per board: outputs equal the host's bit for bit (tfboard.run
    raises on any difference); the profile names the mean kernel the board's class runs."""
    import tinyforge
    from tinyforge import board as tfboard
    from e2e_util import random_inputs

    torch.manual_seed(3)
    shape = (1, 3, 16, 16)
    calib = [(x,) for x in random_inputs(shape, 8, seed=99)]
    res = tinyforge.export(ReduceBlock().eval(), calib[0], calibration=calib,
                           path=tmp_path / "reduce.tfg")
    tfboard.run(res.path, board, seed=1)
    prof = tfboard.profile(res.path, board, seed=1)
    kernels = {o["kernel"] for o in prof["ops"]}
    want = {"an547": "s8_mean__mve", "an386": "s8_mean__dsp"}[board]
    print(f"reduce block on {board}: {prof['insns_per_inference']} instructions; " +
          ", ".join(f"{o['kernel']} {o['insns'] / max(o['macs'], 1):.2f}/elem"
                    for o in prof["ops"]))
    assert want in kernels, sorted(kernels)


class ArgMax(nn.Module):
    """conv -> argmax / argmin over `dim` (int32 indices as the graph output)."""

    def __init__(self, dim: int, keepdim: bool, smallest: bool = False,
                 classifier: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 10) if classifier else None
        self.dim, self.keepdim, self.smallest = dim, keepdim, smallest

    def forward(self, x):
        h = self.conv(x)
        if self.fc is not None:
            h = self.fc(h.mean(dim=(2, 3)))
        fn = torch.argmin if self.smallest else torch.argmax
        return fn(h, dim=self.dim, keepdim=self.keepdim)


ARGMAX_CASES = {
    "classifier": ArgMax(1, False, classifier=True),   # [N, 10] -> [N]: the usual last op
    "c": ArgMax(1, False),                             # over C: NHWC's last axis
    "c_keep_min": ArgMax(1, True, smallest=True),
    "h_keep": ArgMax(2, True),                         # over H: reads NCHW again
    "w_min": ArgMax(-1, False, smallest=True),
}


@pytest.mark.parametrize("name", sorted(ARGMAX_CASES))
def test_argmax_matches_pytorch(name, cli, tmp_path):
    """Indices equal, exactly: the float graph vs the module, the compiled int8 program vs
    PyTorch's converted module (ties in int8 go to the lowest index in both)."""
    model = ARGMAX_CASES[name].eval()
    torch.manual_seed(3)
    shape = (1, 3, 6, 5)
    calib = [(x,) for x in random_inputs(shape, 8, seed=99)]
    inputs = random_inputs(shape, 4, seed=7)
    res = tinyforge.export(model, (inputs[0],), path=tmp_path / f"{name}.tfg")
    q = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / f"{name}_q.tfg")
    assert "argmax" in {op["type"] for op in q.graph["ops"]}
    for i, x in enumerate(inputs):
        xp = save_npy(tmp_path / f"x{i}.npy", x)
        with torch.no_grad():
            want_f, want_q = model(x).numpy(), q.reference(x).numpy()
        for graph, want in ((res.path, want_f), (q.path, want_q)):
            run_cli(cli, "run", graph, "--input", xp, "--output", tmp_path / "y.npy")
            got = np.load(tmp_path / "y.npy")
            assert got.dtype == np.int32 and got.shape == want.shape, (got.dtype, got.shape)
            assert np.array_equal(got, want), (name, i, graph)
