"""Concatenations of more inputs than the concat kernel takes (16, TF_LIMIT_CONCAT_INPUTS):
the compiler's split-concat pass joins them as a tree of qconcats (docs/decisions.md 53).
A torch.cat of 25 slices (the concat is the output, every byte is read) compiles to no
qconcat over 16 inputs; an unrolled nn.GRU over 25 steps (its step outputs joined in one cat,
the keyword-spotting GRU's shape, then its last step taken) compiles to no concat at all: the
slice of the last step reads that step's output (remove-noops, docs/decisions.md 82). Both
match PyTorch's int8 model within 1 LSB per op on the host (`compare --against pytorch`,
which lowers with the default pipeline); the 25-slice model also runs on an547, board ==
host bit for bit.
"""
from __future__ import annotations

import re

import torch
from torch import nn

from tinyforge.families import SeqClassifier

from e2e_util import (assert_within_1_lsb, compare_with_pytorch, export_quantized, random_inputs,
                      run_cli, save_npy)

STEPS = 25  # > 16: one partial concat of the first 10 inputs, then 1 + 15


class Cat25(nn.Module):
    """Linear, then its 25 rows (each ReLU'd, scaled differently) joined by one torch.cat."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [1, 25, 8]
        y = self.fc(x)
        return torch.cat([torch.relu(y[:, t]) for t in range(STEPS)], dim=1)  # [1, 150]


def _concat_inputs(cli, graph) -> list[int]:
    """Input counts of the lowered program's qconcats (IR text after the last pass)."""
    text = run_cli(cli, "compile", graph, "--print-after=dce").stdout
    return [len(m.group(1).split(",")) for m in re.finditer(r"= qconcat\(([^)]*)\)", text)]


def _check(cli, model, shape, tmp_path, name, *, concat_read=True):
    res = export_quantized(model, shape, tmp_path / f"{name}.tfg")
    assert sum(op["type"] == "cat" and len(op["inputs"]) == STEPS
               for op in res.graph["ops"]) == 1  # one 25-input cat in the graph
    counts = _concat_inputs(cli, res.path)
    if concat_read:
        assert counts and max(counts) <= 16 and sum(counts) == STEPS + len(counts) - 1, counts
    else:  # only a slice within one input read it: gone
        assert counts == [], counts
    x = save_npy(tmp_path / "x.npy", random_inputs(shape, 1, seed=99)[0])
    assert_within_1_lsb(compare_with_pytorch(cli, res.path, x, tmp_path))
    return res


def test_cat_of_25_slices(cli, tmp_path):
    _check(cli, Cat25(), (1, STEPS, 8), tmp_path, "cat25")


def test_gru_over_25_steps(cli, tmp_path):
    _check(cli, SeqClassifier(nn.GRU, hidden=16, steps=STEPS, batch_first=True),
           (1, STEPS, 12), tmp_path, "gru25", concat_read=False)


def test_cat_of_25_slices_board_equals_host(board_env, tmp_path):
    from tinyforge import board as tfboard  # noqa: PLC0415

    res = export_quantized(Cat25(), (1, STEPS, 8), tmp_path / "cat25.tfg")
    assert tfboard.run_model(res.path, "an547", seed=1).bit_exact
