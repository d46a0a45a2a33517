"""A tinyforge model (model.py: `inspect --json` of a graph file, or a program's report.json)
as Model Explorer graphs and node data (docs/boards.md, "Model Explorer").

The graph: one node per op (id: the op's name, unique in a graph; label: its type), a
`GraphInputs` node whose outputs are the model's inputs and a `GraphOutputs` node fed by its
outputs (Model Explorer's convention), one edge per (activation tensor, consumer input).
Constant operands (weights, bias, tables) are not nodes: they are listed in the op's
attributes.
"""
from __future__ import annotations

from model_explorer import graph_builder as gb
from model_explorer import node_data_builder as ndb

from .model import is_program

INPUTS, OUTPUTS = "GraphInputs", "GraphOutputs"
# Node data (overlays) colours: light to dark, low to high.
GRADIENT = [ndb.GradientItem(stop=0, bgColor="#e8f0fe"),
            ndb.GradientItem(stop=1, bgColor="#d93025")]


def _number(x: float) -> str:
    return f"{x:.6g}"


def _range(values: list, fmt=str) -> str:
    lo, hi = min(values), max(values)
    return fmt(lo) if lo == hi else f"{fmt(lo)}..{fmt(hi)}"


def quant_text(q: dict | None) -> str:
    """Quantization parameters in one line: per tensor `scale 0.0235 zero_point -128`, per
    channel `axis 3: 64 scales 0.0012..0.0051, zero_point 0` (ranges when they differ)."""
    if not q:
        return "none"
    scales, zps = q["scale"], q["zero_point"]
    if q.get("axis") is None:
        text = f"scale {_number(scales[0])} zero_point {zps[0]}"
    else:
        text = f"axis {q['axis']}: {len(scales)} scales {_range(scales, _number)}, " \
               f"zero_point {_range(zps)}"
    return text + f" range [{q['qmin']}, {q['qmax']}]"


def tensor_text(t: dict) -> str:
    """`int8[1,49,10,1] q(scale .. zero_point ..)`: a tensor in one line."""
    shape = ",".join(map(str, t["shape"]))
    return f"{t['dtype']}[{shape}] {t['name']}" + \
        (f" ({quant_text(t['quant'])})" if t.get("quant") else "")


def _metadata(slot: int, t: dict) -> gb.MetadataItem:
    """A tensor as Model Explorer shows it on an op's input or output: `tensor_name` and
    `shape` are the keys its UI knows (search, shapes on edges)."""
    attrs = [("tensor_name", t["name"]), ("shape", "x".join(map(str, t["shape"])) or "scalar"),
             ("dtype", t["dtype"]), ("bytes", str(t["bytes"])),
             ("quantization", quant_text(t.get("quant")))]
    return gb.MetadataItem(id=str(slot), attrs=[gb.KeyValue(k, v) for k, v in attrs])


# Op fields shown as attributes, in this order, when present (report.json's and inspect's).
OP_ATTRS = ("index", "type", "kernel", "macs", "params", "activation_bytes",
            "constant_bytes", "scratch_bytes", "line_buffer_bytes", "in_place", "source")


def to_graph(model: dict) -> gb.Graph:
    """The Model Explorer graph of a model (`load_model`). A program's elided ops (a reshape
    runs no kernel: its output is its input's bytes) are no nodes: their consumers' edges
    come from what produced their input, named in an attribute `input N via`."""
    producer: dict[str, tuple[str, str]] = {}  # tensor name -> (node id, output id)
    via: dict[str, tuple[str, dict]] = {}  # elided op's output -> (its input's name, the op)
    for e in model.get("elided_ops", []):
        src = next((t["name"] for t in e["inputs"] if not t["constant"]), None)
        for t in e["outputs"]:
            if src is not None:
                via[t["name"]] = (src, e)
    inputs = gb.GraphNode(id=INPUTS, label=INPUTS)
    for slot, t in enumerate(model["inputs"]):
        inputs.outputsMetadata.append(_metadata(slot, t))
        producer[t["name"]] = (INPUTS, str(slot))
    nodes = [inputs]
    for op in model["ops"]:
        node = gb.GraphNode(id=op["name"], label=op["type"])
        node.attrs = [gb.KeyValue("name", op["name"])] + \
            [gb.KeyValue(k, str(op[k])) for k in OP_ATTRS if op.get(k) not in (None, "")]
        for slot, t in enumerate(op["inputs"]):
            node.inputsMetadata.append(_metadata(slot, t))
            name, hops = t["name"], []
            while name not in producer and name in via and len(hops) < len(via):
                name, e = via[name]
                hops.append(f"{e['name']} ({e['type']}, no kernel)")
            if hops:
                node.attrs.append(gb.KeyValue(f"input {slot} via", ", ".join(hops)))
            if name in producer:
                src, out = producer[name]
                node.incomingEdges.append(gb.IncomingEdge(sourceNodeId=src, sourceNodeOutputId=out,
                                                          targetNodeInputId=str(slot)))
            else:  # a constant (or, in a malformed graph, a tensor nothing produces)
                kind = "constant" if t.get("constant") else "unproduced"
                node.attrs.append(gb.KeyValue(f"input {slot} ({kind})", tensor_text(t)))
        for slot, t in enumerate(op["outputs"]):
            node.outputsMetadata.append(_metadata(slot, t))
            producer[t["name"]] = (op["name"], str(slot))
        nodes.append(node)
    outputs = gb.GraphNode(id=OUTPUTS, label=OUTPUTS)
    for slot, t in enumerate(model["outputs"]):
        outputs.inputsMetadata.append(_metadata(slot, t))
        if t["name"] in producer:
            src, out = producer[t["name"]]
            outputs.incomingEdges.append(gb.IncomingEdge(sourceNodeId=src, sourceNodeOutputId=out,
                                                         targetNodeInputId=str(slot)))
    nodes.append(outputs)
    name = model.get("model") if is_program(model) else model.get("name")
    if is_program(model):
        name = f"{name or 'model'} on {model['target']['board']}"
    return gb.Graph(id=name or "model", nodes=nodes)


def node_data(model: dict, profile: dict | None = None) -> list[ndb.GraphNodeData]:
    """The overlays of `model`, one value per op node: MACs; for a program the bytes each op
    reads and writes (report.json activation_bytes + constant_bytes); with a profile (of
    that program, model.read_profile) the instructions each op executed. Model Explorer
    colours the nodes by the last one."""
    def data(name: str, values: dict[str, float]) -> ndb.GraphNodeData:
        return ndb.GraphNodeData(name=name, gradient=GRADIENT, results={
            k: ndb.NodeDataResult(value=v) for k, v in values.items()})

    ops = model["ops"]
    out = [data("MACs", {o["name"]: o["macs"] for o in ops})]
    if is_program(model):
        out.append(data("bytes", {o["name"]: o["activation_bytes"] + o["constant_bytes"]
                                  for o in ops}))
    if profile is not None:
        out.append(data("instructions",
                        {o["name"]: p["insns"] for o, p in zip(ops, profile["ops"])}))
    return out


def graphs(model: dict) -> dict:
    """What an adapter's convert returns."""
    return {"graphs": [to_graph(model)]}
