"""Data-movement builtins of .tflite models (TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V,
PACK, UNPACK, EXPAND_DIMS, SQUEEZE, REVERSE_V2) and a Keras model saved with a dynamic batch (SHAPE ->
STRIDED_SLICE -> PACK -> RESHAPE in front of its Flatten), converted to full-int8 .tflite
and compared with TensorFlow's interpreter (BUILTIN_REF) on every graph output: bit-exact.
"""
from __future__ import annotations

import numpy as np
import pytest

import tflite_oracle as oracle
import tflite_cases
from e2e_util import run_cli

tf = tflite_cases.tf
layers = tflite_cases.layers
inp = tflite_cases._inp


def _lambda(fn):
    return layers.Lambda(fn)


def _transpose():
    x = inp((6, 5, 3))
    h = layers.Conv2D(4, 1)(x)
    t = layers.Permute((2, 1, 3))(h)                   # [5, 6, 4]
    c = layers.Permute((3, 1, 2))(h)                   # [4, 6, 5]: NHWC -> NCHW
    return tf.keras.Model(x, [layers.Conv2D(3, 1)(t), layers.Flatten()(c)])


def _slices():
    x = inp((8, 7, 6))
    h = layers.Conv2D(6, 1)(x)
    a = _lambda(lambda t: t[:, 1:7:2, ::3, 1:5])(h)        # STRIDED_SLICE
    b = _lambda(lambda t: tf.slice(t, [0, 2, 1, 0], [1, 3, 3, 4]))(h)  # SLICE
    c = _lambda(lambda t: t[:, 3, :, :])(h)                 # shrink axis
    return tf.keras.Model(x, [layers.Concatenate()([a, b]), c])


def _splits():
    x = inp((5, 4, 8))
    h = layers.Conv2D(8, 1)(x)
    # (Keras 3 Lambda layers have one output: each reads the split's parts it needs.)
    pq = _lambda(lambda t: tf.concat(tf.split(t, 2, axis=-1)[::-1], axis=-1))(h)  # SPLIT
    rsu = _lambda(lambda t: tf.concat([tf.split(t, [1, 1, 2], axis=-2)[k] for k in (2, 0, 1)],
                                      axis=2))(h)                                 # SPLIT_V
    return tf.keras.Model(x, [pq, rsu])


def _pack():
    x = inp((4, 3, 5))
    h = layers.Conv2D(5, 1)(x)
    st = _lambda(lambda t: tf.stack(tf.unstack(t, axis=2)[::-1], axis=1))(h)  # UNPACK, PACK
    e = _lambda(lambda t: tf.expand_dims(t, 3))(h)                 # [4, 3, 1, 5]
    return tf.keras.Model(x, [st, e])


def _reverse():
    x = inp((4, 5, 6))
    h = layers.Conv2D(6, 1)(x)
    one = _lambda(lambda t: tf.reverse(t, axis=[1]))(h)          # REVERSE_V2, axis 1
    two = _lambda(lambda t: tf.reverse(t, axis=[-1, 2]))(h)      # two axes, one negative
    return tf.keras.Model(x, [one, two])


def _dynamic_batch_flatten():
    x = tf.keras.Input((8, 8, 3))                      # batch None: saved dynamic
    h = layers.Conv2D(4, 3, strides=2, activation="relu")(x)
    return tf.keras.Model(x, layers.Dense(5)(layers.Flatten()(h)))


def _convert(build) -> bytes:
    """Full-int8 conversion, calibrated with batch-1 samples also for a model whose batch
    is dynamic."""
    return tflite_cases.convert_keras(build, 7)


CASES = {
    "transpose": (_transpose, ["TRANSPOSE"]),
    "slices": (_slices, ["STRIDED_SLICE", "SLICE"]),
    "splits": (_splits, ["SPLIT", "SPLIT_V"]),
    "pack": (_pack, ["UNPACK", "PACK"]),  # (the converter writes RESHAPE for expand_dims)
    "reverse": (_reverse, ["REVERSE_V2"]),  # gather per axis (docs/decisions.md 77)
    "dynamic_batch": (_dynamic_batch_flatten, ["SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_tf_interpreter(name, cli, tmp_path):
    build, expect = CASES[name]
    case = oracle.write_case(name, build, expect, _convert, tmp_path)
    data, path, ins, outs = case.data, case.path, case.ins, case.outs
    if name == "dynamic_batch":
        assert ins[0]["shape_signature"][0] == -1  # saved with a dynamic batch
    rng = np.random.default_rng(3)
    for k in range(2):
        xs = case.random_inputs(rng)
        ref = oracle.tf_run(data, xs)
        ours = oracle.run_ours(cli, path, xs, len(outs), tmp_path)
        for j, d in enumerate(outs):
            want = ref.get_tensor(d["index"])
            assert np.array_equal(ours[j].reshape(want.shape), want), (name, k, j)
    # A board program too (the data-movement kernels, not only the host executor).
    run_cli(cli, "compile", path, "--target", "an547", "-o", tmp_path / "an547")


def test_int8_pack_output_without_quantization_is_refused(cli, tmp_path):
    """An int8 PACK whose output has no quantization parameters: one line naming the op and
    field, exit 2 (tflite_fuzz found the importer reading absent parameters there)."""
    import flatbuffers  # noqa: PLC0415

    def pack_inside():
        x = inp((4, 3, 5))
        h = layers.Conv2D(5, 1)(x)
        st = _lambda(lambda t: tf.stack(tf.unstack(t, axis=2)[::-1], axis=2))(h)
        return tf.keras.Model(x, layers.Conv2D(2, 1)(st))

    model = oracle.parse(_convert(pack_inside))
    graph = model.subgraphs[0]
    at = next(i for i, op in enumerate(graph.operators) if oracle.op_name(model, op) == "PACK")
    graph.tensors[int(graph.operators[at].outputs[0])].quantization = None
    b = flatbuffers.Builder(1 << 14)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    path = tmp_path / "pack_no_quant.tflite"
    path.write_bytes(bytes(b.Output()))
    proc = run_cli(cli, "inspect", path, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (f"error: {path}: op #{at} (PACK): outputs[0]: int8 tensor "
                                   "without quantization parameters"), proc.stderr
