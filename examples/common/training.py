"""The training loop both examples use: AdamW (weight decay 1e-4), a one-cycle schedule,
seeded shuffling, cross-entropy; deterministic for a given seed, torch build and thread count."""
from __future__ import annotations

import argparse
import time
from typing import Callable

import torch

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
