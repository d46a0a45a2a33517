"""Recurrent models from PyTorch in int8 (issue 15): nn.GRU / nn.LSTM (batch_first both ways,
2 layers, bidirectional) and GRUCell / LSTMCell loops, unrolled by PyTorch's decompositions
at export (docs/decisions.md 37), quantized with PT2E, compiled, and compared with PyTorch's
converted int8 model (`compare --against pytorch`): no divergence, every op within 1 LSB of
PyTorch alone. One GRU (64 hidden units: the M55 step cost) and one LSTM also run on an547 and an386
(board == host).
"""
from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import tinyforge
from tinyforge.families import SeqClassifier

from e2e_util import (assert_within_1_lsb, compare_with_pytorch, export_quantized, random_inputs,
                      run_cli, save_npy)


class CellLoop(nn.Module):
    """A GRUCell / LSTMCell stepped over [1, T, C] from a zero state, then Linear."""

    def __init__(self, cls, inputs=12, hidden=24, classes=4):
        super().__init__()
        self.cell, self.hidden = cls(inputs, hidden), hidden
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):
        h = torch.zeros(1, self.hidden)
        c = torch.zeros(1, self.hidden)
        for t in range(x.shape[1]):
            if isinstance(self.cell, nn.LSTMCell):
                h, c = self.cell(x[:, t], (h, c))
            else:
                h = self.cell(x[:, t], h)
        return self.fc(h)


def _seq(cls, t=8, batch_first=True, **kw):
    shape = (1, t, 12) if batch_first else (t, 1, 12)
    return (lambda: SeqClassifier(cls, batch_first=batch_first, **kw)), shape


CASES = {
    # name: (model factory, input shape)
    "gru": _seq(nn.GRU, t=16),
    "gru_seq_first": _seq(nn.GRU, batch_first=False, hidden=16),
    "gru_2layer_bidir": _seq(nn.GRU, hidden=16, num_layers=2, bidirectional=True),
    "lstm": _seq(nn.LSTM, t=16),
    "lstm_seq_first_bidir": _seq(nn.LSTM, batch_first=False, hidden=16, bidirectional=True),
    "lstm_2layer": _seq(nn.LSTM, hidden=16, num_layers=2),
    "grucell_loop": (lambda: CellLoop(nn.GRUCell), (1, 8, 12)),
    "lstmcell_loop": (lambda: CellLoop(nn.LSTMCell), (1, 8, 12)),
}


def _randomize_rnn(model: nn.Module, seed: int) -> nn.Module:
    """Seeded recurrent weights of PyTorch's init scale (U(-1/sqrt(H), 1/sqrt(H)))."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.GRU, nn.LSTM, nn.GRUCell, nn.LSTMCell)):
                bound = m.hidden_size ** -0.5
                for p in m.parameters(recurse=False):
                    p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * bound)
    return model


def _export(name, tmp_path):
    make, shape = CASES[name]
    return export_quantized(_randomize_rnn(make(), 4321), shape, tmp_path / f"{name}.tfg"), shape


@pytest.mark.parametrize("name", list(CASES))
def test_rnn_within_1_lsb_of_pytorch(name, cli, tmp_path):
    res, shape = _export(name, tmp_path)
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert "= qfc(" in text and "= qlut(" in text, text
    x = save_npy(tmp_path / "x.npy", random_inputs(shape, 1, seed=99)[0])
    assert_within_1_lsb(compare_with_pytorch(cli, res.path, x, tmp_path))


def test_export_leaves_the_model_and_no_recurrent_op(tmp_path):
    """The graph holds no GRU / LSTM op, and the user's module is untouched (training flag,
    parameters)."""
    make, shape = CASES["gru_2layer_bidir"]
    model = _randomize_rnn(make(), 1).train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    calib = random_inputs(shape, 2, seed=7)
    res = tinyforge.export(model, (calib[0],), calibration=[(x,) for x in calib])
    assert model.training
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    # 2 layers x 2 directions: the input gates of all steps at once, the hidden state's
    # product for steps 1..7 (h0 = 0: step 0's is the bias), and the classifier
    assert sum(op["type"] == "linear" for op in res.graph["ops"]) == 4 * (1 + 7) + 1
    assert {op["type"] for op in res.graph["ops"]} <= {
        "quantize", "dequantize", "linear", "slice", "reshape", "transpose", "add", "sub", "mul",
        "sigmoid", "tanh", "cat"}


def test_lstm_board_equals_host(board_env, tmp_path):
    """One short QEMU run per board: board == host bit for bit."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    res, _ = _export("lstm", tmp_path)
    for board in ("an547", "an386"):
        assert tfboard.run_model(res.path, board, seed=1).bit_exact, board


def test_gru64_on_boards_and_step_cost_on_an547(board_env, tmp_path):
    """A GRU of 64 hidden units over 16 steps: board == host on an547 and an386, and on the
    M55 a step (the hidden state's qfc and the step's gate ops) within 1.5x the MACs of the
    hidden product (issue 15's target)."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    t, hidden = 16, 64
    model = _randomize_rnn(SeqClassifier(nn.GRU, hidden=hidden, batch_first=True), 4321)
    res = export_quantized(model, (1, t, 12), tmp_path / "gru64.tfg")
    for board in ("an547", "an386"):
        assert tfboard.run_model(res.path, board, seed=1).bit_exact, board
    p = tfboard.profile(res.path, "an547", seed=1)
    fcs = [o for o in p["ops"] if o["type"] == "qfc"]
    hh = [o for o in fcs if o["macs"] == 3 * hidden * hidden]
    assert len(hh) == t - 1, fcs  # step 0's product is the bias (h0 = 0)
    others = [o for o in p["ops"] if o["type"] != "qfc"]  # slices, add, sub, mul, tables
    step = hh[0]["insns"] + sum(o["insns"] for o in others) / t
    print(f"GRU-64 step on an547: {step:.0f} instructions, {3 * hidden * hidden} MACs "
          f"({step / (3 * hidden * hidden):.3f}x); per inference {p['insns_per_inference']}")
    assert all(o["insns"] == hh[0]["insns"] for o in hh), hh
    assert step <= 1.5 * 3 * hidden * hidden, p["ops"]
