"""Keyword spotting end to end: a trained model, int8 export, accuracy at every stage.

  python examples/keyword_spotting/evaluate.py [--arch ds_cnn|gru|attention]
      [--calibration 300] [--board an547 [--board-limit N]]

Needs data/kws_{train,test}.npz (dataset.py) and the weights (train.py, committed).
Calibration: a seeded random choice of training clips. Evaluation: every test clip (200
voices no training clip was spoken by), at every stage of common/evaluation.py. Prints the
table of examples/RESULTS.md and writes the graph files, the lowered program, every stage's
outputs and report.json to out/examples/keyword_spotting/ARCH/.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import evaluation  # noqa: E402
from keyword_spotting import dataset, train  # noqa: E402

OUT = evaluation.ROOT / "out" / "examples" / "keyword_spotting"


def calibration_inputs(train_split: dict, meta: dict, count: int, seed: int = 0) -> np.ndarray:
    pick = np.sort(np.random.default_rng(seed).permutation(len(train_split["y"]))[:count])
    return train.standardise(train_split["x"][pick], meta).numpy()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="ds_cnn", choices=train.ARCHS)
    evaluation.add_arguments(ap, "clips", None)
    ap.add_argument("--limit", type=int, default=None, help="first N test clips only")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    model, meta = train.load_trained(args.arch)
    test = dataset.load("test")
    x = train.standardise(test["x"], meta).numpy()[: args.limit]
    y = test["y"][: args.limit]
    calib = calibration_inputs(dataset.load("train"), meta, args.calibration)
    rep, _ = evaluation.evaluate("keyword spotting", model, x, y, calib,
                                 args.out or OUT / args.arch,
                                 calibration_method=args.calibration_method,
                                 board=args.board or "an547",
                                 run_on_board=args.board is not None,
                                 board_limit=args.board_limit,
                                 name=train.name(args.arch))
    print()
    print(evaluation.table(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
