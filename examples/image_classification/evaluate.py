"""Image classification end to end: the trained ResNet-8, int8 export, accuracy at every stage.

  python examples/image_classification/evaluate.py [--limit 2000] [--board an547]

Calibration: a seeded random choice of training images. Evaluation: the first ``--limit``
images of the 10,000-image Fashion-MNIST test set (all stages on the same images; float and
PyTorch int8 are also given on the whole test set). Prints the table of examples/RESULTS.md
and writes the graph files and report.json to out/examples/image_classification/.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import evaluation  # noqa: E402
from image_classification import data, train  # noqa: E402

OUT = evaluation.ROOT / "out" / "examples" / "image_classification"


def calibration_inputs(count: int, seed: int = 0) -> np.ndarray:
    images, _ = data.load("train")
    pick = np.sort(np.random.default_rng(seed).permutation(len(images))[:count])
    return data.preprocess(images[pick])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    evaluation.add_arguments(ap, "images", OUT)
    ap.add_argument("--limit", type=int, default=2000, help="first N test images (0: all)")
    ap.add_argument("--whole-test-set", action=argparse.BooleanOptionalAction, default=True,
                    help="also float and PyTorch int8 accuracy on all 10,000 test images")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    model, _ = train.load_trained()
    images, labels = data.load("test")
    x_all = data.preprocess(images)
    n = args.limit or len(labels)
    rep, res = evaluation.evaluate("image classification", model, x_all[:n], labels[:n],
                                   calibration_inputs(args.calibration), args.out,
                                   calibration_method=args.calibration_method,
                                   board=args.board or "an547",
                                   run_on_board=args.board is not None,
                                   board_limit=args.board_limit,
                                   name="resnet8_fmnist")
    full = {}
    if args.whole_test_set and n < len(labels):
        flt = evaluation.predictions_torch(model, x_all, one_by_one=False).argmax(1)
        q = evaluation.predictions_torch(res.reference, x_all, one_by_one=True).argmax(1)
        full = {"samples": len(labels), "float": float(np.mean(flt == labels)),
                "torch_int8": float(np.mean(q == labels))}
        report = json.loads((args.out / "report.json").read_text())
        report["whole_test_set"] = full
        (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    print()
    print(evaluation.table(rep))
    if full:
        print(f"\nwhole test set ({full['samples']} images): float {100 * full['float']:.2f} %, "
              f"PyTorch int8 {100 * full['torch_int8']:.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
