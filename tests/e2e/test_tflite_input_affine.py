"""A Keras model with Rescaling or BatchNormalization on its input (MUL / ADD by constants
in the int8 .tflite, run in place over the input) compiles for the an547, the host runtime
gives TensorFlow's interpreter's output, and the board run equals the host (issue 14: the
runtime used to refuse every such program with "op tensors overlap where the kernel
forbids it"; the compiler and the runtime now share tinyforge/in_place.h)."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")

from e2e_util import find_cli, run_cli  # noqa: E402
import tflite_cases  # noqa: E402  (tests/kernels)
from tflite_oracle import tf_run  # noqa: E402

SHAPE = (1, 12, 12, 3)


def _model(kind: str) -> bytes:
    rng = np.random.default_rng(3)
    inp = tf.keras.Input(SHAPE[1:], batch_size=1)
    if kind == "rescaling":
        x = tf.keras.layers.Rescaling(1 / 127.5, offset=-1.0)(inp)
    else:
        bn = tf.keras.layers.BatchNormalization()
        x = bn(inp)
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    m = tf.keras.Model(inp, x)
    if kind == "batchnorm":
        bn.set_weights([rng.uniform(0.5, 2, 3), rng.normal(size=3), rng.normal(size=3) * 0.5,
                        rng.uniform(0.5, 2, 3)])
    lo, hi = (0.0, 255.0) if kind == "rescaling" else (-3.0, 3.0)

    def representative():
        for _ in range(16):
            yield [rng.uniform(lo, hi, SHAPE).astype(np.float32)]

    return tflite_cases.to_int8(m, representative)


@pytest.mark.parametrize("kind", ["rescaling", "batchnorm"])
def test_input_affine_runs_in_place_on_host_and_board(tmp_path, kind):
    cli = find_cli()
    model = tmp_path / f"{kind}.tflite"
    model.write_bytes(_model(kind))
    out = tmp_path / "out"
    run_cli(cli, "compile", model, "--target", "an547", "-o", out)
    report = json.loads((out / "report.json").read_text())
    assert report["in_place_ops"]["aliased"] >= 1, report["in_place_ops"]
    x = np.random.default_rng(5).integers(-128, 128, SHAPE, dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    run_cli(cli, "run", out / "program.bin", "-i", tmp_path / "x.npy", "-o", tmp_path / "y.npy")
    got = np.load(tmp_path / "y.npy")
    interp = tf_run(model.read_bytes(), [x])
    want = interp.get_tensor(interp.get_output_details()[0]["index"])
    assert np.array_equal(got.reshape(want.shape), want), f"{got} vs TF {want}"

    if shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("arm-none-eabi-gcc or qemu-system-arm missing")
        pytest.skip("arm-none-eabi-gcc or qemu-system-arm missing")
    from tinyforge import board as tfboard
    outcome = tfboard.run_model(model, "an547", [x])
    assert outcome.bit_exact, outcome.mismatch
    assert np.array_equal(outcome.outputs[0].reshape(want.shape), want)
