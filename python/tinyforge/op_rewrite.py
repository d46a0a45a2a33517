"""ATen ops with no graph op of their own, written with ops the graph file has.

Found by exporting, as a user would, a conv followed by each op of torch.nn and the usual
tensor functions (issue 14, docs/decisions.md 91). Runs on the captured ATen graph before
the op-coverage check (export.py), like conv_rewrite and norm_rewrite; the quantizer then
sees only ops it annotates (an index_select, cat, slice or reshape shares its input's
parameters, so moved values stay bit-exact):

* ``F.pad`` in ``reflect``, ``replicate`` and ``circular`` mode (super-resolution, style
  transfer, audio front ends): per padded dim one ``index_select`` of the source index of
  every output position (``gather``);
* ``torch.flip`` and ``torch.roll`` over given dims: an ``index_select`` per dim;
* ``torch.stack``: ``unsqueeze`` (a reshape) of each input, then ``cat``;
* ``nn.ChannelShuffle``: reshape [N, g, C/g, ...], transpose, reshape (as ShuffleNet writes
  it);
* ``torch.linalg.vector_norm`` / ``Tensor.norm`` / ``F.normalize``'s norm of order 2
  (sqrt(sum(x * x))), 1 (sum(abs(x))) and inf (amax(abs(x))); sqrt and abs run on the float
  fallback (decision 47), the square is a table;
* ``var`` / ``std`` over dims with any correction: mean((x - mean(x))^2) * n / (n - c),
  then sqrt for std;
* ``torch.max(a, b)`` / ``torch.min(a, b)`` (``maximum`` / ``minimum``), ``clamp_min`` /
  ``clamp_max`` (a one-sided ``clamp``), ``expand_as`` (``expand``);
* ``masked_fill(scores, mask, -inf)`` before a softmax over the last dim, with a constant mask
  (nanoGPT's causal attention: ``att.masked_fill(self.bias[..., :T, :T] == 0, -inf)``):
  the additive constant of scaled_dot_product_attention's masks (attention.py, MASK_VALUE
  where masked), an ``add``;
* ``torch.where(x > c, x, k * x)`` with c = 0 (a hand-written leaky ReLU) and
  ``torch.where(x > c, x, c)`` / ``torch.where(x < c, x, c)`` (a clamp), with any of
  ``> >= < <=`` and the branches either way round: ``leaky_relu`` / ``clamp`` (the same
  function; at x = c both branches agree). Other wheres are refused with the forms taken;
* ``sign(a) * relu(abs(a))``, the last step of ``F.lp_pool1d`` / ``lp_pool2d`` (nn.LPPool),
  is ``a``;
* an average pool with padding that counts the padding (PyTorch's default
  ``count_include_pad=True``, e.g. Inception's 3x3 stride-1 pools): a zero ``pad``, then the
  pool without padding (where the output shape is the same: ceil_mode can drop a last
  window the padded input keeps).
"""

from __future__ import annotations

import math

import torch
from torch.fx import GraphModule, Node

from .attention import MASK_VALUE, _mask_value
from .conv_rewrite import _call
from .fold import new_const
from .norm_rewrite import _refuse as _mark_unsupported
from .norm_rewrite import _shape

aten = torch.ops.aten

_PADS = {aten.pad.default, aten.reflection_pad1d.default, aten.reflection_pad2d.default,
         aten.reflection_pad3d.default, aten.replication_pad1d.default,
         aten.replication_pad2d.default, aten.replication_pad3d.default,
         aten._pad_circular.default}
_MODE_OF = {aten.reflection_pad1d.default: "reflect", aten.reflection_pad2d.default: "reflect",
            aten.reflection_pad3d.default: "reflect",
            aten.replication_pad1d.default: "replicate",
            aten.replication_pad2d.default: "replicate",
            aten.replication_pad3d.default: "replicate", aten._pad_circular.default: "circular"}
_NORMS = {aten.linalg_vector_norm.default, aten.norm.ScalarOpt_dim, aten.norm.Scalar}
_VARS = {aten.var.dim: False, aten.var.correction: False, aten.std.dim: True,
         aten.std.correction: True}
_ALIASES = {aten.max.other: aten.maximum.default, aten.min.other: aten.minimum.default}
_AVG_POOLS = {aten.avg_pool2d.default: 2, aten.avg_pool1d.default: 1}
REWRITTEN = {
    **{op: "`gather` (index_select) per padded dim (reflect, replicate, circular; "
           "constant mode is `pad`)" for op in _PADS if op != aten.pad.default},
    aten.flip.default: "`gather` (index_select) per flipped dim",
    aten.roll.default: "`gather` (index_select) per rolled dim",
    aten.stack.default: "`reshape` of each input, `cat`",
    aten.channel_shuffle.default: "`reshape`, `transpose`, `reshape`",
    aten.native_channel_shuffle.default: "`reshape`, `transpose`, `reshape`",
    **{op: "order 2: `square`, `sum`, `unary` fn=`sqrt`; 1: `unary` fn=`abs`, `sum`; inf: "
           "`unary` fn=`abs`, `amax`" for op in _NORMS},
    **{op: "`mean`, `sub`, `square`, `mean`, `mul` by n / (n - correction)"
           + (", `unary` fn=`sqrt`" if std else "") for op, std in _VARS.items()},
    aten.max.other: "`maximum`",
    aten.min.other: "`minimum`",
    aten.clamp_min.default: "`relu` or `hardtanh` (clamp with one bound)",
    aten.clamp_max.default: "`hardtanh` (clamp with one bound)",
    aten.expand_as.default: "`cat` of copies (as expand)",
    aten.masked_fill.Scalar: "`add` of a constant (a constant mask filling -inf before a "
                             "softmax: attention's additive mask)",
    **{op: "of a comparison of x with a number: x or k * x around 0 `leaky_relu`; x or the "
           "threshold `clamp` (other forms refused)" for op in (aten.where.self,
                                                                aten.where.ScalarOther,
                                                                aten.where.ScalarSelf,
                                                                aten.where.Scalar)},
}
# (avg_pool1d / avg_pool2d keep their rows: with count_include_pad and padding they become a
# zero `pad` and the pool without padding.)


def _refuse(node: Node, why: str) -> bool:
    _mark_unsupported(node, why)
    return False


def _replace(gm: GraphModule, node: Node, y: Node) -> bool:
    """``node``'s readers read ``y`` instead; node goes. True (rewritten)."""
    node.replace_all_uses_with(y)
    gm.graph.erase_node(node)
    return True


def _gather(gm: GraphModule, node: Node, x: Node, dim: int, index: list[int]) -> Node:
    idx = new_const(gm, node, "_tf_index", torch.tensor(index, dtype=torch.int64))
    return _call(gm, node, aten.index_select.default, x, dim, idx)


def _pad_index(mode: str, n: int, before: int, after: int) -> list[int] | None:
    """The source index of every output position along a dim of size n, or None when the
    mode cannot pad that much (reflect: less than n, circular: at most n)."""
    if mode == "reflect" and (before >= n or after >= n):
        return None
    if mode == "circular" and (before > n or after > n):
        return None
    out = []
    for i in range(-before, n + after):
        if 0 <= i < n:
            out.append(i)
        elif mode == "replicate":
            out.append(0 if i < 0 else n - 1)
        elif mode == "reflect":
            out.append(-i if i < 0 else 2 * (n - 1) - i)
        else:  # circular
            out.append(i % n)
    return out


def _rewrite_pad(gm: GraphModule, node: Node) -> bool:
    x = node.args[0]
    pad = [int(p) for p in node.args[1]]
    if node.target == aten.pad.default:
        mode = node.args[2] if len(node.args) > 2 else node.kwargs.get("mode", "constant")
        if mode == "constant":
            return False  # the pad op's
    else:
        mode = _MODE_OF[node.target]
    shape = _shape(x)
    if shape is None or len(pad) % 2 or len(pad) // 2 > len(shape) or any(p < 0 for p in pad):
        return _refuse(node, f"{mode} pad {pad} of a {shape} tensor: pairs of values >= 0")
    y = x
    for k in range(len(pad) // 2):  # (before, after) pairs from the last dim backwards
        d = len(shape) - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        if before == 0 and after == 0:
            continue
        index = _pad_index(mode, shape[d], before, after)
        if index is None:
            return _refuse(node, f"{mode} pad of {before}, {after} on a dim of size "
                                 f"{shape[d]} (PyTorch needs less)")
        y = _gather(gm, node, y, d, index)
    return _replace(gm, node, y)


def _dims(node: Node, arg: object, rank: int) -> list[int]:
    dims = [arg] if isinstance(arg, int) else list(arg or [])
    return [int(d) % rank for d in dims]


def _dims_or_all(arg: object, rank: int) -> list[int]:
    """A reduction's dims: every dim when none is given (None or [])."""
    return list(range(rank)) if arg is None or arg == [] else _dims(None, arg, rank)


def _rewrite_flip_roll(gm: GraphModule, node: Node) -> bool:
    x = node.args[0]
    shape = _shape(x)
    if shape is None:
        return False
    y = x
    if node.target == aten.flip.default:
        for d in _dims(node, node.args[1], len(shape)):
            y = _gather(gm, node, y, d, list(range(shape[d] - 1, -1, -1)))
    else:
        shifts = node.args[1]
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = _dims(node, node.args[2] if len(node.args) > 2 else [], len(shape))
        if len(dims) != len(shifts):
            return _refuse(node, "roll without dims (of the flattened tensor)")
        for s, d in zip(shifts, dims):
            n = shape[d]
            y = _gather(gm, node, y, d, [(i - int(s)) % n for i in range(n)])
    return _replace(gm, node, y)


def _rewrite_stack(gm: GraphModule, node: Node) -> bool:
    tensors = list(node.args[0])
    shape = _shape(tensors[0])
    if shape is None:
        return False
    dim = int(node.args[1]) if len(node.args) > 1 else int(node.kwargs.get("dim", 0))
    dim = dim % (len(shape) + 1)
    parts = [_call(gm, node, aten.unsqueeze.default, t, dim) for t in tensors]
    return _replace(gm, node, _call(gm, node, aten.cat.default, parts, dim))


def _rewrite_channel_shuffle(gm: GraphModule, node: Node) -> bool:
    x, g = node.args[0], int(node.args[1])
    shape = _shape(x)
    if shape is None or len(shape) < 2 or g <= 0 or shape[1] % g:
        return _refuse(node, f"channel_shuffle of {shape} in {g} groups")
    n, c, rest = shape[0], shape[1], shape[2:]
    y = _call(gm, node, aten.reshape.default, x, [n, g, c // g, *rest])
    y = _call(gm, node, aten.transpose.int, y, 1, 2)
    y = _call(gm, node, aten.reshape.default, y, shape)
    return _replace(gm, node, y)


def _rewrite_norm(gm: GraphModule, node: Node) -> bool:
    x = node.args[0]
    shape = _shape(x)
    if shape is None:
        return False
    a = list(node.args) + [None] * 4
    if node.target == aten.norm.Scalar:
        order, dims, keepdim = a[1] if a[1] is not None else 2, None, False
    else:
        order = a[1] if a[1] is not None else node.kwargs.get("ord", node.kwargs.get("p", 2))
        dims = a[2] if a[2] is not None else node.kwargs.get("dim")
        keepdim = bool(a[3] if a[3] is not None else node.kwargs.get("keepdim", False))
    if node.kwargs.get("dtype") is not None:
        return _refuse(node, "a norm with a dtype")
    dims = _dims_or_all(dims, len(shape))
    order = float(order)
    if order == 2.0:
        s = _call(gm, node, aten.sum.dim_IntList, _call(gm, node, aten.square.default, x), dims,
                  keepdim)
        y = _call(gm, node, aten.sqrt.default, s)
    elif order == 1.0:
        y = _call(gm, node, aten.sum.dim_IntList, _call(gm, node, aten.abs.default, x), dims,
                  keepdim)
    elif math.isinf(order) and order > 0:
        y = _call(gm, node, aten.amax.default, _call(gm, node, aten.abs.default, x), dims,
                  keepdim)
    else:
        return _refuse(node, f"a vector norm of order {order} (orders 1, 2 and inf)")
    return _replace(gm, node, y)


def _rewrite_var(gm: GraphModule, node: Node) -> bool:
    x = node.args[0]
    shape = _shape(x)
    if shape is None:
        return False
    a = list(node.args) + [None] * 3
    dims = a[1] if a[1] is not None else node.kwargs.get("dim")
    dims = _dims_or_all(dims, len(shape))
    if node.target in (aten.var.dim, aten.std.dim):
        unbiased = a[2] if a[2] is not None else node.kwargs.get("unbiased", True)
        corr = 1.0 if unbiased else 0.0
    else:
        c = node.kwargs.get("correction", 1)
        corr = 1.0 if c is None else float(c)
    keepdim = bool(node.kwargs.get("keepdim", a[3] if node.target in (aten.var.dim, aten.std.dim)
                                   and a[3] is not None else False))
    n = math.prod(shape[d] for d in dims)
    if n - corr <= 0:
        return _refuse(node, f"var / std over {n} values with correction {corr}")
    m = _call(gm, node, aten.mean.dim, x, dims, True)
    sq = _call(gm, node, aten.square.default, _call(gm, node, aten.sub.Tensor, x, m))
    v = _call(gm, node, aten.mean.dim, sq, dims, keepdim)
    if corr != 0.0:
        v = _call(gm, node, aten.mul.Tensor, v, n / (n - corr))
    if _VARS[node.target]:
        v = _call(gm, node, aten.sqrt.default, v)
    return _replace(gm, node, v)


def _rewrite_alias(gm: GraphModule, node: Node) -> bool:
    if node.target in _ALIASES:
        y = _call(gm, node, _ALIASES[node.target], *node.args)
    elif node.target == aten.clamp_min.default:
        y = _call(gm, node, aten.clamp.default, node.args[0], node.args[1], None)
    elif node.target == aten.clamp_max.default:
        y = _call(gm, node, aten.clamp.default, node.args[0], None, node.args[1])
    else:  # expand_as
        shape = _shape(node.args[1])
        if shape is None:
            return False
        y = _call(gm, node, aten.expand.default, node.args[0], shape)
    return _replace(gm, node, y)


def _rewrite_avg_pool(gm: GraphModule, node: Node) -> bool:
    n = _AVG_POOLS[node.target]
    a = list(node.args) + [None] * 7
    x = a[0]
    def arg(i: int, key: str, default):
        return a[i] if a[i] is not None else node.kwargs.get(key, default)
    kernel = arg(1, "kernel_size", None)
    stride = arg(2, "stride", []) or kernel
    padding = arg(3, "padding", 0)
    ceil_mode = bool(arg(4, "ceil_mode", False))
    include = bool(arg(5, "count_include_pad", True))
    divisor = arg(6, "divisor_override", None) if n == 2 else None
    pads = [int(padding)] * n if isinstance(padding, int) else [int(p) for p in padding]
    pads = pads * n if len(pads) == 1 else pads
    if not include or divisor is not None or not any(pads):
        return False  # the pool's own (count_include_pad=False pools only what is inside)
    out = _shape(node)
    flat = [q for p in reversed(pads) for q in (p, p)]  # F.pad order: last dim first
    y = _call(gm, node, aten.constant_pad_nd.default, x, flat, 0.0)
    args = [y, kernel, stride, [0] * n, ceil_mode, True] + ([None] if n == 2 else [])
    pooled = _call(gm, node, node.target, *args)
    if _shape(pooled) != out:
        gm.graph.erase_node(pooled)
        gm.graph.erase_node(y)
        return False
    return _replace(gm, node, pooled)


_SOFTMAX = {aten.softmax.int, aten._softmax.default}


def _rewrite_masked_fill(gm: GraphModule, node: Node) -> bool:
    x, mask, value = node.args[0], node.args[1], float(node.args[2])
    shape, m = _shape(x), _mask_value(gm, mask)
    if m is None or m.dtype != torch.bool or shape is None:
        return _refuse(node, "masked_fill with a mask that is not a constant (a buffer)")
    last = len(shape) - 1
    to_softmax = node.users and all(
        u.target in _SOFTMAX and int(u.args[1]) % len(shape) == last for u in node.users)
    if value > MASK_VALUE or not to_softmax:
        return _refuse(node, "masked_fill other than -inf (or below -16) before a softmax over "
                             "the last dim")
    add = torch.where(torch.broadcast_to(m, shape), MASK_VALUE, 0.0).to(torch.float32)
    c = new_const(gm, node, "_tf_mask", add)
    return _replace(gm, node, _call(gm, node, aten.add.Tensor, x, c))


_WHERE = {aten.where.self, aten.where.ScalarOther, aten.where.ScalarSelf, aten.where.Scalar}
_COMPARE = {aten.gt.Scalar: (True, False), aten.ge.Scalar: (True, True),
            aten.lt.Scalar: (False, False), aten.le.Scalar: (False, True)}


def _branch(gm: GraphModule, v: object, x: Node) -> tuple[str, float] | None:
    """A branch of a where as ("x", 1), ("lin", k) for k * x, ("const", d); None if neither."""
    if v is x:
        return ("x", 1.0)
    if isinstance(v, (int, float)):
        return ("const", float(v))
    if not isinstance(v, Node):
        return None
    if v.op == "call_function" and v.target == aten.mul.Tensor and len(v.args) == 2:
        a, b = v.args
        if a is x and isinstance(b, (int, float)):
            return ("lin", float(b))
        if b is x and isinstance(a, (int, float)):
            return ("lin", float(a))
    if v.op == "call_function" and v.target == aten.zeros_like.default and v.args[0] is x:
        return ("const", 0.0)
    c = _mask_value(gm, v)
    if c is not None and c.numel() > 0 and c.dtype.is_floating_point and bool((c == c.flatten()[0]).all()):
        return ("const", float(c.flatten()[0]))
    return None


def _rewrite_where(gm: GraphModule, node: Node) -> bool:
    """torch.where of a comparison of x with a number, choosing between x and a function of
    it, as the activation it is: x or k * x around 0 is leaky_relu(x, k); x or the threshold
    itself is a one-sided clamp."""
    why = ("torch.where: only where(x > c, x, k * x) with c = 0 (leaky_relu) and "
           "where(x > c, x, c) / where(x < c, x, c) (clamp), any of > >= < <=")
    cond, a, b = node.args[0], node.args[1], node.args[2]
    if not isinstance(cond, Node) or cond.target not in _COMPARE or not isinstance(cond.args[1], (int, float)):
        return _refuse(node, why)
    x, c = cond.args[0], float(cond.args[1])
    greater, _ = _COMPARE[cond.target]
    hi, lo = (a, b) if greater else (b, a)  # hi: the value where x is above c
    bh, bl = _branch(gm, hi, x), _branch(gm, lo, x)
    if bh is None or bl is None:
        return _refuse(node, why)
    if bh[0] == "x" and bl[0] == "lin" and c == 0.0:
        y = _call(gm, node, aten.leaky_relu.default, x, bl[1])
    elif bh[0] == "x" and bl[0] == "const" and bl[1] == c:
        y = _call(gm, node, aten.clamp.default, x, c, None)
    elif bh[0] == "const" and bl[0] == "x" and bh[1] == c:
        y = _call(gm, node, aten.clamp.default, x, None, c)
    else:
        return _refuse(node, why)
    return _replace(gm, node, y)


def _rewrite_sign_abs(gm: GraphModule, node: Node) -> bool:
    """sign(a) * relu(abs(a)), as F.lp_pool1d / lp_pool2d write it, is a itself."""
    if len(node.args) != 2 or not all(isinstance(v, Node) for v in node.args):
        return False
    for s, r in (node.args, reversed(node.args)):
        if (s.target == aten.sign.default and r.target == aten.relu.default
                and isinstance(r.args[0], Node) and r.args[0].target == aten.abs.default
                and r.args[0].args[0] is s.args[0]):
            return _replace(gm, node, s.args[0])
    return False


_REWRITES = {
    aten.mul.Tensor: _rewrite_sign_abs,
    **{op: _rewrite_where for op in _WHERE},
    **{op: _rewrite_pad for op in _PADS},
    aten.flip.default: _rewrite_flip_roll,
    aten.roll.default: _rewrite_flip_roll,
    aten.stack.default: _rewrite_stack,
    aten.channel_shuffle.default: _rewrite_channel_shuffle,
    aten.native_channel_shuffle.default: _rewrite_channel_shuffle,
    **{op: _rewrite_norm for op in _NORMS},
    **{op: _rewrite_var for op in _VARS},
    **{op: _rewrite_alias for op in (*_ALIASES, aten.clamp_min.default,
                                     aten.clamp_max.default, aten.expand_as.default)},
    **{op: _rewrite_avg_pool for op in _AVG_POOLS},
    aten.masked_fill.Scalar: _rewrite_masked_fill,
}


def rewrite_ops(gm: GraphModule) -> None:
    """Rewrite ``gm``'s ops of the module docstring in place; a form left as it is says
    why for the coverage check."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target in _REWRITES:
            changed |= _REWRITES[node.target](gm, node)
    if changed:
        gm.graph.eliminate_dead_code()
        gm.graph.lint()
        gm.recompile()
