"""Train the zoo DS-CNN on the synthetic keyword-spotting set (CPU, a few minutes).

  python examples/keyword_spotting/train.py [--epochs 20]

Writes, beside this file, the float weights ``ds_cnn_kws.pt`` (state_dict, ~100 KB) and
``ds_cnn_kws.json`` (labels, MFCC parameters, the per-coefficient standardisation, the
training settings and figures). Deterministic for a given seed, torch build and thread count.
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
from keyword_spotting import dataset, features  # noqa: E402
from tinyforge import models  # noqa: E402

WEIGHTS = HERE / "ds_cnn_kws.pt"
META = HERE / "ds_cnn_kws.json"


def build_model() -> torch.nn.Module:
    """The zoo DS-CNN (12 classes, 64 filters, input 1x1x49x10), untrained."""
    model, shape = models.get("ds_cnn")
    assert shape == (1, 1, features.N_FRAMES, features.N_MFCC)
    return model


def load_trained() -> tuple[torch.nn.Module, dict]:
    """The committed DS-CNN in eval mode and its metadata (labels, standardisation)."""
    model = build_model()
    model.load_state_dict(torch.load(WEIGHTS, weights_only=True))
    return model.eval(), json.loads(META.read_text())


def standardise(x: np.ndarray, meta: dict) -> torch.Tensor:
    """(N, 49, 10) MFCCs -> (N, 1, 49, 10) model inputs."""
    mean = np.asarray(meta["mfcc_mean"], dtype=np.float32)
    std = np.asarray(meta["mfcc_std"], dtype=np.float32)
    return torch.from_numpy(((x - mean) / std).astype(np.float32)[:, None])


def accuracy(model: torch.nn.Module, x: torch.Tensor, y: np.ndarray) -> float:
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(b).argmax(1) for b in torch.split(x, 512)]).numpy()
    return float(np.mean(pred == y))


def main(argv: list[str] | None = None) -> int:
    args = training.parse_arguments(__doc__, argv, epochs=20, out=HERE)

    train = dataset.load("train")
    mean = train["x"].mean(axis=(0, 1))
    std = train["x"].std(axis=(0, 1))
    meta = {"labels": dataset.LABELS, "mfcc": features.PARAMS,
            "mfcc_mean": mean.tolist(), "mfcc_std": std.tolist()}
    x = standardise(train["x"], meta)
    y = torch.from_numpy(train["y"])

    model = build_model()
    seconds = training.fit(model, x, y, args)
    train_acc = accuracy(model, x, train["y"])
    print(f"trained in {seconds:.0f} s; training accuracy {100 * train_acc:.2f} %")

    meta["training"] = {"epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                        "optimizer": "AdamW (weight decay 1e-4), one-cycle schedule",
                        "seed": args.seed, "threads": args.threads,
                        "train_clips": int(len(y)), "seconds": round(seconds),
                        "train_accuracy": round(train_acc, 4),
                        "torch": torch.__version__}
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(model.eval().state_dict(), args.out / WEIGHTS.name)
    (args.out / META.name).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {args.out / WEIGHTS.name} and {args.out / META.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
