"""The container and the reader: every malformed file is rejected with a field-naming error."""

from __future__ import annotations

import copy
import json
import re
import struct
from pathlib import Path

import pytest
import torch
from torch import nn

import tinyforge
from tinyforge import graph_file
from tinyforge.graph_file import GraphFormatError, parse, serialize


@pytest.fixture(scope="module")
def small() -> tinyforge.ExportResult:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 2)).eval()
    x = torch.randn(1, 1, 4, 4)
    return tinyforge.export(model, x, [torch.randn(2, 1, 4, 4)], name="small")


def _pack(doc: dict, blob: bytes, version: int = 1, magic: bytes = b"TFGRAPH\0") -> bytes:
    """A file image without the writer's validation (to build broken files)."""
    js = json.dumps(doc).encode()
    off = (24 + len(js) + 63) // 64 * 64
    head = struct.pack("<8sIIQ", magic, version, len(js), len(blob))
    return head + js + b"\0" * (off - 24 - len(js)) + blob


def _blob(res: tinyforge.ExportResult) -> bytes:
    blob_len = struct.unpack_from("<8sIIQ", res.data)[3]
    return res.data[len(res.data) - blob_len:]


def test_roundtrip_and_layout(small: tinyforge.ExportResult, tmp_path) -> None:
    path = tmp_path / "s.tfg"
    res = small
    path.write_bytes(res.data)
    doc, consts = tinyforge.load_graph(path)
    assert doc == res.graph
    _, _, json_len, blob_len = struct.unpack_from("<8sIIQ", res.data)
    assert (len(res.data) - blob_len) % 64 == 0 and len(res.data) - blob_len >= 24 + json_len
    for i, arr in consts.items():
        assert doc["tensors"][i]["data"]["offset"] % 16 == 0
        assert arr.dtype.name == doc["tensors"][i]["dtype"]
    # the JSON alone is readable from the top of the file
    assert res.data[24:24 + json_len].decode().startswith('{\n"format": "tinyforge-graph"')
    assert doc["producer"] == f"tinyforge 0.1.0, torch {torch.__version__}"


def test_export_writes_path(tmp_path) -> None:
    path = tmp_path / "lin.tfg"
    res = tinyforge.export(nn.Linear(3, 2), torch.randn(1, 3), path=path)
    assert res.path == path and path.read_bytes() == res.data and res.graph["name"] == "Linear"


def test_scales_roundtrip_exactly(small: tinyforge.ExportResult) -> None:
    doc, _ = parse(small.data)
    for t_file, t_mem in zip(doc["tensors"], small.graph["tensors"]):
        if "quant" in t_file:
            assert all(a == b and type(a) is float for a, b in
                       zip(t_file["quant"]["scale"], t_mem["quant"]["scale"]))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d[:-1], "truncated"),
        (lambda d: d + b"\0", "corrupt"),
        (lambda d: b"TFGRAPX\0" + d[8:], "bad magic"),
        (lambda d: d[:8] + struct.pack("<I", 2) + d[12:], "container version 2"),
        (lambda d: d[:10], "shorter than the header"),
    ],
)
def test_header_errors(small: tinyforge.ExportResult, mutate, message: str) -> None:
    with pytest.raises(GraphFormatError, match=message) as e:
        parse(mutate(small.data), "m.tfg")
    assert str(e.value).startswith("m.tfg: header: ")


def _broken(small: tinyforge.ExportResult, edit) -> bytes:
    doc = copy.deepcopy(small.graph)
    edit(doc)
    return _pack(doc, _blob(small))


def _w(doc: dict) -> dict:
    """The first int8 weight constant."""
    return next(t for t in doc["tensors"] if t["dtype"] == "int8" and "data" in t)


def _first(doc: dict, type_: str) -> dict:
    return next(op for op in doc["ops"] if op["type"] == type_)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(version=2), "version: 2"),
        (lambda d: d.pop("ops"), "ops: missing"),
        (lambda d: _first(d, "conv2d")["inputs"].__setitem__(0, 999), "inputs: 999 out of range"),
        (lambda d: d["ops"].reverse(), "not available yet"),
        (lambda d: _first(d, "conv2d").update(type="no_such_op"), "unknown op type 'no_such_op'"),
        (lambda d: _first(d, "conv2d")["attrs"].pop("groups"), "attrs.groups: missing"),
        (lambda d: _w(d)["data"].update(size=1), "data.size"),
        (lambda d: _w(d)["quant"]["scale"].__setitem__(0, 0.0), "not finite > 0"),
        (lambda d: _w(d)["quant"]["zero_point"].__setitem__(0, 500), "outside"),
        (lambda d: _w(d)["quant"]["scale"].pop(), "scale"),
        (lambda d: _w(d)["quant"].update(qmin=-129), "not an ordered int8 range"),
        (lambda d: d["tensors"][1].update(name=d["tensors"][0]["name"]), "not unique"),
        (lambda d: d["tensors"][1].update(shape=[0]), "dim < 1"),
        (lambda d: d["tensors"][0].update(quant=_w(d)["quant"]), "forbidden on float32"),
        (lambda d: d.update(kind="float"), "integer tensor in a float graph"),
        (lambda d: d["ops"][0]["outputs"].__setitem__(0, 0), "produced twice or is an input/constant"),
    ],
)
def test_document_errors(small: tinyforge.ExportResult, edit, message: str) -> None:
    data = _broken(small, edit)
    with pytest.raises(GraphFormatError, match=message):
        parse(data, "m.tfg")


def test_writer_refuses_invalid_documents(small: tinyforge.ExportResult) -> None:
    doc = copy.deepcopy(small.graph)
    doc["ops"].reverse()
    with pytest.raises(GraphFormatError):
        serialize(doc, _blob(small))


# ---- OP_TYPES is the C++ schema ------------------------------------------------------------
# The graph-file op schema is written twice: compiler/ir/op_types.def (+ the attribute
# structs' Fields() in compiler/ir/attrs.h) for the C++ reader, OP_TYPES here for the writer
# and validator (docs/decisions.md says why). This test fails when they disagree.
_CPP_IR = Path(__file__).resolve().parents[2] / "compiler" / "ir"


def _cpp_attr_fields() -> dict[str, tuple[str, ...]]:
    """AttrsStruct -> its field names, in Fields() order, from attrs.h."""
    text = (_CPP_IR / "attrs.h").read_text()
    fields: dict[str, tuple[str, ...]] = {}
    for m in re.finditer(r"^struct (\w+Attrs) \{(.*?)^\};", text, re.S | re.M):
        fields[m.group(1)] = tuple(re.findall(r'\bf\("(\w+)"', m.group(2)))
    return fields


def _cpp_graph_ops() -> dict[str, tuple[int, int, int, tuple[str, ...]]]:
    """The PyTorch-semantics block of op_types.def (before the lowered ops), as OP_TYPES."""
    text = (_CPP_IR / "op_types.def").read_text().split("// ---- Lowered int8 ops")[0]
    fields = _cpp_attr_fields()
    ops = {}
    for m in re.finditer(r'^TF_OP\(\w+, "(\w+)", (\w+), (-?\d+), (-?\d+), (\d+)\)', text, re.M):
        name, attrs, lo, hi, n_out = m.groups()
        ops[name] = (int(lo), 1 << 30 if hi == "-1" else int(hi), int(n_out), fields[attrs])
    return ops


def test_op_types_match_the_cpp_schema():
    cpp = _cpp_graph_ops()
    assert len(cpp) >= 15 and cpp["conv2d"][3] == ("stride", "padding", "dilation", "groups")
    assert graph_file.OP_TYPES == cpp


def test_float_fns_match_the_kernels_list():
    """aten_ops.FLOAT_FNS (names, arity, order) mirrors kernels/f32/f32_fns.def, the one list
    of the float fallback's functions (the function code is the position)."""
    from tinyforge import aten_ops, interp  # noqa: PLC0415

    text = (_CPP_IR.parents[1] / "kernels" / "f32" / "f32_fns.def").read_text()
    cpp = [(n, int(a)) for n, a in re.findall(r"^TF_F32_FN\(\w+, (\w+), (\d)\)", text, re.M)]
    assert len(cpp) >= 20
    assert [(n, a) for n, (a, _) in aten_ops.FLOAT_FNS.items()] == cpp
    assert set(interp._FLOAT_UNARY) | set(interp._FLOAT_BINARY) == {n for n, _ in cpp}
