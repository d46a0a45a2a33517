"""Fashion-MNIST from Debian's ``dataset-fashion-mnist`` package (real 28x28 images).

The package installs the original gzip'd IDX files under /usr/share/datasets/fashion-mnist/
(``dpkg -L dataset-fashion-mnist``); ``FASHION_MNIST_DIR`` overrides the folder.
60,000 training and 10,000 test images, 10 classes.

Preprocessing (the model's input is 1x1x32x32 float):
  padded by 2 black pixels on every side (28x28 -> 32x32; the images' background is
  black), then pixels / 255 standardised with the training set's mean 0.2860 and
  standard deviation 0.3530. One input channel: the zoo ResNet-8's first convolution is
  built for 1 channel instead of 3 (train.py).
"""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

DIR = Path(os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist"))
LABELS = ["t-shirt/top", "trouser", "pullover", "dress", "coat", "sandal", "shirt",
          "sneaker", "bag", "ankle boot"]
MEAN, STD = 0.2860, 0.3530
PAD = 2
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def available() -> bool:
    return all((DIR / f).exists() for pair in FILES.values() for f in pair)


def _idx(path: Path, magic: int) -> np.ndarray:
    with gzip.open(path, "rb") as f:
        data = f.read()
    got = int.from_bytes(data[:4], "big")
    if got != magic:
        raise ValueError(f"{path}: IDX magic {got:#x}, expected {magic:#x}")
    ndim = magic & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(split: str) -> tuple[np.ndarray, np.ndarray]:
    """(images (N, 28, 28) uint8, labels (N,) int64) of ``split`` ("train" or "test")."""
    if not available():
        raise FileNotFoundError(f"Fashion-MNIST not found in {DIR}: "
                                "apt-get install dataset-fashion-mnist")
    images, labels = FILES[split]
    return _idx(DIR / images, 0x803), _idx(DIR / labels, 0x801).astype(np.int64)


def preprocess(images: np.ndarray) -> np.ndarray:
    """(N, 28, 28) uint8 -> (N, 1, 32, 32) float32 model inputs."""
    x = np.pad(images, ((0, 0), (PAD, PAD), (PAD, PAD))).astype(np.float32)
    return ((x / 255.0 - MEAN) / STD)[:, None].astype(np.float32)
