"""Depthwise kernels of 17 to 64 taps (MobileNetV3's and EfficientNet's 5x5, ConvNeXt's 7x7)
on the M55's plane path (docs/decisions.md 90): a program with only such kernels links the
wide paths alone, runs them exactly in place, and the board equals the host."""
from __future__ import annotations

import json
import subprocess

import torch
from torch import nn

import tinyforge

from e2e_util import random_inputs


class WideDepthwise(nn.Module):
    """1x1 conv, depthwise 5x5 + ReLU, depthwise 7x7, 1x1 conv; the depthwise convs keep
    their input's shape (stride 1, same padding), so each may run in place."""

    def __init__(self) -> None:
        super().__init__()
        self.expand = nn.Conv2d(3, 24, 1)
        self.dw5 = nn.Conv2d(24, 24, 5, padding=2, groups=24)
        self.dw7 = nn.Conv2d(24, 24, 7, padding=3, groups=24)
        self.project = nn.Conv2d(24, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.project(self.dw7(torch.relu(self.dw5(self.expand(x)))))


def test_wide_depthwise_in_place_on_an547(cli, board_env, tmp_path):
    from tinyforge import board as tfboard  # noqa: PLC0415

    torch.manual_seed(0)
    shape = (1, 3, 12, 10)
    calib = [(x,) for x in random_inputs(shape, 4, seed=1)]
    res = tinyforge.export(WideDepthwise().eval(), calib[0], calibration=calib,
                           path=tmp_path / "wide_dw.tfg")
    out = tmp_path / "c"
    subprocess.run([str(cli), "compile", str(res.path), "--target", "an547", "-o", str(out)],
                   check=True, capture_output=True, text=True)
    report = json.loads((out / "report.json").read_text())
    dws = [o for o in report["ops"] if o["type"] == "qdwconv2d"]
    assert len(dws) == 2 and all(o["kernel"] == "s8_dwconv__mve" for o in dws)
    assert all(o.get("in_place") == "alias" for o in dws), [o.get("in_place") for o in dws]
    paths = json.dumps(report["kernel_paths"])
    assert "s8_dwconv__mve__plane_wide" in paths and '"s8_dwconv__mve__plane"' not in paths, paths
    # The firmware validates the in-place ops against the paths it links, then runs them.
    assert tfboard.run_model(res.path, "an547", seed=1).bit_exact
    p = tfboard.profile(res.path, "an547")
    for o in p["ops"]:
        if o["type"] == "qdwconv2d":
            assert o["insns"] <= o["macs"], o  # the general path took 1.66 to 1.98 a MAC
    print("wide depthwise on an547: " + ", ".join(
        f"{o['name']} {o['insns'] / o['macs']:.2f}" for o in p["ops"] if o["type"] == "qdwconv2d")
        + " instructions per MAC")
