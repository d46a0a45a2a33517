"""The Model Explorer adapter's conversion (python/tinyforge/explorer/graph.py), without a
server or browser: a node per op, an edge per (activation tensor, consumer input), constants
as attributes, the model's inputs and outputs as Model Explorer's GraphInputs / GraphOutputs
nodes, and the overlays' values from report.json and the profile. The models are written here
in the JSON the readers print (inspect --json, report.json) so each case is known exactly;
tests/e2e/test_explorer.py converts real ones."""
from __future__ import annotations

import copy
import json

import pytest

from tinyforge.explorer import model as tfm

tfg = pytest.importorskip("tinyforge.explorer.graph",
                          reason="Model Explorer not installed (scripts/install-deps.sh)")


def _t(name, shape, dtype="int8", constant=False, quant=True):
    t = {"index": 0, "name": name, "dtype": dtype, "shape": shape,
         "bytes": 4 * max(1, len(shape)), "constant": constant}
    if quant:
        t["quant"] = {"scale": [0.5], "zero_point": [-3], "axis": None, "qmin": -128,
                      "qmax": 127}
    return t


def _graph_model() -> dict:
    """`inspect --json` shape: x -> conv(w, b) -> c; add(c, c) -> s (one tensor read twice);
    split-like op with two outputs; outputs s and y1."""
    x, c, s = _t("x", [1, 8, 8, 3]), _t("c", [1, 8, 8, 4]), _t("s", [1, 8, 8, 4])
    w = _t("w", [4, 1, 1, 3], constant=True)
    w["quant"] = {"scale": [0.1, 0.2, 0.3, 0.4], "zero_point": [0, 0, 0, 0], "axis": 0,
                  "qmin": -127, "qmax": 127}
    b = _t("b", [4], dtype="int32", constant=True, quant=False)
    y0, y1 = _t("y0", [1, 4, 8, 4]), _t("y1", [1, 4, 8, 4])
    ops = [
        {"index": 0, "name": "conv", "type": "qconv2d", "macs": 768, "params": 16,
         "source": "m.py:3", "inputs": [x, w, b], "outputs": [c]},
        {"index": 1, "name": "add", "type": "qadd", "macs": 0, "inputs": [c, c], "outputs": [s]},
        {"index": 2, "name": "split", "type": "qsplit", "macs": 0, "inputs": [s],
         "outputs": [y0, y1]},
    ]
    return {"name": "tiny", "kind": "int8", "inputs": [x], "outputs": [s, y1], "ops": ops}


def _program(model: dict) -> dict:
    """report.json shape of the same model: kernels, bytes, the target."""
    rep = copy.deepcopy(model)
    rep.pop("name")
    rep.update({"schema": "tinyforge.report/1", "model": "tiny", "elided_ops": [],
                "target": {"board": "an547", "cpu": "cortex-m55", "isa": "armv8.1-m"}})
    for k, o in enumerate(rep["ops"]):
        o.update({"kernel": f"k{k}__mve", "activation_bytes": 100 + k, "constant_bytes": 10 * k,
                  "scratch_bytes": 0})
    return rep


def _edges(graph) -> list[tuple]:
    return sorted((e.sourceNodeId, e.sourceNodeOutputId, n.id, e.targetNodeInputId)
                  for n in graph.nodes for e in n.incomingEdges)


def _attrs(node) -> dict:
    return {kv.key: kv.value for kv in node.attrs}


def test_a_node_per_op_an_edge_per_tensor_use():
    model = _graph_model()
    g = tfg.to_graph(model)
    assert g.id == "tiny"
    assert [n.id for n in g.nodes] == [tfg.INPUTS, "conv", "add", "split", tfg.OUTPUTS]
    assert [n.label for n in g.nodes[1:-1]] == ["qconv2d", "qadd", "qsplit"]
    # x feeds conv; c feeds add twice (inputs 0 and 1); s feeds split and is output 0; the
    # second output of split is output 1. Constants w and b make no edge.
    assert _edges(g) == sorted([
        (tfg.INPUTS, "0", "conv", "0"), ("conv", "0", "add", "0"), ("conv", "0", "add", "1"),
        ("add", "0", "split", "0"), ("add", "0", tfg.OUTPUTS, "0"),
        ("split", "1", tfg.OUTPUTS, "1")])
    conv = _attrs(g.nodes[1])
    assert conv["name"] == "conv" and conv["macs"] == "768" and conv["source"] == "m.py:3"
    assert conv["input 1 (constant)"] == \
        "int8[4,1,1,3] w (axis 0: 4 scales 0.1..0.4, zero_point 0 range [-127, 127])"
    assert conv["input 2 (constant)"] == "int32[4] b"
    out = {kv.key: kv.value for kv in g.nodes[1].outputsMetadata[0].attrs}
    assert out == {"tensor_name": "c", "shape": "1x8x8x4", "dtype": "int8", "bytes": "16",
                   "quantization": "scale 0.5 zero_point -3 range [-128, 127]"}
    assert [m.id for m in g.nodes[3].outputsMetadata] == ["0", "1"]
    assert "kernel" not in conv  # a graph file has no kernels


def test_program_shows_kernels_and_bytes_and_overlays():
    rep = _program(_graph_model())
    g = tfg.to_graph(rep)
    assert g.id == "tiny on an547"
    assert [_attrs(n)["kernel"] for n in g.nodes[1:-1]] == ["k0__mve", "k1__mve", "k2__mve"]
    assert _edges(g) == _edges(tfg.to_graph(_graph_model()))
    prof = {"schema": "tinyforge.profile/1", "board": "an547",
            "ops": [{"name": o["name"], "insns": 1000 + k} for k, o in enumerate(rep["ops"])]}
    data = {d.name: {k: r.value for k, r in d.results.items()} for d in tfg.node_data(rep, prof)}
    assert data == {"instructions": {"conv": 1000, "add": 1001, "split": 1002},
                    "bytes": {"conv": 100, "add": 111, "split": 122},
                    "MACs": {"conv": 768, "add": 0, "split": 0}}
    # The last is the one Model Explorer colours the nodes by.
    assert [d.name for d in tfg.node_data(rep, prof)] == ["MACs", "bytes", "instructions"]
    # A graph file: MACs only.
    assert [d.name for d in tfg.node_data(_graph_model())] == ["MACs"]


def test_profile_must_be_of_the_program(tmp_path):
    rep = _program(_graph_model())
    p = tmp_path / "p.json"
    p.write_text('{"schema": "tinyforge.profile/1", "board": "an547", "model_name": "x", '
                 '"ops": [{"name": "conv", "insns": 1}]}')
    with pytest.raises(tfm.ExploreError, match="profiles 1 ops"):
        tfm.read_profile(p, rep)
    with pytest.raises(tfm.ExploreError, match="compiled for an547"):
        tfm.read_profile(p, _graph_model())
    p.write_text("[1")
    with pytest.raises(tfm.ExploreError, match="not a `tinyforge profile --json` output"):
        tfm.read_profile(p)
    with pytest.raises(tfm.ExploreError, match="no such file"):
        tfm.read_profile(tmp_path / "nope.json")


def test_old_report_json_without_operands_is_refused(tmp_path):
    rep = _program(_graph_model())
    for o in rep["ops"]:
        del o["inputs"]
    (tmp_path / "report.json").write_text(json.dumps(rep))
    with pytest.raises(tfm.ExploreError, match="compile it again"):
        tfm.load_model(tmp_path)


def test_a_program_connects_through_its_elided_ops():
    """A reshape that runs no kernel is in report.json's `elided_ops`, not `ops`: the op
    reading its output gets its edge from what produced the reshape's input."""
    rep = _program(_graph_model())
    s, r = rep["ops"][1]["outputs"][0], _t("r", [1, 4, 64])
    rep["elided_ops"] = [{"name": "view", "type": "reshape", "inputs": [s], "outputs": [r]}]
    rep["ops"][2]["inputs"] = [r]
    g = tfg.to_graph(rep)
    assert ("add", "0", "split", "0") in _edges(g)
    assert _attrs(g.nodes[3])["input 0 via"] == "view (reshape, no kernel)"
    assert {kv.key: kv.value for kv in g.nodes[3].inputsMetadata[0].attrs}["shape"] == "1x4x64"
