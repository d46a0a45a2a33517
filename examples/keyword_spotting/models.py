"""The keyword-spotting architectures (issue 15 part 4): the zoo DS-CNN and two sequence models,
all on the same input, 1 x 1 x 49 frames x 10 MFCCs, and 12 classes.

  ds_cnn     the zoo DS-CNN (``tinyforge.models.get("ds_cnn")``, 64 filters)
  gru        conv front end + nn.GRU (hidden 64) + the last step -> Linear
  attention  conv front end + 2 nn.TransformerEncoderLayers (d_model 64) + mean -> Linear

Each is trained by ``train.py --arch NAME`` into ``NAME_kws.pt`` / ``NAME_kws.json``.
"""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

try:
    from . import features
except ImportError:  # run as a script
    import features  # type: ignore[no-redef]

from tinyforge import models as zoo

CLASSES = 12
INPUT_SHAPE = (1, 1, features.N_FRAMES, features.N_MFCC)


def front_end(channels: int) -> nn.Sequential:
    """A 3 x 10 convolution over 3 frames x every coefficient, stride 2 in time, + ReLU:
    (N, 1, 49, 10) -> (N, channels, 25, 1), 25 steps for the sequence models."""
    return nn.Sequential(nn.Conv2d(1, channels, (3, features.N_MFCC), stride=(2, 1),
                                   padding=(1, 0)), nn.ReLU())


def steps(x: torch.Tensor) -> torch.Tensor:
    """(N, C, T, 1) -> (N, T, C): the front end's output as a batch-first sequence."""
    return x.flatten(2).transpose(1, 2)


class GruKws(nn.Module):
    """Conv front end (32 channels, 25 steps) + nn.GRU (hidden 64, batch first) + the last
    step's output -> Linear."""

    CHANNELS, HIDDEN = 32, 64

    def __init__(self, classes: int = CLASSES) -> None:
        super().__init__()
        self.front = front_end(self.CHANNELS)
        self.gru = nn.GRU(self.CHANNELS, self.HIDDEN, batch_first=True)
        self.fc = nn.Linear(self.HIDDEN, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.gru(steps(self.front(x)))
        return self.fc(y[:, -1])


class AttentionKws(nn.Module):
    """Conv front end (64 channels, 25 tokens) + learned positions + 2
    nn.TransformerEncoderLayers (d_model 64, 4 heads, feed-forward 128, ReLU, post-norm,
    dropout 0.1 in training) + mean over tokens -> Linear."""

    D_MODEL, HEADS, FFN, LAYERS = 64, 4, 128, 2

    def __init__(self, classes: int = CLASSES, dropout: float = 0.1) -> None:
        super().__init__()
        self.front = front_end(self.D_MODEL)
        self.pos = nn.Parameter(torch.zeros(1, (features.N_FRAMES + 1) // 2, self.D_MODEL))
        layer = nn.TransformerEncoderLayer(self.D_MODEL, self.HEADS, self.FFN, dropout=dropout,
                                           activation="relu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, self.LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(self.D_MODEL, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(steps(self.front(x)) + self.pos).mean(dim=1))


def _ds_cnn() -> nn.Module:
    model, shape = zoo.get("ds_cnn")
    assert shape == INPUT_SHAPE
    return model


ARCHS: dict[str, Callable[[], nn.Module]] = {
    "ds_cnn": _ds_cnn, "gru": GruKws, "attention": AttentionKws}
