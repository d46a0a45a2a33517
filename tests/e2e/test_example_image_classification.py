"""The image-classification example on a fixed subset (tests/e2e/example_checks.py)."""
from __future__ import annotations

import numpy as np
import pytest

from example_checks import ON_BOARD, check, evaluation, one_torch_thread  # noqa: F401


def test_image_classification(cli, tmp_path):
    from image_classification import data, train

    if not data.available():
        pytest.skip(f"Fashion-MNIST not in {data.DIR} (apt-get install dataset-fashion-mnist)")
    model, _ = train.load_trained()
    images, labels = data.load("test")
    train_images, _ = data.load("train")
    pick = np.random.default_rng(0).permutation(len(train_images))[:200]
    # the first 600 test images: 1 sample = 0.17 pp (the whole test set's gap is ~0.1 pp)
    rep, _ = evaluation.evaluate("image classification (subset)", model,
                                 data.preprocess(images[:600]), labels[:600],
                                 data.preprocess(train_images[np.sort(pick)]),
                                 tmp_path / "ic", name="resnet8_fmnist", log=lambda _: None,
                                 run_on_board=ON_BOARD)
    check(rep, min_float=0.8)
