"""Operator cases from TensorFlow Lite Micro itself: the MLPerf Tiny golden dumps.

../shared/golden/mlperf-tiny holds, for case 0 of each of the four MLPerf Tiny models, the
output of every operator as TFLM (reference kernels, double rounding) computed it. With the
model's constants (weights, biases, quantization) read from the .tflite, each operator
becomes a case in the same schema as tflite_cases.py: inputs are the tensors TFLM fed the
op, the expected output is what TFLM produced. This checks the kernels against the real
target, not only against TensorFlow's interpreter. The files are read in place, never
copied (see the golden README).
"""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from tensorflow.lite.python import schema_py_generated as schema  # noqa: E402

from tflite_cases import _options  # noqa: E402  (same option normalization)

from tinyforge import reference_models  # noqa: E402

SHARED = reference_models.shared_dir()
GOLDEN = SHARED / "golden" / "mlperf-tiny"
MODELS = reference_models.models_dir() or reference_models.cache_dir()

_NUMPY_TYPES = {
    schema.TensorType.INT8: np.int8,
    schema.TensorType.INT32: np.int32,
    schema.TensorType.UINT8: np.uint8,
    schema.TensorType.FLOAT32: np.float32,
}
_TYPE_NAMES = {np.int8: "int8", np.int32: "int32", np.uint8: "uint8", np.float32: "float32"}
_OP_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}


def available() -> bool:
    return (GOLDEN / "manifest.json").is_file() and MODELS.is_dir()


def model_names() -> list[str]:
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    return [m["model"] for m in manifest["models"]]


def _tensor_json(t: schema.TensorT, data: np.ndarray) -> dict:
    q = t.quantization
    scales = [] if q is None or q.scale is None else [float(s) for s in
                                                      np.asarray(q.scale, np.float32)]
    zps = [] if q is None or q.zeroPoint is None else [int(z) for z in q.zeroPoint]
    np_type = _NUMPY_TYPES[t.type]
    return {
        "shape": [int(s) for s in (t.shape if t.shape is not None else [])],
        "dtype": _TYPE_NAMES[np_type],
        "scale": scales,
        "zero_point": zps,
        "data": [float(v) for v in data.reshape(-1)] if np_type is np.float32
        else [int(v) for v in data.reshape(-1)],
    }


def _load_model(entry: dict) -> schema.ModelT:
    blob = bytearray((MODELS / entry["model_file"]).read_bytes())
    return schema.ModelT.InitFromPackedBuf(blob, 0)


def model_cases(name: str) -> list[dict]:
    """One case per operator (RESHAPE skipped) of case 0 of MLPerf Tiny model `name`."""
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    entry = next(m for m in manifest["models"] if m["model"] == name)
    model = _load_model(entry)
    graph = model.subgraphs[0]
    dumped = {t["tensor_index"]: t for t in entry["intermediates"]["tensors"]}

    def tensor_data(index: int) -> np.ndarray:
        t = graph.tensors[index]
        np_type = _NUMPY_TYPES[t.type]
        if index in dumped:  # activation: what TFLM computed
            raw = (GOLDEN / dumped[index]["file"]).read_bytes()
        else:  # constant: from the flatbuffer
            raw = bytes(model.buffers[t.buffer].data)
        return np.frombuffer(raw, dtype=np_type).reshape(t.shape)

    cases = []
    for info in entry["intermediates"]["tensors"]:
        i = info["op_index"]
        if i < 0:
            continue
        fb_op = graph.operators[i]
        code = model.operatorCodes[fb_op.opcodeIndex]
        # Older files keep the op in deprecatedBuiltinCode (builtinCode then reads 0).
        op_name = _OP_NAMES[max(code.builtinCode, code.deprecatedBuiltinCode)]
        if op_name != info["op_type"]:
            raise ValueError(f"{name} op {i}: manifest says {info['op_type']}, model {op_name}")
        if op_name == "RESHAPE":
            continue
        inputs = [None if int(t) < 0 else _tensor_json(graph.tensors[int(t)], tensor_data(int(t)))
                  for t in fb_op.inputs]
        out = int(fb_op.outputs[0])
        cases.append({
            "name": f"golden-{name}/{i:02d}_{op_name}",
            "op": op_name,
            "model": f"golden-{name}",
            "options": _options(fb_op),
            "inputs": inputs,
            "outputs": [_tensor_json(graph.tensors[out], tensor_data(out))],
        })
    return cases


def run_model_chain(name: str, run_cases) -> list[dict]:
    """Runs every public case of MLPerf Tiny model `name` end to end through the kernels,
    operator by operator (each op is fed what OUR previous ops produced), and compares the
    final output and, for softmax models, the logits with TFLM's golden files.

    run_cases(cases, tag) -> {name: computed data} runs a batch of cases through the driver.
    Returns one dict per golden case: {"case", "output_ok", "logits_ok", "detail"}.
    """
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    entry = next(m for m in manifest["models"] if m["model"] == name)
    model = _load_model(entry)
    graph = model.subgraphs[0]

    def constant(index: int) -> np.ndarray:
        t = graph.tensors[index]
        return np.frombuffer(bytes(model.buffers[t.buffer].data),
                             dtype=_NUMPY_TYPES[t.type]).reshape(t.shape)

    states = {}
    for c in entry["cases"]:
        x = np.frombuffer((GOLDEN / c["input_file"]).read_bytes(), dtype=np.int8)
        states[c["case"]] = {int(graph.inputs[0]): x.reshape(graph.tensors[graph.inputs[0]].shape)}

    for i, fb_op in enumerate(graph.operators):
        code = model.operatorCodes[fb_op.opcodeIndex]
        op_name = _OP_NAMES[max(code.builtinCode, code.deprecatedBuiltinCode)]
        out = int(fb_op.outputs[0])
        out_t = graph.tensors[out]
        if op_name == "RESHAPE":
            for st in states.values():
                st[out] = st[int(fb_op.inputs[0])].reshape(out_t.shape)
            continue
        batch = []
        for case_id, st in states.items():
            inputs = []
            for t in fb_op.inputs:
                t = int(t)
                if t < 0:
                    inputs.append(None)
                else:
                    inputs.append(_tensor_json(graph.tensors[t], st[t] if t in st else constant(t)))
            expected = np.zeros(out_t.shape, dtype=_NUMPY_TYPES[out_t.type])
            batch.append({"name": f"golden-{name}/case{case_id}/{i:02d}_{op_name}", "op": op_name,
                          "options": _options(fb_op), "inputs": inputs,
                          "outputs": [_tensor_json(out_t, expected)]})
        computed = run_cases(batch, f"chain-{name}-op{i:02d}")
        for case_id, st in states.items():
            key = f"golden-{name}/case{case_id}/{i:02d}_{op_name}"
            if key not in computed:
                raise RuntimeError(f"{key}: the kernel produced no output")
            st[out] = np.asarray(computed[key], dtype=np.int8).reshape(out_t.shape)

    results = []
    final = int(graph.outputs[0])
    for c in entry["cases"]:
        st = states[c["case"]]
        want = np.frombuffer((GOLDEN / c["output_file"]).read_bytes(), dtype=np.int8)
        got = st[final].reshape(-1)
        r = {"case": c["case"], "output_ok": bool(np.array_equal(got, want)),
             "logits_ok": None, "detail": ""}
        if not r["output_ok"]:
            r["detail"] += f"output differs at {np.flatnonzero(got != want)[:5].tolist()}; "
        if c.get("logits_file"):
            lw = np.frombuffer((GOLDEN / c["logits_file"]).read_bytes(), dtype=np.int8)
            lg = st[int(c["logits_tensor_index"])].reshape(-1)
            r["logits_ok"] = bool(np.array_equal(lg, lw))
            if not r["logits_ok"]:
                r["detail"] += f"logits {lg.tolist()} vs TFLM {lw.tolist()}"
        results.append(r)
    return results
