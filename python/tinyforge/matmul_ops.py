"""``torch.einsum`` written as what it computes, before quantization.

``rewrite_einsum(gm)`` replaces, on the captured ATen graph, every ``aten.einsum`` of two
operands that is a batched matrix product by ``aten.matmul``, with an ``aten.transpose``
of the last two dims in front of an operand whose contracted dim comes first
(``"bhqd,bhkd->bhqk"`` is ``q @ k.transpose(-1, -2)``). The compiler then folds such a
transpose into the matmul (the kernel reads either order; docs/passes.md remove-noops),
and the quantizer sees the usual matmul and transpose. Other equations stay einsum, which
no handler takes: the exporter's op check names the equation (``tinyforge_unsupported``).
"""

from __future__ import annotations

import torch
import torch.fx

aten = torch.ops.aten

# What the rewrite turns into graph ops (docs/ops.md, tinyforge.ops_doc).
REWRITTEN = {
    aten.einsum.default: "`matmul` (+ `transpose`): batched matrix products of two operands",
}


def matmul_plan(equation: str) -> tuple[bool, bool] | None:
    """(transpose a, transpose b) making ``equation`` ``a @ b`` over shared leading batch
    dims, or None when it is not such a product."""
    eq = equation.replace(" ", "")
    if "->" not in eq or "." in eq:
        return None
    ins, out = eq.split("->")
    parts = ins.split(",")
    if len(parts) != 2:
        return None
    a, b = parts
    if any(len(set(s)) != len(s) for s in (a, b, out)) or len(a) < 2 or len(b) < 2:
        return None
    batch = out[:-2]
    if len(a) != len(out) or len(b) != len(out) or a[:-2] != batch or b[:-2] != batch:
        return None
    m, n = out[-2], out[-1]
    ka = set(a[-2:]) - {m}
    kb = set(b[-2:]) - {n}
    if len(ka) != 1 or ka != kb or m not in a[-2:] or n not in b[-2:]:
        return None
    k = ka.pop()
    if k in out:
        return None
    return a[-2:] == k + m, b[-2:] == n + k


def rewrite_einsum(gm: torch.fx.GraphModule) -> None:
    """Rewrite the matrix-product einsums of ``gm`` in place (see the module docstring)."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target != aten.einsum.default:
            continue
        equation, operands = node.args[0], node.args[1]
        plan = matmul_plan(equation) if len(operands) == 2 else None
        if plan is None:
            node.meta["tinyforge_unsupported"] = (
                f"einsum {equation!r}: only batched matrix products of two operands "
                "(e.g. 'bij,bjk->bik', 'bhqd,bhkd->bhqk') are supported")
            continue
        args = []
        with gm.graph.inserting_before(node):
            for x, flip in zip(operands, plan):
                if flip:
                    t = gm.graph.call_function(aten.transpose.int, (x, -1, -2))
                    t.meta["val"] = x.meta["val"].transpose(-1, -2)
                    t.meta["stack_trace"] = node.meta.get("stack_trace")
                    x = t
                args.append(x)
        node.target = aten.matmul.default
        node.args = tuple(args)
        node.kwargs = {}
        changed = True
    if changed:
        gm.recompile()
