"""The training loop both examples use: AdamW (weight decay 1e-4), a one-cycle schedule,
seeded shuffling, cross-entropy; deterministic for a given seed, torch build and thread count."""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Callable

import torch

def parse_arguments(doc: str, argv: list[str] | None, epochs: int, out: Path,
                    extra: Callable[[argparse.ArgumentParser], None] = lambda ap: None,
                    ) -> argparse.Namespace:
    """The options of both train.py (``extra`` adds a script's own), parsed; sets torch's
    thread count and seed from them."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    extra(ap)
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=out, help="folder for the weights and JSON")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    return args


Augment = Callable[[torch.Tensor, torch.Generator], torch.Tensor]


def fit(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, args: argparse.Namespace,
        augment: Augment | None = None) -> float:
    """Trains ``model`` in place for ``args.epochs`` epochs of ``args.batch`` samples at peak
    learning rate ``args.lr``, shuffled from ``args.seed``; ``augment(batch, generator)`` may
    transform each batch. Prints the loss per epoch; returns the seconds taken."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * ((len(y) + args.batch - 1) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps)
    gen = torch.Generator().manual_seed(args.seed)
    t0 = time.time()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for idx in torch.split(order, args.batch):
            xb = x[idx] if augment is None else augment(x[idx], gen)
            loss = torch.nn.functional.cross_entropy(model(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        print(f"epoch {epoch + 1:2d}/{args.epochs}: loss {total / len(y):.4f} "
              f"({time.time() - t0:.0f} s)", flush=True)
    return time.time() - t0
