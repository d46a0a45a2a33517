"""Streaming with persistent state (docs/decisions.md 50): a keyword spotter that consumes one
MFCC frame per call (a GRU cell and a linear head, the hidden state kept by the runtime from
call to call) gives after N calls exactly the output of the whole-window model (the same
cell unrolled over the N frames), on the host runtime and on an547; a reset starts over; both
track PyTorch. Export shares the state pair's quantization when calibrating by sequences."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torchao.quantization.pt2e import MinMaxObserver

import tinyforge
from tinyforge import board as tfboard
from tinyforge import graph_file

from e2e_util import run_cli

FEATURES, HIDDEN, KEYWORDS, FRAMES = 10, 16, 4, 8
CHANNELS, TAPS = 12, 3  # the ring-buffer model: a causal conv over the last TAPS frames


class StepKws(nn.Module):
    """One MFCC frame [1, F] and the hidden state [1, H] -> keyword logits and the new state."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.GRUCell(FEATURES, HIDDEN)
        self.head = nn.Linear(HIDDEN, KEYWORDS)

    def forward(self, frame: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.cell(frame, h)
        return self.head(h), h


class WindowKws(nn.Module):
    """The same cell and head over a whole window [1, T, F] from the initial state h."""

    def __init__(self, step: StepKws) -> None:
        super().__init__()
        self.cell, self.head = step.cell, step.head

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return self.head(h)


class StepRing(nn.Module):
    """One frame [1, F] and a ring buffer of the last TAPS - 1 frames [1, TAPS - 1, F] ->
    logits of a causal conv over the last TAPS frames, and the buffer shifted by one."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(FEATURES, CHANNELS, TAPS)
        self.head = nn.Linear(CHANNELS, KEYWORDS)

    def forward(self, frame: torch.Tensor, buf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        window = torch.cat([buf, frame[:, None]], 1)  # [1, TAPS, F]
        y = torch.relu(self.conv(window.transpose(1, 2)))  # [1, C, 1]
        return self.head(y[:, :, 0]), window[:, 1:]


class WindowRing(nn.Module):
    """The same conv over a whole window [1, T, F] (zero frames before it), last output."""

    def __init__(self, step: StepRing) -> None:
        super().__init__()
        self.conv, self.head = step.conv, step.head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(F.pad(x.transpose(1, 2), (TAPS - 1, 0))))
        return self.head(y[:, :, -1])


# name -> (step class, window class, state input name, state shape, window takes the state)
MODELS = {
    "gru": (StepKws, WindowKws, "h", (1, HIDDEN), True),
    "ring": (StepRing, WindowRing, "buf", (1, TAPS - 1, FEATURES), False),
}


class FixedRange(MinMaxObserver):
    """Every activation observed as [-4, 4]: the step and the window model get the same
    quantization parameters op for op by construction (weights: per channel, from the same
    float weights), so their int8 programs must agree bit for bit."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.min_val.copy_(torch.tensor(-4.0))
        self.max_val.copy_(torch.tensor(4.0))
        return x


def _mfcc(seed: int, frames: int) -> torch.Tensor:
    """MFCC-like frames [frames, F]: a smooth random walk."""
    g = torch.Generator().manual_seed(seed)
    return torch.cumsum(torch.randn(frames, FEATURES, generator=g) * 0.4, 0).clamp(-3, 3)


def _model(name: str = "gru") -> nn.Module:
    torch.manual_seed(7)
    return MODELS[name][0]().eval()


def _float_window(name: str, step: nn.Module, frames: torch.Tensor) -> np.ndarray:
    _, window, _, shape, takes_state = MODELS[name]
    args = (frames[None], torch.zeros(shape)) if takes_state else (frames[None],)
    with torch.no_grad():
        return window(step)(*args).numpy()


def _quant(graph: dict, which: str, k: int) -> dict:
    """The quantization of graph input / output k (what its quantize / dequantize uses)."""
    t = graph[which][k]
    for op in graph["ops"]:
        if which == "inputs" and op["type"] == "quantize" and op["inputs"][0] == t:
            return graph["tensors"][op["outputs"][0]]["quant"]
        if which == "outputs" and op["type"] == "dequantize" and op["outputs"][0] == t:
            return graph["tensors"][op["inputs"][0]]["quant"]
    raise AssertionError(f"no quantize / dequantize at {which} {k}")


def _q(x: torch.Tensor, q: dict) -> np.ndarray:
    """x quantized as the program's int8 input with quantization q."""
    v = np.round(x.numpy().astype(np.float64) / q["scale"][0]) + q["zero_point"][0]
    return np.clip(v, -128, 127).astype(np.int8)


def _export_pair(name: str, tmp_path):
    """The step and the window model from the same float weights, both with FixedRange."""
    step_cls, window_cls, state_name, shape, takes_state = MODELS[name]
    step = _model(name)
    frames = _mfcc(1, FRAMES)
    s0 = torch.zeros(shape)
    s = tinyforge.export(step, (frames[:1], s0), calibration=[(frames,)],
                         state=[(state_name, 1)],
                         quantizer=tinyforge.TinyforgeQuantizer(act_observer=FixedRange),
                         path=tmp_path / f"{name}_step.tfg")
    wargs = (frames[None], s0) if takes_state else (frames[None],)
    w = tinyforge.export(window_cls(step), wargs, calibration=[wargs],
                         quantizer=tinyforge.TinyforgeQuantizer(act_observer=FixedRange),
                         path=tmp_path / f"{name}_window.tfg")
    return step, frames, s, w


@pytest.mark.parametrize("name", list(MODELS))
def test_step_program_equals_window_program(name, cli, tmp_path):
    """Host runtime: after N calls the step program's logits are the window program's, bit
    for bit; --reset-every repeats the sequence exactly; the state bytes are reported."""
    step, frames, s, w = _export_pair(name, tmp_path)
    state_shape = MODELS[name][3]
    assert s.graph["state"] == [[1, 1]]
    for tag, g in (("step", s), ("window", w)):
        run_cli(cli, "compile", g.path, "--target", "an547", "-o", tmp_path / tag)
    report = json.loads((tmp_path / "step" / "report.json").read_text())
    assert report["state"] == [{"input": 1, "output": 1}]
    assert report["state_bytes"] == int(np.prod(state_shape))  # int8
    assert "State:  input 1 <- output 1" in (tmp_path / "step" / "model.h").read_text()

    qx = _quant(s.graph, "inputs", 0)
    assert _quant(w.graph, "inputs", 0) == qx  # the same fixed parameters
    np.save(tmp_path / "x.npy", _q(frames[None], qx))
    win_args = ["-i", tmp_path / "x.npy"]
    if MODELS[name][4]:
        np.save(tmp_path / "s0.npy", _q(torch.zeros(state_shape), _quant(w.graph, "inputs", 1)))
        win_args += ["-i", tmp_path / "s0.npy"]
    run_cli(cli, "run", tmp_path / "window" / "program.bin", *win_args,
            "-o", tmp_path / "yw.npy")
    want = np.load(tmp_path / "yw.npy")  # int8 [1, K]
    # The step program: N calls, the state input left to the runtime; twice over with a
    # reset between (the second sequence must repeat the first).
    np.save(tmp_path / "frames.npy", _q(torch.cat([frames, frames])[:, None], qx))
    run_cli(cli, "run", tmp_path / "step" / "program.bin", "-i", tmp_path / "frames.npy",
            "--steps", 2 * FRAMES, "--reset-every", FRAMES,
            "-o", tmp_path / "logits.npy", "-o", tmp_path / "state.npy")
    logits = np.load(tmp_path / "logits.npy")  # int8 [2N, 1, K]
    assert logits.shape == (2 * FRAMES, 1, KEYWORDS) and logits.dtype == np.int8
    np.testing.assert_array_equal(logits[FRAMES - 1], want)
    np.testing.assert_array_equal(logits[FRAMES:], logits[:FRAMES])
    assert len({logits[k].tobytes() for k in range(FRAMES)}) > 1  # the output does move
    # Without the reset the second sequence starts from the first one's state: different.
    run_cli(cli, "run", tmp_path / "step" / "program.bin", "-i", tmp_path / "frames.npy",
            "--steps", 2 * FRAMES, "-o", tmp_path / "logits2.npy", "-o", tmp_path / "s2.npy")
    assert not np.array_equal(np.load(tmp_path / "logits2.npy")[FRAMES:], logits[:FRAMES])
    # PyTorch's float window model, within a few steps of the output grid.
    q = _quant(s.graph, "outputs", 0)
    got = (want.astype(np.float32) - q["zero_point"][0]) * q["scale"][0]
    assert np.max(np.abs(got - _float_window(name, step, frames))) < 4 * q["scale"][0]


def test_step_program_on_an547_equals_host(cli, board_env, tmp_path):
    """an547: the firmware runs its samples as one sequence from the reset state (the board
    driver checks every output bit for bit against `tinyforge run --steps` on the same
    program); the last call's logits are the window program's."""
    _, frames, s, w = _export_pair("gru", tmp_path)
    qx = _quant(s.graph, "inputs", 0)
    outs = tfboard.run(s.path, "an547", inputs=[_q(frames[:, None], qx)])
    run_cli(cli, "compile", w.path, "--target", "an547", "-o", tmp_path / "window")
    np.save(tmp_path / "x.npy", _q(frames[None], qx))
    np.save(tmp_path / "s0.npy", _q(torch.zeros(1, HIDDEN), _quant(w.graph, "inputs", 1)))
    run_cli(cli, "run", tmp_path / "window" / "program.bin", "-i", tmp_path / "x.npy",
            "-i", tmp_path / "s0.npy", "-o", tmp_path / "yw.npy")
    assert outs[0].shape == (FRAMES, 1, KEYWORDS)
    np.testing.assert_array_equal(outs[0][FRAMES - 1], np.load(tmp_path / "yw.npy"))


def test_calibrated_state_shares_quantization_and_tracks_pytorch(cli, tmp_path):
    """The default (min/max) quantizer calibrated by sequences: the state input and output
    get one scale and zero point, and the program stepped through a sequence stays close to
    PyTorch's converted model stepped the same way and to the float model."""
    step = _model()
    seqs = [_mfcc(seed, FRAMES) for seed in range(2, 6)]
    s = tinyforge.export(step, (seqs[0][:1], torch.zeros(1, HIDDEN)),
                         calibration=[(x,) for x in seqs], state=[(1, 1)],
                         path=tmp_path / "step.tfg")
    assert _quant(s.graph, "inputs", 1) == _quant(s.graph, "outputs", 1)
    run_cli(cli, "compile", s.path, "--target", "an547", "-o", tmp_path / "c")
    frames = _mfcc(11, FRAMES)
    np.save(tmp_path / "f.npy", _q(frames[:, None], _quant(s.graph, "inputs", 0)))
    run_cli(cli, "run", tmp_path / "c" / "program.bin", "-i", tmp_path / "f.npy",
            "--steps", FRAMES, "-o", tmp_path / "y.npy", "-o", tmp_path / "h.npy")
    q = _quant(s.graph, "outputs", 0)
    got = (np.load(tmp_path / "y.npy").astype(np.float32) - q["zero_point"][0]) * q["scale"][0]
    h = torch.zeros(1, HIDDEN)
    ref = []
    with torch.no_grad():
        for t in range(FRAMES):
            y, h = s.reference(frames[t:t + 1], h)
            ref.append(y.numpy())
    ref = np.stack(ref)
    assert np.max(np.abs(got - ref)) <= 2.01 * q["scale"][0]
    assert np.max(np.abs(got[-1] - _float_window("gru", step, frames))) < 0.1


def test_state_pairs_are_checked(cli, tmp_path, monkeypatch):
    """export names a bad pair; the compiler rejects a graph whose pair differs in shape."""
    step = _model()
    ex = (torch.zeros(1, FEATURES), torch.zeros(1, HIDDEN))
    with pytest.raises(ValueError, match="no input named 'hidden'"):
        tinyforge.export(step, ex, state=[("hidden", 1)])
    with pytest.raises(ValueError, match="output 2 out of range"):
        tinyforge.export(step, ex, state=[("h", 2)])
    with pytest.raises(ValueError, match="a state pair needs one shape"):
        tinyforge.export(step, ex, state=[("frame", 1)])
    data = tinyforge.export(step, ex).data
    _, _, json_len, blob_len = graph_file.HEADER.unpack_from(data)
    doc = json.loads(data[graph_file.HEADER.size:graph_file.HEADER.size + json_len])
    doc["state"] = [[0, 1]]  # frame [1, F] with h [1, H]
    monkeypatch.setattr(graph_file, "validate_document", lambda *a: None)  # Python's check
    (tmp_path / "bad.tfg").write_bytes(graph_file.serialize(doc, data[len(data) - blob_len:]))
    proc = run_cli(cli, "compile", tmp_path / "bad.tfg", "--target", "an547", "-o",
                   tmp_path / "o", check=False)
    assert proc.returncode == 2 and "state" in proc.stderr and "shape" in proc.stderr, proc.stderr
