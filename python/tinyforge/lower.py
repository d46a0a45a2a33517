"""Translate an exported ATen GraphModule (float, or PT2E-converted QDQ) into graph-file ops.

One pass in graph order. Every ``call_function`` node maps to exactly one graph-file op
(no-ops alias their input instead); constants (``get_attr``) become tensors with data when
an op first uses them. Shapes and dtypes come from running the module once on the example
inputs, so they are exactly PyTorch's. Anything without a mapping raises
UnsupportedOpError naming the ATen op and the model source line.

Quantize/dequantize parameters live on the integer tensor, as the format wants: a quantize
op's int8 output takes the node's (scale, zero_point, qmin, qmax); a dequantize of a constant
gives the constant its (per-channel) parameters; a dequantize of an activation must agree
with the parameters its input already has.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
import torch.fx
from torch.fx import Node

from . import _quiet  # noqa: F401  (torchao registers the quantized_decomposed ops)
from .errors import UnsupportedOpError
from .aten_ops import (FLOAT_FALLBACK_OPS, FLOAT_FN_TARGETS, FLOAT_FNS, HANDLERS, KEEP_FLOAT_AS,
                       KEEP_FLOAT_KEY, SPLIT_OPS, split_slice)
from .fold import BATCH_NORM_OPS, NOOP_OPS, batchnorm_problem
from .graph_file import GraphBuilder, Quant
from .nodeinfo import module_path_of, source_of, target_name

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed

_DTYPES = {torch.float32: "float32", torch.int8: "int8", torch.int32: "int32"}

QUANTIZE_OPS = {
    qd.quantize_per_tensor.default,
    qd.quantize_per_tensor.tensor,
    qd.quantize_per_channel.default,
}
_WEIGHTED_OPS = {aten.conv2d.default, aten.conv2d.padding, aten.linear.default}
DEQUANTIZE_OPS = {
    qd.dequantize_per_tensor.default,
    qd.dequantize_per_tensor.tensor,
    qd.dequantize_per_channel.default,
}


def _unary_float_fn(n: object) -> bool:
    return (isinstance(n, Node) and n.op == "call_function" and n.target in FLOAT_FN_TARGETS
            and FLOAT_FNS[FLOAT_FN_TARGETS[n.target]][0] == 1)


def in_table_chain(node: Node) -> bool:
    """``node`` is a float function of one input in a chain dequantize(per tensor) -> unary
    ... -> quantize(per tensor), each float value read only by the next: the compiler makes
    such a chain one int8 table (fold-qdq, docs/decisions.md 101), so it does not run in
    float."""
    x = node
    while _unary_float_fn(x.args[0]) and len(x.args[0].users) == 1:
        x = x.args[0]
    if not (isinstance(x.args[0], Node) and x.args[0].target in (
            qd.dequantize_per_tensor.default, qd.dequantize_per_tensor.tensor)):
        return False
    y = node
    while len(y.users) == 1 and _unary_float_fn(next(iter(y.users))):
        y = next(iter(y.users))
    return len(y.users) == 1 and next(iter(y.users)).target in (
        qd.quantize_per_tensor.default, qd.quantize_per_tensor.tensor)


def _bind(node: Node) -> dict[str, Any]:
    """The node's arguments by schema name, defaults filled in."""
    schema = node.target._schema  # type: ignore[union-attr]
    out: dict[str, Any] = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
        else:
            out[arg.name] = None
    return out


class _MetaShapes:
    """Shapes from torch.export's recorded fake tensors (``meta["val"]``)."""

    def shape(self, node: Node) -> list[int]:
        val = node.meta.get("val") if isinstance(node, Node) else None
        if not isinstance(val, torch.Tensor):
            raise UnsupportedOpError(f"non-tensor operand {node!r}", None)
        return [int(d) for d in val.shape]


def _factory(node: Node) -> bool:
    """An op computing a tensor from no tensor (aten.zeros, aten.full, ...)."""
    return not any(isinstance(a, Node) for a in node.all_input_nodes)


def check_supported(gm: torch.fx.GraphModule) -> None:
    """Raise one UnsupportedOpError listing every op of the captured graph that the graph
    file cannot express (op, source line, module path), before any folding or calibration.

    Not reported on their own: a BatchNorm after an unsupported op (the op is), the
    ``getitem`` of an unsupported op's outputs, and a factory op (``aten.zeros``) whose
    readers are all unsupported (an nn.RNN's initial hidden state: the RNN is named)."""
    shapes = _MetaShapes()
    bad: dict[Node, UnsupportedOpError] = {}
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target in NOOP_OPS:
            continue
        if node.target in QUANTIZE_OPS | DEQUANTIZE_OPS:
            continue
        producer = node.args[0] if node.args and isinstance(node.args[0], Node) else None
        if node.target in SPLIT_OPS:
            continue  # its outputs (getitem) are slices
        if node.target is operator.getitem:
            if producer in bad or (producer is not None and producer.target in BATCH_NORM_OPS):
                continue
            if producer is not None and producer.target in SPLIT_OPS:
                continue
            err: UnsupportedOpError | None = UnsupportedOpError(target_name(node), source_of(node))
        elif node.target in BATCH_NORM_OPS:
            err = None if producer in bad else batchnorm_problem(node)
        elif node.target not in HANDLERS:  # (conv_rewrite says why it left a variant)
            err = UnsupportedOpError(target_name(node), source_of(node),
                                     node.meta.get("tinyforge_unsupported", ""))
        else:
            try:
                HANDLERS[node.target](shapes, node, _bind(node))
                err = None
            except UnsupportedOpError as e:
                err = e
        if err is not None:
            if not err.module:
                err = UnsupportedOpError(err.op, err.source, err.detail, module_path_of(node))
            bad[node] = err
    for node in list(bad):
        if _factory(node) and node.users and all(u in bad for u in node.users):
            del bad[node]
    if bad:
        raise UnsupportedOpError.combine(list(bad.values()))


class _Recorder(torch.fx.Interpreter):
    """Runs the module once and keeps every node's value (for shapes and constants)."""

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        super().__init__(gm)
        self.values: dict[Node, Any] = {}

    def run_node(self, n: Node) -> Any:
        out = super().run_node(n)
        self.values[n] = out
        return out


class Lowering:
    """State of one translation: node -> tensor index, names in use, the builder."""

    def __init__(self, gm: torch.fx.GraphModule, example_inputs: tuple, name: str, kind: str):
        self.gm = gm
        rec = _Recorder(gm)
        with torch.no_grad():
            rec.run(*example_inputs)
        self.values = rec.values
        self.builder = GraphBuilder(name=name, kind=kind)
        self.tensor_of: dict[Node, int] = {}
        self._deferred: set[Node] = set()  # dequantizes of constants, emitted at first use
        self._tensor_names: set[str] = set()
        self._op_names: set[str] = set()
        self.op_name = self._name_ops()
        # The float fallback ops written (node, why): export's allow_float=False lists them.
        self.float_ops: list[tuple[Node, str]] = []

    # ---- names -------------------------------------------------------------------------
    @staticmethod
    def _unique(base: str, used: set[str]) -> str:
        name, k = base, 1
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        return name

    def _name_ops(self) -> dict[Node, str]:
        """Compute ops take their module path ("features.0.conv") when they are the module's
        own op (a torch.nn leaf); ops in a custom forward get "path/fx_name"."""
        names: dict[Node, str] = {}
        for node in self.gm.graph.nodes:
            if node.op != "call_function" or node.target in QUANTIZE_OPS | DEQUANTIZE_OPS:
                continue
            path = module_path_of(node)
            stack = node.meta.get("nn_module_stack") or {}
            leaf = bool(stack) and str(list(stack.values())[-1][1]).startswith("torch.nn.")
            base = path if path and leaf else (f"{path}/{node.name}" if path else node.name)
            names[node] = self._unique(base, self._op_names)
        return names

    def _new_tensor(self, base: str, value: Any, quant: Quant | None = None, data: Any = None) -> int:
        if not isinstance(value, torch.Tensor):
            raise UnsupportedOpError("non-tensor value", None, f"{base} is {type(value).__name__}")
        if value.dtype == torch.int64:  # token ids, index constants: int32 in the graph
            if value.numel() and (int(value.min()) < -2**31 or int(value.max()) >= 2**31):
                raise UnsupportedOpError("int64 values beyond int32", None, f"tensor {base}")
            value = value.to(torch.int32)
            data = None if data is None else value.numpy()
        if value.dtype not in _DTYPES:
            raise UnsupportedOpError(f"dtype {value.dtype}", None, f"tensor {base}")
        shape = [int(d) for d in value.shape]
        if any(d < 1 for d in shape) or len(shape) > 6:
            raise UnsupportedOpError(f"shape {shape}", None, f"tensor {base}: dims must be >= 1, rank <= 6")
        name = self._unique(base, self._tensor_names)
        return self.builder.add_tensor(name, shape, _DTYPES[value.dtype], quant, data)

    def _const_name(self, node: Node) -> str:
        """``<op>.weight`` / ``<op>.bias`` for parameters of conv/linear, else the attr name."""
        user = node
        while len(user.users) == 1:
            nxt = next(iter(user.users))
            if nxt.op == "call_function" and nxt.target in DEQUANTIZE_OPS:
                user = nxt
                continue
            if nxt in self.op_name and nxt.target in _WEIGHTED_OPS:
                pos = next((i for i, arg in enumerate(nxt.args) if arg is user), -1)
                if pos in (1, 2):
                    return f"{self.op_name[nxt]}.{'weight' if pos == 1 else 'bias'}"
            break
        return str(node.target)

    # ---- tensors -----------------------------------------------------------------------
    def tensor(self, node: Any) -> int:
        """Index of the tensor a node stands for; constants are created on first use."""
        if not isinstance(node, Node):
            raise UnsupportedOpError(f"non-tensor operand {node!r}", None)
        if node in self._deferred:
            self._deferred.discard(node)
            self._lower_qdq(node)
        if node in self.tensor_of:
            return self.tensor_of[node]
        if node.op != "get_attr":
            raise AssertionError(f"{node.name} used before it was lowered")
        value = self.values[node].detach().contiguous()
        idx = self._new_tensor(self._const_name(node), value, data=value.numpy())
        self.tensor_of[node] = idx
        return idx

    def shape(self, node: Node) -> list[int]:
        return [int(d) for d in self.values[node].shape]

    # ---- driver ------------------------------------------------------------------------
    def run(self) -> GraphBuilder:
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                idx = self._new_tensor(node.name, self.values[node])
                self.tensor_of[node] = idx
                self.builder.inputs.append(idx)
            elif node.op == "get_attr":
                continue  # created on first use
            elif node.op == "call_module" and node.target == "_guards_fn":
                continue  # torch.export's input-shape guard: not part of the computation
            elif node.op == "call_function":
                self._lower(node)
            elif node.op == "output":
                outs = node.args[0]
                outs = outs if isinstance(outs, (tuple, list)) else [outs]
                self.builder.outputs = [self.tensor(o) for o in outs]
                for i, t in enumerate(self.builder.outputs):
                    if t in self.builder.outputs[:i]:
                        j = self.builder.outputs.index(t)
                        raise ValueError(
                            f"the model's outputs {j} and {i} are the same tensor ({outs[i]}): "
                            "return it once (a program writes each output to a buffer of its "
                            "own)")
            else:
                raise UnsupportedOpError(f"{node.op}:{node.target}", source_of(node))
        return self.builder

    def _lower(self, node: Node) -> None:
        if node.target in NOOP_OPS:
            self.tensor_of[node] = self.tensor(node.args[0])
            return
        if node.target in DEQUANTIZE_OPS and node.args[0].op == "get_attr":
            self._deferred.add(node)  # keeps each weight's dequantize next to its user
            return
        if node.target in QUANTIZE_OPS or node.target in DEQUANTIZE_OPS:
            self._lower_qdq(node)
            return
        if node.target in SPLIT_OPS:
            return  # each output read (getitem) becomes a slice of the input
        producer = node.args[0] if node.args else None
        if node.target is operator.getitem and isinstance(producer, Node) and producer.target in SPLIT_OPS:
            op_type, inputs, attrs = split_slice(self, producer, int(node.args[1]))
            keep_dim = producer.target == aten.unbind.int
        else:
            handler = HANDLERS.get(node.target) if node.target is not operator.getitem else None
            if handler is None:
                raise UnsupportedOpError(target_name(node), source_of(node))
            op_type, inputs, attrs = handler(self, node, _bind(node))
            keep_dim = node.target == aten.select.int
            if node.meta.get(KEEP_FLOAT_KEY):
                if op_type not in KEEP_FLOAT_AS and op_type not in FLOAT_FALLBACK_OPS:
                    raise UnsupportedOpError(
                        target_name(node), source_of(node),
                        f"keep_float: {op_type} has no float32 kernel yet (float ops: "
                        f"{', '.join(sorted(KEEP_FLOAT_AS))} and the float fallback functions)",
                        module_path_of(node))
                if op_type in KEEP_FLOAT_AS:
                    op_type, fn = KEEP_FLOAT_AS[op_type]
                    attrs = {"fn": fn}
                self.float_ops.append((node, f"{attrs.get('fn', op_type)} kept in float32 (keep_float)"))
            elif op_type in FLOAT_FALLBACK_OPS and not (_unary_float_fn(node) and in_table_chain(node)):
                self.float_ops.append((node, f"{attrs.get('fn', op_type)} has no int8 lowering"))
        in_idx = [self.tensor(i) for i in inputs]
        name = self.op_name[node]
        value = self.values[node]
        if op_type == "argmax":  # torch's int64 indices; the graph's are int32
            value = value.to(torch.int32)
        if keep_dim:  # select / unbind: the one-element slice, then a reshape without the dim
            kept = value.reshape([e - b for b, e in zip(attrs["begin"], attrs["end"])])
            sliced = self._new_tensor(f"{name}.slice", kept)
            self.builder.add_op(op_type, self._unique(f"{name}.slice", self._op_names), in_idx,
                                [sliced], attrs, source_of(node))
            sliced = self._requantized(node, sliced, kept)
            op_type, in_idx, attrs = "reshape", [sliced], {"shape": [int(d) for d in value.shape]}
        out = self._new_tensor(name, value)
        self.tensor_of[node] = out
        self.builder.add_op(op_type, name, in_idx, [out], attrs, source_of(node))

    def _requantized(self, node: Node, t: int, value: torch.Tensor) -> int:
        """In a QDQ graph, tensor ``t`` (an extra float op's output, computed for ``node``)
        through a quantize / dequantize pair with the parameters of the quantize reading
        ``node``: every float op then sits between dequantize and quantize, as PT2E
        writes them. Lossless: ``t`` holds values of that grid already."""
        users = [u for u in node.users if u.target in QUANTIZE_OPS]
        if self.builder.kind != "qdq" or len(users) != 1:
            return t
        q = self._qparams(users[0], _bind(users[0]), False)
        name = self.builder.tensors[t].name
        qt = self._new_tensor(f"{name}.q", value.to(torch.int8), quant=q)
        self.builder.add_op("quantize", self._unique(f"{name}.q", self._op_names), [t], [qt], {},
                            source_of(node))
        dq = self._new_tensor(f"{name}.q.dq", value)
        self.builder.add_op("dequantize", self._unique(f"{name}.q.dq", self._op_names), [qt], [dq],
                            {}, source_of(node))
        return dq

    def _qparams(self, node: Node, a: dict[str, Any], per_channel: bool) -> Quant:
        def val(v: Any) -> Any:
            return self.values[v] if isinstance(v, Node) else v

        qmin, qmax = int(a["quant_min"]), int(a["quant_max"])
        if per_channel:
            scale, zp = val(a["scales"]), val(a["zero_points"])
            zps = [0] * scale.numel() if zp is None else [int(z) for z in zp.tolist()]
            axis = int(a["axis"]) % self.values[node.args[0]].dim()
            # tolist() of a float32 tensor gives the exact float32 values as Python floats.
            return Quant(scale.tolist(), zps, axis, qmin, qmax)
        scale, zp = val(a["scale"]), val(a["zero_point"])
        scale = scale.item() if isinstance(scale, torch.Tensor) else float(scale)
        zp = zp.item() if isinstance(zp, torch.Tensor) else int(zp)
        return Quant([scale], [int(zp)], None, qmin, qmax)

    def _lower_qdq(self, node: Node) -> None:
        a = _bind(node)
        per_channel = node.target in (qd.quantize_per_channel.default, qd.dequantize_per_channel.default)
        q = self._qparams(node, a, per_channel)
        x = self.tensor(a["input"])
        src = self.builder.tensors[x]
        if node.target in QUANTIZE_OPS:
            op_type = "quantize"
            out = self._new_tensor(f"{src.name}.q", self.values[node], quant=q)
        else:
            op_type = "dequantize"
            if src.quant is None:
                src.quant = q  # a constant: its parameters are the dequantize node's
            elif src.quant != q:
                raise UnsupportedOpError(
                    target_name(node), source_of(node),
                    f"dequantize parameters {q} differ from those of its input {src.quant}",
                )
            out = self._new_tensor(f"{src.name}.dq", self.values[node])
        self.tensor_of[node] = out
        name = self._unique(self.builder.tensors[out].name, self._op_names)
        self.builder.add_op(op_type, name, [x], [out], {}, source_of(node))
