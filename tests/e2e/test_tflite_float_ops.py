"""A .tflite whose converter left float ops between DEQUANTIZE and QUANTIZE (TFLite has no
int8 COS / ATAN2; `supported_ops` with TFLITE_BUILTINS lets it keep them in float) runs mixed
(docs/decisions.md 47): the float ops on the float kernels, the rest int8. Compared with
TensorFlow's interpreter (BUILTIN_REF) on the graph output: within 1 LSB (the float
functions are computed independently: TF's std::cos / atan2 vs the kernels' series, so a
value within float32 rounding of a quantization tie may round the other way)."""
from __future__ import annotations

import numpy as np

import tflite_oracle as oracle
import tflite_cases
from e2e_util import run_cli

tf = tflite_cases.tf
layers = tflite_cases.layers


def _model():
    x = tflite_cases._inp((6, 6, 3))
    h = layers.Conv2D(4, 1)(x)
    c = layers.Lambda(lambda t: tf.math.cos(t))(h)
    a = layers.Lambda(lambda t: tf.math.atan2(t[0], t[1]))([c, h])
    return tf.keras.Model(x, layers.Conv2D(2, 1)(a))


def _convert(build) -> bytes:
    return tflite_cases.convert_keras(build, 7, float_fallback=True)


def test_float_ops_between_dequantize_and_quantize(cli, tmp_path):
    case = oracle.write_case("float_ops", _model, ["DEQUANTIZE", "COS", "ATAN2", "QUANTIZE"],
                             _convert, tmp_path)
    text = run_cli(cli, "inspect", case.path).stdout
    assert "float: 2 of" in text and "(cos)" in text and "(atan2)" in text, text
    rng = np.random.default_rng(3)
    for k in range(3):
        xs = case.random_inputs(rng)
        ours = oracle.run_ours(cli, case.path, xs, 1, tmp_path)[0]
        want = oracle.tf_run(case.data, xs).get_tensor(case.outs[0]["index"])
        diff = np.abs(ours.astype(np.int32) - want.astype(np.int32).reshape(ours.shape))
        assert int(diff.max()) <= 1, (k, diff.max())
    proc = run_cli(cli, "compile", case.path, "--no-float", check=False)
    assert proc.returncode == 2 and "2 op(s) would run in float32" in proc.stderr, proc.stderr
