"""A reference interpreter for graph files, written from docs/graph-format.md alone.

It runs a document + constants with torch for the float ops and with numpy float32
arithmetic for quantize/dequantize, exactly as the format's formulas say. Exported files
run here reproduce ``ExportResult.reference`` (PyTorch's converted module) bit for bit
(tests/python/test_export_zoo.py): symmetric paddings go to the same torch calls PyTorch's
graph makes, so float results are identical too. It is the "pytorch" side of
``tinyforge compare --against pytorch``, which runs::

    python -m tinyforge.interp m.tfg --input x.npy [--input ...] --dump-dir DIR

writing every computed tensor as DIR/NNN_<name>.npy and DIR/manifest.json
({tensor name: file name}). Graphs of kind float and qdq only (not lowered ones).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
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
    elif scale.size == 1:  # per tensor: a scalar, so a rank-0 tensor keeps its rank
        scale, zp = scale.reshape(()), zp.reshape(())
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


def _gather(x: torch.Tensor, axis: int, idx: torch.Tensor) -> torch.Tensor:
    y = torch.index_select(x, axis, idx.reshape(-1).long())
    return y.reshape(list(x.shape[:axis]) + list(idx.shape) + list(x.shape[axis + 1:]))


def _resize(x: torch.Tensor, a: dict) -> torch.Tensor:
    """PyTorch's upsample op the graph file's resize came from (NCHW)."""
    sh, sw = (1.0 / s if s else None for s in (a["scale_h"], a["scale_w"]))
    if a["layout"] != "NCHW":
        raise ValueError("resize: the float interpreter runs NCHW graphs only")
    if a["bilinear"]:
        if not (a["align_corners"] or a["half_pixel_centers"]):
            raise ValueError("resize: bilinear without align_corners or half_pixel_centers "
                             "has no PyTorch equivalent")
        return torch.ops.aten.upsample_bilinear2d(x, a["size"], a["align_corners"], sh, sw)
    if a["align_corners"]:
        raise ValueError("resize: nearest with align_corners has no PyTorch equivalent")
    if a["half_pixel_centers"]:
        return torch.ops.aten._upsample_nearest_exact2d(x, a["size"], sh, sw)
    return torch.ops.aten.upsample_nearest2d(x, a["size"], sh, sw)


_FLOAT_UNARY = {
    "neg": torch.neg, "abs": torch.abs, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "exp": torch.exp, "log": torch.log, "sin": torch.sin,
    "cos": torch.cos, "atan": torch.atan, "erf": torch.erf, "tanh": torch.tanh,
    "sigmoid": torch.sigmoid, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "silu": F.silu, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "mish": F.mish, "log_sigmoid": F.logsigmoid, "log1p": torch.log1p, "expm1": torch.expm1,
}
_FLOAT_BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "atan2": torch.atan2, "maximum": torch.maximum, "minimum": torch.minimum,
    "prelu": lambda a, b: torch.where(a >= 0, a, a * b),
    "elu": lambda a, b: torch.where(a > 0, a, torch.expm1(a) * b),
    "softplus": lambda a, b: F.softplus(a, float(b.reshape(-1)[0])),
}

FLOAT_OPS = {
    "conv2d": _conv,
    "linear": lambda ins, a: F.linear(_t(ins[0]), _t(ins[1]), _t(ins[2]) if len(ins) > 2 else None),
    "relu": lambda ins, a: torch.relu(_t(ins[0])),
    "hardtanh": lambda ins, a: F.hardtanh(_t(ins[0]), a["min"], a["max"]),
    "sigmoid": lambda ins, a: torch.sigmoid(_t(ins[0])),
    "tanh": lambda ins, a: torch.tanh(_t(ins[0])),
    "hardswish": lambda ins, a: F.hardswish(_t(ins[0])),
    "hardsigmoid": lambda ins, a: F.hardsigmoid(_t(ins[0])),
    "silu": lambda ins, a: F.silu(_t(ins[0])),
    "gelu": lambda ins, a: F.gelu(_t(ins[0]), approximate="tanh" if a["approximate_tanh"] else "none"),
    "elu": lambda ins, a: torch.ops.aten.elu(_t(ins[0]), a["alpha"], a["scale"], a["input_scale"]),
    "leaky_relu": lambda ins, a: F.leaky_relu(_t(ins[0]), a["negative_slope"]),
    "mish": lambda ins, a: F.mish(_t(ins[0])),
    "softplus": lambda ins, a: F.softplus(_t(ins[0]), a["beta"], a["threshold"]),
    "log_sigmoid": lambda ins, a: F.logsigmoid(_t(ins[0])),
    "hardshrink": lambda ins, a: F.hardshrink(_t(ins[0]), a["lambd"]),
    "softshrink": lambda ins, a: F.softshrink(_t(ins[0]), a["lambd"]),
    "threshold": lambda ins, a: F.threshold(_t(ins[0]), a["threshold"], a["value"]),
    "square": lambda ins, a: torch.square(_t(ins[0])),
    "max_pool2d": lambda ins, a: F.max_pool2d(
        _t(ins[0]), a["kernel"], a["stride"], _pool_pad(a), a["dilation"], a["ceil_mode"]),
    "avg_pool2d": lambda ins, a: F.avg_pool2d(
        _t(ins[0]), a["kernel"], a["stride"], _pool_pad(a), a["ceil_mode"],
        a["count_include_pad"], a["divisor_override"] or None),
    "mean": lambda ins, a: torch.mean(_t(ins[0]), a["dims"], a["keepdim"]),
    "reshape": lambda ins, a: _t(ins[0]).reshape(a["shape"]),
    "add": lambda ins, a: _t(ins[0]) + _t(ins[1]),
    "sub": lambda ins, a: _t(ins[0]) - _t(ins[1]),
    "mul": lambda ins, a: _t(ins[0]) * _t(ins[1]),
    "maximum": lambda ins, a: torch.maximum(_t(ins[0]), _t(ins[1])),
    "minimum": lambda ins, a: torch.minimum(_t(ins[0]), _t(ins[1])),
    "argmax": lambda ins, a: (torch.argmin if a["min"] else torch.argmax)(
        _t(ins[0]), dim=a["axis"], keepdim=a["keepdim"]).to(torch.int32),
    "gather": lambda ins, a: _gather(_t(ins[0]), a["axis"], _t(ins[1])),
    "prelu": lambda ins, a: F.prelu(_t(ins[0]), _t(ins[1])),
    "cat": lambda ins, a: torch.cat([_t(i) for i in ins], a["axis"]),
    "transpose": lambda ins, a: _t(ins[0]).permute(a["perm"]),
    "slice": lambda ins, a: _t(ins[0])[tuple(slice(b, e, s) for b, e, s in zip(a["begin"], a["end"], a["stride"]))],
    "softmax": lambda ins, a: torch.softmax(_t(ins[0]), a["axis"]),
    "layer_norm": lambda ins, a: (
        F.rms_norm(_t(ins[0]), [_t(ins[0]).shape[-1]], _t(ins[1]) if len(ins) > 1 else None,
                   a["eps"]) if a["rms"] else
        F.layer_norm(_t(ins[0]), [_t(ins[0]).shape[-1]], _t(ins[1]) if len(ins) > 1 else None,
                     _t(ins[2]) if len(ins) > 2 else None, a["eps"])),
    "sum": lambda ins, a: torch.sum(_t(ins[0]), a["dims"], a["keepdim"]),
    "amax": lambda ins, a: torch.amax(_t(ins[0]), a["dims"], a["keepdim"]),
    "pad": lambda ins, a: F.pad(
        _t(ins[0]), [p for d in reversed(range(len(a["padding"]) // 2))
                     for p in a["padding"][2 * d:2 * d + 2]], value=a["value"]),
    "resize": lambda ins, a: _resize(_t(ins[0]), a),
    "matmul": lambda ins, a: torch.matmul(_t(ins[0]), _t(ins[1])),
    # The float fallback (kernels/f32/f32_fns.def), as PyTorch computes each function.
    "unary": lambda ins, a: _FLOAT_UNARY[a["fn"]](_t(ins[0])),
    "binary": lambda ins, a: _FLOAT_BINARY[a["fn"]](_t(ins[0]), _t(ins[1])),
    "cumsum": lambda ins, a: torch.cumsum(_t(ins[0]), a["axis"]),
}


def run_graph(
    doc: dict[str, Any], consts: dict[int, np.ndarray], inputs: list[np.ndarray]
) -> tuple[list[np.ndarray], dict[int, np.ndarray]]:
    """Outputs of the graph, and every tensor value by index."""
    tensors = doc["tensors"]
    vals: dict[int, np.ndarray] = dict(consts)
    for idx, x in zip(doc["inputs"], inputs):
        vals[idx] = np.asarray(x, dtype=np.int32 if tensors[idx]["dtype"] == "int32" else np.float32)
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


def _file_name(index: int, name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:120]
    if not safe or safe.startswith("."):
        safe = "_" + safe
    return f"{index:03d}_{safe}.npy"


def main(argv: list[str] | None = None) -> int:
    from .errors import TinyforgeError  # noqa: PLC0415  (keep `import tinyforge.interp` light)
    from .graph_file import load_graph  # noqa: PLC0415

    p = argparse.ArgumentParser(prog="python -m tinyforge.interp", description=__doc__.split("\n")[0])
    p.add_argument("graph", help="graph file (.tfg) of kind float or qdq")
    p.add_argument("--input", action="append", default=[], help=".npy, once per graph input")
    p.add_argument("--dump-dir", help="write every computed tensor and manifest.json here")
    p.add_argument("--output", action="append", default=[], help=".npy per graph output")
    a = p.parse_args(argv)
    try:
        doc, consts = load_graph(a.graph)
        if doc["kind"] not in ("float", "qdq"):
            raise TinyforgeError(f"{a.graph}: kind {doc['kind']!r}: the interpreter runs float "
                                 "and qdq graphs only")
        if len(a.input) != len(doc["inputs"]):
            raise TinyforgeError(f"{a.graph}: the graph has {len(doc['inputs'])} input(s), got "
                                 f"{len(a.input)}")
    except TinyforgeError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    outputs, vals = run_graph(doc, consts, [np.load(f) for f in a.input])
    for path, y in zip(a.output, outputs):
        np.save(path, y)
    if a.dump_dir:
        out = Path(a.dump_dir)
        out.mkdir(parents=True, exist_ok=True)
        manifest = {}
        for idx, v in sorted(vals.items()):
            if idx in consts:
                continue
            name = doc["tensors"][idx]["name"]
            manifest[name] = _file_name(idx, name)
            np.save(out / manifest[name], np.ascontiguousarray(v))
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
