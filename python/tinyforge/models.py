"""The four MLPerf Tiny reference architectures as torch.nn.Modules (NCHW, batch 1).

Layer lists follow the MLPerf Tiny (v1.x) Keras training scripts. Differences that come
from PyTorch, stated once here:

* TF ``padding='same'`` with stride 2 pads the odd pixel on the bottom/right only; PyTorch
  convolutions pad symmetrically. Symmetric paddings are chosen that give the reference
  output shapes (DS-CNN: 25x5 with padding (5, 1); stride-2 3x3: padding 1). The sampling
  grid is therefore offset by one row/column from TF's; a model trained here is unaffected,
  weights imported from the TF reference would need ``nn.ZeroPad2d`` with TF's padding.
* DS-CNN's reference pools with a 24x5 window on its 25x5 map (``int(49/2)`` rows), which
  drops the last row; here the average pool covers the whole 25x5 map.
* Models end in logits; ``softmax=True`` appends ``nn.Softmax(dim=1)`` (the reference's
  final activation). For the autoencoder the flag exists only for a uniform constructor.

Each block has its own forward so that exported ops carry the line of this file that built
them, and module names such as ``blocks.0.dw`` name the ops in the graph file.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn


def _head(softmax: bool) -> nn.Module:
    return nn.Softmax(dim=1) if softmax else nn.Identity()


class ConvBNReLU(nn.Module):
    """conv2d + BatchNorm2d + ReLU (the reference's Conv2D/DepthwiseConv2D, BN, Activation)."""

    def __init__(self, cin: int, cout: int, kernel: int | tuple[int, int], stride: int = 1,
                 padding: int | tuple[int, int] = 0, groups: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x)
        x = self.bn(x)
        return self.relu(x)


class DepthwiseSeparable(nn.Module):
    """Depthwise 3x3 (+BN+ReLU) then pointwise 1x1 (+BN+ReLU)."""

    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.dw = ConvBNReLU(cin, cin, 3, stride, 1, groups=cin)
        self.pw = ConvBNReLU(cin, cout, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.dw(x)
        return self.pw(x)


class DSCNN(nn.Module):
    """Keyword spotting DS-CNN: input 1x1x49x10 (MFCC), 12 classes."""

    input_shape = (1, 1, 49, 10)

    def __init__(self, num_classes: int = 12, filters: int = 64, softmax: bool = False) -> None:
        super().__init__()
        self.conv1 = ConvBNReLU(1, filters, (10, 4), stride=2, padding=(5, 1))  # -> 25x5
        self.drop1 = nn.Dropout(0.2)
        self.blocks = nn.Sequential(*[DepthwiseSeparable(filters, filters) for _ in range(4)])
        self.drop2 = nn.Dropout(0.4)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(filters, num_classes)
        self.head = _head(softmax)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.drop1(self.conv1(x))
        x = self.blocks(x)
        x = self.pool(self.drop2(x))
        x = torch.flatten(x, 1)
        return self.head(self.fc(x))


class MobileNetV1(nn.Module):
    """Visual wake words MobileNetV1, alpha 0.25: input 1x3x96x96, 2 classes."""

    input_shape = (1, 3, 96, 96)
    # (output channels, stride) of the 13 depthwise-separable blocks at alpha 0.25
    BLOCKS = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2),
              (128, 1), (128, 1), (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]

    def __init__(self, num_classes: int = 2, softmax: bool = False) -> None:
        super().__init__()
        self.conv1 = ConvBNReLU(3, 8, 3, stride=2, padding=1)  # 96 -> 48
        layers, cin = [], 8
        for cout, stride in self.BLOCKS:
            layers.append(DepthwiseSeparable(cin, cout, stride))
            cin = cout
        self.blocks = nn.Sequential(*layers)  # 48 -> 3
        self.pool = nn.AvgPool2d(3)
        self.fc = nn.Linear(cin, num_classes)
        self.head = _head(softmax)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.conv1(x))
        x = torch.flatten(self.pool(x), 1)
        return self.head(self.fc(x))


class ResidualStack(nn.Module):
    """conv3x3+BN+ReLU, conv3x3+BN, add shortcut (1x1 conv when the shape changes), ReLU."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = ConvBNReLU(cin, cout, 3, stride, 1)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn2(self.conv2(self.conv1(x)))
        if self.shortcut is not None:
            x = self.shortcut(x)
        return self.relu(x + y)


class ResNet8(nn.Module):
    """Image classification ResNet-8 (CIFAR-10): input 1x3x32x32, 10 classes."""

    input_shape = (1, 3, 32, 32)

    def __init__(self, num_classes: int = 10, softmax: bool = False) -> None:
        super().__init__()
        self.conv1 = ConvBNReLU(3, 16, 3, 1, 1)
        self.stack1 = ResidualStack(16, 16, 1)
        self.stack2 = ResidualStack(16, 32, 2)  # 32 -> 16
        self.stack3 = ResidualStack(32, 64, 2)  # 16 -> 8
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, num_classes)
        self.head = _head(softmax)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stack3(self.stack2(self.stack1(self.conv1(x))))
        x = torch.flatten(self.pool(x), 1)
        return self.head(self.fc(x))


class LinearBNReLU(nn.Module):
    """Linear + BatchNorm1d + ReLU (the reference's Dense, BN, Activation)."""

    def __init__(self, fin: int, fout: int) -> None:
        super().__init__()
        self.fc = nn.Linear(fin, fout)
        self.bn = nn.BatchNorm1d(fout)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.fc(x)
        x = self.bn(x)
        return self.relu(x)


class FCAutoencoder(nn.Module):
    """Anomaly detection autoencoder: 640 -> 128x4 -> 8 -> 128x4 -> 640 (last layer linear)."""

    input_shape = (1, 640)

    def __init__(self, dim: int = 640, hidden: int = 128, bottleneck: int = 8,
                 softmax: bool = False) -> None:
        super().__init__()
        sizes = [dim] + [hidden] * 4 + [bottleneck] + [hidden] * 4
        self.layers = nn.Sequential(*[LinearBNReLU(a, b) for a, b in zip(sizes, sizes[1:])])
        self.out = nn.Linear(hidden, dim)
        self.head = _head(softmax)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.out(self.layers(x)))


class ZooModel(NamedTuple):
    """A zoo model and the example input shape it is exported with."""

    model: nn.Module
    input_shape: tuple[int, ...]


ZOO: dict[str, type[nn.Module]] = {
    "ds_cnn": DSCNN,
    "mobilenet_v1_025": MobileNetV1,
    "resnet8": ResNet8,
    "fc_autoencoder": FCAutoencoder,
}
NAMES = tuple(ZOO)


def get(name: str, *, softmax: bool = False) -> ZooModel:
    """A fresh (randomly initialised, eval-mode) zoo model and its example input shape.

    Seed with ``torch.manual_seed`` before calling for reproducible weights.
    """
    if name not in ZOO:
        raise KeyError(f"unknown model {name!r}; known: {', '.join(NAMES)}")
    cls = ZOO[name]
    return ZooModel(cls(softmax=softmax).eval(), tuple(cls.input_shape))


def input_shape(name: str) -> tuple[int, ...]:
    """Example input shape of a zoo model (batch 1, NCHW or N,features)."""
    return tuple(ZOO[name].input_shape)
