"""Keras 3 recurrent layers (the default Keras of TF 2.21) as users convert them to int8,
against TensorFlow's interpreter (docs/decisions.md 75).

TF 2.21's converter writes a Keras 3 LSTM / GRU / SimpleRNN (and tf_keras' GRU) as a WHILE
loop. Its int8 calibration crashes (segmentation fault) on every such loop with a fixed
batch; with a dynamic batch and `_experimental_default_to_single_batch_in_tensor_list_ops`
(the option the converter's TensorList error leads to) it writes an int8 WHILE whose body
is one time step of int8 ops, the state carried in float32 between DEQUANTIZE and
QUANTIZE. The importer unrolls such a loop (tflite_unroll.cc); these tests compare the
unrolled model's outputs with TF's interpreter running the loop, bit for bit, on the host
and on the boards. `unroll=True` layers (plain int8 ops, no loop) are covered with a
SimpleRNN and a Bidirectional LSTM. tf_keras' GRU converts to the same loop and is tested
too. A Bidirectional layer (decision 77) is two such loops, the backward one reading the
sequence through REVERSE_V2 (and its return_sequences output reversed back by another);
tf_keras' Bidirectional LSTM with a fixed batch is two fused UNIDIRECTIONAL_SEQUENCE_LSTMs
with the same REVERSE_V2s.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import tflite_oracle as oracle
from e2e_util import run_cli

tf = oracle.tf
keras = tf.keras  # Keras 3 unless TF_USE_LEGACY_KERAS is set (not in this project)

CALIB = 16
REF = tf.lite.experimental.OpResolverType.BUILTIN_REF


def _merge_mode(name: str) -> str:
    return next((m for m in ("sum", "mul", "ave") if f"_{m}" in name), "concat")


def _bidirectional(k, name: str):
    """Keras' Bidirectional of 4 units named by `name`: lstm, gru or simple_rnn, `_sum` /
    `_mul` / `_ave` (merge_mode, else concat), `_sequences` (return_sequences)."""
    cell = (k.layers.LSTM if "_lstm" in name else
            k.layers.SimpleRNN if "_simple_rnn" in name else k.layers.GRU)
    return k.layers.Bidirectional(cell(4, return_sequences=name.endswith("_sequences")),
                                  merge_mode=_merge_mode(name))


def _model(name: str):
    """(Keras 3 model, batch) for case `name`, weights seeded."""
    k = keras
    if name.startswith("tf_keras_"):  # Keras 2 (scripts/install-deps.sh pins it)
        import tf_keras as k  # noqa: PLC0415
    k.utils.set_random_seed(13)
    L = k.layers
    loop = not name.endswith("_unrolled") and "_fused_" not in name
    x = k.Input((8, 4), batch_size=None if loop else 1)
    if name == "tf_keras_gru":  # also a loop
        y = L.GRU(6)(x)
    elif "bidirectional_" in name and not name.endswith("_unrolled"):
        y = _bidirectional(k, name)(x)
    elif name == "lstm":  # LSTM(6) -> Dense: the last step
        y = L.Dense(3)(L.LSTM(6)(x))
    elif name == "gru":
        y = L.GRU(6)(x)
    elif name == "simple_rnn":
        y = L.SimpleRNN(6)(x)
    elif name == "lstm_sequences":  # return_sequences: the TensorList of every step's h
        y = L.LSTM(5, return_sequences=True)(x)
    elif name == "simple_rnn_unrolled":
        y = L.SimpleRNN(6, unroll=True)(x)
    elif name == "bidirectional_unrolled":
        y = L.Dense(3)(L.Bidirectional(L.LSTM(4, unroll=True))(x))
    else:
        raise KeyError(name)
    return k.Model(x, y)


def _convert(model) -> bytes:
    """Full-integer int8, calibrated on N(0, 1) batch-1 inputs; a dynamic-batch model with
    the converter's single-batch TensorList option (without it the conversion fails)."""
    shape = (1,) + tuple(model.inputs[0].shape[1:])

    def representative():
        rng = np.random.default_rng(5)
        for _ in range(CALIB):
            yield [rng.normal(size=shape).astype(np.float32)]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    if model.inputs[0].shape[0] is None:
        conv._experimental_default_to_single_batch_in_tensor_list_ops = True
    return conv.convert()


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("keras_rnn")
    cache = {}

    def get(name):
        if name not in cache:
            data = _convert(_model(name))
            path = out / f"{name}.tflite"
            path.write_bytes(data)
            cache[name] = (data, path)
        return cache[name]
    return get


def _main_ops(data: bytes) -> list[str]:
    model = oracle.parse(data)
    return [oracle.op_name(model, op) for op in model.subgraphs[0].operators]


def _inputs(data: bytes, seed: int) -> list[np.ndarray]:
    """N(0, 1) quantized with the input's parameters (as calibrated), and uniform int8."""
    d = tf.lite.Interpreter(model_content=data).get_input_details()[0]
    scale, zp = d["quantization"]
    shape = (1,) + tuple(d["shape"][1:])
    rng = np.random.default_rng(seed)
    normal = np.clip(np.round(rng.normal(size=shape) / scale) + zp, -128, 127)
    return [normal.astype(np.int8), rng.integers(-128, 128, size=shape, dtype=np.int8)]


# Bidirectional layers: a forward loop and a backward one reading the sequence through
# REVERSE_V2 (its return_sequences output reversed back by a second REVERSE_V2).
BIDIRECTIONAL = ["bidirectional_lstm", "bidirectional_gru_sum", "bidirectional_lstm_sequences",
                 "bidirectional_gru_sum_sequences", "bidirectional_lstm_mul",
                 "bidirectional_simple_rnn_ave_sequences", "tf_keras_bidirectional_gru_sequences"]
LOOPS = ["lstm", "gru", "simple_rnn", "lstm_sequences", "tf_keras_gru"] + BIDIRECTIONAL
# tf_keras' LSTM with a fixed batch: two fused UNIDIRECTIONAL_SEQUENCE_LSTMs (decision 56),
# the backward one behind REVERSE_V2.
FUSED = ["tf_keras_fused_bidirectional_lstm", "tf_keras_fused_bidirectional_lstm_sum_sequences"]
# Loops where an output differed from TF's by a FULLY_CONNECTED rounding tie (below).
TIES_SEEN = ["lstm_sequences", "bidirectional_lstm_sequences",
             "bidirectional_simple_rnn_ave_sequences"]


def _fc_ties(cli: str, path, x: np.ndarray, tmp) -> list[tuple[str, int]]:
    """The loops ("forward" or "backward", from a Bidirectional's tensor names) and trips
    (the `@k` suffix of the unrolled tensors) whose FULLY_CONNECTEDs, in our run on `x`,
    hit a rounding tie: an element where TF's interpreter's single rounding and
    TFLM's double rounding (ours) give different int8 values (tflite_oracle.py). Each qfc is
    recomputed from our dump; its double-rounded result must be our output."""
    import tflite_cases  # noqa: PLC0415
    from tflite_util import inspect_json, run_dump  # noqa: PLC0415

    info = inspect_json(cli, path)
    dumped = run_dump(cli, path, x, tmp)
    trips = []
    for op in info["ops"]:
        if op["type"] != "qfc":
            continue
        xin, w, out = op["inputs"][0], op["inputs"][1], op["outputs"][0]
        a = dumped[xin["index"]].astype(np.int64).reshape(-1, w["shape"][1])
        acc = (a - xin["quant"]["zero_point"][0]) @ dumped[w["index"]].astype(np.int64).T
        bias = op["inputs"][2]
        if bias["dtype"] == "int32" and not bias["name"].endswith(".zero_bias"):
            acc = acc + dumped[bias["index"]].astype(np.int64)
        got = dumped[out["index"]].reshape(acc.shape)
        s_in, s_out = np.float32(xin["quant"]["scale"][0]), np.float32(out["quant"]["scale"][0])
        zo = out["quant"]["zero_point"][0]
        for c in range(acc.shape[1]):
            ws = np.float32(w["quant"]["scale"][c if len(w["quant"]["scale"]) > 1 else 0])
            m, sh = tflite_cases._quantize_multiplier(float(s_in) * float(ws) / float(s_out))
            for r in range(acc.shape[0]):
                d = min(127, max(-128, tflite_cases._double_rounding(int(acc[r, c]), m, sh) + zo))
                single = min(127, max(-128, tflite_cases._single_rounding(int(acc[r, c]), m, sh)
                                      + zo))
                assert d == got[r, c], (op["name"], r, c, d, got[r, c])
                if single != d:
                    loop = "backward" if "/backward_" in out["name"] else "forward"
                    trips.append((loop, int(out["name"].rsplit("@", 1)[1])))
    return trips


def _explained(name: str, y: np.ndarray, i: int, ties: list[tuple[str, int]]) -> bool:
    """Whether output element `i` (flat) can follow from a tie: a tie in a loop it depends on,
    at the element's step or before in that loop's order (the backward loop runs from the
    last step; a last-step output depends on every trip)."""
    steps, width = (y.shape[1], y.shape[2]) if y.ndim == 3 else (None, y.shape[-1])
    step, channel = (i // width) % (steps or 1), i % width
    loops = {"forward"}
    if name in BIDIRECTIONAL:  # concat: forward units first; sum, mul, ave: either
        loops = {"forward", "backward"} if _merge_mode(name) != "concat" else \
            {"forward" if channel < width // 2 else "backward"}
    for loop, trip in ties:
        if loop not in loops:
            continue
        if steps is None or trip <= (step if loop == "forward" else steps - 1 - step):
            return True
    return False


@pytest.mark.parametrize("name", LOOPS + FUSED + ["simple_rnn_unrolled", "bidirectional_unrolled"])
def test_keras_rnn_matches_tf_interpreter(name, converted, cli, tmp_path):
    data, path = converted(name)
    ops = _main_ops(data)
    assert ("WHILE" in ops) == (name in LOOPS), ops
    if name in BIDIRECTIONAL + FUSED:  # the converter's form (decision 77)
        assert ops.count("REVERSE_V2") == (2 if name.endswith("_sequences") else 1), ops
        assert ops.count("WHILE" if name in LOOPS else "UNIDIRECTIONAL_SEQUENCE_LSTM") == 2, ops
        # The oracle runs TF's reference kernels here too (tflite_oracle._REF_VERSIONS).
        tf.lite.Interpreter(model_content=oracle._ref_versions(data),
                            experimental_op_resolver_type=REF)
    if name in LOOPS:  # the int8 body the importer unrolls
        model = oracle.parse(data)
        body = model.subgraphs[model.subgraphs[0].operators[ops.index("WHILE")]
                               .builtinOptions.bodySubgraphIndex]
        body_ops = [oracle.op_name(model, op) for op in body.operators]
        assert "FULLY_CONNECTED" in body_ops and "TANH" in body_ops, body_ops
    for k, x in enumerate(_inputs(data, 30)):
        want = oracle.tf_run(data, [x])
        y = want.get_tensor(want.get_output_details()[0]["index"])
        ours = oracle.run_ours(cli, path, [x], 1, tmp_path)[0].reshape(y.shape)
        assert np.unique(y).size >= min(3, y.size), "the output carries no signal"
        diff = np.flatnonzero(ours.ravel() != y.ravel())
        if diff.size and name in TIES_SEEN:
            # Seen on the uniform input (TIES_SEEN): 1 LSB at one step, then what follows
            # from it. Each differing element is accepted only if a FULLY_CONNECTED of its
            # loop, at its step or before, hit a rounding tie (TF's interpreter rounds FC
            # once, TFLM twice: tflite_oracle.py).
            ties = _fc_ties(cli, path, x, tmp_path / f"ties{k}")
            bad = [int(i) for i in diff if not _explained(name, y, int(i), ties)]
            assert not bad, (bad, ties)
            continue
        assert diff.size == 0, (f"{name} input {k}: {diff.size} of {y.size} differ, first at "
                                f"{diff[0]}: {ours.ravel()[diff[0]]} vs TF {y.ravel()[diff[0]]}")
    if name in LOOPS:  # unrolled: no loop left, one FULLY_CONNECTED pair per step
        text = run_cli(cli, "compile", path, "--print-after=dce").stdout
        assert text.count("= qfc(") >= 8, text


def test_keras_rnn_loop_on_board(converted, board_env):
    """The unrolled LSTM loop on the an547: board output == host output."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    data, path = converted("lstm")
    x = np.concatenate(_inputs(data, 31))
    outcome = tfboard.run_model(path, "an547", [x])
    assert outcome.samples == 2
    assert outcome.bit_exact, outcome.mismatch


@pytest.mark.parametrize("board", ["an547", "an386"])
@pytest.mark.parametrize("name", ["bidirectional_lstm_sequences",
                                  "tf_keras_bidirectional_gru_sequences",
                                  "tf_keras_fused_bidirectional_lstm_sum_sequences"])
def test_keras_bidirectional_on_board(name, board, converted, board_env):
    """Bidirectional layers on the M55 and the M4, board output == host output: the Keras 3
    LSTM loops, tf_keras' GRU loops (both with a REVERSE_V2 whose output the converter
    quantized otherwise: gather + identity qlut) and tf_keras' fused LSTM pair."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    data, path = converted(name)
    x = np.concatenate(_inputs(data, 32))
    outcome = tfboard.run_model(path, board, [x])
    assert outcome.samples == 2
    assert outcome.bit_exact, outcome.mismatch


def _rewritten(data: bytes, edit) -> bytes:
    """The model with `edit(model)` applied (flatbuffer rewrite)."""
    import flatbuffers  # noqa: PLC0415

    model = oracle.parse(data)
    edit(model)
    b = flatbuffers.Builder(0)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _first(model, name: str):
    return next(op for op in model.subgraphs[0].operators if oracle.op_name(model, op) == name)


def _retype(model, name: str, code: int) -> None:
    """Every `name` op of the main subgraph becomes builtin `code` (its own operator code)."""
    model.operatorCodes.append(oracle.schema.OperatorCodeT())
    model.operatorCodes[-1].builtinCode = code
    model.operatorCodes[-1].deprecatedBuiltinCode = min(code, 127)
    for op in model.subgraphs[0].operators:
        if oracle.op_name(model, op) == name:
            op.opcodeIndex = len(model.operatorCodes) - 1


def _axis(model, data: np.ndarray | None) -> None:
    """The first REVERSE_V2's axis replaced by a new tensor of int32 `data` (the converter
    shares its [0] with other ops), or a second graph input (no data)."""
    import copy  # noqa: PLC0415

    rev = _first(model, "REVERSE_V2")
    graph = model.subgraphs[0]
    axis = copy.deepcopy(graph.tensors[rev.inputs[1]])
    axis.shape = np.array([1 if data is None else data.size], dtype=np.int32)
    axis.buffer = 0
    if data is not None:
        model.buffers.append(oracle.schema.BufferT())
        model.buffers[-1].data = np.frombuffer(data.astype("<i4").tobytes(), dtype=np.uint8)
        axis.buffer = len(model.buffers) - 1
    graph.tensors.append(axis)
    rev.inputs[1] = len(graph.tensors) - 1
    if data is None:
        graph.inputs = np.append(graph.inputs, rev.inputs[1]).astype(np.int32)


B = oracle.schema.BuiltinOperator


@pytest.mark.parametrize("name,edit,expect", [
    ("bidirectional_gru_sum", lambda m: _axis(m, None),
     "(REVERSE_V2): inputs[1]: axis must be a constant"),
    ("bidirectional_gru_sum", lambda m: _axis(m, np.array([0, -3])),
     "(REVERSE_V2): inputs[1]: axis 0 is listed twice"),
    ("bidirectional_gru_sum", lambda m: _retype(m, "REVERSE_V2", B.REVERSE_SEQUENCE),
     "(REVERSE_SEQUENCE): unsupported operator"),
    ("tf_keras_fused_bidirectional_lstm",
     lambda m: _retype(m, "UNIDIRECTIONAL_SEQUENCE_LSTM", B.BIDIRECTIONAL_SEQUENCE_LSTM),
     "(BIDIRECTIONAL_SEQUENCE_LSTM): unsupported operator"),
])
def test_bidirectional_forms_not_taken_are_refused(name, edit, expect, converted, cli, tmp_path):
    """What the importer does not take around a Bidirectional layer (a REVERSE_V2 axis known
    only at run time or listed twice, TFLite's REVERSE_SEQUENCE, its fused
    BIDIRECTIONAL_SEQUENCE_LSTM) is named in one line, exit 2."""
    data, _ = converted(name)
    path = tmp_path / "edited.tflite"
    path.write_bytes(_rewritten(data, edit))
    r = run_cli(cli, "compile", path, "-o", tmp_path / "out", check=False)
    assert r.returncode == 2, r
    lines = [s for s in r.stderr.splitlines() if s.strip()]
    assert len(lines) == 1 and expect in lines[0], r.stderr


def _patched(data: bytes, what: str) -> bytes:
    """The LSTM loop model with one thing changed (flatbuffer rewrite)."""
    import flatbuffers  # noqa: PLC0415

    model = oracle.parse(data)
    main = model.subgraphs[0]
    w = next(op for op in main.operators if oracle.op_name(model, op) == "WHILE")
    code = model.operatorCodes[w.opcodeIndex]
    if what == "version":
        code.version = 2
    elif what == "if":  # the same operator as an IF (another kind of control flow)
        code.builtinCode = code.deprecatedBuiltinCode = oracle.schema.BuiltinOperator.IF
    else:  # the condition's step count made a run-time value (its buffer emptied)
        cond = model.subgraphs[w.builtinOptions.condSubgraphIndex]
        less = cond.operators[0]
        cond.tensors[less.inputs[1]].buffer = 0
    b = flatbuffers.Builder(0)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


@pytest.mark.parametrize("what,expect", [
    ("version", "op #7 (WHILE): version: 2 is newer"),
    ("if", "op #7 (IF): control flow (3 subgraphs) is not supported"),
    ("condition", "(WHILE): the loop's condition is not a constant (cond subgraph op #0 (LESS)"),
])
def test_unsupported_loops_are_refused(what, expect, converted, cli, tmp_path):
    """One line naming the op and the problem, exit 2."""
    data, _ = converted("lstm")
    path = tmp_path / f"{what}.tflite"
    path.write_bytes(_patched(data, what))
    r = run_cli(cli, "compile", path, "-o", tmp_path / "out", check=False)
    assert r.returncode == 2, r
    lines = [s for s in r.stderr.splitlines() if s.strip()]
    assert len(lines) == 1 and expect in lines[0], r.stderr
