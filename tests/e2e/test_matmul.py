"""Matrix products of two int8 activations from PyTorch (torch.bmm, torch.matmul / @,
torch.einsum, a transposed operand, 4-D attention scores) and nn.Linear on [B, T, C]:
exported with PT2E, compiled (`qbmm` / `qfc`), and compared with PyTorch's converted int8
model (`compare --against pytorch`): every op within 1 LSB of PyTorch alone.
"""
from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import compare_with_pytorch, random_inputs, run_cli, save_npy


class Bmm(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


class MatmulTransposed(nn.Module):  # x @ y^T: the transpose folds into the kernel
    def forward(self, x, y):
        return x @ y.transpose(-1, -2)


class EinsumBmm(nn.Module):
    def forward(self, a, b):
        return torch.einsum("bij,bjk->bik", a, b)


class Attention(nn.Module):
    """[B, T, C] -> heads [B, H, T, D]: q k^T as einsum, softmax, @ v, heads merged. The
    4-D tensors keep PyTorch's order (no spatial op): the only transposes left are the head
    splits and merge; k^T is folded into the split of k."""

    def __init__(self, c=16, heads=2):
        super().__init__()
        self.h = heads
        self.q, self.k, self.v = nn.Linear(c, c), nn.Linear(c, c), nn.Linear(c, c)

    def forward(self, x):
        b, t, c = x.shape
        def split(y):
            return y.view(b, t, self.h, c // self.h).transpose(1, 2)
        s = torch.einsum("bhqd,bhkd->bhqk", split(self.q(x)), split(self.k(x)))
        o = torch.softmax(s, dim=-1) @ split(self.v(x))
        return o.transpose(1, 2).reshape(b, t, c)


class BroadcastRhs(nn.Module):  # [B, T, C] @ [C, N]: the rhs repeats over the batch
    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w))


class LinearBTC(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 6)

    def forward(self, x):
        return self.fc(x)


CASES = {
    # name: (model, input shapes, qbmm count, transposes left)
    "bmm": (Bmm, [(2, 4, 8), (2, 8, 5)], 1, 0),
    "matmul_transposed": (MatmulTransposed, [(2, 4, 8), (2, 6, 8)], 1, 0),
    "einsum_bmm": (EinsumBmm, [(3, 5, 7), (3, 7, 4)], 1, 0),
    "attention_4d": (Attention, [(1, 6, 16)], 2, 4),
    "broadcast_rhs": (BroadcastRhs, [(2, 5, 8), (8, 3)], 1, 0),
    "linear_btc": (LinearBTC, [(2, 5, 8)], 0, 0),
}


def export(name, tmp_path):
    make, shapes, _, _ = CASES[name]
    torch.manual_seed(0)
    calib = [tuple(random_inputs(s, 1, seed=10 * i + j)[0] for i, s in enumerate(shapes))
             for j in range(4)]
    return tinyforge.export(make().eval(), calib[0], calibration=calib,
                            path=tmp_path / f"{name}.tfg"), shapes


@pytest.mark.parametrize("name", list(CASES))
def test_matmul_within_1_lsb_of_pytorch(name, cli, tmp_path):
    res, shapes = export(name, tmp_path)
    _, _, n_bmm, n_transpose = CASES[name]
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert len(re.findall(r"= qbmm\(", text)) == n_bmm, text
    # A transposed operand is read by the kernel as it is: no transpose op is left.
    assert len(re.findall(r"= transpose\(", text)) == n_transpose, text
    if name == "linear_btc":
        assert len(re.findall(r"= qfc\(", text)) == 1, text
    xs = [save_npy(tmp_path / f"x{i}.npy", random_inputs(s, 1, seed=100 + i)[0])
          for i, s in enumerate(shapes)]
    report = compare_with_pytorch(cli, res.path, xs, tmp_path)
    assert report["first_divergence"] is None, report["first_divergence"]
    # (an op reading a tensor the program stores in another element order, e.g. behind a
    # head-merge transpose, is compared in the whole run only)
    alone = [row for row in report["ops"] if row["alone_max_diff_lsb"] is not None]
    assert len(alone) >= 0.6 * len(report["ops"]), report["ops"]
    for row in alone:
        assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row


def test_unsupported_einsum_names_the_equation(tmp_path):
    class Trace(nn.Module):
        def forward(self, a, b):
            return torch.einsum("ii,j->j", a, b)

    with pytest.raises(tinyforge.UnsupportedOpError, match="ii,j->j"):
        tinyforge.export(Trace(), (torch.randn(3, 3), torch.randn(4)))


def test_outer_product_einsum_is_a_matmul():
    """Any contraction of two operands is a matmul after permutes and reshapes (decision
    78): an outer product is [3, 1] @ [1, 4]."""
    class Outer(nn.Module):
        def forward(self, a, b):
            return torch.einsum("i,j->ij", a, b)

    a, b = torch.randn(3), torch.randn(4)
    res = tinyforge.export(Outer(), (a, b))
    assert "matmul" in {op["type"] for op in res.graph["ops"]}
    torch.testing.assert_close(res.reference(a, b), torch.outer(a, b))


def test_attention_scores_on_an547(board_env, tmp_path):
    """One QEMU run (tinyforge profile): board == host, and qbmm within the conv family's
    instructions per MAC on the M55."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    class Scores(nn.Module):
        def forward(self, q, k):
            return q @ k.transpose(-1, -2)

    torch.manual_seed(0)
    # [B, T, D], head size 64: k read as stored (adj_y). (Smaller heads cost more per MAC:
    # kernels/README.md, bmm.)
    shapes = [(1, 32, 64), (1, 32, 64)]
    calib = [tuple(random_inputs(s, 1, seed=10 * i + j)[0] for i, s in enumerate(shapes))
             for j in range(4)]
    res = tinyforge.export(Scores().eval(), calib[0], calibration=calib,
                           path=tmp_path / "scores.tfg")
    assert tfboard.run_model(res.path, "an547", seed=1).bit_exact
    p = tfboard.profile(res.path, "an547")
    ops = [o for o in p["ops"] if o["type"] == "qbmm"]
    assert len(ops) == 1 and ops[0]["kernel"] == "s8_bmm__mve", p["ops"]
    per_mac = ops[0]["insns"] / ops[0]["macs"]
    print(f"attention scores on an547: qbmm {per_mac:.3f} instructions per MAC")
    assert per_mac <= 0.56, ops[0]  # the conv family's worst model (benchmarks/RESULTS.md)
