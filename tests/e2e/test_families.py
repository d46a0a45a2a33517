"""The everyday network families (tinyforge.families: MobileNetV2, MobileNetV3-Small,
ShuffleNetV2, SqueezeNet, EfficientNet-B0 style, ResNet-18, two inputs / two outputs, a
U-Net-style segmenter, a two-scale YOLO-style detector, a 1-D accelerometer CNN),
issue #14 part 5. Each is exported with PT2E and:

  * compared op by op with PyTorch's converted int8 model (`compare --against pytorch`,
    the reference dumped by tinyforge.interp): no divergence, and every op alone within
    1 LSB (docs/numerics.md);
  * compiled for and run on an547 (Cortex-M55) and an386 (Cortex-M4): the board's outputs
    equal the host runtime's for the same program.bin, bit for bit. To keep CI time down,
    the models added in session 8 run on one board each, alternately (ONE_BOARD).
"""
from __future__ import annotations


import numpy as np
import pytest

import tinyforge
from tinyforge import families

from e2e_util import compare_with_pytorch

BOARDS = ("an547", "an386")
# Models run on one board only (CI time): the M55 and the M4 alternately.
ONE_BOARD = {"unet": "an547", "yolo_two_scale": "an386", "accel_cnn1d": "an547"}
BOARD_RUNS = [(name, board) for name in families.NAMES for board in BOARDS
              if ONE_BOARD.get(name, board) == board]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """name -> (graph path, one input tuple), exported once per module."""
    out = tmp_path_factory.mktemp("families")
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            f = families.get(name)
            calib = families.sample_inputs(f.input_shapes, 8, seed=7)
            res = tinyforge.export(f.model, calib[0], calibration=calib, path=out / f"{name}.tfg")
            cache[name] = (res.path, families.sample_inputs(f.input_shapes, 1, seed=3)[0])
        return cache[name]

    return get


@pytest.mark.parametrize("name", families.NAMES)
def test_family_matches_pytorch_within_1_lsb(name, exported, cli, tmp_path):
    graph, xs = exported(name)
    paths = []
    for i, x in enumerate(xs):
        paths.append(tmp_path / f"x{i}.npy")
        np.save(paths[-1], x.numpy())
    report = compare_with_pytorch(cli, graph, paths, tmp_path)
    assert report["first_divergence"] is None, report["first_divergence"]
    # (an op whose input the program stores in another element order than PyTorch, e.g.
    # inside a channel shuffle, is compared in the whole run only)
    alone = [row for row in report["ops"] if row["alone_max_diff_lsb"] is not None]
    assert len(alone) >= 0.8 * len(report["ops"]), len(alone)
    for row in alone:
        assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row


@pytest.mark.parametrize(("name", "board"), BOARD_RUNS)
def test_family_board_equals_host(name, board, exported, board_env):
    from tinyforge import board as tfboard  # noqa: PLC0415

    graph, _ = exported(name)
    assert tfboard.run_model(graph, board, seed=1).bit_exact
