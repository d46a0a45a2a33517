"""The zoo's architectures follow the MLPerf Tiny reference layer lists."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tinyforge import models

CLASSES = {"ds_cnn": 12, "mobilenet_v1_025": 2, "resnet8": 10, "fc_autoencoder": 640}
SHAPES = {"ds_cnn": (1, 1, 49, 10), "mobilenet_v1_025": (1, 3, 96, 96),
          "resnet8": (1, 3, 32, 32), "fc_autoencoder": (1, 640)}


def _convs(model: nn.Module) -> list[nn.Conv2d]:
    return [m for m in model.modules() if isinstance(m, nn.Conv2d)]


def _output_shapes(model: nn.Module, x: torch.Tensor, cls: type) -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = []
    hooks = [m.register_forward_hook(lambda m, i, o: shapes.append(tuple(o.shape)))
             for m in model.modules() if isinstance(m, cls)]
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    return shapes


def test_get_and_shapes(zoo_name: str) -> None:
    zm = models.get(zoo_name)
    model, shape = zm
    assert shape == SHAPES[zoo_name] == models.input_shape(zoo_name) and not model.training
    with torch.no_grad():
        y = model(torch.randn(shape))
    assert y.shape == (1, CLASSES[zoo_name])
    soft, _ = models.get(zoo_name, softmax=True)
    assert isinstance(list(soft.modules())[-1], nn.Softmax)
    with torch.no_grad():
        p = soft(torch.randn(shape))
    torch.testing.assert_close(p.sum(dim=1), torch.ones(1))


def test_unknown_name() -> None:
    with pytest.raises(KeyError, match="resnet8"):
        models.get("resnet9")


def test_ds_cnn_layers() -> None:
    model, shape = models.get("ds_cnn")
    convs = _convs(model)
    assert convs[0].kernel_size == (10, 4) and convs[0].stride == (2, 2) and convs[0].out_channels == 64
    assert [c.groups for c in convs[1:]] == [64, 1] * 4
    assert [c.kernel_size for c in convs[1:]] == [(3, 3), (1, 1)] * 4
    outs = _output_shapes(model, torch.randn(shape), nn.Conv2d)
    assert set(outs) == {(1, 64, 25, 5)}  # the reference's 'same' output shape, throughout


def test_mobilenet_layers() -> None:
    model, shape = models.get("mobilenet_v1_025")
    convs = _convs(model)
    assert len(convs) == 1 + 13 * 2
    pointwise = [c.out_channels for c in convs[2::2]]
    assert pointwise == [16, 32, 32, 64, 64, 128, 128, 128, 128, 128, 128, 256, 256]
    assert convs[0].out_channels == 8 and convs[0].stride == (2, 2)
    outs = _output_shapes(model, torch.randn(shape), nn.Conv2d)
    assert outs[0] == (1, 8, 48, 48) and outs[-1] == (1, 256, 3, 3)


def test_resnet8_layers() -> None:
    model, shape = models.get("resnet8")
    stacks = [model.stack1, model.stack2, model.stack3]
    assert [s.shortcut is None for s in stacks] == [True, False, False]
    assert [s.shortcut.kernel_size for s in stacks[1:]] == [(1, 1), (1, 1)]
    outs = _output_shapes(model, torch.randn(shape), type(model.stack1))
    assert outs == [(1, 16, 32, 32), (1, 32, 16, 16), (1, 64, 8, 8)]


def test_autoencoder_layers() -> None:
    model, _ = models.get("fc_autoencoder")
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    assert [(l.in_features, l.out_features) for l in linears] == (
        [(640, 128)] + [(128, 128)] * 3 + [(128, 8), (8, 128)] + [(128, 128)] * 3 + [(128, 640)])
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm1d)]
    assert len(bns) == 9  # every layer but the last
