"""Residual pipes (docs/decisions.md 99): a ResNet block written in PyTorch, conv -> conv ->
add, runs as one pipe whose ADD reads the block's input again, row for row, with the block's
output over its input. Written both ways round (`x + f(x)` and `f(x) + x`: the window is
the ADD's second or first input), and a downsampling block whose shortcut is a strided 1x1
conv (the ADD's other input is not the pipe's input).
  * with `--min-ram` the plan has pipes ending in an ADD, in both operand orders;
  * the pipe program's output equals the whole-tensor program's (`--speed-over-ram`) on
    the host runtime for several inputs, and both track PyTorch;
  * on the an547 the firmware equals the host run.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

import tinyforge
from tinyforge import board_run

from e2e_util import board_environment, run_cli


class Block(nn.Module):
    def __init__(self, c: int, shortcut_first: bool) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1)
        self.c2 = nn.Conv2d(c, c, 3, padding=1)
        self.shortcut_first = shortcut_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.c2(torch.relu(self.c1(x)))
        return torch.relu(x + f if self.shortcut_first else f + x)


class Down(nn.Module):
    def __init__(self, c: int, d: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(c, d, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(d, d, 3, padding=1)
        self.skip = nn.Conv2d(c, d, 1, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.c2(torch.relu(self.c1(x))) + self.skip(x))


class ResNetSmall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.b1 = Block(16, shortcut_first=True)
        self.b2 = Block(16, shortcut_first=False)
        self.down = Down(16, 32)
        self.head = nn.Linear(32, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        x = self.down(self.b2(self.b1(x)))
        return self.head(x.mean((2, 3)))


def _compile(cli, model: Path, out: Path, *extra: str) -> dict:
    run_cli(cli, "compile", model, "--target", "an547", "-o", out, *extra)
    return json.loads((out / "report.json").read_text())


def test_residual_blocks_run_as_pipes(cli, tmp_path):
    torch.manual_seed(99)
    m = ResNetSmall().eval()
    calib = [torch.randn(1, 3, 32, 32) for _ in range(8)]
    path = tinyforge.export(m, calib[0], calibration=calib, path=tmp_path / "res.tfg",
                            name="res").path
    report = _compile(cli, path, tmp_path / "pipe", "--min-ram")
    _compile(cli, path, tmp_path / "whole", "--speed-over-ram")
    ops = report["ops"]
    adds = [op for op in ops if op["type"] == "qadd"]
    assert len(adds) == 3
    piped = [op for op in adds if "pipe_stage" in op]
    assert all(op["pipe_stage"] == op["pipe_stages"] - 1 for op in piped)
    # Both identity blocks end their pipes, one with the window as the ADD's first input,
    # one as its second (the program's in-place input slot).
    names = {op["name"] for op in piped}
    assert any("b1" in n for n in names) and any("b2" in n for n in names), names
    (inp,), (out,) = report["inputs"], report["outputs"]
    s_in, z_in = inp["quant"]["scale"][0], inp["quant"]["zero_point"][0]
    s_out, z_out = out["quant"]["scale"][0], out["quant"]["zero_point"][0]
    rng = np.random.default_rng(3)
    for k in range(3):
        x = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
        q = np.clip(np.round(x.transpose(0, 2, 3, 1) / s_in) + z_in, -128, 127).astype(np.int8)
        np.save(tmp_path / "x.npy", q)
        ys = {}
        for run in ("pipe", "whole"):
            run_cli(cli, "run", tmp_path / run / "program.bin", "-i", tmp_path / "x.npy",
                    "-o", tmp_path / f"y_{run}.npy")
            ys[run] = np.load(tmp_path / f"y_{run}.npy")
        assert np.array_equal(ys["pipe"], ys["whole"]), f"input {k}"
        # And both track PyTorch (on the quantized input), loosely: six int8 convs deep.
        xq = torch.from_numpy(((q.astype(np.float32) - z_in) * s_in).transpose(0, 3, 1, 2))
        ref = m(xq).detach().numpy()
        got = (ys["pipe"].astype(np.float32) - z_out) * s_out
        assert np.abs(got - ref).max() <= 0.1 * np.abs(ref).max() + 3 * s_out, (got, ref)
    with board_environment(cli):
        o = board_run.run_model(path, "an547", compile_args=["--min-ram"])
    assert o.bit_exact, o.mismatch
