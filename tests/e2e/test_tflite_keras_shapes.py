"""Keras models as a new user writes them (issue 14: "the models people actually have"),
converted by TF's converter to int8 .tflite, where the Keras-applications / TinyML trial
(benchmarks/RESULTS.md "Tried models") found the importer or the compiler wanting:

  * a Conv2DTranspose saved with a dynamic batch: TRANSPOSE_CONV's output_shape is computed
    by SHAPE -> STRIDED_SLICE -> PACK, folded for batch 1 like a RESHAPE target;
  * a standalone RELU whose output parameters differ from its input's, after an op it cannot
    fuse into (a transpose conv whose output is read twice) over >= 256 elements: fuse-activation
    turns the importer's requantize (multiplier and shift as inputs) into a table lookup
    with exactly (x, table) as inputs (compile failed in the verifier before);
  * a Dense on a 3-D input saved with a dynamic batch: the converter writes SHAPE -> GATHER
    -> REDUCE_PROD -> PACK (folded), but leaves the [batch * steps, features] view's dims
    unknown in the file: refused with one line that says to save with a fixed batch.

  * a dilated causal Conv1D (a TCN block): with a fixed batch the converter writes a
    dilated CONV_2D (compared), with a dynamic one SPACE_TO_BATCH_ND -> CONV_2D ->
    BATCH_TO_SPACE_ND, refused naming the fix.

Each is compared op by op with TF's interpreter (BUILTIN_REF) on two seeded inputs.
"""
from __future__ import annotations

import pytest

import tflite_cases
import tflite_oracle as oracle
from e2e_util import run_cli

tf, layers = tflite_cases.tf, tflite_cases.layers


def _transpose_conv(batch):
    x = tf.keras.Input((8, 8, 4), batch_size=batch)
    h = layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
    t = layers.Conv2DTranspose(8, 3, strides=2, padding="same")(h)
    # t is an output too, so the converter keeps the RELU apart (as it does before Keras'
    # UpSampling2D in an autoencoder)
    return tf.keras.Model(x, [t, layers.ReLU()(t)])


def _dense_3d(batch):
    x = tf.keras.Input((12, 6), batch_size=batch)
    return tf.keras.Model(x, layers.GlobalAveragePooling1D()(layers.Dense(8, activation="relu")(x)))


def _tcn(batch):
    x = tf.keras.Input((32, 4), batch_size=batch)
    h = layers.Conv1D(8, 3, padding="causal", dilation_rate=2, activation="relu")(x)
    return tf.keras.Model(x, layers.Add()([h, layers.Conv1D(8, 1)(x)]))


def _write(build, name, tmp_path):
    data = tflite_cases.convert_keras(build, seed=7)
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    return data, path


def _ops(data):
    model = oracle.parse(data)
    return [oracle.op_name(model, op) for op in model.subgraphs[0].operators]


@pytest.mark.parametrize("batch", [1, None], ids=["static", "dynamic"])
def test_transpose_conv_relu(batch, cli, tmp_path):
    data, path = _write(lambda: _transpose_conv(batch), "tconv", tmp_path)
    ops = _ops(data)
    assert "TRANSPOSE_CONV" in ops and "RELU" in ops, ops
    if batch is None:
        assert "SHAPE" in ops, ops  # output_shape computed at run time
    compared = 0
    for k, r in oracle.op_by_op(cli, data, path, [41, 42], tmp_path):
        assert not r.failures, f"input {k}:\n" + "\n".join(r.failures)
        compared += r.compared
    assert compared >= 2 * 3
    run_cli(cli, "compile", path, "-o", tmp_path / "tconv.tfg")  # the pass pipeline


def test_dense_on_3d_input(cli, tmp_path):
    data, path = _write(lambda: _dense_3d(1), "dense3d", tmp_path)
    for k, r in oracle.op_by_op(cli, data, path, [43, 44], tmp_path):
        assert not r.failures, f"input {k}:\n" + "\n".join(r.failures)
    data, path = _write(lambda: _dense_3d(None), "dense3d_dyn", tmp_path)
    assert "REDUCE_PROD" in _ops(data)
    proc = run_cli(cli, "inspect", path, check=False)
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "batch_size=1" in lines[0] and "RESHAPE" in lines[0], proc.stderr


def test_dilated_causal_conv1d(cli, tmp_path):
    data, path = _write(lambda: _tcn(1), "tcn", tmp_path)
    for k, r in oracle.op_by_op(cli, data, path, [45, 46], tmp_path):
        assert not r.failures, f"input {k}:\n" + "\n".join(r.failures)
    data, path = _write(lambda: _tcn(None), "tcn_dyn", tmp_path)
    assert "SPACE_TO_BATCH_ND" in _ops(data)
    proc = run_cli(cli, "inspect", path, check=False)
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "SPACE_TO_BATCH_ND" in lines[0] and "batch_size=1" in lines[0]
