"""A reference interpreter for graph files, written from docs/graph-format.md alone.

Test helper, not part of the package: it runs a document + constants with torch for the
float ops and with numpy float32 arithmetic for quantize/dequantize, exactly as the
format's formulas say. If an exported file, run here, reproduces ``ExportResult.reference``
then the file (op attrs, quant params, constants, order) says what PyTorch computes.
Symmetric paddings are passed to the same torch calls PyTorch's graph makes, so float
results are bit-identical too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F


def _qparams(t: dict[str, Any], rank: int) -> tuple[np.ndarray, np.ndarray]:
    q = t["quant"]
    scale = np.asarray(q["scale"], dtype=np.float64)
    zp = np.asarray(q["zero_point"], dtype=np.int64)
    if q["axis"] is not None:
        shape = [1] * rank
        shape[q["axis"]] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return scale, zp


def quantize(x: np.ndarray, t: dict[str, Any]) -> np.ndarray:
    """q = clamp(round_half_even(x * float32(1/scale)) + zp, qmin, qmax)."""
    scale, zp = _qparams(t, x.ndim)
    inv = (1.0 / scale).astype(np.float32)
    v = np.rint(x.astype(np.float32) * inv) + zp.astype(np.float32)
    q = t["quant"]
    dtype = np.int8 if t["dtype"] == "int8" else np.int32
    return np.clip(v, q["qmin"], q["qmax"]).astype(dtype)


def dequantize(q: np.ndarray, t: dict[str, Any]) -> np.ndarray:
    """x = (float32(q) - zp) * float32(scale)."""
    scale, zp = _qparams(t, q.ndim)
    return ((q.astype(np.float32) - zp.astype(np.float32)) * scale.astype(np.float32)).astype(np.float32)


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


def _sym(pad: list[int]) -> tuple[int, int] | None:
    t, l, b, r = pad
    return (t, l) if (t, l) == (b, r) else None


def _conv(ins: list[np.ndarray], a: dict[str, Any]) -> torch.Tensor:
    x, w = _t(ins[0]), _t(ins[1])
    b = _t(ins[2]) if len(ins) > 2 else None
    sym = _sym(a["padding"])
    if sym is None:
        t, l, bo, r = a["padding"]
        x, sym = F.pad(x, (l, r, t, bo)), (0, 0)
    return F.conv2d(x, w, b, a["stride"], sym, a["dilation"], a["groups"])


def _pool_pad(a: dict[str, Any]) -> tuple[int, int]:
    sym = _sym(a["padding"])
    assert sym is not None, "interpreter supports symmetric pool padding only"
    return sym


FLOAT_OPS = {
    "conv2d": _conv,
    "linear": lambda ins, a: F.linear(_t(ins[0]), _t(ins[1]), _t(ins[2]) if len(ins) > 2 else None),
    "relu": lambda ins, a: torch.relu(_t(ins[0])),
    "hardtanh": lambda ins, a: F.hardtanh(_t(ins[0]), a["min"], a["max"]),
    "sigmoid": lambda ins, a: torch.sigmoid(_t(ins[0])),
    "tanh": lambda ins, a: torch.tanh(_t(ins[0])),
    "max_pool2d": lambda ins, a: F.max_pool2d(
        _t(ins[0]), a["kernel"], a["stride"], _pool_pad(a), a["dilation"], a["ceil_mode"]),
    "avg_pool2d": lambda ins, a: F.avg_pool2d(
        _t(ins[0]), a["kernel"], a["stride"], _pool_pad(a), a["ceil_mode"],
        a["count_include_pad"], a["divisor_override"] or None),
    "mean": lambda ins, a: torch.mean(_t(ins[0]), a["dims"], a["keepdim"]),
    "reshape": lambda ins, a: _t(ins[0]).reshape(a["shape"]),
    "add": lambda ins, a: _t(ins[0]) + _t(ins[1]),
    "cat": lambda ins, a: torch.cat([_t(i) for i in ins], a["axis"]),
    "softmax": lambda ins, a: torch.softmax(_t(ins[0]), a["axis"]),
}


def run_graph(
    doc: dict[str, Any], consts: dict[int, np.ndarray], inputs: list[np.ndarray]
) -> tuple[list[np.ndarray], dict[int, np.ndarray]]:
    """Outputs of the graph, and every tensor value by index."""
    tensors = doc["tensors"]
    vals: dict[int, np.ndarray] = dict(consts)
    for idx, x in zip(doc["inputs"], inputs):
        vals[idx] = np.asarray(x, dtype=np.float32)
    with torch.no_grad():
        for op in doc["ops"]:
            ins = [vals[i] for i in op["inputs"]]
            out = op["outputs"][0]
            if op["type"] == "quantize":
                y = quantize(ins[0], tensors[out])
            elif op["type"] == "dequantize":
                y = dequantize(ins[0], tensors[op["inputs"][0]])
            else:
                y = FLOAT_OPS[op["type"]](ins, op["attrs"]).numpy()
            assert list(y.shape) == tensors[out]["shape"], (op["name"], y.shape)
            vals[out] = y
    return [vals[i] for i in doc["outputs"]], vals
