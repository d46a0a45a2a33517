"""BATCH_MATMUL of two int8 activations (adj_x / adj_y, batch broadcast) and
FULLY_CONNECTED on a [B, T, C] input, from Keras models converted to full-int8 .tflite,
compared with TensorFlow's interpreter (BUILTIN_REF) on every graph output: bit-exact.
"""
from __future__ import annotations

import numpy as np
import pytest

import tflite_oracle as oracle
import tflite_cases
from e2e_util import run_cli
from tflite_util import inspect_json, op_outputs, run_dump

tf = tflite_cases.tf
layers = tflite_cases.layers
inp = tflite_cases._inp


def _mm(**kw):
    return layers.Lambda(lambda ab: tf.matmul(ab[0], ab[1], **kw))


def _scaled(x, a, b):  # MUL + ADD: an operand with its own quantization, no FC in between
    return layers.Lambda(lambda t: t * a + b)(x)


def _qk_t():  # q k^T: adj_y
    x = tf.keras.Input((6, 8), batch_size=1)
    return tf.keras.Model(x, _mm(transpose_b=True)([_scaled(x, 0.8, 0.1), x]))


def _attention():  # softmax(q k^T) v: adj_y, then a plain product
    x = tf.keras.Input((5, 12), batch_size=1)
    s = layers.Softmax()(_mm(transpose_b=True)([_scaled(x, 0.7, -0.2), x]))
    return tf.keras.Model(x, _mm()([s, _scaled(x, 0.5, 0.3)]))


def _adj_x():  # a^T b over 2 batches
    x = tf.keras.Input((7, 6), batch_size=2)
    a = layers.Lambda(lambda t: t[:, :, :3])(x)
    return tf.keras.Model(x, _mm(transpose_a=True)([a, _scaled(x, 0.6, 0.2)]))


def _heads():  # [1, H, T, D] per head: q k^T
    x = tf.keras.Input((6, 8), batch_size=1)
    q = layers.Lambda(lambda t: tf.transpose(tf.reshape(t, (1, 6, 2, 4)), (0, 2, 1, 3)))(x)
    return tf.keras.Model(x, _mm(transpose_b=True)([q, _scaled(q, 0.9, -0.1)]))


def _dense_btc():  # FULLY_CONNECTED keep_num_dims on [B, T, C]
    x = tf.keras.Input((5, 8), batch_size=2)
    return tf.keras.Model(x, layers.Dense(6)(layers.Dense(7, activation="relu")(x)))


CASES = {
    "qk_t": (_qk_t, ["BATCH_MATMUL"]),
    "attention": (_attention, ["BATCH_MATMUL", "SOFTMAX"]),
    "adj_x": (_adj_x, ["BATCH_MATMUL"]),
    "heads": (_heads, ["BATCH_MATMUL"]),
    "dense_btc": (_dense_btc, ["FULLY_CONNECTED"]),
}


def _convert(build) -> bytes:
    return tflite_cases.convert_keras(build, 7)


def _options(data: bytes, builtin: str) -> list:
    model = oracle.parse(data)
    return [op.builtinOptions for op in model.subgraphs[0].operators
            if oracle.op_name(model, op) == builtin]


@pytest.mark.parametrize("name", list(CASES))
def test_matches_tf_interpreter(name, cli, tmp_path):
    build, expect = CASES[name]
    data, _ = oracle.convert_case(build, expect, _convert)
    if name == "dense_btc":
        assert all(o.keepNumDims for o in _options(data, "FULLY_CONNECTED"))
    if name == "adj_x":
        assert all(o.adjX for o in _options(data, "BATCH_MATMUL"))
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    model = oracle.parse(data)
    graph = model.subgraphs[0]
    outputs = op_outputs(inspect_json(cli, path))
    details = tf.lite.Interpreter(model_content=data).get_input_details()
    rng = np.random.default_rng(3)
    compared = 0
    for k in range(2):
        xs = [rng.integers(-128, 128, size=d["shape"], dtype=np.int8) for d in details]
        interp = oracle.tf_run(data, xs)
        dumped = run_dump(cli, path, xs[0], tmp_path / f"in{k}")
        ours = {int(op.outputs[0]): dumped[outputs[i]] for i, op in enumerate(graph.operators)}
        r = oracle.compare_ops(data, interp, ours)
        assert not r.failures, f"{name} input {k}:\n" + "\n".join(r.failures)
        compared += r.compared
        # Every BATCH_MATMUL output equal to TF's element for element (none downstream of
        # a FULLY_CONNECTED rounding tie).
        for op in graph.operators:
            if oracle.op_name(model, op) == "BATCH_MATMUL":
                out = int(op.outputs[0])
                want = interp.get_tensor(out)
                assert np.array_equal(ours[out].reshape(want.shape), want), (name, k)
    assert compared > 0
    text = run_cli(cli, "compile", path, "--print-after=dce").stdout
    if name != "dense_btc":
        assert "= qbmm(" in text, text
    if name in ("qk_t", "attention", "adj_x"):  # adj_x / adj_y read as stored: no transpose
        assert "= transpose(" not in text, text
    # A board program too (the bmm kernels, not only the host executor).
    run_cli(cli, "compile", path, "--target", "an547", "-o", tmp_path / "an547")
