"""The conv-like gaps of issue 14: Conv1d (a 1xW conv2d), grouped and dilated convs,
depthwise with a depth multiplier, transposed convs (the stride-phase form of
python/tinyforge/conv_rewrite.py and the importer's TRANSPOSE_CONV, docs/decisions.md).

* PyTorch: the rewritten float graph equals the module (PyTorch's own conv1d /
  conv_transpose2d as the oracle); the int8 program equals PyTorch's converted model
  (`compare --against pytorch`: no divergence, every op within 1 LSB alone).
* .tflite: Keras models converted full-integer int8, bit-exact with TensorFlow's interpreter
  (BUILTIN_REF kernels) on the graph outputs.
* Boards: the 1-D accelerometer CNN and a small transposed-conv decoder on the an547 and the
  an386, board == host.
"""
from __future__ import annotations


import numpy as np
import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import compare_with_pytorch, randomize, random_inputs, run_cli, save_npy


class Accel1d(nn.Module):
    """A 1-D CNN for 3-axis accelerometer windows (1x3x128): Conv1d / BN / ReLU x3 (one
    strided and dilated, one grouped, one depthwise), max pool, global pool, Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(3, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 24, 3, stride=2, padding=2, dilation=2, groups=4), nn.BatchNorm1d(24),
            nn.ReLU(),
            nn.Conv1d(24, 24, 3, padding=1, groups=24), nn.BatchNorm1d(24), nn.ReLU6(),
            nn.MaxPool1d(2),
            nn.Conv1d(24, 32, 1), nn.BatchNorm1d(32), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.fc = nn.Linear(32, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x))


class Decoder(nn.Module):
    """conv -> ConvTranspose2d (+BN, ReLU) -> conv: the U-Net / generator upsampling step."""

    def __init__(self, bias: bool = True, **kw) -> None:
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.up = nn.ConvTranspose2d(8, 6, bias=bias, **kw)
        self.bn = nn.BatchNorm2d(6)
        self.head = nn.Conv2d(6, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.bn(self.up(torch.relu(self.enc(x))))))


class GroupedDilated(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.grouped = nn.Conv2d(8, 12, 3, padding=1, groups=2)   # 4 input channels per group
        self.dilated = nn.Conv2d(12, 8, 3, padding=3, dilation=3)
        self.dw2 = nn.Conv2d(8, 16, 3, padding=1, groups=8)       # depth multiplier 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.a(x))
        return self.dw2(torch.relu(self.dilated(torch.relu(self.grouped(y)))))


class Upsample1d(nn.Module):
    """ConvTranspose1d (+BN, ReLU) between two Conv1d: a 1-D decoder step."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Conv1d(3, 8, 3, padding=1)
        self.up = nn.ConvTranspose1d(8, 6, 4, stride=2, padding=1)
        self.bn = nn.BatchNorm1d(6)
        self.head = nn.Conv1d(6, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.bn(self.up(torch.relu(self.enc(x))))))


TORCH_CASES = {
    "tconv1d": (Upsample1d, (1, 3, 16)),
    "accel1d": (Accel1d, (1, 3, 128)),
    "grouped_dilated": (GroupedDilated, (1, 3, 12, 12)),
    "tconv_k2s2": (lambda: Decoder(kernel_size=2, stride=2), (1, 3, 6, 5)),
    "tconv_k4s2p1": (lambda: Decoder(kernel_size=4, stride=2, padding=1), (1, 3, 6, 5)),
    "tconv_k3s2p1op1": (lambda: Decoder(kernel_size=3, stride=2, padding=1, output_padding=1),
                        (1, 3, 6, 5)),
    "tconv_k3s1_nobias": (lambda: Decoder(bias=False, kernel_size=3), (1, 3, 6, 5)),
    "tconv_k3x2_s3x2": (lambda: Decoder(kernel_size=(3, 2), stride=(3, 2), padding=(2, 0),
                                        output_padding=(1, 1)), (1, 3, 5, 4)),
}


def _model(name: str) -> nn.Module:
    build, _ = TORCH_CASES[name]
    torch.manual_seed(0)
    return randomize(build(), seed=5)


@pytest.mark.parametrize("name", list(TORCH_CASES))
def test_pytorch_rewrite_matches_module(name):
    """The 2-D graph the exporter writes computes what PyTorch's conv1d / pools /
    conv_transpose2d compute (float)."""
    model = _model(name)
    x = random_inputs(TORCH_CASES[name][1], 1, seed=2)[0]
    res = tinyforge.export(model, x)
    types = [op["type"] for op in res.graph["ops"]]
    assert "conv2d" in types and not any(t.endswith(("1d", "transpose2d")) for t in types), types
    with torch.no_grad():
        np.testing.assert_allclose(res.reference(x).numpy(), model(x).numpy(), rtol=1e-4, atol=1e-5)


def _export_qdq(name: str, tmp_path):
    model = _model(name)
    shape = TORCH_CASES[name][1]
    calib = [(x,) for x in random_inputs(shape, 8, seed=1)]
    return tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / f"{name}.tfg")


@pytest.mark.parametrize("name", list(TORCH_CASES))
def test_pytorch_int8_within_1_lsb(name, cli, tmp_path):
    res = _export_qdq(name, tmp_path)
    x = save_npy(tmp_path / "x.npy", random_inputs(TORCH_CASES[name][1], 1, seed=3)[0])
    report = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert report["first_divergence"] is None, report
    for row in report["ops"]:  # (a view whose input the reference lacks is not run alone)
        alone = row["alone_max_diff_lsb"]
        diff = alone if alone is not None else row["max_diff_lsb"]
        assert diff <= 1.0 + 1e-6, row
    if name.startswith("tconv") and name != "tconv1d":  # the activation fuses into the phase conv
        text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
        assert text.count("qconv2d(") == 3 and "requantize(" not in text, text
        assert text.count("= slice(") <= 1, text  # the crop of rows and columns: one slice


def test_batchnorm_after_conv1d_folds():
    model = _model("accel1d")
    res = tinyforge.export(model, torch.randn(1, 3, 128))
    types = [op["type"] for op in res.graph["ops"]]
    assert "batch_norm" not in " ".join(types) and types.count("conv2d") == 4, types
    assert types.count("reshape") <= 3, types  # the unsqueeze in; squeeze, flatten out


# ---- .tflite -----------------------------------------------------------------------------

def _tflite_cases():
    import tflite_cases  # noqa: PLC0415  (tests/kernels; imports TensorFlow)

    tf, layers, inp = tflite_cases.tf, tflite_cases.layers, tflite_cases._inp

    def conv1d():
        x = tf.keras.Input((32, 3), batch_size=1)
        h = layers.Conv1D(8, 5, strides=2, padding="same", activation="relu")(x)
        return tf.keras.Model(x, layers.Conv1D(4, 3, dilation_rate=2)(h))

    def tconv(k, s, pad, bias, act=None, shape=(5, 6, 3)):
        def build():
            x = inp(shape)
            h = layers.Conv2D(6, 1)(x)
            return tf.keras.Model(x, layers.Conv2DTranspose(
                4, k, strides=s, padding=pad, use_bias=bias, activation=act)(h))
        return build

    def grouped():
        x = inp((6, 6, 8))
        return tf.keras.Model(x, layers.Conv2D(6, 3, groups=2, padding="same")(x))

    def dm2():
        x = inp((6, 6, 4))
        return tf.keras.Model(x, layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")(x))

    def dilated():
        x = inp((9, 9, 4))
        return tf.keras.Model(x, layers.Conv2D(5, 3, dilation_rate=2, padding="same")(x))

    return {
        "conv1d": (conv1d, "CONV_2D"),
        "tconv_k3s2_same": (tconv(3, 2, "same", True), "TRANSPOSE_CONV"),
        "tconv_k3s2_valid_nobias": (tconv(3, 2, "valid", False), "TRANSPOSE_CONV"),
        "tconv_k2s2_relu": (tconv(2, 2, "same", True, "relu"), "TRANSPOSE_CONV"),
        "tconv_k4s2_same": (tconv(4, 2, "same", True, shape=(4, 3, 5)), "TRANSPOSE_CONV"),
        "tconv_k3s1_valid": (tconv(3, 1, "valid", True), "TRANSPOSE_CONV"),
        "tconv_k3x2_s1x3": (tconv((3, 2), (1, 3), "valid", True), "TRANSPOSE_CONV"),
        "grouped": (grouped, "CONV_2D"),
        "dm2": (dm2, "DEPTHWISE_CONV_2D"),
        "dilated": (dilated, "CONV_2D"),
    }


TFLITE_NAMES = ["conv1d", "tconv_k3s2_same", "tconv_k3s2_valid_nobias", "tconv_k2s2_relu",
                "tconv_k4s2_same", "tconv_k3s1_valid", "tconv_k3x2_s1x3", "grouped", "dm2",
                "dilated"]


@pytest.mark.parametrize("name", TFLITE_NAMES)
def test_tflite_matches_tf_interpreter(name, cli, tmp_path):
    import tflite_oracle as oracle  # noqa: PLC0415
    from test_tflite_shape_ops import _convert  # noqa: PLC0415

    tf = oracle.tf
    build, expect = _tflite_cases()[name]
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(7)
    data = _convert(build)
    model = oracle.parse(data)
    ops = [oracle.op_name(model, op) for op in model.subgraphs[0].operators]
    assert expect in ops, ops
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    it = tf.lite.Interpreter(model_content=data)
    d_in, d_out = it.get_input_details()[0], it.get_output_details()[0]
    rng = np.random.default_rng(3)
    for k in range(2):
        x = rng.integers(-128, 128, size=d_in["shape"], dtype=np.int8)
        want = oracle.tf_run(data, [x]).get_tensor(d_out["index"])
        np.save(tmp_path / "x.npy", x)
        run_cli(cli, "run", path, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
        got = np.load(tmp_path / "y.npy")
        assert np.array_equal(got.reshape(want.shape), want), (name, k, ops)


# ---- boards -------------------------------------------------------------------------------

@pytest.mark.parametrize("board", ["an547", "an386"])
def test_accel1d_and_decoder_on_board(board, board_env, tmp_path):
    """One short QEMU run per model and board: board == host; prints the profile's
    instructions per MAC of the convs (the transposed conv's phase conv included)."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    for name in ("accel1d", "tconv_k4s2p1"):
        res = _export_qdq(name, tmp_path)
        assert tfboard.run_model(res.path, board, seed=1).bit_exact, (name, board)
        p = tfboard.profile(res.path, board)
        rows = [f"{o['type']} {o['kernel']} {o['insns'] / max(o['macs'], 1):.2f}"
                for o in p["ops"]]
        print(f"{name} on {board}: {p['insns_per_inference']} instructions; " + "; ".join(rows))


def test_unsupported_transposed_conv_variants_say_why():
    class Both(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.t = nn.ConvTranspose2d(4, 4, 3, stride=2, groups=2)
            self.u = nn.ConvTranspose2d(4, 4, 3, dilation=2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.u(self.t(x))

    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(Both().eval(), torch.randn(1, 4, 5, 5))
    msg = str(e.value)
    assert "2 unsupported ops" in msg, msg
    assert "module 't': transposed convolution with groups 2 (only 1)" in msg, msg
    assert "module 'u': transposed convolution with dilation [2, 2] (only 1)" in msg, msg
