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
    aten.einsum.default: "`matmul` (+ `transpose`): contractions of two operands (other "
                         "layouts also `reshape`)",
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
            why = _contraction(gm, node) if len(operands) == 2 else "more than two operands"
            if why:
                node.meta["tinyforge_unsupported"] = (
                    f"einsum {equation!r}: {why}; supported: contractions of two operands "
                    "(e.g. 'bij,bjk->bik', 'bchw,cd->bhwd')")
            changed |= not why
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


def _contraction(gm: torch.fx.GraphModule, node: torch.fx.Node) -> str:
    """Any other contraction of two operands (``'bchw,cd->bhwd'``: a 1x1 projection written
    as einsum): each operand permuted to [batch, free, contracted] / [batch, contracted,
    free] and flattened to a matrix, one matmul, the result reshaped and permuted to the
    output's order. Rewrites ``node`` in place and returns "", or returns why it cannot."""
    from .conv_rewrite import _call  # noqa: PLC0415 (conv_rewrite imports the lowering)

    eq = node.args[0].replace(" ", "")
    if "->" not in eq or "." in eq:
        return "needs an explicit output ('->') and no '...'"
    ins, out = eq.split("->")
    a, b = ins.split(",")
    x, y = node.args[1]
    if any(len(set(s)) != len(s) for s in (a, b, out)):
        return "an index repeated within one operand (a diagonal)"
    if any(l not in a + b for l in out) or any(l not in b + out for l in a) or any(
            l not in a + out for l in b):
        return "an index summed within one operand"
    size = {}
    for s, t in ((a, x), (b, y)):
        val = t.meta.get("val") if isinstance(t, torch.fx.Node) else None
        if val is None or val.dim() != len(s):
            return "operand ranks differ from the equation"
        size.update({l: int(d) for l, d in zip(s, val.shape)})
    batch = [l for l in out if l in a and l in b]
    contr = [l for l in a if l in b and l not in out]
    lfree = [l for l in a if l not in b]
    rfree = [l for l in b if l not in a]

    def prod(ls):
        p = 1
        for l in ls:
            p *= size[l]
        return p

    def arrange(t, s, order, shape):
        perm = [s.index(l) for l in order]
        if perm != list(range(len(s))):
            t = _call(gm, node, aten.permute.default, t, perm)
        if [size[l] for l in order] != shape:
            t = _call(gm, node, aten.reshape.default, t, shape)
        return t

    bs = [size[l] for l in batch]
    lhs = arrange(x, a, batch + lfree + contr, bs + [prod(lfree), prod(contr)])
    rhs = arrange(y, b, batch + contr + rfree, bs + [prod(contr), prod(rfree)])
    z = _call(gm, node, aten.matmul.default, lhs, rhs)
    got = batch + lfree + rfree
    if [prod(lfree), prod(rfree)] != [size[l] for l in lfree + rfree]:
        z = _call(gm, node, aten.reshape.default, z, [size[l] for l in got])
    perm = [got.index(l) for l in out]
    if perm != list(range(len(out))):
        z = _call(gm, node, aten.permute.default, z, perm)
    node.replace_all_uses_with(z)
    gm.graph.erase_node(node)
    return ""
