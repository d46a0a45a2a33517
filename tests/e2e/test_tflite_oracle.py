"""TensorFlow's TFLite interpreter (BUILTIN_REF) as a second oracle for the .tflite importer.

1. Trust, then use: on the four MLPerf Tiny models TF's interpreter must agree with the TFLM
   goldens (every case 0 tensor, every output and logits) except FULLY_CONNECTED rounding
   ties (tflite_oracle.py explains the one documented difference).
2. A wider set: small Keras models converted to int8 .tflite with a representative dataset
   (tests/kernels/tflite_cases.py: every op, padding, stride, dilation, depth multiplier,
   broadcast, fused activation, per-tensor and per-channel weights, batch > 1, float edges),
   imported and run by `tinyforge run` on seeded inputs and compared op by op with TF.
"""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import tflite_oracle as oracle
from tflite_util import GOLDEN, MODELS, available, inspect_json, manifest, op_outputs, \
    read_bin, run_dump

import tflite_cases

N_INPUTS = 3

# The kernel suite's models, minus the two whose standalone RELU6 changes quantization
# (TFLM does not rescale there, so the importer rejects it: test_tflite_malformed.py),
# plus a variant of them without it.
SPECS = [s for s in tflite_cases.MODELS if not s.name.startswith("add_mul")]


def _add_mul_no_relu6():
    layers = tflite_cases.layers
    x = tflite_cases._inp((6, 5, 8))
    a = layers.Conv2D(8, 1)(x)
    b = layers.Conv2D(8, 3, padding="same")(x)
    d = layers.DepthwiseConv2D(3, padding="same")(x)
    c = layers.GlobalAveragePooling2D(keepdims=True)(a)
    s = layers.Add()([a, b])
    outs = [s, layers.ReLU()(s), layers.ReLU()(layers.Add()([a, d])),
            layers.ReLU(6.0)(layers.Add()([b, d])), layers.Multiply()([a, b]),
            layers.ReLU()(layers.Multiply()([a, d])), layers.Add()([a, c]),
            layers.Multiply()([b, layers.Activation("sigmoid")(c)])]
    return tflite_cases.tf.keras.Model(x, outs)


def _lut_model():
    """The table-lookup builtins the converter quantizes: HARD_SWISH (fused from
    x * relu6(x + 3) / 6 and from Keras' hard_silu), LEAKY_RELU (two slopes) and RSQRT (of
    a positive value, and of a squared difference: Keras LayerNormalization's variance)."""
    layers, tf = tflite_cases.layers, tflite_cases.tf
    x = tflite_cases._inp((6, 5, 8))
    a = layers.Conv2D(8, 3, padding="same")(x)
    b = layers.Conv2D(8, 1)(x)
    hs = layers.Lambda(lambda t: t * tf.nn.relu6(t + 3.0) * (1.0 / 6.0))(a)
    outs = [hs, layers.Activation("hard_silu")(b), layers.LeakyReLU(0.1)(a),
            layers.LeakyReLU(0.3)(b), layers.Activation("sigmoid")(a), layers.Activation("tanh")(b),
            layers.Lambda(lambda t: tf.math.rsqrt(tf.nn.relu(t) + 0.05))(a),
            layers.Lambda(lambda t: tf.math.rsqrt(tf.math.squared_difference(t[0], t[1]) + 1e-3))(
                [a, b])]
    return tf.keras.Model(x, outs)


def _float_lut_model():
    """The int8 builtins TFLite computes by a float lookup table: GELU (erf, and the tanh
    approximation; Keras' "gelu" activation), EXP and LOG (Keras' softplus, log(exp(x) + 1),
    and mish, x * tanh(softplus(x))). The first GELU reads the int8 graph input, so the
    seeded uniform inputs reach most of its 256 table entries."""
    layers, tf = tflite_cases.layers, tflite_cases.tf
    x = tflite_cases._inp((6, 5, 8))
    a = layers.Conv2D(8, 3, padding="same")(x)
    b = layers.Conv2D(8, 1)(x)
    outs = [layers.Activation("gelu")(x), layers.Activation("gelu")(a),
            layers.Lambda(lambda t: tf.nn.gelu(t, approximate=True))(b),
            layers.Activation("softplus")(a), layers.Activation("mish")(b),
            layers.Lambda(lambda t: tf.exp(t) * 0.25)(x),
            layers.Lambda(lambda t: tf.math.log(tf.nn.relu(t) + 0.05))(a)]
    return tf.keras.Model(x, outs)


def _mirror_min_model():
    """MIRROR_PAD (REFLECT and SYMMETRIC, uneven amounts, up to the most each allows) and
    REDUCE_MIN (over H and W, and over channels with keepdims)."""
    layers, tf = tflite_cases.layers, tflite_cases.tf
    x = tflite_cases._inp((6, 5, 8))
    a = layers.Conv2D(8, 3, padding="same")(x)
    pad = lambda t, p, mode: tf.pad(t, p, mode=mode)  # noqa: E731
    outs = [layers.Lambda(lambda t: pad(t, [[0, 0], [2, 1], [0, 4], [0, 0]], "REFLECT"))(x),
            layers.Lambda(lambda t: pad(t, [[0, 0], [1, 6], [5, 2], [0, 0]], "SYMMETRIC"))(a),
            layers.Lambda(lambda t: tf.reduce_min(t, axis=[1, 2]))(a),
            layers.Lambda(lambda t: tf.reduce_min(t, axis=-1, keepdims=True))(x)]
    return tf.keras.Model(x, outs)


def _binary_model():
    """SUB, MUL, MAXIMUM, MINIMUM and SQUARED_DIFFERENCE: elementwise, per-channel and scalar
    broadcasts, constant operands, a fused ReLU."""
    tf = tflite_cases.tf
    layers = tflite_cases.layers
    x = tflite_cases._inp((6, 5, 8))
    a = layers.Conv2D(8, 1)(x)
    b = layers.Conv2D(8, 3, padding="same")(x)
    c = layers.GlobalAveragePooling2D(keepdims=True)(a)  # [1, 1, 1, 8]: per channel
    lam = layers.Lambda
    outs = [
        layers.Subtract()([a, b]),
        lam(lambda t: tf.nn.relu(t[0] - t[1]))([a, c]),
        lam(lambda t: t[0] - t[1])([c, b]),
        lam(lambda t: t * tf.constant(np.linspace(-1.5, 2.0, 8, dtype=np.float32)))(a),
        lam(lambda t: t * 0.37 - 0.5)(b),
        layers.Multiply()([a, c]),
        layers.Maximum()([a, b]),
        layers.Minimum()([a, b]),
        lam(lambda t: tf.maximum(t, 0.25))(a),
        lam(lambda t: tf.math.squared_difference(t[0], t[1]))([a, b]),
        lam(lambda t: tf.math.squared_difference(t[0], t[1]))([a, c]),
    ]
    return tf.keras.Model(x, outs)


def _conv_family_model():
    """The conv-like builtins beyond the zoo's: TRANSPOSE_CONV (stride 2, SAME, fused ReLU),
    a grouped CONV_2D, a dilated CONV_2D and DEPTHWISE_CONV_2D with depth multiplier 2."""
    layers, tf = tflite_cases.layers, tflite_cases.tf
    x = tflite_cases._inp((6, 5, 8))
    g = layers.Conv2D(8, 3, padding="same", groups=2)(x)
    d = layers.Conv2D(6, 3, padding="same", dilation_rate=2, activation="relu")(g)
    m = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")(d)
    return tf.keras.Model(x, layers.Conv2DTranspose(4, 3, strides=2, padding="same",
                                                    activation="relu")(m))


def _recurrent_model(layer):
    """A Keras GRU / LSTM unrolled over 8 steps (unroll=True: FULLY_CONNECTED, SPLIT,
    STRIDED_SLICE, LOGISTIC, TANH, MUL, ADD, SUB per step), then a Dense head. Keras 3's
    fused forms are WHILE loops (test_tflite_keras_rnn.py, decisions.md 75); Keras 2's fused
    LSTM (UNIDIRECTIONAL_SEQUENCE_LSTM) is tested in test_tflite_lstm.py (decisions.md 56)."""
    layers, tf = tflite_cases.layers, tflite_cases.tf
    x = tflite_cases._inp((8, 16))
    return tf.keras.Model(x, layers.Dense(4)(layer(32, unroll=True)(x)))


def _transformer_block():
    """A Keras post-norm transformer encoder block (4 heads of 8, d_model 32, 16 tokens):
    MultiHeadAttention (FULLY_CONNECTED, BATCH_MATMUL, SOFTMAX, TRANSPOSE), two
    LayerNormalizations (MEAN, SQUARED_DIFFERENCE, RSQRT, MUL, ADD, and a NEG the converter
    leaves in float between DEQUANTIZE and QUANTIZE), a ReLU feed-forward, a pooled head."""
    layers, tf = tflite_cases.layers, tflite_cases.tf
    x = tflite_cases._inp((16, 32))
    a = layers.LayerNormalization()(layers.Add()([x, layers.MultiHeadAttention(4, 8)(x, x)]))
    f = layers.Dense(32)(layers.Dense(64, activation="relu")(a))
    y = layers.GlobalAveragePooling1D()(layers.LayerNormalization()(layers.Add()([a, f])))
    return tf.keras.Model(x, layers.Dense(4)(y))


SPECS += [
    tflite_cases.ModelSpec("transformer_block", _transformer_block,
                           {"BATCH_MATMUL": 2, "SOFTMAX": 1, "RSQRT": 2, "NEG": 2}),
    tflite_cases.ModelSpec("gru_unrolled", lambda: _recurrent_model(tflite_cases.layers.GRU),
                           {"FULLY_CONNECTED": 16, "LOGISTIC": 16, "TANH": 8}),
    tflite_cases.ModelSpec("lstm_unrolled", lambda: _recurrent_model(tflite_cases.layers.LSTM),
                           {"FULLY_CONNECTED": 16, "LOGISTIC": 23, "TANH": 16}),
    tflite_cases.ModelSpec("conv_family", _conv_family_model,
                           {"TRANSPOSE_CONV": 1, "CONV_2D": 2, "DEPTHWISE_CONV_2D": 1}),
    tflite_cases.ModelSpec("lut", _lut_model, {"HARD_SWISH": 2, "LEAKY_RELU": 2, "LOGISTIC": 1,
                                               "TANH": 1, "RSQRT": 2}),
    tflite_cases.ModelSpec("float_lut", _float_lut_model, {"GELU": 3, "EXP": 3, "LOG": 3}),
    tflite_cases.ModelSpec("mirror_min", _mirror_min_model, {"MIRROR_PAD": 2, "REDUCE_MIN": 2}),
    tflite_cases.ModelSpec("binary", _binary_model,
                           {"SUB": 3, "MUL": 3, "MAXIMUM": 2, "MINIMUM": 1,
                            "SQUARED_DIFFERENCE": 2}),
    tflite_cases.ModelSpec("add_mul", _add_mul_no_relu6, {"ADD": 4, "MUL": 3, "RELU": 1}),
    tflite_cases.ModelSpec("add_mul_wide", _add_mul_no_relu6, {"ADD": 4, "MUL": 3},
                           calib_scale=25.0),
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("tflite_models")
    cache = {}

    def get(spec):
        if spec.name not in cache:
            tflite_cases.tf.keras.utils.set_random_seed(7)
            data = tflite_cases.convert(spec, seed=7)
            path = out / f"{spec.name}.tflite"
            path.write_bytes(data)
            cache[spec.name] = (data, path)
        return cache[spec.name]
    return get


def _op_by_op(cli, data: bytes, path, first_seed: int, workdir):
    return oracle.op_by_op(cli, data, path, range(first_seed, first_seed + N_INPUTS), workdir)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_keras_model_matches_tf_interpreter(spec, converted, cli, tmp_path):
    data, path = converted(spec)
    model = oracle.parse(data)
    ops = [oracle.op_name(model, op) for op in model.subgraphs[0].operators]
    for op, count in spec.expect.items():
        assert ops.count(op) >= count, f"converter produced {ops}, expected {count} x {op}"
    total = oracle.Comparison()
    for k, r in _op_by_op(cli, data, path, 100, tmp_path):
        total.compared += r.compared
        total.fc_ties += r.fc_ties
        total.skipped += r.skipped
        assert not r.failures, f"{spec.name} input {k}:\n" + "\n".join(r.failures)
    assert total.compared > 0
    print(f"{spec.name}: {total.compared} op outputs equal, {total.fc_ties} FC tie elements, "
          f"{total.skipped} downstream of a tie")


def test_hard_swish_of_tiny_scales_matches_tf_interpreter(cli, tmp_path):
    """HARD_SWISH whose input scale is so small that the reluish multiplier's exponent is
    below -15 (Keras' MobileNetV3Small with its initial weights: activations of scale 1e-8,
    decision 79): TFLite's reference kernel divides an int16 by 2^16 or more there, which
    gemmlowp's mask arithmetic turns into +-1. A conv with weights of 1e-7 feeds it."""
    import numpy as np  # noqa: PLC0415

    tf, layers = tflite_cases.tf, tflite_cases.layers
    x = tf.keras.Input((6, 6, 3), batch_size=1)
    conv = layers.Conv2D(8, 3, padding="same")
    model = tf.keras.Model(x, layers.Conv2D(4, 1)(layers.Activation("hard_silu")(conv(x))))
    rng = np.random.default_rng(5)
    conv.set_weights([rng.normal(size=(3, 3, 3, 8)).astype(np.float32) * 1e-7,
                      rng.normal(size=8).astype(np.float32) * 1e-7])

    def representative():
        for _ in range(8):
            yield [rng.normal(size=(1, 6, 6, 3)).astype(np.float32)]

    data = tflite_cases.to_int8(model, representative)
    graph = oracle.parse(data).subgraphs[0]
    hs = next(op for op in graph.operators
              if oracle.op_name(oracle.parse(data), op) == "HARD_SWISH")
    assert graph.tensors[int(hs.inputs[0])].quantization.scale[0] < 1e-7
    path = tmp_path / "tiny_hard_swish.tflite"
    path.write_bytes(data)
    compared = 0
    for k, r in _op_by_op(cli, data, path, 300, tmp_path):
        assert not r.failures, f"input {k}:\n" + "\n".join(r.failures)
        compared += r.compared
    assert compared >= 3 * N_INPUTS


def test_int8_elu_matches_tf_interpreter(converted, cli, tmp_path):
    """The converter leaves ELU in float (DEQUANTIZE, ELU, QUANTIZE), but TFLite's int8 ELU
    kernel exists (its own lookup table): the `lut` model with every LEAKY_RELU turned into
    an int8 ELU (no options) checks the importer's ELU table against it. BUILTIN_REF has no
    ELU, so TF runs its default kernels (its optimized CONV_2D may round 1 element apart
    from the reference): each ELU output is compared where our ELU input equals TF's."""
    import flatbuffers  # noqa: PLC0415

    data, _ = converted(next(s for s in SPECS if s.name == "lut"))
    model = oracle.parse(data)
    elu = oracle.schema.OperatorCodeT()
    elu.builtinCode = elu.deprecatedBuiltinCode = oracle.schema.BuiltinOperator.ELU
    elu.version = 1  # this TF registers ELU version 1 only (every type)
    model.operatorCodes.append(elu)
    changed = 0
    for op in model.subgraphs[0].operators:
        if oracle.op_name(model, op) == "LEAKY_RELU":
            op.opcodeIndex = len(model.operatorCodes) - 1
            op.builtinOptionsType, op.builtinOptions = 0, None
            changed += 1
    assert changed == 2
    b = flatbuffers.Builder(4096)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    data = bytes(b.Output())
    path = tmp_path / "elu.tflite"
    path.write_bytes(data)
    outputs = op_outputs(inspect_json(cli, path))
    model = oracle.parse(data)
    graph = model.subgraphs[0]
    details = oracle.tf.lite.Interpreter(model_content=data).get_input_details()
    compared = 0
    for k in range(N_INPUTS):
        xs = oracle.random_inputs(details, 200 + k)
        interp = oracle.tf.lite.Interpreter(model_content=data,
                                            experimental_preserve_all_tensors=True)
        interp.allocate_tensors()
        interp.set_tensor(details[0]["index"], xs[0])
        interp.invoke()
        dumped = run_dump(cli, path, xs[0], tmp_path / f"in{k}")
        # every op with one output has an IR op of its own; SPLIT / UNPACK become one slice
        # per output (compared through their consumers)
        ours = {int(op.outputs[0]): dumped[outputs[i]] for i, op in enumerate(graph.operators)
                if len(op.outputs) == 1 or i in outputs}
        for op in graph.operators:
            if oracle.op_name(model, op) != "ELU":
                continue
            x_ours = ours[int(op.inputs[0])].ravel()
            same_in = x_ours == interp.get_tensor(int(op.inputs[0])).ravel()
            y_tf = interp.get_tensor(int(op.outputs[0])).ravel()
            y_ours = ours[int(op.outputs[0])].ravel()
            np.testing.assert_array_equal(y_ours[same_in], y_tf[same_in])
            assert same_in.mean() > 0.95
            compared += int(same_in.sum())
    assert compared > 1000


def _float_split_model(converted, absent_input: bool = False) -> tuple[bytes, int]:
    """The `lstm_unrolled` model with its first int8 SPLIT made float: DEQUANTIZE -> SPLIT ->
    a QUANTIZE per output, each to a new scale and zero point (as TF's converter leaves it in
    about one conversion of five). `absent_input`: the DEQUANTIZE reads tensor -1. Returns
    the file and the SPLIT's number of outputs."""
    import flatbuffers  # noqa: PLC0415

    data, _ = converted(next(s for s in SPECS if s.name == "lstm_unrolled"))
    model = oracle.parse(data)
    graph, schema = model.subgraphs[0], oracle.schema
    codes = {}
    for name, version in (("DEQUANTIZE", 2), ("QUANTIZE", 2)):
        c = schema.OperatorCodeT()
        c.builtinCode = c.deprecatedBuiltinCode = getattr(schema.BuiltinOperator, name)
        c.version = version
        model.operatorCodes.append(c)
        codes[name] = len(model.operatorCodes) - 1
    # The converter may itself have left a SPLIT in float (the nondeterminism this test is
    # about): take the first SPLIT that is int8 on both sides.
    int8 = schema.TensorType.INT8

    def int8_split(op):
        if oracle.op_name(model, op) != "SPLIT":
            return False
        ts = [int(op.inputs[1]), *(int(t) for t in op.outputs)]
        return (all(graph.tensors[t].type == int8 and graph.tensors[t].quantization
                    and graph.tensors[t].quantization.scale is not None for t in ts))

    at = next(i for i, op in enumerate(graph.operators) if int8_split(op))
    split = graph.operators[at]

    def float_copy(t):
        f = schema.TensorT()
        f.shape, f.type, f.buffer = graph.tensors[t].shape, schema.TensorType.FLOAT32, 0
        f.name = graph.tensors[t].name + b"/float"
        graph.tensors.append(f)
        return len(graph.tensors) - 1

    def op(code, x, y):
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = codes[code], [x], [y]
        return o

    x, outs = int(split.inputs[1]), [int(t) for t in split.outputs]
    fx = float_copy(x)
    split.inputs[1] = fx
    quantizes = []
    for k, t in enumerate(outs):
        ft = float_copy(t)
        split.outputs[k] = ft
        q = graph.tensors[t].quantization
        q.scale = [float(q.scale[0]) * (1.25 + 0.25 * k)]
        q.zeroPoint = [int(q.zeroPoint[0]) + 3 * k - 4]
        quantizes.append(op("QUANTIZE", ft, t))
    graph.operators[at + 1:at + 1] = quantizes
    graph.operators.insert(at, op("DEQUANTIZE", -1 if absent_input else x, fx))
    b = flatbuffers.Builder(1 << 16)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output()), len(outs)


def test_float_split_between_dequantize_and_quantize(converted, cli, tmp_path):
    """A float SPLIT between DEQUANTIZE and QUANTIZEs (_float_split_model) runs in int8 with
    the dequantize-then-quantize table and matches TF's interpreter op by op."""
    data, n_outs = _float_split_model(converted)
    path = tmp_path / "float_split.tflite"
    path.write_bytes(data)
    ops = [o["type"] for o in inspect_json(cli, path)["ops"]]
    assert ops.count("qlut") >= n_outs
    compared = 0
    for k, r in _op_by_op(cli, data, path, 300, tmp_path):
        assert not r.failures, f"input {k}:\n" + "\n".join(r.failures)
        compared += r.compared
    assert compared > 100


def test_float_island_with_an_absent_input_is_refused(converted, cli, tmp_path):
    """The island fold must not read an absent DEQUANTIZE input (-1): one line, exit 2."""
    data, _ = _float_split_model(converted, absent_input=True)
    path = tmp_path / "absent.tflite"
    path.write_bytes(data)
    proc = subprocess.run([cli, "inspect", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert re.fullmatch(rf"error: {re.escape(str(path))}: op #\d+ \(DEQUANTIZE\): inputs\[0\]: "
                        r"required input is omitted \(-1\)\n", proc.stderr), proc.stderr


@pytest.mark.skipif(not available(), reason="../shared MLPerf Tiny goldens missing")
@pytest.mark.parametrize("name", ["kws", "vww", "ic", "ad"])
def test_tf_interpreter_agrees_with_tflm_goldens(name, cli, tmp_path):
    entry = next(m for m in manifest()["models"] if m["model"] == name)
    path = MODELS / entry["model_file"]
    data = path.read_bytes()
    graph = oracle.parse(data).subgraphs[0]
    # Case 0: TF against every op output TFLM dumped.
    x0 = read_bin(entry["cases"][0]["input_file"], entry["input"]["shape"])
    tflm = {t["tensor_index"]: read_bin(t["file"], t["shape"])
            for t in entry["intermediates"]["tensors"]}
    r = oracle.compare_ops(data, oracle.tf_run(data, [x0]), tflm)
    assert not r.failures, "\n".join(r.failures)
    assert r.compared + r.skipped == len(graph.operators)
    # Every case: TF's output and logits equal TFLM's, or they differ only downstream of a
    # FULLY_CONNECTED tie. The goldens hold no intermediates for cases > 0, so the chain
    # is traced with tinyforge's (test_tflite_golden.py shows they reproduce TFLM's).
    outputs = op_outputs(inspect_json(cli, path))
    differing = []
    for c in entry["cases"]:
        x = read_bin(c["input_file"], entry["input"]["shape"])
        interp = oracle.tf_run(data, [x])
        final = int(graph.outputs[0])
        same = np.array_equal(interp.get_tensor(final).ravel(), read_bin(c["output_file"], -1))
        if c.get("logits_file"):
            same = same and np.array_equal(interp.get_tensor(int(c["logits_tensor_index"])).ravel(),
                                           read_bin(c["logits_file"], -1))
        if same:
            continue
        dumped = run_dump(cli, path, x, tmp_path / f"case{c['case']}")
        # every op with one output has an IR op of its own; SPLIT / UNPACK become one slice
        # per output (compared through their consumers)
        ours = {int(op.outputs[0]): dumped[outputs[i]] for i, op in enumerate(graph.operators)
                if len(op.outputs) == 1 or i in outputs}
        rc = oracle.compare_ops(data, interp, ours)
        assert not rc.failures and rc.fc_ties > 0, f"case {c['case']}: {rc.failures}"
        differing.append(f"case {c['case']} ({rc.fc_ties} FC tie elements)")
    print(f"{name}: case 0 TF == TFLM on {r.compared} op outputs, {r.fc_ties} FC tie elements, "
          f"{r.skipped} downstream; outputs/logits differ only in {differing or 'no case'}")


def test_seed_models_match_tf_interpreter(cli, tmp_path):
    """The fuzzer's seed models (tests/fuzz/make_tflite_seeds.cc: written with our schema
    subset's builder, not by TF's converter) load in TF's interpreter and match it op by op:
    a check of the subset's field slots from the writing side, and of SQUEEZE, PADV2 with a
    value, standalone RELU/RELU6 and int8 -> int8 QUANTIZE."""
    from pathlib import Path
    # In the build tree `make build` writes (the CLI may be .venv/bin's copy, not build/'s).
    maker = Path(__file__).resolve().parents[2] / "build" / "tests" / "fuzz" / "tflite_make_seeds"
    if not maker.exists():
        pytest.skip(f"{maker} not built (make build)")
    import subprocess
    subprocess.run([str(maker), str(tmp_path)], check=True)
    for name in ("cnn", "elementwise", "float_edges"):
        path = tmp_path / f"{name}.tflite"
        data = path.read_bytes()
        n_ops = len(oracle.parse(data).subgraphs[0].operators)
        for _, r in _op_by_op(cli, data, path, 200, tmp_path / name):
            assert not r.failures and r.compared == n_ops, (name, r)
