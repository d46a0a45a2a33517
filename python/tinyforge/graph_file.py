"""The graph file (``.tfg``): writer, reader and validator of docs/graph-format.md v1.

Layout: 24-byte header (magic ``TFGRAPH\\0``, u32 version, u32 json_len, u64 blob_len),
UTF-8 JSON, zero padding to a multiple of 64, then the constant blob. Constants inside the
blob are 16-byte aligned, C order, little-endian.

:func:`validate_document` checks the JSON against the contract (the same rules the C++
reader enforces); the writer runs it before writing, so a file tinyforge writes is valid
by construction, and :func:`load_graph` runs it after reading.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import TinyforgeError, escape

MAGIC = b"TFGRAPH\x00"
VERSION = 1
HEADER = struct.Struct("<8sIIQ")  # magic, version, json_len, blob_len
BLOB_ALIGN = 64
CONST_ALIGN = 16
MAX_RANK = 6

NUMPY_DTYPES: dict[str, np.dtype] = {
    "float32": np.dtype("<f4"),
    "int8": np.dtype("i1"),
    "int32": np.dtype("<i4"),
}

# type -> (min inputs, max inputs, outputs, required attrs): compiler/ir/op_types.def's first
# block with its attribute structs' fields (tests/python/test_graph_file.py checks they agree).
OP_TYPES: dict[str, tuple[int, int, int, tuple[str, ...]]] = {
    "conv2d": (2, 3, 1, ("stride", "padding", "dilation", "groups")),
    "linear": (2, 3, 1, ()),
    "relu": (1, 1, 1, ()),
    "hardtanh": (1, 1, 1, ("min", "max")),
    "sigmoid": (1, 1, 1, ()),
    "tanh": (1, 1, 1, ()),
    "hardswish": (1, 1, 1, ()),
    "hardsigmoid": (1, 1, 1, ()),
    "silu": (1, 1, 1, ()),
    "gelu": (1, 1, 1, ("approximate_tanh",)),
    "elu": (1, 1, 1, ("alpha", "scale", "input_scale")),
    "leaky_relu": (1, 1, 1, ("negative_slope",)),
    "mish": (1, 1, 1, ()),
    "softplus": (1, 1, 1, ("beta", "threshold")),
    "log_sigmoid": (1, 1, 1, ()),
    "hardshrink": (1, 1, 1, ("lambd",)),
    "softshrink": (1, 1, 1, ("lambd",)),
    "threshold": (1, 1, 1, ("threshold", "value")),
    "square": (1, 1, 1, ()),
    "max_pool2d": (1, 1, 1, ("kernel", "stride", "padding", "dilation", "ceil_mode")),
    "avg_pool2d": (
        1, 1, 1,
        ("kernel", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"),
    ),
    "mean": (1, 1, 1, ("dims", "keepdim")),
    "reshape": (1, 1, 1, ("shape",)),
    "add": (2, 2, 1, ()),
    "sub": (2, 2, 1, ()),
    "mul": (2, 2, 1, ()),
    "maximum": (2, 2, 1, ()),
    "minimum": (2, 2, 1, ()),
    "prelu": (2, 2, 1, ()),
    "cat": (1, 1 << 30, 1, ("axis",)),
    "transpose": (1, 1, 1, ("perm",)),
    "slice": (1, 1, 1, ("begin", "end", "stride")),
    "resize": (1, 1, 1, ("size", "bilinear", "align_corners", "half_pixel_centers", "scale_h",
                         "scale_w", "layout")),
    "softmax": (1, 1, 1, ("axis",)),
    "layer_norm": (1, 3, 1, ("eps", "rms")),
    "sum": (1, 1, 1, ("dims", "keepdim")),
    "amax": (1, 1, 1, ("dims", "keepdim")),
    "pad": (1, 1, 1, ("padding", "value")),
    "argmax": (1, 1, 1, ("axis", "keepdim", "min")),
    "gather": (2, 2, 1, ("axis", "wrap_negative")),
    "matmul": (2, 2, 1, ()),
    "unary": (1, 1, 1, ("fn",)),
    "binary": (2, 2, 1, ("fn",)),
    "cumsum": (1, 1, 1, ("axis",)),
    "quantize": (1, 1, 1, ()),
    "dequantize": (1, 1, 1, ()),
}


class GraphFormatError(TinyforgeError, ValueError):
    """A graph file or document breaks docs/graph-format.md; the message names the field."""


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


@dataclass
class Quant:
    """Quantization parameters of an int8/int32 tensor (per-tensor when axis is None)."""

    scale: list[float]
    zero_point: list[int]
    axis: int | None
    qmin: int
    qmax: int

    def to_json(self) -> dict[str, Any]:
        return {
            "scale": [float(s) for s in self.scale],
            "zero_point": [int(z) for z in self.zero_point],
            "axis": self.axis,
            "qmin": int(self.qmin),
            "qmax": int(self.qmax),
        }


@dataclass
class _Tensor:
    name: str
    shape: list[int]
    dtype: str
    quant: Quant | None = None
    data: np.ndarray | None = None


@dataclass
class GraphBuilder:
    """Accumulates tensors and ops in order, then serialises them into one file image."""

    name: str
    kind: str
    tensors: list[_Tensor] = field(default_factory=list)
    ops: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    state: list[tuple[int, int]] = field(default_factory=list)  # (input, output) positions

    def add_tensor(
        self,
        name: str,
        shape: list[int],
        dtype: str,
        quant: Quant | None = None,
        data: np.ndarray | None = None,
    ) -> int:
        """Append a tensor; ``data`` makes it a constant. Returns its index."""
        if data is not None:
            data = np.ascontiguousarray(data, dtype=NUMPY_DTYPES[dtype]).reshape(shape)
        self.tensors.append(_Tensor(name, list(shape), dtype, quant, data))
        return len(self.tensors) - 1

    def add_op(
        self,
        type_: str,
        name: str,
        inputs: list[int],
        outputs: list[int],
        attrs: dict[str, Any],
        source: str | None = None,
    ) -> None:
        op: dict[str, Any] = {
            "type": type_, "name": name, "inputs": inputs, "outputs": outputs, "attrs": attrs,
        }
        if source:
            op["source"] = source
        self.ops.append(op)

    def build(self, producer: str) -> tuple[dict[str, Any], bytes]:
        """The JSON document and the constant blob (constants 16-byte aligned)."""
        blob = bytearray()
        tensors = []
        for t in self.tensors:
            entry: dict[str, Any] = {"name": t.name, "shape": t.shape, "dtype": t.dtype}
            if t.quant is not None:
                entry["quant"] = t.quant.to_json()
            if t.data is not None:
                offset = _align(len(blob), CONST_ALIGN)
                raw = t.data.astype(NUMPY_DTYPES[t.dtype], copy=False).tobytes(order="C")
                blob.extend(b"\x00" * (offset - len(blob)))
                blob.extend(raw)
                entry["data"] = {"offset": offset, "size": len(raw)}
            tensors.append(entry)
        doc = {
            "format": "tinyforge-graph",
            "version": VERSION,
            "producer": producer,
            "name": self.name,
            "kind": self.kind,
            "tensors": tensors,
            "ops": self.ops,
            "inputs": self.inputs,
            "outputs": self.outputs,
        }
        if self.state:
            doc["state"] = [[i, o] for i, o in self.state]
        return doc, bytes(blob)


def _dump_json(doc: dict[str, Any]) -> bytes:
    """JSON with one tensor / op per line: small, yet readable with ``head -c``."""
    parts = []
    for key, value in doc.items():
        if key in ("tensors", "ops"):
            items = ",\n  ".join(json.dumps(v, allow_nan=False) for v in value)
            parts.append(f'"{key}": [\n  {items}\n]')
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, allow_nan=False)}")
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")


def serialize(doc: dict[str, Any], blob: bytes) -> bytes:
    """Validate ``doc`` against ``blob`` and return the complete file image."""
    validate_document(doc, len(blob))
    js = _dump_json(doc)
    blob_off = _align(HEADER.size + len(js), BLOB_ALIGN)
    head = HEADER.pack(MAGIC, VERSION, len(js), len(blob))
    return head + js + b"\x00" * (blob_off - HEADER.size - len(js)) + blob


def parse(data: bytes, what: str = "<bytes>") -> tuple[dict[str, Any], dict[int, np.ndarray]]:
    """Check the header, the JSON and every constant; return (document, constants)."""
    if len(data) < HEADER.size:
        raise GraphFormatError(f"{what}: header: file is {len(data)} bytes, shorter than the header")
    magic, version, json_len, blob_len = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise GraphFormatError(f"{what}: header: bad magic {magic!r}")
    if version != VERSION:
        raise GraphFormatError(f"{what}: header: container version {version}, expected {VERSION}")
    blob_off = _align(HEADER.size + json_len, BLOB_ALIGN)
    if len(data) != blob_off + blob_len:
        state = "truncated" if len(data) < blob_off + blob_len else "corrupt (trailing bytes)"
        raise GraphFormatError(
            f"{what}: header: file is {len(data)} bytes, header says {blob_off + blob_len}: {state}"
        )
    try:
        doc = json.loads(data[HEADER.size:HEADER.size + json_len].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GraphFormatError(f"{what}: header: JSON does not parse: {e}") from e
    if not isinstance(doc, dict):
        raise GraphFormatError(f"{what}: header: JSON document is not an object")
    try:
        validate_document(doc, blob_len)
    except GraphFormatError as e:
        raise GraphFormatError(f"{what}: {e}") from e
    blob = data[blob_off:]
    consts: dict[int, np.ndarray] = {}
    for i, t in enumerate(doc["tensors"]):
        if "data" in t:
            d = t["data"]
            arr = np.frombuffer(blob, NUMPY_DTYPES[t["dtype"]], _numel(t["shape"]), d["offset"])
            consts[i] = arr.reshape(t["shape"]).copy()
    return doc, consts


def load_graph(path: str | Path) -> tuple[dict[str, Any], dict[int, np.ndarray]]:
    """Read a ``.tfg`` file: (JSON document, {tensor index: constant as numpy array}).

    Raises GraphFormatError naming the file and the offending field if anything in the
    header, the JSON or the constant table breaks the format.
    """
    return parse(Path(path).read_bytes(), str(path))


def _numel(shape: list[int]) -> int:
    return math.prod(shape) if shape else 1


def _check(cond: bool, where: str, msg: str) -> None:
    if not cond:
        raise GraphFormatError(f"{where}: {msg}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_INT_RANGE = {"int8": (-(2**7), 2**7 - 1), "int32": (-(2**31), 2**31 - 1)}


def _validate_quant(q: Any, shape: list[int], dtype: str, where: str) -> None:
    _check(isinstance(q, dict), where, "quant: not an object")
    for key in ("scale", "zero_point", "axis", "qmin", "qmax"):
        _check(key in q, where, f"quant.{key}: missing")
    scale, zp, axis = q["scale"], q["zero_point"], q["axis"]
    _check(isinstance(scale, list) and isinstance(zp, list), where, "quant: scale/zero_point not lists")
    _check(len(scale) == len(zp) and len(scale) >= 1, where, "quant: scale and zero_point lengths differ")
    if axis is None:
        _check(len(scale) == 1, where, "quant.axis: null but more than one scale")
    else:
        _check(_is_int(axis) and 0 <= axis < len(shape), where, f"quant.axis: {axis} out of range")
        _check(len(scale) == shape[axis], where, f"quant.scale: {len(scale)} scales for dim {shape[axis]}")
    lo, hi = _INT_RANGE[dtype]
    ok = _is_int(q["qmin"]) and _is_int(q["qmax"]) and lo <= q["qmin"] < q["qmax"] <= hi
    _check(ok, where, f"quant: qmin/qmax {q['qmin']}, {q['qmax']} not an ordered {dtype} range")
    for s in scale:
        ok = isinstance(s, (int, float)) and math.isfinite(s) and s > 0
        _check(ok, where, f"quant.scale: {s} not finite > 0")
    for z in zp:
        ok = _is_int(z) and q["qmin"] <= z <= q["qmax"]
        _check(ok, where, f"quant.zero_point: {z} outside [qmin, qmax]")


def validate_document(doc: dict[str, Any], blob_len: int) -> None:
    """Raise GraphFormatError unless ``doc`` follows docs/graph-format.md v1."""
    for key in ("format", "version", "name", "kind", "tensors", "ops", "inputs", "outputs"):
        _check(key in doc, "document", f"{key}: missing")
    _check(doc["format"] == "tinyforge-graph", "document", f"format: {doc['format']!r}")
    _check(doc["version"] == VERSION, "document", f"version: {doc['version']} != {VERSION}")
    _check(doc["kind"] in ("float", "qdq"), "document", f"kind: {doc['kind']!r}")
    tensors, ops = doc["tensors"], doc["ops"]
    n = len(tensors)
    names: set[str] = set()
    available = [False] * n  # graph inputs, constants, and outputs of ops run so far
    for i, t in enumerate(tensors):
        where = f"tensor '{escape(str(t.get('name', '?')))}' (#{i})"
        for key in ("name", "shape", "dtype"):
            _check(key in t, where, f"{key}: missing")
        _check(isinstance(t["name"], str) and t["name"] != "", where, "name: empty")
        _check(t["name"] not in names, where, "name: not unique")
        names.add(t["name"])
        shape = t["shape"]
        _check(isinstance(shape, list) and len(shape) <= MAX_RANK, where, "shape: not a list of <= 6 dims")
        _check(all(_is_int(d) and d >= 1 for d in shape), where, f"shape: {shape} has a dim < 1")
        _check(t["dtype"] in NUMPY_DTYPES, where, f"dtype: {t['dtype']!r}")
        if t["dtype"] == "float32":
            _check("quant" not in t, where, "quant: forbidden on float32")
        elif t["dtype"] == "int32" and "quant" not in t:
            pass  # indices (argmax), in any kind of graph
        else:
            _check(doc["kind"] == "qdq", where, "dtype: integer tensor in a float graph")
            _check("quant" in t, where, "quant: required on int8/int32")
            _validate_quant(t["quant"], shape, t["dtype"], where)
        if "data" in t:
            d = t["data"]
            size = _numel(shape) * NUMPY_DTYPES[t["dtype"]].itemsize
            _check(_is_int(d.get("offset")) and _is_int(d.get("size")), where, "data: offset/size missing")
            _check(d["size"] == size, where, f"data.size: {d['size']} != {size}")
            _check(0 <= d["offset"] and d["offset"] + d["size"] <= blob_len, where, "data: outside the blob")
            available[i] = True
    for k, idx in enumerate(doc["inputs"]):
        _check(_is_int(idx) and 0 <= idx < n, "inputs", f"#{k}: {idx} out of range")
        _check("data" not in tensors[idx], "inputs", f"#{k}: a constant cannot be a graph input")
        available[idx] = True
    produced = [False] * n
    op_names: set[str] = set()
    for k, op in enumerate(ops):
        where = f"op '{escape(str(op.get('name', '?')))}' (#{k})"
        for key in ("type", "name", "inputs", "outputs", "attrs"):
            _check(key in op, where, f"{key}: missing")
        _check(op["type"] in OP_TYPES, where, f"type: unknown op type {op['type']!r}")
        _check(isinstance(op["name"], str) and op["name"] != "", where, "name: empty")
        _check(op["name"] not in op_names, where, "name: not unique")
        op_names.add(op["name"])
        lo, hi, n_out, attrs = OP_TYPES[op["type"]]
        _check(lo <= len(op["inputs"]) <= hi, where, f"inputs: {len(op['inputs'])} inputs")
        _check(len(op["outputs"]) == n_out, where, f"outputs: {len(op['outputs'])} outputs")
        for a in attrs:
            _check(a in op["attrs"], where, f"attrs.{a}: missing")
        for idx in op["inputs"]:
            _check(_is_int(idx) and 0 <= idx < n, where, f"inputs: {idx} out of range")
            _check(available[idx], where, f"inputs: tensor #{idx} is not available yet (order)")
        for idx in op["outputs"]:
            _check(_is_int(idx) and 0 <= idx < n, where, f"outputs: {idx} out of range")
            _check(not produced[idx] and not available[idx], where,
                   f"outputs: tensor #{idx} produced twice or is an input/constant")
            produced[idx] = available[idx] = True
        if op["type"] in ("quantize", "dequantize"):
            src, dst = tensors[op["inputs"][0]]["dtype"], tensors[op["outputs"][0]]["dtype"]
            floats = (src, dst) if op["type"] == "quantize" else (dst, src)
            _check(floats[0] == "float32" and floats[1] != "float32", where,
                   f"{op['type']}: {src} -> {dst}")
    for k, idx in enumerate(doc["outputs"]):
        _check(_is_int(idx) and 0 <= idx < n and available[idx], "outputs", f"#{k}: {idx} not produced")
    pairs = doc.get("state", [])
    _check(isinstance(pairs, list), "state", "not a list of [input, output] pairs")
    for k, pair in enumerate(pairs):
        _check(isinstance(pair, list) and len(pair) == 2 and all(_is_int(v) for v in pair),
               "state", f"#{k}: not an [input, output] pair")
        i, o = pair
        _check(0 <= i < len(doc["inputs"]) and 0 <= o < len(doc["outputs"]), "state",
               f"#{k}: [{i}, {o}] names no input / output")
        _check(all(p[0] != i and p[1] != o for p in pairs[:k]), "state",
               f"#{k}: input {i} or output {o} is in an earlier pair")
        a, b = tensors[doc["inputs"][i]], tensors[doc["outputs"][o]]
        _check(a["shape"] == b["shape"] and a["dtype"] == b["dtype"], "state",
               f"#{k}: input and output differ in shape or dtype")
