"""The fused int8 LSTM: Keras 2 (tf_keras) LSTM layers converted by TF's int8 converter to
UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16 cell state, the
int8x8_16 kernel), imported as one `qlstm` and compared with TensorFlow's interpreter op
by op: every op output bit-exact (FULLY_CONNECTED heads up to the documented rounding ties,
tflite_oracle.py), the LSTM's whole output sequence included. Shapes: the last step only
(STRIDED_SLICE of the sequence), return_sequences, time-major input, two stacked layers.
One model also on the an547 and an386 boards (board == host). Keras 3's LSTM converts to a
WHILE loop instead (test_tflite_keras_rnn.py, docs/decisions.md 75), hence Keras 2 here.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import tflite_oracle as oracle
from e2e_util import run_cli
from tflite_util import inspect_json, op_outputs, run_dump

os.environ.setdefault("TF_USE_LEGACY_KERAS", "0")
tf = oracle.tf
keras = pytest.importorskip("tf_keras")  # scripts/install-deps.sh pins it

CALIB = 24
# The calibration (and test) inputs' standard deviation per case (1 otherwise): the stacked
# model's second cell state calibrates to 2^-16 at 1, a scale TFLite's kernel cannot take
# (test_unsupported_forms_are_refused), 2^-15 at 3.
STD = {"stacked": 3.0}


def _model(name: str):
    """(Keras 2 model, its input shape) for case `name`, weights seeded."""
    keras.utils.set_random_seed(11)
    L = keras.layers
    if name == "last_step":  # LSTM(12) -> Dense: the last step via STRIDED_SLICE
        x = keras.Input((8, 6), batch_size=1)
        return keras.Model(x, L.Dense(3)(L.LSTM(12)(x)))
    if name == "sequences":  # return_sequences: the whole [1, T, H] sequence out
        x = keras.Input((5, 3), batch_size=1)
        return keras.Model(x, L.LSTM(16, return_sequences=True)(x))
    if name == "time_major":  # [T, 1, F] input
        x = keras.Input((1, 4), batch_size=6)
        return keras.Model(x, L.LSTM(8, time_major=True, return_sequences=True)(x))
    if name == "stacked":  # two layers, the second fed the first's sequence
        x = keras.Input((10, 5), batch_size=1)
        h = L.LSTM(10, return_sequences=True)(x)
        return keras.Model(x, L.Dense(4)(L.LSTM(7)(h)))
    raise KeyError(name)


CASES = ["last_step", "sequences", "time_major", "stacked"]


def _convert(model, std: float = 1.0) -> bytes:
    """Full-integer int8 .tflite, calibrated on N(0, std^2) inputs (the test inputs' law)."""
    shape = tuple(model.inputs[0].shape)

    def representative():
        rng = np.random.default_rng(5)
        for _ in range(CALIB):
            yield [(rng.normal(size=shape) * std).astype(np.float32)]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    return conv.convert()


def _inputs(data: bytes, seed: int, std: float = 1.0) -> list[np.ndarray]:
    """N(0, std^2) quantized with the input's parameters (activations as calibrated), and one
    uniform int8 input (saturating gates and cell)."""
    d = tf.lite.Interpreter(model_content=data).get_input_details()[0]
    scale, zp = d["quantization"]
    rng = np.random.default_rng(seed)
    normal = np.clip(np.round(rng.normal(size=d["shape"]) * std / scale) + zp, -128, 127)
    return [normal.astype(np.int8), rng.integers(-128, 128, size=d["shape"], dtype=np.int8)]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("lstm")
    cache = {}

    def get(name):
        if name not in cache:
            data = _convert(_model(name), STD.get(name, 1.0))
            path = out / f"{name}.tflite"
            path.write_bytes(data)
            cache[name] = (data, path)
        return cache[name]
    return get


@pytest.mark.parametrize("name", CASES)
def test_fused_lstm_matches_tf_interpreter(name, converted, cli, tmp_path):
    data, path = converted(name)
    model = oracle.parse(data)
    graph = model.subgraphs[0]
    names = [oracle.op_name(model, op) for op in graph.operators]
    lstms = [op for op in graph.operators if oracle.op_name(model, op) ==
             "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    assert len(lstms) == (2 if name == "stacked" else 1), names
    for op in lstms:  # the int8x8_16 form: int16 cell state, five intermediates
        assert len(op.intermediates) == 5
        cell = graph.tensors[op.inputs[19]]
        assert cell.type == oracle.schema.TensorType.INT16 and cell.isVariable
    outputs = op_outputs(inspect_json(cli, path))
    compared = 0
    for k, x in enumerate(_inputs(data, 40, STD.get(name, 1.0))):
        interp = oracle.tf_run(data, [x])  # a fresh interpreter: the state starts at zero
        dumped = run_dump(cli, path, x, tmp_path / f"in{k}")
        ours = {int(op.outputs[0]): dumped[outputs[i]] for i, op in enumerate(graph.operators)
                if i in outputs}
        r = oracle.compare_ops(data, interp, ours)
        assert not r.failures, f"{name} input {k}:\n" + "\n".join(r.failures)
        for op in lstms:  # the whole output sequence, element for element
            out = int(op.outputs[0])
            want = interp.get_tensor(out)
            assert out in ours and np.array_equal(ours[out].reshape(want.shape), want), (name, k)
            assert np.unique(want).size > 4, "the LSTM output carries no signal"
        compared += r.compared
    assert compared >= 2 * len(graph.operators) - 2
    text = run_cli(cli, "compile", path, "--print-after=dce").stdout
    assert text.count("= qlstm(") == len(lstms), text


def test_fused_lstm_on_boards(converted, board_env, tmp_path):
    """The `stacked` model on an547 (MVE) and an386 (DSP): board output == host output."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    data, path = converted("stacked")
    x = np.concatenate(_inputs(data, 41, STD["stacked"]))
    for board in ("an547", "an386"):
        outcome = tfboard.run_model(path, board, [x])
        assert outcome.samples == 2
        assert outcome.bit_exact, (board, outcome.mismatch)


@pytest.mark.parametrize("what", ["peephole", "cell_scale", "variable"])
def test_unsupported_forms_are_refused(what, converted, cli, tmp_path):
    """Refused in one line naming the feature, exit 2: a peephole LSTM (cell_to_*_weights
    added to a converted model), and the stacked model calibrated on N(0, 1), whose second
    cell state gets the scale 2^-16 (TFLite's tanh of the cell takes 2^-15 .. 2^-9 and
    leaves its output unwritten otherwise), and another op (the STRIDED_SLICE) reading the
    LSTM's state variable. tf_keras' GRU converts to a WHILE loop, unrolled at
    import: tests/e2e/test_tflite_keras_rnn.py (docs/decisions.md 75)."""
    if what == "cell_scale":
        data = _convert(_model("stacked"), 1.0)
        expect = "cell_state scale"
    else:
        import flatbuffers  # noqa: PLC0415

        data, _ = converted("sequences" if what == "peephole" else "last_step")
        model = oracle.parse(data)
        graph = model.subgraphs[0]
        names = [oracle.op_name(model, o) for o in graph.operators]
        op = graph.operators[names.index("UNIDIRECTIONAL_SEQUENCE_LSTM")]
        if what == "peephole":
            op.inputs[10] = op.inputs[15]  # any tensor: the slot is what is refused
            expect = "peephole LSTM"
        else:
            graph.operators[names.index("STRIDED_SLICE")].inputs[0] = op.inputs[18]
            expect = "is a variable tensor"
        b = flatbuffers.Builder(0)
        b.Finish(model.Pack(b), file_identifier=b"TFL3")
        data = bytes(b.Output())
    path = tmp_path / f"{what}.tflite"
    path.write_bytes(data)
    r = run_cli(cli, "compile", path, "-o", tmp_path / "out", check=False)
    assert r.returncode == 2, r
    lines = [s for s in r.stderr.splitlines() if s.strip()]
    assert len(lines) == 1 and expect in lines[0], r.stderr
