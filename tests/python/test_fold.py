"""BatchNorm folding: outputs preserved, nothing left unfolded, user model untouched."""

from __future__ import annotations

import inspect

import pytest
import torch
from zoo_support import SEED, batches, randomize_batchnorm, zoo_model
from torch import nn

import tinyforge
from tinyforge.fold import fold_batchnorm, remove_noops


def _bn_count(gm: torch.fx.GraphModule) -> int:
    return sum("batch_norm" in str(n.target) for n in gm.graph.nodes)


def test_folding_preserves_outputs(zoo_name: str) -> None:
    model, shape = zoo_model(zoo_name)
    x = batches(shape, 1, SEED + 3)[0]
    gm = torch.export.export(model, (x,)).module()
    before = _bn_count(gm)
    remove_noops(gm)
    assert fold_batchnorm(gm) == before > 0
    assert _bn_count(gm) == 0
    for xi in batches(shape, 2, SEED + 4):
        with torch.no_grad():
            want, got = model(xi), gm(xi)
        rel = (got - want).abs().max() / want.abs().max()
        assert rel <= 1e-5, f"{zoo_name}: relative error {rel}"


def test_export_does_not_modify_the_model() -> None:
    model, shape = zoo_model("ds_cnn")
    model.train()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    res = tinyforge.export(model, torch.randn(shape))
    assert model.training  # restored
    for k, v in model.state_dict().items():
        assert torch.equal(v, state[k]), k
    assert res.kind == "float" and not any(op["type"] == "batch_norm" for op in res.graph["ops"])


def test_folded_bias_created_for_bias_free_conv() -> None:
    model = nn.Sequential(nn.Conv2d(2, 4, 3, bias=False), nn.BatchNorm2d(4)).eval()
    randomize_batchnorm(model)
    x = torch.randn(1, 2, 6, 6)
    res = tinyforge.export(model, x)
    (conv,) = res.graph["ops"]
    assert conv["type"] == "conv2d" and len(conv["inputs"]) == 3
    torch.testing.assert_close(res.reference(x), model(x), rtol=1e-5, atol=1e-6)


class BNAfterAdd(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 1)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x) + x
        return self.bn(y)  # BN-LINE


class BNSharedConv(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 1)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return self.bn(y) + y  # BN-LINE


def _line(cls: type, marker: str) -> int:
    lines, start = inspect.getsourcelines(cls)
    return start + next(i for i, text in enumerate(lines) if marker in text)


@pytest.mark.parametrize("cls", [BNAfterAdd, BNSharedConv])
def test_unfoldable_batchnorm_is_an_error(cls: type) -> None:
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(cls(), torch.randn(1, 2, 4, 4))
    msg = str(e.value)
    assert "aten.batch_norm.default" in msg and "conv or linear" in msg
    assert f"test_fold.py:{_line(cls, 'BN-LINE')}" in msg
