"""TensorFlow's own TFLite interpreter (reference op resolver, BUILTIN_REF) as a second oracle
for .tflite models, and the op-by-op comparison used against it.

TF's interpreter differs from TensorFlow Lite Micro (tinyforge's target numerics) in one
documented place for the ops the importer accepts: it requantizes FULLY_CONNECTED (and, seen
in the Keras-applications trial, TRANSPOSE_CONV) with single rounding, TFLM with double
rounding (kernels/README.md). Such an
output may therefore differ by exactly such a tie; every differing element must be proven to
be one (tests/kernels/tflite_cases.fc_rounding_divergence /
transpose_conv_rounding_divergence), and the tensors computed from it are then not compared
(they legitimately inherit the difference). Every other difference fails.
"""
from __future__ import annotations

import dataclasses
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.lite.python import schema_py_generated as schema  # noqa: E402

import tflite_cases  # noqa: E402  (tests/kernels: Keras model suite, option/tensor helpers)

OP_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}


def op_name(model: schema.ModelT, op: schema.OperatorT) -> str:
    code = model.operatorCodes[op.opcodeIndex]
    return OP_NAMES[max(code.builtinCode, code.deprecatedBuiltinCode)]


def parse(model_bytes: bytes) -> schema.ModelT:
    return schema.ModelT.InitFromPackedBuf(bytearray(model_bytes), 0)


def convert_case(build, expect: list[str], convert) -> tuple[bytes, schema.ModelT]:
    """The Keras model `build()` as int8 .tflite through `convert(build)`, in a fresh Keras
    session with seed 7 (the converter's result depended on earlier models); fails unless
    the converter wrote every builtin in `expect`."""
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(7)
    data = convert(build)
    model = parse(data)
    ops = [op_name(model, op) for op in model.subgraphs[0].operators]
    for op in expect:
        assert op in ops, f"converter produced {ops}, expected {op}"
    return data, model


@dataclasses.dataclass
class Case:
    """A converted case written to disk, with its input / output details."""
    path: object
    data: bytes
    model: schema.ModelT
    ins: list
    outs: list

    def random_inputs(self, rng) -> list[np.ndarray]:
        return [rng.integers(-128, 128, size=d["shape"], dtype=np.int8) for d in self.ins]


def write_case(name: str, build, expect: list[str], convert, tmp) -> Case:
    """convert_case, written to tmp/name.tflite."""
    data, model = convert_case(build, expect, convert)
    path = tmp / f"{name}.tflite"
    path.write_bytes(data)
    interp = tf.lite.Interpreter(model_content=data)
    return Case(path, data, model, interp.get_input_details(), interp.get_output_details())


def run_ours(cli: str, model_path, xs: list[np.ndarray], n_outputs: int, tmp) -> list[np.ndarray]:
    """`tinyforge run` of the model on one input (the first of xs): its outputs."""
    from e2e_util import run_cli  # noqa: PLC0415

    np.save(tmp / "x.npy", xs[0])
    args = ["run", model_path, "--input", tmp / "x.npy"]
    for j in range(n_outputs):
        args += ["--output", tmp / f"y{j}.npy"]
    run_cli(cli, *args)
    return [np.load(tmp / f"y{j}.npy") for j in range(n_outputs)]


def random_inputs(interp_details, seed: int) -> list[np.ndarray]:
    """One seeded input per graph input: uniform int8, or float32 N(0, 1.5^2)."""
    rng = np.random.default_rng(seed)
    xs = []
    for d in interp_details:
        if d["dtype"] == np.int8:
            xs.append(rng.integers(-128, 128, size=d["shape"], dtype=np.int8))
        else:
            xs.append((rng.normal(size=d["shape"]) * 1.5).astype(np.float32))
    return xs


def op_by_op(cli: str, data: bytes, path, seeds, workdir):
    """For one random input per seed: runs TF's interpreter and our per-op dump (`tinyforge
    run --dump-dir`), yields (k, compare_ops result)."""
    from tflite_util import inspect_json, op_outputs, run_dump  # noqa: PLC0415

    graph = parse(data).subgraphs[0]
    outputs = op_outputs(inspect_json(cli, path))
    details = tf.lite.Interpreter(model_content=data).get_input_details()
    for k, seed in enumerate(seeds):
        xs = random_inputs(details, seed)
        interp = tf_run(data, xs)
        dumped = run_dump(cli, path, xs, workdir / f"in{k}")
        # an op with one output has an IR op of its own, except the shape arithmetic of a
        # dynamic batch (folded at import) and ops merged into a neighbour; SPLIT / UNPACK
        # become one slice per output (compared through their consumers)
        ours = {int(op.outputs[0]): dumped[outputs[i]] for i, op in enumerate(graph.operators)
                if i in outputs}
        yield k, compare_ops(data, interp, ours)


# Builtins whose kernel TF's reference resolver registers only up to a lower version than
# the converter writes, although both resolvers register the same kernel (register_ref.cc:
# REVERSE_V2 versions 1-2; register.cc adds 3, int8, to the same Register_REVERSE_V2, whose
# Eval copies int8 in either). The oracle's copy of such a model states the lower version.
_REF_VERSIONS = {schema.BuiltinOperator.REVERSE_V2: 2}


def _ref_versions(model_bytes: bytes) -> bytes:
    import flatbuffers  # noqa: PLC0415

    model = parse(model_bytes)
    changed = False
    for code in model.operatorCodes:
        op = max(code.builtinCode, code.deprecatedBuiltinCode)
        if op in _REF_VERSIONS and code.version > _REF_VERSIONS[op]:
            code.version = _REF_VERSIONS[op]
            changed = True
    if not changed:
        return model_bytes
    b = flatbuffers.Builder(0)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def tf_run(model_bytes: bytes, inputs: list[np.ndarray]):
    """Runs TF's interpreter with its reference kernels, keeping every tensor (a REVERSE_V2
    of version 3 stated as 2: _REF_VERSIONS); where the reference resolver lacks a builtin
    version (int8 TILE v3, DEPTH_TO_SPACE v2), with TF's default kernels (no delegate)."""
    resolvers = tf.lite.experimental.OpResolverType
    try:
        interp = tf.lite.Interpreter(
            model_content=model_bytes, experimental_op_resolver_type=resolvers.BUILTIN_REF,
            experimental_preserve_all_tensors=True)
    except ValueError:
        try:
            interp = tf.lite.Interpreter(
                model_content=_ref_versions(model_bytes),
                experimental_op_resolver_type=resolvers.BUILTIN_REF,
                experimental_preserve_all_tensors=True)
        except ValueError:
            interp = tf.lite.Interpreter(
                model_content=model_bytes,
                experimental_op_resolver_type=resolvers.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    for d, x in zip(interp.get_input_details(), inputs):
        interp.set_tensor(d["index"], x.reshape(d["shape"]).astype(d["dtype"]))
    interp.invoke()
    return interp


@dataclasses.dataclass
class Comparison:
    compared: int = 0           # op outputs compared element for element
    fc_ties: int = 0            # FULLY_CONNECTED / TRANSPOSE_CONV elements off by a proven tie
    skipped: int = 0            # op outputs downstream of such a tie (not comparable)
    merged: int = 0             # ops the importer merged into a neighbour (no output of theirs)
    failures: list = dataclasses.field(default_factory=list)


def compare_ops(model_bytes: bytes, interp, ours: dict[int, np.ndarray]) -> Comparison:
    """Compares `ours` (TFLite tensor index -> value, for every op output) with the
    interpreter's tensors, op by op in execution order."""
    model = parse(model_bytes)
    graph = model.subgraphs[0]
    details = {d["index"]: d for d in interp.get_tensor_details()}
    tainted: set[int] = set()
    r = Comparison()
    for i, op in enumerate(graph.operators):
        name = op_name(model, op)
        out = int(op.outputs[0])
        if out not in ours and interp.get_tensor(out).dtype == np.int32:
            continue  # shape arithmetic (SHAPE -> STRIDED_SLICE -> PACK), folded at import
        if out not in ours and len(op.outputs) > 1:
            # a multi-output op lowered to one op per output: checked through its consumers,
            # which inherit a tie upstream of it
            if any(int(t) in tainted for t in op.inputs if int(t) >= 0):
                tainted.update(int(t) for t in op.outputs)
            continue
        if out not in ours:  # merged into a neighbour at import (Keras' UpSampling2D as
            r.merged += 1    # RESHAPE -> TILE -> RESHAPE): compared at the group's output,
            if any(int(t) in tainted for t in op.inputs if int(t) >= 0):
                tainted.add(out)  # which inherits a tie upstream of the group
            continue
        want = interp.get_tensor(out)
        got = ours[out].reshape(want.shape)
        if np.array_equal(got, want):
            r.compared += 1
            continue
        if any(int(t) in tainted for t in op.inputs if int(t) >= 0):
            tainted.add(out)
            r.skipped += 1
            continue
        if name in ("FULLY_CONNECTED", "TRANSPOSE_CONV"):
            case = {"inputs": [None if int(t) < 0 else tflite_cases._tensor(interp, details, int(t))
                               for t in op.inputs],
                    "outputs": [tflite_cases._tensor(interp, details, out)],
                    "options": tflite_cases._options(op)}
            prove = (tflite_cases.fc_rounding_divergence if name == "FULLY_CONNECTED"
                     else tflite_cases.transpose_conv_rounding_divergence)
            n, unexplained = prove(case, got.ravel().tolist())
            if not unexplained:
                r.compared += 1
                r.fc_ties += n
                tainted.add(out)
                continue
        diff = np.flatnonzero(got.ravel() != want.ravel())
        r.failures.append(f"op #{i} {name}: {diff.size} of {want.size} elements differ, first "
                          f"at {diff[0]}: {got.ravel()[diff[0]]} vs TF {want.ravel()[diff[0]]}")
    return r
