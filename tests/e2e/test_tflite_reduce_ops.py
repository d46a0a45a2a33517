"""Reductions and padding of .tflite models: MEAN, SUM and REDUCE_MAX over any axes (one
run, several runs, keep_dims both), PAD / PADV2 from tf.pad, PRELU (one slope, a slope per
channel) and ARG_MAX / ARG_MIN (int32 outputs), converted to full-int8
.tflite and compared with TensorFlow's interpreter (BUILTIN_REF) on every graph output:
bit-exact.

SUM is the exception: TensorFlow's interpreter does not run TFLite Micro's integer SUM
(its BUILTIN_REF int8 SUM returns -1 for most outputs here, its default kernel rounds a
float product), so SUM outputs are checked bit for bit against TFLM's QuantizedMeanOrSum
(compute_sum: MultiplyByQuantizedMultiplier(sum - zp * n, in_scale / out_scale), clamped)
written out below from the SUM's input as the reference interpreter computed it, and within
1 LSB of the interpreter's default kernel.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import tflite_oracle as oracle
from test_tflite_shape_ops import _convert, _lambda, inp, layers, tf
from e2e_util import run_cli
from tflite_cases import _double_rounding, _quantize_multiplier


def _tflm_sum(x, q_in, q_out, axes, keep):
    """TFLite Micro's int8 SUM (reference_ops::QuantizedMeanOrSum, compute_sum)."""
    (s_in,), (z_in,) = q_in
    (s_out,), (z_out,) = q_out
    m, e = _quantize_multiplier(float(s_in) / float(s_out))  # double(in) / double(out)
    n = int(np.prod([x.shape[a] for a in axes]))
    sums = x.astype(np.int64).sum(axis=tuple(axes), keepdims=keep) - int(z_in) * n
    y = np.vectorize(lambda v: _double_rounding(int(v), m, e))(sums) + int(z_out)
    return np.clip(y, -128, 127).astype(np.int8)


def _sum_oracle(data, model, ref):
    """{output tensor index: expected int8} for every SUM op of the model."""
    sg = model.subgraphs[0]
    want = {}
    for op in sg.operators:
        if oracle.op_name(model, op) != "SUM":
            continue
        t_in, t_out = sg.tensors[op.inputs[0]], sg.tensors[op.outputs[0]]
        axes = [int(a) % len(t_in.shape) for a in ref.get_tensor(op.inputs[1]).ravel()]
        keep = bool(op.builtinOptions.keepDims)
        q = lambda t: ((t.quantization.scale[0],), (t.quantization.zeroPoint[0],))
        want[op.outputs[0]] = _tflm_sum(ref.get_tensor(op.inputs[0]), q(t_in), q(t_out), axes,
                                        keep)
    return want


def _reductions(fn, outputs):
    """A 1x1 conv, then one output per (axes, keepdims) of `fn` (a tf.reduce_*)."""
    x = inp((6, 5, 4))
    h = layers.Conv2D(8, 1)(x)
    return tf.keras.Model(x, [_lambda(lambda t, a=a, k=k: fn(t, axis=a, keepdims=k))(h)
                              for a, k in outputs])


def _means():  # [1, 3]: H and C, not one run
    return _reductions(tf.reduce_mean, [([1, 2], True), ([1, 3], False), ([3], True),
                                        ([2], False), ([1, 3], True)])


def _sums():
    return _reductions(tf.reduce_sum, [([1, 2], False), ([3], True), ([1, 3], False)])


def _maxes():
    return _reductions(tf.reduce_max, [([1, 2], False), ([3], True), ([1, 3], True),
                                       ([2], False)])


def _pads():
    x = inp((5, 4, 3))
    h = layers.Conv2D(6, 1)(x)
    return tf.keras.Model(x, [
        _lambda(lambda t: tf.pad(t, [[0, 0], [1, 2], [2, 1], [0, 0]]))(h),      # spatial
        _lambda(lambda t: tf.pad(t, [[0, 0], [0, 0], [0, 0], [1, 3]]))(h),      # channels
    ])


def _prelu():
    x = inp((5, 4, 3))
    h = layers.Conv2D(6, 1)(x)
    return tf.keras.Model(x, layers.PReLU(shared_axes=[1, 2, 3])(h))  # one slope


def _prelu_per_channel():
    """A slope per channel ([1, 1, C]): qprelu."""
    x = inp((5, 4, 3))
    h = layers.Conv2D(6, 1)(x)
    init = tf.keras.initializers.RandomUniform(-0.6, 0.9, seed=5)
    return tf.keras.Model(x, layers.PReLU(alpha_initializer=init, shared_axes=[1, 2])(h))


def _argmax():
    """ARG_MAX over C (the last axis), ARG_MIN over H and ARG_MAX over W: int32 outputs."""
    x = inp((5, 4, 3))
    h = layers.Conv2D(6, 1)(x)
    return tf.keras.Model(x, [
        _lambda(lambda t: tf.argmax(t, axis=-1, output_type=tf.int32))(h),
        _lambda(lambda t: tf.argmin(t, axis=1, output_type=tf.int32))(h),
        _lambda(lambda t: tf.argmax(t, axis=2, output_type=tf.int32))(h),
    ])


CASES = {
    "mean": (_means, ["MEAN"]),
    "sum": (_sums, ["SUM"]),
    "reduce_max": (_maxes, ["REDUCE_MAX"]),
    "pad": (_pads, ["PAD"]),
    "prelu": (_prelu, ["PRELU"]),
    "prelu_per_channel": (_prelu_per_channel, ["PRELU"]),
    "argmax": (_argmax, ["ARG_MAX", "ARG_MIN"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_tf_interpreter(name, cli, tmp_path):
    build, expect = CASES[name]
    case = oracle.write_case(name, build, expect, _convert, tmp_path)
    data, model, path, ins, outs = case.data, case.model, case.path, case.ins, case.outs
    rng = np.random.default_rng(3)
    for k in range(2):
        xs = case.random_inputs(rng)
        ref = oracle.tf_run(data, xs)
        tflm_sum = _sum_oracle(data, model, ref) if name == "sum" else {}
        default = None
        if tflm_sum:
            default = tf.lite.Interpreter(model_content=data)
            default.allocate_tensors()
            default.set_tensor(ins[0]["index"], xs[0])
            default.invoke()
        ours = oracle.run_ours(cli, path, xs, len(outs), tmp_path)
        for j, d in enumerate(outs):
            if d["index"] in tflm_sum:
                want = tflm_sum[d["index"]]
                got = ours[j].reshape(want.shape)
                near = default.get_tensor(d["index"]).astype(np.int32)
                assert np.abs(got.astype(np.int32) - near).max() <= 1, (name, k, j)
            else:
                want = ref.get_tensor(d["index"])
                got = ours[j].reshape(want.shape)
            assert np.array_equal(got, want), (name, k, j, d["name"])
    run_cli(cli, "compile", path, "--target", "an547", "-o", tmp_path / "an547")


def _prelu_argmax():
    """conv -> PReLU per channel -> conv -> ARG_MAX over C: both new kernels in one model."""
    x = inp((6, 5, 3))
    h = layers.Conv2D(16, 1)(x)
    h = layers.PReLU(shared_axes=[1, 2])(h)
    h = layers.Conv2D(20, 1)(h)
    return tf.keras.Model(x, _lambda(lambda t: tf.argmax(t, axis=-1, output_type=tf.int32))(h))


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None
                    or shutil.which("qemu-system-arm") is None,
                    reason="arm-none-eabi-gcc or qemu-system-arm missing")
def test_prelu_argmax_on_an547(tmp_path):
    """One short board run (Cortex-M55, `__mve` argmax over the innermost axis): the firmware's
    output equals the host runtime's and TensorFlow's interpreter's."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    data, _ = oracle.convert_case(_prelu_argmax, ["PRELU", "ARG_MAX"], _convert)
    path = tmp_path / "prelu_argmax.tflite"
    path.write_bytes(data)
    xs = np.random.default_rng(5).integers(-128, 128, size=(3, 1, 6, 5, 3), dtype=np.int8)
    outcome = tfboard.run_model(path, "an547", [xs.reshape(3, 6, 5, 3)])
    assert outcome.bit_exact, outcome.mismatch
    got = outcome.outputs[0].reshape(3, 1, 6, 5)
    for k in range(3):
        want = oracle.tf_run(data, [xs[k]]).get_tensor(
            tf.lite.Interpreter(model_content=data).get_output_details()[0]["index"])
        assert np.array_equal(got[k], want), k
