"""Attention written as the ops it computes, before quantization.

``decompose_attention(gm)`` rewrites, on the captured ATen graph (nn.MultiheadAttention and
nn.TransformerEncoderLayer call ``F.scaled_dot_product_attention``; their need_weights path
calls ``baddbmm`` for a masked score):

* ``scaled_dot_product_attention(q, k, v, attn_mask, dropout_p=0, is_causal, scale)`` into
  ``softmax((q * scale) @ k^T [+ mask], -1) @ v``: the scale (default ``1/sqrt(E)``) is
  applied to q (fewer elements than the scores when E <= S; PyTorch's math kernel scales q
  too), the transpose of k folds into the matmul in the compiler;
* a mask that is a constant (a buffer) or ``is_causal`` into one additive float32 constant
  before the softmax: a boolean mask's False (and the causal mask's upper triangle) is
  ``MASK_VALUE``, a float mask's values below ``MASK_VALUE`` (-inf included) become
  ``MASK_VALUE`` (docs/decisions.md). A float mask that is an activation is added as is;
  a boolean one that is not a constant stays unsupported (the exporter names it);
* ``baddbmm(x, a, b, beta=1, alpha=1)`` into ``x + a @ b`` (a constant x is a float mask:
  clamped to ``MASK_VALUE`` as above).

A mask is a constant when it is computed from buffers only (nn.MultiheadAttention turns a
boolean mask into a float one with zeros_like + masked_fill_): it is evaluated here.

Then the PT2E quantizer sees matmul, mul, add and softmax, each with its int8 scales.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.fx
from torch.fx import Node

from .fold import attr_value, new_const

aten = torch.ops.aten

# The additive value of a masked score (a finite stand-in for -inf: an int8 add output has to
# span it). exp(-16) ~ 1.1e-7: below the softmax's 1/256 output step for rows of any length
# the kernel takes (4,096 * 1.1e-7 < 1/512).
MASK_VALUE = -16.0

# What the rewrite turns into graph ops (docs/ops.md, tinyforge.ops_doc).
REWRITTEN = {
    aten.scaled_dot_product_attention.default:
        "`mul` + `matmul` (+ `add` of the constant mask) + `softmax` + `matmul`",
    aten.baddbmm.default: "`matmul` + `add` (beta = alpha = 1)",
}


def _val(node: Any) -> torch.Tensor:
    return node.meta["val"]


def _call(gm: torch.fx.GraphModule, target: Any, args: tuple, val: torch.Tensor,
          like: Node) -> Node:
    n = gm.graph.call_function(target, args)
    n.meta["val"] = val
    for key in ("stack_trace", "nn_module_stack", "source_fn_stack"):
        if key in like.meta:
            n.meta[key] = like.meta[key]
    return n


def additive_mask(mask: torch.Tensor | None, causal: bool, l: int, s: int) -> torch.Tensor | None:
    """The float32 additive constant for a constant boolean / float mask and/or is_causal."""
    out = None
    if causal:
        keep = torch.ones(l, s, dtype=torch.bool).tril()
        out = torch.where(keep, 0.0, MASK_VALUE)
    if mask is not None:
        if mask.dtype == torch.bool:
            m = torch.where(mask, 0.0, MASK_VALUE)
        else:
            m = mask.to(torch.float32).clamp(min=MASK_VALUE)
        out = m if out is None else (out + m).clamp(min=MASK_VALUE)
    return out


def _mask_value(gm: torch.fx.GraphModule, node: Any) -> torch.Tensor | None:
    """The value of ``node`` when it is computed from constants only (a buffer, or what
    nn.MultiheadAttention makes of one: zeros_like + masked_fill_, views), else None."""
    if not isinstance(node, Node):
        return None
    if node.op == "get_attr":
        value = attr_value(gm, node)
        return value.detach().clone() if isinstance(value, torch.Tensor) else None
    if node.op != "call_function" or not node.all_input_nodes:
        return None
    values = {n: _mask_value(gm, n) for n in node.all_input_nodes}
    if any(v is None for v in values.values()):
        return None
    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda n: values[n])
    out = node.target(*args, **kwargs)  # type: ignore[operator]
    return out if isinstance(out, torch.Tensor) else None


def _sdpa(gm: torch.fx.GraphModule, node: Node) -> bool:
    schema = node.target._schema  # type: ignore[union-attr]
    a = {}
    for i, arg in enumerate(schema.arguments):
        default = arg.default_value if arg.has_default_value() else None
        a[arg.name] = node.args[i] if i < len(node.args) else node.kwargs.get(arg.name, default)
    q, k, v, mask = a["query"], a["key"], a["value"], a["attn_mask"]
    if a.get("dropout_p") or a.get("enable_gqa"):
        node.meta["tinyforge_unsupported"] = (
            "scaled_dot_product_attention with dropout_p or enable_gqa")
        return False
    qv, kv, vv = _val(q), _val(k), _val(v)
    if qv.dim() < 2 or kv.shape[:-2] != qv.shape[:-2] or vv.shape[:-2] != qv.shape[:-2]:
        node.meta["tinyforge_unsupported"] = (
            "scaled_dot_product_attention: q, k and v need the same batch dims")
        return False
    l, s = qv.shape[-2], kv.shape[-2]
    add_const = None
    if mask is not None:
        mv = _mask_value(gm, mask)
        if mv is None and _val(mask).dtype == torch.bool:
            node.meta["tinyforge_unsupported"] = (
                "scaled_dot_product_attention: a boolean attn_mask must be a constant (a buffer)")
            return False
        if mv is not None:
            add_const = additive_mask(mv, bool(a["is_causal"]), l, s)
    elif a["is_causal"]:
        add_const = additive_mask(None, True, l, s)
    scale = a["scale"] if a["scale"] is not None else 1.0 / math.sqrt(qv.shape[-1])
    with gm.graph.inserting_before(node):
        qs = _call(gm, aten.mul.Tensor, (q, float(scale)), qv * scale, node)
        kt = _call(gm, aten.transpose.int, (k, -2, -1), kv.transpose(-2, -1), node)
        sv = torch.matmul(qv, kv.transpose(-2, -1))
        scores = _call(gm, aten.matmul.default, (qs, kt), sv, node)
        if add_const is not None:
            c = new_const(gm, node, "_tf_mask", add_const)
            scores = _call(gm, aten.add.Tensor, (scores, c), sv + add_const, node)
        elif mask is not None:  # a float activation
            scores = _call(gm, aten.add.Tensor, (scores, mask), sv + _val(mask), node)
        p = _call(gm, aten.softmax.int, (scores, -1), sv, node)
        out = _call(gm, aten.matmul.default, (p, v), _val(node), node)
    node.replace_all_uses_with(out)
    gm.graph.erase_node(node)
    return True


def _baddbmm(gm: torch.fx.GraphModule, node: Node) -> bool:
    x, b1, b2 = node.args[:3]
    beta = node.kwargs.get("beta", 1)
    alpha = node.kwargs.get("alpha", 1)
    if beta != 1 or alpha != 1:
        node.meta["tinyforge_unsupported"] = "baddbmm with beta or alpha != 1"
        return False
    const = _mask_value(gm, x)
    with gm.graph.inserting_before(node):
        if const is not None:  # nn.MultiheadAttention's float mask (-inf where masked)
            x = new_const(gm, node, "_tf_mask", additive_mask(const, False, 0, 0))
        mm = _call(gm, aten.bmm.default, (b1, b2), torch.bmm(_val(b1), _val(b2)), node)
        out = _call(gm, aten.add.Tensor, (x, mm), _val(node), node)
    node.replace_all_uses_with(out)
    gm.graph.erase_node(node)
    return True


def decompose_attention(gm: torch.fx.GraphModule) -> None:
    """Rewrite the attention ops of ``gm`` in place (see the module docstring)."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target == aten.scaled_dot_product_attention.default:
            changed |= _sdpa(gm, node)
        elif node.target == aten.baddbmm.default:
            changed |= _baddbmm(gm, node)
    if changed:
        # (the in-place masked_fill_ of a folded mask is dead too: only a constant's is)
        gm.graph.eliminate_dead_code(
            lambda n: n.is_impure() and _mask_value(gm, n) is None)
        gm.recompile()
