"""ATen op -> graph-file op: one handler per ATen overload (docs/graph-format.md, "Op types").

A handler gets the node, its arguments bound by schema name (defaults filled in) and an
object answering ``shape(node)``; it returns (graph-file op type, input nodes, attrs) or
raises UnsupportedOpError for a variant the format cannot express (e.g. division by an
activation).
The quantize/dequantize ops and the no-ops are handled by the lowering itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import torch
from torch.fx import Node

from .errors import UnsupportedOpError
from .nodeinfo import source_of, target_name

aten = torch.ops.aten


class Shapes(Protocol):
    def shape(self, node: Node) -> list[int]: ...


OpSpec = tuple[str, list[Any], dict[str, Any]]
Handler = Callable[[Shapes, Node, dict[str, Any]], OpSpec]
HANDLERS: dict[Any, Handler] = {}


def _handles(*targets: Any) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for t in targets:
            HANDLERS[t] = fn
        return fn

    return register


def _pair(v: Any) -> list[int]:
    """An int or a 1/2-element list as [h, w]."""
    if isinstance(v, int):
        return [v, v]
    v = [int(e) for e in v]
    return [v[0], v[0]] if len(v) == 1 else v[:2]


def _pad4(v: Any) -> list[int]:
    """PyTorch's symmetric [ph, pw] as the format's [top, left, bottom, right]."""
    ph, pw = _pair(v)
    return [ph, pw, ph, pw]


@_handles(aten.conv2d.default, aten.conv2d.padding)
def _conv2d(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    stride, dilation = _pair(a["stride"]), _pair(a["dilation"])
    padding = a["padding"]
    if isinstance(padding, str):
        if padding == "valid":
            pads = [0, 0, 0, 0]
        else:  # "same": PyTorch puts the odd pixel at the bottom/right
            kh, kw = lw.shape(a["weight"])[2:]
            th, tw = dilation[0] * (kh - 1), dilation[1] * (kw - 1)
            pads = [th // 2, tw // 2, th - th // 2, tw - tw // 2]
    else:
        pads = _pad4(padding)
    inputs = [a["input"], a["weight"]] + ([a["bias"]] if a["bias"] is not None else [])
    attrs = {"stride": stride, "padding": pads, "dilation": dilation, "groups": int(a["groups"])}
    return "conv2d", inputs, attrs


@_handles(aten.linear.default)
def _linear(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "linear", [a["input"], a["weight"]] + ([a["bias"]] if a["bias"] is not None else []), {}


@_handles(aten.matmul.default, aten.bmm.default)
def _matmul(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    x, y = a["self"], (a["other"] if "other" in a else a["mat2"])
    for v in (x, y):
        if not isinstance(v, Node) or len(lw.shape(v)) < 2:
            raise UnsupportedOpError(target_name(node), source_of(node),
                                     "matmul with a vector operand (rank 1): unsqueeze it to a matrix")
    return "matmul", [x, y], {}


@_handles(aten.relu.default, aten.relu_.default)
def _relu(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "relu", [a["self"]], {}


@_handles(aten.hardtanh.default, aten.hardtanh_.default)
def _hardtanh(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "hardtanh", [a["self"]], {"min": float(a["min_val"]), "max": float(a["max_val"])}


@_handles(aten.relu6.default)
def _relu6(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "hardtanh", [a["self"]], {"min": 0.0, "max": 6.0}


@_handles(aten.clamp.default, aten.clamp_.default)
def _clamp(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    lo, hi = a["min"], a["max"]
    if lo is not None and hi is not None:
        return "hardtanh", [a["self"]], {"min": float(lo), "max": float(hi)}
    if lo == 0 and hi is None:
        return "relu", [a["self"]], {}
    if lo is None and hi is None:
        raise UnsupportedOpError(target_name(node), source_of(node), "clamp without bounds")
    # one bound: a hardtanh whose other bound is the largest float32 (finite in the graph
    # file's JSON; the compiler saturates it to the int8 range, decision 78)
    far = float(torch.finfo(torch.float32).max)
    return "hardtanh", [a["self"]], {"min": -far if lo is None else float(lo),
                                     "max": far if hi is None else float(hi)}


def _gelu_attrs(node: Node, a: dict[str, Any]) -> dict[str, Any]:
    if a["approximate"] not in ("none", "tanh"):
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 f"gelu approximate={a['approximate']!r} (use 'none' or 'tanh')")
    return {"approximate_tanh": a["approximate"] == "tanh"}


def _no_attrs(node: Node, a: dict[str, Any]) -> dict[str, Any]:
    return {}


# SELU and CELU are ELU with other constants (PyTorch's own definitions).
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _elu_attrs(node: Node, a: dict[str, Any]) -> dict[str, Any]:
    if node.target in (aten.selu.default, aten.selu_.default):
        return {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1.0}
    if node.target in (aten.celu.default, aten.celu_.default):
        alpha = float(a["alpha"])
        if alpha == 0.0:
            raise UnsupportedOpError(target_name(node), source_of(node), "celu with alpha=0")
        return {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha}
    return {k: float(a[k]) for k in ("alpha", "scale", "input_scale")}


def _leaky_relu_attrs(node: Node, a: dict[str, Any]) -> dict[str, Any]:
    """leaky_relu; rrelu in eval mode is leaky_relu with the mean slope (lower + upper) / 2."""
    if node.target in (aten.rrelu.default, aten.rrelu_.default):
        if a.get("training", False):
            raise UnsupportedOpError(target_name(node), source_of(node),
                                     "rrelu in training mode (random slopes): export in eval()")
        return {"negative_slope": (float(a["lower"]) + float(a["upper"])) / 2.0}
    return {"negative_slope": float(a["negative_slope"])}


# The float functions of one input, each compiled to a 256-entry table (`qlut`): graph op ->
# (ATen overloads, graph attrs from the bound arguments). The one Python list: the handler
# below and quantizer.py read it; compiler/ir/unary_fn.cc is the C++ side (interp.py, the
# independent reference, spells each out again on purpose).
UNARY_FNS: dict[str, tuple[tuple[Any, ...], Callable[[Node, dict[str, Any]], dict[str, Any]]]] = {
    "sigmoid": ((aten.sigmoid.default, aten.sigmoid_.default), _no_attrs),
    "tanh": ((aten.tanh.default, aten.tanh_.default), _no_attrs),
    "hardswish": ((aten.hardswish.default, aten.hardswish_.default), _no_attrs),
    "hardsigmoid": ((aten.hardsigmoid.default, aten.hardsigmoid_.default), _no_attrs),
    "silu": ((aten.silu.default, aten.silu_.default), _no_attrs),
    "gelu": ((aten.gelu.default, aten.gelu_.default), _gelu_attrs),
    "elu": ((aten.elu.default, aten.elu_.default, aten.selu.default, aten.selu_.default,
             aten.celu.default, aten.celu_.default), _elu_attrs),
    "leaky_relu": ((aten.leaky_relu.default, aten.leaky_relu_.default,
                    aten.rrelu.default, aten.rrelu_.default), _leaky_relu_attrs),
    "mish": ((aten.mish.default, aten.mish_.default), _no_attrs),
    "softplus": ((aten.softplus.default,),
                 lambda n, a: {"beta": float(a["beta"]), "threshold": float(a["threshold"])}),
    "log_sigmoid": ((aten.log_sigmoid.default,), _no_attrs),
    "hardshrink": ((aten.hardshrink.default,), lambda n, a: {"lambd": float(a["lambd"])}),
    "softshrink": ((aten.softshrink.default,), lambda n, a: {"lambd": float(a["lambd"])}),
    "threshold": ((aten.threshold.default, aten.threshold_.default),
                  lambda n, a: {"threshold": float(a["threshold"]), "value": float(a["value"])}),
    "square": ((aten.square.default,), _no_attrs),
}
UNARY_FN_TARGETS = {t: name for name, (targets, _) in UNARY_FNS.items() for t in targets}


def _unary_fn(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    name = UNARY_FN_TARGETS[node.target]
    return name, [a["self"]], UNARY_FNS[name][1](node, a)


_handles(*UNARY_FN_TARGETS)(_unary_fn)


@_handles(aten.max_pool2d.default)
def _max_pool(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    kernel = _pair(a["kernel_size"])
    attrs = {
        "kernel": kernel,
        "stride": _pair(a["stride"]) if list(a["stride"] or []) else kernel,
        "padding": _pad4(a["padding"]),
        "dilation": _pair(a["dilation"]),
        "ceil_mode": bool(a["ceil_mode"]),
    }
    return "max_pool2d", [a["self"]], attrs


@_handles(aten.avg_pool2d.default)
def _avg_pool(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    kernel = _pair(a["kernel_size"])
    attrs = {
        "kernel": kernel,
        "stride": _pair(a["stride"]) if list(a["stride"] or []) else kernel,
        "padding": _pad4(a["padding"]),
        "ceil_mode": bool(a["ceil_mode"]),
        "count_include_pad": bool(a["count_include_pad"]),
        "divisor_override": int(a["divisor_override"] or 0),
    }
    return "avg_pool2d", [a["self"]], attrs


@_handles(aten.adaptive_avg_pool2d.default)
def _adaptive_avg_pool(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    if _pair(a["output_size"]) != [1, 1]:
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 "output sizes other than 1x1 need a 4-D (NCHW) input")
    rank = len(lw.shape(a["self"]))
    return "mean", [a["self"]], {"dims": [rank - 2, rank - 1], "keepdim": True}


def _reduce_attrs(lw: Shapes, a: dict[str, Any]) -> dict[str, Any]:
    dims = a["dim"]
    dims = [] if dims is None else ([int(dims)] if isinstance(dims, int) else [int(d) for d in dims])
    if not dims:  # None or [] reduce every dim
        dims = list(range(len(lw.shape(a["self"]))))
    return {"dims": dims, "keepdim": bool(a["keepdim"])}


@_handles(aten.mean.dim)
def _mean(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "mean", [a["self"]], _reduce_attrs(lw, a)


@_handles(aten.sum.dim_IntList)
def _sum(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    if a.get("dtype") is not None:
        raise UnsupportedOpError(target_name(node), source_of(node), "sum with a dtype")
    return "sum", [a["self"]], _reduce_attrs(lw, a)


@_handles(aten.amax.default)
def _amax(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "amax", [a["self"]], _reduce_attrs(lw, a)


@_handles(aten.constant_pad_nd.default, aten.pad.default)
def _pad(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """F.pad(mode="constant"): PyTorch lists (before, after) from the last dim backwards;
    the graph op one pair per dim from the first. Negative padding (a crop) is refused."""
    if a.get("mode", "constant") != "constant":
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 f"pad mode {a['mode']!r} (only 'constant')")
    pad = [int(p) for p in a["pad"]]
    rank = len(lw.shape(a["self"]))
    if len(pad) % 2 or len(pad) // 2 > rank or any(p < 0 for p in pad):
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 f"pad {pad}: needs pairs of values >= 0, at most one per dim")
    padding = [0] * (2 * rank)
    for i in range(len(pad) // 2):
        d = rank - 1 - i
        padding[2 * d], padding[2 * d + 1] = pad[2 * i], pad[2 * i + 1]
    value = a.get("value")
    return "pad", [a["self"]], {"padding": padding, "value": float(value or 0.0)}


@_handles(
    aten.flatten.using_ints, aten.view.default, aten.reshape.default, aten._unsafe_view.default,
    aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.unsqueeze.default,
    aten.unflatten.int,
)
def _reshape(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "reshape", [a["self"]], {"shape": lw.shape(node)}


def _binary(op_type: str, lw: Shapes, node: Node, a: dict[str, Any]) -> list[Any]:
    """The operands of a binary elementwise op with NumPy broadcasting; scalars and constant
    operands were made tensors of the output's rank before (binary_ops.canonicalize_binary),
    division by a constant became mul (division by an activation stays unsupported)."""
    x, y = a["self"], a["other"]
    if not isinstance(x, Node) or not isinstance(y, Node):
        raise UnsupportedOpError(target_name(node), source_of(node), f"{op_type} of two scalars")
    if a.get("alpha", 1) != 1:
        raise UnsupportedOpError(
            target_name(node), source_of(node), f"{op_type} with alpha != 1 on two activations")
    sx, sy = lw.shape(x), lw.shape(y)
    for i in range(1, min(len(sx), len(sy)) + 1):
        if sx[-i] != sy[-i] and sx[-i] != 1 and sy[-i] != 1:
            raise UnsupportedOpError(
                target_name(node), source_of(node), f"shapes {sx} and {sy} do not broadcast")
    return [x, y]


@_handles(aten.permute.default, aten.transpose.int, aten.t.default)
def _transpose(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    rank = len(lw.shape(a["self"]))
    if node.target == aten.permute.default:
        perm = [int(d) % rank for d in a["dims"]]
    else:
        perm = list(range(rank))
        if rank >= 2:  # t(): the two dims of a matrix
            d0, d1 = (int(a["dim0"]) % rank, int(a["dim1"]) % rank) if "dim0" in a else (0, 1)
            perm[d0], perm[d1] = perm[d1], perm[d0]
    return "transpose", [a["self"]], {"perm": perm}


def slice_attrs(shape: list[int], dim: int, start: int, end: int, step: int = 1) -> dict[str, Any]:
    """The graph file's slice of ``shape`` along ``dim`` (PyTorch's clamping of start/end)."""
    n = shape[dim]
    start = max(0, min(n, start + n if start < 0 else start))
    end = max(start, min(n, end + n if end < 0 else end))
    begin, stop = [0] * len(shape), list(shape)
    stride = [1] * len(shape)
    begin[dim], stop[dim], stride[dim] = start, end, step
    return {"begin": begin, "end": stop, "stride": stride}


@_handles(aten.slice.Tensor)
def _slice(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    shape = lw.shape(a["self"])
    dim = int(a["dim"]) % len(shape)
    start = 0 if a["start"] is None else int(a["start"])
    end = shape[dim] if a["end"] is None else min(int(a["end"]), shape[dim])
    attrs = slice_attrs(shape, dim, start, end, int(a["step"]))  # negative ends counted back
    if int(a["step"]) < 1 or attrs["end"][dim] <= attrs["begin"][dim]:
        raise UnsupportedOpError(target_name(node), source_of(node), "an empty slice or a step < 1")
    return "slice", [a["self"]], attrs


@_handles(aten.narrow.default)
def _narrow(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    shape = lw.shape(a["self"])
    dim = int(a["dim"]) % len(shape)
    start = int(a["start"]) % shape[dim]
    return "slice", [a["self"]], slice_attrs(shape, dim, start, start + int(a["length"]))


@_handles(aten.select.int)
def _select(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """A slice of one element along ``dim``; the lowering adds the reshape that drops it."""
    shape = lw.shape(a["self"])
    dim = int(a["dim"]) % len(shape)
    index = int(a["index"]) % shape[dim]
    return "slice", [a["self"]], slice_attrs(shape, dim, index, index + 1)


_NEAREST_EXACT = (aten._upsample_nearest_exact2d.vec, aten._upsample_nearest_exact2d.default)
_BILINEAR = (aten.upsample_bilinear2d.vec, aten.upsample_bilinear2d.default)


@_handles(aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default, *_NEAREST_EXACT, *_BILINEAR)
def _resize(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """F.interpolate / nn.Upsample (nearest, nearest-exact, bilinear): the output size, and
    PyTorch's source scale 1/scale_factor when a scale factor was given."""
    x = a["input"] if "input" in a else a["self"]
    if len(lw.shape(x)) != 4:
        raise UnsupportedOpError(target_name(node), source_of(node), "only 2-D (NCHW) resizing")
    bilinear = node.target in _BILINEAR
    align = bool(a.get("align_corners", False))
    factors = a.get("scale_factors")
    if factors is None:
        factors = [a.get("scales_h"), a.get("scales_w")]
    scale = [0.0 if (f is None or align) else 1.0 / float(f) for f in list(factors) + [None] * 2][:2]
    attrs = {
        "size": [int(d) for d in lw.shape(node)[2:]],
        "bilinear": bilinear,
        "align_corners": align,
        "half_pixel_centers": (bilinear and not align) or node.target in _NEAREST_EXACT,
        "scale_h": scale[0],
        "scale_w": scale[1],
        "layout": "NCHW",
    }
    return "resize", [x], attrs


# Ops with several outputs read through getitem: each output is a slice of the input.
SPLIT_OPS = {aten.split.Tensor, aten.unsafe_split.Tensor, aten.split_with_sizes.default,
             aten.chunk.default, aten.unbind.int}


def split_slice(lw: Shapes, split: Node, index: int) -> OpSpec:
    """The slice that output ``index`` of a split / chunk / unbind node is."""
    x = split.args[0]
    shape = lw.shape(x)
    if split.target == aten.unbind.int:
        dim = int(split.args[1]) % len(shape) if len(split.args) > 1 else 0
        return "slice", [x], slice_attrs(shape, dim, index, index + 1)
    dim = int(split.args[2] if len(split.args) > 2 else split.kwargs.get("dim", 0)) % len(shape)
    n = shape[dim]
    if split.target == aten.split_with_sizes.default:
        sizes = [int(s) for s in split.args[1]]
    else:
        if split.target == aten.chunk.default:
            chunks = int(split.args[1])
            size = -(-n // chunks)
        else:
            size = int(split.args[1])
        sizes = [min(size, n - k) for k in range(0, n, size)]
    start = sum(sizes[:index])
    return "slice", [x], slice_attrs(shape, dim, start, start + sizes[index])


@_handles(aten.add.Tensor, aten.add_.Tensor)
def _add(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "add", _binary("add", lw, node, a), {}


@_handles(aten.sub.Tensor, aten.sub_.Tensor)
def _sub(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "sub", _binary("sub", lw, node, a), {}


@_handles(aten.mul.Tensor, aten.mul_.Tensor)
def _mul(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "mul", _binary("mul", lw, node, a), {}


@_handles(aten.argmax.default, aten.argmin.default)
def _argmax(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """Indices over one dim (int32 in the graph; torch's int64 values fit)."""
    x = a["self"]
    if a.get("dim") is None:
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 "argmax / argmin without dim (over the flattened input)")
    rank = len(lw.shape(x))
    return "argmax", [x], {"axis": int(a["dim"]) % max(rank, 1),
                           "keepdim": bool(a.get("keepdim", False)),
                           "min": node.target == aten.argmin.default}


def _gather_attrs(axis: int) -> dict:
    """PyTorch refuses negative indices (no wrap; the .tflite importer sets it for Keras)."""
    return {"axis": axis, "wrap_negative": False}


def _indices(node: Node, idx: Any) -> Node:
    if not isinstance(idx, Node):
        raise UnsupportedOpError(target_name(node), source_of(node), "indices must be a tensor")
    return idx


@_handles(aten.embedding.default)
def _embedding(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """Rows of the table by token id (int32 in the graph): gather along axis 0."""
    return "gather", [a["weight"], _indices(node, a["indices"])], _gather_attrs(0)


@_handles(aten.index_select.default)
def _index_select(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    axis = int(a["dim"]) % len(lw.shape(a["self"]))
    return "gather", [a["self"], _indices(node, a["index"])], _gather_attrs(axis)


@_handles(aten.index.Tensor)
def _index(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """x[..., idx] with one integer index tensor (the dims before it taken whole)."""
    given = [k for k, t in enumerate(a["indices"]) if t is not None]
    if len(given) != 1:
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 "indexing with one integer index tensor only")
    return "gather", [a["self"], _indices(node, a["indices"][given[0]])], _gather_attrs(given[0])


@_handles(aten.prelu.default)
def _prelu(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """A slope per channel (dim 1; one slope became leaky_relu in binary_ops)."""
    x, w = a["self"], a["weight"]
    sx = lw.shape(x)
    if not isinstance(w, Node) or len(sx) < 2 or list(lw.shape(w)) != [sx[1]]:
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 "prelu: expected one slope per channel of dim 1")
    return "prelu", [x, w], {}


@_handles(aten.maximum.default)
def _maximum(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "maximum", _binary("maximum", lw, node, a), {}


@_handles(aten.minimum.default)
def _minimum(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    return "minimum", _binary("minimum", lw, node, a), {}


@_handles(aten.cat.default)
def _cat(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    rank = len(lw.shape(node))
    return "cat", list(a["tensors"]), {"axis": int(a["dim"]) % rank}


@_handles(aten.layer_norm.default, aten.rms_norm.default)
def _layer_norm(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    """Over the last dim only; rms_norm's eps None is torch.finfo(float32).eps, as PyTorch."""
    rms = node.target == aten.rms_norm.default
    shape = [int(d) for d in a["normalized_shape"]]
    if len(shape) != 1:
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 f"normalized_shape {shape}: only the last dim (one element)")
    weight, bias = a.get("weight"), a.get("bias")
    if weight is None and bias is not None:
        raise UnsupportedOpError(target_name(node), source_of(node), "a bias without a weight")
    eps = a.get("eps")
    eps = float(torch.finfo(torch.float32).eps) if eps is None else float(eps)
    inputs = [a["input"]] + [t for t in (weight, bias) if t is not None]
    return "layer_norm", inputs, {"eps": eps, "rms": rms}


@_handles(aten.softmax.int, aten._softmax.default)
def _softmax(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    rank = len(lw.shape(node))
    return "softmax", [a["self"]], {"axis": int(a["dim"]) % rank}


# ---- The float fallback (docs/decisions.md 47) --------------------------------------------
# The float32 functions of kernels/f32/f32_fns.def (the one list; tests/python/test_graph_file.py
# checks these names against it), with the ATen overloads lowered to them: graph op `unary`
# (one input) or `binary` (two, NumPy broadcasting) with attrs {"fn": name}. They have no int8
# lowering: the quantizer leaves them unannotated, PT2E leaves them in float between
# dequantize and quantize, and the compiled program runs them on the float kernels. The
# functions without overloads here (add, sigmoid, ...) have int8 lowerings; they run in float
# only when the user asks (export's keep_float, KEEP_FLOAT_AS).
FLOAT_FNS: dict[str, tuple[int, tuple[Any, ...]]] = {
    "neg": (1, (aten.neg.default,)),
    "abs": (1, (aten.abs.default,)),
    "sqrt": (1, (aten.sqrt.default,)),
    "rsqrt": (1, (aten.rsqrt.default,)),
    "reciprocal": (1, (aten.reciprocal.default,)),
    "exp": (1, (aten.exp.default,)),
    "log": (1, (aten.log.default,)),
    "sin": (1, (aten.sin.default,)),
    "cos": (1, (aten.cos.default,)),
    "atan": (1, (aten.atan.default,)),
    "erf": (1, (aten.erf.default,)),
    "tanh": (1, ()),
    "sigmoid": (1, ()),
    "add": (2, ()),
    "sub": (2, ()),
    "mul": (2, ()),
    "div": (2, (aten.div.Tensor,)),  # by an activation (by a constant it is mul)
    "pow": (2, (aten.pow.Tensor_Tensor,)),  # scalar exponents became constants (binary_ops)
    "atan2": (2, (aten.atan2.default,)),
    "maximum": (2, ()),
    "minimum": (2, ()),
    # Float models' activations (fold-float writes them; the front end exports the ops).
    "hardswish": (1, ()),
    "hardsigmoid": (1, ()),
    "silu": (1, ()),
    "gelu": (1, ()),
    "gelu_tanh": (1, ()),
    "prelu": (2, ()),
    "elu": (2, ()),
    "mish": (1, ()),
    "log_sigmoid": (1, ()),
    "softplus": (2, ()),
    "log1p": (1, (aten.log1p.default,)),
    "expm1": (1, (aten.expm1.default,)),
}
FLOAT_FN_TARGETS = {t: name for name, (_, targets) in FLOAT_FNS.items() for t in targets}
# Graph ops with an int8 lowering that export(..., keep_float=...) can keep in float32, as the
# float op they become.
KEEP_FLOAT_AS = {
    "add": ("binary", "add"), "sub": ("binary", "sub"), "mul": ("binary", "mul"),
    "maximum": ("binary", "maximum"), "minimum": ("binary", "minimum"),
    "sigmoid": ("unary", "sigmoid"), "tanh": ("unary", "tanh"),
}
FLOAT_FALLBACK_OPS = ("unary", "binary", "cumsum")
# node.meta key: export(..., keep_float=...) chose this op to stay float32 (the quantizer
# leaves it unannotated, the lowering writes it as its float op).
KEEP_FLOAT_KEY = "tinyforge_keep_float"


def _float_fn(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    name = FLOAT_FN_TARGETS[node.target]
    arity = FLOAT_FNS[name][0]
    if node.target == aten.div.Tensor and a.get("rounding_mode") is not None:
        raise UnsupportedOpError(target_name(node), source_of(node),
                                 f"div with rounding_mode={a['rounding_mode']!r}")
    if arity == 1:
        return "unary", [node.args[0]], {"fn": name}
    pair = {"self": node.args[0], "other": node.args[1]}
    return "binary", _binary(name, lw, node, pair), {"fn": name}


_handles(*FLOAT_FN_TARGETS)(_float_fn)


@_handles(aten.cumsum.default)
def _cumsum(lw: Shapes, node: Node, a: dict[str, Any]) -> OpSpec:
    if a.get("dtype") is not None:
        raise UnsupportedOpError(target_name(node), source_of(node), "cumsum with a dtype")
    rank = max(1, len(lw.shape(a["self"])))
    return "cumsum", [a["self"]], {"axis": int(a["dim"]) % rank}
