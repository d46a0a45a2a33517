"""PixelShuffle / PixelUnshuffle as the reshape -> permute -> reshape they are.

``aten.pixel_shuffle(x, r)`` on ``[N, C*r*r, H, W]`` is ``x.view(N, C, r, r, H, W)
.permute(0, 1, 4, 2, 5, 3).reshape(N, C, H*r, W*r)`` and ``pixel_unshuffle`` its inverse, so
both are rewritten into those ops before quantization: the quantizer shares their
parameters like any view / permute, and the compiler folds the chain into one transpose
(docs/decisions.md). The graph is changed in place.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch.fx import GraphModule, Node

aten = torch.ops.aten
OPS = {aten.pixel_shuffle.default, aten.pixel_unshuffle.default}


def _add(gm: GraphModule, before: Node, target, args: tuple, like: Node) -> Node:
    with gm.graph.inserting_before(before):
        node = gm.graph.call_function(target, args)
    node.meta = {k: v for k, v in like.meta.items() if k != "val"}
    src = args[0].meta.get("val")
    if src is not None:
        node.meta["val"] = target(src, *args[1:])
    return node


def rewrite_nodes(gm: GraphModule, ops: set, build: Callable[[Node], Node | None]) -> None:
    """Replace every call of one of ``ops`` by the node ``build(node)`` inserted before it
    (None: the node stays, and the unsupported-op check names it if need be)."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in ops:
            continue
        y = build(node)
        if y is None:
            continue
        node.replace_all_uses_with(y)
        gm.graph.erase_node(node)
        changed = True
    if changed:
        gm.graph.lint()
        gm.recompile()


def _shuffle(gm: GraphModule, node: Node) -> Node | None:
    x, r = node.args[0], int(node.args[1])
    val = x.meta.get("val") if isinstance(x, Node) else None
    if val is None or val.dim() != 4:
        return None
    n, c, h, w = (int(d) for d in val.shape)
    if node.target == aten.pixel_shuffle.default:
        split = [n, c // (r * r), r, r, h, w]
        perm = [0, 1, 4, 2, 5, 3]
        out = [n, c // (r * r), h * r, w * r]
    else:
        split = [n, c, h // r, r, w // r, r]
        perm = [0, 1, 3, 5, 2, 4]
        out = [n, c * r * r, h // r, w // r]
    v = _add(gm, node, aten.view.default, (x, split), node)
    p = _add(gm, node, aten.permute.default, (v, perm), node)
    return _add(gm, node, aten.reshape.default, (p, out), node)


def expand_pixel_shuffle(gm: GraphModule) -> None:
    """Rewrite every rank-4 pixel_shuffle / pixel_unshuffle of ``gm`` (others stay, and the
    unsupported-op check names them)."""
    rewrite_nodes(gm, OPS, lambda node: _shuffle(gm, node))
