"""Tensor.repeat / expand (+ contiguous) on activations (tinyforge.tile: cats of copies),
compiled int8 vs PyTorch's converted module: the copies are exact, so within 1 LSB overall."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

import tinyforge

from e2e_util import random_inputs, run_cli


class Tiles(nn.Module):
    """conv -> repeat over C and W; a pooled [N, C, 1, 1] expanded to H x W beside x."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.conv(x)
        r = torch.relu(h.repeat(1, 2, 1, 3))
        g = h.mean(dim=(2, 3), keepdim=True).expand(-1, -1, 5, 4).contiguous()
        return r, torch.cat((h, g), 1)


def test_repeat_expand_match_pytorch(cli, tmp_path):
    model = Tiles().eval()
    shape = (1, 3, 5, 4)
    calib = [(x,) for x in random_inputs(shape, 8, seed=99)]
    q = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "tile_q.tfg")
    types = [op["type"] for op in q.graph["ops"]]
    assert "cat" in types and not {"repeat", "expand"} & set(types), types
    for k, x in enumerate(random_inputs(shape, 2, seed=7)):
        xp = tmp_path / f"x{k}.npy"
        np.save(xp, x.numpy())
        run_cli(cli, "run", q.path, "--input", xp, "--output", tmp_path / "y0.npy",
                "--output", tmp_path / "y1.npy")
        with torch.no_grad():
            wants = [w.numpy() for w in q.reference(x)]
        for j, want in enumerate(wants):
            got = np.load(tmp_path / f"y{j}.npy")
            assert got.shape == want.shape
            step = float(np.min(np.diff(np.unique(want))))
            assert np.max(np.abs(got - want)) <= step * 1.01, (k, j)
