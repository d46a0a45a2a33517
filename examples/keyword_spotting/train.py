"""Train a keyword-spotting model on the synthetic set (CPU, a few minutes).

  python examples/keyword_spotting/train.py [--arch ds_cnn|gru|attention] [--epochs 20]

Writes, beside this file, the float weights ``ARCH_kws.pt`` (state_dict, 100-300 KB) and
``ARCH_kws.json`` (labels, MFCC parameters, the per-coefficient standardisation, the
training settings and figures). The architectures are models.py's. Deterministic for a given
seed, torch build and thread count.
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
from keyword_spotting import dataset, features, models  # noqa: E402

ARCHS = tuple(models.ARCHS)


def name(arch: str) -> str:
    """The model's name: its weight files are NAME.pt / NAME.json beside this file."""
    return f"{arch}_kws"


def load_trained(arch: str = "ds_cnn") -> tuple[torch.nn.Module, dict]:
    """The committed model of ``arch`` in eval mode and its metadata (labels, standardisation)."""
    model = models.ARCHS[arch]()
    model.load_state_dict(torch.load(HERE / f"{name(arch)}.pt", weights_only=True))
    return model.eval(), json.loads((HERE / f"{name(arch)}.json").read_text())


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
    args = training.parse_arguments(__doc__, argv, epochs=20, out=HERE, extra=lambda ap:
                                    ap.add_argument("--arch", default="ds_cnn", choices=ARCHS))

    train = dataset.load("train")
    mean = train["x"].mean(axis=(0, 1))
    std = train["x"].std(axis=(0, 1))
    meta = {"labels": dataset.LABELS, "mfcc": features.PARAMS,
            "mfcc_mean": mean.tolist(), "mfcc_std": std.tolist()}
    x = standardise(train["x"], meta)
    y = torch.from_numpy(train["y"])

    model = models.ARCHS[args.arch]()
    seconds = training.fit(model, x, y, args)
    train_acc = accuracy(model, x, train["y"])
    print(f"trained in {seconds:.0f} s; training accuracy {100 * train_acc:.2f} %")

    meta["training"] = {"arch": args.arch, "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                        "optimizer": "AdamW (weight decay 1e-4), one-cycle schedule",
                        "seed": args.seed, "threads": args.threads,
                        "train_clips": int(len(y)), "seconds": round(seconds),
                        "train_accuracy": round(train_acc, 4),
                        "torch": torch.__version__}
    args.out.mkdir(parents=True, exist_ok=True)
    weights, meta_file = (args.out / f"{name(args.arch)}{ext}" for ext in (".pt", ".json"))
    torch.save(model.eval().state_dict(), weights)
    meta_file.write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {weights} and {meta_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
