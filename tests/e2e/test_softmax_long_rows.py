"""Long softmax rows end to end (issue 19): Linear 8->N + softmax, N in {520, 1024, 4096},
exported from PyTorch with near-equal logits, so the int8 softmax's sum of exps is 512.0 or
more (TFLite's output shift would be 32 or more).

For each N and a few inputs: the lowered int8 graph on the host executor (__ref kernels),
the compiled program on the host runtime, and the same program on the an547 (Cortex-M55,
MVE kernels) and an386 (Cortex-M4, DSP kernels) boards give identical outputs, within
1 LSB (1/256, docs/numerics.md "Softmax") of PyTorch's float softmax of the dequantized
input. Before the fix the host runtime gave 0.996 on every class and the M55 0.0039.

Board runs skip without arm-none-eabi-gcc or qemu-system-arm (CI installs them).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import tinyforge
from tinyforge import board as tfboard

from e2e_util import board_environment, run_cli

CLASSES = [520, 1024, 4096]
BOARDS = ["an547", "an386"]
N_INPUTS = 3
TOLERANCE_LSB = 1  # docs/numerics.md, "Softmax"


def _model(n: int) -> torch.nn.Module:
    torch.manual_seed(n)
    lin = torch.nn.Linear(8, n)
    with torch.no_grad():  # near-equal logits: every probability close to 1/n
        lin.weight.uniform_(-0.02, 0.02)
        lin.bias.uniform_(-0.01, 0.01)
    return torch.nn.Sequential(lin, torch.nn.Softmax(dim=-1)).eval()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("softmax")
    graphs = {}
    for n in CLASSES:
        model = _model(n)
        calib = [torch.randn(1, 8, generator=torch.Generator().manual_seed(s)) for s in range(8)]
        res = tinyforge.export(model, (calib[0],), calibration=[(x,) for x in calib],
                               path=out / f"softmax{n}.tfg")
        graphs[n] = (model, res.path)
    return graphs


def _io(cli, lowered):
    info = json.loads(run_cli(cli, "inspect", "--json", lowered).stdout)
    return info["inputs"][0], info["outputs"][0]


def _float_expected(model, x_q: np.ndarray, inp: dict) -> np.ndarray:
    """PyTorch's float softmax of the dequantized input, on the int8 output grid."""
    scale, zp = float(inp["quant"]["scale"][0]), int(inp["quant"]["zero_point"][0])
    x = torch.from_numpy((x_q.astype(np.float64) - zp) * scale).float()
    with torch.no_grad():
        p = model(x).double().numpy()
    return np.clip(np.rint(p * 256.0) - 128, -128, 127).astype(np.int32)


@pytest.mark.parametrize("n", CLASSES)
def test_long_softmax_host_runtime_equals_reference_and_float(n, cli, exported, tmp_path):
    model, graph = exported[n]
    lowered = tmp_path / "m.int8.tfg"
    run_cli(cli, "compile", graph, "-o", lowered)
    run_cli(cli, "compile", graph, "--target", "cortex-m55", "-o", tmp_path / "m55")
    run_cli(cli, "compile", graph, "--target", "cortex-m4", "-o", tmp_path / "m4")
    inp, _ = _io(cli, lowered)
    rng = np.random.default_rng(n)
    for i in range(N_INPUTS):
        x = rng.integers(-128, 128, size=[int(d) for d in inp["shape"]], dtype=np.int8)
        np.save(tmp_path / "x.npy", x)
        run_cli(cli, "run", lowered, "-i", tmp_path / "x.npy", "-o", tmp_path / "ref.npy")
        ref = np.load(tmp_path / "ref.npy")
        for target in ("m55", "m4"):
            run_cli(cli, "run", tmp_path / target / "program.bin", "-i", tmp_path / "x.npy",
                    "-o", tmp_path / "rt.npy")
            got = np.load(tmp_path / "rt.npy")
            assert np.array_equal(ref, got), f"N={n} input {i}: host runtime ({target}) != reference"
        want = _float_expected(model, x, inp)
        diff = np.abs(ref.astype(np.int32) - want).max()
        assert diff <= TOLERANCE_LSB, f"N={n} input {i}: {diff} LSB from PyTorch's float softmax"


@pytest.fixture(scope="module")
def board_tools(cli):
    with board_environment(cli):
        yield


@pytest.mark.parametrize("board", BOARDS)
def test_long_softmax_on_board_equals_host_and_float(board, board_tools, cli, exported, tmp_path):
    for n in CLASSES:
        model, graph = exported[n]
        lowered = tmp_path / f"m{n}.int8.tfg"
        run_cli(cli, "compile", graph, "-o", lowered)
        inp, _ = _io(cli, lowered)
        x = np.random.default_rng(n + 1).integers(-128, 128, size=[int(d) for d in inp["shape"]],
                                                  dtype=np.int8)
        o = tfboard.run_model(graph, board, [x])
        assert o.bit_exact, (n, board, o.mismatch)  # board == host runtime, same program.bin
        np.save(tmp_path / "x.npy", x)
        run_cli(cli, "run", lowered, "-i", tmp_path / "x.npy", "-o", tmp_path / "ref.npy")
        ref = np.load(tmp_path / "ref.npy")
        got = o.outputs[0].reshape(ref.shape)
        assert np.array_equal(got, ref), f"N={n} {board}: board != reference executor"
        want = _float_expected(model, x, inp)
        diff = np.abs(got.astype(np.int32) - want).max()
        assert diff <= TOLERANCE_LSB, f"N={n} {board}: {diff} LSB from PyTorch's float softmax"
