"""Everyday network families at microcontroller sizes, as torch.nn.Modules (NCHW, batch 1).

These are the architectures people bring (issue #14 part 5), written here because
torchvision cannot be imported beside the pinned torch: the same block structure as the
originals (torchvision's MobileNetV2/V3, ShuffleNetV2, SqueezeNet 1.1, ResNet-18, and the
EfficientNet-B0 / MnasNet MBConv block; a U-Net-style segmenter, a two-scale YOLO-style
detector and a 1-D accelerometer CNN), at widths and input sizes that fit a Cortex-M
board's flash and RAM. The tests (tests/e2e/test_families.py) export each with PT2E,
compile it, compare it with PyTorch and run it on the emulated boards; `make bench` prints
their figures (benchmarks/bench.py, the "breadth" table).

`get(name)` gives a model with BatchNorm statistics set from data (`settle_batchnorm`), so
that every layer carries signal: with random weights and fresh statistics, activations
collapse after a few layers and the int8 model computes nothing worth comparing.

The sequence models of issue 15 part 5 (`SEQUENCE_NAMES`: a 2-layer TransformerEncoder, a GRU
and an LSTM classifier, a 1-D conv + GRU model) are a second registry: the tests build them
from these classes (tests/e2e/test_attention.py, test_rnn.py) and `make bench` prints their
figures (the "sequence models" table); tests/e2e/test_families.py does not run them again.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import torch
from torch import nn


def _bn_act(c: int, act: type[nn.Module] | None) -> list[nn.Module]:
    return [nn.BatchNorm2d(c)] + ([act()] if act is not None else [])


class ConvBN(nn.Sequential):
    """conv2d + BatchNorm2d (+ activation)."""

    def __init__(self, cin: int, cout: int, k: int = 1, stride: int = 1, groups: int = 1,
                 act: type[nn.Module] | None = nn.ReLU) -> None:
        super().__init__(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                         *_bn_act(cout, act))


class SqueezeExcite(nn.Module):
    """Squeeze-and-excitation: global mean, 1x1 reduce + ReLU (SiLU), 1x1 expand, gate
    (hardsigmoid for MobileNetV3, sigmoid for EfficientNet), channel-wise multiply."""

    def __init__(self, c: int, squeeze: int, act: type[nn.Module] = nn.ReLU,
                 gate: type[nn.Module] = nn.Hardsigmoid) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1, self.act = nn.Conv2d(c, squeeze, 1), act()
        self.fc2, self.gate = nn.Conv2d(squeeze, c, 1), gate()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.gate(self.fc2(self.act(self.fc1(self.pool(x)))))
        return x * s


class InvertedResidual(nn.Module):
    """MobileNetV2 / V3 / MBConv block: 1x1 expand, kxk depthwise, (SE), 1x1 project,
    residual add when the shape allows."""

    def __init__(self, cin: int, cout: int, expand: int, k: int = 3, stride: int = 1,
                 act: type[nn.Module] = nn.ReLU6, se: SqueezeExcite | None = None) -> None:
        super().__init__()
        hidden = cin * expand
        self.expand = ConvBN(cin, hidden, 1, act=act) if expand != 1 else nn.Identity()
        self.dw = ConvBN(hidden, hidden, k, stride, groups=hidden, act=act)
        self.se = se if se is not None else nn.Identity()
        self.project = ConvBN(hidden, cout, 1, act=None)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    """torchvision's MobileNetV2 at width 0.35 (the MLPerf Tiny / TinyML size), 96x96."""

    input_shapes = [(1, 3, 96, 96)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        # (expansion, channels, repeats, first stride) of the paper, channels at width 0.35
        cfg = [(1, 8, 1, 1), (6, 8, 2, 2), (6, 16, 3, 2), (6, 24, 4, 2), (6, 32, 3, 1),
               (6, 56, 3, 2), (6, 112, 1, 1)]
        layers: list[nn.Module] = [ConvBN(3, 16, 3, 2, act=nn.ReLU6)]
        cin = 16
        for t, c, n, s in cfg:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, t, 3, s if i == 0 else 1))
                cin = c
        layers.append(ConvBN(cin, 448, 1, act=nn.ReLU6))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(448, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class MobileNetV3Small(nn.Module):
    """torchvision's MobileNetV3-Small (hardswish, SE with hardsigmoid gates), width 0.5,
    96x96."""

    input_shapes = [(1, 3, 96, 96)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        hs, re = nn.Hardswish, nn.ReLU
        # (kernel, expanded, out, SE, activation, stride) of the paper at width 0.5
        cfg = [(3, 8, 8, True, re, 2), (3, 40, 16, False, re, 2), (3, 48, 16, False, re, 1),
               (5, 48, 24, True, hs, 2), (5, 120, 24, True, hs, 1), (5, 64, 24, True, hs, 1),
               (5, 72, 24, True, hs, 1), (5, 144, 48, True, hs, 2), (5, 288, 48, True, hs, 1)]
        layers: list[nn.Module] = [ConvBN(3, 8, 3, 2, act=hs)]
        cin = 8
        for k, exp, cout, se, act, s in cfg:
            block = InvertedResidual(cin, cout, 1, k, s, act)
            # torchvision's expansion is a channel count, not a ratio: rebuild the convs
            block.expand = ConvBN(cin, exp, 1, act=act) if exp != cin else nn.Identity()
            block.dw = ConvBN(exp, exp, k, s, groups=exp, act=act)
            block.se = SqueezeExcite(exp, max(8, exp // 4)) if se else nn.Identity()
            block.project = ConvBN(exp, cout, 1, act=None)
            layers.append(block)
            cin = cout
        layers.append(ConvBN(cin, 288, 1, act=hs))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(288, 256), nn.Hardswish(),
                                        nn.Dropout(0.2), nn.Linear(256, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    n, c, h, w = x.shape
    x = x.view(n, groups, c // groups, h, w).transpose(1, 2).contiguous()
    return x.view(n, c, h, w)


class ShuffleUnit(nn.Module):
    """ShuffleNetV2 unit: stride 1 splits the channels in two halves (chunk) and transforms
    one; stride 2 transforms both branches; then concat and channel shuffle."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.stride = stride
        half = cout // 2
        if stride == 2:
            self.left = nn.Sequential(ConvBN(cin, cin, 3, 2, groups=cin, act=None),
                                      ConvBN(cin, half, 1))
        b_in = cin if stride == 2 else half
        self.right = nn.Sequential(ConvBN(b_in, half, 1), ConvBN(half, half, 3, stride,
                                                                  groups=half, act=None),
                                   ConvBN(half, half, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            out = torch.cat((a, self.right(b)), dim=1)
        else:
            out = torch.cat((self.left(x), self.right(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """torchvision's ShuffleNetV2 x0.5 (stages of 48/96/192 channels, repeats 4/8/4) at
    96x96, the stage repeats halved."""

    input_shapes = [(1, 3, 96, 96)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(ConvBN(3, 24, 3, 2), nn.MaxPool2d(3, 2, 1))
        stages, cin = [], 24
        for cout, repeats in ((48, 2), (96, 4), (192, 2)):
            for i in range(repeats):
                stages.append(ShuffleUnit(cin, cout, 2 if i == 0 else 1))
                cin = cout
        self.stages = nn.Sequential(*stages)
        self.head = ConvBN(cin, 512, 1)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.head(self.stages(self.stem(x)))
        return self.fc(x.mean((2, 3)))


class Fire(nn.Module):
    """SqueezeNet fire module: 1x1 squeeze, then 1x1 and 3x3 expands concatenated."""

    def __init__(self, cin: int, squeeze: int, expand: int) -> None:
        super().__init__()
        self.squeeze = nn.Sequential(nn.Conv2d(cin, squeeze, 1), nn.ReLU())
        self.e1 = nn.Sequential(nn.Conv2d(squeeze, expand, 1), nn.ReLU())
        self.e3 = nn.Sequential(nn.Conv2d(squeeze, expand, 3, padding=1), nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.squeeze(x)
        return torch.cat((self.e1(s), self.e3(s)), 1)


class SqueezeNet(nn.Module):
    """torchvision's SqueezeNet 1.1 (max pools with ceil_mode, fire modules, conv
    classifier, global average pool), channels halved, 96x96."""

    input_shapes = [(1, 3, 96, 96)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)  # noqa: E731
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2), nn.ReLU(), pool(),
            Fire(32, 8, 32), Fire(64, 8, 32), pool(),
            Fire(64, 16, 64), Fire(128, 16, 64), pool(),
            Fire(128, 24, 96), Fire(192, 24, 96), Fire(192, 32, 128), Fire(256, 32, 128))
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(256, num_classes, 1),
                                        nn.ReLU(), nn.AdaptiveAvgPool2d(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self.classifier(self.features(x)), 1)


class EfficientNetB0Style(nn.Module):
    """EfficientNet-B0 / MnasNet structure: SiLU everywhere, MBConv blocks with SE (sigmoid
    gate, SiLU squeeze) and 3x3 / 5x5 depthwise, at width 0.5 and half the repeats, 96x96."""

    input_shapes = [(1, 3, 96, 96)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        silu = nn.SiLU
        # (expansion, kernel, stride, out channels, repeats)
        cfg = [(1, 3, 1, 8, 1), (6, 3, 2, 12, 1), (6, 5, 2, 20, 1), (6, 3, 2, 40, 2),
               (6, 5, 1, 56, 1), (6, 5, 2, 96, 2), (6, 3, 1, 160, 1)]
        layers: list[nn.Module] = [ConvBN(3, 16, 3, 2, act=silu)]
        cin = 16
        for t, k, s, c, n in cfg:
            for i in range(n):
                hidden = cin * t
                se = SqueezeExcite(hidden, max(2, cin // 4), act=silu, gate=nn.Sigmoid)
                layers.append(InvertedResidual(cin, c, t, k, s if i == 0 else 1, silu, se))
                cin = c
        layers.append(ConvBN(cin, 640, 1, act=silu))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(640, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.c1 = ConvBN(cin, cout, 3, stride)
        self.c2 = ConvBN(cout, cout, 3, act=None)
        self.down = (ConvBN(cin, cout, 1, stride, act=None)
                     if stride != 1 or cin != cout else nn.Identity())
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(self.c2(self.c1(x)) + self.down(x))


class ResNet18(nn.Module):
    """torchvision's ResNet-18 (7x7 stem, max pool, four stages of two basic blocks) at
    64x64 and half width (32..256 channels, 2.8 M weights: the full width's 11.2 MB of
    int8 weights exceed the boards' flash, which `compile --target` reports)."""

    input_shapes = [(1, 3, 64, 64)]

    def __init__(self, num_classes: int = 10, width: int = 32) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], width
        for i, c in enumerate((width, 2 * width, 4 * width, 8 * width)):
            for j in range(2):
                blocks.append(BasicBlock(cin, c, 2 if (j == 0 and i > 0) else 1))
                cin = c
        self.layers = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class TwoInTwoOut(nn.Module):
    """Two inputs (a 32x32 image and a 16-value sensor vector) and two outputs (class
    logits and a regression head), joined by concatenation."""

    input_shapes = [(1, 3, 32, 32), (1, 16)]

    def __init__(self) -> None:
        super().__init__()
        self.image = nn.Sequential(ConvBN(3, 8, 3, 2), ConvBN(8, 16, 3, 2),
                                   nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.vector = nn.Sequential(nn.Linear(16, 16), nn.ReLU())
        self.classes = nn.Linear(32, 5)
        self.value = nn.Sequential(nn.Linear(32, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, img: torch.Tensor, vec: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = torch.cat((self.image(img), self.vector(vec)), 1)
        return self.classes(z), self.value(z)


class UNetSmall(nn.Module):
    """U-Net-style segmenter at 64x64: two strided encoder stages, a transposed-conv and a
    nearest-upsample decoder stage, each concatenating the encoder's skip; 2-class logits
    per pixel."""

    input_shapes = [(1, 3, 64, 64)]

    def __init__(self, classes: int = 2) -> None:
        super().__init__()
        self.enc1 = ConvBN(3, 8, 3)
        self.enc2 = ConvBN(8, 16, 3, 2)
        self.mid = ConvBN(16, 32, 3, 2)
        self.up2 = nn.Sequential(nn.ConvTranspose2d(32, 16, 2, 2), nn.ReLU())
        self.dec2 = ConvBN(32, 16, 3)
        self.up1 = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec1 = ConvBN(24, 8, 3)
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        d2 = self.dec2(torch.cat((self.up2(self.mid(e2)), e2), 1))
        return self.head(self.dec1(torch.cat((self.up1(d2), e1), 1)))


class YoloTwoScale(nn.Module):
    """YOLO-style detector at 128x128: a strided backbone, predictions at strides 16 and 8
    (the coarse map's lateral 1x1, nearest upsample x2, concat with the finer map), 3
    anchors x (4 box + 1 objectness + 2 classes) per cell through a sigmoid."""

    input_shapes = [(1, 3, 128, 128)]

    def __init__(self, classes: int = 2, anchors: int = 3) -> None:
        super().__init__()
        out = anchors * (5 + classes)
        self.stem = nn.Sequential(ConvBN(3, 8, 3, 2), ConvBN(8, 16, 3, 2),
                                  ConvBN(16, 32, 3, 2))          # 16x16
        self.down = ConvBN(32, 64, 3, 2)                          # 8x8
        self.head_coarse = nn.Conv2d(64, out, 1)
        self.lateral = ConvBN(64, 32, 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.fuse = ConvBN(64, 32, 3)
        self.head_fine = nn.Conv2d(32, out, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        p3 = self.stem(x)
        p4 = self.down(p3)
        fine = self.fuse(torch.cat((self.up(self.lateral(p4)), p3), 1))
        return torch.sigmoid(self.head_coarse(p4)), torch.sigmoid(self.head_fine(fine))


class AccelCnn1d(nn.Module):
    """1-D CNN for 3-axis accelerometer windows (128 samples): three Conv1d + BatchNorm1d +
    ReLU stages with max pools, a mean over time and a 6-activity linear classifier."""

    input_shapes = [(1, 3, 128)]

    def __init__(self, classes: int = 6) -> None:
        super().__init__()

        def stage(cin: int, cout: int, k: int) -> list[nn.Module]:
            return [nn.Conv1d(cin, cout, k, padding=k // 2, bias=False), nn.BatchNorm1d(cout),
                    nn.ReLU()]

        self.features = nn.Sequential(*stage(3, 16, 5), nn.MaxPool1d(2), *stage(16, 32, 5),
                                      nn.MaxPool1d(2), *stage(32, 32, 3))
        self.fc = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).mean(dim=2))


class TransformerEncoderClassifier(nn.Module):
    """Learned positional embedding + 2 nn.TransformerEncoderLayers (seq 32, d_model 64, 4
    heads, ffn 128, dropout 0, batch first) + mean over tokens + Linear head."""

    SEQ, D_MODEL, HEADS, FFN = 32, 64, 4, 128
    input_shapes = [(1, SEQ, D_MODEL)]

    def __init__(self, norm_first: bool = False, activation: str = "gelu",
                 classes: int = 10) -> None:
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, self.SEQ, self.D_MODEL) * 0.5)
        layer = nn.TransformerEncoderLayer(self.D_MODEL, self.HEADS, self.FFN, dropout=0.0,
                                           activation=activation, batch_first=True,
                                           norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(self.D_MODEL, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x + self.pos).mean(dim=1))


class SeqClassifier(nn.Module):
    """GRU / LSTM over [B, T, C] (or [T, B, C]) -> the last step's output -> Linear."""

    def __init__(self, cls: type[nn.Module], inputs: int = 12, hidden: int = 32,
                 classes: int = 4, steps: int = 16, **kw) -> None:
        super().__init__()
        self.rnn = cls(inputs, hidden, **kw)
        self.fc = nn.Linear(hidden * (2 if kw.get("bidirectional") else 1), classes)
        self.input_shapes = [(1, steps, inputs) if self.rnn.batch_first else (steps, 1, inputs)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.rnn(x)
        return self.fc(y[:, -1] if self.rnn.batch_first else y[-1])


class Conv1dGru(nn.Module):
    """Keyword-spotting shape: MFCC-like frames [1, 12 coefficients, 32 frames] through two
    Conv1d + ReLU (the second with stride 2), then a GRU over the 16 remaining steps, the last
    step's output -> Linear."""

    input_shapes = [(1, 12, 32)]

    def __init__(self, channels: int = 32, hidden: int = 32, classes: int = 4) -> None:
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(12, channels, 3, padding=1), nn.ReLU(),
                                   nn.Conv1d(channels, channels, 3, 2, padding=1), nn.ReLU())
        self.gru = nn.GRU(channels, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.gru(self.front(x).transpose(1, 2))
        return self.fc(y[:, -1])


FAMILIES: dict[str, Callable[[], nn.Module]] = {
    "mobilenet_v2": MobileNetV2,
    "mobilenet_v3_small": MobileNetV3Small,
    "shufflenet_v2": ShuffleNetV2,
    "squeezenet": SqueezeNet,
    "efficientnet_b0": EfficientNetB0Style,
    "resnet18": ResNet18,
    "two_in_two_out": TwoInTwoOut,
    "unet": UNetSmall,
    "yolo_two_scale": YoloTwoScale,
    "accel_cnn1d": AccelCnn1d,
}
NAMES = tuple(FAMILIES)
# Issue 15 part 5's test models (the same builders the tests use).
SEQUENCE: dict[str, Callable[[], nn.Module]] = {
    "transformer_encoder": TransformerEncoderClassifier,
    "gru_classifier": lambda: SeqClassifier(nn.GRU, hidden=64, batch_first=True),
    "lstm_classifier": lambda: SeqClassifier(nn.LSTM, hidden=32, batch_first=True),
    "conv1d_gru": Conv1dGru,
}
SEQUENCE_NAMES = tuple(SEQUENCE)


class Family(NamedTuple):
    model: nn.Module
    input_shapes: list[tuple[int, ...]]


def sample_inputs(shapes: list[tuple[int, ...]], n: int, seed: int) -> list[tuple[torch.Tensor, ...]]:
    """n input tuples of standard normal values (a fixed generator per seed)."""
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(s, generator=g) for s in shapes) for _ in range(n)]


@torch.no_grad()
def settle_batchnorm(model: nn.Module, inputs: list[tuple[torch.Tensor, ...]]) -> None:
    """Sets every BatchNorm's running statistics to those of `inputs` (cumulative average,
    train-mode forward passes), then puts the model in eval mode."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    for x in inputs:
        model(*x)
    model.eval()


def get(name: str, seed: int = 0) -> Family:
    """A family or sequence model with seeded weights and BatchNorm statistics set from
    seeded data."""
    make = FAMILIES.get(name) or SEQUENCE.get(name)
    if make is None:
        raise KeyError(f"unknown model {name!r}; known: {', '.join(NAMES + SEQUENCE_NAMES)}")
    torch.manual_seed(seed)
    model = make()
    shapes = list(model.input_shapes)
    settle_batchnorm(model, sample_inputs(shapes, 4, seed + 100))
    return Family(model, shapes)
