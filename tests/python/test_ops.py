"""Op coverage: one small model touching every supported op, float and QDQ.

Checks the attrs the exporter writes (by interpreting the file and comparing with the
reference) and the quantizer's rules: shared parameters on data movement, fixed
parameters on sigmoid/tanh/softmax, no quantize between conv/linear and their activation.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from tinyforge.interp import run_graph
from torch import nn

import tinyforge
from tinyforge.graph_file import parse


class AllOps(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.same = nn.Conv2d(3, 8, 4, padding="same")  # even kernel: asymmetric padding
        self.relu6 = nn.ReLU6()
        self.dilated = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2)
        self.dw = nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16)
        self.drop = nn.Dropout(0.5)
        self.ident = nn.Identity()
        self.fc = nn.Linear(16, 6)
        self.ht = nn.Hardtanh(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.relu6(self.same(x))
        y = torch.clamp(self.dilated(y), -1.0, 1.0)
        a = F.max_pool2d(y, 3, stride=2, padding=1)
        b = F.avg_pool2d(y, 2)
        c = F.avg_pool2d(y, 3, stride=2, padding=1, count_include_pad=False)
        z = torch.cat([a, b], dim=1)
        u = torch.sigmoid(z) + torch.tanh(torch.cat([c, b], dim=1))
        d = torch.relu(self.dw(u))
        m = d.mean(dim=(2, 3), keepdim=True)
        g = F.adaptive_avg_pool2d(d, 1)
        h = self.ident(self.drop((m + g).flatten(1)))
        h = h.view(1, 16).unsqueeze(0).squeeze(0)
        h = self.ht(self.fc(h))
        return torch.softmax(h.reshape(1, -1), dim=-1)


SHAPE = (1, 3, 12, 12)


@pytest.fixture(scope="module")
def exports() -> dict[str, tinyforge.ExportResult]:
    torch.manual_seed(7)
    model = AllOps().eval()
    g = torch.Generator().manual_seed(8)
    example = torch.randn(SHAPE, generator=g)
    calib = torch.randn((4,) + SHAPE[1:], generator=g)  # one batch of 4, split by export
    return {
        "float": tinyforge.export(model, example, name="all_ops"),
        "qdq": tinyforge.export(model, example, [calib], name="all_ops"),
    }


def _ops(doc: dict, type_: str) -> list[dict]:
    return [op for op in doc["ops"] if op["type"] == type_]


def test_float_ops_and_attrs(exports: dict[str, tinyforge.ExportResult]) -> None:
    doc = exports["float"].graph
    types = {op["type"] for op in doc["ops"]}
    assert types == {"conv2d", "linear", "relu", "hardtanh", "sigmoid", "tanh", "max_pool2d",
                     "avg_pool2d", "mean", "reshape", "add", "cat", "softmax"}
    same, dilated, dw = _ops(doc, "conv2d")
    assert same["attrs"]["padding"] == [1, 1, 2, 2]  # PyTorch: odd pixel bottom/right
    assert dilated["attrs"] == {"stride": [1, 1], "padding": [2, 2, 2, 2], "dilation": [2, 2], "groups": 2}
    assert dw["attrs"]["stride"] == [2, 2] and dw["attrs"]["groups"] == 16
    assert dw["name"] == "dw" and same["source"].startswith("test_ops.py:")
    hardtanhs = [op["attrs"] for op in _ops(doc, "hardtanh")]
    assert hardtanhs == [{"min": 0.0, "max": 6.0}, {"min": -1.0, "max": 1.0}, {"min": -0.5, "max": 0.5}]
    means = [op["attrs"] for op in _ops(doc, "mean")]
    assert means == [{"dims": [2, 3], "keepdim": True}] * 2
    avg = [op["attrs"] for op in _ops(doc, "avg_pool2d")]
    assert avg[1]["count_include_pad"] is False and avg[1]["padding"] == [1, 1, 1, 1]
    # flatten, view, unsqueeze, squeeze, reshape; dropout and identity left no trace
    assert len(_ops(doc, "reshape")) == 5
    assert _ops(doc, "softmax")[0]["attrs"] == {"axis": 1}


@pytest.mark.parametrize("kind", ["float", "qdq"])
def test_file_reproduces_reference(exports: dict[str, tinyforge.ExportResult], kind: str) -> None:
    res = exports[kind]
    doc, consts = parse(res.data)
    x = torch.randn(SHAPE, generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        want = res.reference(x).numpy()
    (got,), _ = run_graph(doc, consts, [x.numpy()])
    if kind == "qdq":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_qdq_rules(exports: dict[str, tinyforge.ExportResult]) -> None:
    doc = exports["qdq"].graph
    tensors = doc["tensors"]
    producer = {op["outputs"][0]: op for op in doc["ops"]}
    users: dict[int, list[dict]] = {}
    for op in doc["ops"]:
        for i in op["inputs"]:
            users.setdefault(i, []).append(op)

    def in_quant(op: dict, k: int = 0) -> dict:
        dq = producer[op["inputs"][k]]
        assert dq["type"] == "dequantize"
        return tensors[dq["inputs"][0]]["quant"]

    def out_quant(op: dict) -> dict:
        (q,) = users[op["outputs"][0]]
        assert q["type"] == "quantize", f"{op['name']} output not quantized"
        return tensors[q["outputs"][0]]["quant"]

    for op in doc["ops"]:
        t = op["type"]
        from_adaptive_pool = t == "mean" and op["name"].startswith("adaptive")
        if t in ("max_pool2d", "avg_pool2d", "reshape", "cat") or from_adaptive_pool:
            assert out_quant(op) == in_quant(op), op["name"]
        if t == "cat":
            assert all(in_quant(op, k) == in_quant(op) for k in range(len(op["inputs"])))
        if t == "sigmoid":
            assert (out_quant(op)["scale"], out_quant(op)["zero_point"]) == ([1 / 256], [-128])
        if t == "tanh":
            assert (out_quant(op)["scale"], out_quant(op)["zero_point"]) == ([1 / 128], [0])
        if t in ("conv2d", "linear"):
            (act,) = users[op["outputs"][0]]
            assert act["type"] in ("relu", "hardtanh"), f"{op['name']} -> {act['type']}"
        if t not in ("quantize", "dequantize") and op["outputs"][0] not in doc["outputs"]:
            assert all(tensors[i]["dtype"] == "float32" for i in op["inputs"] + op["outputs"])
    for t in tensors:
        if t["dtype"] == "int8" and t["quant"]["axis"] is None:
            assert (t["quant"]["qmin"], t["quant"]["qmax"]) == (-128, 127)


def test_calibration_batches_are_split() -> None:
    """A batch of N calibration samples observes the same ranges as N single samples."""
    torch.manual_seed(3)
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU()).eval()
    data = torch.randn(5, 2, 6, 6)
    one = tinyforge.export(model, data[:1], [data])
    many = tinyforge.export(model, data[:1], [(d[None],) for d in data])
    assert one.graph == many.graph
    with pytest.raises(ValueError, match="do not match"):
        tinyforge.export(model, data[:1], [torch.randn(2, 3, 6, 6)])


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    """torchvision's ShuffleNetV2 channel shuffle, written the same way."""
    n, c, h, w = x.size()
    x = x.view(n, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(n, -1, h, w)


class ShuffleBlock(nn.Module):
    """A ShuffleNetV2 unit (stride 1): split channels, branch, concat, shuffle."""

    def __init__(self, c: int = 8) -> None:
        super().__init__()
        h = c // 2
        self.pw1 = nn.Conv2d(h, h, 1)
        self.dw = nn.Conv2d(h, h, 3, padding=1, groups=h)
        self.pw2 = nn.Conv2d(h, h, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=1)
        b = torch.relu(self.pw2(self.dw(torch.relu(self.pw1(b)))))
        return channel_shuffle(torch.cat([a, b], dim=1), 2)


class Shuffle(nn.Module):
    """Only the shuffle (view / transpose / contiguous / view) after a conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return channel_shuffle(torch.relu(self.conv(x)), 4)


@pytest.mark.parametrize("kind", ["float", "qdq"])
def test_channel_shuffle_exports(kind: str) -> None:
    """The .contiguous() before the second view is dropped as a no-op; the view becomes a
    reshape (torch's view of the strided transpose would fail: "view size is not
    compatible"). The file reproduces the reference."""
    torch.manual_seed(3)
    model = Shuffle().eval()
    x = torch.randn(1, 3, 5, 6)
    res = tinyforge.export(model, x, [x] if kind == "qdq" else None)
    types = [op["type"] for op in res.graph["ops"] if op["type"] not in ("quantize", "dequantize")]
    assert types == ["conv2d", "relu", "reshape", "transpose", "reshape"]
    assert _ops(res.graph, "transpose")[0]["attrs"] == {"perm": [0, 2, 1, 3, 4]}
    doc, consts = parse(res.data)
    (got,), _ = run_graph(doc, consts, [x.numpy()])
    with torch.no_grad():
        want = res.reference(x).numpy()
        np.testing.assert_allclose(res.reference(x).numpy(), want)
        if kind == "float":
            np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got, want)


class Slices(nn.Module):
    """chunk, split, narrow, strided slices, select and unbind, joined by cat."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))                   # [1, 8, 6, 6]
        a, b = y.chunk(2, dim=1)                       # 4 + 4 channels
        c, _, d = torch.split(y, [3, 2, 3], dim=1)
        e = torch.narrow(y, 2, 1, 4)[:, :, :, 0:6:2]   # [1, 8, 4, 3]
        f = y.select(3, 5).unsqueeze(3)                # [1, 8, 6, 1]
        g = torch.unbind(y, dim=3)[1].unsqueeze(3)     # [1, 8, 6, 1]
        return torch.cat([(a + b)[:, :, 1:5, :3], e, c[:, :, 2:, 3:], d[:, :, :4, -3:],
                          torch.cat([f, g, f], dim=3)[:, :, 2:]], dim=1)


def test_slices_export_and_reproduce() -> None:
    torch.manual_seed(5)
    model = Slices().eval()
    x = torch.randn(1, 3, 6, 6)
    for kind in ("float", "qdq"):
        try:
            res = tinyforge.export(model, x, [x] if kind == "qdq" else None)
        except tinyforge.UnsupportedOpError as e:
            raise AssertionError(str(e)) from e
        doc, consts = parse(res.data)
        (got,), _ = run_graph(doc, consts, [x.numpy()])
        with torch.no_grad():
            want = res.reference(x).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
