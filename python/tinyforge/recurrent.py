"""nn.GRU / nn.LSTM / nn.GRUCell / nn.LSTMCell as the unrolled cells PyTorch defines them.

Runs right after ``torch.export`` (export.py, step 1), so the quantizer, the lowering and the
compiler see only ops they have (docs/decisions.md 37):

* :func:`decompose_recurrent`: when the exported program holds ``aten.gru.input`` /
  ``aten.lstm.input`` / ``aten.gru_cell`` / ``aten.lstm_cell``, PyTorch's own decompositions
  of exactly those ops replace them (``ExportedProgram.run_decompositions`` with a table of
  these four; oneDNN off, so the LSTM does not become ``mkldnn_rnn_layer``). A sequence
  becomes one ``linear`` over all time steps for the input gates, then per step ``linear``
  of the hidden state, ``split`` into the gates, ``sigmoid`` / ``tanh``, ``mul`` / ``add`` /
  ``sub``; the step outputs are ``cat`` together. Layers, directions, batch_first and
  proj_size are unrolled by the same code PyTorch uses.
* :func:`fold_factories`: a value computed only from constants and a factory op
  (``aten.zeros`` / ``ones`` / ``full``: the zero initial hidden and cell state) becomes a
  constant, so step 0's ``linear`` of h0 = 0 is its bias.
* :func:`slices_for_splits`: a step's gates are a ``split`` of a step of the input gates
  (an ``unbind`` output). In an unrolled graph every split output becomes an explicit
  ``select`` / ``slice``, which the quantizer annotates as sharing its input's parameters:
  the gates are read where the ``linear`` wrote them, with no requantize per gate and step.
  (Elsewhere only a split output that another split reads is made a slice, so that every
  slice the graph file gets is read by its own quantize.)
* :func:`unflip_steps`: a reverse direction reads ``flip(x, [0])`` step by step
  (``unbind``); it reads ``x``'s steps in reverse order instead (no data is moved).
"""

from __future__ import annotations

import operator
import warnings

import torch
import torch.export
import torch.fx
from torch.fx import Node

from .fold import attr_value, new_const

aten = torch.ops.aten

RECURRENT_OPS = (aten.gru.input, aten.lstm.input, aten.gru_cell.default, aten.lstm_cell.default)
# Ops that make a tensor from nothing but their arguments (and `*_like` from a shape).
FACTORY_OPS = {aten.zeros.default, aten.ones.default, aten.full.default, aten.zeros_like.default,
               aten.ones_like.default, aten.full_like.default, aten.arange.default,
               aten.arange.start, aten.arange.start_step, aten.eye.default, aten.eye.m,
               aten.linspace.default, aten.scalar_tensor.default}
# What each rewritten aten op becomes (docs/ops.md reads it).
_UNROLLED = "unrolled per step: `linear`, `slice`, `add`, `sub`, `mul`, `sigmoid`, `tanh`"
REWRITTEN = {
    aten.gru.input: _UNROLLED + ", `cat` (PyTorch's decomposition)",
    aten.lstm.input: _UNROLLED + ", `cat` (PyTorch's decomposition)",
    aten.gru_cell.default: _UNROLLED + " (PyTorch's decomposition)",
    aten.lstm_cell.default: _UNROLLED + " (PyTorch's decomposition)",
    # factories (masks, initial states) and what reads only them and parameters: constants
    **{op: "a constant (with what reads only constants)" for op in FACTORY_OPS},
}


def decompose_recurrent(
    ep: torch.export.ExportedProgram,
) -> tuple[torch.export.ExportedProgram, bool]:
    """``ep`` with its GRU / LSTM ops (and only those) replaced by PyTorch's decompositions,
    and whether there were any."""
    present = {n.target for n in ep.graph.nodes if n.op == "call_function"}
    ops = [op for op in RECURRENT_OPS if op in present]
    if not ops:
        return ep, False
    table = torch.export.default_decompositions()
    with warnings.catch_warnings():
        # the oneDNN switch warns about TF32 on Intel GPUs; the decomposition's pytree use
        # about a deprecated LeafSpec check: neither concerns the exported graph
        warnings.filterwarnings("ignore", message="TF32 acceleration")
        warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)`")
        with torch.backends.mkldnn.flags(enabled=False):
            return ep.run_decompositions({op: table[op] for op in ops}), True


def fold_factories(gm: torch.fx.GraphModule, any_constant: bool = False) -> int:
    """Replace factory ops, and ops reading only constants of which one came from a factory,
    by constants (buffers); with ``any_constant``, every op reading only constants
    (parameters and buffers too: weight normalization, a weight computed in forward).
    Returns the number of constants made."""
    folded: dict[Node, torch.Tensor] = {}
    for node in list(gm.graph.nodes):
        if node.op != "call_function":
            continue
        inputs = node.all_input_nodes
        if node.target in FACTORY_OPS and not inputs:
            pass
        elif not inputs or not (any_constant or any(i in folded for i in inputs)):
            continue
        elif not all(i in folded or i.op == "get_attr" for i in inputs):
            continue

        def value(n: Node) -> torch.Tensor:
            return folded[n] if n in folded else attr_value(gm, n)

        args = torch.fx.node.map_arg(node.args, value)
        kwargs = torch.fx.node.map_arg(node.kwargs, value)
        with torch.no_grad():
            folded[node] = node.target(*args, **kwargs)  # type: ignore[operator]
    count = 0
    for node, val in folded.items():
        readers = [u for u in node.users if u not in folded]
        if readers and isinstance(val, torch.Tensor):
            const = new_const(gm, node, "_tf_folded", val)
            for user in readers:
                user.replace_input_with(node, const)
            count += 1
    if folded:
        # FX keeps an in-place op (a mask's masked_fill_) as a side effect: the folded ones go
        # explicitly, readers first
        for node in reversed(list(folded)):
            if not node.users:
                gm.graph.erase_node(node)
        gm.graph.eliminate_dead_code()
        gm.recompile()
    return count


def unflip_steps(gm: torch.fx.GraphModule) -> None:
    """``unbind(flip(x, [d]), d)`` -> ``unbind(x, d)`` with the step indices reversed."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target != aten.flip.default:
            continue
        x, dims = node.args[0], [int(d) for d in node.args[1]]
        rank = node.meta["val"].dim()
        users = list(node.users)
        if len(dims) != 1 or not users:
            continue
        d = dims[0] % rank
        if not all(u.target == aten.unbind.int and int(u.args[1] if len(u.args) > 1 else 0) % rank
                   == d for u in users):
            continue
        n = int(node.meta["val"].shape[d])
        for unbind in users:
            for get in list(unbind.users):
                assert get.target is operator.getitem
                get.args = (get.args[0], n - 1 - int(get.args[1]))
            unbind.args = (x, *unbind.args[1:])
        gm.graph.erase_node(node)
        changed = True
    if changed:
        gm.recompile()


_SPLITS = {aten.split.Tensor, aten.unsafe_split.Tensor, aten.split_with_sizes.default,
           aten.chunk.default, aten.unbind.int}


def slices_for_splits(gm: torch.fx.GraphModule, every: bool) -> None:
    """``getitem(split(x), i)`` -> ``slice`` (``select`` for unbind): all of them when
    ``every``, else those another split reads."""
    made = []
    for get in list(gm.graph.nodes):
        if get.target is not operator.getitem or not isinstance(get.args[0], Node):
            continue
        split = get.args[0]
        if split.target not in _SPLITS or not (every or any(u.target in _SPLITS
                                                            for u in get.users)):
            continue
        x, i = split.args[0], int(get.args[1])
        rank = split.args[0].meta["val"].dim()
        if split.target == aten.unbind.int:
            dim = int(split.args[1] if len(split.args) > 1 else split.kwargs.get("dim", 0)) % rank
            target, args = aten.select.int, (x, dim, i)
        else:
            dim = int(split.args[2] if len(split.args) > 2 else split.kwargs.get("dim", 0)) % rank
            sizes = [int(v.shape[dim]) for v in split.meta["val"]]
            start = sum(sizes[:i])
            target, args = aten.slice.Tensor, (x, dim, start, start + sizes[i])
        with gm.graph.inserting_before(get):
            node = gm.graph.call_function(target, args)
        node.meta = dict(get.meta)
        get.replace_all_uses_with(node)
        made.append(node)
    if made:  # the getitems and the splits left without readers
        gm.graph.eliminate_dead_code()
        gm.recompile()
