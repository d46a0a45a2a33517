"""Max reductions with indices, the per-sample norms, log_softmax and glu, as ops the graph
file has.

Found by writing TinyML models the way their authors do (issue 14, docs/decisions.md 78):
CBAM's channel attention (``F.adaptive_max_pool2d(x, 1)``, ``x.max(1, keepdim=True)[0]``)
and GroupNorm / InstanceNorm. Runs on the captured ATen graph before the op-coverage check
(export.py), like conv_rewrite:

* ``adaptive_max_pool2d`` / ``adaptive_max_pool1d`` return (values, indices). The values of
  a pool to 1x1 (1) are ``amax`` over the pooled dims; to a size dividing the input's, a
  max pool (1-D: ``max_pool1d``, for conv_rewrite) of kernel = stride = in / out; to any
  other size, PyTorch's bins: per output cell a slice and ``amax``, joined by ``cat``. A
  model reading the indices is refused.
* ``max.dim`` returns (values, indices): the values are ``amax`` over that dim, the indices
  ``argmax`` (PyTorch's first index of the maximum, as argmax's). ``min.dim``: the values
  -``amax``(-x) (two ``mul`` by -1), the indices ``argmin``; ``amin`` and ``min(x)`` the
  same -``amax``(-x), ``max(x)`` an ``amax`` over every dim, ``mean(x)`` / ``sum(x)`` a
  ``mean`` / ``sum`` over every dim.
* ``group_norm(x [N, C, ...], G)``: ``x.reshape(N, G, -1)``, ``layer_norm`` over the last dim
  with no affine, reshape back, then the per-channel weight and bias as a depthwise 1x1
  conv2d (fold.py's affine for a BatchNorm no conv feeds). ``instance_norm`` on its input's
  statistics is the group norm with G = C; on running statistics (``track_running_stats``)
  it is a BatchNorm and folds as one.
* ``log_softmax``: (x - max) - log(sum(exp(x - max))), exp and log on the float fallback.
* ``glu(x, dim)`` (gated linear units, audio and conformer blocks): the first half of x
  along dim times the sigmoid of the second, as two slices, ``sigmoid`` and ``mul``.
* ``layer_norm`` over several trailing dims (``nn.LayerNorm([C, H, W])``): those dims
  flattened into one, weight and bias alike, ``layer_norm`` over it, reshaped back.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import GraphModule, Node

from .conv_rewrite import _attr, _call

aten = torch.ops.aten

MAX_OPS = {aten.adaptive_max_pool2d.default, aten.adaptive_max_pool1d.default, aten.max.dim,
           aten.min.dim}
MIN_REDUCTIONS = {aten.amin.default, aten.min.default, aten.max.default, aten.mean.default,
                  aten.sum.default}
NORM_OPS = {aten.group_norm.default, aten.instance_norm.default}
LAYER_NORM = aten.layer_norm.default
REWRITTEN = {
    aten.adaptive_max_pool2d.default: "values: output 1x1 `amax`; in % out == 0 `max_pool2d`; "
                                      "else per output cell a slice and `amax`, joined by `cat` "
                                      "(the indices are refused)",
    aten.adaptive_max_pool1d.default: "values: as adaptive_max_pool2d on [N, C, 1, L]",
    aten.max.dim: "values `amax`, indices `argmax`",
    aten.min.dim: "values -`amax`(-x) (two `mul` by -1), indices `argmin`",
    aten.amin.default: "-`amax`(-x): two `mul` by -1",
    aten.min.default: "-`amax`(-x) over every dim: two `mul` by -1",
    aten.max.default: "`amax` over every dim",
    aten.mean.default: "`mean` over every dim",
    aten.sum.default: "`sum` over every dim",
    aten.log_softmax.int: "`amax`, `sub`, `unary` fn=`exp`, `sum`, `unary` fn=`log`, `sub` "
                          "(x - max - log(sum(exp(x - max))))",
    aten.glu.default: "two `slice`s, `sigmoid` of the second half, `mul`",
    aten.group_norm.default: "`reshape` to [N, G, -1], `layer_norm` (no affine), `reshape`, "
                             "the per-channel affine as a depthwise 1x1 `conv2d`",
    aten.instance_norm.default: "as group_norm with one group per channel; on running "
                                "statistics a BatchNorm",
}
# (layer_norm keeps its row in aten_ops; over several trailing dims it is flattened here.)


def _shape(node: object) -> list[int] | None:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return [int(d) for d in val.shape] if isinstance(val, torch.Tensor) else None


def _refuse(node: Node, why: str) -> None:
    node.meta["tinyforge_unsupported"] = why


def _outputs(node: Node) -> dict[int, list[Node]] | None:
    """The getitem readers of a tuple-valued node by index, or None if anything else reads it."""
    out: dict[int, list[Node]] = {}
    for user in list(node.users):
        if user.target is not operator.getitem:
            return None
        if not user.users:  # (export keeps the unread indices' getitem)
            continue
        out.setdefault(int(user.args[1]), []).append(user)
    return out


def _max_values(gm: GraphModule, node: Node) -> Node | None:
    """The values output of an adaptive max pool (None: not expressible)."""
    x = node.args[0]
    shape = _shape(x)
    one_d = node.target == aten.adaptive_max_pool1d.default
    out = list(node.args[1]) if isinstance(node.args[1], (list, tuple)) else [node.args[1]]
    if shape is None or len(shape) != (3 if one_d else 4):
        _refuse(node, "needs an [N, C, L] / [N, C, H, W] input")
        return None
    size = shape[-1:] if one_d else shape[-2:]
    out = out * len(size) if len(out) == 1 else out
    out = [i if o is None else int(o) for i, o in zip(size, out)]  # None: the input's size
    if any(o < 1 for o in out):
        _refuse(node, f"output size {out}")
        return None
    if all(o == 1 for o in out):
        return _call(gm, node, aten.amax.default, x, list(range(2, len(shape))), True)
    if all(i % o == 0 for i, o in zip(size, out)):
        kernel = [i // o for i, o in zip(size, out)]
        pool = aten.max_pool1d.default if one_d else aten.max_pool2d.default  # (1-D: conv_rewrite)
        return _call(gm, node, pool, x, kernel, kernel)
    # PyTorch's bins (start floor(i * in / out), end ceil((i + 1) * in / out), overlapping
    # where in % out != 0): per output cell a slice and the max over it, the cells joined.
    def bins(n: int, o: int) -> list[tuple[int, int]]:
        return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]

    def cell_max(t: Node, axes: list[tuple[int, int, int]]) -> Node:
        for dim, lo, hi in axes:
            t = _call(gm, node, aten.slice.Tensor, t, dim, lo, hi)
        dims = [dim for dim, lo, hi in axes if hi - lo > 1]
        return _call(gm, node, aten.amax.default, t, dims, True) if dims else t

    def joined(parts: list[Node], dim: int) -> Node:
        return _call(gm, node, aten.cat.default, parts, dim) if len(parts) > 1 else parts[0]

    if one_d:
        return joined([cell_max(x, [(2, lo, hi)]) for lo, hi in bins(size[0], out[0])], 2)
    rows = [joined([cell_max(x, [(2, hs, he), (3, ws, we)]) for ws, we in bins(size[1], out[1])], 3)
            for hs, he in bins(size[0], out[0])]
    return joined(rows, 2)


def _min_values(gm: GraphModule, node: Node, x: Node, dims: list[int], keepdim: bool) -> Node:
    """min over dims as -amax(-x): the quantized -x of a mirrored range is exact but for
    -(-128), which saturates (1 LSB, at the range's end)."""
    from .fold import new_const  # noqa: PLC0415

    def minus_one(like: Node) -> Node:
        # Of the operand's rank, as canonicalize_binary gives constants (this runs after it).
        value = torch.full([1] * len(_shape(like) or []), -1.0)
        c = new_const(gm, node, "_tf_minus_one", value)
        if "val" in like.meta and hasattr(like.meta["val"], "fake_mode"):  # (node's: a tuple)
            c.meta["val"] = like.meta["val"].fake_mode.from_tensor(value, static_shapes=True)
        return c

    # (A rank-0 result keeps its dims through the second mul: the graph file's constants
    # have rank >= 1.)
    rank0 = not keepdim and len(set(dims)) == len(_shape(x) or [])
    m = _call(gm, node, aten.amax.default, _call(gm, node, aten.mul.Tensor, x, minus_one(x)),
              dims, keepdim or rank0)
    y = _call(gm, node, aten.mul.Tensor, m, minus_one(m))
    return _call(gm, node, aten.reshape.default, y, []) if rank0 else y


def _rewrite_min_reduction(gm: GraphModule, node: Node) -> bool:
    """amin(x, dims, keepdim); min(x), max(x), mean(x), sum(x) over every dim."""
    x = node.args[0]
    rank = len(_shape(x) or [])
    if node.target == aten.amin.default:
        dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", [])
        dims = [int(d) for d in (dims if isinstance(dims, (list, tuple)) else [dims])]
        dims = [d + rank if d < 0 else d for d in dims] or list(range(rank))
        keepdim = bool(node.args[2]) if len(node.args) > 2 else bool(
            node.kwargs.get("keepdim", False))
        y = _min_values(gm, node, x, dims, keepdim)
    elif node.target == aten.min.default:
        y = _min_values(gm, node, x, list(range(rank)), False)
    elif node.target == aten.mean.default:
        y = _call(gm, node, aten.mean.dim, x, list(range(rank)), False)
    elif node.target == aten.sum.default:
        y = _call(gm, node, aten.sum.dim_IntList, x, list(range(rank)), False)
    else:
        y = _call(gm, node, aten.amax.default, x, list(range(rank)), False)
    node.replace_all_uses_with(y)
    gm.graph.erase_node(node)
    return True


def _rewrite_max(gm: GraphModule, node: Node) -> bool:
    outputs = _outputs(node)
    if outputs is None:
        _refuse(node, "its output tuple is used as a whole")
        return False
    if node.target in (aten.max.dim, aten.min.dim):
        x, dim = node.args[0], int(node.args[1])
        rank = len(_shape(x) or [])
        dim = dim + rank if dim < 0 else dim
        keepdim = bool(node.args[2]) if len(node.args) > 2 else bool(
            node.kwargs.get("keepdim", False))
        if node.target == aten.max.dim:
            build = {0: lambda: _call(gm, node, aten.amax.default, x, [dim], keepdim),
                     1: lambda: _call(gm, node, aten.argmax.default, x, dim, keepdim)}
        else:
            build = {0: lambda: _min_values(gm, node, x, [dim], keepdim),
                     1: lambda: _call(gm, node, aten.argmin.default, x, dim, keepdim)}
    else:
        if 1 in outputs:
            _refuse(node, "the indices output (return_indices=True)")
            return False
        build = {0: lambda: _max_values(gm, node)}
    for index, users in outputs.items():
        y = build[index]()
        if y is None:
            return False
        for user in users:
            user.replace_all_uses_with(y)
    for user in list(node.users):
        gm.graph.erase_node(user)
    gm.graph.erase_node(node)
    return True


def _affine(gm: GraphModule, like: Node, y: Node, weight: object, bias: object,
            channels: int, rank: int) -> Node:
    """y * weight + bias per channel (dim 1) as a depthwise 1x1 conv2d, as fold._affine_one."""
    from .fold import new_const  # noqa: PLC0415

    w = _attr(gm, weight) if weight is not None else torch.ones(channels)
    b = _attr(gm, bias) if bias is not None else torch.zeros(channels)
    wc = new_const(gm, like, "_tf_norm_affine_weight", w.reshape(channels, 1, 1, 1))
    bc = new_const(gm, like, "_tf_norm_affine_bias", b.reshape(channels))
    for _ in range(4 - rank):
        y = _call(gm, like, aten.unsqueeze.default, y, -1)
    while rank > 4:  # [N, C, D, H, W]: the conv sees [N, C, D*H, W]
        y = _call(gm, like, aten.flatten.using_ints, y, 2, 3)
        rank -= 1
    return _call(gm, like, aten.conv2d.default, y, wc, bc, [1, 1], [0, 0], [1, 1], channels)


def _rewrite_norm(gm: GraphModule, node: Node) -> bool:
    from .lower import _bind  # noqa: PLC0415

    a = _bind(node)
    x = a["input"]
    shape = _shape(x)
    if shape is None or len(shape) < 2:
        _refuse(node, "needs an input of at least [N, C]")
        return False
    n, c = shape[0], shape[1]
    if node.target == aten.instance_norm.default:
        if not a["use_input_stats"]:  # running statistics: a BatchNorm
            y = _call(gm, node, aten.batch_norm.default, x, a["weight"], a["bias"],
                      a["running_mean"], a["running_var"], False, float(a["momentum"]),
                      float(a["eps"]), False)
            node.replace_all_uses_with(y)
            gm.graph.erase_node(node)
            return True
        groups = c
    else:
        groups = int(a["num_groups"])
    for name in ("weight", "bias"):
        if a.get(name) is not None and _attr(gm, a[name]) is None:
            _refuse(node, f"a {name} that is not a parameter")
            return False
    if len(shape) == 2 and groups == c:
        _refuse(node, "normalizing single values (one element per group)")
        return False
    xg = _call(gm, node, aten.reshape.default, x, [n, groups, -1])
    yg = _call(gm, node, aten.layer_norm.default, xg, [xg.meta["val"].shape[-1]], None, None,
               float(a["eps"]))
    y = _call(gm, node, aten.reshape.default, yg, shape)
    if a.get("weight") is not None or a.get("bias") is not None:
        y4 = _affine(gm, node, y, a.get("weight"), a.get("bias"), c, len(shape))
        y = _call(gm, node, aten.reshape.default, y4, shape) if len(shape) != 4 else y4
    node.replace_all_uses_with(y)
    gm.graph.erase_node(node)
    return True


def _rewrite_layer_norm(gm: GraphModule, node: Node) -> bool:
    """layer_norm over k > 1 trailing dims ([C, T] of an audio model): those dims flattened
    into one, weight and bias flattened alike, the result reshaped back."""
    from .fold import new_const  # noqa: PLC0415
    from .lower import _bind  # noqa: PLC0415

    a = _bind(node)
    norm = [int(d) for d in a["normalized_shape"]]
    shape = _shape(a["input"])
    if len(norm) < 2 or shape is None or shape[len(shape) - len(norm):] != norm:
        return False
    params = []
    for name in ("weight", "bias"):
        t = a.get(name)
        value = _attr(gm, t) if t is not None else None
        if t is not None and value is None:
            return False  # (the handler names it)
        params.append(None if value is None else new_const(
            gm, node, f"_tf_layer_norm_{name}", value.reshape(-1).contiguous()))
    depth = 1
    for d in norm:
        depth *= d
    xr = _call(gm, node, aten.reshape.default, a["input"], shape[:len(shape) - len(norm)] + [depth])
    yr = _call(gm, node, LAYER_NORM, xr, [depth], params[0], params[1], float(a["eps"]))
    node.replace_all_uses_with(_call(gm, node, aten.reshape.default, yr, shape))
    gm.graph.erase_node(node)
    return True


def _rewrite_log_softmax(gm: GraphModule, node: Node) -> bool:
    """log_softmax(x) = (x - max) - log(sum(exp(x - max))): exp and log run in float32 (the
    float fallback, decision 47), the rest in int8; each piece keeps its own quantization,
    so the large negative outputs of unlikely classes stay finite (log of a softmax
    quantized to 1/256 would be -inf for them)."""
    x, dim = node.args[0], int(node.args[1])
    rank = len(_shape(x) or [])
    dim = dim + rank if dim < 0 else dim
    m = _call(gm, node, aten.amax.default, x, [dim], True)
    d = _call(gm, node, aten.sub.Tensor, x, m)
    s = _call(gm, node, aten.sum.dim_IntList, _call(gm, node, aten.exp.default, d), [dim], True)
    node.replace_all_uses_with(_call(gm, node, aten.sub.Tensor, d,
                                     _call(gm, node, aten.log.default, s)))
    gm.graph.erase_node(node)
    return True


def _rewrite_glu(gm: GraphModule, node: Node) -> bool:
    """glu(x, dim) = x[..., :h, ...] * sigmoid(x[..., h:, ...]), h half of x's size on dim."""
    x = node.args[0]
    dim = int(node.args[1]) if len(node.args) > 1 else int(node.kwargs.get("dim", -1))
    shape = _shape(x)
    if shape is None:
        return False
    dim = dim + len(shape) if dim < 0 else dim
    if not 0 <= dim < len(shape) or shape[dim] % 2:
        _refuse(node, f"glu over dim {dim} of size {shape[dim] if 0 <= dim < len(shape) else '?'}"
                      " (it halves an even size)")
        return False
    h = shape[dim] // 2
    a = _call(gm, node, aten.slice.Tensor, x, dim, 0, h)
    b = _call(gm, node, aten.slice.Tensor, x, dim, h, 2 * h)
    node.replace_all_uses_with(_call(gm, node, aten.mul.Tensor, a,
                                     _call(gm, node, aten.sigmoid.default, b)))
    gm.graph.erase_node(node)
    return True


def rewrite_max_and_norms(gm: GraphModule) -> None:
    """Rewrite ``gm``'s adaptive max pools, max.dim, group_norm and instance_norm in place
    (see the module docstring); a variant left as it is says why for the coverage check."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target in MAX_OPS:
            changed |= _rewrite_max(gm, node)
        elif node.target in MIN_REDUCTIONS:
            changed |= _rewrite_min_reduction(gm, node)
        elif node.target in NORM_OPS:
            changed |= _rewrite_norm(gm, node)
        elif node.target == aten.log_softmax.int and len(node.args) == 2:
            changed |= _rewrite_log_softmax(gm, node)
        elif node.target == LAYER_NORM:
            changed |= _rewrite_layer_norm(gm, node)
        elif node.target == aten.glu.default:
            changed |= _rewrite_glu(gm, node)
    if changed:
        gm.graph.eliminate_dead_code()
        gm.graph.lint()
        gm.recompile()
