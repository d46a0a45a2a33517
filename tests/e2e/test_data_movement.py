"""Data-movement models from PyTorch, compiled for a board and run by the host runtime.

Each model is exported with PT2E (seeded weights and calibration), compiled with
`tinyforge compile --target an547` and its program.bin run by `tinyforge run`; the oracle is
PyTorch's converted (QDQ) module, compared on the int8 output grid (at most 1 LSB, docs/
numerics.md). The board runs of these models are in test_board.py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

import tinyforge
from tinyforge.board_build import read_compiled

from e2e_util import randomize, random_inputs, run_cli


class LeNet(nn.Module):
    """conv -> pool -> conv -> pool -> flatten (NCHW order) -> linear -> linear."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5)
        self.c2 = nn.Conv2d(6, 16, 5)
        self.f1 = nn.Linear(16 * 4 * 4, 32)
        self.f2 = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.c2(x)), 2)
        x = torch.flatten(x, 1)
        return self.f2(torch.relu(self.f1(x)))


def export_quantized(model: nn.Module, shape: tuple[int, ...], path: Path) -> tinyforge.ExportResult:
    model = randomize(model, seed=1234)
    calib = random_inputs(shape, 8, seed=7)
    return tinyforge.export(model, (calib[0],), calibration=[(x,) for x in calib], path=path)


def _to_program(x: np.ndarray, spec) -> np.ndarray:
    """A float NCHW sample as the program input (int8, NHWC when rank 4)."""
    if x.ndim == 4 and tuple(spec.shape) != x.shape:
        x = x.transpose(0, 2, 3, 1)
    if spec.dtype.kind == "f":
        return x.astype(spec.dtype)
    q = np.round(x / spec.scale) + spec.zero_point
    return np.clip(q, -128, 127).astype(np.int8)


def host_vs_torch(cli: str, res: tinyforge.ExportResult, shape: tuple[int, ...], tmp_path: Path,
                  n: int = 3) -> int:
    """Compiles for the an547, runs n seeded inputs; returns the worst |int8 difference|."""
    out = tmp_path / "an547"
    run_cli(cli, "compile", res.path, "--target", "an547", "-o", out)
    compiled = read_compiled(out)
    (ispec,), (ospec,) = compiled.inputs, compiled.outputs
    worst = 0
    for k, x in enumerate(random_inputs(shape, n, seed=11)):
        xin = _to_program(x.numpy(), ispec)
        # The program's input grid: the reference sees the same (dequantized) values.
        xf = (xin.astype(np.float32) - ispec.zero_point) * ispec.scale if xin.dtype == np.int8 \
            else xin
        if xf.ndim == 4 and xf.shape != tuple(shape):
            xf = xf.transpose(0, 3, 1, 2)
        np.save(tmp_path / f"x{k}.npy", xin)
        run_cli(cli, "run", out / "program.bin", "-i", tmp_path / f"x{k}.npy", "-o",
                tmp_path / f"y{k}.npy")
        got = np.load(tmp_path / f"y{k}.npy")
        with torch.no_grad():
            ref = res.reference(torch.from_numpy(np.ascontiguousarray(xf))).numpy()
        if got.dtype == np.int8:
            ref_q = np.clip(np.round(ref / ospec.scale) + ospec.zero_point, -128, 127)
            if ref.ndim == 4 and got.shape != ref.shape:
                ref_q = ref_q.transpose(0, 2, 3, 1)
            assert got.shape == ref_q.shape
            worst = max(worst, int(np.max(np.abs(got.astype(np.int64) - ref_q.astype(np.int64)))))
        else:
            raise AssertionError(f"unexpected output dtype {got.dtype}")
    return worst


def test_lenet_flatten_into_linear(cli, tmp_path):
    """Flatten of a spatial map in NCHW order into a linear: the layout pass permutes the
    linear's weight columns (no transpose op is left; there is no runtime kernel for one)."""
    shape = (1, 1, 28, 28)
    res = export_quantized(LeNet(), shape, tmp_path / "lenet.tfg")
    assert host_vs_torch(cli, res, shape, tmp_path) <= 1
    lowered = run_cli(cli, "compile", res.path, "--print-after", "all").stdout
    assert "= transpose(" not in lowered.split("// ---- after")[-1]
