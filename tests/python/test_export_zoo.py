"""Every zoo model, exported float and QDQ, read back with load_graph.

Oracles: the file's own contract (docs/graph-format.md, checked here independently of the
package's validator), PyTorch's PT2E converted module, and tinyforge.interp (the file run from
its description) which must reproduce the reference.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
import torch
from zoo_support import SEED, batches, zoo_export, zoo_model
from tinyforge.interp import run_graph

import tinyforge
from tinyforge.graph_file import parse

EXPECTED = {  # (conv2d ops, depthwise conv2d ops, linear ops)
    "ds_cnn": (9, 4, 1),
    "mobilenet_v1_025": (27, 13, 1),
    "resnet8": (9, 0, 1),
    "fc_autoencoder": (0, 0, 10),
}


def _producers(doc: dict) -> dict[int, dict]:
    return {op["outputs"][0]: op for op in doc["ops"]}


def check_structure(doc: dict, consts: dict[int, np.ndarray], blob_len: int) -> None:
    tensors = doc["tensors"]
    n = len(tensors)
    assert len({t["name"] for t in tensors}) == n
    itemsize = {"float32": 4, "int8": 1, "int32": 4}
    for i, t in enumerate(tensors):
        assert all(d >= 1 for d in t["shape"]) and len(t["shape"]) <= 6
        if "data" in t:
            numel = math.prod(t["shape"])
            assert t["data"]["size"] == numel * itemsize[t["dtype"]]
            assert t["data"]["offset"] % 16 == 0
            assert t["data"]["offset"] + t["data"]["size"] <= blob_len
            assert consts[i].shape == tuple(t["shape"]) and consts[i].dtype == np.dtype(t["dtype"])
        else:
            assert i not in consts
        if t["dtype"] == "float32":
            assert "quant" not in t
        else:
            assert doc["kind"] == "qdq" and "quant" in t
    available = set(doc["inputs"]) | set(consts)
    assert not set(doc["inputs"]) & set(consts)
    for op in doc["ops"]:
        for i in op["inputs"] + op["outputs"]:
            assert 0 <= i < n
        assert all(i in available for i in op["inputs"]), f"{op['name']} runs before its inputs"
        for o in op["outputs"]:
            assert o not in available, f"tensor {o} produced twice"
            available.add(o)
    assert all(0 <= i < n and i in available for i in doc["outputs"])
    assert len({op["name"] for op in doc["ops"]}) == len(doc["ops"])


@pytest.mark.parametrize("kind", ["float", "qdq"])
def test_zoo_file_structure(zoo_name: str, kind: str, tmp_path) -> None:
    res = zoo_export(zoo_name, kind)
    path = tmp_path / f"{zoo_name}.tfg"
    path.write_bytes(res.data)
    doc, consts = tinyforge.load_graph(path)
    assert doc == res.graph and doc["kind"] == kind == res.kind and doc["name"] == zoo_name

    magic, version, json_len, blob_len = struct.unpack_from("<8sIIQ", res.data)
    assert magic == b"TFGRAPH\0" and version == 1
    blob_off = (24 + json_len + 63) // 64 * 64
    assert len(res.data) == blob_off + blob_len
    check_structure(doc, consts, blob_len)

    types = [op["type"] for op in doc["ops"]]
    convs = [op for op in doc["ops"] if op["type"] == "conv2d"]
    depthwise = [op for op in convs if op["attrs"]["groups"] > 1]
    assert (len(convs), len(depthwise), types.count("linear")) == EXPECTED[zoo_name]
    if kind == "float":
        assert "quantize" not in types and "dequantize" not in types
    # every source points into the zoo's file
    assert all(op.get("source", "models.py:1").startswith("models.py:") for op in doc["ops"]
               if op["type"] not in ("quantize", "dequantize"))


def test_zoo_qdq_quant_params(zoo_name: str) -> None:
    doc = zoo_export(zoo_name, "qdq").graph
    tensors, producers = doc["tensors"], _producers(doc)

    def dq_source(idx: int) -> dict:
        op = producers[idx]
        assert op["type"] == "dequantize"
        return tensors[op["inputs"][0]]

    weighted = [op for op in doc["ops"] if op["type"] in ("conv2d", "linear")]
    assert weighted
    for op in weighted:
        x, w = dq_source(op["inputs"][0]), dq_source(op["inputs"][1])
        b = dq_source(op["inputs"][2])
        assert "data" in w and "data" in b and "data" not in x
        wq, bq, xq = w["quant"], b["quant"], x["quant"]
        assert w["dtype"] == "int8" and wq["axis"] == 0 and len(wq["scale"]) == w["shape"][0] > 1
        assert (wq["qmin"], wq["qmax"]) == (-127, 127) and set(wq["zero_point"]) == {0}
        assert xq["axis"] is None and (xq["qmin"], xq["qmax"]) == (-128, 127)
        assert b["dtype"] == "int32" and bq["axis"] == 0 and set(bq["zero_point"]) == {0}
        assert (bq["qmin"], bq["qmax"]) == (-(2**31), 2**31 - 1)
        expect = np.float32(xq["scale"][0]) * np.asarray(wq["scale"], dtype=np.float32)
        assert [float(s) for s in expect] == bq["scale"], op["name"]
        # no quantize/dequantize between a weighted op and its fused ReLU
        users = [u for u in doc["ops"] if op["outputs"][0] in u["inputs"]]
        assert len(users) == 1 and users[0]["type"] in ("relu", "quantize"), op["name"]


def test_zoo_scales_are_pytorch_values(zoo_name: str) -> None:
    """Scales in the file are exactly the doubles/float32s PyTorch's converted graph uses."""
    res = zoo_export(zoo_name, "qdq")
    gm = res.reference
    qd = torch.ops.quantized_decomposed
    graph_scales = {
        (n.args[1], n.args[2]) for n in gm.graph.nodes
        if n.op == "call_function" and n.target == qd.quantize_per_tensor.default
    }
    file_scales = {
        (t["quant"]["scale"][0], t["quant"]["zero_point"][0]) for t in res.graph["tensors"]
        if t["dtype"] == "int8" and t["quant"]["axis"] is None
    }
    assert graph_scales == file_scales
    channel_scales = sorted(
        tuple(getattr(gm, n.args[1].target).tolist()) for n in gm.graph.nodes
        if n.op == "call_function" and n.target == qd.dequantize_per_channel.default
    )
    file_channel = sorted(
        tuple(t["quant"]["scale"]) for t in res.graph["tensors"]
        if "quant" in t and t["quant"]["axis"] is not None
    )
    assert channel_scales == file_channel


@pytest.mark.parametrize("kind", ["float", "qdq"])
def test_zoo_file_reproduces_reference(zoo_name: str, kind: str) -> None:
    """Interpreting the file (per the format doc) gives what the reference module computes."""
    res = zoo_export(zoo_name, kind)
    doc, consts = parse(res.data)
    x = batches(tuple(doc["tensors"][doc["inputs"][0]]["shape"]), 1, SEED + 7)[0]
    with torch.no_grad():
        want = res.reference(x)
    (got,), _ = run_graph(doc, consts, [x.numpy()])
    np.testing.assert_array_equal(got, want.numpy())


def test_zoo_reference_is_the_converted_pt2e_model(zoo_name: str) -> None:
    """.reference is PyTorch's converted model: same outputs as running PT2E by hand, and
    quantized (not the float model), yet close to it."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from tinyforge.fold import fold_batchnorm, remove_noops

    res = zoo_export(zoo_name, "qdq")
    model, shape = zoo_model(zoo_name)
    gm = torch.export.export(model, (batches(shape, 1, SEED + 1)[0],)).module()
    remove_noops(gm)
    fold_batchnorm(gm)
    prepared = prepare_pt2e(gm, tinyforge.TinyforgeQuantizer())
    for b in batches(shape, 3, SEED + 2):
        prepared(b)
    converted = convert_pt2e(prepared, fold_quantize=True)

    x = batches(shape, 1, SEED + 9)[0]
    with torch.no_grad():
        ref, manual, flt = res.reference(x), converted(x), model(x)
    torch.testing.assert_close(ref, manual, rtol=0, atol=0)
    assert not torch.equal(ref, flt)
    assert (ref - flt).abs().max() <= 0.1 * flt.abs().max() + 1e-3


def test_zoo_softmax_output_has_fixed_params(zoo_name: str) -> None:
    doc = zoo_export(zoo_name, "qdq", softmax=True).graph
    producers = _producers(doc)
    softmax = [op for op in doc["ops"] if op["type"] == "softmax"]
    assert len(softmax) == 1 and softmax[0]["attrs"]["axis"] == 1
    (q,) = [op for op in doc["ops"] if softmax[0]["outputs"][0] in op["inputs"]]
    assert q["type"] == "quantize"
    quant = doc["tensors"][q["outputs"][0]]["quant"]
    assert quant["scale"] == [1.0 / 256.0] and quant["zero_point"] == [-128]
    # and the graph output is the dequantized softmax
    assert producers[doc["outputs"][0]]["inputs"] == q["outputs"]
