"""Binary elementwise ATen ops brought into the graph format's form before quantization.

``canonicalize_binary(gm)`` rewrites, on the captured ATen graph:

* a Python scalar operand (``x * 0.5``, ``x + 1``) into a constant tensor (a buffer read by
  ``get_attr``) of the other operand's rank, all dims 1;
* a constant tensor operand of lower rank into the same values with leading 1-dims (the
  layout pass needs both operands of a rank-4 op to be rank 4);
* ``div`` by a constant into ``mul`` by its float32 reciprocal; ``rsub(x, c)`` into
  ``sub(c, x)``; ``add`` / ``sub`` with ``alpha != 1`` and a constant operand into the
  scaled constant; the ``Scalar`` and in-place overloads into ``add.Tensor`` / ``sub.Tensor``
  / ``mul.Tensor``.

and ``prelu`` with a single slope (``nn.PReLU()``) into ``leaky_relu`` with that slope (a
slope per channel, ``nn.PReLU(C)``, stays ``prelu``: the graph op of that name).

Then the PT2E quantizer sees every operand as a node: constants are observed like
activations and quantized to int8 per-tensor at export (convert_pt2e folds them). What
stays unsupported (division by an activation, alpha on two activations) is left for the
op handlers to reject with their message.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch.fx import Node

aten = torch.ops.aten

_ADD = {aten.add.Tensor, aten.add_.Tensor, aten.add.Scalar}
_SUB = {aten.sub.Tensor, aten.sub_.Tensor, aten.sub.Scalar}
_MUL = {aten.mul.Tensor, aten.mul_.Tensor, aten.mul.Scalar}
_DIV = {aten.div.Tensor, aten.div_.Tensor, aten.div.Scalar}
_RSUB = {aten.rsub.Scalar, aten.rsub.Tensor}
_MINMAX = {aten.maximum.default, aten.minimum.default}
ALL = _ADD | _SUB | _MUL | _DIV | _RSUB | _MINMAX
# Float-fallback functions of two inputs (aten_ops.FLOAT_FNS): scalar operands become
# constants; pow's Scalar overloads become pow.Tensor_Tensor.
_POW = {aten.pow.Tensor_Scalar: False, aten.pow.Scalar: True, aten.pow.Tensor_Tensor: False}
_FLOAT2 = {aten.atan2.default}


def _rank(node: Any) -> int:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return val.dim() if isinstance(val, torch.Tensor) else 0


def _const_value(gm: torch.fx.GraphModule, v: Any) -> torch.Tensor | None:
    """The value of a Python number or a get_attr tensor, else None (an activation)."""
    if isinstance(v, (int, float, bool)):
        return torch.tensor(float(v), dtype=torch.float32)
    if isinstance(v, Node) and v.op == "get_attr":
        obj: Any = gm
        for part in str(v.target).split("."):
            obj = getattr(obj, part)
        if isinstance(obj, torch.Tensor) and obj.is_floating_point():
            return obj.detach().to(torch.float32)
    return None


class _Consts:
    def __init__(self, gm: torch.fx.GraphModule) -> None:
        self.gm = gm
        self.count = 0

    def make(self, before: Node, value: torch.Tensor, rank: int) -> Node:
        value = value.reshape([1] * max(0, rank - value.dim()) + list(value.shape)).contiguous()
        if value.dim() == 0:
            value = value.reshape(1)
        while True:
            name = f"_tf_const_{self.count}"
            self.count += 1
            if not hasattr(self.gm, name):
                break
        self.gm.register_buffer(name, value)
        with self.gm.graph.inserting_before(before):
            node = self.gm.graph.get_attr(name)
        node.meta["val"] = value
        return node


def canonicalize_binary(gm: torch.fx.GraphModule) -> None:
    """Rewrite the binary elementwise ops of ``gm`` in place (see the module docstring)."""
    consts = _Consts(gm)
    changed = False
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target == aten.prelu.default:
            # PReLU with one slope is leaky_relu (a table lookup); a slope per channel stays
            # prelu (graph op prelu, slopes [C] along dim 1).
            w = _const_value(gm, node.args[1])
            if w is not None and w.numel() == 1:
                node.target = aten.leaky_relu.default
                node.args = (node.args[0], float(w.reshape(-1)[0]))
                node.kwargs = {}
                changed = True
            continue
        if node.op == "call_function" and (node.target in _POW or node.target in _FLOAT2):
            args = list(node.args[:2])
            if node.target == aten.pow.Scalar:  # scalar ** tensor
                args = [node.args[0], node.args[1]]
            rank = _rank(node)
            for i, v in enumerate(args):
                if isinstance(v, (int, float, bool)):
                    args[i] = consts.make(node, torch.tensor(float(v), dtype=torch.float32), rank)
            if node.target in _POW:
                node.target = aten.pow.Tensor_Tensor
            node.args = tuple(args)
            node.kwargs = {}
            changed = True
            continue
        if node.op != "call_function" or node.target not in ALL:
            continue
        t = node.target
        x = node.args[0]
        y = node.args[1] if len(node.args) > 1 else node.kwargs.get("other")
        alpha = node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1)
        if t in _DIV and node.kwargs.get("rounding_mode") is not None:
            continue  # floor / trunc division: not an elementwise scale
        mod_x = mod_y = False
        if t in _RSUB:  # rsub(x, y, alpha) = y - alpha * x
            kind = "sub"
            cx, cy = _const_value(gm, y), _const_value(gm, x)
            x, y = y, x
            if alpha != 1:
                if cy is None:
                    continue
                cy, mod_y = cy * float(alpha), True
        else:
            kind = ("add" if t in _ADD else "sub" if t in _SUB else "mul" if t in _MUL else
                    "div" if t in _DIV else "maximum" if t == aten.maximum.default else "minimum")
            cx = _const_value(gm, x)
            cy = _const_value(gm, y)
            if alpha != 1 and kind in ("add", "sub"):
                if cy is None:
                    continue  # alpha on an activation: the handler rejects it
                cy, mod_y = cy * float(alpha), True
        if kind == "div":
            if cy is None:
                continue  # division by an activation: the handler rejects it
            cy, mod_y = torch.reciprocal(cy), True
            kind = "mul"
        rank = _rank(node)
        args = []
        for v, c, mod in ((x, cx, mod_x), (y, cy, mod_y)):
            if c is None:
                args.append(v)
            elif isinstance(v, Node) and not mod and c.dim() == rank:
                args.append(v)  # a constant tensor already of the output's rank
            else:
                args.append(consts.make(node, c, rank))
        target = {"add": aten.add.Tensor, "sub": aten.sub.Tensor, "mul": aten.mul.Tensor,
                  "maximum": aten.maximum.default, "minimum": aten.minimum.default}[kind]
        node.target = target
        node.args = tuple(args)
        node.kwargs = {}
        changed = True
    if changed:
        gm.graph.eliminate_dead_code()
        gm.recompile()
