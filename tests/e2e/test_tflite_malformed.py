"""Malformed and unsupported .tflite files: each is a one-line diagnostic naming the file
(and the op, tensor or field) and exit code 2, never a crash.

The files are made by mutating small models converted here from Keras (never the shared
MLPerf Tiny files): field edits through TFLite's flatbuffer object API, byte edits for
structural damage (truncation, offsets), and seeded random byte flips.
"""
from __future__ import annotations

import math
import re
import subprocess

import flatbuffers
import numpy as np
import pytest

import tflite_oracle as oracle
from e2e_util import run_cli

import tflite_cases

schema = oracle.schema
layers = tflite_cases.layers


def _convert(build, seed=3) -> bytes:
    spec = tflite_cases.ModelSpec("m", build, {})
    tflite_cases.tf.keras.utils.set_random_seed(seed)
    return tflite_cases.convert(spec, seed)


def _small():
    x = tflite_cases._inp((8, 8, 3))
    h = layers.Conv2D(4, 3, strides=2, padding="same", activation="relu")(x)
    h = layers.DepthwiseConv2D(3, padding="same")(h)
    h = layers.Dense(5)(layers.Flatten()(h))
    return tflite_cases.tf.keras.Model(x, layers.Softmax()(h))


def _log_softmax():
    x = tflite_cases._inp((6, 6, 3))
    f = layers.Lambda(lambda t: tflite_cases.tf.nn.log_softmax(t))
    return tflite_cases.tf.keras.Model(x, f(layers.Conv2D(4, 1)(x)))


def _cumsum_float():
    """A model whose CUMSUM stays float (no int8 kernel): DEQUANTIZE -> CUMSUM -> QUANTIZE."""
    tf = tflite_cases.tf
    x = tflite_cases._inp((6, 6, 3))
    h = layers.Lambda(lambda t: tf.math.cumsum(t, axis=2))(layers.Conv2D(4, 1)(x))
    return tflite_cases.convert_keras(lambda: tf.keras.Model(x, layers.Conv2D(2, 1)(h)), 3,
                                      calib_seed=3, samples=8, float_fallback=True)


@pytest.fixture(scope="module")
def base() -> bytes:
    return _convert(_small)


def _pack(model: schema.ModelT) -> bytes:
    b = flatbuffers.Builder(4096)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _op_index(model, name: str) -> int:
    return next(i for i, op in enumerate(model.subgraphs[0].operators)
                if oracle.op_name(model, op) == name)


def _check(cli, tmp_path, data: bytes, pattern: str, name: str = "bad.tflite"):
    path = tmp_path / name
    path.write_bytes(data)
    proc = run_cli(cli, "inspect", path, check=False)
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {path}: "), err
    assert re.search(pattern, err), f"{err!r} does not match {pattern!r}"
    return err


# ---- edits of fields (object API) --------------------------------------------------------

def _conv(m):
    return m.subgraphs[0].operators[_op_index(m, "CONV_2D")]


def _conv_filter(m):
    return m.subgraphs[0].tensors[int(_conv(m).inputs[1])]


def _set_nan_scale(m):
    m.subgraphs[0].tensors[int(_conv(m).inputs[0])].quantization.scale[0] = math.nan


def _tiny_scale(m):
    _conv_filter(m).quantization.scale[1] = 1e-40  # a float32 denormal: 1/scale overflows


def _bias_zero_point(m):
    m.subgraphs[0].tensors[int(_conv(m).inputs[2])].quantization.zeroPoint[0] = 1 << 40


def _set_zero_scale(m):
    _conv_filter(m).quantization.scale[2] = 0.0


def _short_buffer(m):
    t = _conv_filter(m)
    m.buffers[t.buffer].data = m.buffers[t.buffer].data[:-1]


def _bad_input_index(m):
    _conv(m).inputs[0] = 999


def _bad_output_index(m):
    _conv(m).outputs[0] = -3


def _bad_opcode(m):
    _conv(m).opcodeIndex = 77


def _bad_buffer_index(m):
    _conv_filter(m).buffer = 4242


def _per_channel_length(m):
    q = _conv_filter(m).quantization
    q.scale = np.append(q.scale, np.float32(0.5))
    q.zeroPoint = np.append(q.zeroPoint, 0)


def _bad_axis(m):
    _conv_filter(m).quantization.quantizedDimension = 7


def _zp_count(m):
    q = _conv_filter(m).quantization
    q.zeroPoint = q.zeroPoint[:1]


def _two_subgraphs(m):
    m.subgraphs.append(m.subgraphs[0])


def _schema_version(m):
    m.version = 2


def _stride_zero(m):
    _conv(m).builtinOptions.strideW = 0


def _padding_enum(m):
    _conv(m).builtinOptions.padding = 5


def _tanh_activation(m):
    _conv(m).builtinOptions.fusedActivationFunction = schema.ActivationFunctionType.TANH


def _dilation_zero(m):
    _conv(m).builtinOptions.dilationHFactor = 0


def _code_disagree(m):
    c = m.operatorCodes[_conv(m).opcodeIndex]
    c.builtinCode, c.deprecatedBuiltinCode = schema.BuiltinOperator.CONV_2D, \
        schema.BuiltinOperator.ADD + 5


def _version_99(m):
    m.operatorCodes[_conv(m).opcodeIndex].version = 99


def _version_0(m):
    m.operatorCodes[_conv(m).opcodeIndex].version = 0


def _zero_dim(m):
    t = m.subgraphs[0].tensors[int(_conv(m).outputs[0])]
    t.shape[1] = 0


def _out_of_order(m):
    ops = m.subgraphs[0].operators
    ops[0], ops[1] = ops[1], ops[0]


def _custom_op(m):
    c = m.operatorCodes[_conv(m).opcodeIndex]
    c.builtinCode = c.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    c.customCode = b"MyFancyOp"


def _bad_zero_point(m):
    m.subgraphs[0].tensors[int(_conv(m).outputs[0])].quantization.zeroPoint[0] = 200


def _filter_zero_point(m):
    _conv_filter(m).quantization.zeroPoint[1] = 3


def _output_shape(m):
    m.subgraphs[0].tensors[int(_conv(m).outputs[0])].shape[2] = 5


def _options_type(m):
    op = _conv(m)
    op.builtinOptionsType = schema.BuiltinOptions.Pool2DOptions
    op.builtinOptions = schema.Pool2DOptionsT()


def _input_int16(m):
    m.subgraphs[0].tensors[int(_conv(m).inputs[0])].type = schema.TensorType.INT16


def _output_int16(m):
    m.subgraphs[0].tensors[int(_conv(m).outputs[0])].type = schema.TensorType.INT16


def _external_buffer(m):
    t = _conv_filter(m)
    buf = m.buffers[t.buffer]
    buf.data, buf.offset, buf.size = None, 1 << 30, 108


def _sparse(m):
    _conv_filter(m).sparsity = schema.SparsityParametersT()


def _softmax_scale(m):
    op = m.subgraphs[0].operators[_op_index(m, "SOFTMAX")]
    m.subgraphs[0].tensors[int(op.outputs[0])].quantization.scale[0] = 0.01


def _graph_output_index(m):
    m.subgraphs[0].outputs[0] = 12345


def _graph_output_twice(m):  # found by the fuzzer: the IR verifier named it, not the importer
    out = int(m.subgraphs[0].outputs[0])
    m.subgraphs[0].outputs = [out, out]


FIELD_CASES = [
    ("nan_scale", _set_nan_scale, r"tensor #\d+ .*quantization\.scale\[0\]: must be finite and "
                                  r"> 0, got nan"),
    ("tiny_scale", _tiny_scale, r"quantization\.scale\[1\]: 9\.9999461e-41 is too small \(its "
                                r"reciprocal overflows float32\)"),
    ("bias_zero_point", _bias_zero_point,
     r"quantization\.zero_point\[0\]: 1099511627776 is outside INT32 \[-2147483648, 2147483647\]"),
    ("zero_scale", _set_zero_scale, r"quantization\.scale\[2\]: must be finite and > 0, got 0"),
    ("short_buffer", _short_buffer, r"buffer \d+: holds 107 bytes, INT8\[4,3,3,3\] needs 108"),
    ("bad_input_index", _bad_input_index,
     r"op #0 \(CONV_2D\): inputs\[0\]: tensor index 999 out of range"),
    ("bad_output_index", _bad_output_index,
     r"op #0 \(CONV_2D\): outputs\[0\]: tensor index -3 out of range"),
    ("bad_opcode_index", _bad_opcode, r"op #0: opcode_index: 77 out of range"),
    ("bad_buffer_index", _bad_buffer_index, r"buffer: index 4242 out of range"),
    ("per_channel_length", _per_channel_length,
     r"quantization\.scale: 5 per-channel scales, but dim 0 of shape \[4,3,3,3\] is 4"),
    ("bad_quantized_dimension", _bad_axis, r"quantized_dimension: 7 is out of range for rank 4"),
    ("zero_point_count", _zp_count, r"quantization\.zero_point: 1 zero points for 4 scales"),
    ("two_subgraphs", _two_subgraphs, r"model: subgraphs: 2 subgraphs"),
    ("schema_version", _schema_version, r"model: version: schema version 2, expected 3"),
    ("stride_zero", _stride_zero, r"op #0 \(CONV_2D\): stride_w: 0, must be >= 1"),
    ("padding_enum", _padding_enum, r"op #0 \(CONV_2D\): padding: 5 is neither SAME"),
    ("tanh_activation", _tanh_activation,
     r"op #0 \(CONV_2D\): fused_activation_function: TANH is not supported"),
    ("dilation_zero", _dilation_zero, r"op #0 \(CONV_2D\): dilation_h_factor: 0, must be >= 1"),
    ("code_disagree", _code_disagree,
     r"operator_codes\[\d+\]: builtin_code 3 \(CONV_2D\) and deprecated_builtin_code 5"),
    ("version_99", _version_99, r"op #0 \(CONV_2D\): version: 99 is newer"),
    ("version_0", _version_0, r"operator_codes\[\d+\]: version: 0 \(CONV_2D\), must be >= 1"),
    ("zero_dim", _zero_dim, r"shape: dim 1 of \[1,0,4,4\] is 0, must be >= 1"),
    ("out_of_order", _out_of_order, r"op #0 \(DEPTHWISE_CONV_2D\): inputs\[0\]: tensor #\d+ .* "
                                    r"is read before any op writes it"),
    ("custom_op", _custom_op, r"op #0 \(CUSTOM 'MyFancyOp'\): unsupported operator"),
    ("bad_zero_point", _bad_zero_point, r"zero_point\[0\]: 200 is outside INT8 \[-128, 127\]"),
    ("filter_zero_point", _filter_zero_point,
     r"op #0 \(CONV_2D\): inputs\[1\]: quantization\.zero_point\[1\]: 3, int8 filters are "
     r"symmetric"),
    ("output_shape", _output_shape,
     r"op #0 \(CONV_2D\): outputs\[0\]: shape \[1,4,5,4\], but the operands give \[1,4,4,4\]"),
    ("options_type", _options_type, r"op #0 \(CONV_2D\): builtin_options_type: 5, expected 1"),
    ("input_int16", _input_int16,
     r"subgraph: inputs\[0\]: tensor #\d+ .*: type INT16, expected INT8 \(per-tensor\) or FLOAT32"),
    ("output_int16", _output_int16, r"op #0 \(CONV_2D\): outputs\[0\]: type INT16, expected INT8"),
    ("external_buffer", _external_buffer, r"external data \[1073741824, \+108\) lies outside"),
    ("sparse", _sparse, r"sparsity: sparse tensors are not supported"),
    ("softmax_output_scale", _softmax_scale,
     r"op #\d+ \(SOFTMAX\): softmax: int8 output must have scale 1/256 and zero point -128"),
    ("graph_output_index", _graph_output_index, r"subgraph: outputs\[0\]: tensor index 12345"),
    ("graph_output_twice", _graph_output_twice,
     r"subgraph: outputs\[1\]: tensor #\d+ .* is listed twice"),
]


@pytest.mark.parametrize("name,edit,pattern", FIELD_CASES, ids=[c[0] for c in FIELD_CASES])
def test_field_edit(name, edit, pattern, base, cli, tmp_path):
    model = oracle.parse(base)
    edit(model)
    _check(cli, tmp_path, _pack(model), pattern, f"{name}.tflite")


# ---- unsupported ops from real converted models ----------------------------------------

@pytest.mark.parametrize("build,op", [(_log_softmax, "LOG_SOFTMAX"), (_cumsum_float, "CUMSUM")])
def test_unsupported_op_named_with_index(build, op, cli, tmp_path):
    """The unsupported op is named, not a neighbour (CUMSUM's DEQUANTIZE comes first)."""
    data = build() if build is _cumsum_float else _convert(build)
    if op == "CUMSUM":
        ops = [oracle.op_name(oracle.parse(data), o) for o in oracle.parse(data).subgraphs[0].operators]
        assert "DEQUANTIZE" in ops[:ops.index("CUMSUM")], ops
    index = _op_index(oracle.parse(data), op)
    err = _check(cli, tmp_path, data, rf"op #{index} \({op}\): unsupported operator \(the "
                                      r"importer handles ABS, ADD, ARG_MAX, ARG_MIN, ATAN2, ")
    # `run` refuses it the same way, before reading inputs.
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((1, 6, 6, 3), np.int8))
    proc = run_cli(cli, "run", tmp_path / "bad.tflite", "--input", x, check=False)
    assert proc.returncode == 2 and err.split(": ", 1)[1] in proc.stderr


def test_float_layer_after_dequantize_is_named(cli, tmp_path):
    """A layer the converter left in float32 (Keras' MobileNetV3Small with some weights:
    DEQUANTIZE -> float DEPTHWISE_CONV_2D -> QUANTIZE) is named in the DEQUANTIZE's error
    (decision 79). Made here by turning CUMSUM's float island into a float RELU."""
    m = oracle.parse(_cumsum_float())
    index = _op_index(m, "CUMSUM")
    op = m.subgraphs[0].operators[index]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.RELU
    code.version = 1
    m.operatorCodes.append(code)
    op.opcodeIndex = len(m.operatorCodes) - 1
    op.inputs = op.inputs[:1]
    op.builtinOptionsType, op.builtinOptions = 0, None
    _check(cli, tmp_path, _pack(m),
           rf"op #\d+ \(DEQUANTIZE\): outputs\[0\]: DEQUANTIZE is supported only .*; op "
           rf"#{index} \(RELU\) reads it in float32: the converter left that op unquantized")


def test_relu6_that_would_rescale_is_refused(cli, tmp_path):
    spec = next(s for s in tflite_cases.MODELS if s.name == "add_mul")
    tflite_cases.tf.keras.utils.set_random_seed(1)
    _check(cli, tmp_path, tflite_cases.convert(spec, 1),
           r"op #\d+ \(RELU6\): outputs\[0\]: quantization differs from inputs\[0\] .*"
           r"TFLite Micro's RELU6 does not rescale")


def test_maximum_with_differing_parameters_is_refused(cli, tmp_path):
    """TFLM's int8 MAXIMUM compares raw values: an output scaled differently is refused."""
    def build():
        x = tflite_cases._inp((4, 4, 3))
        return tflite_cases.tf.keras.Model(
            x, layers.Maximum()([layers.Conv2D(4, 1)(x), layers.Conv2D(4, 3, padding="same")(x)]))

    model = oracle.parse(_convert(build))
    op = model.subgraphs[0].operators[_op_index(model, "MAXIMUM")]
    model.subgraphs[0].tensors[op.outputs[0]].quantization.scale[0] *= 2.0
    _check(cli, tmp_path, _pack(model),
           r"op #\d+ \(MAXIMUM\): outputs\[0\]: quantization differs from inputs\[0\] .*"
           r"compare raw values")


def test_transpose_conv_output_shape_must_match(cli, tmp_path):
    """TRANSPOSE_CONV's output_shape operand and its output tensor must agree (the importer
    plans the phases from both)."""
    def build():
        x = tflite_cases._inp((4, 4, 3))
        up = layers.Conv2DTranspose(2, 3, strides=2, padding="same")
        return tflite_cases.tf.keras.Model(x, up(layers.Conv2D(4, 1)(x)))

    model = oracle.parse(_convert(build))
    op = model.subgraphs[0].operators[_op_index(model, "TRANSPOSE_CONV")]
    buf = model.buffers[model.subgraphs[0].tensors[op.inputs[0]].buffer]
    shape = np.frombuffer(bytes(bytearray(buf.data)), dtype="<i4").copy()
    shape[1] += 1
    buf.data = np.frombuffer(shape.astype("<i4").tobytes(), dtype=np.uint8)
    _check(cli, tmp_path, _pack(model),
           r"op #\d+ \(TRANSPOSE_CONV\): inputs\[0\]: output_shape \[1,9,8,2\] differs "
           r"from the output")


# ---- structural damage ---------------------------------------------------------------

def _root_offset(data: bytes) -> bytes:
    return (0xFFFFFF00).to_bytes(4, "little") + data[4:]


def _subgraphs_offset(data: bytes) -> bytes:
    # Make the root table's vtable point far outside the file.
    b = bytearray(data)
    root = int.from_bytes(b[0:4], "little")
    b[root:root + 4] = (-(1 << 30)).to_bytes(4, "little", signed=True)
    return bytes(b)


BYTE_CASES = [
    ("empty", lambda d: b"", r"flatbuffer: truncated: 0 bytes"),
    ("four_bytes", lambda d: d[:4], r"flatbuffer: truncated: 4 bytes"),
    ("half", lambda d: d[: len(d) // 2], r"flatbuffer: invalid structure"),
    ("tail_cut", lambda d: d[:-40], r"flatbuffer: invalid structure|buffer|lies outside"),
    ("identifier", lambda d: d[:4] + b"TFL2" + d[8:], r"not a TFLite model \(no 'TFL3'"),
    ("root_offset", _root_offset, r"flatbuffer: invalid structure"),
    ("vtable_offset", _subgraphs_offset, r"flatbuffer: invalid structure"),
]


@pytest.mark.parametrize("name,mutate,pattern", BYTE_CASES, ids=[c[0] for c in BYTE_CASES])
def test_byte_damage(name, mutate, pattern, base, cli, tmp_path):
    _check(cli, tmp_path, mutate(base), pattern, f"{name}.tflite")


def test_tflite_content_without_extension_is_detected(base, cli, tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(base)
    info = run_cli(cli, "inspect", path).stdout
    assert "kind=int8" in info and "op00_CONV_2D" in info


def test_random_byte_flips_never_crash(base, cli, tmp_path):
    """200 seeded mutations (1-8 random bytes each): exit 0 or 2, never a signal or an
    internal error; every failure is one line naming the file."""
    rng = np.random.default_rng(2024)
    codes = {0: 0, 2: 0}
    path = tmp_path / "flip.tflite"
    for k in range(200):
        b = bytearray(base)
        for _ in range(int(rng.integers(1, 9))):
            b[int(rng.integers(0, len(b)))] = int(rng.integers(0, 256))
        path.write_bytes(bytes(b))
        # Bytes, not text: a mutated tensor name need not be UTF-8.
        proc = subprocess.run([cli, "inspect", str(path)], capture_output=True, timeout=60)
        assert proc.returncode in codes, f"mutation {k}: exit {proc.returncode}: {proc.stderr}"
        codes[proc.returncode] += 1
        if proc.returncode == 2:
            err = proc.stderr.decode().strip()  # diagnostics escape non-ASCII bytes
            assert len(err.splitlines()) == 1 and err.startswith(f"error: {path}: "), err
    assert codes[2] > 0
