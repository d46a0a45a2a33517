"""Resize (F.interpolate / nn.Upsample, RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR) and
depth <-> space (PixelShuffle / PixelUnshuffle, DEPTH_TO_SPACE / SPACE_TO_DEPTH).

PyTorch: conv -> op (the graph output) exported with PT2E, compiled for the an547 and run on the host,
within 1 LSB of PyTorch's converted int8 model (docs/numerics.md). .tflite: Keras models
converted full-integer int8, bit-exact with TensorFlow's interpreter (BUILTIN_REF) on every
output. One short board run (an547 and an386): board == host.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import tflite_oracle as oracle
import tflite_cases
from e2e_util import export_quantized, run_cli
from test_data_movement import _lowered_ops, host_vs_torch
from test_tflite_shape_ops import _convert

tf = tflite_cases.tf
layers = tflite_cases.layers


class Interp(nn.Module):
    def __init__(self, **kw) -> None:
        super().__init__()
        self.kw = kw
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The resize writes the graph output: its own error is what is measured (a conv
        # after it would scale a 1-LSB difference by its weights).
        return F.interpolate(torch.relu(self.c1(x)), **self.kw)


TORCH_CASES = {
    "nearest_x2": dict(scale_factor=2, mode="nearest"),
    "nearest_size": dict(size=(11, 7), mode="nearest"),
    "nearest_x1_5": dict(scale_factor=1.5, mode="nearest"),
    "nearest_exact": dict(size=(9, 13), mode="nearest-exact"),
    "bilinear_x2": dict(scale_factor=2, mode="bilinear", align_corners=False),
    "bilinear_size": dict(size=(11, 7), mode="bilinear", align_corners=False),
    "bilinear_align": dict(size=(13, 9), mode="bilinear", align_corners=True),
    "bilinear_down": dict(scale_factor=0.5, mode="bilinear", align_corners=False),
}


@pytest.mark.parametrize("name", list(TORCH_CASES))
def test_interpolate_within_1_lsb(name, cli, tmp_path):
    shape = (1, 3, 6, 8)
    res = export_quantized(Interp(**TORCH_CASES[name]), shape, tmp_path / f"{name}.tfg")
    resize = [op for op in res.graph["ops"] if op["type"] == "resize"]
    assert len(resize) == 1
    assert resize[0]["attrs"]["bilinear"] == ("bilinear" in name)
    assert host_vs_torch(cli, res, shape, tmp_path, n=2) <= 1


def test_upsample_module_and_shared_parameters(cli, tmp_path):
    """nn.Upsample exports the same op; the quantizer shares input and output parameters, so
    the lowered graph has no requantize beside the resize."""
    m = nn.Sequential(nn.Conv2d(3, 8, 1), nn.ReLU(), nn.Upsample(scale_factor=2), nn.Conv2d(8, 2, 1))
    shape = (1, 3, 5, 5)
    res = export_quantized(m, shape, tmp_path / "up.tfg")
    assert host_vs_torch(cli, res, shape, tmp_path, n=2) <= 1
    ops = _lowered_ops(cli, res.path)
    assert "resize" in ops and "requantize" not in ops, ops


class Shuffle(nn.Module):
    def __init__(self, unshuffle: bool) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 1)
        self.ps = nn.PixelUnshuffle(2) if unshuffle else nn.PixelShuffle(2)
        self.c2 = nn.Conv2d(64 if unshuffle else 4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c2(self.ps(torch.relu(self.c1(x))))


@pytest.mark.parametrize("unshuffle", [False, True], ids=["pixel_shuffle", "pixel_unshuffle"])
def test_pixel_shuffle_is_one_transpose(unshuffle, cli, tmp_path):
    shape = (1, 3, 6, 8)
    res = export_quantized(Shuffle(unshuffle), shape, tmp_path / "ps.tfg")
    types = [op["type"] for op in res.graph["ops"]]
    assert "transpose" in types and not any("pixel" in t for t in types), types
    assert host_vs_torch(cli, res, shape, tmp_path, n=2) <= 1
    ops = _lowered_ops(cli, res.path)
    assert ops.count("transpose") == 1, ops


# ---- .tflite ---------------------------------------------------------------------------

def _keras(fn, shape=(5, 6, 3), c=8, head=True):
    def build():
        x = tflite_cases._inp(shape)
        y = fn(layers.Conv2D(c, 1)(x))
        return tf.keras.Model(x, layers.Conv2D(4, 1)(y) if head else y)
    return build


def _lambda(fn):
    return lambda h: layers.Lambda(fn)(h)


TFLITE_CASES = {
    # (Keras 3's UpSampling2D nearest converts to RESHAPE / TILE, not a resize.)
    "upsampling_bilinear": (_keras(lambda h: layers.UpSampling2D(2, interpolation="bilinear")(h)),
                            "RESIZE_BILINEAR"),
    "bilinear_half_pixel": (_keras(_lambda(lambda t: tf.image.resize(t, (9, 11)))), "RESIZE_BILINEAR"),
    "bilinear_align": (_keras(_lambda(lambda t: tf.compat.v1.image.resize_bilinear(
        t, (9, 11), align_corners=True))), "RESIZE_BILINEAR"),
    "bilinear_legacy": (_keras(_lambda(lambda t: tf.compat.v1.image.resize_bilinear(
        t, (8, 13)))), "RESIZE_BILINEAR"),
    "bilinear_down": (_keras(_lambda(lambda t: tf.image.resize(t, (3, 4)))), "RESIZE_BILINEAR"),
    "nearest_half_pixel": (_keras(_lambda(lambda t: tf.image.resize(t, (9, 11), method="nearest"))),
                           "RESIZE_NEAREST_NEIGHBOR"),
    "nearest_align": (_keras(_lambda(lambda t: tf.compat.v1.image.resize_nearest_neighbor(
        t, (9, 11), align_corners=True))), "RESIZE_NEAREST_NEIGHBOR"),
    "nearest_legacy": (_keras(_lambda(lambda t: tf.compat.v1.image.resize_nearest_neighbor(
        t, (7, 10)))), "RESIZE_NEAREST_NEIGHBOR"),
    "depth_to_space": (_keras(_lambda(lambda t: tf.nn.depth_to_space(t, 2)), c=16, head=False), "DEPTH_TO_SPACE"),
    "space_to_depth": (_keras(_lambda(lambda t: tf.nn.space_to_depth(t, 2)), shape=(6, 4, 3)),
                       "SPACE_TO_DEPTH"),
}


@pytest.mark.parametrize("name", list(TFLITE_CASES))
def test_tflite_matches_tf_interpreter(name, cli, tmp_path):
    build, expect = TFLITE_CASES[name]
    case = oracle.write_case(name, build, [expect], _convert, tmp_path)
    data, path, ins, outs = case.data, case.path, case.ins, case.outs
    rng = np.random.default_rng(3)
    for k in range(2):
        xs = case.random_inputs(rng)
        ref = oracle.tf_run(data, xs)  # (DEPTH_TO_SPACE v2: TF's default kernels)
        got = oracle.run_ours(cli, path, xs, 1, tmp_path)[0]
        want = ref.get_tensor(outs[0]["index"])
        assert np.array_equal(got.reshape(want.shape), want), (name, k)
    run_cli(cli, "compile", path, "--target", "an547", "-o", tmp_path / "an547")


# ---- board -----------------------------------------------------------------------------

class UpBlock(nn.Module):
    """A U-Net / YOLO-neck step: conv, nearest 2x and bilinear 2x upsampling, concat, conv."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1, stride=2)
        self.c2 = nn.Conv2d(32, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.c1(x))
        a = F.interpolate(h, scale_factor=2, mode="nearest")
        b = F.interpolate(h, scale_factor=2, mode="bilinear", align_corners=False)
        return self.c2(torch.cat([a, b], dim=1))


@pytest.mark.parametrize("board", ["an547", "an386"])
def test_upsample_block_on_board(board, board_env, tmp_path):
    """One QEMU run per board (tinyforge profile): board == host; resize cost per element."""

    from tinyforge import board as tfboard  # noqa: PLC0415

    shape = (1, 3, 32, 32)
    res = export_quantized(UpBlock(), shape, tmp_path / "up_block.tfg")
    assert tfboard.run_model(res.path, board, seed=1).bit_exact
    p = tfboard.profile(res.path, board)
    rs = [o for o in p["ops"] if o["type"] == "resize"]
    assert len(rs) == 2, p["ops"]
    want = "s8_resize__mve" if board == "an547" else "s8_resize__scalar"
    assert all(o["kernel"] == want for o in rs), rs
    print(f"up block on {board}: " + ", ".join(
        f"{o['name']} {o['insns'] / o['macs']:.2f}" for o in rs) + " instructions per element")
