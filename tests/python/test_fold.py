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
        return self.bn(y)


class BNSharedConv(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 1)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return self.bn(y) + y


class BNAfterCat(nn.Module):
    """DenseNet's layer: BatchNorm over the concatenated features, then ReLU and a conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(5)
        self.out = nn.Conv2d(5, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.bn(torch.cat([x, self.conv(x)], 1))))


class BN1dOnInput(nn.Module):
    """BatchNorm1d on the graph input, [N, C] and [N, C, L] (normalising dim 1)."""

    def __init__(self, rank: int) -> None:
        super().__init__()
        self.bn = nn.BatchNorm1d(2)
        self.rank = rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.flatten(1).reshape(1, 2, -1) if self.rank == 3 else x.flatten(1)[:, :2]
        return self.bn(x) * 2.0


@pytest.mark.parametrize("make", [BNAfterAdd, BNSharedConv, BNAfterCat, lambda: BN1dOnInput(2),
                                  lambda: BN1dOnInput(3)],
                         ids=["after_add", "shared_conv", "after_cat", "bn1d_2d", "bn1d_3d"])
def test_batchnorm_not_after_a_conv_is_a_depthwise_affine(make) -> None:
    """Where no conv / linear feeds it alone, a BatchNorm becomes x * scale + shift per
    channel: a depthwise 1x1 conv2d, equal to the module in float."""
    model = make().eval()
    randomize_batchnorm(model)
    x = torch.randn(1, 2, 4, 4)
    res = tinyforge.export(model, x)
    types = [op["type"] for op in res.graph["ops"]]
    assert "batch_norm" not in types
    bn = next(m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm))
    assert any(op["type"] == "conv2d" and op["attrs"].get("groups") == bn.num_features
               for op in res.graph["ops"]), types
    torch.testing.assert_close(res.reference(x), model(x), rtol=1e-5, atol=1e-5)


class BNTraining(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        m, v = self.bn.running_mean, self.bn.running_var
        return torch.nn.functional.batch_norm(x, m, v, training=True)  # BN-LINE


def _line(cls: type, marker: str) -> int:
    lines, start = inspect.getsourcelines(cls)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def test_training_mode_batchnorm_is_an_error() -> None:
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(BNTraining(), torch.randn(1, 2, 4, 4))
    msg = str(e.value)
    assert "batch_norm" in msg and "training mode" in msg
    assert f"test_fold.py:{_line(BNTraining, 'BN-LINE')}" in msg
