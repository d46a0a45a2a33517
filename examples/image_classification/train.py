"""Train a ResNet-8 (the zoo's, with a 1-channel stem) on Fashion-MNIST (CPU, a few minutes).

  python examples/image_classification/train.py [--train-images 30000] [--epochs 5]

Trains on a seeded random subset of the 60,000 training images (random horizontal flips),
and writes, beside this file, the float weights ``resnet8_fmnist.pt`` (state_dict, ~300 KB)
and ``resnet8_fmnist.json`` (labels, preprocessing, training settings and figures).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import training  # noqa: E402
from image_classification import data  # noqa: E402
from tinyforge import models  # noqa: E402

WEIGHTS = HERE / "resnet8_fmnist.pt"
META = HERE / "resnet8_fmnist.json"
INPUT_SHAPE = (1, 1, 32, 32)


def build_model() -> torch.nn.Module:
    """The zoo ResNet-8 (10 classes) with its first conv taking 1 channel, untrained."""
    model, _ = models.get("resnet8")
    model.conv1 = models.ConvBNReLU(1, 16, 3, 1, 1)
    return model.eval()


def load_trained() -> tuple[torch.nn.Module, dict]:
    model = build_model()
    model.load_state_dict(torch.load(WEIGHTS, weights_only=True))
    return model.eval(), json.loads(META.read_text())


def main(argv: list[str] | None = None) -> int:
    args = training.parse_arguments(
        __doc__, argv, epochs=5, out=HERE,
        extra=lambda ap: ap.add_argument("--train-images", type=int, default=30000))

    images, labels = data.load("train")
    subset = np.sort(np.random.default_rng(args.seed).permutation(len(labels))[: args.train_images])
    x = torch.from_numpy(data.preprocess(images[subset]))
    y = torch.from_numpy(labels[subset])

    def flip(xb: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        flipped = torch.rand(len(xb), generator=gen) < 0.5
        return torch.where(flipped[:, None, None, None], xb.flip(3), xb)

    model = build_model()
    seconds = training.fit(model, x, y, args, augment=flip)
    model.eval()
    with torch.no_grad():
        train_acc = float(np.mean(torch.cat([model(b).argmax(1) for b in torch.split(x, 500)])
                                  .numpy() == y.numpy()))
    print(f"trained in {seconds:.0f} s; training accuracy {100 * train_acc:.2f} %")

    meta = {"labels": data.LABELS, "input_shape": list(INPUT_SHAPE),
            "preprocess": {"pad": data.PAD, "mean": data.MEAN, "std": data.STD},
            "training": {"train_images": int(len(y)), "subset": "seeded permutation of the "
                         "60,000 training images, first N", "epochs": args.epochs,
                         "batch": args.batch, "lr": args.lr, "augmentation": "horizontal flip",
                         "optimizer": "AdamW (weight decay 1e-4), one-cycle schedule",
                         "seed": args.seed, "threads": args.threads,
                         "seconds": round(seconds), "train_accuracy": round(train_acc, 4),
                         "torch": torch.__version__}}
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out / WEIGHTS.name)
    (args.out / META.name).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {args.out / WEIGHTS.name} and {args.out / META.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
