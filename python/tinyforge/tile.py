"""Tensor.repeat / Tensor.expand (+ contiguous) as concatenations of copies.

``x.repeat(r0, r1, ...)`` and ``x.expand(s0, s1, ...)`` of an activation become, per dim
that grows, one ``aten.cat`` of the tensor with itself (after a view adding the new leading
dims of size 1), before quantization: the quantizer shares the cat's parameters, so the
copies are bit-exact, and the compiler needs no tile op. An expand feeding an elementwise
op is left to broadcasting only when it is not materialized; here every repeat / expand is
rewritten. The graph is changed in place.
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

from .pixel_shuffle import _add, rewrite_nodes

aten = torch.ops.aten
OPS = {aten.repeat.default, aten.expand.default}
REWRITTEN = {op: "`cat` of copies (one per dim that grows; tinyforge.tile)" for op in OPS}


def _cat(gm: GraphModule, before: Node, y: Node, r: int, d: int) -> Node:
    with gm.graph.inserting_before(before):
        node = gm.graph.call_function(aten.cat.default, ([y] * r, d))
    node.meta = {k: v for k, v in before.meta.items() if k != "val"}
    if y.meta.get("val") is not None:
        node.meta["val"] = torch.cat([y.meta["val"]] * r, d)
    return node


def _tile(gm: GraphModule, node: Node) -> Node | None:
    x = node.args[0]
    val = x.meta.get("val") if isinstance(x, Node) else None
    if val is None:
        return None
    sizes = [int(s) for s in node.args[1]]
    shape = [1] * (len(sizes) - val.dim()) + [int(d) for d in val.shape]
    if node.target == aten.repeat.default:
        reps = sizes
    else:
        reps = [1 if s == -1 else s // d for s, d in zip(sizes, shape)]
    y = x if len(shape) == val.dim() else _add(gm, node, aten.view.default, (x, shape), node)
    for d, r in enumerate(reps):
        if r > 1:
            y = _cat(gm, node, y, r, d)
    return y


def expand_repeats(gm: GraphModule) -> None:
    """Rewrite every repeat / expand of ``gm`` whose input shape is known."""
    rewrite_nodes(gm, OPS, lambda node: _tile(gm, node))
