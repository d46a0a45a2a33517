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


def _tiles():
    import tensorflow as tf  # noqa: PLC0415
    from test_tflite_shape_ops import _lambda, inp, layers  # noqa: PLC0415

    x = inp((5, 4, 3))
    h = layers.Conv2D(6, 1)(x)
    return tf.keras.Model(x, [
        _lambda(lambda t: tf.tile(t, [1, 2, 1, 3]))(h),         # H and C
        layers.UpSampling2D(2, interpolation="nearest")(h),     # Keras 3: TILE + RESHAPE
    ])


def test_tflite_tile_matches_tf_interpreter(cli, tmp_path):
    """TILE (tf.tile, Keras' nearest UpSampling2D) bit-exact with TF's interpreter (its
    default kernels: the reference resolver has no int8 TILE, version 3)."""
    import tensorflow as tf  # noqa: PLC0415
    import tflite_oracle as oracle  # noqa: PLC0415
    from test_tflite_shape_ops import _convert  # noqa: PLC0415

    case = oracle.write_case("tile", _tiles, ["TILE"], _convert, tmp_path)
    rng = np.random.default_rng(3)
    for k in range(2):
        xs = case.random_inputs(rng)
        ref = tf.lite.Interpreter(model_content=case.data)
        ref.allocate_tensors()
        ref.set_tensor(case.ins[0]["index"], xs[0])
        ref.invoke()
        ours = oracle.run_ours(cli, case.path, xs, len(case.outs), tmp_path)
        for j, d in enumerate(case.outs):
            want = ref.get_tensor(d["index"])
            assert np.array_equal(ours[j].reshape(want.shape), want), (k, j)
